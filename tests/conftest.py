"""Fixtures several test modules share."""
import pytest

from tests import chromium as chromium_browser
from tests.graded_class import ChapterOneClass, grade_chapter_one_class


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
