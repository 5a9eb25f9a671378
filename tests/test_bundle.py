"""What a class receives (the student bundle), and no lost work (release and learner/)."""
import subprocess
import sys

import pytest

from autograder import notebooks
from autograder.paths import REPO_ROOT
from autograder.learner.learn import learn
from autograder.authoring.release import LearnerWorkError, learner_work, release
from tests.helpers import meta, solution_nb, student_nb

CH3 = "03_acceptance_rule"


@pytest.mark.slow
def test_bundle_has_no_solutions_and_its_self_check_runs_the_visible_tests(tmp_path):
    from autograder.authoring.bundle import build_bundle, leaks
    from autograder.grading.feedback import hidden_lines

    out = build_bundle(tmp_path / "class")
    assert not (out / "solutions").exists() and not (out / "tests").exists() and not (out / ".git").exists()
    assert (out / "chapters" / f"{CH3}.ipynb").exists() and (out / "autograder" / "reference" / f"{CH3}.ipynb").exists()
    hidden = hidden_lines(c.source for c in solution_nb(CH3).cells if c.cell_type == "code")
    shown = {ln.strip() for p in (out / "chapters").glob("*.ipynb") for c in notebooks.read(p).cells
             for ln in c.source.splitlines()}
    assert hidden - shown and not leaks(out, hidden - shown)
    # A learner in the bundle solves chapter 03 and checks it: the visible tests pass, the
    # report says the hidden ones run at grading.
    (out / "learner").mkdir()
    notebooks.write(solution_nb(CH3), out / "learner" / "mine.ipynb")
    proc = subprocess.run([sys.executable, "-m", "autograder", "check", "learner/mine.ipynb"], cwd=out,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "hidden tests run when your work is graded" in proc.stdout
    total = proc.stdout.strip().splitlines()[-2]
    got, best = total.removeprefix("Total: ").split(" / ")
    assert float(got) == float(best) > 0, proc.stdout
    # The drills and the progress summary work without solutions/ (they read the reference copies),
    # and a coding drill's starting point is the stub, not the answer.
    from autograder.learner.drill import load_drills
    drills = load_drills()
    proc = subprocess.run([sys.executable, "-m", "autograder", "drill", "--list"], cwd=out,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and all(name in proc.stdout for name in drills), proc.stdout + proc.stderr
    name = next(iter(drills))
    proc = subprocess.run([sys.executable, "-m", "autograder", "drill", name], cwd=out,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "### BEGIN SOLUTION" not in proc.stdout, proc.stdout + proc.stderr
    assert proc.stdout.count("raise NotImplementedError") == 1, proc.stdout
    proc = subprocess.run([sys.executable, "-m", "autograder", "progress"], cwd=out,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and CH3 in proc.stdout and "not checked yet" not in proc.stdout.split(CH3)[1].splitlines()[0], proc.stdout


def test_a_pristine_release_is_not_learner_work(tmp_path):
    from autograder.paths import CHAPTERS_DIR
    assert learner_work(CHAPTERS_DIR / f"{CH3}.ipynb") is None


@pytest.mark.slow
def test_release_never_overwrites_a_learners_work(tmp_path):
    mine = student_nb(CH3)
    for cell in mine.cells:
        if meta(cell).get("grade_id") == "ex_tv":
            cell.source = "def tv(p, q):\n    return 0.5 * abs(p - q).sum(-1)   # my answer"
    path = tmp_path / f"{CH3}.ipynb"
    notebooks.write(mine, path)
    before = path.read_bytes()
    with pytest.raises(LearnerWorkError, match="learner/"):
        release([CH3], out_dir=tmp_path)
    assert path.read_bytes() == before
    release([CH3], out_dir=tmp_path, force=True)
    assert path.read_bytes() != before


def test_learn_copies_a_fresh_chapter_and_never_overwrites(tmp_path):
    path, copied = learn("3", tmp_path)
    assert copied and path.name == f"{CH3}.ipynb"
    path.write_text(path.read_text().replace("YOUR CODE HERE", "my work"))
    again, copied = learn(CH3, tmp_path)
    assert again == path and not copied and "my work" in path.read_text()


def test_the_learner_folder_is_ignored_by_git():
    lines = (REPO_ROOT / ".gitignore").read_text().split()
    assert "/learner/" in lines
