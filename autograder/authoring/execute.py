"""`python -m autograder execute NOTEBOOK...`: run notebooks top to bottom and time them.

Used by the test suite (every solution notebook must run without an error) and by the
benchmark script (every chapter must run in under a minute on a 2-core laptop).
"""
from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from .. import notebooks
from ..grading.environment import QUIET_KERNEL, kernel_environment


@dataclass
class Execution:
    notebook: nbformat.NotebookNode     # with outputs
    seconds: float
    errors: list[tuple[int, str]]       # (cell index, "Ename: message") for cells that raised

    def stderr_cells(self) -> list[int]:
        return [i for i, c in enumerate(self.notebook.cells) if c.cell_type == "code"
                and any(o.output_type == "stream" and o.name == "stderr" for o in c.get("outputs", []))]


def execute(nb: nbformat.NotebookNode | str | Path, timeout: int = 300, allow_errors: bool = True) -> Execution:
    """Execute a notebook (a node or a path) in a fresh kernel in a scratch folder."""
    if not isinstance(nb, nbformat.NotebookNode):
        nb = notebooks.read(nb)
    nb = nbformat.from_dict(nb)
    start = time.perf_counter()
    with kernel_environment(), tempfile.TemporaryDirectory(prefix="course-exec-") as tmp:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", extra_arguments=QUIET_KERNEL,
                       allow_errors=allow_errors, resources={"metadata": {"path": tmp}}).execute()
    seconds = time.perf_counter() - start
    errors = [(i, f"{o.ename}: {o.evalue}") for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.get("outputs", []) if o.output_type == "error"]
    return Execution(nb, seconds, errors)


def main(args) -> int:
    status = 0
    for path in args.notebooks:
        result = execute(Path(path))
        flag = "ok" if not result.errors else f"{len(result.errors)} failing cells"
        print(f"{Path(path).name:<40} {result.seconds:6.1f} s  {flag}")
        for index, message in result.errors:
            print(f"    cell {index}: {message[:300]}")
        if result.errors:
            status = 1
        if args.save:
            out = Path(args.save) / Path(path).name
            out.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(result.notebook, str(out))
    return status
