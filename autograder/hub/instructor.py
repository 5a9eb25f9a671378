"""The instructor's commands over the exchange, each saying what it did in one line per student
(or per chapter, for a release).

* `release`: the learner copies in `chapters/` (they carry the how-to cell and Check my work;
  nbgrader's generate_assignment from `solutions/` would drop them) go to the course
  directory's `release/` (and the solution notebooks to `source/`, for formgrader), then
  `nbgrader release_assignment` runs as the instructor;
* `collect`: `nbgrader collect` as the instructor, into `submitted/`;
* `grade`: the course's grader (`python -m autograder grade`: sandbox, statuses, roster rows,
  submission times) on the collected notebooks of one chapter, into the course directory itself:
  its one gradebook (the one formgrader shows), `autograded/`, `feedback/`; the chapter's CSVs go to
  `grading/<chapter>/`. The grader replaces each collected notebook by its sanitized copy and the
  course config and released copy by its own; the collected originals stay in the exchange, and
  the hub's config, the learner copy and each submission's secret are put back;
* `return_feedback`: the feedback pages the grader wrote, next to each submission's timestamp and
  secret, then `nbgrader release_feedback` as the instructor.
"""
from __future__ import annotations

import csv
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

from ..errors import CourseError
from ..paths import (CHAPTERS_DIR, GRADES_BY_TEST_CSV, GRADES_CSV, NBGRADER_GRADES_CSV, NbgraderLayout,
                     resolve_chapter, solution_notebook)
from . import config, users
from .layout import HubLayout
from .lifecycle import _say, read_state
from .roster import Roster


def _context(layout: HubLayout) -> tuple[Roster, Path]:
    state = read_state(layout)
    if not state.get("roster"):
        raise CourseError(f"no hub in {layout.root}: start one first (python -m autograder hub start ROSTER)")
    roster = Roster(state["roster"]["instructor"], tuple(state["roster"]["students"]), state["roster"]["course"])
    return roster, layout.course_dir(roster.instructor, roster.course)


def nbgrader_as(user: str, layout: HubLayout, args: list[str], cwd: Path, instructor: bool) -> subprocess.CompletedProcess:
    """`nbgrader ARGS` run as `user` with the Python and settings of their server."""
    env = config.server_environment(layout, instructor=instructor)
    return users.run_as(user, [str(layout.python), "-m", "nbgrader"] + args, env=env, cwd=cwd)


def _chown_tree(path: Path, user: str) -> None:
    entry = pwd.getpwnam(user)
    for p in [path, *path.rglob("*")]:
        os.chown(p, entry.pw_uid, entry.pw_gid)


def _check(proc: subprocess.CompletedProcess, what: str) -> None:
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if "ERROR" in ln or "rror" in ln]
        raise CourseError(f"{what} failed: {(lines or (proc.stderr + proc.stdout).strip().splitlines() or ['?'])[-1]}")


