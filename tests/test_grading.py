"""The real nbgrader pipeline grades a class: full, partial and zero marks, and it survives bad submissions.

Every submission is what a student hands in: the learner copy, answers typed into its stubs, run and
saved as JupyterLab saves it (`tests.submissions`), with the course's own Check my work cell."""
import csv

import pytest

from autograder import notebooks
from autograder.errors import CourseError
from autograder.grading.grade import find_submissions
from autograder.grading.statuses import is_sentence
from autograder.paths import NbgraderLayout
from tests.graded_class import CHAPTER_ONE_CLASS, FIRST, ROSTER, TIMES
from tests.helpers import solution_nb, student_nb


@pytest.mark.slow
@pytest.mark.xdist_group(CHAPTER_ONE_CLASS)
def test_grade_a_class_of_chapter_one(chapter_one_class):
    rows, out = chapter_one_class.rows(), chapter_one_class.out
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
    assert "chapter 03's exercises" in rows["wrong_chapter"]["status"], rows["wrong_chapter"]
    # The roster's student who handed in nothing has a row: 0 of the chapter's points, "no submission".
    assert (rows["absent"]["score"], rows["absent"]["max_score"], rows["absent"]["status"]) == ("0", rows["correct"]["max_score"], "no submission")
    # The kernel dies in the last exercise: the exercises before it keep their points.
    assert 0 < float(rows["killer"]["score"]) < full
    assert rows["killer"]["status"].startswith("graded; the kernel died"), rows["killer"]["status"]
    # The cell that killed it says so, with no count (whether the dying kernel sent one is a race).
    killed = [c for c in notebooks.read(NbgraderLayout(out).autograded("killer", FIRST)).cells
              if any(o.get("ename") == "KernelDied" for o in c.get("outputs", []))]
    assert len(killed) == 1 and killed[0].execution_count is None, [c.execution_count for c in killed]
    assert all(is_sentence(r["status"]) for r in rows.values()), [r["status"] for r in rows.values()]
    assert (out / "feedback" / "correct" / FIRST / f"{FIRST}.html").exists()
    assert (out / "nbgrader_grades.csv").exists()
    with open(out / "grades_by_test.csv") as f:
        per_test = list(csv.DictReader(f))
    assert {r["student_id"] for r in per_test} == {"copier", "correct", "partial", "empty", "killer", "looper"}
    # Grading never touches the submissions themselves.
    assert chapter_one_class.before == {p: p.read_bytes() for p in chapter_one_class.subs.rglob("*.ipynb")}


@pytest.mark.slow
@pytest.mark.xdist_group(CHAPTER_ONE_CLASS)
def test_an_answer_copied_from_the_library_keeps_its_points_and_is_named_for_review(chapter_one_class):
    """1.1 handed in as specdec/cost_model.py's t_pass and _check_sizes, renamed and one line changed: the tests
    pass it (full marks), and the review column names both library functions; the correct class keeps none."""
    rows = chapter_one_class.rows()
    copier = rows["copier"]
    assert (copier["status"], copier["score"]) == ("graded", rows["correct"]["max_score"]), copier
    review = copier["review"].split(" | ")
    assert [r.split(" lightly")[0] for r in review] == [
        "ex_t_pass: check_sizes is the course library's _check_sizes (specdec.cost_model)",
        "ex_t_pass: t_pass is the course library's t_pass (specdec.cost_model)"], review
    assert not any(rows[s]["review"] for s in ("correct", "partial", "looper")), rows      # (killer's os._exit is listed)


@pytest.mark.slow
@pytest.mark.xdist_group(CHAPTER_ONE_CLASS)
def test_every_row_keeps_its_submission_time_and_late_work_is_marked(chapter_one_class):
    rows = chapter_one_class.rows()
    assert (rows["correct"]["submitted_at"], rows["correct"]["late"]) == (TIMES["correct"], "late by 1 h 30 min")
    assert (rows["partial"]["submitted_at"], rows["partial"]["late"]) == (TIMES["partial"], "on time")
    assert (rows["empty"]["submitted_at"], rows["empty"]["late"]) == ("", "")
    # The gradebook keeps the time too (formgrader and nbgrader's export show it), and lists the whole class.
    with open(chapter_one_class.out / "nbgrader_grades.csv") as f:
        exported = {r["student_id"]: r for r in csv.DictReader(f)}
    assert exported["correct"]["timestamp"].startswith("2026-12-01 13:30:00"), exported["correct"]
    assert set(ROSTER) <= set(exported), sorted(exported)


def test_a_roster_names_the_class_and_a_deadline_must_be_a_time(tmp_path):
    from autograder.grading.grade import check_deadline, missing_rows, Result

    with pytest.raises(CourseError, match="not a time"):
        check_deadline("friday")
    rows = missing_rows([Result("ann", FIRST, 4.0, 6.0, "graded")], ["ann", "ben"], [FIRST], {FIRST: (6.0, 0.0)})
    assert [(r.student, r.score, r.max_score, r.status) for r in rows] == [("ben", 0.0, 6.0, "no submission")]


def test_one_file_per_student_layout_needs_the_chapter(tmp_path):
    notebooks.write(student_nb(FIRST), tmp_path / "ana maria.ipynb")
    with pytest.raises(CourseError):
        find_submissions(tmp_path)
    (sub,) = find_submissions(tmp_path, FIRST)
    assert sub.student == "ana_maria" and sub.chapter == FIRST


@pytest.mark.slow
@pytest.mark.xdist_group(CHAPTER_ONE_CLASS)
def test_a_hanging_submission_is_interrupted_and_the_rest_still_counts(chapter_one_class):
    looper = chapter_one_class.rows()["looper"]
    # The loop in the last exercise is interrupted at the cell limit; the exercises before it keep their points.
    assert looper["status"].startswith("graded; a cell ran past the time limit"), looper["status"]
    assert 0 < float(looper["score"]) < float(looper["max_score"]), looper


def test_optional_exercises_are_counted_apart_in_grades_csv(tmp_path):
    """grades.csv totals the required exercises, as the learner's reports do; an optional exercise's
    points (chapter 10's 10.4) are the last two columns, never in score, max_score or percent."""
    from autograder.exercises import optional_exercises, optional_tests
    from autograder.grading.grade import GRADES_CSV, Result, _max_points, _write_csvs

    source = solution_nb("10_cache_rollback")
    points = _max_points(source)
    optional = {t: points[t] for t in optional_tests(source)}
    assert optional_exercises(source) and optional, "chapter 10 lost its optional exercise 10.4"
    assert optional_exercises(solution_nb("11_pytorch_verifier")) == {"ex_ragged_verify"}   # docs/instructors.md names both
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
