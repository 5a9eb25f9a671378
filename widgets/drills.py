"""A small form for the numeric interview drills of `specdec.drills`.

`numeric_drill_widget(seed)` returns a `NumericDrill`, an ipywidgets box: a seed box and a
kind menu (change the seed for fresh numbers), the question, one number box per part, a
"Check" button, the verdict, and the worked answer, which appears only after an attempt.
Starting a question starts its clock; checking records the time and the result in the
progress log (`autograder.progress`), and that the worked answer was shown. Attempts are
counted per kind and seed over the whole log: coming back to a seed (a new form, the same seed
typed again, the notebook run again) after its worked answer was shown is a retry, never a new
first attempt. The same steps are plain methods for tests:

    >>> import tempfile, pathlib
    >>> w = numeric_drill_widget(seed=3, kind="round", log=pathlib.Path(tempfile.mkdtemp()) / "log.jsonl")
    >>> w.question.kind, w.worked.layout.display
    ('round', 'none')
    >>> g = w.check([part.answer for part in w.question.parts])
    >>> g.correct, w.worked.layout.display
    (True, None)
    >>> w.seed_box.value = 4          # a new seed: a new question, answers hidden again
    >>> w.question.seed, w.worked.layout.display
    (4, 'none')
    >>> numeric_drill_widget(seed=3).kind_menu.label   # no kind given: the menu shows "any"
    'any'
"""
from __future__ import annotations

import html
from pathlib import Path

import ipywidgets as W

from autograder import progress
from specdec.drills import KINDS, Grade, grade, make_question

MAX_PARTS = 3
ANY = "any"      # the kind menu's entry for a kind chosen by the seed


class NumericDrill(W.VBox):
    """The drill form; `question`, `last_grade` and `message` hold its state."""

    def __init__(self, seed: int = 0, kind: str | None = None, log: str | Path | None = None):
        self.log_file = log
        self.seed_box = W.BoundedIntText(value=seed, min=0, max=10**9, description="seed")
        # "any" is a real option value: a Dropdown whose value is None shows an empty menu.
        self.kind_menu = W.Dropdown(options=[ANY] + list(KINDS), value=ANY, description="kind")
        bad_kind = kind is not None and kind not in KINDS
        if kind is not None and not bad_kind:
            self.kind_menu.value = kind
        self.text = W.HTML()
        self.boxes = [W.Text(description=f"({i + 1})", layout=W.Layout(width="260px")) for i in range(MAX_PARTS)]
        self.button = W.Button(description="Check", button_style="primary")
        self.verdict = W.HTML()
        self.worked = W.HTML(layout=W.Layout(display="none"))
        self.question = None
        self.last_grade: Grade | None = None
        self.message = ""
        self.clock = None
        self.last_event: dict | None = None
        self.seed_box.observe(lambda _: self.new_question(), names="value")
        self.kind_menu.observe(lambda _: self.new_question(), names="value")
        self.button.on_click(lambda _: self.check([b.value for b in self.boxes[:len(self.question.parts)]]))
        super().__init__([W.HBox([self.seed_box, self.kind_menu]), self.text, *self.boxes, self.button,
                          self.verdict, self.worked])
        self.new_question()
        if bad_kind:
            self.message = f"unknown kind {kind!r}: showing any kind; choose one of {', '.join(KINDS)}."
            self.verdict.value = f"<p style='color:#b00'>{html.escape(self.message)}</p>"

    def new_question(self) -> None:
        """Draw the question of the current seed and kind, clear the answers, start its clock."""
        kind = None if self.kind_menu.value == ANY else self.kind_menu.value
        self.question = make_question(int(self.seed_box.value), kind)
        q = self.question
        self.text.value = f"<p><b>{q.kind}</b> (chapter {q.chapter})<br>{html.escape(q.text)}</p>"
        for box, part in zip(self.boxes, q.parts):
            box.description, box.value = part.label[:18], ""
            box.layout.display = None
        for box in self.boxes[len(q.parts):]:
            box.layout.display = "none"
        self.verdict.value, self.message = "", ""
        self.worked.value = f"<p><b>Worked answer.</b> {html.escape(q.worked)}</p>".replace("\n", "<br>")
        self.worked.layout.display = "none"
        self.last_grade = None
        self.clock = progress.start_drill(f"numeric:{q.kind}", q.topic, q.chapter, path=self._log(), seed=q.seed)
        self.last_event = None

    def _log(self):
        return Path(self.log_file) if self.log_file is not None else progress.log_path()

    def check(self, values) -> Grade | None:
        """Grade `values` (numbers or strings), record the attempt, show the verdict and the worked answer."""
        numbers = []
        for part, value in zip(self.question.parts, values):
            try:
                numbers.append(float(value))
            except (TypeError, ValueError):
                self.message = f"'{value}' is not a number: type a number for {part.label}."
                self.verdict.value = f"<p style='color:#b00'>{html.escape(self.message)}</p>"
                return None
        result = grade(self.question, numbers)
        self.last_grade = result
        if self.clock is not None:
            # Timed from the question's (last) start; numbered over the whole log for this kind and seed,
            # so an answer after the verdict and the worked answer were shown is a retry.
            self.last_event = self.clock.finish(result.correct, kind=self.question.kind, seed=self.question.seed)
            progress.record_seen(self.clock.drill, progress.WORKED, path=self.clock.path, seed=self.question.seed)
        # A wrong answer that matches a likely slip is named, as the terminal drill names it.
        rows = "".join(f"<li>{html.escape(r.label)}: {'right' if r.ok else 'not within the tolerance'}"
                       f"{html.escape(': ' + r.slip) if not r.ok and r.slip else ''}</li>" for r in result.results)
        head = "All right." if result.correct else "Not yet: compare with the worked answer below."
        self.verdict.value = f"<p><b>{head}</b></p><ul>{rows}</ul>"
        self.worked.layout.display = None
        return result


def numeric_drill_widget(seed: int = 0, kind: str | None = None, log: str | Path | None = None) -> NumericDrill:
    """The numeric drill form for `seed` (and `kind`, default: chosen by the seed)."""
    return NumericDrill(seed, kind, log)
