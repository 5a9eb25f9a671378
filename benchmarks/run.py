"""Timing table for the course, measured side by side in one run.

    python benchmarks/run.py                  # chapters, suite cost, one whole-course autograde, widget
    python benchmarks/run.py --quick          # chapters only
    python benchmarks/run.py --class-size 40  # also grade a class of 40 in parallel vs serial (long)
    python benchmarks/run.py --book           # only the book: `./course book` cold, then reusing the runs
    python benchmarks/run.py --cluster 4      # only grading: 4 students locally vs on a Dask LocalCluster

It also reports what each chapter costs the test suite: the fast power harness that runs
every wrong answer of the chapter (tests/power.py), beside the chapter's own run time.

Machines here are noisy, so every figure is also given as a ratio: to the cost of
starting a kernel and running an empty notebook (measured in the same run), and to its
budget (a chapter must run in < 60 s on a 2-core laptop; autograding one student's
whole course in < 180 s). Test cells that run a chi-square test are listed with their
own time (budget 5 s each).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import nbformat

from autograder import notebooks
from autograder.authoring.execute import execute
from autograder.grading.grade import find_submissions, grade
from autograder.paths import CHAPTERS_DIR, chapter_names, solution_notebook

from autograder.notebooks import grade_id_of, is_grade

CHAPTER_BUDGET_S = 60.0
REPO_ROOT = Path(__file__).resolve().parent.parent


def _power_row(name: str):
    """The test suite's power check of one chapter (every wrong answer through tests/power.py), run as the
    suite runs it, in a pytest process of its own; None when the chapter has no wrong answers."""
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-s",
                          "tests/test_wrong_implementations.py", "-k", f"test_every_wrong_implementation_loses_points and {name}"],
                         cwd=REPO_ROOT, capture_output=True, text=True)
    found = re.search(rf"{name}: (\d+) wrong answers in ([\d.]+) s", out.stdout)
    if found is None:
        return None if out.returncode in (0, 5) else (f"power harness {name}", float("nan"), CHAPTER_BUDGET_S,
                                                      "the power check failed!")
    return (f"power harness {name} ({found[1]} wrong answers)", float(found[2]), CHAPTER_BUDGET_S,
            "" if out.returncode == 0 else "wrong answers uncaught or solution fails!")

COURSE_GRADE_BUDGET_S = 180.0
BOOK_BUDGET_S = 120.0           # `./course book` when the suite already executed the chapters (CI's case)
CHI2_TEST_BUDGET_S = 5.0


def _cell_seconds(cell) -> float | None:
    timing = cell.get("metadata", {}).get("execution", {})
    try:
        start = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return None
    return (end - start).total_seconds()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the whole-course autograde")
    parser.add_argument("--class-size", type=int, default=0,
                        help="also grade this many whole-course submissions, parallel vs serial")
    parser.add_argument("--serial-students", type=int, default=2,
                        help="students graded serially for the ratio (the serial time is scaled)")
    parser.add_argument("--book", action="store_true", help="only the book build rows")
    parser.add_argument("--cluster", type=int, default=0, metavar="N",
                        help="only the grading row: N students of chapter 01, local vs a Dask LocalCluster")
    args = parser.parse_args()
    if args.book:
        return _book_rows()
    if args.cluster:
        from bench import cluster_benchmark, format_cluster_benchmark      # benchmarks/bench.py
        print(format_cluster_benchmark(cluster_benchmark(args.cluster)))
        return 0

    baseline = execute(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])).seconds
    rows, chi2_rows, power_rows = [], [], []
    for name in chapter_names():
        result = execute(solution_notebook(name))
        rows.append((f"chapter {name}", result.seconds, CHAPTER_BUDGET_S, "errors!" if result.errors else ""))
        power = None if args.quick else _power_row(name)
        if power:
            power_rows.append(power)
        for cell in result.notebook.cells:
            if is_grade(cell) and "assert_distribution" in cell.source:
                chi2_rows.append((f"{name} / {grade_id_of(cell)}", _cell_seconds(cell) or float("nan"),
                                  CHI2_TEST_BUDGET_S, ""))
    if not args.quick:
        with tempfile.TemporaryDirectory() as tmp:
            subs = Path(tmp) / "subs" / "student"
            subs.mkdir(parents=True)
            for name in chapter_names():
                notebooks.write(notebooks.read(solution_notebook(name)), subs / f"{name}.ipynb")
            start = time.perf_counter()
            results = grade(find_submissions(subs.parent), Path(tmp) / "grading")
            seconds = time.perf_counter() - start
            full = all(r.score == r.max_score for r in results)
            rows.append(("autograde one student's whole course", seconds, COURSE_GRADE_BUDGET_S,
                         "" if full else "solutions lost points!"))

    widget_rows = []
    if not args.quick:
        from widgets.batch_speedup import benchmark_update
        update_s, curve_s = benchmark_update()
        widget_rows.append(("speedup widget: one Python-side update (5 repeats, median)", update_s, curve_s,
                            "budget column = computing the curve alone (the page draws it in the browser)"))
    if args.class_size:
        from bench import format_benchmark, grading_benchmark      # benchmarks/bench.py, beside this script
        b = grading_benchmark(args.class_size, serial_students=args.serial_students)
        rows.append((f"grade {b['students']} whole courses, {b['jobs']} parallel", b["parallel_s"],
                     b["serial_s"], f"budget column = serial{' (scaled)' if b['serial_estimated'] else ''}; "
                     f"serial/parallel {b['ratio']:.2f}" + ("" if b["all_full_marks"] else "; LOST POINTS!")))
        print(format_benchmark(b))

    print(f"kernel start + empty notebook: {baseline:.2f} s (the unit of the 'x baseline' column)\n")
    header = f"{'what':<52}{'seconds':>9}{'x baseline':>12}{'of budget':>11}  note"
    for title, table in (("Run times", rows), ("Test-suite cost per chapter", power_rows),
                         ("Chi-square test cells", chi2_rows), ("Widget update vs bare redraw", widget_rows)):
        if not table:
            continue
        print(title)
        print(header)
        for what, seconds, budget, note in table:
            print(f"{what:<52}{seconds:>9.2f}{seconds / baseline:>12.1f}{seconds / budget:>10.0%}  {note}")
        print()
    over = [r for r in rows + chi2_rows + power_rows if (r[1] > r[2] or r[3]) and "budget column" not in r[3]]
    return 1 if over else 0


def _book_rows(repeats: int = 3) -> int:
    """`./course book` from nothing (every chapter executed; one run), then `repeats` builds reusing
    those runs (median and range)."""
    import statistics

    from book.build import build_book

    with tempfile.TemporaryDirectory(prefix="course-book-bench-") as tmp:
        cache = Path(tmp) / "executed"
        cold = build_book(Path(tmp) / "cold", progress=lambda line: None, cache_dir=cache)
        warm = [build_book(Path(tmp) / f"warm{i}", progress=lambda line: None, cache_dir=cache)
                for i in range(repeats)]
    n = len(cold.executed)
    total = [w.seconds for w in warm]
    sphinx = [w.sphinx_seconds for w in warm]
    rows = [(f"book, cold: {n} chapters executed + Sphinx (1 run)", cold.seconds, n * CHAPTER_BUDGET_S,
             f"Sphinx {cold.sphinx_seconds:.1f} s; budget column = {n} chapter budgets"),
            (f"book, {len(warm[0].reused)} chapters reused + Sphinx ({repeats} runs)", statistics.median(total),
             BOOK_BUDGET_S, f"range {min(total):.1f}-{max(total):.1f} s; Sphinx median {statistics.median(sphinx):.1f} s")]
    print(f"{'what':<52}{'seconds':>9}{'of budget':>11}  note")
    for what, seconds, budget, note in rows:
        print(f"{what:<52}{seconds:>9.1f}{seconds / budget:>10.0%}  {note}")
    chapters = [p.stem for p in sorted(CHAPTERS_DIR.glob("[0-9][0-9]_*.ipynb"))]
    return 1 if any(w.reused != chapters for w in warm) or any(r[1] > r[2] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
