"""A learner's round trip in JupyterLab: open a chapter, open the folded hints, write a wrong answer
to an exercise, save, run the self-check the README gives (`python -m autograder check <notebook>`)
in a JupyterLab terminal, read the report, fix the answer, check again, and see the points change.
Then the same without a terminal, with the Check my work button at the end of the chapter (and its
"save first" when the version run is not saved), and the start page `./course lab` opens on."""
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
# The README's command, with a bare `python`: the lab's terminal puts the course's Python first on
# PATH (jupyter_config/common/jupyter_server_config.py), whatever the login files of the machine do.
CHECK = "python -m autograder check {path}"


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
    # The start page's command as written: the chapter by its file name, where the terminal opens.
    right_report = _run_check(page, terminal_tab, NOTEBOOK, 1)
    page.screenshot(path=str(shots / "roundtrip_check_right.png"))
    assert _points(right_report, "tv") == (total, total), f"a right tv does not earn full marks:\n{right_report}"
    assert _points(right_report, "acceptance_rate")[0] == 0        # the other exercise is still untouched


def _run_cell(page, index: int) -> None:
    """Run cell `index` in place (Ctrl+Enter in command mode) and wait for the kernel."""
    labui.select_cell(page, index)
    page.keyboard.press("Control+Enter")
    labui.wait_until_idle(page, 60, f"cell {index}")


REPORT_JS = """() => { const outs = [...document.querySelectorAll('.jp-Notebook:not(.lm-mod-hidden) .jp-OutputArea-output')];
  const mine = outs.filter(o => o.querySelector('button') && o.innerText.includes('Check my work'));
  return mine.length ? mine[mine.length - 1].innerText : null; }"""


def _press_check(page, previous: str | None) -> str:
    """Click Check my work; return the widget's text once the check has finished.

    The report, the status line and the button are three widgets, each updated by its own message:
    the report can show its total while the status still says "Checking". Finished means the status
    has moved on and the button is enabled again (the last of the three updates)."""
    button = page.locator(".jp-Notebook:visible .jupyter-widgets button", has_text="Check my work").last
    button.scroll_into_view_if_needed()
    button.click()
    page.wait_for_function(f"""prev => {{ const t = ({REPORT_JS})(); return t && t !== prev
        && !t.includes('Checking the saved notebook')
        && (t.includes('Total:') || t.includes('Save first') || t.includes('could not run')); }}""",
                           arg=previous or "", timeout=180_000, polling=500)
    button.wait_for(state="visible")
    page.wait_for_function("b => !b.disabled", arg=button.element_handle(), timeout=30_000)
    return page.evaluate(REPORT_JS)


def test_check_my_work_in_the_notebook_without_a_terminal(page, lab, shots):
    labui.open_notebook(page, NOTEBOOK)
    state = labui.cells(page)
    last = state[-1]
    assert last["type"] == "code" and f"check_button({NOTEBOOK.removesuffix('.ipynb')!r})" in last["source"]
    [solution] = [c["index"] for c in state if c["grade_id"] == EXERCISE and c["solution"]]
    _run_cell(page, last["index"])                               # the button appears (Run All shows it too)

    _write_cell(page, solution, WRONG)
    _run_cell(page, solution)                                    # run, but not saved
    report = _press_check(page, None)
    assert "Save first" in report and "tv" in report, report
    page.screenshot(path=str(shots / "check_button_save_first.png"))

    _save(page)
    report = _press_check(page, report)
    page.screenshot(path=str(shots / "check_button_wrong.png"))
    m = re.search(r"\btv: (\d+) / (\d+)", report)
    assert m and int(m.group(1)) < int(m.group(2)), report
    assert "twice the answer" in report and "acceptance_rate: 0 /" in report, report

    _write_cell(page, solution, RIGHT)
    _run_cell(page, solution)
    _save(page)
    report = _press_check(page, report)
    page.screenshot(path=str(shots / "check_button_right.png"))
    m = re.search(r"\btv: (\d+) / (\d+)", report)
    assert m and m.group(1) == m.group(2), report
    assert "Recorded in your progress log" in report, report


def test_the_lab_opens_on_the_start_page(chromium, lab, shots):
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{lab.base_url}/?token={lab.token}")          # what `./course lab` opens in the browser
        page.wait_for_function("""() => window.jupyterapp && jupyterapp.shell.currentWidget
            && jupyterapp.shell.currentWidget.context && jupyterapp.shell.currentWidget.context.path === 'START_HERE.ipynb'
            && jupyterapp.shell.currentWidget.sessionContext.session
            && jupyterapp.shell.currentWidget.sessionContext.session.kernel
            && jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'""", timeout=90_000)
        page.wait_for_timeout(1500)
        assert not labui.is_dirty(page), "the start page is marked modified on opening"
        text = page.locator(".jp-Notebook:visible").inner_text()
        for words in ("How to work", "Check my work", "The chapters", "Your progress"):
            assert words in text, f"the start page lacks {words!r}"
        assert "No courses found" not in page.evaluate("() => document.body.innerText")
        page.screenshot(path=str(shots / "start_page.png"))
        link = page.locator(".jp-Notebook:visible a[href*='03_acceptance_rule.ipynb']").first
        link.scroll_into_view_if_needed()
        link.click()
        page.wait_for_function("() => jupyterapp.shell.currentWidget.context.path.endsWith('03_acceptance_rule.ipynb')",
                               timeout=60_000)
    finally:
        context.close()
        for session in (lab.api("api/sessions")[1] or []):
            if session.get("path", "").endswith(("START_HERE.ipynb", "03_acceptance_rule.ipynb")):
                lab.api(f"api/sessions/{session['id']}", method="DELETE")
