"""Fixtures several test modules share."""
import pytest

from tests.graded_class import ChapterOneClass, grade_chapter_one_class


@pytest.fixture(scope="session")
def chapter_one_class(tmp_path_factory) -> ChapterOneClass:
    """A class of chapter 01 with every kind of submission, graded locally once (`tests.graded_class`)."""
    return grade_chapter_one_class(tmp_path_factory.mktemp("chapter-one-class"))
