"""Check my work from inside the notebook: the self-check of `python -m autograder check`, no terminal.

The last cell of every chapter (added by `release`) calls `check_button("NN_slug")`; pressing the
button runs `check_in_notebook`, which grades **the saved notebook** with the same pipeline as the
terminal command (`autograder.learner.check.run_check`: the grader's preprocessors, the instructor's
test cells, hidden ones included in the full course), shows the points per exercise and each
failing test's message under the button, and records the result in the progress log.

The check reads the saved file, not the editor. Before grading, it compares each exercise cell of
the saved file with the last version this kernel ran (IPython's input history): when they differ
the learner has run an edit that is not saved, and the check says "save first (Ctrl+S)" instead
of grading an old version.

    >>> unsaved_exercises({"ex_tv": "def tv(p, q):\\n    return 0"}, ["def tv(p, q):\\n    return 1"])
    ['ex_tv']
    >>> unsaved_exercises({"ex_tv": "def tv(p, q):\\n    return 1"}, ["x = 2", "def tv(p, q):\\n    return 1"])
    []
"""
from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import CourseError

_DEF = re.compile(r"^(?:async\s+)?(?:def|class)\s+(\w+)", re.M)


@dataclass
class NotebookCheck:
    """What a press of the button produced: the notebook, the outcomes (empty when nothing ran) and
    a message for the learner (a reason nothing ran, or the bundle's note)."""

    notebook: Path | None
    outcomes: list
    elapsed: float
    message: str = ""

    @property
    def points(self) -> tuple[float, float]:
        """(points, max) over the required exercises: the chapter's total."""
        return self._split()[0]

    @property
    def optional_points(self) -> tuple[float, float]:
        """(points, max) over the optional exercises, reported apart."""
        return self._split()[1]

    def _split(self):
        from ..exercises import split_points
        from .check import exercise_points, optional_of

        return split_points(exercise_points(self.outcomes), optional_of(self.outcomes))


def _defined(source: str) -> set[str]:
    return set(_DEF.findall(source))


def unsaved_exercises(saved: dict[str, str], history: list[str]) -> list[str]:
    """Exercise ids whose last run version (the latest entry of `history` defining the same
    functions) differs from the saved source. Exercises never run in this kernel are not listed."""
    out = []
    for grade_id, source in saved.items():
        names = _defined(source)
        if not names:
            continue
        ran = [h for h in history if names & _defined(h)]
        if ran and ran[-1].strip() != source.strip():
            out.append(grade_id)
    return out


def _history() -> list[str]:
    try:
        from IPython import get_ipython
    except ImportError:
        return []
    ip = get_ipython()
    if ip is None:
        return []
    return [h for h in ip.user_ns.get("In", []) if isinstance(h, str)]


def notebook_path(chapter: str, notebook: str | Path | None = None) -> Path:
    """The saved file of this notebook: `notebook` if given, else the file the kernel was started
    for (JupyterLab tells the kernel as `__session__`), else `NN_slug.ipynb` in the current folder."""
    if notebook is not None:
        return Path(notebook)
    session = None
    try:
        from IPython import get_ipython

        ip = get_ipython()
        session = ip.user_ns.get("__session__") if ip is not None else None
    except ImportError:
        pass
    session = session or os.environ.get("JPY_SESSION_NAME")
    if session and str(session).endswith(".ipynb") and Path(session).is_file():
        return Path(session)
    guess = Path.cwd() / f"{chapter}.ipynb"
    if guess.is_file():
        return guess
    raise CourseError(f"could not find this notebook's file (looked for {guess}); run "
                      f"check_in_notebook({chapter!r}, notebook='path/to/your.ipynb')")


