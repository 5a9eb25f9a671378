"""The start page `./course lab` opens: `START_HERE.ipynb` in the learner's folder.

It holds the course map (each chapter: a link, what it teaches, its exercises), how to work
(read, run, exercise, hints, check, drills), and the learner's progress read from the log.
`./course lab` rewrites it every time it starts (it holds no work of the learner's; the progress
table is as of that moment, and its last cell shows the current one). It is written with the
language information of the Python that runs the course's kernels (`learn.kernel_metadata`), so
opening it to read never marks it as changed.

    >>> goals("**Learning goals.** After this chapter you can\\n\\n1. do $x$;\\n2. prove y.\\n\\nMore.")
    ['do $x$;', 'prove y.']
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .. import notebooks, progress
from ..notebooks import grade_id_of, is_solution
from ..paths import START_PAGE_NAME, in_bundle, student_chapter_names, student_notebook_path

START_PAGE = START_PAGE_NAME


@dataclass
class ChapterEntry:
    name: str            # '01_cost_model'
    title: str           # '01 · Checking several tokens costs about as much as writing one'
    goals: list[str]
    exercises: list[str]  # ['`t_pass`', ...]: the functions the learner writes


def goals(markdown: str) -> list[str]:
    """The numbered learning goals that follow '**Learning goals.**' (joined lines)."""
    start = markdown.find("goals.**")
    if start < 0:
        return []
    items, current = [], None
    for line in markdown[start:].splitlines()[1:]:
        m = re.match(r"^\s*\d+\.\s+(.*)", line)
        if m:
            current = m.group(1).strip()
            items.append(current)
        elif line.strip() and items and line.startswith((" ", "\t")):
            items[-1] = items[-1] + " " + line.strip()
        elif items and not line.strip():
            if current is not None:
                current = None
                continue
        elif items:
            break
    return items


def chapter_entry(name: str) -> ChapterEntry:
    nb = notebooks.read(student_notebook_path(name))
    first = nb.cells[0].source if nb.cells else ""
    title = first.splitlines()[0].lstrip("# ").strip() if first else name
    exercises = []
    for cell in nb.cells:
        grade_id = grade_id_of(cell)
        if cell.cell_type == "code" and is_solution(cell) and grade_id not in exercises:
            exercises.append(grade_id)
    exercises = [f"`{g.removeprefix('ex_')}`" for g in exercises]
    return ChapterEntry(name, title, goals(first), exercises)


def _progress_line(name: str, events: list[dict]) -> str:
    checks = [e for e in events if e.get("type") == "check" and e.get("chapter") == name]
    if not checks:
        return "not checked yet"
    optional = set(checks[-1].get("optional", []))      # reported apart, never in the count
    ex = {k: v for k, v in checks[-1].get("exercises", {}).items() if k not in optional}
    passed = sum(1 for got, full in ex.values() if full and got >= full)
    extra = f", optional {', '.join(sorted(o.removeprefix('ex_') for o in optional))} apart" if optional else ""
    return (f"{passed}/{len(ex)} exercises passed{extra} "
            f"(last check {checks[-1].get('when', '?')[:16].replace('T', ' ')})")


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
    for name in student_chapter_names():
        entry = chapter_entry(name)
        link = f"[{entry.title}]({name}.ipynb)"
        rows.append(f"| {link} | {', '.join(entry.exercises) or '-'} | {_progress_line(name, events)} |")
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


def show_progress(folder: str | Path | None = None) -> None:
    """Print the progress recorded in `folder`'s log (default: the log every course command uses,
    `progress.log_path`: the learner's folder, wherever this notebook is)."""
    log = progress.log_path(folder)
    print(f"Progress log: {progress.describe(log)}\n")
    print(progress.format_progress(progress.read_log(log), progress.course_chapters()))


def write_start_page(folder: Path) -> Path:
    """Write `folder/START_HERE.ipynb` (replacing an older one); return its path."""
    from .learn import write_for_learner

    path = Path(folder) / START_PAGE
    write_for_learner(start_notebook(Path(folder)), path)
    return path
