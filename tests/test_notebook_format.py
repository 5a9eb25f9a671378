"""Committed notebooks: normalized, no outputs, chapters in step with solutions, nothing hidden leaks."""
import re

import pytest

from autograder import notebooks
from autograder.paths import CHAPTERS_DIR, SOLUTIONS_DIR
from tests.helpers import CHAPTERS, hidden_blocks, solution_nb, student_nb
from autograder.notebooks import grade_id_of, is_grade, is_solution, nbgrader_meta


def test_there_are_chapters():
    assert len(CHAPTERS) >= 1


def test_chapters_and_solutions_are_the_same_set():
    assert sorted(p.stem for p in CHAPTERS_DIR.glob("*.ipynb")) == CHAPTERS


@pytest.mark.parametrize("path", sorted(SOLUTIONS_DIR.glob("*.ipynb")) + sorted(CHAPTERS_DIR.glob("*.ipynb")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_committed_in_normal_form_without_outputs(path):
    nb = notebooks.read(path)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: outputs committed"
    assert notebooks.is_normalized(path), (
        f"{path} is not normalized: run `python -m autograder release` (it normalizes solutions/ too)")


def _code_lines(source: str) -> list[str]:
    return [ln.rstrip() for ln in source.splitlines() if ln.strip()]


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_solution_or_hidden_test_text_in_student_version(name):
    text = (CHAPTERS_DIR / f"{name}.ipynb").read_text()
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in text
    student = {grade_id_of(c): c for c in student_nb(name).cells if is_grade(c)}
    all_sources = "\n".join(c.source for c in student_nb(name).cells)
    for cell in solution_nb(name).cells:
        if not is_grade(cell):
            continue
        gid = grade_id_of(cell)
        # The student's test cell is the instructor's with every hidden block cut out, nothing more.
        visible = re.sub(r"[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[^\n]*", "", cell.source, flags=re.S)
        assert _code_lines(student[gid].source) == _code_lines(visible), f"{name}/{gid}: student test cell differs"
        for block in hidden_blocks(cell.source):
            assert block.strip() not in all_sources, f"{name}/{gid}: a hidden block leaked"


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_exercise_has_hints_and_graded_tests(name):
    cells = solution_nb(name).cells
    exercises = [i for i, c in enumerate(cells) if is_solution(c)]
    assert exercises, f"{name} has no exercise"
    for n, i in enumerate(exercises):
        end = exercises[n + 1] if n + 1 < len(exercises) else len(cells)
        following = cells[i + 1:end]
        gid = grade_id_of(cells[i])
        hint_cells = [c for c in following if c.cell_type == "markdown" and "<details>" in c.source]
        assert hint_cells and sum(c.source.count("<details>") for c in hint_cells) >= 2, f"{gid}: needs >= 2 hints"
        graded = [c for c in following if is_grade(c)]
        assert graded, f"{gid}: no test cell after the exercise"
        assert any(hidden_blocks(c.source) for c in graded), f"{gid}: no hidden tests"
        assert all(nbgrader_meta(c).get("points", 0) > 0 for c in graded)


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_has_goals_summary_and_reading(name):
    text = "\n".join(c.source for c in solution_nb(name).cells if c.cell_type == "markdown").lower()
    assert re.search(r"learning goals|you will learn|by the end", text), name
    assert "what to remember" in text, name
    assert "further reading" in text, name


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_sys_path_tricks(name):
    for cell in solution_nb(name).cells:
        assert "sys.path" not in cell.source, f"{name}: import the course package instead of editing sys.path"


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_markdown_cell_over_600_words(name):
    # A chapter reads like a book: a long argument is split where its steps are, one idea per cell.
    long = [(i, len(c.source.split()), c.source[:60]) for i, c in enumerate(solution_nb(name).cells)
            if c.cell_type == "markdown" and len(c.source.split()) > 600]
    assert not long, f"{name}: Markdown cells over 600 words (index, words, start): {long}"
