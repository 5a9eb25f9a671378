"""The hidden tests have power: every known wrong answer loses points through the real autograder,
the reference solutions get full marks and the empty stubs get zero.

The wrong answers live in tests/wrong_implementations/chNN.py; each module's comments
record the statistic or the failing case that catches each one.
"""
import csv
import importlib

import pytest

from autograder import notebooks
from autograder.grade import find_submissions, grade
from tests.helpers import CHAPTERS, replace_solution, solution_nb, student_nb

pytestmark = pytest.mark.slow


def _wrong(name):
    try:
        module = importlib.import_module(f"tests.wrong_implementations.ch{name[:2]}")
    except ModuleNotFoundError:
        return {}
    return module.WRONG


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_wrong_implementation_loses_points(name, tmp_path):
    wrong = _wrong(name)
    subs = tmp_path / "subs"
    submissions = {"solution": solution_nb(name), "empty": student_nb(name)}
    for grade_id, bugs in wrong.items():
        for bug, source in bugs.items():
            submissions[f"{grade_id}__{bug}"] = replace_solution(solution_nb(name), grade_id, source)
    for student, nb in submissions.items():
        (subs / student).mkdir(parents=True)
        notebooks.write(nb, subs / student / f"{name}.ipynb")
    grade(find_submissions(subs), tmp_path / "grading")
    with open(tmp_path / "grading" / "grades.csv") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    full = float(rows["solution"]["max_score"])
    assert float(rows["solution"]["score"]) == full, f"{name}: the reference solution lost points"
    assert float(rows["empty"]["score"]) == 0, f"{name}: the empty stub earned points"
    uncaught = [s for s in rows if "__" in s and float(rows[s]["score"]) >= full]
    assert not uncaught, f"{name}: wrong implementations that still get full marks: {uncaught}"
    crashed = [s for s in rows if rows[s]["status"] != "graded"]
    assert not crashed, f"{name}: grading failed for {crashed}"
