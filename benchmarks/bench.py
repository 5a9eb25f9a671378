"""Class-scale grading benchmark: time to grade N whole-course submissions, parallel vs serial.

    from bench import grading_benchmark, format_benchmark      # from benchmarks/ (python benchmarks/run.py --class-size N)
    print(format_benchmark(grading_benchmark(40)))

Every student submits every chapter's solution notebook (so each must get full marks).
The parallel run grades all N students with one sandboxed kernel per core; the serial
run grades `serial_students` of them one at a time (all N by default; fewer to save
time, in which case the serial time is scaled to N and marked as estimated).
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from autograder import notebooks
from autograder.paths import chapter_names, solution_notebook


def _class_folder(root: Path, n_students: int, chapters: list[str]) -> Path:
    subs = root / "subs"
    for i in range(n_students):
        folder = subs / f"student{i:03d}"
        folder.mkdir(parents=True)
        for name in chapters:
            notebooks.write(notebooks.read(solution_notebook(name)), folder / f"{name}.ipynb")
    return subs


def grading_benchmark(n_students: int = 40, jobs: int | None = None, serial_students: int | None = None,
                      chapters: list[str] | None = None, cell_timeout: int | None = None) -> dict:
    """Grade `n_students` whole-course submissions in parallel, then serially; return the timings.

    Keys: students, chapters, jobs, parallel_s, serial_s, serial_estimated (True if the serial
    time was scaled from `serial_students`), ratio (serial_s / parallel_s), all_full_marks."""
    from autograder.grading.grade import find_submissions, grade
    from autograder.grading.settings import GradingSettings

    chapters = chapters or chapter_names()
    jobs = GradingSettings(jobs=jobs).parallel(n_students * len(chapters))     # what grade() will use
    serial_students = min(serial_students or n_students, n_students)
    with tempfile.TemporaryDirectory(prefix="course-bench-") as tmp:
        subs = _class_folder(Path(tmp), n_students, chapters)
        start = time.perf_counter()
        results = grade(find_submissions(subs), Path(tmp) / "parallel", cell_timeout=cell_timeout, jobs=jobs)
        parallel_s = time.perf_counter() - start
        full = all(r.score == r.max_score and r.status == "graded" for r in results)
        few = [s for s in find_submissions(subs) if int(s.student[-3:]) < serial_students]
        start = time.perf_counter()
        serial = grade(few, Path(tmp) / "serial", cell_timeout=cell_timeout, jobs=1)
        serial_s = (time.perf_counter() - start) * n_students / serial_students
        full = full and all(r.score == r.max_score for r in serial)
    return {"students": n_students, "chapters": len(chapters), "jobs": jobs, "parallel_s": parallel_s,
            "serial_s": serial_s, "serial_estimated": serial_students < n_students,
            "ratio": serial_s / parallel_s, "all_full_marks": full}


def format_benchmark(result: dict) -> str:
    est = " (estimated from fewer students)" if result["serial_estimated"] else ""
    return (f"grade {result['students']} whole-course submissions ({result['chapters']} chapters): "
            f"{result['parallel_s']:.0f} s with {result['jobs']} parallel sandboxes, "
            f"{result['serial_s']:.0f} s serial{est}; serial/parallel = {result['ratio']:.2f}"
            + ("" if result["all_full_marks"] else "  SOLUTIONS LOST POINTS!"))


def cluster_benchmark(n_students: int = 4, chapters: list[str] | None = None, workers: int = 2,
                      repeats: int = 3) -> dict:
    """The same class graded locally (`--jobs workers`) and on a Dask LocalCluster of `workers`
    single-threaded worker processes (`--scheduler`), alternating, `repeats` times each.

    Keys: students, chapters, workers, local_s and cluster_s (lists of seconds), same_scores
    (every run gave every submission the same score and status)."""
    from distributed import LocalCluster

    from autograder.grading.grade import find_submissions, grade

    chapters = chapters or chapter_names()[:1]
    local_s, cluster_s, seen = [], [], set()
    with tempfile.TemporaryDirectory(prefix="course-bench-") as tmp, \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        subs = _class_folder(Path(tmp), n_students, chapters)
        for i in range(repeats):
            for label, times, kwargs in (("local", local_s, {"jobs": workers}),
                                         ("cluster", cluster_s, {"scheduler": cluster.scheduler_address})):
                start = time.perf_counter()
                results = grade(find_submissions(subs), Path(tmp) / f"{label}{i}", **kwargs)
                times.append(time.perf_counter() - start)
                seen.add(tuple(sorted((r.student, r.chapter, r.score, r.status) for r in results)))
    return {"students": n_students, "chapters": len(chapters), "workers": workers, "local_s": local_s,
            "cluster_s": cluster_s, "same_scores": len(seen) == 1}


def format_cluster_benchmark(result: dict) -> str:
    import statistics

    def spread(xs):
        return f"{statistics.median(xs):.1f} s (range {min(xs):.1f}-{max(xs):.1f})"
    return (f"grade {result['students']} students x {result['chapters']} chapter(s): local, {result['workers']} jobs "
            f"{spread(result['local_s'])}; Dask LocalCluster, {result['workers']} worker processes "
            f"{spread(result['cluster_s'])}; median cluster/local = "
            f"{statistics.median(result['cluster_s']) / statistics.median(result['local_s']):.2f}"
            + ("; same scores and statuses" if result["same_scores"] else "; SCORES DIFFER!"))
