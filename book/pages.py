"""An executed student notebook turned into a book page: what a learner sees after Run All, made static.

`book_page` rewrites a copy for a web reader: a widget becomes a picture of its initial state
(`_widget_picture`; a live widget runs in the page, book/live_widgets.py), a failing test cell's
traceback one line (`_test_cell_note`), the note on checking your work one for a web reader
(`WEB_CHECK_NOTE`); a code cell that only draws is folded (`draws_only`), each image gets alt text
(`image_alt`), citations link to the references page (book/references.py), math in a folded
block's title is typeset (`summary_math`), and a line under the title offers the downloads
(`get_the_chapter`). What a reader gets: the README, section "Reading the course as a website";
what an author does for it: docs/AUTHORING.md, sections "Widgets" and "Figures, citations and
text in the book".

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook()
    >>> cell = nbformat.v4.new_code_cell("assert f(1) == 2", metadata={"nbgrader": {"grade": True}})
    >>> cell.outputs = [nbformat.v4.new_output("error", ename="NotImplementedError", evalue="Replace this line",
    ...                                        traceback=["..."])]
    >>> nb.cells = [cell]
    >>> out = book_page(nb).cells[0].outputs
    >>> [o.output_type for o in out], "stops with <code>NotImplementedError</code>" in out[0].data["text/html"]
    (['display_data'], True)
"""
from __future__ import annotations

import base64
import copy
import hashlib
import html
import re

import nbformat

from autograder.authoring.learner_cells import CHECK_NOTE_MARK
from autograder.notebooks import is_solution, is_test

from . import live_widgets
from .references import link_citations
from .site_info import BUNDLE_ZIP, DOWNLOADS

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
INTERACTIVE_NOTE = "Interactive in JupyterLab: this is the widget's initial state; run the chapter to move its controls."


_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$([^$\n]+?)\$(?!\$)")


def summary_math(source: str) -> str:
    """`source` with the `$...$` math of its `<summary>` titles marked up as the page's other math.

    Math in a folded block's title (`<details><summary>... $x$ ...</summary>`) sits in raw HTML, which
    the Markdown parser passes through untouched; JupyterLab typesets it anyway, so the page marks it
    as math too.

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


# What a web reader needs instead of the JupyterLab note on checking your work (learner_cells.CHECK_NOTE).
WEB_CHECK_NOTE = (
    CHECK_NOTE_MARK + " This page shows the chapter as it runs before any exercise is solved, so its "
    "test cells stop with an error. To do the exercises, open the chapter in JupyterLab (download its "
    "notebook at the top of this page, or the whole course, and run `./course lab` in the course's folder): "
    "write your answer in the exercise cell, run it and the test cells below it; then save (**Ctrl+S**) and "
    "press **Check my work** in the notebook's last cell, which scores the whole chapter as grading does "
    "and records the result in your progress log.")


def _test_cell_note(error, first: bool) -> nbformat.NotebookNode:
    """One line for a failing test cell of the unsolved copy, in place of its traceback, which says
    nothing a reader needs and fills a screen per test: the error's type and message, so a reader
    still sees that the cell fails until the function above is written. The stub's message ("Replace
    this line ...") is written for the exercise cell, not for the test cells below it, so only the
    error's type is quoted for it."""
    if error.ename == "NotImplementedError":
        what = "<code>NotImplementedError</code> (the exercise above is still the stub)"
    else:
        what = f"<code>{html.escape(f'{error.ename}: {error.evalue}'.strip())}</code>"
    if first:
        text = (f"In the unsolved notebook this test cell stops with {what}. "
                "Once the exercise is solved it runs silently.")
    else:
        text = f"Stops with {what} until the exercise is solved."
    return _html_output(f'<p class="course-test-note">{text}</p>')


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


def _hidden(state: dict, models: dict) -> bool:
    """Whether a widget is not shown at start: its layout says `display: none` or `visibility: hidden`
    (a worked answer revealed by a button), so its picture must not show it either."""
    layout = models.get(_ref(state.get("layout")) or "", {}).get("state", {})
    return layout.get("display") == "none" or layout.get("visibility") == "hidden"


_TEXT_MODELS = ("HTMLModel", "HTMLMathModel", "LabelModel")
_NOT_CONTROLS = ("ButtonModel", "ImageModel", "OutputModel") + _TEXT_MODELS


def _is_control(model: dict) -> bool:
    state = model.get("state", {})
    return (model.get("model_name") not in _NOT_CONTROLS and "description" in state
            and _control_value(state) not in (None, ""))    # an empty answer field says nothing


def _has_control(model_id: str, models: dict, depth: int = 0) -> bool:
    model = models.get(model_id, {})
    if _is_control(model):
        return True
    return depth < 8 and any(_has_control(_ref(c), models, depth + 1)
                             for c in model.get("state", {}).get("children", []) if _ref(c))


