"""Executed student notebooks, kept so that a chapter is run once per change, not once per use.

The book shows each chapter as a learner's Run All does (the student copy in `chapters/`,
executed top to bottom), and the test suite executes the same copies to check that they fail
only in their test cells. Both go through this cache: an executed notebook is stored under a key
that hashes everything its outputs depend on in this checkout (the notebook, the course library
`specdec/` and `widgets/` with the tiny pair's weights, `autograder/`, the pinned package set, the
Python version, and how the book runs a chapter: this file and book/figures.py), so a stored run is
reused only while none of these has changed.

A page must show what a new reader would see, not the machine's history: each chapter runs with
HOME (whose IPython startup file has book/figures.py describe every figure) pointed into
an empty temporary folder and no progress log (`COURSE_PROGRESS_LOG=off`, the progress module's
"no log in this run"; `COURSE_PROGRESS_DIR` also points into the empty folder), so chapter 13's
"Your progress" shows an empty log. A run is reused only when it says it ran that way (`clean_home` in
`metadata.course_execution`), so a run stored by another caller with its own log is run again.
Runs of one chapter take a lock: two processes (the suite's workers) run a chapter once.

    >>> import tempfile
    >>> key_a = cache_key(CHAPTERS_DIR / "01_cost_model.ipynb")
    >>> key_a == cache_key(CHAPTERS_DIR / "01_cost_model.ipynb") and len(key_a) == 16
    True
    >>> key_a != cache_key(CHAPTERS_DIR / "02_greedy_speculation.ipynb")
    True
"""
from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.paths import CHAPTERS_DIR, REPO_ROOT
from autograder.authoring.execute import Execution, execute

CACHE_DIR = Path(os.environ.get("COURSE_EXECUTED_DIR", REPO_ROOT / "build" / "executed"))
# What a chapter's outputs depend on besides the notebook itself.
LIBRARY = ("specdec", "widgets", "autograder")
INSTALL_FILES = ("pyproject.toml", "constraints.txt")
# How the book runs a chapter (the empty HOME, what it records of each figure): a change runs every chapter again.
RUNNER_FILES = ("book/executed.py", "book/figures.py")
# Variables that say where a learner's files (the progress log) live: all point into an empty folder.
PROGRESS_VARS = ("COURSE_PROGRESS_LOG", "COURSE_PROGRESS_DIR")


@functools.lru_cache(maxsize=1)
def _library_digest() -> str:
    h = hashlib.sha256(sys.version.encode())
    for name in INSTALL_FILES + RUNNER_FILES:
        path = REPO_ROOT / name
        h.update(name.encode() + (path.read_bytes() if path.exists() else b""))
    for package in LIBRARY:
        for path in sorted((REPO_ROOT / package).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc" \
                    and "reference" not in path.relative_to(REPO_ROOT / package).parts[:1]:
                h.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def cache_key(notebook: Path) -> str:
    """16 hex digits naming one run of `notebook` against this checkout's library."""
    h = hashlib.sha256(_library_digest().encode())
    h.update(Path(notebook).read_bytes())
    return h.hexdigest()[:16]


def _cached_path(notebook: Path, cache_dir: Path | None = None) -> Path:
    return Path(cache_dir or CACHE_DIR) / f"{Path(notebook).stem}-{cache_key(notebook)}.ipynb"


def _errors(nb) -> list[tuple[int, str]]:
    return [(i, f"{o.ename}: {o.evalue}") for i, c in enumerate(nb.cells) if c.cell_type == "code"
            for o in c.get("outputs", []) if o.output_type == "error"]


@contextlib.contextmanager
def empty_home():
    """os.environ with HOME and every progress-log variable pointed into a new empty folder
    (removed afterwards); restored on exit. Kernels started inside inherit it.

    >>> with empty_home() as home:
    ...     os.environ["HOME"] == str(home), os.environ["COURSE_PROGRESS_LOG"]
    (True, 'off')

    """
    from .figures import STARTUP

    saved = {k: os.environ.get(k) for k in ("HOME", "IPYTHONDIR", *PROGRESS_VARS)}
    with tempfile.TemporaryDirectory(prefix="course-book-home-") as tmp:
        home = Path(tmp)
        os.environ["HOME"] = str(home)
        # The kernel's IPython profile lives there too: its startup file records each figure's description.
        os.environ["IPYTHONDIR"] = str(home / ".ipython")
        startup = home / ".ipython" / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-course-book-figures.py").write_text(STARTUP, encoding="utf-8")
        os.environ["COURSE_PROGRESS_LOG"] = "off"          # autograder.progress.log: no log in this run
        os.environ["COURSE_PROGRESS_DIR"] = str(home / "progress")
        try:
            yield home
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def execute_clean(notebook: Path) -> Execution:
    """Run `notebook` as a new reader would (empty HOME, empty progress log); the result says so."""
    with empty_home():
        result = execute(Path(notebook))
    result.notebook.metadata["course_execution"] = {"seconds": round(result.seconds, 2), "clean_home": True}
    return result


@contextlib.contextmanager
def _chapter_lock(notebook: Path, cache_dir: Path | None):
    folder = Path(cache_dir or CACHE_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f".{Path(notebook).stem}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)        # released when the file closes
        yield


def store(notebook: Path, result: Execution, cache_dir: Path | None = None) -> Path:
    """Keep `result` (an execution of `notebook` as it is now); return the cached file."""
    path = _cached_path(notebook, cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in path.parent.glob(f"{Path(notebook).stem}-*.ipynb"):   # runs of older versions
        old.unlink(missing_ok=True)
    clean = bool(result.notebook.metadata.get("course_execution", {}).get("clean_home"))
    result.notebook.metadata["course_execution"] = {"seconds": round(result.seconds, 2), "clean_home": clean}
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    nbformat.write(result.notebook, str(tmp))
    tmp.replace(path)                                               # readers never see half a file
    return path


def cached(notebook: Path, cache_dir: Path | None = None) -> Execution | None:
    """The stored run of `notebook` as it is now, or None."""
    path = _cached_path(notebook, cache_dir)
    if not path.exists():
        return None
    nb = nbformat.read(str(path), as_version=4)
    if not nb.metadata.get("course_execution", {}).get("clean_home"):
        return None                       # run with someone's progress log: not for a page
    seconds = nb.metadata.get("course_execution", {}).get("seconds", 0.0)
    return Execution(nb, seconds, _errors(nb))


def executed(notebook: Path, cache_dir: Path | None = None) -> tuple[Execution, bool]:
    """(the executed `notebook`, whether it came from the cache): runs it only when no run of
    this version is stored, and stores the new run."""
    with _chapter_lock(notebook, cache_dir):
        hit = cached(notebook, cache_dir)
        if hit is not None:
            return hit, True
        result = execute_clean(Path(notebook))
        store(notebook, result, cache_dir)
        return result, False
