"""Which exercises of a notebook are optional, and a chapter's points with them counted apart.

An exercise is optional when the heading of its statement says so: the last Markdown heading above
its solution cell that titles an exercise lists `optional` among the words in parentheses
(`## 8 · Exercise 10.4 (interview, optional): ...`), as the course map reads it
(autograder.course_map). The rule for authors and the reports that count such an exercise apart:
docs/EXERCISES.md, section "Statement and hints".

    >>> from autograder.authoring import md, solution
    >>> from autograder.notebooks import new_notebook
    >>> body = "    ### BEGIN SOLUTION\\n    ### END SOLUTION"
    >>> nb = new_notebook([md("## Exercise 1.1 (core): `f`"), solution("def f():\\n" + body, "ex_f"),
    ...                    md("## 2 · Exercise 1.2 (interview, optional): `g`"), md("Write `g`."),
    ...                    solution("def g():\\n" + body, "ex_g")])
    >>> optional_exercises(nb)
    {'ex_g'}
    >>> from autograder.authoring import tests
    >>> optional_tests(new_notebook([*nb.cells, tests("assert g() is None", "test_g", points=4)]))
    {'test_g'}
    >>> split_points({"ex_f": (2.0, 3.0), "ex_g": (0.0, 4.0)}, {"ex_g"})
    ((2.0, 3.0), (0.0, 4.0))
"""
from __future__ import annotations

from .course_map import exercise_heading, read_chapter


def is_optional_title(markdown: str) -> bool | None:
    """True/False when `markdown` holds an exercise heading (its last one decides), None when it holds none."""
    heading = exercise_heading(markdown)
    return None if heading is None else "optional" in heading[1]


def optional_exercises(nb) -> set[str]:
    """Grade ids of the solution cells whose exercise heading says `optional` (autograder.course_map)."""
    return {e.grade_id for e in read_chapter("", nb).exercises if e.optional}


def optional_tests(nb) -> set[str]:
    """Grade ids of the test cells that belong to an optional exercise (those between its solution
    cell and the next solution cell), so a class's grades can count them apart too."""
    return {t for e in read_chapter("", nb).exercises if e.optional for t in e.tests}


def split_points(exercises: dict[str, tuple[float, float]], optional: set[str]
                 ) -> tuple[tuple[float, float], tuple[float, float]]:
    """((got, max) over required exercises, (got, max) over optional ones) from {exercise: (got, max)}."""
    required = [v for k, v in exercises.items() if k not in optional]
    extra = [v for k, v in exercises.items() if k in optional]
    return ((sum(g for g, _ in required), sum(m for _, m in required)),
            (sum(g for g, _ in extra), sum(m for _, m in extra)))
