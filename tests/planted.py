"""Files an instructor keeps elsewhere on the grading machine, planted for a test and removed after it.

`planted_secrets()` puts, each under a folder of its own named `course-test-<random>`:

* under `/srv`: a second checkout of the course, with `solutions/` (two instructor notebooks, hidden
  tests included) and `tests/` (a test file);
* under `/opt`: an instructor's notes;
* under `/var/tmp`: a grades file of last term;
* under `/usr/local/src` and `/usr/local` (inside `/usr`, which the sandbox binds): two more
  checkouts with `solutions/`, the second with a `gradebook.db` (`/usr/local/course-test-<random>`
  is itself the checkout).

Every line of every planted file carries the same random token, so a test can say that no line of
them reached a feedback page by looking for the token. Student code must find none of them (the
sandbox shows only its allow-list, and shows `/usr/local/src` and a checkout under `/usr/local`
empty). Where the test cannot write there (not root), it is skipped.
"""
from __future__ import annotations

import contextlib
import json
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder.paths import SOLUTIONS_DIR

CHAPTERS = ("03_acceptance_rule", "04_speculative_round")


@dataclass
class Planted:
    token: str
    roots: list[Path] = field(default_factory=list)     # the folders made (removed afterwards)
    files: list[Path] = field(default_factory=list)     # what student code will try to read
    folders: list[Path] = field(default_factory=list)   # what it will try to list

    def remove(self) -> None:
        for root in self.roots:
            shutil.rmtree(root, ignore_errors=True)

    def lines(self) -> list[str]:
        """Every line of every planted file (each carries the token)."""
        return [line for f in self.files for line in f.read_text().splitlines() if line.strip()]


def _tagged_notebook(source: Path, token: str) -> str:
    """The notebook at `source` with the token in every line of every cell (a comment in code)."""
    nb = json.loads(source.read_text())
    for cell in nb["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        mark = "  # " if cell["cell_type"] == "code" else " "
        cell["source"] = "\n".join(line + mark + token for line in text.splitlines())
    return json.dumps(nb, indent=1)


def plant() -> Planted | None:
    """Plant the files (see the module docstring); None where this process may not write there."""
    planted = Planted(f"PLANTED-{uuid.uuid4().hex}")
    try:
        for top in ("/srv", "/opt", "/var/tmp", "/usr/local/src", "/usr/local"):
            root = Path(top) / f"course-test-{uuid.uuid4().hex[:12]}"
            root.mkdir(parents=True)
            planted.roots.append(root)
    except OSError:
        planted.remove()
        return None
    token = planted.token
    checkout = planted.roots[0] / "speculative-decoding-course"
    (checkout / "solutions").mkdir(parents=True)
    (checkout / "tests").mkdir()
    for name in CHAPTERS:
        path = checkout / "solutions" / f"{name}.ipynb"
        path.write_text(_tagged_notebook(SOLUTIONS_DIR / f"{name}.ipynb", token))
        planted.files.append(path)
    test = checkout / "tests" / "test_hidden.py"
    test.write_text(f"def test_hidden():  # {token}\n    assert tv([1, 0], [0, 1]) == 1  # {token}\n")
    notes = planted.roots[1] / "instructor-notes.md"
    notes.write_text(f"# Notes for grading chapter 03 {token}\n"
                     f"Expect tv to use np.abs; the hidden test checks rows of length 2. {token}\n")
    grades = planted.roots[2] / "grades-last-term.csv"
    grades.write_text(f"student_id,chapter,score {token}\nana,03_acceptance_rule,17 {token}\n")
    planted.files += [test, notes, grades]
    planted.folders += [checkout, checkout / "solutions", planted.roots[1], planted.roots[2]]
    # Checkouts inside /usr: one where sources are kept, one that is a folder of /usr/local itself.
    for usr_checkout in (planted.roots[3] / "speculative-decoding-course", planted.roots[4]):
        (usr_checkout / "solutions").mkdir(parents=True, exist_ok=True)
        path = usr_checkout / "solutions" / f"{CHAPTERS[0]}.ipynb"
        path.write_text(_tagged_notebook(SOLUTIONS_DIR / f"{CHAPTERS[0]}.ipynb", token))
        planted.files.append(path)
        planted.folders.append(usr_checkout / "solutions")
    planted.folders.append(planted.roots[3] / "speculative-decoding-course")   # (the other one is shown, empty)
    gradebook = planted.roots[4] / "gradebook.db"
    gradebook.write_text(f"scores of last term {token}\n")
    planted.files.append(gradebook)
    return planted


@contextlib.contextmanager
def planted_secrets():
    """`plant()` for the length of a `with` block, then removed; the test is skipped where it cannot plant."""
    planted = plant()
    if planted is None:
        pytest.skip("cannot write under /srv, /opt and /var/tmp here (run as root) to plant the files")
    try:
        yield planted
    finally:
        planted.remove()
