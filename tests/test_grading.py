"""The real nbgrader pipeline grades a class: full, partial and zero marks, and it survives bad submissions."""
import csv
import json

import nbformat
import pytest

from autograder import notebooks
from autograder.errors import CourseError
from autograder.grading.grade import find_submissions, grade
from tests.helpers import CHAPTERS, solution_nb, student_nb
from autograder.notebooks import grade_id_of, is_solution

pytestmark = pytest.mark.slow

FIRST = CHAPTERS[0]


def _rows(out):
    with open(out / "grades.csv") as f:
        return {r["student_id"]: r for r in csv.DictReader(f)}


def test_grade_a_class_of_chapter_one(tmp_path):
    subs = tmp_path / "subs"
    sol, stub = solution_nb(FIRST), student_nb(FIRST)
    # partial: the solution with its first exercise put back to the stub.
    first_ex = next(c for c in stub.cells if is_solution(c))
    partial = nbformat.from_dict(sol)
    for cell in partial.cells:
        if grade_id_of(cell) == grade_id_of(first_ex):
            cell.source = first_ex.source
    # killer: kills its own kernel in the last exercise.
    last_ex = [c for c in sol.cells if is_solution(c)][-1]
    killer = nbformat.from_dict(sol)
    for cell in killer.cells:
        if grade_id_of(cell) == grade_id_of(last_ex):
            cell.source = "import os\nos._exit(1)"
    for student, nb in {"correct": sol, "partial": partial, "empty": stub, "killer": killer}.items():
        (subs / student).mkdir(parents=True)
        notebooks.write(nb, subs / student / f"{FIRST}.ipynb")
    (subs / "broken").mkdir()
    (subs / "broken" / f"{FIRST}.ipynb").write_text('{"cells": [')
    before = {p: p.read_bytes() for p in subs.rglob("*.ipynb")}

    out = tmp_path / "grading"
    grade(find_submissions(subs), out)
    rows = _rows(out)
    full = float(rows["correct"]["max_score"])
    assert float(rows["correct"]["score"]) == full > 0
    # A correct submission is graded with nothing to report: no review flag, no repair, no note.
    assert (rows["correct"]["status"], rows["correct"]["notes"], rows["correct"]["review"]) == ("graded", "", ""), \
        rows["correct"]
    assert 0 < float(rows["partial"]["score"]) < full
    assert float(rows["empty"]["score"]) == 0
    assert float(rows["broken"]["score"]) == 0 and "not a readable notebook" in rows["broken"]["status"]
    assert "Error" not in rows["broken"]["status"], rows["broken"]["status"]
    # The kernel dies in the last exercise: the exercises before it keep their points.
    assert 0 < float(rows["killer"]["score"]) < full
    assert rows["killer"]["status"].startswith("graded; the kernel died"), rows["killer"]["status"]
    assert (out / "feedback" / "correct" / FIRST / f"{FIRST}.html").exists()
    assert (out / "nbgrader_grades.csv").exists()
    with open(out / "grades_by_test.csv") as f:
        per_test = list(csv.DictReader(f))
    assert {r["student_id"] for r in per_test} == {"correct", "partial", "empty", "killer"}
    # Grading never touches the submissions themselves.
    assert before == {p: p.read_bytes() for p in subs.rglob("*.ipynb")}


def test_one_file_per_student_layout_needs_the_chapter(tmp_path):
    notebooks.write(student_nb(FIRST), tmp_path / "ana maria.ipynb")
    with pytest.raises(CourseError):
        find_submissions(tmp_path)
    (sub,) = find_submissions(tmp_path, FIRST)
    assert sub.student == "ana_maria" and sub.chapter == FIRST


def test_a_hanging_submission_is_interrupted_and_the_rest_still_counts(tmp_path):
    sol = solution_nb(FIRST)
    last_ex = [c for c in sol.cells if is_solution(c)][-1]
    hang = nbformat.from_dict(sol)
    for cell in hang.cells:
        if grade_id_of(cell) == grade_id_of(last_ex):
            cell.source = "while True:\n    pass"
    (tmp_path / "subs" / "looper").mkdir(parents=True)
    notebooks.write(hang, tmp_path / "subs" / "looper" / f"{FIRST}.ipynb")
    (result,) = grade(find_submissions(tmp_path / "subs"), tmp_path / "grading", cell_timeout=5)
    # The loop is interrupted after 5 s; the exercises before it keep their points.
    assert result.status.startswith("graded; a cell ran past the time limit"), result.status
    assert 0 < result.score < result.max_score