def check_in_notebook(chapter: str, notebook: str | Path | None = None, history: list[str] | None = None,
                      timeout: int = 120, record: bool = True) -> NotebookCheck:
    """Grade the saved notebook of `chapter` as `python -m autograder check` does; record the result."""
    from .. import notebooks
    from ..notebooks import grade_id_of, is_solution
    from ..paths import in_bundle
    from .check import BUNDLE_NOTE, _record, run_check

    path = notebook_path(chapter, notebook)
    saved = {grade_id_of(c): c.source for c in notebooks.read(path).cells
             if c.cell_type == "code" and is_solution(c)}
    stale = unsaved_exercises(saved, _history() if history is None else history)
    if stale:
        names = ", ".join(s.removeprefix("ex_") for s in stale)
        return NotebookCheck(path, [], 0.0,
                             f"Save first (Ctrl+S): the version of {names} you last ran differs from the saved "
                             f"file, and the check grades the saved file. (If the saved version is the one you "
                             f"want checked, run its cell again.) Then press the button again.")
    outcomes, elapsed = run_check(path, timeout=timeout)
    if record:
        _record(path, outcomes)
    return NotebookCheck(path, outcomes, elapsed, BUNDLE_NOTE if in_bundle() else "")


def report_html(result: NotebookCheck) -> str:
    """The result as HTML: a line per exercise (points), failing tests with their messages (wrapped)."""
    esc = html.escape
    parts = []
    if not result.outcomes:
        return f"<div style='color:#a40000'><b>{esc(result.message)}</b></div>"
    got, full = result.points
    parts.append(f"<div><b>Total: {got:g} / {full:g}</b> &nbsp; ({esc(result.notebook.name)}, saved file, "
                 f"{result.elapsed:.0f} s)</div><ul style='margin-top:4px'>")
    exercises: dict[str, list] = {}
    for o in result.outcomes:
        exercises.setdefault(o.exercise, []).append(o)
    for exercise, tests in exercises.items():
        e_got, e_full = sum(t.points for t in tests), sum(t.max_points for t in tests)
        mark = "&#10003;" if e_got >= e_full else "&#10007;"
        optional = " <i>(optional, not in the total)</i>" if tests[0].optional else ""
        parts.append(f"<li>{mark} <b>{esc(exercise.removeprefix('ex_'))}</b>: {e_got:g} / {e_full:g}{optional}")
        failing = [t for t in tests if t.message]
        if failing:
            parts.append("<ul>")
            for t in failing:
                parts.append(f"<li>{esc(t.grade_id)} ({t.points:g}/{t.max_points:g})<pre style='white-space:pre-wrap;"
                             f"word-break:break-word;margin:2px 0'>{esc(t.message[:3000])}</pre></li>")
            parts.append("</ul>")
        parts.append("</li>")
    parts.append("</ul>")
    o_got, o_full = result.optional_points
    if o_full:
        parts.append(f"<div>Optional exercises, not in the total: {o_got:g} / {o_full:g}</div>")
    if result.message:
        parts.append(f"<div><i>{esc(result.message)}</i></div>")
    return "".join(parts)


def report_text(result: NotebookCheck) -> str:
    from .check import format_report

    if not result.outcomes:
        return result.message
    text = format_report(result.outcomes, result.elapsed, result.notebook.name)
    return text + (f"\n{result.message}" if result.message else "")


class CheckButton:
    """The Check my work button and the report under it (`widget`); `press()` does what a click does."""

    def __init__(self, chapter: str, notebook: str | Path | None = None):
        import ipywidgets as w

        self.chapter, self.notebook = chapter, notebook
        self.button = w.Button(description="Check my work", button_style="primary", icon="check",
                               layout=w.Layout(width="auto"))
        self.status = w.HTML("Save first (<b>Ctrl+S</b>): the check grades the saved notebook "
                             "(about 10 s to a minute).")
        self.report = w.HTML()
        self.result: NotebookCheck | None = None
        self.button.on_click(lambda _: self.press())
        self.widget = w.VBox([w.HBox([self.button, self.status]), self.report])

    def press(self) -> NotebookCheck | None:
        self.button.disabled = True
        self.status.value = "Checking the saved notebook&hellip;"
        self.report.value = ""
        try:
            self.result = check_in_notebook(self.chapter, self.notebook)
            self.report.value = report_html(self.result)
            self.status.value = ("Recorded in your progress log." if self.result.outcomes
                                 else "Nothing was graded.")
        except CourseError as err:
            self.result = None
            self.report.value = f"<div style='color:#a40000'>{html.escape(str(err))}</div>"
            self.status.value = "The check could not run."
        finally:
            self.button.disabled = False
        return self.result

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def check_button(chapter: str, notebook: str | Path | None = None) -> CheckButton:
    """The last cell of every chapter: `check_button("03_acceptance_rule")` shows the button."""
    return CheckButton(chapter, notebook)
