"""nbgrader's Execute preprocessor, made to survive (and contain) any student notebook.

Used by `grade` (through `nbgrader_config.py`) and by the learner's self-check, both through
the one list in `pipeline.py`, so both score a notebook the same way; its limits come from
`GradingSettings` (the `settings` trait). `ResilientExecute` says how it handles the sandbox, the
test environment, timeouts, hung or dead kernels and long output; what an instructor sees of it is
in docs/instructors.md, section "3. Grade", and docs/threat-model.md.
"""
from __future__ import annotations

import ast
import copy
import re
import time
from dataclasses import dataclass, field, replace

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Instance, Integer

from ..notebooks import grade_id_of, is_grade, is_locked, is_solution
from .outputs import cap_outputs, error_output, merge_streams
from .sandbox import SandboxedKernelManager, default_hidden
from .settings import GradingSettings

_INTEGRITY = "__import__('autograder.integrity', fromlist=['_'])."
STDERR_RULE = ("Note: this test cell wrote to stderr, and a test cell with output on stderr scores 0 "
               "(nbgrader's rule). Output your own code prints, warnings included, does not count against "
               "you; this came from below Python (a library printing directly) or from the test itself.")


def _names(source: str) -> set[str]:
    """The names a cell's code reads and does not bind itself (not the words of its strings);
    every identifier-like word when it is not plain Python (an IPython magic).

    >>> sorted(_names("for B, k in cases:\\n    f(B, k, t_W, msg='B=1')"))
    ['cases', 'f', 't_W']
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(re.findall(r"[A-Za-z_]\w*", source))
    # A name the cell binds itself (`for T_bar, B, want in ...`) does not need the earlier value.
    names = [n for n in ast.walk(tree) if isinstance(n, ast.Name)]
    return {n.id for n in names if isinstance(n.ctx, ast.Load)} - {n.id for n in names if isinstance(n.ctx, ast.Store)}


@dataclass
class ExecutionRecord:
    """What happened while one notebook ran: one line per incident (a timeout, a dead kernel, a
    repaired test environment), the repairs per cell, and why the run failed (if it did)."""

    incidents: list[str] = field(default_factory=list)
    repairs: list[tuple[str, list[str]]] = field(default_factory=list)     # (cell, what was undone)
    failure: str | None = None


_RECORDS: list[ExecutionRecord] = []


def take_records() -> list[ExecutionRecord]:
    """The records of the notebooks executed in this process since the last call (oldest first)."""
    out = list(_RECORDS)
    _RECORDS.clear()
    return out


class ResilientExecute(Execute):
    """Execute every cell in a sandboxed, guarded kernel:

    * **Sandbox.** Each kernel runs in a bubblewrap sandbox with memory and CPU limits
      (`sandbox.SandboxedKernelManager`); without bubblewrap it says loudly that it is not
      isolated.
    * **Honest tests.** Before every locked cell (the instructor's setup and test code) the
      kernel is repaired: IPython's input/AST transformers and event hooks, the test helpers,
      numpy and the names the instructor's cells defined are put back (`integrity`). During
      a test, what the student's code writes to stderr is shown on stdout, never fatal. What
      had to be repaired, and every timeout and crash, is kept as data in an `ExecutionRecord`
      (`self.record`, and `take_records()` for the grading worker), which the grader puts in
      the notes and review columns.
    * **Timeouts are timeouts.** A cell that runs past the limit is interrupted and gets a
      `TimeoutError` output (not `KeyboardInterrupt`); later test cells of the same exercise
      fail at once instead of each waiting for the limit again.
    * **A kernel that will not stop, or dies, is replaced.** If the interrupt is ignored (a
      loop inside a bare `except:`) or the kernel dies (`os._exit`, a crash, out of memory),
      a fresh kernel is started and the instructor's setup cells and the student's solution
      cells before that point are run again (without the culprit), so the rest of the notebook
      is still graded. After `max_restarts` the remaining cells are marked "not run".
    * **Bounded output.** Each cell's outputs are capped in bytes (`max_cell_output_bytes`),
      keeping the beginning and the end of long text.
    """

    settings = Instance(GradingSettings, args=(), help="timeout, limits, hidden folders, isolation").tag(config=True)
    sandbox = Bool(True, help="run kernels in a bubblewrap sandbox (falls back loudly)").tag(config=True)
    guard = Bool(True, help="repair the kernel before each locked cell (integrity)").tag(config=True)
    max_restarts = Integer(3, help="fresh kernels per notebook after a hang or a crash").tag(config=True)
    max_cell_output_bytes = Integer(100_000, help="output kept per cell, in bytes").tag(config=True)

    # ---- kernel --------------------------------------------------------------------------
    def create_kernel_manager(self):
        if not self.sandbox:
            return super().create_kernel_manager()
        policy = replace(self.settings, hide=(*default_hidden(), *self.settings.hide))
        manager_class = type("GradingKernelManager", (SandboxedKernelManager,), {"policy": policy})
        self.km = manager_class(kernel_name=self.kernel_name or "python3", config=self.config)
        return self.km

    async def _async_handle_timeout(self, timeout, cell=None):
        self._timed_out_now = True
        return await super()._async_handle_timeout(timeout, cell)

    def _kernel_eval(self, expr: str, timeout: float = 30.0):
        """Evaluate `expr` in the kernel as a user expression (no input transformers, no events);
        return its repr, or None if the kernel did not answer in time."""
        msg_id = self.kc.execute("", silent=True, store_history=False, user_expressions={"r": expr})
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                msg = self._run(self.kc.shell_channel.get_msg(timeout=left))
            except Exception:
                return None
            if msg["parent_header"].get("msg_id") == msg_id:
                result = msg["content"].get("user_expressions", {}).get("r", {})
                if result.get("status") == "ok":
                    return result.get("data", {}).get("text/plain")
                return None

    def _run(self, awaitable):
        from jupyter_core.utils import ensure_async, run_sync

        async def wrapper():
            return await ensure_async(awaitable)
        return run_sync(wrapper)()

    def _install_guard(self) -> None:
        if self.guard and not self._guard_installed:
            self._kernel_eval(_INTEGRITY + "install()", timeout=120)
            self._guard_installed = True

    def _fresh_kernel(self) -> None:
        try:
            self._cleanup_kernel()
        except Exception:   # the old kernel may be dead or stuck: it is killed either way
            self.km = self.kc = None
        self.km = self.create_kernel_manager()
        self.start_new_kernel()
        self.start_new_kernel_client()
        self._guard_installed = False

    def _restart_and_replay(self, upto: int) -> bool:
        """A fresh kernel with the state of cells [0, upto) rebuilt; False if that failed."""
        self._restarts += 1
        if self._restarts > self.max_restarts:
            self._gave_up = f"not run: the grader restarted the kernel {self.max_restarts} times and stopped"
            return False
        try:
            self._fresh_kernel()
            self._install_guard()
            for j, cell in enumerate(self.nb.cells[:upto]):
                wanted = is_solution(cell) or (is_locked(cell) and not is_grade(cell))
                if cell.cell_type != "code" or not wanted or j in self._bad_cells or not cell.source.strip():
                    continue
                replay = copy.deepcopy(cell)
                self._timed_out_now = False
                self._guarded(replay, j, lambda c=replay, i=j: Execute.execute_cell(self, c, i, store_history=False))
                if self._timed_out_now:
                    self._gave_up = f"not run: cell {j} hung again when the grader re-ran it after a restart"
                    return False
        except (DeadKernelError, CellTimeoutError, RuntimeError) as exc:
            self._gave_up = f"not run: the kernel could not be restarted ({type(exc).__name__})"
            return False
        return True

    def _guarded(self, cell, index, run):
        """Run `run()` for `cell`, repairing the kernel around locked cells."""
        locked = is_locked(cell)
        graded = is_grade(cell)
        repairs = []
        if self.guard and locked:
            self._install_guard()
            uses = sorted(_names(cell.source))
            text = self._kernel_eval(_INTEGRITY + f"before_locked({graded}, {uses!r})")
            try:
                repairs = ast.literal_eval(text) if text else []
            except (ValueError, SyntaxError):
                repairs = ["the grader's integrity check did not answer normally"]
        result = run()
        if self.guard and locked:
            self._kernel_eval(_INTEGRITY + "after_locked()")
        if repairs:
            name = (grade_id_of(cell) or f"cell {index}")
            self.record.repairs.append((name, repairs))
        return result, repairs

    # ---- notebook and cells --------------------------------------------------------------
    def preprocess(self, nb, resources=None, km=None):
        self._restarts = 0
        self._gave_up: str | None = None
        self._bad_cells: set[int] = set()
        self._timed_out_exercises: dict[str, int] = {}
        self._exercise: str | None = None
        self._guard_installed = False
        self.timeout = self.settings.cell_timeout
        self.record = ExecutionRecord()
        _RECORDS.append(self.record)
        try:
            return super().preprocess(nb, resources, km)
        except DeadKernelError as exc:
            # Raised again while shutting a dead kernel down: the cells are already marked.
            if not (self._bad_cells or self._gave_up):
                self.record.failure = f"{type(exc).__name__}: {str(exc)[:200]}"
                raise
            return self.nb, self.resources
        except Exception as exc:
            self.record.failure = f"{type(exc).__name__}: {str(exc)[:200]}"
            raise

    def _incident(self, cell, text: str) -> None:
        self.record.incidents.append(f"{grade_id_of(cell) or 'a cell'}: {text}")

    def _failed(self, cell, ename: str, evalue: str) -> NotebookNode:
        """An error output for `cell`, recorded as an incident."""
        self._incident(cell, f"{ename}: {evalue[:160]}")
        return error_output(ename, evalue)

    def preprocess_cell(self, cell, resources, index):
        """Run one cell as nbgrader would, then contain what went wrong: a cell that cannot run
        (an earlier failure) scores 0 at once, a dead kernel is restarted, a hung cell is stopped,
        and the outputs are merged, annotated and capped."""
        if cell.cell_type != "code":
            return cell, resources
        if is_solution(cell):
            self._exercise = grade_id_of(cell)
        skipped = self._not_run(cell)
        if skipped is not None:
            cell.outputs = [skipped]
            return cell, self.resources
        self._timed_out_now = False
        unresponsive, repairs = False, []
        try:
            (cell, resources), repairs = self._guarded(
                cell, index, lambda: Execute.preprocess_cell(self, cell, resources, index))
        except CellTimeoutError:
            unresponsive = True                # interrupted, but it kept running (interrupts ignored)
        except DeadKernelError:
            self._bad_cells.add(index)
            # Whether the kernel announced the cell's count before it died is a race: no count, so a
            # class's feedback is the same page on every run (and on a Dask cluster as locally).
            cell.execution_count = None
            cell.outputs.append(self._failed(cell, "KernelDied", "this cell killed the Python kernel (os._exit, a crash, "
                                                           "or running out of memory); the grader started a new "
                                                           "kernel and graded the rest"))
            self._restart_and_replay(index)
            return cell, self.resources
        timed_out = self._stop_timed_out(cell, index, unresponsive) if self._timed_out_now or unresponsive else None
        cell.outputs = merge_streams(cell.outputs)          # the same page whatever the flush timing
        self._annotate(cell, repairs, timed_out)
        return cell, self.resources

    def _not_run(self, cell) -> NotebookNode | None:
        """The error output of a cell that must not run (the grader gave up, or an earlier cell of
        its exercise timed out, so it would too), or None."""
        if self._gave_up:
            return self._failed(cell, "KernelDied", self._gave_up)
        if is_grade(cell) and self._exercise in self._timed_out_exercises:
            return self._failed(cell, "TimeoutError", (
                f"not run: an earlier cell of this exercise ({self._exercise}) ran past the {self.timeout} s "
                f"limit, so this test would too; it scores 0 without waiting"))
        return None

    def _stop_timed_out(self, cell, index, unresponsive: bool) -> NotebookNode:
        """Replace a timed-out cell's interrupt traceback by one TimeoutError; restart the kernel
        when the cell ignored the interrupt or the kernel no longer answers."""
        self._bad_cells.add(index)
        self._timed_out_exercises.setdefault(self._exercise or f"cell {index}", index)
        cell.outputs = [o for o in cell.get("outputs", []) if not (
            o.get("output_type") == "error" and o.get("ename") in ("KeyboardInterrupt", "CellTimeoutError"))]
        how = ("; it ignored the interrupt, so the grader started a new kernel and graded the rest"
               if unresponsive else "")
        timed_out = error_output("TimeoutError", f"this cell ran longer than the {self.timeout} s "
                                                 f"limit and was stopped{how}")
        cell.outputs.append(timed_out)
        if unresponsive or self._kernel_eval("1", timeout=10) is None:
            self._restart_and_replay(index)
        return timed_out

    def _annotate(self, cell, repairs: list[str], timed_out: NotebookNode | None) -> None:
        """What the learner reads with the outputs: the repairs made before the cell, the stderr
        rule of a test cell that wrote to stderr, and the output cap; each also an incident."""
        if repairs:
            text = ("Before this cell the grader undid changes made to the test environment:\n  - "
                    + "\n  - ".join(repairs[:10]) + "\n")
            cell.outputs.insert(0, NotebookNode(output_type="stream", name="stdout", text=text))
            self._incident(cell, " ".join(text.split())[:300])
        if timed_out is not None:
            self._incident(cell, f"{timed_out.ename}: {timed_out.evalue[:160]}")
        if is_grade(cell) and any(o.get("output_type") == "stream" and o.get("name") == "stderr"
                                  for o in cell.outputs) \
                and not any(o.get("output_type") == "error" for o in cell.outputs):
            cell.outputs.append(NotebookNode(output_type="stream", name="stdout", text=STDERR_RULE + "\n"))
        cap_outputs(cell, self.max_cell_output_bytes)
        if any("bytes of output cut]" in str(o.get("text", "")) for o in cell.get("outputs", [])):
            self._incident(cell, f"OutputCut: over {self.max_cell_output_bytes:,} bytes of output; the middle was cut")
