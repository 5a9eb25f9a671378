"""What students' servers run: a Python they can execute and the course code without solutions.

The course's environment is shared read-only: a small virtual environment in the hub's state
folder, made from a Python 3 interpreter of the course's version that every user can run, holds
the course environment's installed packages (hard links: no copy, and inside the environment's
own folder, which the grading sandbox of Check my work lets a kernel see) and a student copy of the course
code (`specdec/`, `widgets/`, `autograder/` with the learner notebooks as the self-check's
reference, and chapter 12's recorded full run `benchmarks/results/lab12_cpu.json`, as in
`python -m autograder bundle`): never the repository, so never `solutions/` or hidden tests. A Python installed under a private home (pyenv in /root, mode 700) cannot be
run by anyone else; it is detected and another interpreter of the same version is used, said in
one line, or the hub refuses to start saying what to install.

    >>> reachable_by_others(Path("/"))
    True
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path

from ..errors import CourseError
from ..grading.allowlist import LAB_RECORD
from ..paths import CHAPTERS_DIR, REPO_ROOT, chapter_names
from .layout import HubLayout

# The course code a student's kernel imports (as in a student bundle, without the book builder).
CODE_PACKAGES = ("specdec", "widgets", "autograder")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "reference")


def reachable_by_others(path: Path, execute: bool = False) -> bool:
    """True if a user who is neither the owner nor in the group can reach `path` (every folder
    above it searchable; the file itself readable, or executable with `execute`)."""
    path = Path(os.path.realpath(path))
    for folder in list(path.parents)[::-1] + ([path] if path.is_dir() else []):
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
    mode = os.stat(path).st_mode
    return bool(mode & (stat.S_IXOTH if execute else stat.S_IROTH))


def _blocking_folder(path: Path) -> Path | None:
    for folder in list(Path(os.path.realpath(path)).parents)[::-1]:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder
    return None


def _version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                             text=True, timeout=60).stdout.split()
        return (int(out[0]), int(out[1])) if len(out) == 2 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def _base_python_is_usable(python: Path) -> bool:
    """The interpreter and its standard library can be reached by other users."""
    if not python.is_file() or not reachable_by_others(python, execute=True):
        return False
    proc = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
                          capture_output=True, text=True, timeout=60)
    return proc.returncode == 0 and reachable_by_others(Path(proc.stdout.strip()))


def choose_python() -> tuple[Path, str | None]:
    """An interpreter of the course's Python version that students can run, and a sentence when
    it is not the course's own. Raises CourseError when there is none."""
    own = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    site = Path(sysconfig.get_paths()["purelib"])
    if not reachable_by_others(site):
        raise CourseError(f"students cannot read the course's packages ({site}: {_blocking_folder(site)} is "
                          f"closed to other users); install the course outside a private home")
    if _base_python_is_usable(own):
        return own, None
    minor = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for cand in (shutil.which(minor), f"/usr/bin/{minor}", f"/usr/local/bin/{minor}"):
        if cand and _base_python_is_usable(Path(os.path.realpath(cand))) \
                and _version(cand) == tuple(sys.version_info[:2]):
            return Path(os.path.realpath(cand)), (
                f"the course's Python ({own}) lies under {_blocking_folder(own)}, which other users cannot "
                f"enter: students' servers run {os.path.realpath(cand)} with the course's packages")
    raise CourseError(f"students cannot run the course's Python ({own}: {_blocking_folder(own)} is closed to "
                      f"other users) and no other {minor} was found; install {minor} outside a private home "
                      f"(e.g. apt-get install {minor}) and try again")


