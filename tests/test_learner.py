"""`learn all` (what `./course lab` runs first) copies every chapter once and never overwrites work."""
import subprocess
import sys

from autograder.paths import REPO_ROOT
from autograder.learner.learn import all_chapters
from tests.helpers import CHAPTERS


def _learn_all(dest):
    return subprocess.run([sys.executable, "-m", "autograder", "learn", "all", "--dest", str(dest)],
                          capture_output=True, text=True, cwd=REPO_ROOT, check=True).stdout


def test_learn_all_copies_every_chapter_once_and_keeps_the_learners_work(tmp_path):
    assert all_chapters() == CHAPTERS
    _learn_all(tmp_path)
    assert sorted(p.stem for p in tmp_path.glob("*.ipynb")) == CHAPTERS
    mine = tmp_path / f"{CHAPTERS[2]}.ipynb"
    mine.write_text(mine.read_text().replace("NotImplementedError", "NotImplementedError  # my work"))
    before = mine.read_text()
    assert _learn_all(tmp_path) == ""
    assert mine.read_text() == before
