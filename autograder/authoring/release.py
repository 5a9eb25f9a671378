"""`python -m autograder release`: regenerate the student notebooks from the solution notebooks.

For every solution notebook, nbgrader's `generate_assignment` replaces solution bodies
with the stub, removes hidden tests, locks test cells and records checksums; we then
write the result into `chapters/` in the normalized form, with what every learner's copy
gets on top (`learner_cells`: test cells tagged `raises-exception` so Run All runs the whole
chapter, a note on how to check your work, a Check my work button at the end). Running it twice changes
nothing, and `tests/test_release.py` fails if `chapters/` differs from a fresh run.

It never overwrites a learner's work: a notebook in `chapters/` with outputs, or whose
exercise cells no longer hold the stub, is left alone with a message saying how to keep
both (`python -m autograder learn NN` works in `learner/`, which git ignores);
`--force` overwrites anyway.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from .. import notebooks
from ..errors import CourseError
from ..grading.coursedir import CourseDir
from ..notebooks import write_normalized
from ..paths import CHAPTERS_DIR, REPO_ROOT, SOLUTIONS_DIR, chapter_names, chapter_notebook, solution_notebook
from ..notebooks import nbgrader_meta
from .learner_cells import add_learner_cells
from ..notebooks import is_solution

STUB_MARK = "raise NotImplementedError(\"Replace this line with your solution."


def learner_work(path: Path) -> str | None:
    """Why the notebook at `path` holds a learner's work (None if it is a pristine release)."""
    try:
        nb = notebooks.read(path)
    except Exception:
        return "it is not a notebook this command can read"
    for cell in nb.cells:
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            return "it has been run (it has outputs)"
        meta = nbgrader_meta(cell)
        if is_solution(cell) and cell.cell_type == "code" and STUB_MARK not in cell.source:
            return f"the exercise cell {meta.get('grade_id')} has been edited"
    return None


class LearnerWorkError(CourseError):
    pass


def normalize_solutions(solutions_dir: Path = SOLUTIONS_DIR) -> list[str]:
    """Rewrite solution notebooks in normalized form; return the names that changed."""
    changed = []
    for name in chapter_names(solutions_dir):
        path = solution_notebook(name, solutions_dir)
        if write_normalized(path, path):
            changed.append(name)
    return changed


def release(chapters: list[str] | None = None, out_dir: Path = CHAPTERS_DIR,
            solutions_dir: Path = SOLUTIONS_DIR, force: bool = False) -> dict[str, bool]:
    """Generate student notebooks into `out_dir`; return {chapter: changed?}. Chapters whose
    notebook in `out_dir` holds a learner's work are skipped (unless `force`) and reported
    by raising LearnerWorkError after the others are written."""
    names = chapters or chapter_names(solutions_dir)
    results, kept = {}, []
    with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
        course = CourseDir.create(Path(tmp), names, solutions_dir)
        for name in names:
            dest = chapter_notebook(name, out_dir)
            why = None if force or not dest.exists() else learner_work(dest)
            if why:
                kept.append((name, why))
                continue
            student = add_learner_cells(notebooks.read(course.generate(name)), name)
            text = notebooks.dumps(student)
            results[name] = not dest.exists() or dest.read_text(encoding="utf-8") != text
            if results[name]:
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(text, encoding="utf-8")
    if kept:
        lines = [f"not overwritten: {Path(out_dir).name}/{name}.ipynb holds your work ({why})" for name, why in kept]
        first = kept[0][0]
        lines += ["To keep both: move your notebook into learner/ (git ignores it), e.g.",
                  f"    mkdir -p learner && mv {Path(out_dir).name}/{first}.ipynb learner/",
                  "and run this command again; then work in learner/ (`python -m autograder learn NN` copies a "
                  "fresh chapter there). To throw your changes away instead: add --force."]
        raise LearnerWorkError("\n".join(lines))
    return results


def stale_chapters(out_dir: Path = CHAPTERS_DIR) -> list[str]:
    """Chapters in `out_dir` with no solution notebook (left behind by a rename)."""
    names = set(chapter_names())
    return sorted(p.stem for p in Path(out_dir).glob("*.ipynb") if p.stem not in names)


def main(args) -> int:
    changed = normalize_solutions()
    for name in changed:
        print(f"normalized {solution_notebook(name).relative_to(REPO_ROOT)}")
    results = release(args.chapters or None, force=getattr(args, "force", False))
    for name, did_change in results.items():
        print(f"{'updated ' if did_change else 'unchanged'} {chapter_notebook(name).relative_to(REPO_ROOT)}")
    for name in stale_chapters():
        print(f"warning: {chapter_notebook(name).relative_to(REPO_ROOT)} has no solution notebook; delete it")
    return 0

