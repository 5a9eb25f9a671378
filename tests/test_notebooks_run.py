"""Every student notebook fails only in its test cells.

(That every solution notebook runs top to bottom is checked on the run the grader makes of it:
`test_wrong_implementations.py::test_solution_runs_clean`, one execution instead of two.)"""
import pytest

from autograder.paths import CHAPTERS_DIR
from book import executed as executed_runs
from tests.helpers import CHAPTERS
from autograder.notebooks import is_grade

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def short_lab(monkeypatch):
    """Chapter 12's shorter preset (fewer tokens, gammas and repeats): the suite checks that the lab runs,
    the full run's numbers are recorded by benchmarks/lab12_cpu.py."""
    monkeypatch.setenv("SPECDEC_LAB_PRESET", "test")


@pytest.mark.parametrize("name", CHAPTERS)
def test_student_version_fails_exactly_in_test_cells(name):
    # Run as a new reader would (book.executed: empty home and progress log) under the chapter's lock,
    # and kept, so the book shows this very run and a worker building the book never runs it twice.
    # A stored run is reused only while nothing it depends on changed (notebook, library, pins).
    result, _ = executed_runs.executed(CHAPTERS_DIR / f"{name}.ipynb")
    failing = {i for i, _ in result.errors}
    tests = {i for i, c in enumerate(result.notebook.cells) if is_grade(c)}
    assert failing == tests, (
        f"{name}: cells that fail but are not tests: {sorted(failing - tests)}; "
        f"test cells that pass on the empty stub: {sorted(tests - failing)}; errors: {result.errors}")
    for i, message in result.errors:
        assert message.startswith(("NotImplementedError", "AssertionError")), (
            f"{name} cell {i} failed for another reason than the empty stub: {message}")
