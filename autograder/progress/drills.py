"""A drill's clock: its `start` event, each answer's `drill` event (timed from that start, numbered
by attempt), and finding a drill's last start in the log again after a restart.

    >>> import tempfile, pathlib
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> clock = start_drill("trees", topic="token trees", chapter="08", path=log, now=10.0, minutes=1)
    >>> event = clock.finish(True, now=100.0)
    >>> event["seconds"], event["within_time"], last_start(read_log(log), "trees")[1]
    (90.0, False, 1)
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from .log import append, log_path, read_log

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
    """The `drill` event of one answer (its fields: see `autograder.progress`)."""
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
