"""The real nbgrader pipeline grades a class: full, partial and zero marks, and it survives bad submissions.

Every submission is what a student hands in: the learner copy, answers typed into its stubs, run and
saved as JupyterLab saves it (`tests.submissions`), with the course's own Check my work cell."""
import csv
import json

import pytest

from autograder import notebooks
from autograder.errors import CourseError
from autograder.grading.grade import find_submissions, grade
from tests.helpers import CHAPTERS, replace_solution, solution_nb, student_nb
from tests.submissions import learner_copy, learner_submission, write_submission
from autograder.notebooks import grade_id_of, is_solution


FIRST = CHAPTERS[0]


def _rows(out):
    with open(out / "grades.csv") as f:
        return {r["student_id"]: r for r in csv.DictReader(f)}


def _exercises(nb):
    return [c for c in nb.cells if is_solution(c)]


@pytest.mark.slow
def test_grade_a_class_of_chapter_one(tmp_path):
    subs = tmp_path / "subs"
    done, stub = learner_submission(FIRST), learner_copy(FIRST)
    # partial: the first exercise left as the stub it came with.
    first_ex = _exercises(stub)[0]
    partial = replace_solution(done, grade_id_of(first_ex), first_ex.source)
    # killer: kills its own kernel in the last exercise.
    killer = replace_solution(done, grade_id_of(_exercises(done)[-1]), "import os\nos._exit(1)")
    for student, nb in {"correct": done, "partial": partial, "empty": stub, "killer": killer}.items():
        write_submission(nb, subs / student / f"{FIRST}.ipynb")
    (subs / "broken").mkdir()
    (subs / "broken" / f"{FIRST}.ipynb").write_text('{"cells": [')
    before = {p: p.read_bytes() for p in subs.rglob("*.ipynb")}

    out = tmp_path / "grading"
    grade(find_submissions(subs), out)
    rows = _rows(out)
    full = float(rows["correct"]["max_score"])
    assert float(rows["correct"]["score"]) == full > 0
    # A correct submission is graded with nothing to report: no review flag (the course's own Check my
    # work cell is not the student's), no repair, no note.
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


@pytest.mark.slow
def test_a_hanging_submission_is_interrupted_and_the_rest_still_counts(tmp_path):
    done = learner_submission(FIRST)
    hang = replace_solution(done, grade_id_of(_exercises(done)[-1]), "while True:\n    pass")
    write_submission(hang, tmp_path / "subs" / "looper" / f"{FIRST}.ipynb")
    (result,) = grade(find_submissions(tmp_path / "subs"), tmp_path / "grading", cell_timeout=5)
    # The loop is interrupted after 5 s; the exercises before it keep their points.
    assert result.status.startswith("graded; a cell ran past the time limit"), result.status
    assert 0 < result.score < result.max_score


def test_optional_exercises_are_counted_apart_in_grades_csv(tmp_path):
    """grades.csv totals the required exercises, as the learner's reports do; an optional exercise's
    points (chapter 10's 10.4) are the last two columns, never in score, max_score or percent."""
    from autograder.exercises import optional_exercises, optional_tests
    from autograder.grading.grade import GRADES_CSV, Result, _max_points, _write_csvs

    source = solution_nb("10_cache_rollback")
    points = _max_points(source)
    optional = {t: points[t] for t in optional_tests(source)}
    assert optional_exercises(source) and optional, "chapter 10 lost its optional exercise 10.4"
    assert optional_exercises(solution_nb("11_pytorch_verifier")) == {"ex_ragged_verify"}   # the README names both
    assert set(optional) < set(points)
    tests = [(t, top if t in optional else 0.0, top) for t, top in points.items()]
    graded = Result("ann", "10_cache_rollback", sum(t[1] for t in tests), sum(points.values()), "graded",
                    tests).optional_apart(optional)
    failed = Result("bob", "10_cache_rollback", 0.0, sum(points.values()), "not graded").optional_apart(optional)
    _write_csvs(tmp_path, [graded, failed])
    with open(tmp_path / GRADES_CSV) as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    required_max = sum(points.values()) - sum(optional.values())
    # Ann solved only the optional exercise: 0 of the required points, all of the optional ones.
    assert (float(rows["ann"]["score"]), float(rows["ann"]["max_score"]), rows["ann"]["percent"]) == (0, required_max, "0.0")
    assert (float(rows["ann"]["optional_score"]), float(rows["ann"]["optional_max"])) == (sum(optional.values()),) * 2
    assert (float(rows["bob"]["max_score"]), float(rows["bob"]["optional_max"])) == (required_max, sum(optional.values()))
