"""Fixtures several test modules share, and the screenshot folder's start and end of a run."""
import shutil

import pytest

from tests import chromium as chromium_browser
from tests.graded_class import ChapterOneClass, grade_chapter_one_class


# Here, not in tests/browser/conftest.py: under pytest-xdist the controller, the process that starts
# and reports the run, collects nothing and so never loads a subfolder's conftest.


def pytest_sessionstart(session):
    # The screenshot folder is emptied once per run, by the process that reports (the controller under
    # pytest-xdist, which has no `workerinput`): a worker emptying it would delete the others' screenshots.
    if not hasattr(session.config, "workerinput"):
        shutil.rmtree(chromium_browser.SHOTS, ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    if chromium_browser.SHOTS.is_dir() and any(chromium_browser.SHOTS.iterdir()):
        terminalreporter.write_line(f"browser screenshots: {chromium_browser.SHOTS}")


@pytest.fixture(scope="session")
def chromium():
    """The one Chromium of this test process, shared by every test that drives a browser
    (`tests.chromium` says why there is only one); skips, saying why, where none can run."""
    reason = chromium_browser.missing()
    if reason:
        pytest.skip(reason)
    yield from chromium_browser.browsers()


@pytest.fixture(scope="session")
def chapter_one_class(tmp_path_factory) -> ChapterOneClass:
    """A class of chapter 01 with every kind of submission, graded locally once (`tests.graded_class`)."""
    return grade_chapter_one_class(tmp_path_factory.mktemp("chapter-one-class"))
