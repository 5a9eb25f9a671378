"""`python -m autograder grade SUBMISSIONS --out DIR`: grade a class with nbgrader.

SUBMISSIONS may be laid out in any of these ways:

    SUBMISSIONS/alice/01_cost_model.ipynb                 one folder per student
    SUBMISSIONS/alice/01_cost_model/01_cost_model.ipynb   nbgrader's own layout
    SUBMISSIONS/alice.ipynb  (with --chapter 01)          one file per student, one chapter

DIR becomes a complete nbgrader course directory (source, submitted, autograded,
feedback, gradebook.db), so an instructor can open it in formgrader afterwards. We
write `grades.csv` (one row per student and chapter: score, max_score, status, notes on
what happened, and lines flagged for review), `grades_by_test.csv` (one row per graded
test cell) and nbgrader's own export `nbgrader_grades.csv`.

What holds up against a hostile class (see `resilient_execute`, `sandbox`, `integrity`):
* each submission's kernel runs in a bubblewrap sandbox that cannot see DIR, the other
  submissions or the solutions; scores are written by the grader after the kernel is
  gone, and a score outside [0, max] makes the row an error, never a grade;
* one notebook per student and chapter: two candidates (e.g. a copy in `backup/`) make the
  row an error naming both; student ids that collide after cleaning stop the run;
* cells copied from another chapter (unknown `grade_id`s) become ordinary cells;
* a hang or a crash costs only its own exercise; timeouts are reported as timeouts;
* feedback has no hidden test code; solution cells that reach for grader internals are
  listed in the `review` column.
Submissions are copied, never modified. Students are graded in parallel (`jobs`).
"""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .course import SOLUTIONS_DIR, CourseDir, chapter_names, resolve_chapter
from .notebooks import nbgrader_meta

_ID_OK = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class Submission:
    student: str
    chapter: str
    path: Path
    problem: str | None = None          # why it cannot be graded (e.g. ambiguous files), if so


@dataclass
class Result:
    student: str
    chapter: str
    score: float
    max_score: float
    status: str
    tests: list[tuple[str, float, float]] = field(default_factory=list)   # (grade_id, score, max_score)
    notes: list[str] = field(default_factory=list)      # what happened while grading (timeouts, repairs)
    review: list[str] = field(default_factory=list)     # lines of the student's code to look at


def student_id(name: str) -> str:
    """nbgrader student ids must be plain; 'Ana María' becomes 'Ana_Mar_a'."""
    cleaned = _ID_OK.sub("_", name).strip("_.")
    if not cleaned:
        raise SystemExit(f"cannot make a student id from {name!r}")
    return cleaned


def _notebooks_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and not any(part.startswith(".") for part in
                                                                     p.relative_to(folder).parts))


