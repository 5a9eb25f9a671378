"""`python -m autograder grade SUBMISSIONS --out DIR`: grade a class with nbgrader.

SUBMISSIONS may be laid out in any of these ways:

    SUBMISSIONS/alice/01_cost_model.ipynb                 one folder per student
    SUBMISSIONS/alice/01_cost_model/01_cost_model.ipynb   nbgrader's own layout
    SUBMISSIONS/alice.ipynb  (with --chapter 01)          one file per student, one chapter

DIR becomes a complete nbgrader course directory (source, submitted, autograded,
feedback, gradebook.db), so an instructor can open it in formgrader afterwards. We
write `grades.csv` (one row per student and chapter: score, max_score, status, notes on
what happened, lines flagged for review, when it was submitted and whether that was late),
`grades_by_test.csv` (one row per graded test cell) and nbgrader's own export `nbgrader_grades.csv`.
With a roster (`--roster class.toml`), every rostered student has a row for every chapter graded,
"no submission" and 0 points where nothing came in; a submission's time is nbgrader's
`timestamp.txt` beside it (what `collect` keeps), recorded in the gradebook too, and with
`--deadline` a later one is marked late.

Each submission is graded by `worker.grade_submission(task, settings)`, which returns a typed
`GradingOutcome`; this module lays out the course directory, runs the workers `jobs` at a
time, reads the scores back from the gradebook once every kernel is gone, and writes the CSVs.

What holds up against a hostile class, and where each defence lives (sandbox, integrity,
resilient_execute, submissions, review, statuses), is the threat model (docs/threat-model.md): one place, so
this docstring cannot drift from it. Scores are read back here only after every kernel is gone.
Submissions are copied, never modified. Students are graded in parallel (`jobs`), or on a Dask
cluster (`scheduler`, see `cluster`).
"""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import nbformat

from ..errors import CourseError
from ..notebooks import nbgrader_meta
from ..paths import (GRADES_BY_TEST_CSV, GRADES_CSV, NBGRADER_GRADES_CSV, NbgraderLayout, resolve_chapter,
                     solution_notebook)
from .coursedir import CourseDir
from .outcome import FAILED, GradingOutcome, GradingTask
from .settings import GradingSettings
from .statuses import failure_status, graded_status
from .submissions import (Submission, find_submissions, sanitize, unreadable_reason,  # noqa: F401  (grade's API)
                          wrong_chapter_reason)
from ..exercises import optional_tests
from ..notebooks import grade_id_of, is_grade


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
    optional_score: float = 0.0     # points of optional exercises: apart from score and max_score
    optional_max: float = 0.0
    submitted_at: str = ""          # nbgrader's timestamp.txt, when the submission had one
    late: str = ""                  # with a deadline: "late by 2 h 5 min", "on time", or "" (unknown)

    def optional_apart(self, optional: dict[str, float]) -> "Result":
        """This result with the tests in `optional` ({test: its points}, an optional exercise's) taken
        out of score and max_score and counted in optional_score / optional_max, as the learner's own
        reports do. A row that was not graded keeps 0 points but its maximum is split the same way.

            >>> r = Result("ann", "10", 13.0, 21.0, "graded", [("t1", 11.0, 15.0), ("t4", 2.0, 6.0)])
            >>> r = r.optional_apart({"t4": 6.0})
            >>> (r.score, r.max_score, r.optional_score, r.optional_max)
            (11.0, 15.0, 2.0, 6.0)
        """
        if self.optional_max or not optional:
            return self
        got = sum(score for name, score, _ in self.tests if name in optional)
        top = sum(optional.values())
        return replace(self, score=self.score - got, max_score=self.max_score - top, optional_score=got,
                       optional_max=top)



def _max_points(source) -> dict[str, float]:
    return {grade_id_of(c): float(nbgrader_meta(c).get("points", 0)) for c in source.cells
            if is_grade(c)}


def _collect(course: CourseDir, subs: list[Submission], errors: dict, extra_notes: dict) -> list[Result]:
    """One Result per submission: its scores read from the gradebook (checked to lie in [0, max]),
    or the reason in `errors[(student, chapter)]`; `extra_notes` go into the notes column."""
    results = []
    with course.gradebook() as gb:
        for s in subs:
            source = nbformat.read(str(course.layout.source(s.chapter)), as_version=4)
            points = _max_points(source)
            optional = {t: points[t] for t in optional_tests(source) if t in points}
            notes = list(extra_notes.get((s.student, s.chapter), []))
            reason = errors.get((s.student, s.chapter))
            if reason is None and course.layout.autograded(s.student, s.chapter).exists():
                found = _gradebook_scores(gb, s)
                if found is not None:
                    results.append(_scored(s, *found, points, notes).optional_apart(optional))
                    continue
                reason = "grading produced no scores"
            status, detail = failure_status(reason)
            results.append(Result(s.student, s.chapter, 0.0, sum(points.values()), status, [],
                                  notes + ([detail] if detail else [])).optional_apart(optional))
    return results


