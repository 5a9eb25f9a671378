"""A memory and CPU limit per student: one control group each, which their server joins at start.

JupyterHub's `Spawner.mem_limit` and `cpu_limit` are, in its own words, not enforced by
`LocalProcessSpawner`: the spawner must do it. `start` makes, for each student, a cgroup under the
one it runs in (cgroup v1, as here and in CI, or a delegated cgroup v2 subtree, as the grader's
kernels get: `autograder/grading/cgroups.py`), with the memory limit (swap included where the
kernel counts it) and a CPU quota; the hub's spawner writes the new server's pid into them before
it becomes the student (`make_preexec_fn`), so the server and every kernel and terminal it starts
are inside. Past the memory limit the kernel's OOM killer stops the largest process of that
cgroup, the student's kernel, not their server and nobody else's; JupyterLab then says the kernel
died and restarts it. `stop` kills what is left in them and removes them.

    >>> parse_bytes("2G"), parse_bytes("512M"), parse_bytes("1024")
    (2147483648, 536870912, 1024)
    >>> cpu_quota(1.5)
    (150000, 100000)
"""
from __future__ import annotations

from pathlib import Path

from ..grading.cgroups import _own_dir, _remove

PERIOD_US = 100_000
PREFIX = "course-hub-"
_UNITS = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_bytes(text: str) -> int:
    """'2G' -> bytes, as JupyterHub's ByteSpecification reads it (binary units)."""
    text = str(text).strip().upper()
    if text[-1:] in _UNITS:
        return int(float(text[:-1]) * _UNITS[text[-1]])
    return int(text)


def cpu_quota(cpus: float) -> tuple[int, int]:
    """(quota, period) in microseconds for `cpus` cores."""
    return int(cpus * PERIOD_US), PERIOD_US


def _write(folder: Path, names: tuple[str, ...], value: str, required: bool) -> bool:
    for name in names:
        if (folder / name).exists():
            try:
                (folder / name).write_text(value)
                return True
            except OSError:
                if required:
                    raise
    return False


def make(user: str, mem_bytes: int, cpus: float) -> list[str]:
    """The cgroups of `user` (one per controller on cgroup v1, one on v2), limits written; the
    `cgroup.procs` files a process writes its pid into to join them. Empty where none can be made."""
    procs = []
    quota, period = cpu_quota(cpus)
    for controller in ("memory", "cpu"):
        parent = _own_dir(controller)
        if parent is None:
            continue
        folder = parent / f"{PREFIX}{user}"
        try:
            folder.mkdir(exist_ok=True)
            if controller == "memory" and mem_bytes > 0:
                _write(folder, ("memory.limit_in_bytes", "memory.max"), str(mem_bytes), True)
                # No swap beyond the limit where the kernel counts it (v1 with swap accounting, v2).
                _write(folder, ("memory.memsw.limit_in_bytes",), str(mem_bytes), False)
                _write(folder, ("memory.swap.max",), "0", False)
            if controller == "cpu" and cpus > 0:
                if (folder / "cpu.max").exists():
                    _write(folder, ("cpu.max",), f"{quota} {period}", True)
                else:
                    _write(folder, ("cpu.cfs_period_us",), str(period), True)
                    _write(folder, ("cpu.cfs_quota_us",), str(quota), True)
        except OSError:
            _remove(folder)
            continue
        if str(folder / "cgroup.procs") not in procs:
            procs.append(str(folder / "cgroup.procs"))
    return procs


def memory_used(procs: list[str]) -> int | None:
    """The processes' own memory in the memory cgroup among `procs`, in bytes: resident anonymous
    memory (`total_rss` on v1, `anon` on v2), not the page cache the kernel can reclaim; None if
    there is no memory cgroup."""
    for p in procs:
        stat = Path(p).parent / "memory.stat"
        if stat.exists():
            values = dict(line.split() for line in stat.read_text().splitlines() if len(line.split()) == 2)
            for key in ("total_rss", "anon"):
                if key in values:
                    return int(values[key])
    return None


def oom_kills(procs: list[str]) -> int:
    """How many processes the OOM killer stopped in the memory cgroup among `procs`."""
    for p in procs:
        folder = Path(p).parent
        for name in ("memory.oom_control", "memory.events"):
            if (folder / name).exists():
                for line in (folder / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
    return 0


def remove(procs: list[str]) -> None:
    """Kill whatever still runs in these cgroups, then remove them."""
    for p in procs:
        _remove(Path(p).parent)


def join(procs: list[str]) -> None:
    """Move the calling process into these cgroups (the spawner's pre-exec step, as root)."""
    import os

    for p in procs:
        with open(p, "w") as f:
            f.write(str(os.getpid()))
