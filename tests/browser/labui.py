"""Driving JupyterLab in Chromium as a learner does, and reading what the page shows.

Actions go through the interface a person uses (file browser, menus, clicks, typing). What is
checked is read from two places: the page (the DOM a person sees) and, through
`window.jupyterapp` (the server runs with `--LabApp.expose_app_in_browser`), the notebook's cell
models (execution counts, output types, nbgrader metadata), which say which cell a DOM node is.
Nothing here imports playwright: the functions take a playwright `Page`.
"""
from __future__ import annotations

import ast
import re
import time

# --- reading the notebook in the current tab ----------------------------------------------------

CELLS_JS = """() => {
  const panel = jupyterapp.shell.currentWidget;
  if (!panel || !panel.content || !panel.content.widgets) return null;
  return panel.content.widgets.map((cell, i) => {
    const m = cell.model, code = m.type === 'code';
    const nbg = m.getMetadata ? (m.getMetadata('nbgrader') || {}) : {};
    const prompt = code ? (cell.node.querySelector('.jp-InputPrompt') || {}).textContent || '' : '';
    return {index: i, type: m.type, source: m.sharedModel.getSource(), prompt: prompt,
            count: code ? m.executionCount : null,
            test: !!(nbg.grade && !nbg.solution), solution: !!nbg.solution, grade_id: nbg.grade_id || null,
            outputs: code ? m.outputs.toJSON() : []};
  });
}"""

KERNEL_STATUS_JS = """() => {
  const panel = jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session && panel.sessionContext.session.kernel;
  return kernel ? kernel.status : null;
}"""


def cells(page) -> list[dict]:
    """The cells of the notebook in the current tab: type, source, prompt, outputs, nbgrader role."""
    out = page.evaluate(CELLS_JS)
    if out is None:
        raise AssertionError("the current tab is not a notebook")
    return out


def kernel_status(page) -> str | None:
    return page.evaluate(KERNEL_STATUS_JS)


def wait_until_idle(page, timeout: float = 120.0, what: str = "the cells") -> list[dict]:
    """Wait until the kernel is idle and no cell shows [*] (twice in a row); return the cells."""
    deadline = time.monotonic() + timeout
    calm = 0
    while time.monotonic() < deadline:
        page.wait_for_timeout(300)
        state = cells(page)
        busy = [c["index"] for c in state if "*" in c["prompt"]]
        calm = calm + 1 if not busy and kernel_status(page) == "idle" else 0
        if calm >= 2:
            return state
    raise AssertionError(f"{what} still running after {timeout:.0f} s (cells {busy} show [*])")


# --- actions -----------------------------------------------------------------------------------

def menu(page, top: str, item: str) -> None:
    """Click `top` in the menu bar, then the menu item labelled exactly `item`."""
    page.locator(".lm-MenuBar-itemLabel").get_by_text(top, exact=True).click()
    page.locator(".lm-Menu-itemLabel").get_by_text(item, exact=True).click()


def menu_items(page, top: str) -> list[str]:
    """The labels of the visible items of menu `top` (the menu is closed again)."""
    page.locator(".lm-MenuBar-itemLabel").get_by_text(top, exact=True).click()
    page.wait_for_selector(".lm-Menu")
    labels = page.evaluate("""() => [...document.querySelectorAll('.lm-Menu .lm-Menu-item')]
        .filter(e => !e.classList.contains('lm-mod-hidden') && e.offsetParent !== null)
        .map(e => (e.querySelector('.lm-Menu-itemLabel') || {}).textContent || '').filter(t => t)""")
    page.keyboard.press("Escape")
    return labels


def open_notebook(page, name: str, timeout: float = 90.0) -> None:
    """Double-click `name` in the file browser; wait for its kernel to be idle."""
    page.locator(".jp-DirListing-itemText", has_text=name).first.dblclick()
    page.wait_for_function(
        """name => { const w = jupyterapp.shell.currentWidget;
                     return w && w.context && w.context.path.endsWith(name) && w.content && w.content.widgets
                            && w.content.widgets.length > 0 && w.sessionContext && w.sessionContext.session
                            && w.sessionContext.session.kernel && w.sessionContext.session.kernel.status === 'idle'; }""",
        arg=name, timeout=timeout * 1000)


def cell_node(page, index: int):
    return page.locator(".jp-Notebook:visible .jp-Cell").nth(index)


def select_cell(page, index: int) -> None:
    """Select cell `index` in command mode, as a click in its left margin does."""
    page.keyboard.press("Escape")
    node = cell_node(page, index)
    node.scroll_into_view_if_needed()
    prompt = node.locator(".jp-InputPrompt").first
    prompt.click()
    page.wait_for_function("i => jupyterapp.shell.currentWidget.content.activeCellIndex === i", arg=index)


