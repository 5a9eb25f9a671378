"""`python -m autograder release`: regenerate the student notebooks from `solutions/`.

For every solution notebook, nbgrader's `generate_assignment` replaces solution bodies
with the stub, removes hidden tests, locks test cells and records checksums; we then
write the result into `chapters/` in the normalized form. Running it twice changes
nothing, and `tests/test_release.py` fails if `chapters/` differs from a fresh run.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from .course import CHAPTERS_DIR, SOLUTIONS_DIR, CourseDir, chapter_names, write_normalized


def normalize_solutions(solutions_dir: Path = SOLUTIONS_DIR) -> list[str]:
    """Rewrite solution notebooks in normalized form; return the names that changed."""
    changed = []
    for name in chapter_names(solutions_dir):
        path = solutions_dir / f"{name}.ipynb"
        if write_normalized(path, path):
            changed.append(name)
    return changed


def release(chapters: list[str] | None = None, out_dir: Path = CHAPTERS_DIR,
            solutions_dir: Path = SOLUTIONS_DIR) -> dict[str, bool]:
    """Generate student notebooks into `out_dir`; return {chapter: changed?}."""
    names = chapters or chapter_names(solutions_dir)
    results = {}
    with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
        course = CourseDir.create(Path(tmp), names, solutions_dir)
        for name in names:
            student = course.generate(name)
            results[name] = write_normalized(student, Path(out_dir) / f"{name}.ipynb")
    return results


def stale_chapters(out_dir: Path = CHAPTERS_DIR) -> list[str]:
    """Chapters in `out_dir` with no solution notebook (left behind by a rename)."""
    names = set(chapter_names())
    return sorted(p.stem for p in Path(out_dir).glob("*.ipynb") if p.stem not in names)


def main(args) -> int:
    changed = normalize_solutions()
    for name in changed:
        print(f"normalized solutions/{name}.ipynb")
    results = release(args.chapters or None)
    for name, did_change in results.items():
        print(f"{'updated ' if did_change else 'unchanged'} chapters/{name}.ipynb")
    for name in stale_chapters():
        print(f"warning: chapters/{name}.ipynb has no solution notebook; delete it")
    return 0

