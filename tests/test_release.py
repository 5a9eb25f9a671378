"""`python -m autograder release` reproduces chapters/ byte for byte."""
import pytest

from autograder.paths import CHAPTERS_DIR
from autograder.authoring.release import release
from tests.helpers import CHAPTERS

pytestmark = pytest.mark.slow


def test_release_reproduces_the_committed_chapters(tmp_path):
    release(out_dir=tmp_path)
    for name in CHAPTERS:
        fresh = (tmp_path / f"{name}.ipynb").read_text()
        committed = (CHAPTERS_DIR / f"{name}.ipynb").read_text()
        assert fresh == committed, (f"chapters/{name}.ipynb is out of date with solutions/: "
                                    f"run `python -m autograder release` and commit the result")
