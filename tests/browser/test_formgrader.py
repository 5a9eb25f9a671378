"""`./course lab --instructor --course DIR` opens formgrader on a graded course: the class's
submissions, scores and feedback are in nbgrader's own interface (not "No data available")."""
import shutil

import pytest

from autograder import notebooks
from autograder.grading.grade import find_submissions, grade
from tests.browser.labserver import LabServer, free_port
from tests.helpers import CHAPTERS, solution_nb, student_nb

FIRST = CHAPTERS[0]
pytestmark = pytest.mark.slow


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
