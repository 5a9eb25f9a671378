"""`python -m autograder check chapters/NN_slug.ipynb`: a self-check for learners.

Runs your notebook top to bottom on a copy, with the instructor's test cells (visible
and hidden tests) in place of the test cells in your copy, and prints a report per
exercise: points, and for each failing test the message it raised, with the traceback
cut at your own code. The hidden tests' code is never printed, only their messages. Your
file is not modified. It runs the grader's own list of preprocessors
(`autograder.grading.pipeline.SCORE_PREPROCESSORS`: the sandboxed, guarded executor, then
nbgrader's `IgnorePattern`, `ClearMetadataPreprocessor` and `LimitOutput`) with the grader's
configuration, so it scores as grading does by construction; only the source of the test
cells differs (`with_instructor_tests`).

In a student bundle (`python -m autograder bundle`, what a class receives) there are no
hidden tests: the self-check runs the visible ones and says the hidden ones run at grading.

Grades follow nbgrader's rule exactly (`nbgrader.utils.determine_grade`): a test
cell earns its points unless it raises or writes to stderr.
"""
from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .. import notebooks
from ..errors import CourseError
from ..exercises import optional_exercises, split_points
from ..grading.environment import kernel_environment
from ..grading.feedback import notebook_hidden_lines, scrub
from ..grading.pipeline import SCORE_PREPROCESSORS
from ..grading.settings import GradingSettings
from ..grading.submissions import sanitize
from ..paths import chapter_names, in_bundle, reference_notebook_path, resolve_chapter, working_folder
from ..notebooks import grade_id_of, is_grade, is_locked, is_solution

# What runs on the notebook once its test cells are the instructor's: grading's own list.
PREPROCESSORS = tuple(SCORE_PREPROCESSORS)

BUNDLE_NOTE = ("This self-check ran the visible tests only; the hidden tests run when your work is graded, "
               "so full marks here are necessary, not sufficient.")


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass
class TestOutcome:
    grade_id: str
    exercise: str
    points: float
    max_points: float
    message: str          # empty when passed
    optional: bool = False  # an optional exercise's test: reported apart, not in the chapter's total


def with_instructor_tests(learner: nbformat.NotebookNode, solution: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The learner's notebook with every locked/test cell replaced by the instructor's
    version; test cells the learner deleted are put back after the preceding cell."""
    reference = {grade_id_of(c): c for c in solution.cells if grade_id_of(c) and is_locked(c)}
    out = nbformat.from_dict(learner)
    seen = set()
    cells = []
    for cell in out.cells:
        gid = grade_id_of(cell)
        if gid in reference and gid not in seen:
            cells.append(nbformat.from_dict(reference[gid]))
            seen.add(gid)
        elif gid not in reference:
            cells.append(cell)
    # Put back missing reference cells right after the cell that precedes them in the solution.
    order = [grade_id_of(c) for c in solution.cells]
    for gid in [g for g in order if g in reference and g not in seen]:
        prev_ids = order[:order.index(gid)]
        pos = len(cells)
        for i, cell in enumerate(cells):
            if grade_id_of(cell) in prev_ids:
                pos = i + 1
        cells.insert(pos, nbformat.from_dict(reference[gid]))
    out.cells = cells
    return out


def identify_chapter(path: Path, learner: nbformat.NotebookNode) -> str:
    """The chapter a learner's notebook belongs to: by file name, else by its exercise ids
    (so a renamed copy such as `my_try.ipynb` still works)."""
    try:
        return resolve_chapter(path.stem)
    except CourseError:
        pass
    ids = {grade_id_of(c) for c in learner.cells} - {None}
    best, best_overlap = None, 0
    for name in chapter_names():
        sol = notebooks.read(reference_notebook_path(name))
        overlap = len(ids & {grade_id_of(c) for c in sol.cells})
        if overlap > best_overlap:
            best, best_overlap = name, overlap
    if best is None:
        raise CourseError(f"{path} has no exercises of any chapter; is it a course notebook?")
    return best


def _failure_message(cell) -> str:
    """What went wrong in a (scrubbed) test cell: the error with your own frames, or the stderr text."""
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            if output.ename == "KernelDied":
                return output.evalue
            if output.ename == "NotImplementedError":
                return "not attempted yet (the exercise still raises NotImplementedError)"
            text = "\n".join(output.get("traceback", [])) or f"{output.ename}: {output.evalue}"
            return _ANSI.sub("", text).strip()
        if output.output_type == "stream" and output.name == "stderr":
            return "the cell wrote to stderr (nbgrader scores that as a failure):\n" + output.text.strip()[:800]
    return ""


def self_check_settings(timeout: int = 120) -> GradingSettings:
    """The grading settings of a self-check: a learner's own machine, so nothing to warn about."""
    return GradingSettings(cell_timeout=timeout, warn_unisolated=False)


def run_check(path: Path, timeout: int = 120) -> tuple[list[TestOutcome], float]:
    from nbgrader.utils import determine_grade

    from ..grading.pipeline import load_config, run_preprocessors

    path = Path(path)
    learner = notebooks.read(path)
    chapter = identify_chapter(path, learner)
    solution = notebooks.read(reference_notebook_path(chapter))
    learner, _ = sanitize(learner, solution)      # cells copied from another chapter become ordinary
    nb = with_instructor_tests(learner, solution)
    hidden = notebook_hidden_lines(solution)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="course-check-") as tmp:
        # The grader's own preprocessors and configuration (sandbox, guarded test cells, timeouts,
        # restarts after a hang or a crash, ignored stderr patterns, capped output).
        config = load_config(self_check_settings(timeout))
        with kernel_environment():
            nb, _ = run_preprocessors(nb, {"metadata": {"path": tmp}}, config, PREPROCESSORS)
    elapsed = time.perf_counter() - start
    scrub(nb, hidden)             # no hidden test code in what we print, whatever printed it
    outcomes = []
    exercise = "setup"
    optional = optional_exercises(solution)
    for cell in nb.cells:
        if is_solution(cell):
            exercise = (grade_id_of(cell) or exercise)
        if is_grade(cell) and cell.cell_type == "code":
            score, max_score = determine_grade(cell)
            outcomes.append(TestOutcome(grade_id_of(cell), exercise, float(score or 0), float(max_score),
                                        "" if score == max_score else _failure_message(cell),
                                        optional=exercise in optional))
    return outcomes, elapsed