def _gradebook_scores(gb, s: Submission) -> tuple[list[tuple[str, float, float]], float] | None:
    """((test, score, max) of each graded cell, the submission's total) as the gradebook holds them
    for `s`, or None when it holds no submission."""
    from nbgrader.api import MissingEntry

    try:
        sub = gb.find_submission(s.chapter, s.student)
    except MissingEntry:
        return None
    tests = sorted((g.name, float(g.score), float(g.max_score)) for nb in sub.notebooks for g in nb.grades)
    return tests, float(sub.score)


def _scored(s: Submission, tests: list[tuple[str, float, float]], total: float, points: dict[str, float],
            notes: list[str]) -> Result:
    """The Result of a graded submission, refused (0 points, "regrade") when a score lies outside
    [0, max], disagrees with the instructor's points or with the total: the gradebook was changed
    outside the grader."""
    max_score = sum(points.values())
    bad = [f"{name} {score:g} of {points.get(name, top):g}" for name, score, top in tests
           if not 0 <= score <= points.get(name, top) or top != points.get(name, top)]
    if bad or not 0 <= total <= max_score or abs(total - sum(t[1] for t in tests)) > 1e-9:
        return Result(s.student, s.chapter, 0.0, max_score,
                      f"error: score outside [0, max] ({', '.join(bad) or f'total {total:g}'}): the gradebook "
                      f"was changed outside the grader; not counted, regrade this submission", tests, notes)
    return Result(s.student, s.chapter, total, max_score, graded_status(notes), tests, notes)


def _run_worker(tasks: list[GradingTask], settings: GradingSettings) -> list[GradingOutcome]:
    """Grade `tasks` in a worker process (`autograder.grading.worker`); one outcome per task."""
    from .environment import nbgrader_env

    with tempfile.TemporaryDirectory(prefix="course-worker-") as tmp:
        spec, out = Path(tmp) / "spec.json", Path(tmp) / "outcomes.json"
        spec.write_text(json.dumps({"settings": asdict(settings), "tasks": [asdict(t) for t in tasks]}),
                        encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "autograder.grading.worker", str(spec), str(out)],
                              capture_output=True, text=True, env=nbgrader_env())
        if proc.returncode == 0 and out.exists():
            return [GradingOutcome.from_dict(d) for d in json.loads(out.read_text(encoding="utf-8"))]
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
    return [GradingOutcome.failed(t, f"grading failed: the grading worker exited with code {proc.returncode} "
                                     f"({tail})") for t in tasks]


def grade_all(tasks: list[GradingTask], settings: GradingSettings) -> list[GradingOutcome]:
    """Grade `tasks`, `settings.parallel(len(tasks))` at a time: in this process for one job, else one
    worker process per student (a student's chapters one after the other); with `settings.scheduler`,
    on the workers of that Dask cluster (`cluster.grade_on_cluster`)."""
    from .worker import grade_submission

    if settings.scheduler:
        from .cluster import grade_on_cluster
        return grade_on_cluster(tasks, settings)
    if settings.parallel(len(tasks)) == 1:
        return [grade_submission(t, settings) for t in tasks]
    by_student: dict[str, list[GradingTask]] = {}
    for t in tasks:
        by_student.setdefault(t.student, []).append(t)
    with ThreadPoolExecutor(settings.parallel(len(tasks))) as pool:
        done = [o for part in pool.map(lambda ts: _run_worker(ts, settings), by_student.values()) for o in part]
    answered = {(o.chapter, o.student): o for o in done}
    return [answered.get((t.chapter, t.student)) or GradingOutcome.failed(t, "grading failed: no answer from the worker")
            for t in tasks]


NO_SUBMISSION = "no submission"


