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

from .drills import (DrillClock, last_start, open_clock, result_event, resume_drill,
                     start_drill)
from .log import (ENV_VAR, LOG_NAME, append, course_chapters, default_folder, log_for_notebook,
                  log_path, read_log, record_check)
from .summary import format_progress, format_summary, topic_summary

__all__ = ["DrillClock", "last_start", "open_clock", "result_event", "resume_drill", "start_drill", "ENV_VAR",
           "LOG_NAME", "append", "course_chapters", "default_folder", "log_for_notebook", "log_path", "read_log",
           "record_check", "format_progress", "format_summary", "topic_summary"]
