"""Where the course lives on disk, and how we run nbgrader against it.

nbgrader wants a course directory (`source/<assignment>/<notebook>.ipynb`, a gradebook,
`nbgrader_config.py`). Our single source is `solutions/NN_slug.ipynb`, one notebook per
chapter, so each chapter is an nbgrader assignment named after its file stem. This
module builds such course directories on demand and drives nbgrader through its API,
with the environment's `bin/` on PATH (nbgrader shells out to `alembic`).
"""
from __future__ import annotations

import contextlib
import functools
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from . import notebooks

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
SOLUTIONS_DIR = REPO_ROOT / "solutions"
CHAPTERS_DIR = REPO_ROOT / "chapters"
CONFIG_FILE = PACKAGE_DIR / "nbgrader_config.py"
# In a student bundle (no solutions/), the self-check's reference: student notebooks, visible tests only.
REFERENCE_DIR = PACKAGE_DIR / "reference"
LEARNER_DIR = REPO_ROOT / "learner"
# ipykernel logs a transport warning to the terminal at every start; learners need not see it.
QUIET_KERNEL = ["--IPKernelApp.log_level=ERROR"]


def chapter_names(solutions_dir: Path = SOLUTIONS_DIR) -> list[str]:
    """Assignment names, e.g. ['01_cost_model', '02_greedy_speculation', ...], in order.
    In a student bundle (no `solutions/`), the chapters of the self-check's reference."""
    if solutions_dir == SOLUTIONS_DIR and not SOLUTIONS_DIR.is_dir():
        solutions_dir = REFERENCE_DIR
    return sorted(p.stem for p in solutions_dir.glob("[0-9][0-9]_*.ipynb"))


def in_bundle() -> bool:
    """True in a student bundle: no instructor solutions, no hidden tests."""
    return not SOLUTIONS_DIR.is_dir() and REFERENCE_DIR.is_dir()


def reference_notebook_path(name: str) -> Path:
    """The notebook whose test cells the self-check runs: the instructor's (visible and hidden
    tests) in the course repository, the student version (visible tests) in a bundle."""
    own = SOLUTIONS_DIR / f"{name}.ipynb"
    return own if own.exists() else REFERENCE_DIR / f"{name}.ipynb"


def resolve_chapter(name: str, solutions_dir: Path = SOLUTIONS_DIR) -> str:
    """Accept '01', '1', '01_cost_model' or a path to a chapter notebook; return the full name."""
    stem = Path(name).stem
    names = chapter_names(solutions_dir)
    if stem in names:
        return stem
    prefix = stem.zfill(2) if stem.isdigit() else stem
    matches = [n for n in names if n.split("_", 1)[0] == prefix]
    if len(matches) == 1:
        return matches[0]
    raise SystemExit(f"unknown chapter {name!r}; chapters are: {', '.join(names)}")


def nbgrader_env() -> dict:
    """The environment for nbgrader subprocesses: this interpreter's bin/ first on PATH."""
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.setdefault("PYTHONWARNINGS", "ignore")
    # Kernels import the same course code as this process (matters in a copied student bundle).
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    # Notebooks draw figures without a display.
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    return env


@contextlib.contextmanager
def kernel_environment():
    """Run notebooks with `nbgrader_env()` (kernels inherit it), restoring os.environ afterwards."""
    saved = dict(os.environ)
    os.environ.update(nbgrader_env())
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@dataclass
class CourseDir:
    """An nbgrader course directory whose `source/` mirrors `solutions/`.

    nbgrader runs in this process through its Python API (`NbGraderAPI`): importing
    nbgrader takes seconds, and one import serves every chapter and student.
    """

    root: Path
    cell_timeout: int | None = None     # seconds per cell; None keeps nbgrader_config.py's value
    hide: tuple = ()                    # more folders student code must not see (the submissions)
    require_isolation: bool = False     # refuse to grade without bubblewrap
    memory_bytes: int | None = None     # data-memory limit per kernel; None keeps the default (8 GiB)

    @classmethod
    def create(cls, root: Path, chapters: list[str] | None = None,
               solutions_dir: Path = SOLUTIONS_DIR, cell_timeout: int | None = None,
               hide: tuple = (), require_isolation: bool = False,
               memory_bytes: int | None = None) -> "CourseDir":
        root = Path(root).resolve()
        root.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CONFIG_FILE, root / "nbgrader_config.py")
        for name in chapters or chapter_names(solutions_dir):
            dest = root / "source" / name
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(solutions_dir / f"{name}.ipynb", dest / f"{name}.ipynb")
        return cls(root, cell_timeout, tuple(hide), require_isolation, memory_bytes)

    @functools.cached_property
    def api(self):
        from nbgrader.apps import NbGraderAPI
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config.loader import PyFileConfigLoader

        # nbgrader shells out to `alembic` when it creates a gradebook.
        os.environ["PATH"] = nbgrader_env()["PATH"]
        config = PyFileConfigLoader("nbgrader_config.py", path=str(self.root)).load_config()
        config.CourseDirectory.root = str(self.root)
        config.NbGraderAPI.log_level = "ERROR"
        if self.cell_timeout is not None:
            config.Execute.timeout = self.cell_timeout
        # Student code never sees the grading output (gradebook, other submissions) or the submissions.
        config.ResilientExecute.hide = [str(self.root)] + [str(h) for h in self.hide]
        config.ResilientExecute.require_isolation = self.require_isolation
        if self.memory_bytes is not None:
            config.ResilientExecute.memory_bytes = self.memory_bytes
        # Parallel graders share the gradebook: wait for its lock instead of failing.
        config.CourseDirectory.db_url = f"sqlite:///{self.root / 'gradebook.db'}?timeout=300"
        return NbGraderAPI(CourseDirectory(config=config), config=config)

    @contextlib.contextmanager
    def gradebook(self):
        """nbgrader's gradebook of this course directory, opened and closed around the block."""
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}?timeout=300") as gb:
            yield gb

    def _check(self, result: dict, what: str) -> dict:
        if not result.get("success"):
            raise RuntimeError(f"nbgrader {what} failed:\n{result.get('log', '')[-3000:]}\n"
                               f"{result.get('error', '')[-6000:]}")
        return result

    def release_path(self, name: str) -> Path:
        return self.root / "release" / name / f"{name}.ipynb"

    def generate(self, name: str) -> Path:
        """Run nbgrader's generate_assignment for one chapter; return the student notebook."""
        self._check(self.api.generate_assignment(name, force=True, create=True), f"generate_assignment {name}")
        return self.release_path(name)

    def autograde(self, name: str, student: str) -> dict:
        """Autograde one student's submission; returns nbgrader's result (success, log, error)."""
        return self.api.autograde(name, student, force=True, create=True)

    def generate_feedback(self, name: str, student: str | None = None) -> dict:
        return self.api.generate_feedback(name, student, force=True)


def write_normalized(src: Path, dest: Path) -> bool:
    """Write the normalized form of `src` to `dest`; return True if `dest` changed."""
    text = notebooks.dumps(notebooks.read(src))
    if dest.exists() and dest.read_text(encoding="utf-8") == text:
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")
    return True
