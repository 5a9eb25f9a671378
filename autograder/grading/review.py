"""Flag student cells that reach for the grader's internals, for an instructor to review.

Nothing here changes a score: the grader lists, in the `review` column of `grades.csv`,
each line of a student's own cells (solution cells and cells they added) that touches
IPython's transformers or events, `sys.modules`, frames and `linecache`, the kernel's
input history, `/proc`, the course's `autograder` package, the gradebook, or that
swallows interrupts. Most such lines are innocent; a human decides. The cells the course itself
put in the learner copy are not the student's and are never flagged: the cells `release` adds to
every chapter (the Check my work cell imports `autograder`; `authoring.learner_cells.is_learner_cell`)
and the chapter's own ordinary cells (a demonstration that imports `autograder.stats`), each
recognized by its exact text, so a line a student adds to one makes it the student's cell.

    >>> suspicious_lines("def f(x):\\n    return x\\nget_ipython().input_transformers_post.append(g)")
    ['line 3: get_ipython().input_transformers_post.append(g)']
    >>> suspicious_lines("import numpy as np\\nnp.allclose = lambda *a, **k: True")
    ['line 2: np.allclose = lambda *a, **k: True']
"""
from __future__ import annotations

import re

from ..notebooks import grade_id_of, is_locked, is_solution

PATTERNS = [
    r"get_ipython", r"input_transformer", r"ast_transformers", r"\.events\b", r"sys\.modules",
    r"linecache", r"\binspect\b", r"_getframe", r"\bf_back\b", r"\bf_globals\b", r"\bf_locals\b", r"\bIn\s*\[",
    r"\b_ih\b", r"\b_i\d*\b", r"/proc\b", r"\bautograder\b", r"gradebook", r"__code__", r"settrace",
    r"setprofile", r"\bbuiltins\b", r"__builtins__", r"\bgc\.", r"\bctypes\b", r"\bsubprocess\b",
    r"os\.(fork|kill|system|exec|spawn|setsid|_exit)", r"\bsignal\.", r"KeyboardInterrupt", r"BaseException",
    r"^\s*except\s*:", r"\bnp\.\w+(\.\w+)*\s*=[^=]", r"\bnumpy\.\w+(\.\w+)*\s*=[^=]", r"\bsetattr\s*\(",
    r"\bimportlib\b", r"\bsqlite", r"\bsocket\b", r"\.\./", r"\bglobals\s*\(\s*\)\s*\[", r"sys\.std(err|out)\s*=",
]
_RE = re.compile("|".join(f"(?:{p})" for p in PATTERNS))


def suspicious_lines(source: str) -> list[str]:
    """'line N: text' for each line of `source` that matches a pattern above."""
    out = []
    for n, line in enumerate(source.splitlines(), 1):
        if _RE.search(line) and not line.lstrip().startswith("#"):
            out.append(f"line {n}: {line.strip()[:120]}")
    return out


def _text(cell) -> str:
    source = cell.get("source", "")
    return ("".join(source) if isinstance(source, list) else source).strip()


def review_notebook(nb, reference=None) -> list[str]:
    """'cell: line N: text' for the student's own code cells of a notebook: not the locked ones, not
    the ones the course put in the learner copy (those `release` adds, and, given the chapter's
    instructor notebook `reference`, a copy of one of its ordinary code cells)."""
    from ..authoring.learner_cells import is_learner_cell

    course_cells = set()
    if reference is not None:
        course_cells = {_text(c) for c in reference.cells if c.cell_type == "code" and not is_solution(c)}
    notes = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if is_locked(cell) or is_learner_cell(cell):
            continue
        if not is_solution(cell) and _text(cell) in course_cells:
            continue
        where = grade_id_of(cell) if is_solution(cell) else f"cell {index}"
        notes += [f"{where} {hit}" for hit in suspicious_lines(cell.source)]
    return notes
