"""A control group per grading kernel: a cap on its processes and on its memory, scratch included.

bubblewrap's PID namespace kills a submission's processes when its kernel ends, but does not
limit how many it starts while it runs (a fork bomb fills the machine's process table), and
the kernel's RLIMIT_DATA does not count the files it writes into its in-memory scratch
(`/tmp`, a tmpfs). Where the grader may create cgroups, each kernel gets its own
(`KernelCgroup.create`), entered before bubblewrap starts (`enter_command`); elsewhere
`sandbox.check_sandbox` says plainly that the process limit is NOT enforced. When cgroups are
available, and the limits' defaults: docs/threat-model.md.

    >>> cg = KernelCgroup([], set())          # what a machine without cgroups gets
    >>> cg.enter_command(["python"]), cg.enforces("pids")
    (['python'], False)
"""
from __future__ import annotations

import functools
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
# cgroup v1 file names, and their cgroup v2 equivalents.
_FILES = {"pids": ("pids.max", "pids.max"), "memory": ("memory.limit_in_bytes", "memory.max")}
# Write our own pid into every cgroup.procs given, then become the command (outside the sandbox).
_ENTER = 'while [ "$1" != -- ]; do echo $$ > "$1"; shift; done; shift; exec "$@"'


def _own_dir(controller: str) -> Path | None:
    """The folder of this process's cgroup for `controller` (v1), or its unified cgroup (v2)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            folder = ROOT / controller / path.lstrip("/")
            return folder if folder.is_dir() else None
    for line in lines:
        if line.startswith("0::") and (ROOT / "cgroup.controllers").exists():
            folder = ROOT / line[3:].lstrip("/")
            controllers = (folder / "cgroup.subtree_control").read_text().split() if folder.is_dir() else []
            return folder if controller in controllers else None
    return None


def _limit_file(folder: Path, controller: str) -> Path:
    v1, v2 = _FILES[controller]
    return folder / (v1 if (folder / v1).exists() else v2)


@dataclass
class KernelCgroup:
    """The cgroups (one per controller) a kernel runs in; empty where none could be made."""

    folders: list[Path]
    controllers: set[str]

    @classmethod
    def create(cls, max_processes: int, memory_bytes: int) -> "KernelCgroup":
        """A new cgroup per controller, nested in the grader's, where the grader may create one (root
        on a machine with cgroup v1, as in CI; a delegated cgroup v2 subtree); where none can be made
        (not root, no delegation) one that enforces nothing.

        * `pids.max` = `max_processes` (threads count too): one more fork fails with EAGAIN inside
          the kernel (`BlockingIOError`), the kernel and the batch go on;
        * memory limit = `memory_bytes` (the sandbox passes its memory plus its scratch): the kernel's
          memory and the pages of its scratch tmpfs (a tmpfs is charged to the cgroup of the process
          that writes it) together."""
        folders, made = [], set()
        name = f"course-kernel-{uuid.uuid4().hex[:12]}"
        for controller, value in (("pids", max_processes), ("memory", memory_bytes)):
            parent = _own_dir(controller)
            if value <= 0 or parent is None:
                continue
            folder = parent / name
            try:
                folder.mkdir()
                _limit_file(folder, controller).write_text(str(int(value)))
            except OSError:
                _remove(folder)
                continue
            folders.append(folder)
            made.add(controller)
        return cls(folders, made)

    def enforces(self, controller: str) -> bool:
        return controller in self.controllers

    def enter_command(self, cmd: list[str]) -> list[str]:
        """`cmd` started inside these cgroups (unchanged if there are none): a two-line launcher moves
        itself in first, so every process the kernel ever starts is inside."""
        if not self.folders:
            return cmd
        return ["/bin/sh", "-c", _ENTER, "sh", *[str(f / "cgroup.procs") for f in self.folders], "--", *cmd]

    def remove(self) -> None:
        """Kill whatever still runs in the cgroups, then remove them."""
        for folder in self.folders:
            _remove(folder)
        self.folders, self.controllers = [], set()


def _remove(folder: Path) -> None:
    for _ in range(50):
        if not folder.exists():
            return
        try:
            pids = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
        except OSError:
            pids = []
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            folder.rmdir()
            return
        except OSError:
            time.sleep(0.1)


@functools.lru_cache(maxsize=None)
def available() -> frozenset:
    """The controllers this process can give a kernel ('pids', 'memory'), found by trying."""
    probe = KernelCgroup.create(max_processes=1_000_000, memory_bytes=2**62)
    try:
        return frozenset(probe.controllers)
    finally:
        probe.remove()
