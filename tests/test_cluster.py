"""`grade --scheduler`: a class graded on a Dask cluster (a LocalCluster of two worker processes)
gets the same scores, CSVs and feedback as the same class graded locally."""
import csv
import re
import tempfile
import time
from pathlib import Path

import pytest

from autograder.grading.grade import find_submissions, grade
from autograder.grading.statuses import is_sentence
from tests.helpers import CHAPTERS, replace_solution
from tests.submissions import learner_copy, learner_submission, write_submission
from autograder.notebooks import grade_id_of, is_solution

pytestmark = pytest.mark.slow

FIRST = CHAPTERS[0]
OTHER = "03_acceptance_rule"
# Seconds per cell: the looper is stopped at it; an honest cell of chapter 01 (the first imports, in a
# new sandboxed kernel, with both workers and another test busy on two cores) took over 10 s once.
TIMEOUT = 20


def _small_hostile_class(root):
    """Learner copies as students save them (`tests.submissions`): one done, one untouched, one whose
    last exercise loops, and chapter 03's saved under chapter 01's name."""
    done = learner_submission(FIRST)
    last = [c for c in done.cells if is_solution(c)][-1]
    looper = replace_solution(done, grade_id_of(last), "while True:\n    pass")
    class_ = {"correct": done, "empty": learner_copy(FIRST), "looper": looper,
              "wrong_chapter": learner_submission(OTHER, run=False)}
    for student, nb in class_.items():
        write_submission(nb, root / student / f"{FIRST}.ipynb")
    (root / "broken").mkdir()
    (root / "broken" / f"{FIRST}.ipynb").write_text('{"cells": [')
    return root


# nbconvert gives each rich output a random element id, ipywidgets each widget a random model id;
# two local runs differ there too. Nothing else may differ.
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b")


def _files(out):
    with open(out / "grades.csv") as f:
        rows = list(csv.DictReader(f))
    pages = {p.relative_to(out): _UUID.sub("<id>", p.read_text(encoding="utf-8"))
             for p in (out / "feedback").rglob("*.html")}
    return rows, (out / "grades_by_test.csv").read_text(), pages


def test_a_local_dask_cluster_grades_like_local_grading(tmp_path):
    from distributed import LocalCluster

    subs = _small_hostile_class(tmp_path / "subs")
    start = time.perf_counter()
    grade(find_submissions(subs), tmp_path / "local", jobs=2, cell_timeout=TIMEOUT)
    local_s = time.perf_counter() - start
    scratch = Path(tempfile.gettempdir())
    worker_dirs = set(scratch.glob("course-dask-worker-*"))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        start = time.perf_counter()
        grade(find_submissions(subs), tmp_path / "dask", cell_timeout=TIMEOUT, scheduler=cluster.scheduler_address)
        dask_s = time.perf_counter() - start
    print(f"local (2 jobs) {local_s:.1f} s, LocalCluster (2 workers) {dask_s:.1f} s")
    left = set(scratch.glob("course-dask-worker-*")) - worker_dirs
    assert not left, f"the workers' course folders outlive them: {sorted(left)}"
    local, dask = _files(tmp_path / "local"), _files(tmp_path / "dask")
    rows = {r["student_id"]: r for r in local[0]}
    assert float(rows["correct"]["score"]) == float(rows["correct"]["max_score"]) > 0, rows["correct"]
    assert rows["correct"]["review"] == "", rows["correct"]
    assert 0 < float(rows["looper"]["score"]) < float(rows["looper"]["max_score"]), rows["looper"]
    assert "chapter 03's exercises" in rows["wrong_chapter"]["status"], rows["wrong_chapter"]
    assert all(is_sentence(r["status"]) for r in local[0]), [r["status"] for r in local[0]]
    assert local[0] == dask[0]                      # grades.csv: scores, statuses, notes, review
    assert local[1] == dask[1]                      # grades_by_test.csv
    assert local[2].keys() == dask[2].keys() and len(local[2]) == 3
    for page in local[2]:
        assert local[2][page] == dask[2][page], page
