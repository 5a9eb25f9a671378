"""Submissions as students make them: the learner copy, answers typed into its stubs, run, saved.

A student opens `learner/NN_slug.ipynb` (a copy of `chapters/NN_slug.ipynb`, made by `learn`), types
an answer where a stub says `raise NotImplementedError`, runs the notebook and saves it. What the
grader receives is that file, which is not the instructor's notebook: it carries the cells the course
put in the learner copy (the how-to note, the Check my work cell, `raises-exception` tags on the test
cells), only the visible tests, and what JupyterLab 4 writes when it saves: nbformat 4.5 with the
cell ids of the copy, the kernelspec and the kernel's full `language_info`, execution counts and the
outputs a run leaves (streams merged as JupyterLab's output area merges them, no timing metadata,
no widget state: JupyterLab's defaults). Grading and hostile tests submit these, so that what is
tested is what a class hands in.

    learner_submission("03_acceptance_rule")                  # every exercise answered, run, saved
    learner_submission("03_acceptance_rule", run=False)       # typed and saved without running
    learner_copy("03_acceptance_rule")                        # opened and saved, nothing answered
    replace_solution(nb, "ex_tv", "def tv(p, q):\\n    return 0")   # (tests.helpers) one answer retyped
    write_submission(nb, subs / "ana" / "03_acceptance_rule.ipynb")   # saved byte for byte, outputs kept

The answers typed are the instructor's solutions with nbgrader's markers removed, typed into the
stub of each exercise cell (`type_answer`); a learner copy that is not the stub of the solutions
fails loudly. Runs are cached per process and per chapter content.
"""
from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

import nbformat

from autograder import notebooks
from autograder.notebooks import grade_id_of, is_solution
from autograder.paths import CHAPTERS_DIR, SOLUTIONS_DIR

_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n?", re.M)
_BLOCK = re.compile(r"^[ \t]*### BEGIN SOLUTION[ \t]*\n(.*?)^[ \t]*### END SOLUTION[ \t]*$", re.M | re.S)
_STUB = re.compile(r"^([ \t]*)# YOUR CODE HERE\n\1raise NotImplementedError\(.*\)[ \t]*$", re.M)
_MD_STUB = "YOUR ANSWER HERE"


def answer_text(solution_source: str) -> str:
    """What a student types in the end: the solution cell without nbgrader's markers."""
    return _MARKER.sub("", solution_source).rstrip("\n")


def type_answer(stub: str, solution_source: str) -> str:
    """The stub with each `# YOUR CODE HERE / raise NotImplementedError(...)` replaced by the
    corresponding block of the solution (its own indentation kept), as a student types it."""
    blocks = [b.rstrip("\n") for b in _BLOCK.findall(solution_source)]
    if not blocks:                                   # a markdown answer, or a cell that is all answer
        return answer_text(solution_source)
    stubs = list(_STUB.finditer(stub))
    if len(stubs) != len(blocks):
        raise ValueError(f"the stub has {len(stubs)} places to type an answer, the solution {len(blocks)} blocks")
    out, at = [], 0
    for match, block in zip(stubs, blocks):
        out += [stub[at:match.start()], block]
        at = match.end()
    typed = "".join(out) + stub[at:]
    if typed.rstrip("\n") != answer_text(solution_source):
        raise ValueError("the learner copy's stub is not the stub of the solution (regenerate chapters/)")
    return typed


def learner_copy(chapter: str, chapters_dir: Path = CHAPTERS_DIR) -> nbformat.NotebookNode:
    """The learner copy of `chapter` as `learn` makes it, nothing typed (a student who only saved it)."""
    from autograder.learner.learn import with_kernel_metadata

    return with_kernel_metadata(notebooks.read(Path(chapters_dir) / f"{chapter}.ipynb"))


def typed_learner_copy(chapter: str, chapters_dir: Path = CHAPTERS_DIR,
                       solutions_dir: Path = SOLUTIONS_DIR) -> nbformat.NotebookNode:
    """The learner copy of `chapter` with every exercise answered (not run)."""
    copy = learner_copy(chapter, chapters_dir)
    solutions = {grade_id_of(c): c.source for c in notebooks.read(Path(solutions_dir) / f"{chapter}.ipynb").cells
                 if is_solution(c)}
    for cell in copy.cells:
        grade_id = grade_id_of(cell)
        if is_solution(cell) and grade_id in solutions:
            if cell.cell_type == "markdown" and _MD_STUB not in cell.source:
                continue
            cell.source = type_answer(cell.source, solutions[grade_id])
    return copy


def _digest(chapter: str) -> str:
    h = hashlib.sha256()
    for folder in (CHAPTERS_DIR, SOLUTIONS_DIR):
        h.update((Path(folder) / f"{chapter}.ipynb").read_bytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def _run(chapter: str, digest: str) -> str:
    """Run All in a fresh kernel, as JupyterLab 4 runs it (test cells tagged raises-exception go on
    past an error), and return the file JupyterLab would save."""
    import tempfile

    from nbclient import NotebookClient

    from autograder.grading.environment import QUIET_KERNEL, kernel_environment

    nb = typed_learner_copy(chapter)
    with kernel_environment(), tempfile.TemporaryDirectory(prefix="course-learner-run-") as tmp:
        NotebookClient(nb, timeout=600, kernel_name="python3", extra_arguments=QUIET_KERNEL,
                       allow_errors=False, record_timing=False, coalesce_streams=True,
                       resources={"metadata": {"path": tmp}}).execute()
    return save_as_jupyterlab(nb)


def save_as_jupyterlab(nb: nbformat.NotebookNode) -> str:
    """The text JupyterLab 4 writes for `nb`: nbformat 4.5 through nbformat's writer (what the
    Jupyter server uses), cell ids kept, no widget state and no timing (JupyterLab's defaults)."""
    nb = nbformat.from_dict(nb)
    nb.nbformat, nb.nbformat_minor = 4, 5
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.validate(nb)
    return nbformat.writes(nb, version=4) + "\n"


def learner_submission(chapter: str, run: bool = True) -> nbformat.NotebookNode:
    """The learner copy of `chapter` with every exercise answered and, unless `run=False`, run top to
    bottom and saved as JupyterLab saves it."""
    if not run:
        return nbformat.reads(save_as_jupyterlab(typed_learner_copy(chapter)), as_version=4)
    return nbformat.reads(_run(chapter, _digest(chapter)), as_version=4)


def write_submission(nb: nbformat.NotebookNode, path: Path) -> Path:
    """Save `nb` at `path` byte for byte as JupyterLab would (not normalized: outputs and counts kept)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(save_as_jupyterlab(nb), encoding="utf-8")
    return path