def find_submissions(folder: Path, chapter: str | None = None) -> list[Submission]:
    """The submissions in `folder`, one per student and chapter. Two notebooks for the same
    student and chapter give one Submission with a `problem` naming both."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SystemExit(f"{folder} is not a folder of submissions")
    known = set(chapter_names())
    found: list[Submission] = []
    owners: dict[str, list[str]] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_file() and entry.suffix == ".ipynb":
            if chapter is None:
                if entry.stem in known:
                    raise SystemExit(f"{entry} looks like a chapter, not a student: put each student's "
                                     f"notebooks in a folder named after the student")
                raise SystemExit(f"{entry}: one file per student needs --chapter")
            sid = student_id(entry.stem)
            owners.setdefault(sid, []).append(entry.name)
            found.append(Submission(sid, chapter, entry))
        elif entry.is_dir():
            sid = student_id(entry.name)
            owners.setdefault(sid, []).append(entry.name + "/")
            notebooks = _notebooks_under(entry)
            by_chapter: dict[str, list[Path]] = {}
            for nb_path in notebooks:
                if nb_path.stem in known:
                    by_chapter.setdefault(nb_path.stem, []).append(nb_path)
            if chapter is not None and chapter not in by_chapter and len(notebooks) == 1:
                by_chapter[chapter] = notebooks          # a single, renamed notebook
            for name, paths in sorted(by_chapter.items()):
                if chapter is not None and name != chapter:
                    continue
                problem = None
                if len(paths) > 1:
                    listed = ", ".join(str(p.relative_to(folder)) for p in paths)
                    problem = (f"error: ambiguous submission, {len(paths)} notebooks for {name}: {listed}; "
                               f"keep exactly one and grade again")
                found.append(Submission(sid, name, paths[0], problem))
    clashes = {sid: names for sid, names in owners.items() if len(names) > 1}
    if clashes:
        lines = "; ".join(f"{' and '.join(repr(n) for n in names)} both become {sid!r}"
                          for sid, names in sorted(clashes.items()))
        raise SystemExit(f"student ids collide after cleaning ({lines}): rename one of them")
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


def sanitize(nb, source) -> tuple[nbformat.NotebookNode, list[str]]:
    """A copy of a submission nbgrader can grade: cells whose `grade_id` the chapter does not have
    (copied from another chapter), or that repeat an id, become ordinary cells. Returns the notes."""
    known = {nbgrader_meta(c).get("grade_id") for c in source.cells} - {None}
    out = nbformat.from_dict(nb)
    notes, seen = [], set()
    for cell in out.cells:
        meta = nbgrader_meta(cell)
        gid = meta.get("grade_id")
        if not meta:
            continue
        if gid not in known or gid in seen:
            why = "is not part of this chapter" if gid not in known else "appears twice"
            notes.append(f"a cell with grade_id {gid!r} {why}; graded as an ordinary cell")
            del cell.metadata["nbgrader"]
            for key in ("deletable", "editable"):
                cell.metadata.pop(key, None)
        else:
            seen.add(gid)
    return out, notes


def _max_points(source) -> dict[str, float]:
    return {nbgrader_meta(c)["grade_id"]: float(nbgrader_meta(c).get("points", 0)) for c in source.cells
            if nbgrader_meta(c).get("grade")}


def _incidents(nb) -> list[str]:
    """What happened while grading, read from the graded notebook's outputs."""
    notes = []
    for cell in nb.cells:
        gid = nbgrader_meta(cell).get("grade_id", "a cell")
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error" and output.get("ename") in ("TimeoutError", "KernelDied"):
                notes.append(f"{gid}: {output['ename']}: {str(output.get('evalue', ''))[:160]}")
            elif output.get("output_type") == "stream" and output.get("text", "").startswith("Before this cell"):
                notes.append(f"{gid}: " + " ".join(output["text"].split())[:300])
    return notes


def _collect(course: CourseDir, subs: list[Submission], errors: dict, extra_notes: dict) -> list[Result]:
    from nbgrader.api import MissingEntry

    results = []
    with course.gradebook() as gb:
        for s in subs:
            source = nbformat.read(str(course.root / "source" / s.chapter / f"{s.chapter}.ipynb"), as_version=4)
            points = _max_points(source)
            max_score = sum(points.values())
            reason = errors.get((s.student, s.chapter))
            notes = list(extra_notes.get((s.student, s.chapter), []))
            autograded = course.root / "autograded" / s.student / s.chapter / f"{s.chapter}.ipynb"
            if reason is None and autograded.exists():
                try:
                    sub = gb.find_submission(s.chapter, s.student)
                except MissingEntry:
                    sub = None
                if sub is not None:
                    tests = sorted((g.name, float(g.score), float(g.max_score))
                                   for nb in sub.notebooks for g in nb.grades)
                    bad = [f"{name} {score:g} of {points.get(name, top):g}" for name, score, top in tests
                           if not 0 <= score <= points.get(name, top) or top != points.get(name, top)]
                    total = float(sub.score)
                    if bad or not 0 <= total <= max_score or abs(total - sum(t[1] for t in tests)) > 1e-9:
                        results.append(Result(s.student, s.chapter, 0.0, max_score,
                                              f"error: score outside [0, max] ({', '.join(bad) or f'total {total:g}'}"
                                              f"): the gradebook was changed outside the grader; not counted, "
                                              f"regrade this submission", tests, notes))
                        continue
                    notes += _incidents(nbformat.read(str(autograded), as_version=4))
                    results.append(Result(s.student, s.chapter, total, max_score, "graded", tests, notes))
                    continue
                reason = "grading produced no scores"
            results.append(Result(s.student, s.chapter, 0.0, max_score, reason or "grading failed", [], notes))
    return results


