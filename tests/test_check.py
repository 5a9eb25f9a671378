"""The learner's self-check: full marks for a solved chapter, clear messages, hidden code never shown."""
import pytest

from autograder import notebooks
from autograder.learner.check import format_report, run_check, with_instructor_tests
from tests.helpers import CHAPTERS, hidden_blocks, meta, solution_nb, student_nb

pytestmark = pytest.mark.slow

FIRST = CHAPTERS[0]


def test_solved_chapter_gets_full_marks(tmp_path):
    path = tmp_path / "my attempt.ipynb"          # a renamed copy is still recognised
    notebooks.write(solution_nb(FIRST), path)
    outcomes, _ = run_check(path)
    assert outcomes and all(o.points == o.max_points and not o.message for o in outcomes)


def test_untouched_chapter_reports_not_attempted_without_revealing_hidden_tests(tmp_path):
    path = tmp_path / f"{FIRST}.ipynb"
    notebooks.write(student_nb(FIRST), path)
    outcomes, elapsed = run_check(path)
    assert all(o.points == 0 and "not attempted" in o.message for o in outcomes)
    report = format_report(outcomes, elapsed, path.name)
    for cell in solution_nb(FIRST).cells:
        for block in hidden_blocks(cell.source):
            for line in block.splitlines():
                if len(line.strip()) > 20:
                    assert line.strip() not in report


def test_deleted_test_cells_are_put_back():
    learner = student_nb(FIRST)
    learner.cells = [c for c in learner.cells if not meta(c).get("grade")]
    restored = with_instructor_tests(learner, solution_nb(FIRST))
    want = [meta(c)["grade_id"] for c in solution_nb(FIRST).cells if meta(c).get("grade")]
    got = [meta(c)["grade_id"] for c in restored.cells if meta(c).get("grade")]
    assert got == want


def test_self_check_and_grading_run_the_same_preprocessors():
    """`check` scores as `grade` does by construction: it runs the first part of the very list
    nbgrader's Autograde runs (from the course's nbgrader_config.py); the rest only records
    scores in the gradebook. The list is nbgrader's own default with Execute made resilient."""
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import AssignLatePenalties, CheckCellMetadata, Execute, SaveAutoGrades

    from autograder.grading.pipeline import load_config
    from autograder.grading.resilient_execute import ResilientExecute
    from autograder.learner import check

    autograde = list(load_config().Autograde.autograde_preprocessors)
    assert list(check.PREPROCESSORS) == autograde[:len(check.PREPROCESSORS)]
    assert autograde[len(check.PREPROCESSORS):] == [SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]
    nbgrader_default = [ResilientExecute if p is Execute else p
                        for p in Autograde.class_traits()["autograde_preprocessors"].default()]
    assert autograde == nbgrader_default
