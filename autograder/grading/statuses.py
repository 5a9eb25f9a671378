"""The `status` column of grades.csv: one sentence an instructor can act on, never an exception.

A graded row says "graded", then what went wrong while it ran, if anything (the details, one
line per incident, are in the notes column). A row that could not be graded starts with
"error:" and says why and what to do; an unexpected failure keeps its technical detail for
the notes, never the status.

    >>> graded_status(["ex_tv: TimeoutError: this cell ran longer than the 40 s limit"])
    'graded; a cell ran past the time limit and scored 0 (see notes)'
    >>> wrong_chapter_status("04_speculative_round", "03_acceptance_rule").split(";")[0]
    "error: this notebook holds chapter 03's exercises, not chapter 04's"
    >>> is_sentence("error: grading failed: KeyError: 'ch04_test_helpers'")
    False
"""
from __future__ import annotations

import re

# Incident kinds (the executor's error names) and the clause the status gets for each.
_CLAUSES = [
    ("TimeoutError", "a cell ran past the time limit and scored 0"),
    ("KernelDied", "the kernel died (a crash, os._exit or out of memory) and was restarted; the rest was graded"),
    ("OutputCut", "a cell printed more than the output cap; the middle of its output was cut"),
    ("undid changes", "the grader undid changes to the test environment"),
]
_REPR = re.compile(r"\b[A-Z]\w*(Error|Exception|Interrupt)\b\s*[:(]|Traceback|<\w+ object at 0x|\w+\('")


def graded_status(incidents: list[str]) -> str:
    """'graded', plus one clause for each kind of incident that happened."""
    clauses = [clause for key, clause in _CLAUSES if any(key in line for line in incidents)]
    return "graded" + (f"; {'; '.join(clauses)} (see notes)" if clauses else "")


def wrong_chapter_status(chapter: str, holds: str | None) -> str:
    number, other = chapter[:2], (holds or "")[:2]
    if holds:
        return (f"error: this notebook holds chapter {other}'s exercises, not chapter {number}'s; "
                f"ask the student for their {chapter}.ipynb (or grade this file as {holds})")
    return (f"error: this notebook holds none of chapter {number}'s exercises; "
            f"ask the student for their {chapter}.ipynb")


def unreadable_status(detail: str) -> str:
    return (f"error: the file is not a readable notebook ({detail}); ask the student to download it again "
            f"from JupyterLab (File > Download) and resubmit")


def failure_status(reason: str | None) -> tuple[str, str | None]:
    """(status, detail for the notes) for a submission whose grading failed with `reason`."""
    reason = (reason or "").strip()
    if reason.startswith("error:") and is_sentence(reason):
        return reason, None
    if "worker exited" in reason or "no answer from the worker" in reason:
        return ("error: the grading process for this student stopped unexpectedly (the machine may have run out "
                "of memory); grade this submission again, alone"), reason or None
    if "Dask" in reason or "scheduler" in reason:
        return ("error: the Dask cluster did not return this submission (a worker was lost); grade it again"
                ), reason or None
    return ("error: grading stopped on an internal error; grade this submission again, and if it fails again "
            "send the notes to the course maintainers"), reason or None


def is_sentence(status: str) -> bool:
    """A status reads as a sentence: words, no exception name with its message, no repr."""
    return bool(status) and not _REPR.search(status)
