"""`grade --scheduler`: a class graded on a Dask cluster (a LocalCluster of two worker processes)
gets the same scores, CSVs and feedback as the same class graded locally (`tests.graded_class`,
graded once for this test and the grading tests)."""
import csv
import re
import tempfile
import time
from pathlib import Path

import pytest

from autograder.grading.grade import find_submissions, grade
from tests.graded_class import CHAPTER_ONE_CLASS, DEADLINE, JOBS, ROSTER, TIMEOUT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(CHAPTER_ONE_CLASS)]


# nbconvert gives each rich output a random element id, ipywidgets each widget a random model id;
# two local runs differ there too. Nothing else may differ.
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b")


def _files(out):
    with open(out / "grades.csv") as f:
        rows = list(csv.DictReader(f))
    pages = {p.relative_to(out): _UUID.sub("<id>", p.read_text(encoding="utf-8"))
             for p in (out / "feedback").rglob("*.html")}
    return rows, (out / "grades_by_test.csv").read_text(), pages


def test_a_local_dask_cluster_grades_like_local_grading(chapter_one_class, tmp_path):
    """The class of `tests.graded_class` (full, partial, empty, a killed kernel, a loop stopped at the
    cell limit, a wrong chapter, a broken file), graded on a LocalCluster of two workers, gives the
    local grading's files exactly (the grading tests check what those files say)."""
    from distributed import LocalCluster

    scratch = Path(tempfile.gettempdir())
    worker_dirs = set(scratch.glob("course-dask-worker-*"))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        start = time.perf_counter()
        grade(find_submissions(chapter_one_class.subs), tmp_path / "dask", cell_timeout=TIMEOUT,
              scheduler=cluster.scheduler_address, roster=ROSTER, deadline=DEADLINE)
        dask_s = time.perf_counter() - start
    print(f"local ({JOBS} jobs) {chapter_one_class.seconds:.1f} s, LocalCluster (2 workers) {dask_s:.1f} s")
    left = set(scratch.glob("course-dask-worker-*")) - worker_dirs
    assert not left, f"the workers' course folders outlive them: {sorted(left)}"
    local, dask = _files(chapter_one_class.out), _files(tmp_path / "dask")
    assert len(local[0]) == len(ROSTER) and local[2], "the local grading lost its rows or its feedback"
    assert local[0] == dask[0]                      # grades.csv: scores, statuses, notes, review
    assert local[1] == dask[1]                      # grades_by_test.csv
    assert local[2].keys() == dask[2].keys() and len(local[2]) == 6
    for page in local[2]:
        assert local[2][page] == dask[2][page], page