def _plain_text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).replace("\xa0", " ").strip()


def _walk(model_id: str, models: dict, outputs: list, controls: list, seen: set, caption: str = "") -> None:
    """Collect, in layout order, the static parts of widget `model_id` and its shown children.
    A text beside controls in one row ("target writes" before the dropdowns) is their caption: it goes
    with them into the controls line, not among the readouts, where it would dangle."""
    if model_id in seen or model_id not in models:
        return
    seen.add(model_id)
    model = models[model_id]
    name, state = model.get("model_name", ""), model.get("state", {})
    if _hidden(state, models):
        return
    if name == "ImageModel":
        data = next((b["data"] for b in model.get("buffers", []) if b.get("path") == ["value"]), None)
        fmt = state.get("format", "png")
        if data and fmt in ("png", "jpeg"):
            outputs.append(nbformat.v4.new_output("display_data", data={f"image/{fmt}": data, "text/plain": ""}))
    elif name in _TEXT_MODELS:
        if state.get("value"):
            text = state["value"] if name != "LabelModel" else html.escape(state["value"])
            outputs.append(_html_output(f'<div class="course-widget-readout">{text}</div>'))
    elif name == "OutputModel":
        for out in state.get("outputs", []):
            outputs.extend(_static_outputs(nbformat.from_dict(out), models))
    elif _is_control(model):
        label = str(state["description"] or name.removesuffix("Model")).rstrip(":")
        controls.append((f"{caption} {label}" if caption else label, _control_value(state)))
    children = [_ref(c) for c in state.get("children", []) if _ref(c)]
    # a caption sits in a row (an HBox) beside the controls it names
    captions = {c for c in children if models.get(c, {}).get("model_name") in _TEXT_MODELS} \
        if name == "HBoxModel" else set()
    beside_controls = any(_has_control(c, models) for c in children if c not in captions)
    for child in children:
        if child in captions and beside_controls:
            seen.add(child)
            caption = _plain_text(models[child].get("state", {}).get("value", "")) or caption
            continue
        _walk(child, models, outputs, controls, seen, caption)


def _widget_picture(model_id: str, models: dict) -> list:
    """A widget's static picture, read from the widget state the executor saved in the notebook
    (`metadata.widgets`): the images of its `Image` widgets, the text of its `HTML`/`Label` readouts
    and the outputs of its `Output` widgets, in the widget's layout order, after a line naming the
    initial value of each control and saying that the widget is interactive in JupyterLab."""
    outputs, controls = [], []
    _walk(model_id, models, outputs, controls, set())
    shown = "; ".join(f"{html.escape(str(d))} = {html.escape(_shown(v))}" for d, v in controls)
    note = f'<p class="course-widget-note"><b>{INTERACTIVE_NOTE}</b>'
    note += f"<br>Controls at start: {shown}.</p>" if shown else "</p>"
    return [_html_output(note)] + outputs


def _static_outputs(out, models: dict) -> list:
    data = out.get("data", {})
    if WIDGET_VIEW in data:
        model_id = data[WIDGET_VIEW]["model_id"]
        if live_widgets.is_live(model_id, models):          # an anywidget runs in the page (book/live_widgets.py)
            return [live_widgets.live_output(model_id, models)]
        return _widget_picture(model_id, models)
    return [out]


# --- the page ------------------------------------------------------------------------------------

IMAGE_TYPES = ("image/png", "image/jpeg")
HIDE_INPUT = "hide-input"
_DRAWS = re.compile(r"\b(plt|ax|axes|fig|ax\d)\.|\bsubplots\(|\bimshow\(")


def draws_only(cell) -> bool:
    """A code cell whose outputs are figures alone and whose code draws: its code is folded on the page.

    >>> cell = nbformat.v4.new_code_cell("fig, ax = plt.subplots()\\nax.plot([1, 2])")
    >>> cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": "iVBO", "text/plain": ""})]
    >>> draws_only(cell)
    True
    """
    outputs = cell.get("outputs", [])
    return (cell.cell_type == "code" and not is_solution(cell) and not is_test(cell) and bool(outputs)
            and all(any(k in o.get("data", {}) for k in IMAGE_TYPES) for o in outputs)
            and bool(_DRAWS.search(cell.source)))


def _clean_alt(text: str) -> str:
    text = re.sub(r"\\(mathrm|text|operatorname|mathbf|bar|hat|tilde)\b", "", text)
    text = text.replace("\\", "").replace("{", "").replace("}", "").replace("$", "")
    return re.sub(r"\s+", " ", text).strip()


