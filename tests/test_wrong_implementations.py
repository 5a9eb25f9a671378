"""The hidden tests have power: every known wrong answer loses points, the reference
solutions keep them all, and handing an exercise to the course library earns nothing.

The wrong answers live in tests/wrong_implementations/chNN.py; each module's comments
record the statistic or the failing case that catches each one. They run through the
fast harness (tests/power.py: only the graded cells, one kernel per chapter); one real
nbgrader autograde per chapter checks that nbgrader scores a wrong answer exactly as
the harness says, and that the solution runs top to bottom under the grader with no
error and nothing on stderr in a test cell.

A chapter's tests share its harness report and its autograde (one of each per chapter,
`_power` and `graded`): each chapter is an `xdist_group`, so they meet on one worker.
"""
import csv
import functools
import importlib

import pytest

from autograder import notebooks
from autograder.grading.grade import find_submissions, grade
from autograder.notebooks import is_grade
from autograder.paths import NbgraderLayout
from tests.helpers import CHAPTERS, replace_solution, solution_nb
from tests.power import exercise_tests, graded_cells, run_power

# One group per chapter keeps a chapter's harness report and autograde on one worker.
BY_CHAPTER = [pytest.param(name, marks=pytest.mark.xdist_group(f"chapter-{name}")) for name in CHAPTERS]
DELEGATION_FORMS = ("delegate_same_object", "delegate_thin_wrapper", "delegate_through_module")


def _module(name):
    try:
        return importlib.import_module(f"tests.wrong_implementations.ch{name[:2]}")
    except ModuleNotFoundError:
        return None


def _wrong(name):
    module = _module(name)
    return module.WRONG if module else {}


def _right(name):
    """chNN.RIGHT: {exercise: {name: source}}, correct answers written another way (a loop where the
    solution is vectorised, the exponential race where it calls multinomial): each keeps full marks."""
    return getattr(_module(name), "RIGHT", {})


RIGHT_PREFIX = "right:"


def _messages(name):
    """chNN.MESSAGES: {"exercise/bug": words the learner must read}, for the misconceptions a test names."""
    return getattr(_module(name), "MESSAGES", {})


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_exercise_keeps_the_three_delegation_forms(name):
    wrong = _wrong(name)
    for exercise in exercise_tests(graded_cells(solution_nb(name))):
        missing = [f for f in DELEGATION_FORMS if f not in wrong.get(exercise, {})]
        assert not missing, (f"{name}: exercise {exercise} has no wrong implementations {missing} in "
                             f"tests/wrong_implementations/ch{name[:2]}.py (use delegation_forms)")


@functools.lru_cache(maxsize=None)
def _power(name):
    """The harness report of every wrong answer of chapter `name`, and of its right answers written
    another way (keyed "right:<name>"), in one run (one per worker and chapter)."""
    answers = {ex: dict(bugs) for ex, bugs in _wrong(name).items()}
    for ex, sources in _right(name).items():
        answers.setdefault(ex, {}).update({RIGHT_PREFIX + key: source for key, source in sources.items()})
    return run_power(solution_nb(name), answers)


def _first_wrong(name):
    """The first wrong answer of the chapter's table that is not a delegation: (exercise, bug, source)."""
    candidates = [(ex, bug, source) for ex, bugs in _wrong(name).items() for bug, source in bugs.items()
                  if not bug.startswith("delegate_")]
    assert candidates, f"{name}: no wrong implementations other than delegation in ch{name[:2]}.py"
    return candidates[0]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """graded(name) -> the grading folder of chapter `name` after one real autograde of two students:
    "solution" (the instructor's notebook) and "wrong" (the first wrong answer of the table)."""
    done = {}

    def run(name):
        if name not in done:
            root = tmp_path_factory.mktemp(f"graded-{name}")
            exercise, _, source = _first_wrong(name)
            for student, nb in {"solution": solution_nb(name),
                                "wrong": replace_solution(solution_nb(name), exercise, source)}.items():
                (root / "subs" / student).mkdir(parents=True)
                notebooks.write(nb, root / "subs" / student / f"{name}.ipynb")
            grade(find_submissions(root / "subs"), root / "grading")
            done[name] = root / "grading"
        return done[name]
    return run


