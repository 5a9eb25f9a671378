"""What `release` adds to every student notebook, so that every chapter works the same way in JupyterLab:
test cells tagged `raises-exception`, a note on checking your work after the title, and a **Check my
work** button as the last cell (docs/ARCHITECTURE.md, section "From solutions/ to a learner's
copy"). Added by construction, so a new chapter gets them with no authoring step, and solution
notebooks (the single source) stay free of them; `is_learner_cell` recognizes them in a submission.

    >>> from autograder.notebooks import new_notebook, new_markdown, new_code
    >>> nb = new_notebook([new_markdown("# 01 · T"), new_code("assert True", nbgrader={"grade": True,
    ...     "solution": False, "grade_id": "t", "points": 1, "locked": True})])
    >>> nb = add_learner_cells(nb, "01_t")
    >>> [c.metadata.get("tags") for c in nb.cells]
    [None, None, ['raises-exception'], ['remove-cell'], ['remove-cell']]
    >>> [is_learner_cell(c) for c in nb.cells]
    [False, True, False, True, True]
    >>> nb.cells[-1].source += "\\nimport ctypes"
    >>> is_learner_cell(nb.cells[-1])
    False
"""
from __future__ import annotations

import re

import nbformat

from ..notebooks import is_test

# JupyterLab 4's Run All keeps going past a failing cell with this tag (it sends `stop_on_error: false`
# for it), so a learner who has not solved the exercises yet still sees every figure and widget below
# them. It changes nothing in grading: a test cell scores by its outputs (an error output scores 0) in
# nbgrader's autograde, in `python -m autograder check` (which takes the test cells from the
# instructor's notebook anyway) and in nbgrader's Validate.
RAISES = "raises-exception"
CHECK_NOTE_MARK = "**How to check your work.**"
CHECK_CELL_MARK = "from autograder.learner.notebook_check import check_button"

CHECK_NOTE = (CHECK_NOTE_MARK + " Write your answer in an exercise cell, run it, and run the test cells below it "
              "(the visible tests). To score the whole chapter as grading does, save the notebook "
              "(**Ctrl+S**) and press **Check my work** in the last cell of this notebook: it runs the same "
              "checks as `python -m autograder check` on the saved file and shows, per exercise, your points "
              "and the message of each failing test, and it records the result in your progress log. "
              "*Run All* runs the whole chapter: a test that fails (an exercise not solved yet) shows its "
              "error and the run goes on, so every figure and widget below still appears.")


CHECK_HEADING = "## Check my work"
_CHAPTER_ARG = re.compile(r"""check_button\((['"])([^'"\\]*)\1\)\s*$""")


def check_cell_source(chapter: str) -> str:
    return ("# Check my work: save first (Ctrl+S), then press the button. It grades the saved notebook as\n"
            "# `python -m autograder check` does and records the result in your progress log.\n"
            f"{CHECK_CELL_MARK}\n\ncheck_button({chapter!r})")


def add_learner_cells(nb: nbformat.NotebookNode, chapter: str) -> nbformat.NotebookNode:
    """Return `nb` with its test cells tagged, the note after the first cell and the check cell (under a
    heading) at the end. Idempotent: a notebook that has them is returned unchanged. The check cell
    and its heading are tagged `remove-cell`, so the book (a static website) leaves them out."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if is_test(cell):
            tags = list(cell.metadata.get("tags", []))
            if RAISES not in tags:
                cell.metadata["tags"] = tags + [RAISES]
    if not any(c.cell_type == "markdown" and CHECK_NOTE_MARK in c.source for c in nb.cells):
        nb.cells.insert(min(1, len(nb.cells)), nbformat.v4.new_markdown_cell(CHECK_NOTE))
    if not any(c.cell_type == "code" and CHECK_CELL_MARK in c.source for c in nb.cells):
        nb.cells.append(nbformat.v4.new_markdown_cell(CHECK_HEADING, metadata={"tags": ["remove-cell"]}))
        nb.cells.append(nbformat.v4.new_code_cell(check_cell_source(chapter), metadata={"tags": ["remove-cell"]}))
    return nb


def is_learner_cell(cell) -> bool:
    """True for a cell `add_learner_cells` puts in every learner copy (the how-to note, the Check my
    work heading and cell), recognized by its exact text (trailing blank lines aside), whatever
    its chapter and metadata. The grader's review scan skips these; a student's own line added to
    the check cell makes it a student's cell again."""
    source = cell.get("source", "")
    source = ("".join(source) if isinstance(source, list) else source).strip()
    if cell.get("cell_type") == "markdown":
        return source in (CHECK_NOTE, CHECK_HEADING)
    if cell.get("cell_type") != "code":
        return False
    match = _CHAPTER_ARG.search(source)
    return bool(match) and source == check_cell_source(match.group(2))