def _comment(source: str) -> str:
    """The first comment of a code cell that reads as a sentence (a figure's intent), or ''."""
    for line in source.splitlines():
        m = re.match(r"\s*#\s*(.{12,})", line)
        if m:
            return m.group(1).strip()
    return ""


def image_alt(out, cell, previous_markdown: str, widget: bool = False) -> str:
    """What an image output shows, in words: the figure's own titles and axis labels (book/figures.py
    records them when the book runs the chapter), else the cell's first comment, else the sentence
    that introduces the cell.

    >>> out = nbformat.v4.new_output("display_data", data={"image/png": "iVBO"},
    ...                              metadata={"course_alt": "Speedup (x: $\\\\gamma$)"})
    >>> image_alt(out, nbformat.v4.new_code_cell(""), "")
    'Figure: Speedup (x: gamma)'
    """
    text = _clean_alt(out.get("metadata", {}).get("course_alt", "")) or _comment(cell.source)
    if not text:
        sentences = [t for t in re.split(r"(?<=[.:])\s+", re.sub(r"[#*`$]", "", previous_markdown)) if t.strip()]
        text = _clean_alt(sentences[-1]) if sentences else ""
    prefix = "Picture of the interactive figure at start" if widget else "Figure"
    return f"{prefix}: {text}" if text else prefix


def _image_key(out) -> str | None:
    for mime in IMAGE_TYPES:
        if mime in out.get("data", {}):
            return hashlib.sha256(base64.b64decode(out["data"][mime])).hexdigest()
    return None


def text_px(out) -> dict:
    """{"text_px": the smallest text of an image output, in pixels of the image} as book/figures.py
    measured it when the book ran the chapter (book/build.py writes it on the page for the browser
    tests); empty for an image it did not measure.

    >>> text_px(nbformat.v4.new_output("display_data", data={"image/png": "iVBO"}, metadata={"course_text_px": 12.5}))
    {'text_px': 12.5}
    """
    metadata = out.get("metadata", {})
    return {"text_px": metadata["course_text_px"]} if "course_text_px" in metadata else {}


def get_the_chapter(name: str) -> str:
    """The line under a chapter's title: its notebook and the whole course, to run in JupyterLab
    (book/build.py puts the files in `downloads/`)."""
    return (f'<p class="course-get">Run this chapter yourself: download '
            f'<a href="{DOWNLOADS}/{name}.ipynb" download>its notebook ({name}.ipynb)</a> or '
            f'<a href="{DOWNLOADS}/{BUNDLE_ZIP}" download>the whole course (zip)</a>, '
            "then open it in JupyterLab (in the course's folder: <code>./course lab</code>).</p>")


def book_page(nb: nbformat.NotebookNode, name: str | None = None) -> nbformat.NotebookNode:
    """A copy of executed notebook `nb` ready for the static site (widgets as pictures, test-cell
    tracebacks as one line, no widget state left for a page to load scripts for, text for a web
    reader). `name` (the chapter's file stem) adds the download line under the title. The alt text
    of each image, keyed by the SHA-256 of its bytes (the file name Sphinx gives it), is left in
    `metadata.course_alt`, its smallest text (`text_px`) in `metadata.course_figures`."""
    nb = copy.deepcopy(nb)
    widgets = nb.metadata.pop("widgets", {}) or {}
    models = widgets.get(WIDGET_STATE, {}).get("state", {})
    alts, sizes, previous_markdown, noted = {}, {}, "", set()
    exercise = None                    # the index of the exercise cell the next tests check
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            if CHECK_NOTE_MARK in cell.source:
                cell.source = WEB_CHECK_NOTE
            cell.source = link_citations(summary_math(cell.source))
            if index == 0 and name:            # right under the title line
                head, sep, rest = cell.source.partition("\n")
                cell.source = head + "\n\n" + get_the_chapter(name) + "\n" + sep + rest
            previous_markdown = cell.source
            continue
        if cell.cell_type != "code":
            continue
        if is_solution(cell):
            exercise = index
        if draws_only(cell):
            cell.metadata["tags"] = list(dict.fromkeys(list(cell.metadata.get("tags", [])) + [HIDE_INPUT]))
        outputs = []
        for out in cell.get("outputs", []):
            if out.output_type == "error" and is_test(cell):
                outputs.append(_test_cell_note(out, first=exercise not in noted))
                noted.add(exercise)
                continue
            shown = _static_outputs(out, models)
            is_widget = WIDGET_VIEW in out.get("data", {})
            for item in shown:
                key = _image_key(item)
                if key:
                    alts[key] = image_alt(item if is_widget else out, cell, previous_markdown, widget=is_widget)
                    sizes[key] = text_px(item)
            outputs.extend(shown)
        cell.outputs = outputs
    nb.metadata["course_alt"] = alts
    nb.metadata["course_figures"] = sizes
    return nb
