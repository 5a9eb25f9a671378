"""The fast harness that proves hidden tests have power: every wrong answer of a chapter,
run against only what its tests need, in one kernel per chapter.

A whole-chapter autograde per wrong answer re-runs every simulation and plot of the
chapter to exercise one test cell. Here we build one notebook per chapter from the
solution's nbgrader cells only (setup cells, solution cells, test cells, in notebook
order), run it once with the reference solutions, and then, for each wrong answer,
replay the graded part of the chapter from that exercise's solution cell onwards with the
wrong source in its place (the other solutions stay correct), and finally put the right
solution back. A test cell fails, as in nbgrader, when it raises or writes to stderr.

The nbgrader cells must therefore be self-sufficient: a test cell may use what setup
cells, solution cells and earlier test cells define, never an ordinary expository cell.
One end-to-end nbgrader autograde per chapter (tests/test_wrong_implementations.py)
checks that this harness and nbgrader agree.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import nbformat

from autograder.authoring.execute import execute
from autograder.notebooks import grade_id_of, is_grade, is_solution


@dataclass
class PowerReport:
    baseline: dict[str, bool]                                          # test grade_id -> passed
    failures: dict[str, str]                                           # test grade_id -> why (baseline)
    bugs: dict[tuple[str, str], dict[str, bool]] = field(default_factory=dict)   # (exercise, bug) -> tests
    messages: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    exercise_tests: dict[str, list[str]] = field(default_factory=dict)  # exercise -> its test cells
    seconds: float = 0.0


def graded_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The nbgrader code cells of a notebook (setup, solution, tests), in order."""
    return [c for c in nb.cells if c.cell_type == "code" and grade_id_of(c)]


def exercise_tests(cells) -> dict[str, list[str]]:
    """{solution grade_id: the test cells between it and the next solution cell}."""
    out: dict[str, list[str]] = {}
    current = None
    for c in cells:
        if is_solution(c):
            current = grade_id_of(c)
            out[current] = []
        elif is_grade(c) and current is not None:
            out[current].append(grade_id_of(c))
    return out


def _cell(source: str, role: str, grade_id: str, bug: str | None = None) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["power"] = {"role": role, "grade_id": grade_id, "bug": bug}
    return cell


def _verdict(cell) -> tuple[bool, str]:
    for out in cell.get("outputs", []):
        if out.output_type == "error":
            return False, f"{out.ename}: {out.evalue}"[:400]
    for out in cell.get("outputs", []):
        if out.output_type == "stream" and out.name == "stderr":
            return False, f"wrote to stderr: {out.text[:200]!r}"
    return True, ""


def _replay(cells, index, wrong, upto_next_exercise: bool) -> list[nbformat.NotebookNode]:
    """Synthetic cells: the graded cells once with the solutions, then each wrong answer's replay."""
    def role(c):
        return "solution" if is_solution(c) else "test" if is_grade(c) else "setup"

    solutions = [i for i, c in enumerate(cells) if is_solution(c)]
    program = [_cell(c.source, role(c), grade_id_of(c)) for c in cells]
    for grade_id, bugs in wrong.items():
        start = index[grade_id]
        stop = next((i for i in solutions if i > start), len(cells)) if upto_next_exercise else len(cells)
        for bug, source in bugs.items():
            for c in cells[start:stop]:
                gid = grade_id_of(c)
                program.append(_cell(source if gid == grade_id else c.source, role(c), gid, bug=f"{grade_id}/{bug}"))
            program.append(_cell(cells[start].source, "restore", grade_id))
    return program


def run_power(solution: nbformat.NotebookNode, wrong: dict[str, dict[str, str]]) -> PowerReport:
    """Run the reference solutions and every wrong answer of `wrong` (see module docstring).

    Two passes keep it cheap: first each wrong answer meets only its own exercise's tests;
    only the answers that pass all of those are replayed through the rest of the chapter
    (later exercises may build on this one)."""
    cells = graded_cells(solution)
    index = {grade_id_of(c): i for i, c in enumerate(cells)}
    missing = [g for g in wrong if g not in index or not is_solution(cells[index[g]])]
    if missing:
        raise KeyError(f"wrong implementations name solution cells that do not exist: {missing}")

    report = PowerReport({}, {}, exercise_tests=exercise_tests(cells))
    todo, full_replay = wrong, False
    while todo:
        result = execute(nbformat.v4.new_notebook(cells=_replay(cells, index, todo, not full_replay)))
        report.seconds += result.seconds
        for cell in result.notebook.cells:
            tag = cell.metadata["power"]
            if tag["role"] != "test":
                continue
            passed, why = _verdict(cell)
            if tag["bug"] is None:
                report.baseline[tag["grade_id"]] = passed
                if not passed:
                    report.failures[tag["grade_id"]] = why
            else:
                key = tuple(tag["bug"].split("/", 1))
                report.bugs.setdefault(key, {})[tag["grade_id"]] = passed
                report.messages.setdefault(key, {})[tag["grade_id"]] = why
        if full_replay:
            break
        survivors: dict[str, dict[str, str]] = {}
        for (ex, bug), tests in report.bugs.items():
            if all(tests.values()):
                survivors.setdefault(ex, {})[bug] = wrong[ex][bug]
        todo, full_replay = survivors, True
    return report
