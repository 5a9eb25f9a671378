"""A learner's progress log: one small JSON-lines file in the learner's working folder.

Every line is one event with a `type`:

* `start`  - a drill was started (its clock began): `drill`, `topic`, `chapter`, and the suggested
  `minutes` where the drill has one (a numeric drill also its `seed`);
* `drill`  - an answer to a drill: `drill`, `topic`, `chapter`, `correct`, `seconds` (since the
  drill's start: a pass after a failure is timed too), `attempt` (1 for the first answer after the
  start, 2 for the next, ...) and `retry` (attempt > 1: the verdict, and for numeric drills the
  worked answer, were already shown), and where the drill has a suggested time `minutes` and
  `within_time`. Summaries score first attempts only; retries are counted apart.
* `check`  - a self-check (`python -m autograder check`) ran: `chapter` and, per exercise,
  the points earned and the maximum.

The file is `.course_progress.jsonl` in the working folder: the folder a notebook runs in
(in JupyterLab, `learner/`), and on the command line the current folder, or `learner/`
when run from the course's root. The environment variable `COURSE_PROGRESS_LOG` names
another file. Nothing else is stored: no code, no answers.

    >>> import tempfile, pathlib
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> clock = start_drill("speedup_formula", topic="speedup formula", chapter="05", path=log, now=100.0)
    >>> event = clock.finish(False, now=130.0)
    >>> event["correct"], event["seconds"], event["attempt"], event["retry"]
    (False, 30.0, 1, False)
    >>> event = clock.finish(True, now=160.0)
    >>> event["seconds"], event["attempt"], event["retry"]
    (60.0, 2, True)
    >>> [e["type"] for e in read_log(log)]
    ['start', 'drill', 'drill']
    >>> row = topic_summary(read_log(log))[0]
    >>> row["topic"], row["attempts"], row["correct"], row["retries"]
    ('speedup formula', 1, 0, 1)
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

LOG_NAME = ".course_progress.jsonl"
ENV_VAR = "COURSE_PROGRESS_LOG"


def course_chapters() -> list[str]:
    """The chapters' names ('01_cost_model', ...), in order (a glob: no notebook library needed);
    in a student bundle, the chapters of the self-check's reference."""
    from .paths import chapter_names

    return chapter_names()


def default_folder(cwd: Path | None = None) -> Path:
    """The learner's working folder: `learner/` when `cwd` is the course's root (or a student
    bundle's), else `cwd`."""
    from .paths import working_folder

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


@dataclass
class DrillClock:
    """The clock of one drill: started by `start_drill`, stopped by `finish`."""

    drill: str
    topic: str
    chapter: str
    path: Path
    started: float
    minutes: float | None = None
    attempts: int = 0                 # answers recorded since the start

    def finish(self, correct: bool, now: float | None = None, **extra) -> dict:
        """Record an answer: right or wrong, the seconds since the start, which attempt it is."""
        now = time.time() if now is None else float(now)
        self.attempts += 1
        return append(result_event(self.drill, self.topic, self.chapter, correct, now - self.started,
                                   self.attempts, self.minutes, **extra), self.path, now=now)

    def finish_with(self, check, *args) -> bool | None:
        """Run `check(*args)` (a function that asserts) and record pass or fail; never raises.

        Returns None, recording nothing, while the exercise is not attempted (NotImplementedError).
        """
        try:
            check(*args)
        except NotImplementedError:
            print(f"{self.drill}: not attempted yet; nothing recorded (the clock keeps running).")
            return None
        except Exception as err:                       # noqa: BLE001 - any failure is a wrong answer here
            event = self.finish(False)
            print(f"{self.drill}: not yet ({type(err).__name__}: {str(err)[:200]}); "
                  f"recorded after {event['seconds']:.0f} s{_attempt_note(event)}.")
            return False
        event = self.finish(True)
        print(f"{self.drill}: passed the visible test in {event['seconds']:.0f} s{_attempt_note(event)}; recorded.")
        return True


