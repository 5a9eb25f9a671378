"""The start page `./course lab` opens: `START_HERE.ipynb` in the learner's folder.

It holds the course map (each chapter: a link, what it teaches, its exercises), how to work
(read, run, exercise, hints, check, drills), and the learner's progress read from the log.
`./course lab` rewrites it every time it starts (it holds no work of the learner's; the progress
table is as of that moment, and its last cell shows the current one). It is written with the
language information of the Python that runs the course's kernels (`learn.kernel_metadata`), so
opening it to read never marks it as changed.

The chapters, their goals and their exercises come from the course map (autograder.course_map):
numbered as the chapters number them, named as a learner types them, in the order of the chapter.

    >>> from autograder.course_map import Chapter, Exercise
    >>> ch = Chapter("10_cache", "10 · Caches", [], [Exercise("10.1", ("reserve", "trim"), "ex_reserve_trim", 6.0),
    ...                                              Exercise("10.4", ("trim_shared",), "ex_shared", 4.0, ("optional",))])
    >>> event = {"type": "check", "chapter": "10_cache", "when": "2026-12-06T18:00",
    ...          "exercises": {"ex_reserve_trim": [6, 6], "ex_shared": [0, 4]}, "optional": ["ex_shared"]}
    >>> _progress_line(ch, [event])
    '1/1 exercises passed, optional 10.4 `trim_shared` apart (last check 2026-12-06 18:00)'
"""
from __future__ import annotations

import html
from pathlib import Path

from .. import notebooks, progress
from ..course_map import Chapter, chapter, course_map, exercise_list
from ..paths import START_PAGE_NAME, in_bundle

START_PAGE = START_PAGE_NAME


def _progress_line(entry: Chapter | str, events: list[dict]) -> str:
    """The start page's progress cell of a chapter (`entry`: its map, or its name)."""
    entry = chapter(entry) if isinstance(entry, str) else entry
    checks = [e for e in events if e.get("type") == "check" and e.get("chapter") == entry.name]
    if not checks:
        return "not checked yet"
    optional = set(checks[-1].get("optional", []))      # reported apart, never in the count
    ex = {k: v for k, v in checks[-1].get("exercises", {}).items() if k not in optional}
    passed = sum(1 for got, full in ex.values() if full and got >= full)
    labels = [e.label(mark_optional=False) for e in entry.exercises if e.grade_id in optional]
    labels += sorted(o.removeprefix("ex_") for o in optional - {e.grade_id for e in entry.exercises})
    extra = f", optional {', '.join(labels)} apart" if optional else ""
    return (f"{passed}/{len(ex)} exercises passed{extra} "
            f"(last check {checks[-1].get('when', '?')[:16].replace('T', ' ')})")


def in_chapter_order(events: list[dict], chapters: list[Chapter]) -> list[dict]:
    """The log's events with each check's exercises named as the course map names them ('5.2 speedup')
    and listed in the chapter's order (the log keeps nbgrader's grade ids, sorted).

        >>> from autograder.course_map import Exercise
        >>> ch = Chapter("05_speedup", "05", [], [Exercise("5.1", ("n",), "ex_n", 2.0), Exercise("5.2", ("s",), "ex_s", 2.0)])
        >>> in_chapter_order([{"type": "check", "chapter": "05_speedup", "exercises": {"ex_s": [0, 2], "ex_n": [2, 2]}}], [ch])
        [{'type': 'check', 'chapter': '05_speedup', 'exercises': {'5.1 n': [2, 2], '5.2 s': [0, 2]}, 'optional': []}]
    """
    by_name = {c.name: c for c in chapters}
    out = []
    for event in events:
        entry = by_name.get(event.get("chapter")) if event.get("type") == "check" else None
        if entry is None:
            out.append(event)
            continue
        order = {e.grade_id: i for i, e in enumerate(entry.exercises)}
        label = {e.grade_id: e.label(code="", mark_optional=False) for e in entry.exercises}
        done = sorted(event.get("exercises", {}).items(), key=lambda kv: order.get(kv[0], len(order)))
        out.append({**event, "exercises": {label.get(k, k): v for k, v in done},
                    "optional": [label.get(k, k) for k in event.get("optional", [])]})
    return out


