"""Shared helpers for the notebook and grading tests."""
from __future__ import annotations

import re

import nbformat

from autograder import notebooks
from autograder.notebooks import grade_id_of, is_solution
from autograder.paths import CHAPTERS_DIR, SOLUTIONS_DIR, chapter_names

CHAPTERS = chapter_names()


def solution_nb(name: str) -> nbformat.NotebookNode:
    return notebooks.read(SOLUTIONS_DIR / f"{name}.ipynb")


def student_nb(name: str) -> nbformat.NotebookNode:
    return notebooks.read(CHAPTERS_DIR / f"{name}.ipynb")


def hidden_blocks(source: str) -> list[str]:
    """The text between BEGIN/END HIDDEN TESTS markers of one cell."""
    return re.findall(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", source, flags=re.S)


def replace_solution(nb: nbformat.NotebookNode, grade_id: str, source: str) -> nbformat.NotebookNode:
    """A copy of `nb` whose solution cell `grade_id` holds `source` (a learner's answer)."""
    out = nbformat.from_dict(nb)
    hits = [c for c in out.cells if grade_id_of(c) == grade_id and is_solution(c)]
    if len(hits) != 1:
        raise KeyError(f"no single solution cell {grade_id!r}")
    hits[0].source = source
    return out