def _attempt_note(event: dict) -> str:
    notes = []
    if event.get("retry"):
        notes.append(f"attempt {event['attempt']}: a retry, counted apart from first attempts")
    if event.get("minutes") is not None:
        notes.append(f"suggested {event['minutes']:g} min: {'within' if event.get('within_time') else 'over'}")
    return f" ({'; '.join(notes)})" if notes else ""


def result_event(drill: str, topic: str, chapter: str, correct: bool, seconds: float | None, attempt: int,
                 minutes: float | None = None, **extra) -> dict:
    """The `drill` event of one answer (see the module docstring)."""
    event = {"type": "drill", "drill": drill, "topic": topic, "chapter": chapter, "correct": bool(correct),
             "seconds": None if seconds is None else round(float(seconds), 1), "attempt": int(attempt),
             "retry": attempt > 1, **extra}
    if minutes is not None:
        event["minutes"] = minutes
        event["within_time"] = seconds is not None and seconds <= minutes * 60
    return event


def start_drill(drill: str, topic: str, chapter: str, path: str | Path | None = None,
                now: float | None = None, minutes: float | None = None, **extra) -> DrillClock:
    """Start a drill's clock and write a `start` event (`minutes`: the suggested time, if any)."""
    path = Path(path) if path is not None else log_path()
    event = {"type": "start", "drill": drill, "topic": topic, "chapter": chapter, **extra}
    if minutes is not None:
        event["minutes"] = minutes
    event = append(event, path, now=now)
    return DrillClock(drill, topic, chapter, path, event["time"], minutes)


def resume_drill(drill: str, topic: str, chapter: str, path: str | Path | None = None, **match) -> DrillClock:
    """The clock of `drill` as the log has it: its last start (with `match`, e.g. seed=7) and the answers
    recorded since, so the next answer is timed from that start and numbered after them; started now
    when the log has no start of it."""
    path = Path(path) if path is not None else log_path()
    start, answered = last_start(read_log(path), drill, **match)
    if start is None:
        clock = start_drill(drill, topic, chapter, path=path, **match)
        clock.attempts = answered
        return clock
    return DrillClock(drill, topic, chapter, path, float(start["time"]), start.get("minutes"), answered)


def last_start(events: list[dict], drill: str, **match) -> tuple[dict | None, int]:
    """The last `start` of `drill` (with the given fields, e.g. seed=7) and how many answers to it
    were recorded since: (None, n) when it was never started, n counting every earlier answer."""
    answers = 0
    for event in reversed(events):
        if event.get("drill") != drill or any(event.get(k) != v for k, v in match.items()):
            continue
        if event["type"] == "start":
            return event, answers
        if event["type"] == "drill":
            answers += 1
    return None, answers


def open_clock(events: list[dict], drill: str) -> dict | None:
    """The last `start` event of `drill` not followed by a result of that drill, or None."""
    for event in reversed(events):
        if event.get("drill") != drill:
            continue
        return event if event["type"] == "start" else None
    return None


def record_check(chapter: str, outcomes, path: str | Path | None = None) -> dict:
    """Record a self-check: `outcomes` are autograder.learner.check.TestOutcome objects."""
    exercises: dict[str, list[float]] = {}
    for o in outcomes:
        got = exercises.setdefault(o.exercise, [0.0, 0.0])
        got[0] += o.points
        got[1] += o.max_points
    return append({"type": "check", "chapter": chapter, "exercises": exercises}, path)


