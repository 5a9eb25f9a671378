"""A drill's clock and its answers: the `start` event, each answer's `drill` event, and what the
learner saw before answering (`seen`: the worked answer, the hints).

An answer is a **first attempt** only if the whole log holds no earlier answer to the same drill
(for a numeric drill: the same drill and seed) and nothing that gave it away was seen first. So
restarting the clock (running the clock cell again, Run All, `drill NAME` again, the same seed
in the widget) never makes a fresh first attempt: the attempt count runs over the whole log.
The time is counted from the drill's last start, the clock the learner sees.

    >>> import tempfile, pathlib
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> clock = start_drill("trees", topic="token trees", chapter="08", path=log, now=10.0, minutes=1)
    >>> event = clock.finish(False, now=100.0)
    >>> event["seconds"], event["within_time"], event["attempt"], event["retry"]
    (90.0, False, 1, False)
    >>> again = start_drill("trees", topic="token trees", chapter="08", path=log, now=200.0, minutes=1)
    >>> event = again.finish(True, now=205.0)          # a restarted clock: still the second attempt
    >>> event["seconds"], event["attempt"], event["retry"]
    (5.0, 2, True)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .log import RECORDED, append, log_path, read_log

#: What a learner can be shown before answering, as `seen` events record it.
WORKED = "worked answer"
HINTS = "hints"


@dataclass
class DrillClock:
    """The clock of one drill: started by `start_drill`, stopped by `finish`."""

    drill: str
    topic: str
    chapter: str
    path: Path | None
    started: float
    minutes: float | None = None
    attempts: int = 0                 # answers recorded through this clock (the count when there is no log)
    match: dict = field(default_factory=dict)      # what else names the question (a numeric drill's seed)

    def finish(self, correct: bool, now: float | None = None, **extra) -> dict:
        """Record an answer: right or wrong, the seconds since the start, which attempt it is over
        the whole log, and whether it is a retry."""
        now = time.time() if now is None else float(now)
        answered, seen = prior(read_log(self.path), self.drill, **self.match)
        answered = max(answered, self.attempts)
        self.attempts = answered + 1
        event = result_event(self.drill, self.topic, self.chapter, correct, now - self.started, answered + 1,
                             self.minutes, seen=seen, **{**self.match, **extra})
        return append(event, self.path, now=now)

    def finish_with(self, check, *args) -> bool | None:
        """Run `check(*args)` (a function that asserts) and record pass or fail; never raises.

        Returns None, recording nothing, while the exercise is not attempted (NotImplementedError).
        """
        try:
            check(*args)
        except NotImplementedError:
            print(f"{self.drill}: {self._not_attempted()}")
            return None
        except Exception as err:                       # noqa: BLE001 - any failure is a wrong answer here
            event = self.finish(False)
            print(f"{self.drill}: not yet ({type(err).__name__}: {str(err)[:200]}); "
                  f"{self._recorded(event)} after {event['seconds']:.0f} s{attempt_note(event)}.")
            return False
        event = self.finish(True)
        print(f"{self.drill}: passed the visible test in {event['seconds']:.0f} s{attempt_note(event)}; "
              f"{self._recorded(event)}.")
        return True

    def saw_hints(self) -> dict:
        """Say that you opened this drill's hints before answering (a notebook cannot see a folded hint
        open): your next answer is then logged as a retry, honestly apart from first attempts."""
        return record_seen(self.drill, HINTS, path=self.path, **self.match)

    def _not_attempted(self) -> str:
        if self.path is not None:
            return "not attempted yet; nothing recorded (the clock keeps running)."
        # A run without a log: what the course's web pages show. Say what this cell does in a learner's
        # own copy, not that a clock runs on a page where none does.
        return ("not attempted in this copy (the function is still the blank to fill in), and nothing here is "
                "recorded. In your own JupyterLab this cell runs the visible test on your function and logs the "
                "result with the time since the clock cell ran.")

    def _recorded(self, event: dict) -> str:
        if self.path is None:
            return "not recorded (no progress log in this run)"
        return "recorded" if event.get(RECORDED, True) else f"not recorded ({self.path} could not be written)"


def attempt_note(event: dict) -> str:
    """' (attempt 2: a retry ...; suggested 5 min: within)' for a printout; '' for a plain first attempt."""
    notes = []
    if event.get("retry"):
        why = (f"after {' and '.join(event['seen'])}" if event.get("seen") and event["attempt"] == 1
               else "you have seen a verdict")
        notes.append(f"attempt {event['attempt']}: a retry ({why}), counted apart from first attempts")
    if event.get("minutes") is not None:
        notes.append(f"suggested {event['minutes']:g} min: {'within' if event.get('within_time') else 'over'}")
    return f" ({'; '.join(notes)})" if notes else ""


def result_event(drill: str, topic: str, chapter: str, correct: bool, seconds: float | None, attempt: int,
                 minutes: float | None = None, seen: list[str] | tuple = (), **extra) -> dict:
    """The `drill` event of one answer: `drill`, `topic`, `chapter`, `correct`, `seconds` (since the
    drill's last start, the clock the learner sees), `attempt` (counted over the whole log: 1 for the
    first answer ever to this drill, for a numeric drill to this drill and seed; restarting the clock
    does not reset it), `retry` (attempt > 1, or something that gives the answer away was seen first:
    then `seen` lists it), and where the drill has a suggested time `minutes` and `within_time`.
    Summaries score first attempts only; retries are counted apart. `seen`: what was shown before
    the first answer (the worked answer, the hints), which makes even attempt 1 a retry."""
    event = {"type": "drill", "drill": drill, "topic": topic, "chapter": chapter, "correct": bool(correct),
             "seconds": None if seconds is None else round(float(seconds), 1), "attempt": int(attempt),
             "retry": attempt > 1 or bool(seen), **extra}
    if seen:
        event["seen"] = sorted(set(seen))
    if minutes is not None:
        event["minutes"] = minutes
        event["within_time"] = seconds is not None and seconds <= minutes * 60
    return event


def prior(events: list[dict], drill: str, **match) -> tuple[int, list[str]]:
    """What the whole log holds before a new answer to `drill` (with `match`, e.g. seed=7): how many
    answers, and what was seen (`seen` events: the worked answer, the hints)."""
    answers, seen = 0, set()
    for event in events:
        if event.get("drill") != drill or any(event.get(k) != v for k, v in match.items()):
            continue
        if event.get("type") == "drill":
            answers += 1
        elif event.get("type") == "seen":
            seen.add(event.get("what", "?"))
    return answers, sorted(seen)


def record_answer(drill: str, topic: str, chapter: str, correct: bool, path: str | Path | None = None,
                  minutes: float | None = None, now: float | None = None, match: dict | None = None,
                  **extra) -> dict:
    """Record an answer given outside a clock object (the command line): timed from the drill's last
    start in the log (not timed when it was never started), numbered over the whole log."""
    path = Path(path) if path is not None else log_path()
    match = dict(match or {})
    start, _ = last_start(read_log(path), drill, **match)
    clock = (DrillClock(drill, topic, chapter, path, float(start["time"]),
                        start.get("minutes", minutes), 0, match) if start is not None else None)
    if clock is not None:
        return clock.finish(correct, now=now, **extra)
    answered, seen = prior(read_log(path), drill, **match)
    return append(result_event(drill, topic, chapter, correct, None, answered + 1, None, seen=seen,
                               **{**match, **extra}), path, now=now)


def record_seen(drill: str, what: str, path: str | Path | None = None, now: float | None = None, **match) -> dict:
    """Record that the learner was shown `what` (WORKED or HINTS) for `drill`: a later answer is a retry.

    Recorded where the course can know it: the numeric drills' worked answers (widget, `answer(...)`,
    the command line) and `drill NAME --hints`. Folded hints in a notebook open in the browser
    without telling the kernel, so opening them is not recorded."""
    path = Path(path) if path is not None else log_path()
    return append({"type": "seen", "drill": drill, "what": what, **match}, path, now=now)


def start_drill(drill: str, topic: str, chapter: str, path: str | Path | None = None,
                now: float | None = None, minutes: float | None = None, **extra) -> DrillClock:
    """Start a drill's clock and write a `start` event: `drill`, `topic`, `chapter`, and `minutes`, the
    suggested time, where the drill has one (`seed=`: a numeric drill's question, counted apart from
    other seeds)."""
    path = Path(path) if path is not None else log_path()
    event = {"type": "start", "drill": drill, "topic": topic, "chapter": chapter, **extra}
    if minutes is not None:
        event["minutes"] = minutes
    event = append(event, path, now=now)
    match = {"seed": extra["seed"]} if "seed" in extra else {}
    return DrillClock(drill, topic, chapter, path, event["time"], minutes, 0, match)


def resume_drill(drill: str, topic: str, chapter: str, path: str | Path | None = None, **match) -> DrillClock:
    """The clock of `drill` as the log has it: its last start (with `match`, e.g. seed=7), so the next
    answer is timed from that start; started now when the log has no start of it. The attempt
    number always comes from the whole log."""
    path = Path(path) if path is not None else log_path()
    start, _ = last_start(read_log(path), drill, **match)
    if start is None:
        return start_drill(drill, topic, chapter, path=path, **match)
    return DrillClock(drill, topic, chapter, path, float(start["time"]), start.get("minutes"), 0, dict(match))


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
        if event.get("drill") != drill or event.get("type") not in ("start", "drill"):
            continue
        return event if event["type"] == "start" else None
    return None
