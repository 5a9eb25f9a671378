"""A learner's progress log: one small JSON-lines file in the learner's folder.

Every line is one event with a `type`:

* `start`  - a drill was started (its clock began): `drill`, `topic`, `chapter`, and the suggested
  `minutes` where the drill has one (a numeric drill also its `seed`);
* `drill`  - an answer to a drill: `drill`, `topic`, `chapter`, `correct`, `seconds` (since the
  drill's last start, the clock the learner sees), `attempt` (counted over the whole log: 1 for
  the first answer ever to this drill, for a numeric drill to this drill and seed; restarting the
  clock does not reset it), `retry` (attempt > 1, or something that gives the answer away was
  seen first: then `seen` lists it), and where the drill has a suggested time `minutes` and
  `within_time`. Summaries score first attempts only; retries are counted apart.
* `seen`   - the learner was shown something that gives a drill away (`what`: "worked answer"
  or "hints"), where the course can know it: the numeric drills' worked answers (widget,
  `answer(...)`, the command line) and `drill NAME --hints`. Folded hints in a notebook open
  in the browser without telling the kernel, so opening them is not recorded.
* `check`  - a self-check (`python -m autograder check`) ran: `chapter` and, per exercise,
  the points earned and the maximum.

Where the file is: one rule, `log_path()`, for every reader and writer: the `--folder` given,
else $COURSE_PROGRESS_LOG if set (`off`: no log at all, for book builds and test runs), else
`.course_progress.jsonl` in the learner's folder of the course (`learner/`, or the folder
`./course lab` serves, $COURSE_LAB_DIR), wherever the notebook or the terminal is. Nothing else
is stored: no code, no answers.

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
from .log import (ENV_VAR, LOG_NAME, OFF, append, course_chapters, describe, learner_folder, log_path, read_log,
                  record_check)
from .summary import format_progress, format_summary, topic_summary

__all__ = ["HINTS", "WORKED", "DrillClock", "attempt_note", "last_start", "open_clock", "prior", "record_answer",
           "record_seen", "result_event", "resume_drill", "start_drill", "ENV_VAR", "LOG_NAME", "OFF", "append",
           "course_chapters", "describe", "learner_folder", "log_path", "read_log", "record_check",
           "format_progress", "format_summary", "topic_summary"]
