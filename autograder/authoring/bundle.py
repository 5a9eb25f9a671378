"""`python -m autograder bundle OUT`: build what a class receives.

OUT gets the student notebooks (`chapters/`, freshly released: stubs, visible tests
only), the course library (`specdec/`, `widgets/`), the course commands (`autograder/`,
with `autograder/reference/` holding the student notebooks the self-check takes its
tests from), the learner's JupyterLab settings (`jupyter_config/`), the book builder
(`book/`, so `./course book` works), the GPU lab's script chapter 12 names and the recorded full
CPU run it prints (`benchmarks/results/lab12_cpu.json`), the files to
install it (`pyproject.toml`, `constraints.txt`, `environment.yml`, `course`) and a README
written for learners (`bundle_README.md`; `./course test` says the bundle has no test suite). It has no solution notebooks, no `tests/`, no git
history, and no line of hidden test code anywhere: the bundle is checked for that before
the command returns. In the bundle, `python -m autograder check` runs the visible tests
and says that the hidden ones run when the work is graded.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from .. import notebooks, paths
from ..errors import CourseError
from ..paths import BUNDLE_FILES, BUNDLE_PACKAGES, BUNDLE_README, REFERENCE_DIR, REPO_ROOT, SOLUTIONS_DIR, BundleLayout, chapter_names, \
    solution_notebook
from ..grading.feedback import hidden_lines
from .release import release

PACKAGES = BUNDLE_PACKAGES
# Chapter 12 prints the recorded full CPU run beside a short one (and a page made with the test preset
# shows it in place of the sweep): without the record a learner's copy would have nothing to compare.
LAB12_RECORD = paths.LAB12_RECORD.as_posix()
FILES = BUNDLE_FILES
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", REFERENCE_DIR.name, BUNDLE_README.name)


def _lines(path: Path) -> set[str]:
    """The stripped lines of a text file; of a notebook, the lines of its cells and outputs."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        nb = notebooks.loads(text)
        parts = [c.source for c in nb.cells]
        parts += [o.get("text", "") for c in nb.cells for o in c.get("outputs", [])]
        text = "\n".join(p if isinstance(p, str) else "".join(p) for p in parts)
    return {ln.strip() for ln in text.splitlines()}


def leaks(folder: Path, hidden: set[str]) -> list[str]:
    """'file: line' for every line of hidden test code found (as a line) in a notebook or text
    document under `folder` (the library's own source is public: a test line that repeats a
    line of it reveals nothing)."""
    found = []
    for path in sorted(Path(folder).rglob("*")):
        if not path.is_file() or path.suffix not in (".ipynb", ".md", ".txt", ".json"):
            continue
        try:
            lines = _lines(path)
        except (UnicodeDecodeError, OSError, ValueError):
            continue
        found += [f"{path.relative_to(folder)}: {line[:80]}" for line in sorted(lines & hidden)]
    return found


def build_bundle(out: Path) -> Path:
    """Write the student bundle into `out` (a new folder); return it."""
    out = Path(out).resolve()
    if out.exists():
        raise CourseError(f"{out} exists; give a new folder")
    if not SOLUTIONS_DIR.is_dir():
        raise CourseError(f"bundle needs the instructor's course ({SOLUTIONS_DIR.name}/ is missing)")
    layout = BundleLayout(out)
    out.mkdir(parents=True)
    for package in PACKAGES:
        if (REPO_ROOT / package).is_dir():
            shutil.copytree(REPO_ROOT / package, out / package, ignore=_IGNORE)
    for name in FILES:
        if (REPO_ROOT / name).exists():
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / name, out / name)
    shutil.copy2(BUNDLE_README, out / "README.md")
    release(out_dir=layout.chapters_dir, force=True)
    shutil.copytree(layout.chapters_dir, layout.reference_dir)
    hidden: set[str] = set()
    visible: set[str] = set()           # a line a student notebook shows anyway reveals nothing
    for name in chapter_names():
        nb = notebooks.read(solution_notebook(name))
        hidden |= hidden_lines(c.source for c in nb.cells if c.cell_type == "code")
        visible |= {ln.strip() for c in notebooks.read(layout.chapter(name)).cells
                    for ln in c.source.splitlines()}
    found = leaks(out, hidden - visible)
    if found:
        shutil.rmtree(out)
        raise CourseError("hidden test code would leak into the bundle:\n  " + "\n  ".join(found[:20]))
    return out


def main(args) -> int:
    out = build_bundle(Path(args.out))
    print(f"student bundle written to {out}: {len(list(BundleLayout(out).chapters_dir.glob('*.ipynb')))} chapters, "
          f"no solutions, no hidden tests.\nLearners start it with `./course lab` (its README.md says the rest).")
    return 0