def lateness(submitted_at: str, deadline: str | None) -> str:
    """How a submission time compares with a deadline (both as nbgrader writes times; a time without a
    zone is UTC): "late by ...", "on time", or "" when either is unknown.

    >>> lateness("2026-12-06 17:35:00 UTC", "2026-12-06 15:30:00 UTC")
    'late by 2 h 5 min'
    >>> lateness("2026-12-06 12:00:00.5 UTC", "2026-12-06 15:30")
    'on time'
    """
    from nbgrader.utils import parse_utc

    if not submitted_at or not deadline:
        return ""
    try:
        seconds = (parse_utc(submitted_at) - parse_utc(deadline)).total_seconds()
    except Exception:
        return ""
    if seconds <= 0:
        return "on time"
    minutes = int(seconds // 60)
    return f"late by {minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"late by {max(minutes, 1)} min"


def check_deadline(deadline: str | None) -> str | None:
    """`deadline` as given, or a CourseError saying how to write one."""
    from nbgrader.utils import parse_utc

    if deadline is None:
        return None
    try:        # dateutil alone reads 'friday' as next Friday: a deadline starts with its date
        if not re.match(r"^\d{4}-\d{2}-\d{2}\b", deadline.strip()):
            raise ValueError(deadline)
        parse_utc(deadline)
    except Exception:
        raise CourseError(f"--deadline {deadline!r} is not a time: write it as '2026-12-06 17:00' "
                          f"(UTC) or '2026-12-06 17:00:00 UTC'") from None
    return deadline


def missing_rows(results: list[Result], roster: list[str], chapters: list[str],
                 max_points: dict[str, tuple[float, float]]) -> list[Result]:
    """A row for each rostered student with nothing graded in a chapter: 0 points, "no submission".

    >>> missing_rows([Result("ann", "01", 3.0, 5.0, "graded")], ["ann", "ben"], ["01"], {"01": (5.0, 0.0)})
    [Result(student='ben', chapter='01', score=0.0, max_score=5.0, status='no submission', tests=[], notes=[], review=[], optional_score=0.0, optional_max=0.0, submitted_at='', late='')]
    """
    have = {(r.student, r.chapter) for r in results}
    return [Result(student, chapter, 0.0, max_points[chapter][0], NO_SUBMISSION, optional_max=max_points[chapter][1])
            for chapter in chapters for student in roster if (student, chapter) not in have]


def grade(submissions: list[Submission], out: Path, settings: GradingSettings | None = None,
          roster: list[str] | None = None, deadline: str | None = None, **overrides) -> list[Result]:
    """Grade `submissions` into the course directory `out` with `settings` (keyword overrides such
    as `jobs=1` or `cell_timeout=30` replace single fields). `roster` (student ids) adds a row for
    every rostered student who submitted nothing; `deadline` marks later submissions late."""
    from .library_copies import review_copies
    from .review import review_notebook
    from .sandbox import isolation_available, warn_not_isolated

    settings = GradingSettings(**{**asdict(settings or GradingSettings()),
                                  **{k: v for k, v in overrides.items() if v is not None}})
    if not isolation_available():
        if settings.require_isolation:
            raise CourseError("refusing to grade: bubblewrap is not available and isolation was required")
        warn_not_isolated()
    out = Path(out).resolve()
    chapters = sorted({s.chapter for s in submissions})
    parents = {str(Path(s.path).resolve().parent) for s in submissions}
    settings = settings.hiding(*sorted(parents | ({os.path.commonpath(sorted(parents))} if parents else set())))
    course = CourseDir.create(out, chapters, settings=settings)
    for name in chapters:
        course.generate(name)
    errors: dict[tuple[str, str], str] = {}
    notes: dict[tuple[str, str], list[str]] = {}
    reviews: dict[tuple[str, str], list[str]] = {}
    sources = {name: nbformat.read(str(solution_notebook(name)), as_version=4) for name in chapters}
    for s in submissions:
        key = (s.student, s.chapter)
        dest = course.layout.submitted_dir(s.student, s.chapter)
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        notes[key] = list(s.notes)
        reason = s.problem or unreadable_reason(s.path)
        if reason:
            errors[key] = reason
            continue
        original = nbformat.read(str(s.path), as_version=4)
        reason = wrong_chapter_reason(original, s.chapter)
        if reason:
            errors[key] = reason
            continue
        nb, cleaned = sanitize(original, sources[s.chapter])
        notes[key] += cleaned
        # Lines that reach for the grader, and functions copied from the course library with light edits.
        reviews[key] = review_notebook(nb, sources[s.chapter]) + review_copies(nb, sources[s.chapter])
        nbformat.write(nb, str(course.layout.submitted(s.student, s.chapter)))
        if s.timestamp_file:        # nbgrader's autograde reads it into the gradebook
            (dest / "timestamp.txt").write_text(s.submitted_at + "\n")
    tasks = [GradingTask(str(out), s.chapter, s.student) for s in submissions if (s.student, s.chapter) not in errors]
    for o in grade_all(tasks, settings):
        key = (o.student, o.chapter)
        if o.status == FAILED:
            errors[key] = o.reason or "grading failed"
        notes.setdefault(key, []).extend(o.incidents)
        reviews.setdefault(key, []).extend(o.review_lines())
    # Every kernel is gone now; only the grader reads the gradebook and writes the CSVs.
    results = _collect(course, submissions, errors, notes)
    times = {(s.student, s.chapter): s.submitted_at for s in submissions}
    for r in results:
        r.review = reviews.get((r.student, r.chapter), [])
        r.submitted_at = times.get((r.student, r.chapter), "")
        r.late = lateness(r.submitted_at, deadline)
        if roster is not None and r.student not in roster:
            r.notes.append("not on the roster")
    if roster is not None:
        results += missing_rows(results, roster, chapters, {
            name: (sum(_max_points(src).values()) - sum(_max_points(src)[t] for t in optional_tests(src)
                                                         if t in _max_points(src)),
                   sum(_max_points(src)[t] for t in optional_tests(src) if t in _max_points(src)))
            for name, src in sources.items()})
        with course.gradebook() as gb:          # formgrader lists every student of the class
            for student in roster:
                gb.update_or_create_student(student)
    _write_csvs(out, results)
    _export_nbgrader_csv(course, out / NBGRADER_GRADES_CSV)
    return results


def _export_nbgrader_csv(course: CourseDir, path: Path) -> None:
    from nbgrader.plugins import CsvExportPlugin

    with course.gradebook() as gb:
        CsvExportPlugin(to=str(path)).export(gb)


def _write_csvs(out: Path, results: list[Result]) -> None:
    with open(out / GRADES_CSV, "w", newline="") as f:
        w = csv.writer(f)
        # score, max_score and percent count the required exercises; an optional exercise's points
        # (chapter 10's 10.4, say) are the last two columns, as the learner's own reports show them.
        w.writerow(["student_id", "chapter", "score", "max_score", "percent", "status", "notes", "review",
                    "optional_score", "optional_max", "submitted_at", "late"])
        for r in sorted(results, key=lambda r: (r.student, r.chapter)):
            pct = 100.0 * r.score / r.max_score if r.max_score else 0.0
            w.writerow([r.student, r.chapter, f"{r.score:g}", f"{r.max_score:g}", f"{pct:.1f}", r.status,
                        " | ".join(r.notes), " | ".join(r.review), f"{r.optional_score:g}", f"{r.optional_max:g}",
                        r.submitted_at, r.late])
    with open(out / GRADES_BY_TEST_CSV, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "chapter", "test", "score", "max_score"])
        for r in sorted(results, key=lambda r: (r.student, r.chapter)):
            for grade_id, score, max_score in r.tests:
                w.writerow([r.student, r.chapter, grade_id, f"{score:g}", f"{max_score:g}"])


