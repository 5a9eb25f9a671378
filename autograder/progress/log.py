"""The progress log's file: where it lives (`log_path`, one rule for everyone), appending one event,
reading every event back.

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
# $COURSE_PROGRESS_LOG=off: this run is no learner's (a book build, a test run): the log is empty and
# nothing is written, so no one's history shows up in an executed notebook.
OFF = "off"
LAB_DIR_VAR = "COURSE_LAB_DIR"        # the folder `./course lab` serves instead of learner/
RECORDED = "recorded"                 # False in an event `append` could not write


def course_chapters() -> list[str]:
    """The chapters' names ('01_cost_model', ...), in order (a glob: no notebook library needed);
    in a student bundle, the chapters of the self-check's reference."""
    from ..paths import chapter_names

    return chapter_names()


def learner_folder() -> Path:
    """The learner's folder of this course: $COURSE_LAB_DIR (the folder `./course lab` serves) if set,
    else the course's `learner/` (in a student bundle, the bundle's)."""
    from ..paths import LEARNER_DIR

    return Path(os.environ[LAB_DIR_VAR]) if os.environ.get(LAB_DIR_VAR) else LEARNER_DIR


def log_path(folder: str | Path | None = None) -> Path | None:
    """The progress log, by the one rule every reader and writer uses (notebook cells, widgets,
    `drill`, `progress`, `check`, the start page):

    1. `folder/.course_progress.jsonl` when a folder is given (`--folder`: an explicit choice);
    2. else $COURSE_PROGRESS_LOG names the file; `off` means no log (None): read as empty, never written;
    3. else the learner's folder of this course (`learner_folder()`), wherever the notebook, the
       kernel or the terminal is, so a self-check of a notebook kept elsewhere and `progress` agree.
    """
    if folder is not None:
        return Path(folder) / LOG_NAME
    if os.environ.get(ENV_VAR):
        return None if os.environ[ENV_VAR].strip().lower() == OFF else Path(os.environ[ENV_VAR])
    return learner_folder() / LOG_NAME


def describe(path: Path | None) -> str:
    """Where the log is, in words, for a printout of a command (`progress`, `drill`, `check`)."""
    if path is None:
        return f"none in this run (${ENV_VAR}={OFF}: a book build or a test, not a learner's session)"
    return str(path)


# Said in a notebook's output when it runs without a log: the course's web pages show every chapter
# run that way (as graded copies are), so a reader of the page learns that the page records nothing
# and what their own copy keeps, rather than how the page was built.
NO_LOG_FOR_READER = ("none: this copy of the chapter was run without one, so nothing on it is recorded. "
                     "In your own JupyterLab the course keeps a log of your attempts (each drill's "
                     f"result and time, first attempts apart from retries) in {LOG_NAME} in your course folder.")


def describe_for_reader(path: Path | None) -> str:
    """Where the log is, for the reader of a notebook's output: the file, or, in a run without a log
    (a page of the course's web book, a graded copy), that nothing here is recorded and what the
    reader's own JupyterLab keeps.

    >>> describe_for_reader(Path("learner") / LOG_NAME) == str(Path("learner") / LOG_NAME)
    True
    >>> describe_for_reader(None).split(".")[0]
    'none: this copy of the chapter was run without one, so nothing on it is recorded'
    """
    return NO_LOG_FOR_READER if path is None else str(path)


def _stamp(now: float) -> str:
    return _dt.datetime.fromtimestamp(now).isoformat(timespec="seconds")


def append(event: dict, path: str | Path | None = None, now: float | None = None) -> dict:
    """Add one event (a JSON-serializable dict with a `type`) to the log; return it as written, or
    with `recorded: False` when the log could not be written (a warning says why, once per log)."""
    if "type" not in event:
        raise ValueError("an event needs a 'type' (start, drill or check)")
    now = time.time() if now is None else float(now)
    event = {"time": now, "when": _stamp(now), **event}
    path = Path(path) if path is not None else log_path()
    if path is None:
        return event                     # no log in this run ($COURSE_PROGRESS_LOG=off)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(event, sort_keys=True) + "\n")
    except OSError as exc:
        # A drill cell or a self-check must still work where the log cannot be written (a read-only
        # course folder on a shared server, a full disk): said once per log, and the event is returned.
        _warn_unwritable(path, exc)
        return {**event, RECORDED: False}
    return event


class ProgressNotRecorded(UserWarning):
    """The progress log could not be written: the work goes on, this event is not kept."""


_warned_paths: set[str] = set()


def _warn_unwritable(path: Path, exc: OSError) -> None:
    if str(path) in _warned_paths:
        return
    _warned_paths.add(str(path))
    import warnings

    warnings.warn(ProgressNotRecorded(
        f"your progress could not be recorded in {path} ({exc.strerror or exc}); drills and checks "
        f"still work, but their results are not kept. Set ${ENV_VAR} to a file you can write "
        f"(or to '{OFF}' for no log)."), stacklevel=3)


def read_log(path: str | Path | None = None) -> list[dict]:
    """Every event of the log, oldest first; [] when there is no log. Unreadable lines are skipped."""
    path = Path(path) if path is not None else log_path()
    if path is None or not path.exists():
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
    """Record a self-check as a `check` event: `chapter` and, per exercise, the points earned and the
    maximum. `outcomes` are autograder.learner.check.TestOutcome objects; the optional exercises are
    listed apart (`optional`), so summaries can leave them out of the chapter's count."""
    exercises: dict[str, list[float]] = {}
    for o in outcomes:
        got = exercises.setdefault(o.exercise, [0.0, 0.0])
        got[0] += o.points
        got[1] += o.max_points
    optional = sorted({o.exercise for o in outcomes if getattr(o, "optional", False)})
    return append({"type": "check", "chapter": chapter, "exercises": exercises, "optional": optional}, path)