def _reason(result: dict) -> str:
    """One line saying why nbgrader could not grade a submission."""
    text = (result.get("error") or "") + "\n" + (result.get("log") or "")
    for marker in ("DeadKernelError", "CellTimeoutError", "TimeoutError", "Kernel died", "Error"):
        for line in reversed(text.splitlines()):
            if marker in line and "Please see" not in line:
                return f"grading failed: {line.strip()[:200]}"
    return "grading failed"


# ---- one submission (in this process or a worker) ----------------------------------------
_WORKER_COURSE: CourseDir | None = None


def _worker_init(root: str, cell_timeout, hide, require_isolation, memory_bytes=None) -> None:
    global _WORKER_COURSE
    from sqlalchemy.exc import SAWarning
    warnings.filterwarnings("ignore", category=SAWarning)
    _WORKER_COURSE = CourseDir(Path(root), cell_timeout, tuple(hide), require_isolation, memory_bytes)
    from .sandbox import become_subreaper
    become_subreaper()


def _grade_one(chapter: str, student: str, course: CourseDir | None = None) -> str | None:
    """Autograde one submission and write its feedback; None on success, else the reason."""
    from .sandbox import child_pids, reap_strays

    course = course or _WORKER_COURSE
    before = child_pids()
    try:
        result = course.autograde(chapter, student)
        if not result.get("success"):
            return _reason(result)
        course.generate_feedback(chapter, student)
        return None
    finally:
        reap_strays(keep=before)


def _run_worker(spec: dict) -> dict[tuple[str, str], str | None]:
    """Grade spec["tasks"] in a worker process (`autograder._grade_worker`); {(chapter, student): reason}."""
    from .course import nbgrader_env

    proc = subprocess.run([sys.executable, "-m", "autograder._grade_worker", json.dumps(spec)],
                          capture_output=True, text=True, env=nbgrader_env())
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("RESULT "):
            return {tuple(k.split("\t")): v for k, v in json.loads(line[len("RESULT "):]).items()}
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
    return {tuple(t): f"grading failed: the grading worker exited with code {proc.returncode} ({tail})"
            for t in spec["tasks"]}