def copy_code(dest: Path) -> Path:
    """The course code students import, with the learner notebooks as the self-check's reference
    (visible tests only); replaces `dest`."""
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in CODE_PACKAGES:
        shutil.copytree(REPO_ROOT / name, dest / name, ignore=_IGNORE)
    # Chapter 12's recorded full run, where `specdec.engine.lab_record` looks for it (beside the
    # library); the sandbox of Check my work binds this one file of benchmarks/.
    if (REPO_ROOT / LAB_RECORD).is_file():
        (dest / LAB_RECORD).parent.mkdir(parents=True)
        shutil.copyfile(REPO_ROOT / LAB_RECORD, dest / LAB_RECORD)
    reference = dest / "autograder" / "reference"
    reference.mkdir()
    for name in chapter_names():
        shutil.copyfile(CHAPTERS_DIR / f"{name}.ipynb", reference / f"{name}.ipynb")
    return dest


def _commands(env: Path) -> list[str]:
    """The course environment's commands (`nbgrader`, `jupyter`, `alembic`, which nbgrader runs
    to make a gradebook, ...) in the students' environment: the same scripts, with its Python."""
    own_bin = Path(sys.executable).parent
    made = []
    for script in sorted(own_bin.iterdir()):
        dest = env / "bin" / script.name
        if dest.exists() or not script.is_file():
            continue
        try:
            first, rest = script.read_text(encoding="utf-8").split("\n", 1)
        except (UnicodeDecodeError, ValueError):
            continue
        if first.startswith("#!") and "python" in first:
            dest.write_text(f"#!{env / 'bin' / 'python'}\n{rest}", encoding="utf-8")
            dest.chmod(0o755)
            made.append(script.name)
    return made


# The editable install points at the repository (and so at solutions/): never in students' path.
_EDITABLE = "__editable__"


def link_packages(course_site: Path, site: Path) -> bool:
    """The course's installed packages, hard-linked into the students' environment (`site`), minus
    the editable install. Inside its own folders, as the grading sandbox needs: it lets a kernel see
    the environment's own tree (sys.prefix), not folders a `.pth` line adds. False when the two are
    on different filesystems (nothing is changed then)."""
    fresh = site.with_name(site.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    if subprocess.run(["cp", "-al", str(course_site), str(fresh)], capture_output=True).returncode != 0:
        shutil.rmtree(fresh, ignore_errors=True)
        return False
    for path in fresh.glob(f"{_EDITABLE}*"):
        path.unlink()
    shutil.rmtree(site, ignore_errors=True)
    fresh.rename(site)
    return True


def build(layout: HubLayout) -> str | None:
    """Make the students' environment in `layout` (Python, course code); the sentence of
    `choose_python` when the course's own Python could not be used."""
    base, note = choose_python()
    env = layout.env
    cfg = env / "pyvenv.cfg"
    if not (cfg.is_file() and f"executable = {base}" in cfg.read_text()):
        if env.exists():
            shutil.rmtree(env)
        proc = subprocess.run([str(base), "-m", "venv", "--without-pip", str(env)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise CourseError(f"could not make the students' Python with {base}: "
                              f"{(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    copy_code(layout.code)
    site = Path(subprocess.run([str(layout.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    course_site = Path(sysconfig.get_paths()["purelib"])
    linked = link_packages(course_site, site)
    # The student copy of the code; without the linked packages, the course's by their path.
    (site / "course.pth").write_text(f"{layout.code}\n" + ("" if linked else f"{course_site}\n"), encoding="utf-8")
    if not linked:
        more = ("the course's packages could not be linked into the students' environment (another "
                "filesystem): Check my work's sandbox cannot see them, so it fails in students' servers")
        note = f"{note}; {more}" if note else more
    _commands(env)
    # Readable by all. Not recursively over site-packages: its files are hard links, whose mode is
    # the course environment's own.
    for folder in (layout.code, env / "bin"):
        subprocess.run(["chmod", "-R", "u+rwX,go+rX,go-w", str(folder)], check=True)
    for folder in {layout.root, env, env / "lib", site.parent, site}:
        os.chmod(folder, 0o755)
    (site / "course.pth").chmod(0o644)
    return note
