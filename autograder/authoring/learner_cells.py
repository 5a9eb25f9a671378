"""What `release` adds to every student notebook, so that every chapter works the same way in JupyterLab.

* Every test cell is tagged `raises-exception`: JupyterLab 4's Run All then keeps going past a
  failing test (it sends `stop_on_error: false` for such a cell), so a learner who has not solved
  the exercises yet still sees every figure and widget below them. The tag changes nothing in
  grading: a test cell scores by its outputs (an error output scores 0) in nbgrader's autograde,
  in `python -m autograder check` (which takes the test cells from the instructor's notebook
  anyway) and in nbgrader's Validate.
* One note near the top (after the title cell) says how to check your work from the notebook.
* The last cell shows a **Check my work** button (`autograder.learner.notebook_check`), under a
  heading. Both are tagged `remove-cell`, so the book (a static website) leaves them out.

Added by construction, so a new chapter gets them with no authoring step, and solution notebooks
(the single source) stay free of them.

    >>> from autograder.notebooks import new_notebook, new_markdown, new_code
    >>> nb = new_notebook([new_markdown("# 01 · T"), new_code("assert True", nbgrader={"grade": True,
    ...     "solution": False, "grade_id": "t", "points": 1, "locked": True})])
    >>> nb = add_learner_cells(nb, "01_t")
    >>> [c.metadata.get("tags") for c in nb.cells]
    [None, None, ['raises-exception'], ['remove-cell'], ['remove-cell']]
"""
from __future__ import annotations

import nbformat

from ..notebooks import is_test

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


def check_cell_source(chapter: str) -> str:
    return ("# Check my work: save first (Ctrl+S), then press the button. It grades the saved notebook as\n"
            "# `python -m autograder check` does and records the result in your progress log.\n"
            f"{CHECK_CELL_MARK}\n\ncheck_button({chapter!r})")


def add_learner_cells(nb: nbformat.NotebookNode, chapter: str) -> nbformat.NotebookNode:
    """Return `nb` with its test cells tagged, the note after the first cell and the check cell at the end.
    Idempotent: a notebook that has them is returned unchanged."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if is_test(cell):
            tags = list(cell.metadata.get("tags", []))
            if RAISES not in tags:
                cell.metadata["tags"] = tags + [RAISES]
    if not any(c.cell_type == "markdown" and CHECK_NOTE_MARK in c.source for c in nb.cells):
        nb.cells.insert(min(1, len(nb.cells)), nbformat.v4.new_markdown_cell(CHECK_NOTE))
    if not any(c.cell_type == "code" and CHECK_CELL_MARK in c.source for c in nb.cells):
        nb.cells.append(nbformat.v4.new_markdown_cell("## Check my work", metadata={"tags": ["remove-cell"]}))
        nb.cells.append(nbformat.v4.new_code_cell(check_cell_source(chapter), metadata={"tags": ["remove-cell"]}))
    return nb