def grade(submissions: list[Submission], out: Path, cell_timeout: int | None = None,
          jobs: int | None = None, require_isolation: bool = False,
          memory_bytes: int | None = None) -> list[Result]:
    """Grade `submissions` into the course directory `out`; `jobs` submissions at a time
    (default: one per core, at most one per submission)."""
    from sqlalchemy.exc import SAWarning

    from .review import review_notebook
    from .sandbox import become_subreaper, isolation_available, warn_not_isolated

    warnings.filterwarnings("ignore", category=SAWarning)
    if not isolation_available():
        if require_isolation:
            raise SystemExit("refusing to grade: bubblewrap is not available and isolation was required")
        warn_not_isolated()
    out = Path(out).resolve()
    chapters = sorted({s.chapter for s in submissions})
    parents = {str(Path(s.path).resolve().parent) for s in submissions}
    hide = sorted(parents | ({os.path.commonpath(sorted(parents))} if parents else set()))
    course = CourseDir.create(out, chapters, cell_timeout=cell_timeout, hide=tuple(hide),
                              require_isolation=require_isolation, memory_bytes=memory_bytes)
    for name in chapters:
        course.generate(name)
    errors: dict[tuple[str, str], str] = {}
    notes: dict[tuple[str, str], list[str]] = {}
    reviews: dict[tuple[str, str], list[str]] = {}
    sources = {name: nbformat.read(str(SOLUTIONS_DIR / f"{name}.ipynb"), as_version=4) for name in chapters}
    for s in submissions:
        key = (s.student, s.chapter)
        dest = course.root / "submitted" / s.student / s.chapter
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        reason = s.problem or _readable(s.path)
        if reason:
            errors[key] = reason
            continue
        nb, notes[key] = sanitize(nbformat.read(str(s.path), as_version=4), sources[s.chapter])
        reviews[key] = review_notebook(nb)
        nbformat.write(nb, str(dest / f"{s.chapter}.ipynb"))
    todo = [(s.chapter, s.student) for s in submissions if (s.student, s.chapter) not in errors]
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    if jobs == 1:
        become_subreaper()
        outcomes = [_grade_one(chapter, student, course) for chapter, student in todo]
    else:
        by_student: dict[str, list] = {}
        for chapter, student in todo:
            by_student.setdefault(student, []).append((chapter, student))
        spec = {"root": str(out), "timeout": cell_timeout, "hide": hide, "require": require_isolation,
                "memory": memory_bytes}
        with ThreadPoolExecutor(jobs) as pool:
            done = pool.map(lambda tasks: _run_worker(dict(spec, tasks=tasks)), by_student.values())
            reasons = {k: v for part in done for k, v in part.items()}
        outcomes = [reasons.get((chapter, student), "grading failed: no answer from the worker")
                    for chapter, student in todo]
    for (chapter, student), reason in zip(todo, outcomes):
        if reason:
            errors[(student, chapter)] = reason
    # Every kernel is gone now; only the grader reads the gradebook and writes the CSVs.
    results = _collect(course, submissions, errors, notes)
    for r in results:
        r.review = reviews.get((r.student, r.chapter), [])
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
        w.writerow(["student_id", "chapter", "score", "max_score", "percent", "status", "notes", "review"])
        for r in sorted(results, key=lambda r: (r.student, r.chapter)):
            pct = 100.0 * r.score / r.max_score if r.max_score else 0.0
            w.writerow([r.student, r.chapter, f"{r.score:g}", f"{r.max_score:g}", f"{pct:.1f}", r.status,
                        " | ".join(r.notes), " | ".join(r.review)])
    with open(out / "grades_by_test.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "chapter", "test", "score", "max_score"])
        for r in sorted(results, key=lambda r: (r.student, r.chapter)):
            for grade_id, score, max_score in r.tests:
                w.writerow([r.student, r.chapter, grade_id, f"{score:g}", f"{max_score:g}"])


def main(args) -> int:
    from .sandbox import check_sandbox

    chapter = resolve_chapter(args.chapter) if args.chapter else None
    subs = find_submissions(Path(args.submissions), chapter)
    jobs = args.jobs or os.cpu_count() or 1
    print(f"grading {len(subs)} submission(s), {min(jobs, len(subs))} at a time; {check_sandbox()}", flush=True)
    start = time.perf_counter()
    memory = int(args.memory * 2**30) if args.memory else None
    results = grade(subs, Path(args.out), cell_timeout=args.timeout, jobs=jobs,
                    require_isolation=args.require_isolation, memory_bytes=memory)
    width = max(len(r.student) for r in results)
    for r in sorted(results, key=lambda r: (r.chapter, r.student)):
        flag = "  (review: see grades.csv)" if r.review else ""
        print(f"{r.chapter}  {r.student:<{width}}  {r.score:5g} / {r.max_score:g}  {r.status}{flag}")
        for note in r.notes:
            print(f"{'':>{len(r.chapter) + width + 4}}{note[:150]}")
    out = Path(args.out)
    print(f"\ngraded in {time.perf_counter() - start:.0f} s\ngrades: {out / 'grades.csv'}\n"
          f"per test: {out / 'grades_by_test.csv'}\nfeedback: {out / 'feedback'}/<student>/<chapter>/")
    return 1 if any(r.status.startswith("error") for r in results) else 0
