"""A learner's round trip in JupyterLab: open a chapter, open the folded hints, write a wrong answer
to an exercise, save, run the self-check the README gives (`python -m autograder check <notebook>`)
in a JupyterLab terminal, read the report, fix the answer, check again, and see the points change."""
from __future__ import annotations

import re

from tests.browser import labui

NOTEBOOK = "03_acceptance_rule.ipynb"
EXERCISE = "ex_tv"
WRONG = '''def tv(p, q):
    """Forgot the factor 1/2."""
    import numpy as np
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return np.abs(p - q).sum(axis=-1)
'''
RIGHT = '''def tv(p, q):
    """Half the L1 distance along the last axis."""
    import numpy as np
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return 0.5 * np.abs(p - q).sum(axis=-1)
'''
# The README's command. A terminal opened in `./course lab` starts in the course folder, so
# `.venv/bin/python` is the course's Python; the tests' lab serves a copy of chapters/ elsewhere.
CHECK = ".venv/bin/python -m autograder check {path}"


def _write_cell(page, index: int, text: str) -> None:
    """Replace the text of cell `index` as a learner does: click into it, select all, type."""
    editor = labui.cell_node(page, index).locator(".cm-content").first
    editor.scroll_into_view_if_needed()
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)             # one input event: no auto-closed brackets, no re-indent
    page.keyboard.press("Escape")
    got = labui.cells(page)[index]["source"]
    assert got.strip() == text.strip(), f"typing into cell {index} gave:\n{got}"


def _save(page) -> None:
    labui.menu(page, "File", "Save Notebook")
    page.wait_for_function("() => !jupyterapp.shell.currentWidget.context.model.dirty")


TERMINAL_TEXT_JS = """() => {
  const term = jupyterapp.shell.currentWidget.content._term;     // the xterm.js instance
  const buffer = term.buffer.active, lines = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i).translateToString(true));
  return lines.join('\\n');
}"""


def _terminal_text(page) -> str:
    return page.evaluate(TERMINAL_TEXT_JS)


def _run_check(page, terminal_tab, path, previous_reports: int) -> str:
    """Type the self-check into the terminal; return the report it prints."""
    terminal_tab.click()
    page.locator(".jp-Terminal:visible .xterm-helper-textarea").focus()
    page.keyboard.type(CHECK.format(path=path))
    page.keyboard.press("Enter")
    try:
        page.wait_for_function(
            f"""() => {{ const t = ({TERMINAL_TEXT_JS})(); return (t.match(/^Total: .*$/gm) || []).length > {previous_reports}; }}""",
            timeout=180_000, polling=500)
    except Exception as exc:
        raise AssertionError(f"no self-check report in the terminal ({exc}):\n{_terminal_text(page)}") from None
    text = _terminal_text(page)
    return text.split("Self-check of")[-1]


def _points(report: str, name: str) -> tuple[int, int]:
    m = re.search(rf"^{name}: (\d+) / (\d+)", report, flags=re.M)
    assert m, f"no line for {name} in the report:\n{report}"
    return int(m.group(1)), int(m.group(2))


def test_wrong_then_right_answer_changes_the_self_check(page, lab, shots):
    labui.open_notebook(page, NOTEBOOK)
    state = labui.cells(page)
    [solution] = [c["index"] for c in state if c["grade_id"] == EXERCISE and c["solution"]]

    # the folded hints below the exercise open on a click
    hints = next(c["index"] for c in state[solution + 1:] if c["type"] == "markdown" and "<details" in c["source"])
    labui.cell_node(page, hints).scroll_into_view_if_needed()          # Markdown renders when in view
    details = labui.cell_node(page, hints).locator("details").first
    details.wait_for(state="attached")
    details.scroll_into_view_if_needed()
    assert details.get_attribute("open") is None, "the hints must start folded"
    hidden = details.locator("p").first
    assert not hidden.is_visible(), "a folded hint's text is visible"
    details.locator("summary").click()
    assert details.get_attribute("open") is not None, "clicking the hint's summary does not open it"
    assert hidden.is_visible() and len(hidden.inner_text()) > 20, "the opened hint shows no text"
    labui.cell_node(page, hints).screenshot(path=str(shots / "roundtrip_hint_open.png"))

    _write_cell(page, solution, WRONG)
    _save(page)
    labui.menu(page, "File", "New")
    page.locator(".lm-Menu-itemLabel").get_by_text("Terminal", exact=True).click()
    page.wait_for_selector(".jp-Terminal:visible .xterm-helper-textarea")
    terminal_tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab", has_text="Terminal").first
    notebook_tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab", has_text=NOTEBOOK).first

    wrong_report = _run_check(page, terminal_tab, lab.root / NOTEBOOK, 0)
    page.screenshot(path=str(shots / "roundtrip_check_wrong.png"))
    got, total = _points(wrong_report, "tv")
    assert total > 0 and got < total, f"a wrong tv earns {got} / {total}:\n{wrong_report}"
    assert "twice the answer" in wrong_report, f"the report does not say what is wrong:\n{wrong_report}"

    notebook_tab.click()
    _write_cell(page, solution, RIGHT)
    _save(page)
    right_report = _run_check(page, terminal_tab, lab.root / NOTEBOOK, 1)
    page.screenshot(path=str(shots / "roundtrip_check_right.png"))
    assert _points(right_report, "tv") == (total, total), f"a right tv does not earn full marks:\n{right_report}"
    assert _points(right_report, "acceptance_rate")[0] == 0        # the other exercise is still untouched
