"""Reading, normalizing and writing course notebooks.

Every solution notebook and student notebook is committed in one canonical form, so
that a diff shows only what an author changed:

* no outputs and no execution counts;
* notebook metadata reduced to the kernel spec and the language name;
* cell metadata reduced to the keys nbgrader and JupyterLab need
  (`nbgrader`, `deletable`, `editable`, `tags`);
* stable cell ids: the nbgrader `grade_id` where there is one, else a hash of the
  cell's source (so inserting a cell does not renumber every other cell);
* nbformat's JSON (one-space indent, sorted keys, sources split into lines), UTF-8,
  and a final newline.

    >>> nb = new_notebook([new_markdown("# Title"), new_code("x = 1")])
    >>> text = dumps(nb)
    >>> dumps(loads(text)) == text
    True
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
_CELL_METADATA_KEYS = ("nbgrader", "deletable", "editable", "tags")


def new_notebook(cells: list) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return normalize(nb)


def new_markdown(source: str, **metadata) -> nbformat.NotebookNode:
    return new_markdown_cell(source, metadata=metadata)


def new_code(source: str, **metadata) -> nbformat.NotebookNode:
    return new_code_cell(source, metadata=metadata)


def _stable_id(cell, taken: set[str]) -> str:
    grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    base = grade_id if grade_id else hashlib.sha1(
        (cell.cell_type + "\0" + cell.source).encode()).hexdigest()[:12]
    base = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in base)[:56]
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    taken.add(candidate)
    return candidate


def normalize(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return the canonical form of `nb` (see the module docstring). Idempotent."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    nb.nbformat, nb.nbformat_minor = 4, 5
    nb.metadata = nbformat.from_dict({"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}})
    taken: set[str] = set()
    cells = []
    for cell in nb.cells:
        if isinstance(cell.source, list):
            cell.source = "".join(cell.source)
        cell.source = cell.source.rstrip("\n")
        metadata = {k: cell.metadata[k] for k in _CELL_METADATA_KEYS if k in cell.get("metadata", {})}
        if cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(cell.source, metadata=metadata)
        elif cell.cell_type == "markdown":
            new = nbformat.v4.new_markdown_cell(cell.source, metadata=metadata)
            if "attachments" in cell:
                new.attachments = cell.attachments
        else:
            new = nbformat.v4.new_raw_cell(cell.source, metadata=metadata)
        new.id = _stable_id(new, taken)
        cells.append(new)
    nb.cells = cells
    return nb


def dumps(nb: nbformat.NotebookNode) -> str:
    # nbformat's writer splits sources into lists of lines, which keeps diffs line-based.
    return nbformat.writes(normalize(nb), version=4) + "\n"


def loads(text: str) -> nbformat.NotebookNode:
    return nbformat.reads(text, as_version=4)


def read(path: str | Path) -> nbformat.NotebookNode:
    return loads(Path(path).read_text(encoding="utf-8"))


def write(nb: nbformat.NotebookNode, path: str | Path) -> None:
    Path(path).write_text(dumps(nb), encoding="utf-8")


def is_normalized(path: str | Path) -> bool:
    text = Path(path).read_text(encoding="utf-8")
    return dumps(loads(text)) == text


def nbgrader_meta(cell) -> dict:
    """The nbgrader metadata of a cell ({} for an ordinary cell)."""
    return cell.get("metadata", {}).get("nbgrader", {})


# Cell roles, named once and defined as nbgrader's `nbgrader.utils.is_grade` / `is_solution` /
# `is_locked` define them (a grade cell is locked, a solution cell never is): every other module asks
# these instead of reading the metadata itself. Restated, not imported: `import nbgrader` loads its
# server extensions (about 2.5 s of CPU), which `drill`, the start page and a chapter's kernel would
# pay for three lines; tests/test_course_map.py holds them equal to nbgrader's on every cell of the
# course and every combination of the three flags. They take a notebook cell or a plain dict.
def is_grade(cell) -> bool:
    """A cell whose outputs score points (a test cell, or a manually graded answer)."""
    return bool(nbgrader_meta(cell).get("grade", False))


def is_solution(cell) -> bool:
    """A cell the learner writes in (between `### BEGIN SOLUTION` markers in the instructor's copy)."""
    return bool(nbgrader_meta(cell).get("solution", False))


def is_locked(cell) -> bool:
    """A cell nbgrader restores from the instructor's copy before grading (setup, tests, prose):
    never a solution cell, always a grade cell that is not one, else as its `locked` flag says.

        >>> is_locked(new_code("assert True", nbgrader={"grade": True, "solution": False, "locked": False}))
        True
        >>> is_locked(new_code("x = 1", nbgrader={"grade": False, "solution": True, "locked": True}))
        False
    """
    if is_solution(cell):
        return False
    return is_grade(cell) or bool(nbgrader_meta(cell).get("locked", False))


def is_test(cell) -> bool:
    """An autograded test cell: a code cell that scores and that the learner does not write.

        >>> is_test(new_code("assert True", nbgrader={"grade": True, "solution": False, "locked": True}))
        True
        >>> is_test(new_code("def f(): ...", nbgrader={"grade": False, "solution": True}))
        False
    """
    return cell.get("cell_type") == "code" and is_grade(cell) and not is_solution(cell)


def grade_id_of(cell) -> str | None:
    """The nbgrader id of a cell (None for an ordinary cell)."""
    return nbgrader_meta(cell).get("grade_id")


def write_normalized(src: str | Path, dest: str | Path) -> bool:
    """Write the normalized form of the notebook at `src` to `dest`; return True if `dest` changed."""
    text = dumps(read(src))
    dest = Path(dest)
    if dest.exists() and dest.read_text(encoding="utf-8") == text:
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")
    return True
