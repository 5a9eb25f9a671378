"""The progress log's file: where it lives, appending one event, reading every event back.

    >>> import tempfile, pathlib
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> append({"type": "check", "chapter": "05", "exercises": {}}, log, now=0.0)["type"]
    'check'
    >>> [e["chapter"] for e in read_log(log)]
    ['05']
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import time
from pathlib import Path

LOG_NAME = ".course_progress.jsonl"
ENV_VAR = "COURSE_PROGRESS_LOG"


def course_chapters() -> list[str]:
    """The chapters' names ('01_cost_model', ...), in order (a glob: no notebook library needed);
    in a student bundle, the chapters of the self-check's reference."""
    from ..paths import chapter_names

    return chapter_names()


def default_folder(cwd: Path | None = None) -> Path:
    """The learner's working folder: `learner/` when `cwd` is the course's root (or a student
    bundle's), else `cwd`."""
    from ..paths import working_folder

    return working_folder(Path(cwd or Path.cwd()))


def log_path(folder: str | Path | None = None) -> Path:
    """The log file: `folder/.course_progress.jsonl`; without a folder, $COURSE_PROGRESS_LOG if set,
    else the default working folder's log."""
    if folder is not None:
        return Path(folder) / LOG_NAME
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    return default_folder() / LOG_NAME


def log_for_notebook(notebook: str | Path) -> Path:
    """The log a self-check of `notebook` writes to: $COURSE_PROGRESS_LOG if set, else the notebook's folder."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    return Path(notebook).resolve().parent / LOG_NAME


def _stamp(now: float) -> str:
    return _dt.datetime.fromtimestamp(now).isoformat(timespec="seconds")


def append(event: dict, path: str | Path | None = None, now: float | None = None) -> dict:
    """Add one event (a JSON-serializable dict with a `type`) to the log; return it as written."""
    if "type" not in event:
        raise ValueError("an event needs a 'type' (start, drill or check)")
    now = time.time() if now is None else float(now)
    event = {"time": now, "when": _stamp(now), **event}
    path = Path(path) if path is not None else log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(event, sort_keys=True) + "\n")
    return event


def read_log(path: str | Path | None = None) -> list[dict]:
    """Every event of the log, oldest first; [] when there is no log. Unreadable lines are skipped."""
    path = Path(path) if path is not None else log_path()
    if not path.exists():
        return []
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict) and "type" in event:
            events.append(event)
    return events


def record_check(chapter: str, outcomes, path: str | Path | None = None) -> dict:
    """Record a self-check: `outcomes` are autograder.learner.check.TestOutcome objects."""
    exercises: dict[str, list[float]] = {}
    for o in outcomes:
        got = exercises.setdefault(o.exercise, [0.0, 0.0])
        got[0] += o.points
        got[1] += o.max_points
    return append({"type": "check", "chapter": chapter, "exercises": exercises}, path)
