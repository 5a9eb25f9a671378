"""A grading process's stray descendants: what a student's detached processes leave behind.

A kernel can start processes that outlive it (a daemon, a `nohup`, a double fork). The sandbox's
`--die-with-parent` and the cgroup end most of them; these functions are the backstop, used by the
grading worker only: it becomes a subreaper so orphans are re-parented to it, notes its children
before grading, and kills whatever is new afterwards.

    >>> child_pids() >= set()
    True
"""
from __future__ import annotations


def become_subreaper() -> None:
    """Make this process adopt its orphaned descendants (Linux), so `reap_strays` can end a
    student's detached processes even without a sandbox."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)     # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def child_pids() -> set[int]:
    try:
        import psutil
        return {p.pid for p in psutil.Process().children(recursive=True)}
    except Exception:
        return set()


def reap_strays(keep: set[int] = frozenset()) -> None:
    """Kill every process this one started that is still running, except `keep` (children that
    existed before grading): a student's detached processes, adopted thanks to `become_subreaper`."""
    try:
        import psutil
    except ImportError:
        return
    strays = [p for p in psutil.Process().children(recursive=True) if p.pid not in keep]
    for proc in strays:
        try:
            proc.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(strays, timeout=5)
