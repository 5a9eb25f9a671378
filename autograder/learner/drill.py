"""`python -m autograder drill` and `python -m autograder progress`: practice outside JupyterLab.

    drill --list                       the drills (coding drills of chapter 13, numeric drill kinds)
    drill NAME                         show a drill and start its clock
    drill NAME --hints                 show its hints (recorded: a later answer is a retry)
    drill NAME --answer FILE.py        run FILE's function against the drill's visible and hidden tests;
                                       report the time since the start and each test's verdict
    drill KIND --seed N                a numeric drill; answer with --seed N --values X Y Z
    drill                              pick a drill: one never done, else one of the weakest topic
    progress                           per chapter: the last self-check and the drills done; weakest topics

The coding drills and their tests are read from the chapter's solution notebook, so the
terminal and the notebook grade the same way (`autograder.learner.coding_drills`). Results go
into the progress log (`autograder.progress.log_path`: the same file the notebooks and `check` use).
Where each kind of drill lives, and how attempts are counted: docs/ARCHITECTURE.md, section "Drills
and the progress log".
"""
from __future__ import annotations

import random
import re
from pathlib import Path

from .. import progress
from ..errors import CourseError
from .coding_drills import CodingDrill, _duration, format_result, load_drills, run_answer
from .plain_text import latex_to_text


# ---------------------------------------------------------------- commands
def _retry_note(event: dict) -> str:
    if not event.get("retry"):
        return ""
    why = (f"you have seen its {' and '.join(event['seen'])}" if event.get("seen") and event["attempt"] == 1
           else "you have seen a verdict")
    return (f"\nAttempt {event['attempt']}: a retry ({why}); `progress` scores first attempts and counts "
            f"retries apart.")


def _untagged(markdown: str) -> str:
    return re.sub(r"<[^>]+>", "", markdown).strip()


def _plain(markdown: str) -> str:
    """A statement for the terminal: inline and display math as readable text, no Markdown marks."""
    text = re.sub(r"\$\$(.+?)\$\$", lambda m: latex_to_text(m.group(1)), markdown, flags=re.S)
    text = re.sub(r"\$([^$]*)\$", lambda m: latex_to_text(m.group(1)), text)
    return text.replace("**", "").replace("`", "")


def _pick(drills: dict[str, CodingDrill], events: list[dict], rng: random.Random) -> str:
    """The drill `drill` with no name gives: one never done, else one of the weakest topic."""
    from specdec.drills import KINDS
    names = list(drills) + list(KINDS)
    done = {e.get("drill") for e in events if e.get("type") == "drill"}
    done |= {e["drill"].split(":", 1)[1] for e in events if e.get("type") == "drill" and ":" in e.get("drill", "")}
    fresh = [n for n in names if n not in done]
    if fresh:
        return rng.choice(fresh)
    weakest = progress.topic_summary(events)[0]["topic"]
    topic_of = {**{n: d.topic for n, d in drills.items()}, **{k: t for k, (_, t) in KINDS.items()}}
    return rng.choice([n for n in names if topic_of[n] == weakest] or names)


def _numeric(args, log: Path) -> int:
    from specdec.drills import grade, make_question

    seed = args.seed
    if args.values is not None and seed is None:
        raise CourseError("give the --seed of the question you answer, e.g. --seed 7 --values 2.8 1.9 6")
    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    q = make_question(seed, args.name)
    label = f"numeric:{q.kind}"
    if args.values is None:
        progress.start_drill(label, q.topic, q.chapter, path=log, seed=seed)
        print(f"Numeric drill '{q.kind}' (seed {seed}; chapter {q.chapter}, {q.topic})\n\n{q.text}\n")
        print("Parts: " + "; ".join(f"({i + 1}) {p.label}" for i, p in enumerate(q.parts)))
        print(f"\nAnswer with: python -m autograder drill {q.kind} --seed {seed} --values "
              + " ".join(f"X{i + 1}" for i in range(len(q.parts))))
        return 0
    result = grade(q, args.values)
    # Counted over the whole log for this kind and seed: an earlier answer showed the worked answer.
    event = progress.record_answer(label, q.topic, q.chapter, result.correct, path=log, match={"seed": seed},
                                   kind=q.kind, source="cli")
    progress.record_seen(label, progress.WORKED, path=log, seed=seed)
    print(result.summary())
    print(f"\n{'Right.' if result.correct else 'Not yet.'} Time: {_duration(event['seconds'])}{_retry_note(event)}"
          f"\n\nWorked answer: {q.worked}")
    return 0 if result.correct else 1