RUN_HOOK_JS = """() => {
  if (window.__courseRuns) return;
  const runs = window.__courseRuns = {started: 0, done: 0};
  jupyterapp.commands.commandExecuted.connect((_, args) => {
    if (!args.id.startsWith('notebook:run')) return;
    runs.started += 1;
    Promise.resolve(args.result).then(() => { runs.done += 1; }, () => { runs.done += 1; });
  });
}"""


def run_from_menu(page, item: str, top: str = "Run", timeout: float = 300.0) -> None:
    """Click a run command in the menu and wait for it to finish: JupyterLab resolves the
    command's promise when every cell it runs has finished (or the run stopped at an error)."""
    page.evaluate(RUN_HOOK_JS)
    before = page.evaluate("() => window.__courseRuns.started")
    menu(page, top, item)
    page.wait_for_function("b => window.__courseRuns.started > b", arg=before, timeout=30_000)
    page.wait_for_function("() => window.__courseRuns.done === window.__courseRuns.started",
                           timeout=timeout * 1000, polling=250)


def run_all(page, timeout: float = 180.0) -> list[dict]:
    """Run > Run All Cells, once, as a learner does, and wait until it has finished; return the cells.
    Every code cell must have run: a failing test cell (tagged `raises-exception` at release) shows its
    error and JupyterLab goes on; a run that stops early fails here, naming the cell it stopped at."""
    deadline = time.monotonic() + timeout
    run_from_menu(page, "Run All Cells", timeout=timeout)
    done, quiet_since = -1, time.monotonic()
    while True:
        # The kernel can be idle for a moment between two cells of the run (the page drawing a
        # figure on a busy machine): wait while cells keep getting executed, fail once they stop.
        state = wait_until_idle(page, max(5.0, deadline - time.monotonic()), "Run All")
        code = [c for c in state if c["type"] == "code"]
        pending = [c for c in code if c["count"] is None]
        if not pending:
            return state
        if len(code) - len(pending) > done:
            done, quiet_since = len(code) - len(pending), time.monotonic()
        elif time.monotonic() - quiet_since > 20 or time.monotonic() > deadline:
            break
        page.wait_for_timeout(1000)
    before = [c for c in code if c["index"] < pending[0]["index"]]
    stop = before[-1]["index"] if before else None
    shown = error_outputs(before[-1]) if before else []
    raise AssertionError(f"one Run All left {len(pending)} code cells unexecuted, from cell {pending[0]['index']} "
                         f"on (it stopped at cell {stop}: {before[-1]['source'][:80] if before else ''!r}, "
                         f"which shows {shown})")


DIRTY_JS = "() => jupyterapp.shell.currentWidget.context.model.dirty"


def is_dirty(page) -> bool:
    """Whether the notebook in the current tab has unsaved changes (closing it would ask to save)."""
    return page.evaluate(DIRTY_JS)


def error_outputs(cell: dict) -> list[str]:
    """Errors and stderr text of a cell, one string each."""
    out = []
    for o in cell["outputs"]:
        if o["output_type"] == "error":
            out.append(f"{o.get('ename')}: {o.get('evalue')}")
        elif o["output_type"] == "stream" and o.get("name") == "stderr":
            text = o.get("text")
            out.append("stderr: " + ("".join(text) if isinstance(text, list) else str(text)))
    return out


WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def output_mimes(cell: dict) -> list[str]:
    return [m for o in cell["outputs"] for m in (o.get("data") or {})]


# --- what should be there: figures and widgets, from the sources ---------------------------------

def _calls(node) -> set[str]:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            if isinstance(f, ast.Name):
                names.add(f.id)
            elif isinstance(f, ast.Attribute):
                base = f.value.id if isinstance(f.value, ast.Name) else ""
                names.add(f"{base}.{f.attr}" if base else f.attr)
    return names


