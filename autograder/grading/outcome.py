"""What grading one submission produced, as data the parent process reads.

A worker (in this process, a subprocess or, later, a remote machine) grades a
`GradingTask` and returns a `GradingOutcome`; both go through JSON unchanged.

    >>> out = GradingOutcome("01_cost_model", "alice", "graded", scores=[("test_a", 2.0, 2.0)],
    ...                      incidents=["test_b: TimeoutError: this cell ran longer than the 120 s limit"])
    >>> GradingOutcome.from_dict(out.to_dict()) == out
    True
    >>> out.review_lines()
    []
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

GRADED = "graded"
FAILED = "failed"


@dataclass(frozen=True)
class GradingTask:
    """One submission to grade: a student's chapter, already in the course directory at `root`."""

    root: str
    chapter: str
    student: str


@dataclass
class GradingOutcome:
    """The result of grading one submission.

    status: GRADED (scores are in the gradebook) or FAILED (`reason` says why);
    incidents: what happened while it ran (timeouts, dead kernels, repaired test environment),
    one line each, for the notes column; repairs: (cell, [what the grader undid]) for the review
    column; scores: (grade_id, score, max_score) per graded test, as the worker saved them."""

    chapter: str
    student: str
    status: str
    reason: str | None = None
    incidents: list[str] = field(default_factory=list)
    repairs: list[tuple[str, list[str]]] = field(default_factory=list)
    scores: list[tuple[str, float, float]] = field(default_factory=list)

    def review_lines(self) -> list[str]:
        """Lines for the review column: each cell before which the grader undid a change."""
        return [f"{cell}: the grader undid {'; '.join(what[:5])}" for cell, what in self.repairs]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "GradingOutcome":
        data = dict(data)
        data["repairs"] = [(cell, list(what)) for cell, what in data.get("repairs", [])]
        data["scores"] = [tuple(s) for s in data.get("scores", [])]
        return cls(**data)

    @classmethod
    def failed(cls, task: GradingTask, reason: str) -> "GradingOutcome":
        return cls(task.chapter, task.student, FAILED, reason)