def drill_main(args) -> int:
    from specdec.drills import KINDS

    log = progress.log_path(args.folder)
    drills = load_drills()
    if args.list:
        print("Coding drills (answer with --answer FILE.py):")
        for d in drills.values():
            print(f"  {d.name:<34} {d.minutes or '?':>3} min  chapter {d.chapter}  {d.topic}")
        print("\nNumeric drills (new numbers with --seed N):")
        for kind, (chapter, topic) in KINDS.items():
            print(f"  {kind:<34}          chapter {chapter}  {topic}")
        return 0
    name = args.name or _pick(drills, progress.read_log(log), random.Random())
    if name in KINDS and args.hints:
        raise CourseError(f"numeric drills have no hints: the worked answer appears after you answer "
                          f"(python -m autograder drill {name} --seed N --values ...)")
    if name in KINDS:
        return _numeric(argparse_namespace(args, name), log)
    if name not in drills:
        raise CourseError(f"unknown drill {name!r}; `python -m autograder drill --list` shows them")
    d = drills[name]
    if args.hints:
        progress.record_seen(d.name, progress.HINTS, path=log)
        for i, hint in enumerate(d.hints, 1):
            print(f"Hint {i}: {_plain(_untagged(hint))}\n")
        print("(Recorded: an answer after the hints counts as a retry, apart from first attempts.)")
        return 0
    if not args.answer:
        progress.start_drill(d.name, d.topic, d.chapter, path=log, minutes=d.minutes)
        print(_plain(d.statement))
        print("\nStart from:\n\nimport numpy as np\n\n" + d.stub)
        print(f"Clock started. When ready: python -m autograder drill {d.name} --answer my_{d.name}.py")
        return 0
    results = run_answer(d, Path(args.answer), timeout=args.timeout)
    # Timed from the drill's last start; numbered over the whole log (a restarted clock is no new first try).
    passed = all(r["ok"] for r in results)
    event = progress.record_answer(d.name, d.topic, d.chapter, passed, path=log, minutes=d.minutes, source="cli")
    print(format_result(d, results, event["seconds"]) + _retry_note(event))
    return 0 if passed else 1


def argparse_namespace(args, name: str):
    args.name = name
    return args


def progress_main(args) -> int:
    from .start import progress_report       # the start page's report: exercises by number and name

    print(progress_report(args.folder))
    return 0


# ---------------------------------------------------------------- argparse wiring (autograder/__main__.py)
def add_drill_parser(sub) -> None:
    p = sub.add_parser("drill", help="interview drills: show one, run your answer file against its tests")
    p.add_argument("name", nargs="?", help="the drill (default: one picked for you); --list shows them")
    p.add_argument("--answer", help="your answer: a .py file defining the drill's function")
    p.add_argument("--values", nargs="+", type=float, help="your numbers, for a numeric drill")
    p.add_argument("--seed", type=int, default=None, help="seed of a numeric drill's numbers")
    p.add_argument("--list", action="store_true", help="list the drills")
    p.add_argument("--hints", action="store_true", help="show a coding drill's hints (a later answer is a retry)")
    p.add_argument("--folder", help="a folder whose progress log to use (default: the course's learner/ folder, "
                                    "where the notebooks and `check` record too)")
    p.add_argument("--timeout", type=int, default=120, help="seconds allowed for the tests (default 120)")


def add_progress_parser(sub) -> None:
    p = sub.add_parser("progress", help="exercises passed by your last self-checks, drills done, weakest topics")
    p.add_argument("--folder", help="a folder whose progress log to read (default: the course's learner/ folder, "
                                    "where the notebooks, `drill` and `check` record)")


def main(args) -> int:
    return progress_main(args) if args.command == "progress" else drill_main(args)
