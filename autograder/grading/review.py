"""Flag student cells that reach for the grader's internals, for an instructor to review.

Nothing here changes a score: the grader lists, in the `review` column of `grades.csv`,
each line of a student's own cells (solution cells and cells they added) that touches
IPython's transformers or events, `sys.modules`, frames and `linecache`, the kernel's
input history, `/proc`, the course's `autograder` package, the gradebook, or that
swallows interrupts. Most such lines are innocent; a human decides.

    >>> suspicious_lines("def f(x):\\n    return x\\nget_ipython().input_transformers_post.append(g)")
    ['line 3: get_ipython().input_transformers_post.append(g)']
    >>> suspicious_lines("import numpy as np\\nnp.allclose = lambda *a, **k: True")
    ['line 2: np.allclose = lambda *a, **k: True']
"""
from __future__ import annotations

import re

from ..notebooks import grade_id_of, is_grade, is_locked, is_solution

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


def review_notebook(nb) -> list[str]:
    """'cell: line N: text' for the student's own code cells of a notebook (not the locked ones)."""
    notes = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if is_locked(cell) or is_grade(cell):
            continue
        where = grade_id_of(cell) if is_solution(cell) else f"cell {index}"
        notes += [f"{where} {hit}" for hit in suspicious_lines(cell.source)]
    return notes
