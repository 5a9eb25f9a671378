"""Live widgets in the book: an anywidget saved in an executed chapter becomes a working figure.

The course's live widgets (`widgets/batch_speedup.py`, ...) are anywidgets: their front end is an
ES module that draws and computes in the browser, and the executor saves each widget's state,
module included (`_esm`), in the notebook's `metadata.widgets`. `live_output` turns one saved
widget into an HTML output: a `<div class="course-live-widget">`, the saved state as JSON beside
it, and `static/live_widgets.js` inline (so it runs from file:// with no other file to fetch),
which imports the module and renders it with a small in-page model. Other widgets stay pictures
(book/pages.py).

    >>> models = {"m1": {"model_module": "anywidget", "state": {"_esm": "export default {}", "gamma": 3}}}
    >>> is_live("m1", models), is_live("m2", models)
    (True, False)
    >>> "course-live-widget" in live_output("m1", models)["data"]["text/html"]
    True
"""
from __future__ import annotations

import html
import json
from pathlib import Path

import nbformat

LOADER = Path(__file__).parent / "static" / "live_widgets.js"
LOADING = "Loading the interactive figure… (it needs JavaScript; or run the chapter in JupyterLab)"


def is_live(model_id: str, models: dict) -> bool:
    """Whether saved widget `model_id` is an anywidget with its ES module (it can run in the page)."""
    model = models.get(model_id, {})
    return model.get("model_module") == "anywidget" and bool(model.get("state", {}).get("_esm"))


def _json_for_script(state: dict) -> str:
    # "</" would end the <script> element early; JSON lets us write it as "<\/".
    return json.dumps(state, ensure_ascii=False, allow_nan=False).replace("</", "<\\/")


def live_output(model_id: str, models: dict):
    """A display_data output that renders saved widget `model_id` live in the page."""
    state = {k: v for k, v in models[model_id]["state"].items() if k not in ("layout", "tabbable", "tooltip")}
    fragment = (f'<div class="course-live-widget" data-model-id="{html.escape(model_id)}">'
                f'<p class="course-live-loading">{LOADING}</p></div>'
                f'<script type="application/json" class="course-live-state">{_json_for_script(state)}</script>'
                f"<script>{LOADER.read_text(encoding='utf-8')}</script>")
    return nbformat.v4.new_output("display_data", data={"text/html": fragment, "text/plain": ""})
