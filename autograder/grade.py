"""`python -m autograder grade SUBMISSIONS --out DIR`: grade a class with nbgrader.

SUBMISSIONS may be laid out in any of these ways:

    SUBMISSIONS/alice/01_cost_model.ipynb                 one folder per student
    SUBMISSIONS/alice/01_cost_model/01_cost_model.ipynb   nbgrader's own layout
    SUBMISSIONS/alice.ipynb  (with --chapter 01)          one file per student, one chapter

DIR becomes a complete nbgrader course directory (source, submitted, autograded,
feedback, gradebook.db), so an instructor can open it in formgrader afterwards. We
write `grades.csv` (one row per student and chapter: score, max_score, status),
`grades_by_test.csv` (one row per graded test cell) and nbgrader's own export
`nbgrader_grades.csv`. Submissions are copied, never modified. A notebook that cannot
be read, or whose grading crashes, gets zero with the reason in `status`; the rest of
the class is graded as usual. A cell that hangs is interrupted after the cell timeout,
and one that kills its kernel fails with the cells after it (`resilient_execute`), so in
both cases the exercises before it keep their points.
"""
from __future__ import annotations

import csv
import re
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .course import CourseDir, chapter_names, resolve_chapter

_ID_OK = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class Submission:
    student: str
    chapter: str
    path: Path


@dataclass
class Result:
    student: str
    chapter: str
    score: float
    max_score: float
    status: str
    tests: list[tuple[str, float, float]] = field(default_factory=list)   # (grade_id, score, max_score)


def student_id(name: str) -> str:
    """nbgrader student ids must be plain; 'Ana María' becomes 'Ana_Mar_a'."""
    cleaned = _ID_OK.sub("_", name).strip("_.")
    if not cleaned:
        raise SystemExit(f"cannot make a student id from {name!r}")
    return cleaned


def find_submissions(folder: Path, chapter: str | None = None) -> list[Submission]:
    folder = Path(folder)
    if not folder.is_dir():
        raise SystemExit(f"{folder} is not a folder of submissions")
    known = set(chapter_names())
    found: list[Submission] = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_file() and entry.suffix == ".ipynb":
            if chapter is None:
                if entry.stem in known:
                    raise SystemExit(f"{entry} looks like a chapter, not a student: put each student's "
                                     f"notebooks in a folder named after the student")
                raise SystemExit(f"{entry}: one file per student needs --chapter")
            found.append(Submission(student_id(entry.stem), chapter, entry))
        elif entry.is_dir():
            notebooks = sorted(p for p in entry.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
            for nb_path in notebooks:
                if nb_path.stem in known:
                    name = nb_path.stem
                elif chapter is not None and len(notebooks) == 1:
                    name = chapter
                else:
                    continue
                if chapter is None or name == chapter:
                    found.append(Submission(student_id(entry.name), name, nb_path))
    if not found:
        raise SystemExit(f"no submissions found in {folder}")
    return found


def _readable(path: Path) -> str | None:
    """None if `path` is a notebook nbgrader can grade, else the reason it is not."""
    try:
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # any damage to the file: report it, grade the rest
        return f"unreadable notebook ({type(exc).__name__}: {str(exc).splitlines()[0][:120]})"
    return None


def _collect(course: CourseDir, subs: list[Submission], errors: dict) -> list[Result]:
    from nbgrader.api import MissingEntry

    results = []
    with course.gradebook() as gb:
        for s in subs:
            max_score = float(gb.find_assignment(s.chapter).max_score)
            reason = errors.get((s.student, s.chapter))
            autograded = course.root / "autograded" / s.student / s.chapter / f"{s.chapter}.ipynb"
            if reason is None and autograded.exists():
                try:
                    sub = gb.find_submission(s.chapter, s.student)
                except MissingEntry:
                    sub = None
                if sub is not None:
                    tests = sorted((g.name, float(g.score), float(g.max_score))
                                   for nb in sub.notebooks for g in nb.grades)
                    results.append(Result(s.student, s.chapter, float(sub.score), max_score, "graded", tests))
                    continue
                reason = "grading produced no scores"
            results.append(Result(s.student, s.chapter, 0.0, max_score, reason or "grading failed"))
    return results


def _reason(result: dict) -> str:
    """One line saying why nbgrader could not grade a submission."""
    text = (result.get("error") or "") + "\n" + (result.get("log") or "")
    for marker in ("DeadKernelError", "CellTimeoutError", "TimeoutError", "Kernel died", "Error"):
        for line in reversed(text.splitlines()):
            if marker in line and "Please see" not in line:
                return f"grading failed: {line.strip()[:200]}"
    return "grading failed"


def grade(submissions: list[Submission], out: Path, cell_timeout: int | None = None) -> list[Result]:
    # nbgrader 0.9 trips SQLAlchemy 2's autoflush warnings; they say nothing about the grades.
    from sqlalchemy.exc import SAWarning
    warnings.filterwarnings("ignore", category=SAWarning)
    out = Path(out).resolve()
    chapters = sorted({s.chapter for s in submissions})
    course = CourseDir.create(out, chapters, cell_timeout=cell_timeout)
    for name in chapters:
        course.generate(name)
    errors: dict[tuple[str, str], str] = {}
    for s in submissions:
        dest = course.root / "submitted" / s.student / s.chapter
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        reason = _readable(s.path)
        if reason:
            errors[(s.student, s.chapter)] = reason
            continue
        shutil.copyfile(s.path, dest / f"{s.chapter}.ipynb")
    # One student at a time: a submission that kills its kernel or hangs costs only its own row.
    for s in submissions:
        if (s.student, s.chapter) in errors:
            continue
        result = course.autograde(s.chapter, s.student)
        if not result.get("success"):
            errors[(s.student, s.chapter)] = _reason(result)
        else:
            course.generate_feedback(s.chapter, s.student)
    results = _collect(course, submissions, errors)
    _write_csvs(out, results)
    _export_nbgrader_csv(course, out / "nbgrader_grades.csv")
    return results


def _export_nbgrader_csv(course: CourseDir, path: Path) -> None:
    from nbgrader.plugins import CsvExportPlugin

    with course.gradebook() as gb:
        CsvExportPlugin(to=str(path)).export(gb)


def _write_csvs(out: Path, results: list[Result]) -> None:
    with open(out / "grades.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "chapter", "score", "max_score", "percent", "status"])
        for r in sorted(results, key=lambda r: (r.student, r.chapter)):
            pct = 100.0 * r.score / r.max_score if r.max_score else 0.0
            w.writerow([r.student, r.chapter, f"{r.score:g}", f"{r.max_score:g}", f"{pct:.1f}", r.status])
    with open(out / "grades_by_test.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "chapter", "test", "score", "max_score"])
        for r in sorted(results, key=lambda r: (r.student, r.chapter)):
            for grade_id, score, max_score in r.tests:
                w.writerow([r.student, r.chapter, grade_id, f"{score:g}", f"{max_score:g}"])


def main(args) -> int:
    chapter = resolve_chapter(args.chapter) if args.chapter else None
    subs = find_submissions(Path(args.submissions), chapter)
    results = grade(subs, Path(args.out), cell_timeout=args.timeout)
    width = max(len(r.student) for r in results)
    for r in sorted(results, key=lambda r: (r.chapter, r.student)):
        print(f"{r.chapter}  {r.student:<{width}}  {r.score:5g} / {r.max_score:g}  {r.status}")
    out = Path(args.out)
    print(f"\ngrades: {out / 'grades.csv'}\nper test: {out / 'grades_by_test.csv'}\n"
          f"feedback: {out / 'feedback'}/<student>/<chapter>/")
    return 0