def topic_summary(events: list[dict]) -> list[dict]:
    """Per topic, over first attempts only: attempts, correct, accuracy, mean seconds, how many were
    over the suggested time (`over_time`); `retries` counts the later attempts apart. The weakest
    first (lowest accuracy, then slowest)."""
    rows: dict[str, dict] = {}
    for e in events:
        if e.get("type") != "drill":
            continue
        row = rows.setdefault(e.get("topic", "?"), {"topic": e.get("topic", "?"), "chapter": e.get("chapter", "?"),
                                                    "attempts": 0, "correct": 0, "seconds": [], "retries": 0,
                                                    "over_time": 0})
        if e.get("retry"):
            row["retries"] += 1
            continue
        row["attempts"] += 1
        row["over_time"] += e.get("within_time") is False
        row["correct"] += bool(e.get("correct"))
        if e.get("seconds") is not None:
            row["seconds"].append(float(e["seconds"]))
    out = []
    for row in rows.values():
        secs = row.pop("seconds")
        if not row["attempts"]:
            continue                       # only retries of drills started before the log began
        row["accuracy"] = row["correct"] / row["attempts"]
        row["mean_seconds"] = sum(secs) / len(secs) if secs else None
        out.append(row)
    return sorted(out, key=lambda r: (r["accuracy"], -(r["mean_seconds"] or 0.0), r["topic"]))


def _chapter_title(number: str, names: list[str]) -> str:
    match = [n for n in names if n.split("_", 1)[0] == str(number).zfill(2)]
    return match[0] if match else f"chapter {number}"


def format_summary(events: list[dict], chapters: list[str] | None = None, n_weakest: int = 3) -> str:
    """A table of topics (weakest first) and which chapters to reread."""
    rows = topic_summary(events)
    if not rows:
        return "No drills recorded yet: finish a drill and its result appears here."
    chapters = chapters or []
    lines = ["First attempts only (a retry has seen the verdict; retries are counted apart).",
             f"{'topic':<22}{'chapter':>8}{'done':>6}{'right':>7}{'mean time':>11}{'over time':>11}{'retries':>9}"]
    for r in rows:
        mean = "-" if r["mean_seconds"] is None else f"{r['mean_seconds']:.0f} s"
        lines.append(f"{r['topic']:<22}{r['chapter']:>8}{r['attempts']:>6}{r['accuracy']:>7.0%}{mean:>11}"
                     f"{r['over_time']:>11}{r['retries']:>9}")
    weak = [r for r in rows if r["accuracy"] < 1.0][:n_weakest]
    lines.append("")
    if weak:
        lines.append("Weakest: " + "; ".join(
            f"{r['topic']} ({r['accuracy']:.0%} right): reread {_chapter_title(r['chapter'], chapters)}" for r in weak))
    else:
        slow = max(rows, key=lambda r: r["mean_seconds"] or 0.0)
        lines.append(f"Every recorded drill was right. Slowest topic: {slow['topic']}; to get faster, "
                     f"reread {_chapter_title(slow['chapter'], chapters)} and repeat its drills with new seeds.")
    return "\n".join(lines)


def format_progress(events: list[dict], chapters: list[str]) -> str:
    """Per chapter: exercises passed in the last self-check, and drills done (right / tried)."""
    last_check: dict[str, dict] = {}
    for e in events:
        if e.get("type") == "check":
            last_check[str(e["chapter"])] = e
    drills: dict[str, list[bool]] = {}
    for e in events:
        if e.get("type") == "drill" and not e.get("retry"):
            drills.setdefault(str(e.get("chapter", "?")).zfill(2), []).append(bool(e.get("correct")))
    lines = [f"{'chapter':<28}{'last self-check':<34}drills (right first time / done)"]
    for name in chapters:
        check = last_check.get(name)
        if check is None:
            checked = "not checked yet"
        else:
            ex = check.get("exercises", {})
            passed = [k.removeprefix("ex_") for k, (got, full) in ex.items() if full and got >= full]
            checked = f"{len(passed)}/{len(ex)} exercises passed ({check.get('when', '?')[:10]})"
        done = drills.get(name.split("_", 1)[0], [])
        lines.append(f"{name:<28}{checked:<34}{sum(done)} / {len(done)}" if done else f"{name:<28}{checked:<34}-")
        if check is not None:
            for k, (got, full) in check.get("exercises", {}).items():
                mark = "passed" if full and got >= full else f"{got:g}/{full:g}"
                lines.append(f"    {k.removeprefix('ex_'):<40}{mark}")
    lines.append("")
    lines.append(format_summary(events, chapters))
    return "\n".join(lines)
