"""Optional exercises are reported apart: never in a chapter's total, in every report that totals one.

An exercise is optional when its heading says so ("Exercise 10.4 (interview, optional)",
autograder.exercises); the self-check report, the Check my work button, the progress log and
`progress`, and the start page all count the required exercises and show the optional ones apart."""
from pathlib import Path

import pytest

from autograder import progress
from autograder.exercises import is_optional_title, optional_exercises, split_points
from autograder.learner.check import TestOutcome as Outcome, format_report
from autograder.learner.notebook_check import NotebookCheck, report_html
from autograder.progress.summary import format_progress
from tests.helpers import CHAPTERS, solution_nb, student_nb


def test_the_course_s_optional_exercises_are_10_4_and_11_2():
    # docs/instructors.md names these two (grades.csv and the learner's reports count them apart).
    want = {"10_cache_rollback": {"ex_shared_blocks"}, "11_pytorch_verifier": {"ex_ragged_verify"}}
    found = {name: optional_exercises(solution_nb(name)) for name in CHAPTERS}
    assert {name: ids for name, ids in found.items() if ids} == want, found
    for name, ids in want.items():
        assert optional_exercises(student_nb(name)) == ids                            # the learner's copy too


@pytest.mark.parametrize("title, want", [
    ("## 8 · Exercise 10.4 (interview, optional): blocks shared", True),
    ("## 7 · Exercise 10.3 (core): `gather_branch`", False),
    ("Exercise 10.4 (interview, optional) in a sentence is not a heading", None),
    ("## 1 · No exercise here", None),
])
def test_only_an_exercise_heading_decides(title, want):
    assert is_optional_title(title) is want


# 10.1 passed, 10.2 failed one of two tests, 10.4 (optional) not attempted.
OUTCOMES = [Outcome("test_reserve", "ex_reserve_trim", 3, 3, ""),
            Outcome("test_rollback_lengths", "ex_rollback_after_round", 2, 2, ""),
            Outcome("test_rollback_loop", "ex_rollback_after_round", 0, 3, "wrong draft length"),
            Outcome("test_shared_trim", "ex_shared_blocks", 0, 2, "not attempted yet", optional=True),
            Outcome("test_copy_on_write", "ex_shared_blocks", 0, 2, "not attempted yet", optional=True)]


def test_the_self_check_report_totals_required_exercises_and_shows_optional_ones_apart():
    report = format_report(OUTCOMES, 12.0, "10_cache_rollback.ipynb")
    lines = report.splitlines()
    assert "Total: 5 / 8" in lines
    assert "Optional, not in the total: 0 / 4 (shared_blocks)" in lines
    assert "shared_blocks (optional): 0 / 4" in lines and "reserve_trim: 3 / 3" in lines
    assert split_points({"ex_a": (1.0, 2.0), "ex_b": (3.0, 3.0)}, set()) == ((4.0, 5.0), (0.0, 0.0))


def test_the_check_my_work_button_totals_required_exercises_and_shows_optional_ones_apart():
    result = NotebookCheck(Path("10_cache_rollback.ipynb"), OUTCOMES, 12.0)
    assert result.points == (5.0, 8.0) and result.optional_points == (0.0, 4.0)
    page = report_html(result)
    assert "<b>Total: 5 / 8</b>" in page
    assert "<b>shared_blocks</b>: 0 / 4 <i>(optional, not in the total)</i>" in page
    assert "Optional exercises, not in the total: 0 / 4" in page


def test_the_progress_log_and_summaries_count_required_exercises_only(tmp_path):
    from autograder.learner.start import _progress_line

    log = tmp_path / progress.LOG_NAME
    solved = [o if o.optional else Outcome(o.grade_id, o.exercise, o.max_points, o.max_points, "")
              for o in OUTCOMES]
    event = progress.record_check("10_cache_rollback", solved, log)
    assert event["optional"] == ["ex_shared_blocks"]
    text = format_progress(progress.read_log(log), ["10_cache_rollback"])
    row = next(ln for ln in text.splitlines() if ln.startswith("10_cache_rollback"))
    assert "2/2 exercises passed" in row                          # not 2/3: 10.4 is optional
    assert any("shared_blocks (optional, not counted)" in ln and ln.rstrip().endswith("0/4")
               for ln in text.splitlines())
    line = _progress_line("10_cache_rollback", progress.read_log(log))
    assert line.startswith("2/2 exercises passed, optional 10.4 `trim_shared` + `copy_on_write` apart")


@pytest.mark.slow
def test_run_check_marks_the_optional_exercise_s_tests(tmp_path):
    from autograder import notebooks
    from autograder.learner.check import run_check

    path = tmp_path / "10_cache_rollback.ipynb"
    notebooks.write(student_nb("10_cache_rollback"), path)
    outcomes, _ = run_check(path)
    flagged = {o.exercise for o in outcomes if o.optional}
    assert flagged == {"ex_shared_blocks"}
    assert {o.grade_id for o in outcomes if o.optional} == {"test_shared_trim", "test_copy_on_write",
                                                            "test_shared_random"}
