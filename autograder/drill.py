"""`python -m autograder drill` and `python -m autograder progress`: practice outside JupyterLab."""
from __future__ import annotations


def add_drill_parser(sub) -> None:
    p = sub.add_parser("drill", help="interview drills: show one, run your answer file against its tests")
    p.add_argument("name", nargs="?", help="the drill (default: one picked for you); --list shows them")
    p.add_argument("--answer", help="your answer: a .py file defining the drill's function")
    p.add_argument("--values", nargs="+", type=float, help="your numbers, for a numeric drill")
    p.add_argument("--seed", type=int, default=None, help="seed of a numeric drill's numbers")
    p.add_argument("--list", action="store_true", help="list the drills")
    p.add_argument("--folder", help="your working folder, where the progress log lives")
    p.add_argument("--timeout", type=int, default=120, help="seconds allowed for the tests")


def add_progress_parser(sub) -> None:
    p = sub.add_parser("progress", help="exercises passed by your last self-checks, drills done, weakest topics")
    p.add_argument("--folder", help="your working folder, where the progress log lives")


def main(args) -> int:
    raise SystemExit("drill and progress are not available yet")
