"""One class of chapter 01 with every kind of submission a grader meets, graded locally once.

The grading tests read its scores and statuses; the Dask test grades the same folder on a cluster and
compares every file with this local grading. Every notebook is what a student hands in: the learner
copy, answers typed into its stubs, run and saved as JupyterLab saves it (`tests.submissions`).

    correct        every exercise answered                     full marks, nothing to report
    partial        the first exercise left as its stub         some points
    empty          the learner copy only saved                 0
    killer         kills its own kernel in the last exercise   the exercises before it keep their points
    looper         loops forever in the last exercise          interrupted at the cell limit, the rest counts
    wrong_chapter  chapter 03's notebook under chapter 01's name   not graded, with a sentence that says so
    broken         not JSON                                    0, "not a readable notebook"
    absent         on the roster, nothing handed in            0, "no submission"
    copier         1.1 is the library's t_pass (and its check),  full marks, and a review entry naming each
                   pasted, renamed, one line changed           library function it copied

`correct` and `partial` carry nbgrader's timestamp.txt, one after the deadline and one before.
"""
from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.grade import find_submissions, grade
from autograder.notebooks import grade_id_of, is_solution
from tests.helpers import CHAPTERS, replace_solution
from tests.submissions import learner_copy, learner_submission, write_submission

FIRST = CHAPTERS[0]
OTHER = "03_acceptance_rule"
# Seconds per cell: the looper is stopped at it; an honest cell of chapter 01 (the first imports, in a
# new sandboxed kernel, with both workers and another test busy on two cores) took over 10 s once.
TIMEOUT = 20
JOBS = 2
#: The xdist group of every test that reads the `chapter_one_class` fixture: one worker grades it once.
CHAPTER_ONE_CLASS = "chapter_one_class"
#: The class as the roster names it (one student never submits) and its deadline; the submission times.
ROSTER = ["absent", "broken", "copier", "correct", "empty", "killer", "looper", "partial", "wrong_chapter"]
DEADLINE = "2026-12-01 12:00:00 UTC"
TIMES = {"correct": "2026-12-01 13:30:00.250000 UTC", "partial": "2026-12-01 11:59:00 UTC"}
#: 1.1 as a student who copies specdec/cost_model.py hands it in: `t_pass` and `_check_sizes` pasted with their
#: names renamed, docstrings and comments gone, the library's `scalar_or_array` written out in place, and
#: `_check_time` rewritten more deeply (not flagged). It passes every test of chapter 01.
COPIED_T_PASS = """import math

import numpy as np


def check_sizes(batch, tokens):
    batch_arr = np.asarray(batch, dtype=float)
    tokens_arr = np.asarray(tokens, dtype=float)
    for label, values in (("B", batch_arr), ("k", tokens_arr)):
        if not np.all(np.isfinite(values)) or np.any(values < 1):
            raise ValueError(f"{label} must be >= 1 (sequences / tokens per sequence), got {np.asarray(values).tolist()}")
    return batch_arr, tokens_arr


def check_time(label, x):
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{label} must be a number of seconds, got {x!r}")
    x = float(x)
    if not math.isfinite(x) or x < 0:
        raise ValueError(f"{label} must be >= 0 and finite, got {x!r}")
    return x


def t_pass(B, k, t_W, t_K, t_F, t_0=0.0):
    batch, tokens = check_sizes(B, k)
    t_W, t_K, t_F, t_0 = (check_time(n, v) for n, v in (("t_W", t_W), ("t_K", t_K), ("t_F", t_F), ("t_0", t_0)))
    memory = t_W + batch * t_K
    compute = tokens * batch * t_F
    out = np.asarray(np.maximum(memory, compute) + t_0)
    return float(out) if out.ndim == 0 else out
"""


@dataclass(frozen=True)
class ChapterOneClass:
    subs: Path          # the submissions, one folder per student
    out: Path           # the local grading folder (grades.csv, grades_by_test.csv, feedback/, gradebook.db)
    before: dict        # every submitted file's bytes before grading
    seconds: float      # how long the local grading took

    def rows(self) -> dict[str, dict]:
        with open(self.out / "grades.csv") as f:
            return {r["student_id"]: r for r in csv.DictReader(f)}


def write_class(subs: Path) -> Path:
    """The class's submissions under `subs/<student>/01_cost_model.ipynb`."""
    done, stub = learner_submission(FIRST), learner_copy(FIRST)
    first, last = [c for c in stub.cells if is_solution(c)][0], [c for c in done.cells if is_solution(c)][-1]
    class_ = {
        "correct": done,
        "partial": replace_solution(done, grade_id_of(first), first.source),
        "empty": stub,
        "killer": replace_solution(done, grade_id_of(last), "import os\nos._exit(1)"),
        "looper": replace_solution(done, grade_id_of(last), "while True:\n    pass"),
        "copier": replace_solution(done, "ex_t_pass", COPIED_T_PASS),
        "wrong_chapter": learner_submission(OTHER, run=False),
    }
    for student, nb in class_.items():
        write_submission(nb, subs / student / f"{FIRST}.ipynb")
    for student, when in TIMES.items():
        (subs / student / "timestamp.txt").write_text(when + "\n")
    (subs / "broken").mkdir(parents=True)
    (subs / "broken" / f"{FIRST}.ipynb").write_text('{"cells": [')
    return subs


def grade_chapter_one_class(root: Path) -> ChapterOneClass:
    subs = write_class(root / "subs")
    before = {p: p.read_bytes() for p in subs.rglob("*.ipynb")}
    start = time.perf_counter()
    grade(find_submissions(subs), root / "local", jobs=JOBS, cell_timeout=TIMEOUT, roster=ROSTER, deadline=DEADLINE)
    return ChapterOneClass(subs, root / "local", before, time.perf_counter() - start)
