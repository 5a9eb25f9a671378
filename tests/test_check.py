"""The learner's self-check: full marks for a solved chapter, clear messages, hidden code never shown."""
import pytest

from autograder import notebooks
from autograder.learner.check import format_report, run_check, with_instructor_tests
from tests.helpers import CHAPTERS, hidden_blocks, solution_nb, student_nb
from autograder.notebooks import grade_id_of, is_grade, is_solution


FIRST = CHAPTERS[0]


@pytest.mark.slow
def test_solved_chapter_gets_full_marks(tmp_path):
    path = tmp_path / "my attempt.ipynb"          # a renamed copy is still recognised
    notebooks.write(solution_nb(FIRST), path)
    outcomes, _ = run_check(path)
    assert outcomes and all(o.points == o.max_points and not o.message for o in outcomes)


@pytest.mark.slow
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
    learner.cells = [c for c in learner.cells if not is_grade(c)]
    restored = with_instructor_tests(learner, solution_nb(FIRST))
    want = [grade_id_of(c) for c in solution_nb(FIRST).cells if is_grade(c)]
    got = [grade_id_of(c) for c in restored.cells if is_grade(c)]
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


# ------------------------------------------------------------------ Check my work, inside the notebook
@pytest.mark.slow
def test_check_in_the_notebook_gives_what_the_command_gives(tmp_path, monkeypatch):
    """The button's check runs `run_check` on the saved file: the same outcomes as `python -m autograder
    check`, shown per exercise with the failing tests' messages, and recorded in the progress log."""
    from autograder import progress
    from autograder.learner.notebook_check import check_in_notebook, report_html
    from tests.helpers import replace_solution

    log = tmp_path / "log.jsonl"
    monkeypatch.setenv(progress.ENV_VAR, str(log))
    sol = solution_nb(FIRST)
    first_ex = next(grade_id_of(c) for c in sol.cells if is_solution(c))
    learner = student_nb(FIRST)
    solved = next(c.source for c in sol.cells if grade_id_of(c) == first_ex)
    learner = replace_solution(learner, first_ex, solved)       # first exercise solved, the rest not
    path = tmp_path / f"{FIRST}.ipynb"
    notebooks.write(learner, path)
    result = check_in_notebook(FIRST, notebook=path, history=[])
    command, _ = run_check(path)
    assert [(o.grade_id, o.points, o.max_points) for o in result.outcomes] == \
        [(o.grade_id, o.points, o.max_points) for o in command]
    got = {o.exercise: 0.0 for o in result.outcomes}
    for o in result.outcomes:
        got[o.exercise] += o.points
    assert got[first_ex] > 0 and any(v == 0 for k, v in got.items() if k != first_ex)
    page = report_html(result)
    assert f"{first_ex.removeprefix('ex_')}</b>: " in page and "not attempted yet" in page
    assert "white-space:pre-wrap" in page                          # long messages wrap
    (event,) = [e for e in progress.read_log(log) if e["type"] == "check"]
    assert event["chapter"] == FIRST and event["exercises"][first_ex][0] > 0


def test_check_in_the_notebook_says_save_first_when_the_run_version_is_not_saved(tmp_path):
    from autograder.learner.notebook_check import check_in_notebook, report_html

    sol = solution_nb(FIRST)
    first_ex = next(c for c in sol.cells if is_solution(c))
    path = tmp_path / f"{FIRST}.ipynb"
    notebooks.write(student_nb(FIRST), path)                      # saved: the stub
    # The kernel ran an edited version of the exercise (the learner's new answer), not yet saved.
    result = check_in_notebook(FIRST, notebook=path, history=["import numpy as np", first_ex.source])
    assert not result.outcomes and "Save first (Ctrl+S)" in result.message
    assert grade_id_of(first_ex).removeprefix("ex_") in result.message
    assert "Save first" in report_html(result)


def test_every_chapter_ends_with_the_check_button_for_itself():
    from autograder.authoring.learner_cells import CHECK_CELL_MARK, CHECK_NOTE_MARK

    for name in CHAPTERS:
        cells = student_nb(name).cells
        assert CHECK_CELL_MARK in cells[-1].source and f"check_button({name!r})" in cells[-1].source
        notes = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and CHECK_NOTE_MARK in c.source]
        assert notes == [1], f"{name}: the note on checking your work should be the second cell, once: {notes}"


def test_check_finds_a_chapter_named_without_its_folder(tmp_path):
    """From the course's root (where a terminal may open) `check 01_cost_model.ipynb` and `check 01`
    mean the learner's copy; a name that finds nothing gets a sentence saying where it looked."""
    from autograder.errors import CourseError
    from autograder.learner.check import find_notebook

    root = tmp_path / "course"
    for folder in ("chapters", "autograder", "learner"):
        (root / folder).mkdir(parents=True)
    mine = root / "learner" / "01_cost_model.ipynb"
    mine.write_text("{}")
    for name in ("01_cost_model.ipynb", "01_cost_model", "01", "1", "learner/01_cost_model.ipynb"):
        assert find_notebook(name, root) == mine, name
    assert find_notebook("01_cost_model.ipynb", root / "learner") == mine
    with pytest.raises(CourseError, match=r"No notebook '02_greedy_speculation.ipynb' in .*learner folder"):
        find_notebook("02_greedy_speculation.ipynb", root)
