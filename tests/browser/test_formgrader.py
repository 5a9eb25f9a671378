"""`./course lab --instructor --course DIR` opens formgrader on a graded course: the class's
submissions, scores and feedback are in nbgrader's own interface (not "No data available")."""
import shutil

import pytest

from autograder import notebooks
from autograder.grading.grade import find_submissions, grade
from tests.browser import labui
from tests.browser.labserver import LabServer, free_port
from tests.browser.test_learner_menus import INSTRUCTOR_COMMANDS, _has_command, _news_shown
from tests.helpers import CHAPTERS, solution_nb, student_nb

FIRST = CHAPTERS[0]
# One graded course and one instructor JupyterLab for the module: on one xdist worker, built once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("formgrader")]


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory):
    root = tmp_path_factory.mktemp("formgrader")
    for student, nb in {"ana": solution_nb(FIRST), "bo": student_nb(FIRST)}.items():
        (root / "subs" / student).mkdir(parents=True)
        notebooks.write(nb, root / "subs" / student / f"{FIRST}.ipynb")
    results = grade(find_submissions(root / "subs"), root / "graded course", jobs=1)
    return root / "graded course", {r.student: r for r in results}


@pytest.fixture(scope="module")
def instructor_lab(graded_course, tmp_path_factory):
    import secrets
    tmp = tmp_path_factory.mktemp("instructor-lab")
    server = LabServer(root=tmp / "unused", port=free_port(), token=secrets.token_hex(16), tmp=tmp,
                       extra_args=["--instructor", "--course", str(graded_course[0])])
    server.start()
    yield server
    server.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def test_formgrader_lists_the_graded_class(instructor_lab, graded_course):
    _, results = graded_course
    status, assignments = instructor_lab.api("formgrader/api/assignments")
    assert status == 200, assignments
    (chapter,) = [a for a in assignments if a["name"] == FIRST]
    assert chapter["num_submissions"] == 2, chapter
    status, subs = instructor_lab.api(f"formgrader/api/submissions/{FIRST}")
    assert status == 200, subs
    scores = {s["student"]: s["score"] for s in subs}
    assert scores == {name: r.score for name, r in results.items()} and scores["ana"] > 0 == scores["bo"], scores


def test_formgrader_page_shows_the_students(instructor_lab, chromium):
    context = chromium.new_context()
    page = context.new_page()
    page.goto(instructor_lab.url("formgrader/manage_submissions/" + FIRST))
    page.wait_for_selector("text=ana", timeout=30_000)
    assert "No data available" not in page.inner_text("body")
    context.close()


def test_instructor_lab_has_the_instructor_parts(instructor_lab, chromium, shots):
    # What the learner's lab leaves out (tests/browser/test_learner_menus.py) is back here.
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.goto(instructor_lab.url("lab"))
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=60_000)
        page.wait_for_selector(".jp-DirListing-item", timeout=60_000)
        assert not _news_shown(page), "the instructor's lab asks about Jupyter news"
        for command in INSTRUCTOR_COMMANDS:
            assert _has_command(page, command), f"./course lab --instructor lacks {command}"
        items = labui.menu_items(page, "Nbgrader")
        for label in ("Assignment List", "Course List", "Formgrader"):
            assert label in items, f"./course lab --instructor: the Nbgrader menu shows {items}"
        page.locator(".lm-MenuBar-itemLabel").get_by_text("Nbgrader", exact=True).click()
        page.wait_for_selector(".lm-Menu")
        page.screenshot(path=str(shots / "instructor_nbgrader_menu.png"))
        page.keyboard.press("Escape")
    finally:
        context.close()
