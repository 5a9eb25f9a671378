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
