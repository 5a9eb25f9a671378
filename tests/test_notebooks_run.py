"""Every solution notebook runs top to bottom; every student notebook fails only in its test cells."""
import pytest

from autograder.authoring.execute import execute
from autograder.paths import CHAPTERS_DIR, SOLUTIONS_DIR
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
def test_solution_runs_clean(name):
    result = execute(SOLUTIONS_DIR / f"{name}.ipynb")
    assert not result.errors, f"{name}: cells raised: {result.errors}"
    graded_stderr = [i for i in result.stderr_cells() if is_grade(result.notebook.cells[i])]
    assert not graded_stderr, f"{name}: test cells {graded_stderr} wrote to stderr (nbgrader scores that 0)"
    print(f"{name}: {result.seconds:.1f} s")


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
