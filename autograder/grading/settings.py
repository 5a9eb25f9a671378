"""The grading settings: one dataclass from the command line to the sandbox.

`python -m autograder grade` and `check` build a `GradingSettings` from their options;
`grade` hands it to each worker (as JSON, `to_json`/`from_json`), the worker to the
nbgrader course directory, which gives it to the executor (`ResilientExecute.settings`),
which gives it to the sandboxed kernel manager (`SandboxedKernelManager.policy`). No field
is renamed or re-defaulted on the way.

    >>> s = GradingSettings(cell_timeout=30, jobs=4)
    >>> s.parallel(2), s.parallel(10)
    (2, 4)
    >>> GradingSettings.from_json(s.to_json()) == s
    True
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace

DEFAULT_CELL_TIMEOUT = 120           # seconds per cell before it is interrupted and scored 0
DEFAULT_MEMORY_BYTES = 8 * 2**30     # data-memory limit of a kernel (numpy, scipy, matplotlib fit easily)
DEFAULT_CPU_SECONDS = 3600           # CPU time for one notebook (all its cells together)
DEFAULT_SCRATCH_BYTES = 2**30        # the kernel's writable /tmp (memory), counted with memory_bytes
DEFAULT_MAX_PROCESSES = 256          # processes and threads of one kernel at once (cgroup pids.max)


@dataclass(frozen=True)
class GradingSettings:
    """How student code is run: limits, what it may not see, and how many run at once."""

    cell_timeout: int = DEFAULT_CELL_TIMEOUT
    memory_bytes: int = DEFAULT_MEMORY_BYTES
    cpu_seconds: int = DEFAULT_CPU_SECONDS
    hide: tuple = field(default=())           # folders replaced by an empty tmpfs in the sandbox
    require_isolation: bool = False           # refuse to run without bubblewrap
    warn_unisolated: bool = True              # say loudly when not isolated (grading, not self-check)
    jobs: int | None = None                   # submissions at once; None: one per core
    scratch_bytes: int = DEFAULT_SCRATCH_BYTES     # size of the sandbox's writable /tmp (a tmpfs)
    max_processes: int = DEFAULT_MAX_PROCESSES     # tasks of one kernel at once, where cgroups allow
    scheduler: str | None = None              # a Dask scheduler address: grade on its workers

    def __post_init__(self):
        object.__setattr__(self, "hide", tuple(str(h) for h in self.hide))

    @classmethod
    def from_args(cls, args) -> "GradingSettings":
        """The settings a command line asks for (options it does not have keep their default)."""
        memory, scratch = getattr(args, "memory", None), getattr(args, "scratch", None)
        return cls(cell_timeout=getattr(args, "timeout", None) or DEFAULT_CELL_TIMEOUT,
                   memory_bytes=int(memory * 2**30) if memory else DEFAULT_MEMORY_BYTES,
                   scratch_bytes=int(scratch * 2**30) if scratch else DEFAULT_SCRATCH_BYTES,
                   max_processes=getattr(args, "max_processes", None) or DEFAULT_MAX_PROCESSES,
                   require_isolation=bool(getattr(args, "require_isolation", False)),
                   jobs=getattr(args, "jobs", None), scheduler=getattr(args, "scheduler", None))

    def parallel(self, n_tasks: int) -> int:
        """How many of `n_tasks` run at once: `jobs` (default one per core), at least 1, at most n_tasks."""
        return max(1, min(self.jobs or os.cpu_count() or 1, n_tasks or 1))

    def hiding(self, *folders) -> "GradingSettings":
        """These settings with `folders` hidden from student code as well."""
        return replace(self, hide=tuple(dict.fromkeys([*self.hide, *(str(f) for f in folders)])))

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "GradingSettings":
        return cls(**json.loads(text))
