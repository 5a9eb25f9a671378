"""What a learner sees in `./course lab`: of nbgrader only the Validate button (a self-study learner
has no class, so no Assignment List greeting them with "No courses found"), none of the instructor
parts (formgrader, Create Assignment, the course list), and no prompt about Jupyter news.
`./course lab --instructor` on a graded course turns them back on (tests/browser/test_formgrader.py)."""
from __future__ import annotations

from tests.browser import labui

INSTRUCTOR_PLUGINS = ["@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                      "@jupyter/nbgrader:course-list", "@jupyter/nbgrader:assignment-list"]
INSTRUCTOR_COMMANDS = ["nbgrader:open-formgrader", "nbgrader:open-formgrader-local",
                       "nbgrader:open-create-assignment", "nbgrader:open-course-list", "nbgrader:open-assignment-list"]
INSTRUCTOR_LABELS = ["Formgrader", "Course List", "Create Assignment", "Assignment List"]
NEWS_QUESTION = "notified about official Jupyter news"


def _has_command(page, command):
    return page.evaluate("c => jupyterapp.commands.hasCommand(c)", command)


def _news_shown(page) -> bool:
    page.wait_for_function("() => jupyterapp.restored !== undefined")
    page.evaluate("() => jupyterapp.restored")
    page.wait_for_timeout(2000)                     # the question comes right after the restore
    return NEWS_QUESTION in page.evaluate("() => document.body.innerText")


def test_learner_menus_have_no_instructor_parts(page, lab, shots):
    assert not _news_shown(page), "JupyterLab asks about Jupyter news; the course turns the question off"
    assert not page.evaluate("() => jupyterapp.hasPlugin('@jupyterlab/apputils-extension:announcements')")

    bar = page.evaluate("() => [...document.querySelectorAll('.lm-MenuBar-itemLabel')].map(e => e.textContent)")
    if "Nbgrader" in bar:
        items = labui.menu_items(page, "Nbgrader")
        assert not set(items) & set(INSTRUCTOR_LABELS), f"the Nbgrader menu shows {items}"
    page.screenshot(path=str(shots / "learner_menus.png"))

    for plugin in INSTRUCTOR_PLUGINS:
        assert not page.evaluate("p => jupyterapp.hasPlugin(p)", plugin), f"{plugin} is loaded in the learner's lab"
    for command in INSTRUCTOR_COMMANDS:
        assert not _has_command(page, command), f"the learner's lab has the command {command}"
    palette_text = _palette_entries(page, "nbgrader")
    for label in INSTRUCTOR_LABELS:
        assert label not in palette_text, f"the command palette offers {label!r}: {palette_text}"

    # the server side: formgrader, the course list and the assignments are not served, validation is
    assert lab.api("formgrader")[0] == 404, "the server still serves formgrader"
    assert lab.api("formgraders")[0] == 404, "the server still serves the course list"
    assert lab.api("assignments")[0] == 404, "the server still serves the Assignment List"
    status, body = lab.api("nbgrader_version?version=0.9.6")
    assert status == 200 and body.get("success"), f"Validate's server part is missing: {status} {body}"

    # a notebook: Validate works (nbgrader runs the learner's copy and lists the failing test cells),
    # and no Create Assignment panel anywhere
    labui.open_notebook(page, "04_speculative_round.ipynb")
    page.locator(".jp-NotebookPanel-toolbar .validate-button").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=180_000)
    page.wait_for_timeout(500)
    result = dialog.inner_text()
    page.screenshot(path=str(shots / "learner_validate.png"))
    assert "Validation Results" in result and "failed" in result, f"Validate shows: {result[:500]}"
    dialog.locator("button", has_text="OK").click()
    text = page.evaluate("() => document.body.innerText")
    assert "Create Assignment" not in text
    assert "No courses found" not in page.evaluate("() => document.body.innerText")
    for label in INSTRUCTOR_LABELS:
        assert page.locator(f"text={label}").count() == 0, f"{label!r} appears in the learner's lab"


def _palette_entries(page, query: str) -> str:
    """The command palette's entries for `query`, as text (the palette is closed again)."""
    page.keyboard.press("Control+Shift+C")
    box = page.locator(".lm-CommandPalette-input:visible")
    box.fill(query)
    page.wait_for_timeout(300)
    text = page.locator(".lm-CommandPalette-content:visible").inner_text()
    page.keyboard.press("Escape")
    return text
