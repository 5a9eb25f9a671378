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

from autograder.execute import execute
from autograder.notebooks import nbgrader_meta as meta


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
    return [c for c in nb.cells if c.cell_type == "code" and meta(c).get("grade_id")]


def exercise_tests(cells) -> dict[str, list[str]]:
    """{solution grade_id: the test cells between it and the next solution cell}."""
    out: dict[str, list[str]] = {}
    current = None
    for c in cells:
        m = meta(c)
        if m.get("solution"):
            current = m["grade_id"]
            out[current] = []
        elif m.get("grade") and current is not None:
            out[current].append(m["grade_id"])
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


def run_power(solution: nbformat.NotebookNode, wrong: dict[str, dict[str, str]]) -> PowerReport:
    """Run the reference solutions and every wrong answer of `wrong` (see module docstring)."""
    cells = graded_cells(solution)
    index = {meta(c)["grade_id"]: i for i, c in enumerate(cells)}
    missing = [g for g in wrong if g not in index or not meta(cells[index[g]]).get("solution")]
    if missing:
        raise KeyError(f"wrong implementations name solution cells that do not exist: {missing}")

    def role(c):
        m = meta(c)
        return "solution" if m.get("solution") else "test" if m.get("grade") else "setup"

    program = [_cell(c.source, role(c), meta(c)["grade_id"]) for c in cells]
    for grade_id, bugs in wrong.items():
        start = index[grade_id]
        for bug, source in bugs.items():
            for c in cells[start:]:
                gid = meta(c)["grade_id"]
                text = source if gid == grade_id else c.source
                program.append(_cell(text, role(c), gid, bug=f"{grade_id}/{bug}"))
            program.append(_cell(cells[start].source, "restore", grade_id))
    result = execute(nbformat.v4.new_notebook(cells=program))

    report = PowerReport({}, {}, exercise_tests=exercise_tests(cells), seconds=result.seconds)
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
    return report
