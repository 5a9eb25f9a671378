"""`python -m autograder release` reproduces chapters/ byte for byte."""
import pytest

from autograder.paths import CHAPTERS_DIR
from autograder.authoring.release import release
from tests.helpers import CHAPTERS
from autograder.notebooks import grade_id_of, is_solution, is_test


@pytest.mark.slow
def test_release_reproduces_the_committed_chapters(tmp_path):
    release(out_dir=tmp_path)
    for name in CHAPTERS:
        fresh = (tmp_path / f"{name}.ipynb").read_text()
        committed = (CHAPTERS_DIR / f"{name}.ipynb").read_text()
        assert fresh == committed, (f"chapters/{name}.ipynb is out of date with solutions/: "
                                    f"run `python -m autograder release` and commit the result")


def test_every_test_cell_of_a_learner_copy_lets_run_all_continue():
    """JupyterLab 4's Run All goes on past a failing cell tagged `raises-exception`: every test cell of
    every student notebook has the tag (added at release), and no other cell has it."""
    from autograder.authoring.learner_cells import RAISES
    from tests.helpers import student_nb

    for name in CHAPTERS:
        for cell in student_nb(name).cells:
            tagged = RAISES in cell.get("metadata", {}).get("tags", [])
            assert tagged == is_test(cell), f"{name}: {cell.get('id')} tagged={tagged}"


@pytest.mark.slow
def test_validate_still_fails_an_unsolved_tagged_chapter(tmp_path):
    """The tag changes nothing in grading: nbgrader's Validate lists the failing test cells of an
    unsolved learner copy, and passes once the exercises are solved."""
    from nbgrader.validator import Validator

    from autograder import notebooks
    from tests.helpers import replace_solution, solution_nb, student_nb

    name = "03_acceptance_rule"
    path = tmp_path / f"{name}.ipynb"
    notebooks.write(student_nb(name), path)
    result = Validator().validate(str(path))
    assert len(result.get("failed", [])) == sum(1 for c in student_nb(name).cells if is_test(c))
    solved = student_nb(name)
    for cell in solution_nb(name).cells:
        if is_solution(cell) and cell.cell_type == "code":
            solved = replace_solution(solved, grade_id_of(cell), cell.source)
    notebooks.write(solved, path)
    assert not Validator().validate(str(path)).get("failed")
