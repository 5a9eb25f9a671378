"""nbgrader's Execute preprocessor, made to survive a cell that kills the kernel.

Stock nbgrader gives up on the whole submission when a student's code kills its kernel
(`os._exit`, a segfault in an extension, running out of memory), so every exercise the
student had already solved scores zero. Here the cell that killed the kernel gets an
error output, every later code cell is marked "not run" (so it scores zero, as it
would have failed anyway without its state), and the cells before it keep the grades
they earned. The autograder's configuration puts this class in place of `Execute`.
"""
from __future__ import annotations

from nbclient.exceptions import DeadKernelError
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute


def _error(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


class ResilientExecute(Execute):
    """Execute every cell; after a kernel death, fail the remaining code cells instead of the notebook."""

    def preprocess(self, nb, resources=None, km=None):
        self._died_in_cell: int | None = None
        try:
            return super().preprocess(nb, resources, km)
        except DeadKernelError:
            # Raised again while shutting the dead kernel down: the cells are already marked.
            if self._died_in_cell is None:
                raise
            return self.nb, self.resources

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        if self._died_in_cell is not None:
            cell.outputs = [_error("KernelDied", f"not run: the kernel died in cell {self._died_in_cell}")]
            return cell, self.resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._died_in_cell = index
            cell.outputs.append(_error("KernelDied", "this cell killed the Python kernel (os._exit, a crash, "
                                                     "or running out of memory)"))
            return cell, self.resources
