"""A learner's progress log: one small JSON-lines file in the learner's folder.

Every line is one event with a `type`: `start` (a drill's clock began, `start_drill`), `drill` (an
answer to a drill, `result_event`), `seen` (something that gives a drill away was shown,
`record_seen`) and `check` (a self-check ran, `record_check`); each function's docstring lists
its fields. Nothing else is stored: no code, no answers. `log.log_path` is the one rule for where
the file is; `summary` turns the events into the per-topic and per-chapter report. How attempts and
retries are counted, and the log's path, are in docs/ARCHITECTURE.md, section "Drills and the
progress log".

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

from .drills import (HINTS, WORKED, DrillClock, attempt_note, last_start, open_clock, prior, record_answer,
                     record_seen, result_event, resume_drill, start_drill)
from .log import (ENV_VAR, LOG_NAME, OFF, append, course_chapters, describe, describe_for_reader, learner_folder,
                  log_path, read_log, record_check)
from .summary import format_progress, format_summary, topic_summary

__all__ = ["HINTS", "WORKED", "DrillClock", "attempt_note", "last_start", "open_clock", "prior", "record_answer",
           "record_seen", "result_event", "resume_drill", "start_drill", "ENV_VAR", "LOG_NAME", "OFF", "append",
           "course_chapters", "describe", "describe_for_reader", "learner_folder", "log_path", "read_log", "record_check",
           "format_progress", "format_summary", "topic_summary"]
