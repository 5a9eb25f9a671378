"""The course map: each chapter's number, title, learning goals and exercises, read from its notebook.

The one reader of what a chapter asks for: the start page (`autograder.learner.start`), the book's
course map (`book/build.py`), the optional flags (`autograder.exercises`) and the README's chapter
table (tests/test_course_map.py) all take their lists from here, so they show the same exercises,
with the same numbers and names, in the order of the chapter. The rules an author follows
(docs/AUTHORING.md, section "Chapter skeleton"; docs/EXERCISES.md, section "Statement and hints"):

* the title is the first line of the first cell, a `# ` heading;
* the learning goals are the numbered list right after `**Learning goals.**` in that cell;
* each solution cell is an exercise, numbered by the last exercise heading above it
  (`## 3 · Exercise 10.1 (core): ...`; a heading `Exercises 5.1-5.3 (core): ...` numbers the
  solution cells below it in turn until the next heading); the words in its parentheses are its
  kinds (`core`, `interview`, `optional`); its names are the functions the cell defines (what a
  learner writes and, in chapter 13, what `python -m autograder drill` accepts); its points are
  those of the test cells up to the next solution cell.

    >>> from autograder.authoring import md, solution, tests
    >>> from autograder.notebooks import new_notebook
    >>> body = "    ### BEGIN SOLUTION\\n    ### END SOLUTION"
    >>> nb = new_notebook([
    ...     md("# 05 · Speedup\\n\\n**Learning goals.** After this chapter you can\\n\\n1. derive $n$;\\n2. pick gamma."),
    ...     md("## Exercises 5.1-5.2 (core): `f`, `g`"), solution("def f():\\n" + body, "ex_f"),
    ...     tests("assert f() is None", "test_f", points=2),
    ...     md("### Exercise 5.2 (interview, optional): `g` and `h`"),
    ...     solution("def g():\\n" + body + "\\ndef h():\\n" + body, "ex_gh"),
    ...     tests("assert g() is None", "test_g", points=1), tests("assert h() is None", "test_h", points=3)])
    >>> ch = read_chapter("05_speedup", nb)
    >>> ch.title, ch.goals
    ('05 · Speedup', ['derive $n$;', 'pick gamma.'])
    >>> [(e.number, e.names, e.points, e.optional, e.tests) for e in ch.exercises]
    [('5.1', ('f',), 2.0, False, ('test_f',)), ('5.2', ('g', 'h'), 4.0, True, ('test_g', 'test_h'))]
    >>> [e.label() for e in ch.exercises]
    ['5.1 `f`', '5.2 `g` + `h` (optional)']

Importing this module reads nothing; `course_map()` reads the notebooks when called.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import notebooks
from .notebooks import grade_id_of, is_grade, is_solution, nbgrader_meta
from .paths import DRILLS_CHAPTER, chapter_names, reference_notebook_path

# An exercise heading: a Markdown heading naming `Exercise N.k (kinds)` or `Exercises N.k-N.m (kinds)`.
_HEADING = re.compile(r"^#+[^\n]*?\bExercises?\s+(\d+)\.(\d+)(?:\s*[-–]\s*(?:\d+\.)?(\d+))?\s*\(([^)]*)\)", re.M)
_DEF = re.compile(r"^def (\w+)\(", re.M)
GOALS_MARK = "**Learning goals.**"


@dataclass(frozen=True)
class Exercise:
    number: str | None               # '5.2', as its heading gives it (None: no heading above it)
    names: tuple[str, ...]           # the functions the learner writes: ('reserve', 'trim')
    grade_id: str                    # 'ex_reserve_trim' (nbgrader's id, what the logs record)
    points: float                    # of its test cells (in a bundle: the visible ones)
    kinds: tuple[str, ...] = ()      # ('core',), ('interview', 'optional')
    tests: tuple[str, ...] = ()      # grade ids of its test cells
    drill: str | None = None         # chapter 13: the name `python -m autograder drill` accepts

    @property
    def optional(self) -> bool:
        return "optional" in self.kinds

    def label(self, code: str = "`", mark_optional: bool = True) -> str:
        """'10.1 `reserve` + `trim`', '11.2 `ragged_verify` (optional)' (`code=""`: for plain text)."""
        names = " + ".join(f"{code}{n}{code}" for n in self.names)
        optional = " (optional)" if mark_optional and self.optional else ""
        return f"{self.number + ' ' if self.number else ''}{names}{optional}"


@dataclass(frozen=True)
class Chapter:
    name: str                        # '05_speedup'
    title: str                       # '05 · How many tokens a round produces, and the speedup'
    goals: list[str] = field(default_factory=list)
    exercises: list[Exercise] = field(default_factory=list)

    @property
    def number(self) -> str:
        return self.name.split("_", 1)[0]


def exercise_heading(markdown: str) -> tuple[list[str], tuple[str, ...]] | None:
    """(numbers, kinds) of the last exercise heading in `markdown`, None when it has none.

    >>> exercise_heading("## 8 · Exercise 10.4 (interview, optional): blocks shared")
    (['10.4'], ('interview', 'optional'))
    >>> exercise_heading("## Exercises 5.1-5.3 (core): `expected_tokens`, `speedup`, `best_gamma`")
    (['5.1', '5.2', '5.3'], ('core',))
    >>> exercise_heading("Exercise 10.4 (interview, optional) in a sentence is not a heading") is None
    True
    """
    found = _HEADING.findall(markdown)
    if not found:
        return None
    chapter, first, last, kinds = found[-1]
    numbers = [f"{chapter}.{k}" for k in range(int(first), int(last or first) + 1)]
    return numbers, tuple(w.strip().lower() for w in kinds.split(",") if w.strip())


def goals(markdown: str) -> list[str]:
    """The numbered learning goals right after '**Learning goals.**' (each item's lines joined).

    >>> goals("**Learning goals.** After this chapter you can\\n\\n1. do $x$;\\n2. prove\\n   y.\\n\\nMore.")
    ['do $x$;', 'prove y.']
    """
    start = markdown.find(GOALS_MARK)
    if start < 0:
        return []
    items: list[str] = []
    for line in markdown[start:].splitlines()[1:]:
        item = re.match(r"^\s*\d+\.\s+(.*)", line)
        if item:
            items.append(item.group(1).strip())
        elif items and line.strip() and line.startswith((" ", "\t")):
            items[-1] += " " + line.strip()
        elif items and line.strip():
            break                                   # the paragraph after the list
    return items


def read_chapter(name: str, nb, drills: set[str] | None = None) -> Chapter:
    """Chapter `name`'s map, read from its notebook `nb` (a solution or a student notebook: both
    have the headings, the solution cells' `def` lines and the test cells). `drills`: the coding
    drills' names (`autograder.learner.coding_drills.load_drills`), for chapter 13's exercises."""
    first = nb.cells[0].source if nb.cells else ""
    title = first.splitlines()[0].lstrip("#").strip() if first.strip() else name
    exercises: list[dict] = []
    numbers: list[str] = []
    kinds: tuple[str, ...] = ()
    for cell in nb.cells:
        if cell.get("cell_type") == "markdown":
            heading = exercise_heading(cell.get("source", ""))
            if heading is not None:
                numbers, kinds = list(heading[0]), heading[1]
        elif is_solution(cell):
            grade_id = grade_id_of(cell) or ""
            names = tuple(_DEF.findall(cell.get("source", ""))) or (grade_id.removeprefix("ex_"),)
            drill = next((n for n in names if n in (drills or ())), None)
            exercises.append(dict(number=numbers.pop(0) if numbers else None, names=names, grade_id=grade_id,
                                  points=0.0, kinds=kinds, tests=(), drill=drill))
        elif is_grade(cell) and exercises:
            exercises[-1]["points"] += float(nbgrader_meta(cell).get("points", 0))
            exercises[-1]["tests"] += (grade_id_of(cell),)
    return Chapter(name, title, goals(first), [Exercise(**e) for e in exercises])


def chapter(name: str) -> Chapter:
    """Chapter `name`'s map from the instructor's notebook (in a student bundle: the student notebook)."""
    drills = None
    if name == DRILLS_CHAPTER:
        from .learner.coding_drills import load_drills
        drills = set(load_drills())
    return read_chapter(name, notebooks.read(reference_notebook_path(name)), drills)


def course_map() -> list[Chapter]:
    """Every chapter's map, in order."""
    return [chapter(name) for name in chapter_names()]


def exercise_list(ch: Chapter) -> str:
    """`ch`'s exercises as the README's chapter table, the start page and the book list them; chapter
    13's numeric drills after its coding drills (`python -m autograder drill --list` shows both).

        >>> exercise_list(Chapter("10_cache", "10", [], [Exercise("10.1", ("reserve", "trim"), "ex_rt", 6.0),
        ...                                             Exercise("10.2", ("gather",), "ex_g", 4.0)]))
        '10.1 `reserve` + `trim`, 10.2 `gather`'
    """
    text = ", ".join(e.label() for e in ch.exercises) or "-"
    if ch.name == DRILLS_CHAPTER:
        text += "; numeric drills " + ", ".join(f"`{kind}`" for kind in numeric_drills())
    return text


def numeric_drills() -> list[str]:
    """The numeric drills' names, as `python -m autograder drill --list` shows them."""
    from specdec.drills import KINDS

    return list(KINDS)