@pytest.mark.slow
@pytest.mark.parametrize("name", BY_CHAPTER)
def test_every_wrong_implementation_loses_points(name):
    report = _power(name)
    print(f"{name}: {len(report.bugs)} wrong answers in {report.seconds:.1f} s")
    assert not report.failures, f"{name}: the reference solution fails test cells: {report.failures}"
    assert report.baseline, f"{name}: no test cells ran"
    uncaught = [f"{ex}/{bug}" for (ex, bug), tests in report.bugs.items()
                if all(tests.values()) and not bug.startswith(RIGHT_PREFIX)]
    refused = {f"{ex}/{bug[len(RIGHT_PREFIX):]}": {t: report.messages[(ex, bug)][t][:300] for t, ok in tests.items() if not ok}
               for (ex, bug), tests in report.bugs.items() if bug.startswith(RIGHT_PREFIX) and not all(tests.values())}
    assert not refused, f"{name}: right answers written another way lose points: {refused}"
    assert not uncaught, f"{name}: wrong implementations that still pass every test: {uncaught}"
    for (ex, bug), tests in report.bugs.items():
        if bug.startswith("delegate_"):
            scored = [t for t in report.exercise_tests[ex] if tests.get(t)]
            assert not scored, f"{name}: {ex}/{bug} hands the exercise to the library yet passes {scored}"
            # A form whose library function has another signature may fail a visible assert
            # first; the learner must still meet the delegation message in some cell of the exercise.
            whys = [report.messages[(ex, bug)][t] for t in report.exercise_tests[ex]]
            assert any("course library" in why for why in whys), (
                f"{name}: {ex}/{bug} fails, but no test cell says it delegates to the library: {whys}")
    for key, words in _messages(name).items():
        ex, bug = key.split("/", 1)
        assert (ex, bug) in report.bugs, f"{name}: MESSAGES names {key}, which is not in WRONG"
        whys = report.messages[(ex, bug)]
        assert any(words in why for why in whys.values()), (
            f"{name}: {key} must meet a message containing {words!r}; its failing cells said: "
            f"{ {t: w for t, w in whys.items() if w} }")


@pytest.mark.slow
@pytest.mark.parametrize("name", BY_CHAPTER)
def test_solution_runs_clean(name, graded):
    """The instructor's notebook, run top to bottom by the grader (hidden tests in, sandboxed as a
    class is graded): no cell raises, no test cell writes to stderr (nbgrader scores that 0)."""
    nb = notebooks.read(NbgraderLayout(graded(name)).autograded("solution", name))
    raised = [(i, f"{o.ename}: {o.evalue}") for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.get("outputs", []) if o.output_type == "error"]
    assert not raised, f"{name}: cells raised: {raised}"
    stderr = [i for i, c in enumerate(nb.cells) if is_grade(c) and c.cell_type == "code"
              and any(o.output_type == "stream" and o.name == "stderr" for o in c.get("outputs", []))]
    assert not stderr, f"{name}: test cells {stderr} wrote to stderr (nbgrader scores that 0)"


@pytest.mark.slow
@pytest.mark.parametrize("name", BY_CHAPTER)
def test_nbgrader_scores_a_wrong_answer_as_the_harness_does(name, graded):
    """One real autograde per chapter: the solution, and the first wrong answer of the table."""
    exercise, bug, _ = _first_wrong(name)
    harness = _power(name).bugs[(exercise, bug)]
    with open(graded(name) / "grades_by_test.csv") as f:
        scores = {(r["student_id"], r["test"]): (float(r["score"]), float(r["max_score"])) for r in csv.DictReader(f)}
    for (student, test), (score, full) in scores.items():
        if student == "solution":
            assert score == full, f"{name}: nbgrader gave the solution {score}/{full} on {test}"
        elif test in harness:
            assert (score == full) == harness[test], (
                f"{name}: for {exercise}/{bug} on {test}, nbgrader gave {score}/{full} but the harness says "
                f"{'pass' if harness[test] else 'fail'}")
