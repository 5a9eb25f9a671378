"""Grade one submission: `grade_submission(task, settings) -> GradingOutcome`.

`grading.grade.grade` calls it in its own process (one job) or runs
`python -m autograder.grading.worker SPEC.json OUT.json` once per student, `jobs` at a
time (each kernel in its own sandbox, no re-import of the caller's main module as
multiprocessing would do). SPEC holds the settings and the tasks; the worker writes the
outcomes, as JSON, to OUT. Nothing is read back from its printed output.
"""
from __future__ import annotations

import functools
import json
import sys
import warnings
from pathlib import Path

from .outcome import FAILED, GRADED, GradingOutcome, GradingTask
from .settings import GradingSettings

_READY = False


def prepare_process() -> None:
    """Once per grading process: quiet nbgrader's database warnings, adopt stray processes."""
    global _READY
    if _READY:
        return
    from sqlalchemy.exc import SAWarning

    from .reaping import become_subreaper

    warnings.filterwarnings("ignore", category=SAWarning)
    become_subreaper()
    _READY = True


def grade_submission(task: GradingTask, settings: GradingSettings) -> GradingOutcome:
    """Autograde one submission of the course directory `task.root` and write its feedback.
    Never raises: a failure is an outcome with status FAILED and the reason."""
    from .resilient_execute import take_records
    from .reaping import child_pids, reap_strays

    prepare_process()
    course = _course(task.root, settings)
    before = child_pids()
    take_records()
    try:
        result = course.autograde(task.chapter, task.student)
        records = take_records()
        incidents = [line for r in records for line in r.incidents]
        repairs = [item for r in records for item in r.repairs]
        if not result.get("success"):
            why = next((r.failure for r in records if r.failure), None) or _last_line(result)
            return GradingOutcome(task.chapter, task.student, FAILED, f"grading failed: {why}"[:220],
                                  incidents, repairs)
        course.generate_feedback(task.chapter, task.student)
        scores = course.scores(task.chapter, task.student) or []
        return GradingOutcome(task.chapter, task.student, GRADED, None, incidents, repairs, scores)
    except Exception as exc:  # one submission's crash must not lose the others' grades
        return GradingOutcome.failed(task, f"grading failed: {type(exc).__name__}: {str(exc)[:200]}")
    finally:
        take_records()
        reap_strays(keep=before)


@functools.lru_cache(maxsize=4)
def _course(root: str, settings: GradingSettings):
    """The course directory at `root`, one per process and settings (nbgrader's API is slow to build)."""
    from .coursedir import CourseDir

    return CourseDir(Path(root), settings)


def _last_line(result: dict) -> str:
    """nbgrader's own last word on a failed autograde (its error, else its log)."""
    for text in (result.get("error"), result.get("log")):
        lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
        if lines:
            return lines[-1][:200]
    return "nbgrader reported a failure"


def main(argv: list[str] | None = None) -> int:
    spec_path, out_path = (argv or sys.argv[1:])[:2]
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    settings = GradingSettings(**spec["settings"])
    outcomes = [grade_submission(GradingTask(**t), settings).to_dict() for t in spec["tasks"]]
    Path(out_path).write_text(json.dumps(outcomes), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
