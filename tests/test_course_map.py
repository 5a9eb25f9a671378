"""One course map (autograder.course_map): every list of the course's exercises and drills shows the
same ones, with the same numbers and names, in the order of the chapter; every chapter's goals are
found; the cell roles the map reads are nbgrader's."""
import argparse
import itertools
import json
import re

import nbformat
import pytest
from nbgrader import utils as nbgrader_utils

from autograder import notebooks
from autograder.course_map import course_map, exercise_list, goals, numeric_drills, read_chapter
from autograder.paths import DRILLS_CHAPTER
from tests.helpers import CHAPTERS, solution_nb, student_nb

COURSE = course_map()


def test_the_map_has_every_chapter_in_order():
    assert [c.name for c in COURSE] == CHAPTERS


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_chapter_s_goals_are_found(name):
    """The start page shows a chapter's learning goals only when its first cell has them as
    docs/AUTHORING.md says: `**Learning goals.**`, then a numbered list."""
    first = solution_nb(name).cells[0].source
    assert first.count("**Learning goals.**") == 1, f"{name}: the first cell needs one '**Learning goals.**'"
    found = goals(first)
    listed = re.findall(r"^\s*(\d+)\.\s", first[first.index("**Learning goals.**"):], re.M)
    assert len(found) >= 2 and [str(i) for i in range(1, len(found) + 1)] == listed[:len(found)], (name, found)
    assert all(g and not g.startswith(("1.", "2.")) for g in found), found
    assert goals(student_nb(name).cells[0].source) == found                       # the learner's copy too


@pytest.mark.parametrize("name", CHAPTERS)
def test_exercises_are_numbered_in_the_chapter_s_order(name):
    chapter = next(c for c in COURSE if c.name == name)
    assert chapter.exercises, f"{name} has no exercise"
    number = str(int(name[:2]))
    assert [e.number for e in chapter.exercises] == [f"{number}.{k}" for k in range(1, len(chapter.exercises) + 1)]
    assert all(e.names and e.points > 0 and e.tests for e in chapter.exercises), chapter.exercises
    # The learner's copy (what the book shows and a bundle reads) gives the same map.
    student = read_chapter(name, student_nb(name))
    assert [(e.number, e.names, e.grade_id, e.kinds) for e in student.exercises] == \
        [(e.number, e.names, e.grade_id, e.kinds) for e in chapter.exercises]


def test_chapter_13_s_exercises_are_the_drills_drill_accepts(tmp_path, capsys):
    from autograder.learner.coding_drills import load_drills
    from autograder.learner.drill import drill_main

    drills = next(c for c in COURSE if c.name == DRILLS_CHAPTER).exercises
    assert [e.drill for e in drills] == list(load_drills())
    assert all(e.names == (e.drill,) for e in drills)
    args = argparse.Namespace(list=True, folder=str(tmp_path), name=None, answer=None, hints=False)
    assert drill_main(args) == 0
    listed = [ln.split()[0] for ln in capsys.readouterr().out.splitlines() if ln.startswith("  ")]
    assert listed == [e.drill for e in drills] + numeric_drills()


def test_the_start_page_and_the_book_list_the_map(tmp_path, monkeypatch):
    from autograder import progress
    from autograder.learner.start import start_notebook
    from book.build import start_page

    monkeypatch.delenv(progress.ENV_VAR, raising=False)
    page = "\n".join(c.source for c in start_notebook(tmp_path).cells)
    book = start_page([(name, student_nb(name)) for name in CHAPTERS])
    for chapter in COURSE:
        assert f"]({chapter.name}.ipynb) | {exercise_list(chapter)} |" in page, chapter.name
        assert f"]({chapter.name}.ipynb) | {exercise_list(chapter)} |" in book, chapter.name
        for goal in chapter.goals:
            assert f"- {goal}" in page


def test_the_optional_exercises_are_read_once():
    from autograder.exercises import optional_exercises

    for chapter in COURSE:
        assert optional_exercises(solution_nb(chapter.name)) == {e.grade_id for e in chapter.exercises if e.optional}


# ---------------------------------------------------------------- cell roles, as nbgrader defines them
def _cell(flags):
    """A code cell with these nbgrader flags (None: the key left out; flags None: no nbgrader metadata)."""
    if flags is None:
        return nbformat.v4.new_code_cell("x = 1")
    meta = {key: value for key, value in zip(("grade", "solution", "locked"), flags) if value is not None}
    return nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": meta})


ROLES = ("is_grade", "is_solution", "is_locked")


@pytest.mark.parametrize("flags", [None] + list(itertools.product((True, False, None), repeat=3)))
def test_cell_roles_are_nbgrader_s(flags):
    cell = _cell(flags)
    for role in ROLES:
        want = bool(getattr(nbgrader_utils, role)(cell))
        assert getattr(notebooks, role)(cell) is want, (role, flags)
        assert getattr(notebooks, role)(json.loads(json.dumps(cell))) is want, (role, flags, "as a dict")


def test_cell_roles_agree_with_nbgrader_on_every_cell_of_the_course():
    for name in CHAPTERS:
        for nb in (solution_nb(name), student_nb(name)):
            for cell in nb.cells:
                for role in ROLES:
                    assert getattr(notebooks, role)(cell) is bool(getattr(nbgrader_utils, role)(cell)), (name, role)


def test_the_start_page_s_progress_is_in_chapter_order_and_wraps_between_words(tmp_path):
    """The log keeps grade ids, sorted; the start page's progress cell shows the exercises as the map
    numbers and names them, in the chapter's order, as HTML whose lines wrap between words (JupyterLab
    prints text in a `<pre>` with `word-break: break-all`, which cut 'against' into 'aga inst')."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    from autograder import progress
    from autograder.learner.start import show_progress

    log = tmp_path / progress.LOG_NAME
    progress.append({"type": "check", "chapter": "10_cache_rollback", "optional": ["ex_shared_blocks"],
                     "exercises": {"ex_gather_branch": [5, 5], "ex_reserve_trim": [6, 6],
                                   "ex_rollback_after_round": [0, 4], "ex_shared_blocks": [0, 6]}}, log)
    InteractiveShell.instance()
    try:
        with capture_output() as shown:
            show_progress(tmp_path)
    finally:
        InteractiveShell.clear_instance()
    page = shown.outputs[0].data["text/html"]
    assert page.startswith('<pre style="white-space: pre-wrap; word-break: normal;'), page[:80]
    text = shown.outputs[0].data["text/plain"]
    order = ["10.1 reserve + trim", "10.2 rollback_after_round", "10.3 gather_branch",
             "10.4 trim_shared + copy_on_write (optional, not counted) 0/6"]
    assert [text.index(label) for label in order] == sorted(text.index(label) for label in order), text
    assert "ex_" not in text and "reserve_trim" not in text
