"""An executed student notebook turned into a book page: what a learner sees after Run All, made static.

Two kinds of output cannot be shown as they are on a static page:

* A widget's output is a reference to live state in the kernel. Its static picture is read from
  the widget state the executor saved in the notebook (`metadata.widgets`): the images of its
  `Image` widgets, the text of its `HTML`/`Label` readouts and the outputs of its `Output`
  widgets, in the widget's layout order, with a line naming the initial value of each control
  and saying that the widget is interactive in JupyterLab.
* A test cell of the unsolved copy stops with the stub's `NotImplementedError` (or an
  `AssertionError`). Its traceback says nothing a reader needs and fills a screen per test; the
  page shows one line instead, with the error's type and message, so a reader still sees that
  the cell fails until the function above is written.

Math in a folded block's title (`<details><summary>... $x$ ...</summary>`) sits in raw HTML, which
the Markdown parser passes through untouched; JupyterLab typesets it anyway, so the page marks it
as math too.

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook()
    >>> cell = nbformat.v4.new_code_cell("assert f(1) == 2", metadata={"nbgrader": {"grade": True}})
    >>> cell.outputs = [nbformat.v4.new_output("error", ename="NotImplementedError", evalue="Replace this line",
    ...                                        traceback=["..."])]
    >>> nb.cells = [cell]
    >>> out = book_page(nb).cells[0].outputs
    >>> [o.output_type for o in out], "NotImplementedError: Replace this line" in out[0].data["text/html"]
    (['display_data'], True)
"""
from __future__ import annotations

import copy
import html
import re

import nbformat

from autograder.notebooks import is_test

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
INTERACTIVE_NOTE = "Interactive in JupyterLab: this is the widget's initial state; run the chapter to move its controls."


_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$([^$\n]+?)\$(?!\$)")


def summary_math(source: str) -> str:
    """`source` with the `$...$` math of its `<summary>` titles marked up as the page's other math.

    >>> summary_math("<details><summary>Why $p/q$?</summary> $x$")
    '<details><summary>Why <span class="math notranslate nohighlight">\\\\(p/q\\\\)</span>?</summary> $x$'
    """
    def mark(summary):
        return "<summary>" + _INLINE_MATH.sub(
            lambda m: f'<span class="math notranslate nohighlight">\\({html.escape(m.group(1), quote=False)}\\)</span>',
            summary.group(1)) + "</summary>"
    return _SUMMARY.sub(mark, source)


def _html_output(fragment: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("display_data", data={"text/html": fragment, "text/plain": ""})


def _test_cell_note(error) -> nbformat.NotebookNode:
    message = html.escape(f"{error.ename}: {error.evalue}".strip())
    return _html_output(
        '<p class="course-test-note">In the unsolved copy this test cell stops with '
        f"<code>{message}</code>; it runs silently once the exercise above is solved.</p>")


# --- widgets -----------------------------------------------------------------------------------

def _ref(value) -> str | None:
    return value[len("IPY_MODEL_"):] if isinstance(value, str) and value.startswith("IPY_MODEL_") else None


def _shown(value) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _control_value(state: dict):
    labels = state.get("_options_labels")
    if labels is not None:
        index = state.get("index")
        if isinstance(index, list):
            return ", ".join(labels[i] for i in index)
        return labels[index] if isinstance(index, int) and 0 <= index < len(labels) else None
    return state.get("value")


def _walk(model_id: str, models: dict, outputs: list, controls: list, seen: set) -> None:
    """Collect, in layout order, the static parts of widget `model_id` and its children."""
    if model_id in seen or model_id not in models:
        return
    seen.add(model_id)
    model = models[model_id]
    name, state = model.get("model_name", ""), model.get("state", {})
    if name == "ImageModel":
        data = next((b["data"] for b in model.get("buffers", []) if b.get("path") == ["value"]), None)
        fmt = state.get("format", "png")
        if data and fmt in ("png", "jpeg"):
            outputs.append(nbformat.v4.new_output("display_data", data={f"image/{fmt}": data, "text/plain": ""}))
    elif name in ("HTMLModel", "HTMLMathModel", "LabelModel"):
        if state.get("value"):
            text = state["value"] if name != "LabelModel" else html.escape(state["value"])
            outputs.append(_html_output(f'<div class="course-widget-readout">{text}</div>'))
    elif name == "OutputModel":
        for out in state.get("outputs", []):
            outputs.extend(_static_outputs(nbformat.from_dict(out), models))
    elif "description" in state and name not in ("ButtonModel",) and _control_value(state) is not None:
        controls.append((state["description"] or name.removesuffix("Model"), _control_value(state)))
    for child in state.get("children", []):
        if _ref(child):
            _walk(_ref(child), models, outputs, controls, seen)


def _widget_picture(model_id: str, models: dict) -> list:
    outputs, controls = [], []
    _walk(model_id, models, outputs, controls, set())
    shown = "; ".join(f"{html.escape(str(d).rstrip(':'))} = {html.escape(_shown(v))}" for d, v in controls)
    note = f'<p class="course-widget-note"><b>{INTERACTIVE_NOTE}</b>'
    note += f"<br>Controls at start: {shown}.</p>" if shown else "</p>"
    return [_html_output(note)] + outputs


def _static_outputs(out, models: dict) -> list:
    data = out.get("data", {})
    if WIDGET_VIEW in data:
        return _widget_picture(data[WIDGET_VIEW]["model_id"], models)
    return [out]


# --- the page ------------------------------------------------------------------------------------

def book_page(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of executed notebook `nb` ready for the static site (widgets as pictures, test-cell
    tracebacks as one line, no widget state left for a page to load scripts for)."""
    nb = copy.deepcopy(nb)
    widgets = nb.metadata.pop("widgets", {}) or {}
    models = widgets.get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = summary_math(cell.source)
        if cell.cell_type != "code":
            continue
        test_cell = is_test(cell)
        outputs = []
        for out in cell.get("outputs", []):
            if out.output_type == "error" and test_cell:
                outputs.append(_test_cell_note(out))
            else:
                outputs.extend(_static_outputs(out, models))
        cell.outputs = outputs
    return nb