def expected_figure_cells(sources: list[str | None]) -> set[int]:
    """Indices of code cells that must show a matplotlib figure: those that call `plt.show()` at
    top level, or call (at top level) a function of the notebook whose body calls it.
    `sources[i]` is None for non-code cells; cells that do not parse are skipped."""
    trees = {}
    for i, src in enumerate(sources):
        if src is None:
            continue
        try:
            trees[i] = ast.parse(_strip_magics(src))
        except SyntaxError:
            continue
    drawing = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and "plt.show" in _calls(node):
                drawing.add(node.name)
    changed = True
    while changed:                                   # helpers that call a drawing helper draw too
        changed = False
        for tree in trees.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef) and node.name not in drawing and _calls(node) & drawing:
                    drawing.add(node.name)
                    changed = True
    out = set()
    for i, tree in trees.items():
        top = [s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
        called = set().union(*(_calls(s) for s in top)) if top else set()
        if "plt.show" in called or called & drawing:
            out.add(i)
    return out


def expected_widget_cells(sources: list[str | None]) -> set[int]:
    """Indices of code cells that must show a widget: they call (at top level) a function whose
    name ends in `_widget` or `_explorer`, and show something: a `display(...)` call, or a last
    statement that is an expression other than a call of print."""
    out = set()
    for i, src in enumerate(sources):
        if src is None:
            continue
        try:
            tree = ast.parse(_strip_magics(src))
        except SyntaxError:
            continue
        top = [s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
        called = set().union(*(_calls(s) for s in top)) if top else set()
        builds = any(name.split(".")[-1].endswith(("_widget", "_explorer")) for name in called)
        last = tree.body[-1] if tree.body else None
        shows_last = (isinstance(last, ast.Expr) and not isinstance(last.value, ast.Constant)
                      and not (isinstance(last.value, ast.Call) and _calls(last.value) & {"print"}
                               and isinstance(last.value.func, ast.Name) and last.value.func.id == "print"))
        if builds and ("display" in called or shows_last):
            out.add(i)
    return out


def _strip_magics(src: str) -> str:
    return "\n".join("pass" if ln.lstrip().startswith(("%", "!")) else ln for ln in src.splitlines())


# --- what the page shows -------------------------------------------------------------------------

# Text a learner must never see where a figure or a widget belongs.
BAD_TEXT = re.compile(r"Error displaying widget|Loading widget|Failed to display|Javascript Error|<Figure size \d"
                      r"|\b(VBox|HBox|Box|GridBox|Tab|Accordion)\(children=|\b\w+(Slider|Dropdown|Text)\(value="
                      r"|\bobject at 0x[0-9a-f]+>")

RENDERED_JS = """(index) => {
  const panel = jupyterapp.shell.currentWidget;
  const cell = panel.content.widgets[index];
  const outs = [...cell.node.querySelectorAll('.jp-OutputArea-output')];
  return outs.map(o => {
    const imgs = [...o.querySelectorAll('img')];
    return {mime: o.getAttribute('data-mime-type') || '',
            text: (o.innerText || '').slice(0, 2000),
            widget: !!o.querySelector('.jupyter-widgets, .course-live'),   // ipywidgets; the course's live (anywidget) figures
            images: imgs.length,
            images_loaded: imgs.filter(img => img.complete && img.naturalWidth > 0).length};
  });
}"""


def rendered_outputs(page, index: int) -> list[dict]:
    """What the page shows under cell `index`: one entry per output (mime, text, widget, images)."""
    return page.evaluate(RENDERED_JS, index)


def wait_for_images(page, index: int, timeout: float = 20.0) -> list[dict]:
    """The rendered outputs of cell `index`, once every image in them has loaded (or timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        outs = rendered_outputs(page, index)
        if all(o["images"] == o["images_loaded"] for o in outs) or time.monotonic() > deadline:
            return outs
        page.wait_for_timeout(200)


# --- asking the notebook's kernel (what the widget holds, for comparison with the page) ---------

KERNEL_EXEC_JS = """async (code) => {
  const kernel = jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  let out = '', err = '';
  const future = kernel.requestExecute({code: code, silent: false, store_history: false});
  future.onIOPub = msg => {
    if (msg.header.msg_type === 'stream') { if (msg.content.name === 'stdout') out += msg.content.text; else err += msg.content.text; }
    if (msg.header.msg_type === 'error') err += msg.content.ename + ': ' + msg.content.evalue;
  };
  await future.done;
  return [out, err];
}"""


def kernel_json(page, code: str):
    """Run `code` in the current notebook's kernel (not a cell: nothing appears in the notebook);
    it must print one JSON document, which is returned parsed."""
    import json

    out, err = page.evaluate(KERNEL_EXEC_JS, code)
    if err:
        raise AssertionError(f"the kernel answered with an error: {err}")
    return json.loads(out)


def widget_cell(state: list[dict], needle: str) -> int:
    """Index of the code cell whose source contains `needle` and whose output holds a widget."""
    hits = [c["index"] for c in state if c["type"] == "code" and needle in c["source"]
            and WIDGET_MIME in output_mimes(c)]
    if not hits:
        raise AssertionError(f"no cell shows a widget built with {needle!r}")
    return hits[0]


def image_bytes(locator) -> bytes:
    """The bytes of the image an <img> element shows (fetched from its blob/data URL)."""
    import base64

    data = locator.evaluate("""async img => {
        const blob = await (await fetch(img.src)).blob();
        const buffer = new Uint8Array(await blob.arrayBuffer());
        let s = ''; for (let i = 0; i < buffer.length; i++) s += String.fromCharCode(buffer[i]);
        return btoa(s); }""")
    return base64.b64decode(data)