HOW_TO_WORK = """## How to work

1. **Read and run.** Open a chapter (links below) and run it from the top (*Run > Run All Cells*, or
   **Shift+Enter** cell by cell). Run All runs the whole chapter: a test cell of an exercise you have not
   solved yet shows its error in red and the run goes on, so every figure and widget appears.
2. **Exercises.** Each exercise has a statement, a cell to write your function in (replace the
   `raise NotImplementedError` line), folded **hints** (click to open: a nudge first, then the key
   idea), and test cells below it. Run your cell, then the tests: a passing test prints nothing or a
   short confirmation, a failing one says which case failed and why.
3. **Check your work.** Save (**Ctrl+S**) and press **Check my work** at the end of the chapter. It
   grades the saved notebook as the course's grader does ({hidden}), shows your points per
   exercise with the message of each failing test, and records the result here.
4. **Practise.** Chapter 13 has timed interview drills; the progress log keeps your first attempt at each
   and its time against the suggested time.

Your notebooks live in this folder and are yours: updating the course never overwrites them. In a
terminal (*File > New > Terminal*) the same tools run as commands, for example
`python -m autograder check 01_cost_model.ipynb` and `python -m autograder progress`.
"""


def start_notebook(folder: Path) -> "notebooks.nbformat.NotebookNode":
    """The start page for a learner working in `folder` (links are relative to it)."""
    from ..notebooks import new_code, new_markdown, new_notebook

    events = progress.read_log(progress.log_path(folder))
    hidden = ("the visible tests here; the hidden tests run when your work is graded" if in_bundle()
              else "visible and hidden tests")
    cells = [new_markdown("# Speculative decoding: start here\n\n"
                          "A course in thirteen chapters, from the cost of one decoding step to a lab that drafts "
                          "with a small GPT-2 for a large one. Each chapter explains, derives and then asks you to "
                          "write the key functions yourself; the tests tell you at once whether they are right.\n\n"
                          "This page is rewritten each time the course starts (`./course lab`): keep notes elsewhere.")]
    cells.append(new_markdown(HOW_TO_WORK.format(hidden=hidden)))
    rows = ["## The chapters\n", "| Chapter | Exercises | Your progress |", "|---|---|---|"]
    details = ["### What each chapter teaches\n"]
    for entry in course_map():
        name = entry.name
        link = f"[{entry.title}]({name}.ipynb)"
        rows.append(f"| {link} | {exercise_list(entry)} | {_progress_line(entry, events)} |")
        goal_list = "\n".join(f"- {g}" for g in entry.goals) or "- (see the chapter's introduction)"
        details.append(f"<details><summary><b>{entry.title}</b></summary>\n\n{goal_list}\n\n"
                       f"[Open the chapter]({name}.ipynb)\n\n</details>\n")
    cells.append(new_markdown("\n".join(rows)))
    cells.append(new_markdown("\n".join(details)))
    cells.append(new_markdown("## Your progress now\n\nThe table above is as of the start of this session. "
                              "Run the cell below for the current state: per chapter the last check, and the "
                              "drills you did (first attempts, with their times)."))
    cells.append(new_code("from autograder.learner.start import show_progress\n\nshow_progress()"))
    return new_notebook(cells)


def progress_report(folder: str | Path | None = None) -> str:
    """The progress recorded in `folder`'s log (default: the log every course command uses,
    `progress.log_path`: the learner's folder), each exercise named as the course map names it, its
    number beside the name the learner types ('5.2 speedup', '10.1 reserve + trim'), in the chapter's
    order: what `python -m autograder progress` prints and the start page's last cell shows."""
    log = progress.log_path(folder)
    chapters = course_map()
    return (f"Progress log: {progress.describe(log)}\n\n"
            + progress.format_progress(in_chapter_order(progress.read_log(log), chapters), [c.name for c in chapters]))


def show_progress(folder: str | Path | None = None) -> None:
    """Print `progress_report(folder)`."""
    _show_text(progress_report(folder))


def _show_text(text: str) -> None:
    """Print `text`; in a notebook, as preformatted HTML whose lines wrap between words only. (JupyterLab
    shows printed text in a `<pre>` styled `word-break: break-all`, which cut the progress lines inside
    words, 'aga inst', 'speedu p', wherever they met the output's right edge.)"""
    from IPython import get_ipython

    if get_ipython() is None:
        print(text)
        return
    from IPython.display import display

    style = "white-space: pre-wrap; word-break: normal; overflow-wrap: break-word; margin: 0"
    display({"text/plain": text, "text/html": f'<pre style="{style}">{html.escape(text)}</pre>'}, raw=True)


def write_start_page(folder: Path) -> Path:
    """Write `folder/START_HERE.ipynb` (replacing an older one); return its path."""
    from .learn import write_for_learner

    path = Path(folder) / START_PAGE
    write_for_learner(start_notebook(Path(folder)), path)
    return path