def main(args) -> int:
    from .sandbox import check_sandbox

    chapter = resolve_chapter(args.chapter) if args.chapter else None
    subs = find_submissions(Path(args.submissions), chapter)
    settings = GradingSettings.from_args(args)
    roster = None
    if getattr(args, "roster", None):
        from ..hub.roster import Roster

        roster = list(Roster.load(Path(args.roster)).students)
    deadline = check_deadline(getattr(args, "deadline", None))
    where = (f"on the Dask cluster at {settings.scheduler}" if settings.scheduler else
             f"{settings.parallel(len(subs))} at a time")
    print(f"grading {len(subs)} submission(s), {where}; {check_sandbox()}", flush=True)
    start = time.perf_counter()
    results = grade(subs, Path(args.out), settings, roster=roster, deadline=deadline)
    width = max(len(r.student) for r in results)
    for r in sorted(results, key=lambda r: (r.chapter, r.student)):
        flag = "  (review: see grades.csv)" if r.review else ""
        extra = f"  (optional {r.optional_score:g} / {r.optional_max:g})" if r.optional_max else ""
        when = f"  ({r.late})" if r.late and r.late != "on time" else ""
        print(f"{r.chapter}  {r.student:<{width}}  {r.score:5g} / {r.max_score:g}{extra}  {r.status}{when}{flag}")
        for note in r.notes:
            print(f"{'':>{len(r.chapter) + width + 4}}{note[:150]}")
    out = Path(args.out)
    print(f"\ngraded in {time.perf_counter() - start:.0f} s\ngrades: {out / GRADES_CSV}\n"
          f"per test: {out / GRADES_BY_TEST_CSV}\nfeedback: {NbgraderLayout(out).feedback_dir}/<student>/<chapter>/")
    return 1 if any(r.status.startswith("error") for r in results) else 0
