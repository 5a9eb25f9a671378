"""Building blocks for writing solution notebooks with the right nbgrader metadata.

The solution notebooks (`python -m autograder release` input) are the single source of the course; the student
notebooks in `chapters/` are generated from them by `python -m autograder release`.
Authors can edit the `.ipynb` files in JupyterLab (with nbgrader's "Create Assignment"
toolbar) or build cells in Python with these helpers:

    >>> cells = [
    ...     md("## Exercise 1.1: `t_pass`"),
    ...     solution("def t_pass(B, k):\\n    ### BEGIN SOLUTION\\n    return 1.0\\n    ### END SOLUTION", "ex_t_pass"),
    ...     hints("Start from the memory term.", "The compute term is k * B * t_F."),
    ...     tests("assert t_pass(1, 1) == 1.0", "test_t_pass_basic", points=2),
    ... ]
    >>> from autograder.notebooks import grade_id_of
    >>> [grade_id_of(c) for c in cells]
    [None, 'ex_t_pass', None, 'test_t_pass_basic']
"""
from __future__ import annotations

import nbformat

from ..notebooks import new_code, new_markdown

SCHEMA_VERSION = 3


def _nbgrader(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: float | None = None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked,
            "schema_version": SCHEMA_VERSION, "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def md(text: str) -> nbformat.NotebookNode:
    """An ordinary Markdown cell (prose, derivations, figures' captions)."""
    return new_markdown(text.strip("\n"))


def code(source: str) -> nbformat.NotebookNode:
    """An ordinary code cell: an experiment, a figure, a numeric check of a proof."""
    return new_code(source.strip("\n"))


def setup(source: str, grade_id: str) -> nbformat.NotebookNode:
    """A read-only code cell that exercises depend on (imports, `make_models`, ...)."""
    return new_code(source.strip("\n"), nbgrader=_nbgrader(grade_id, grade=False, solution=False, locked=True))


def solution(source: str, grade_id: str) -> nbformat.NotebookNode:
    """The learner's answer cell. Put the reference solution between
    `### BEGIN SOLUTION` and `### END SOLUTION`; nbgrader replaces it by a stub."""
    if "### BEGIN SOLUTION" not in source or "### END SOLUTION" not in source:
        raise ValueError(f"solution cell {grade_id!r} needs ### BEGIN SOLUTION / ### END SOLUTION markers")
    return new_code(source.strip("\n"), nbgrader=_nbgrader(grade_id, grade=False, solution=True, locked=False))


def tests(source: str, grade_id: str, points: float) -> nbformat.NotebookNode:
    """An autograded test cell. Visible asserts first, then optionally hidden ones between
    `### BEGIN HIDDEN TESTS` and `### END HIDDEN TESTS` (removed from the student copy,
    restored by the autograder and by `python -m autograder check`)."""
    return new_code(source.strip("\n"), nbgrader=_nbgrader(grade_id, grade=True, solution=False, locked=True,
                                                           points=points))


def hints(*texts: str) -> nbformat.NotebookNode:
    """Progressive hints, each folded away until the learner clicks it."""
    blocks = []
    for i, text in enumerate(texts, 1):
        blocks.append(f"<details><summary><b>Hint {i}</b> (click to open)</summary>\n\n{text.strip()}\n\n</details>")
    return new_markdown("\n\n".join(blocks))
