"""Command line: python -m autograder {release,learn,check,grade,bundle,execute,drill,progress,hub}.

The only place that turns a `CourseError` (a problem the user can fix) into an exit code and a
message; the commands themselves live in `authoring/`, `learner/` and `grading/`."""
from __future__ import annotations

import argparse
import os
import sys

from .errors import CourseError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder",
                                     description="Course tools: release chapters, self-check, grade a class.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("release", help="regenerate the student notebooks (chapters/) from the solution notebooks with nbgrader")
    p.add_argument("chapters", nargs="*", help="chapter names (default: all)")
    p.add_argument("--force", action="store_true", help="overwrite chapters even if they hold a learner's work")

    p = sub.add_parser("learn", help="copy a fresh chapter into learner/ (ignored by git) to work on it")
    p.add_argument("chapters", nargs="+", help="chapter names or numbers, e.g. 03, or `all`")
    p.add_argument("--dest", default=None, help="folder to copy into (default: learner/ in the course)")
    p.add_argument("--start-page", action="store_true",
                   help="also (re)write the start page START_HERE.ipynb there (./course lab does)")

    p = sub.add_parser("bundle", help="build what a class receives: student notebooks, library, self-check")
    p.add_argument("out", help="folder to create (must not exist)")

    p = sub.add_parser("check", help="run the visible and hidden tests on your copy of a chapter")
    p.add_argument("notebooks", nargs="+", help="your chapter notebook(s), e.g. chapters/01_cost_model.ipynb")
    p.add_argument("--timeout", type=int, default=120, help="seconds allowed per cell (default 120)")

    p = sub.add_parser("grade", help="autograde a folder of submissions; write grades.csv and feedback")
    p.add_argument("submissions", help="folder: one sub-folder (or one .ipynb with --chapter) per student")
    p.add_argument("--out", default="grading", help="course folder to create (default ./grading)")
    p.add_argument("--chapter", help="the chapter, when each student is a single .ipynb file")
    p.add_argument("--timeout", type=int, default=None,
                   help="seconds allowed per cell before it is interrupted and scored 0 (default 120)")
    p.add_argument("--jobs", "-j", type=int, default=None,
                   help="submissions graded at once, each in its own sandbox (default: one per core)")
    p.add_argument("--memory", type=float, default=None,
                   help="memory limit per kernel in GiB (default 8)")
    p.add_argument("--scratch", type=float, default=None,
                   help="size in GiB of each kernel's writable /tmp, held in memory and counted with "
                        "--memory (default 1)")
    p.add_argument("--max-processes", type=int, default=None,
                   help="processes and threads one kernel may run at once (default 256; enforced where "
                        "the grader can create a cgroup, e.g. as root)")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:8786",
                   help="grade on the workers of this Dask scheduler (dask.distributed) instead of here")
    p.add_argument("--require-isolation", action="store_true",
                   help="refuse to grade if student code cannot be sandboxed (bubblewrap missing)")
    p.add_argument("--roster", default=None, metavar="class.toml",
                   help="the class (students = [...]): a row, 'no submission', for each student who sent nothing")
    p.add_argument("--deadline", default=None, metavar="'2026-12-06 17:00'",
                   help="mark submissions whose timestamp.txt is later than this (UTC unless a zone is given)")

    p = sub.add_parser("execute", help="run notebooks top to bottom and report time and errors")
    p.add_argument("notebooks", nargs="+")
    p.add_argument("--save", help="folder to write the executed notebooks to")

    from .learner.drill import add_drill_parser, add_progress_parser
    add_drill_parser(sub)
    add_progress_parser(sub)
    from .hub.cli import add_hub_parser
    add_hub_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "release":
        from .authoring.release import main as run
    elif args.command == "check":
        from .learner.check import main as run
    elif args.command == "grade":
        from .grading.grade import main as run
    elif args.command == "learn":
        from .learner.learn import main as run
    elif args.command == "bundle":
        from .authoring.bundle import main as run
    elif args.command in ("drill", "progress"):
        from .learner.drill import main as run
    elif args.command == "hub":
        from .hub.cli import main as run
    else:
        from .authoring.execute import main as run
    try:
        if args.command in ("grade", "check"):
            # Refuse in one sentence before any student's row can become an internal error.
            from .grading.preflight import preflight
            preflight(f"{args.command}")
        return run(args)
    except CourseError as err:       # a problem the user can fix: its message, exit code 1
        raise SystemExit(str(err)) from None
    except BrokenPipeError:          # `... | head` closed the pipe: not an error worth a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