def exercise_points(outcomes: list[TestOutcome]) -> dict[str, tuple[float, float]]:
    """{exercise: (points, max points)} in notebook order."""
    points: dict[str, tuple[float, float]] = {}
    for o in outcomes:
        got, best = points.get(o.exercise, (0.0, 0.0))
        points[o.exercise] = (got + o.points, best + o.max_points)
    return points


def optional_of(outcomes: list[TestOutcome]) -> set[str]:
    return {o.exercise for o in outcomes if o.optional}


def format_report(outcomes: list[TestOutcome], elapsed: float, name: str) -> str:
    """Points per exercise, each failing test's message, and the total of the required exercises;
    optional exercises are marked and totalled apart (they never change the chapter's total)."""
    lines = [f"Self-check of {name} ({elapsed:.0f} s)", ""]
    points, optional = exercise_points(outcomes), optional_of(outcomes)
    (total, total_max), (extra, extra_max) = split_points(points, optional)
    current = None
    for o in outcomes:
        if o.exercise != current:
            current = o.exercise
            got, best = points[current]
            mark = " (optional)" if current in optional else ""
            lines.append(f"{current.removeprefix('ex_')}{mark}: {got:g} / {best:g}")
        mark = "PASS" if not o.message else "FAIL"
        lines.append(f"  [{mark}] {o.grade_id} ({o.points:g}/{o.max_points:g})")
        if o.message:
            lines.extend("         " + ln for ln in o.message.splitlines()[:25])
    lines += ["", f"Total: {total:g} / {total_max:g}"]
    if optional:
        names = ", ".join(e.removeprefix("ex_") for e in points if e in optional)
        lines.append(f"Optional, not in the total: {extra:g} / {extra_max:g} ({names})")
    return "\n".join(lines)


def _record(path: Path, outcomes: list[TestOutcome]) -> str:
    """Add the result to the learner's progress log, the file `python -m autograder progress` reads
    (`progress.log_path`: one rule for both, wherever the notebook is); say where it went."""
    from .. import progress

    log = progress.log_path()
    try:
        chapter = identify_chapter(path, notebooks.read(path))
        progress.record_check(chapter, outcomes, log)
    except (OSError, CourseError) as err:
        return f"Not recorded in the progress log ({err})."      # a read-only folder must not break the check
    if log is None:
        return f"Not recorded: this run keeps no progress log ({progress.describe(log)})."
    return f"Recorded in your progress log: {log} (`python -m autograder progress` shows it)."


def find_notebook(name: str, cwd: Path | None = None) -> Path:
    """The notebook a learner means by `name`: a path as given, else a chapter named by its file name
    or number (`01_cost_model.ipynb`, `01_cost_model`, `01`, `1`) in the learner's folder seen from
    `cwd` (its `learner/` from the course's root, where JupyterLab's terminal may open; `cwd` itself
    elsewhere). A name that finds nothing gets a sentence saying where it looked."""
    cwd = Path.cwd() if cwd is None else cwd
    given = cwd / name
    if given.is_file():
        return given
    folder = working_folder(cwd)
    candidates = [folder / name, folder / f"{name}.ipynb"]
    try:
        candidates.append(folder / f"{resolve_chapter(name)}.ipynb")
    except CourseError:
        pass
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    places = f"{cwd}" if folder == cwd else f"{cwd} or in your learner folder, {folder}"
    raise CourseError(f"No notebook {name!r} in {places}. Name a chapter by its file "
                      f"(python -m autograder check learner/01_cost_model.ipynb) or its number (check 01).")


def main(args) -> int:
    status = 0
    for name in args.notebooks:
        path = find_notebook(name)
        outcomes, elapsed = run_check(path, timeout=args.timeout)
        print(format_report(outcomes, elapsed, Path(path).name))
        print(_record(Path(path), outcomes))
        if in_bundle():
            print(BUNDLE_NOTE)
        if any(o.message for o in outcomes):
            status = 1
    return status