def release(layout: HubLayout, chapters: list[str]) -> None:
    roster, course_dir = _context(layout)
    course = NbgraderLayout(course_dir)
    for chapter in chapters:
        name = resolve_chapter(chapter)
        dest = course.release(name)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CHAPTERS_DIR / f"{name}.ipynb", dest)
        if solution_notebook(name).exists():
            course.source(name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(solution_notebook(name), course.source(name))
        _chown_tree(course_dir, roster.instructor)
        _check(nbgrader_as(roster.instructor, layout, ["release_assignment", name, "--force"], course_dir, True),
               f"releasing {name}")
        _say(f"{name}: released to {len(roster.students)} student(s) (the learner copy, Check my work included)")


def collect(layout: HubLayout, chapter: str) -> dict[str, bool]:
    roster, course_dir = _context(layout)
    name = resolve_chapter(chapter)
    _check(nbgrader_as(roster.instructor, layout, ["collect", name, "--update"], course_dir, True),
           f"collecting {name}")
    course = NbgraderLayout(course_dir)
    got = {}
    for student in roster.students:
        got[student] = course.submitted(student, name).is_file()
        _say(f"{student}: {'collected' if got[student] else 'nothing submitted'} ({name})")
    return got


def grading_dir(course_dir: Path, name: str) -> Path:
    """Where a chapter's CSVs are kept (the course directory's root holds the last grading's)."""
    return course_dir / "grading" / name


CSVS = (GRADES_CSV, GRADES_BY_TEST_CSV, NBGRADER_GRADES_CSV)


def grade(layout: HubLayout, chapter: str, extra: list[str] = ()) -> Path:
    """Grade the collected notebooks of one chapter with the course's grader into the course
    directory (see the module); the folder of its CSVs."""
    roster, course_dir = _context(layout)
    name = resolve_chapter(chapter)
    course = NbgraderLayout(course_dir)
    staging = layout.private / "collected" / name
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    secrets_ = {}                   # nbgrader finds a student's feedback by their submission's secret
    for student in roster.students:
        secret = course.submitted(student, name).parent / "submission_secret.txt"
        if secret.is_file():
            secrets_[student] = secret.read_bytes()
        if course.submitted(student, name).is_file():
            (staging / student).mkdir()
            shutil.copyfile(course.submitted(student, name), staging / student / f"{name}.ipynb")
            stamp = course.submitted(student, name).parent / "timestamp.txt"
            if stamp.is_file():         # the submission's time goes into the gradebook and grades.csv
                shutil.copyfile(stamp, staging / student / "timestamp.txt")
    if not any(staging.iterdir()):
        raise CourseError(f"no submission of {name} collected: run python -m autograder hub collect {name} first")
    class_file = staging.parent / f"{name}.roster.toml"     # every student gets a row, submitted or not
    class_file.write_text(f'course = "{roster.course}"\ninstructor = "{roster.instructor}"\n'
                          f'students = [{", ".join(repr(s).replace(chr(39), chr(34)) for s in roster.students)}]\n')
    for csv_name in CSVS:
        (course_dir / csv_name).unlink(missing_ok=True)
    released = course.release(name).is_file()
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(staging), "--out", str(course_dir),
                           "--roster", str(class_file), *extra], capture_output=True, text=True)
    # Put back what the grader replaced: the hub's course config (exchange, course id), the learner
    # copy in release/ (nbgrader's generate_assignment drops Check my work), the secrets.
    if released:
        shutil.copyfile(CHAPTERS_DIR / f"{name}.ipynb", course.release(name))
    for student, secret in secrets_.items():
        if course.submitted(student, name).parent.is_dir():
            (course.submitted(student, name).parent / "submission_secret.txt").write_bytes(secret)
    config.write_course_dir(roster, layout)          # also hands the whole folder to the instructor
    if not (course_dir / GRADES_CSV).is_file():
        raise CourseError(f"grading {name} failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    out = grading_dir(course_dir, name)
    out.mkdir(parents=True, exist_ok=True)
    for csv_name in CSVS:
        if (course_dir / csv_name).is_file():
            shutil.move(course_dir / csv_name, out / csv_name)
    for row in read_grades(out):
        _say(f"{row['student_id']}: {row['score']} / {row['max_score']}  {row['status']}"
             f"{'  (review: see grades.csv)' if row['review'] else ''}")
    _chown_tree(course_dir / "grading", roster.instructor)
    return out


def read_grades(out: Path) -> list[dict]:
    with open(Path(out) / GRADES_CSV, newline="") as f:
        return list(csv.DictReader(f))


def return_feedback(layout: HubLayout, chapter: str) -> None:
    roster, course_dir = _context(layout)
    name = resolve_chapter(chapter)
    course = NbgraderLayout(course_dir)
    out = grading_dir(course_dir, name)
    if not (out / GRADES_CSV).is_file():
        raise CourseError(f"{name} is not graded yet: python -m autograder hub grade {name}")
    scores = {r["student_id"]: f"{r['score']} / {r['max_score']}" for r in read_grades(out)}
    ready = []
    for student in roster.students:
        dest = course.feedback_dir / student / name          # where the grader wrote the pages
        pages = sorted(dest.glob("*.html"))
        submitted = course.submitted(student, name).parent
        if not pages or not (submitted / "timestamp.txt").is_file():
            _say(f"{student}: no feedback ({'not graded' if student not in scores else 'no page'})")
            continue
        # nbgrader finds a student's feedback by the secret and time of their submission.
        for meta in ("timestamp.txt", "submission_secret.txt"):
            if (submitted / meta).is_file():
                shutil.copyfile(submitted / meta, dest / meta)
        ready.append(student)
    _chown_tree(course_dir / "feedback", roster.instructor)
    if ready:
        _check(nbgrader_as(roster.instructor, layout, ["release_feedback", name], course_dir, True),
               f"returning the feedback of {name}")
    for student in ready:
        _say(f"{student}: feedback returned ({scores.get(student, '?')})")
