"""What a class receives (the student bundle), and no lost work (release and learner/)."""
import subprocess
import sys

import pytest

from autograder import notebooks
from autograder.paths import REPO_ROOT
from autograder.learner.learn import learn
from autograder.authoring.release import LearnerWorkError, learner_work, release
from tests.helpers import solution_nb, student_nb
from autograder.notebooks import grade_id_of

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
    (total,) = [line for line in proc.stdout.splitlines() if line.startswith("Total: ")]
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
        if grade_id_of(cell) == "ex_tv":
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


# ------------------------------------------------------------------ the bundle as a class receives it
_REPO_FOLDERS = ("solutions", "tests", "benchmarks", "docs", "chapters", "specdec", "widgets", "autograder", "book",
                 "jupyter_config", ".ci")


def _readme_commands(readme: str) -> list[str]:
    """Every command line of the README's bash blocks (comments removed)."""
    import re

    lines = []
    for block in re.findall(r"```bash\n(.*?)```", readme, flags=re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


# The tests that read one built bundle go to one xdist worker, so it is built once.
@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    from autograder.authoring.bundle import build_bundle

    out = build_bundle(tmp_path_factory.mktemp("bundle") / "class")
    (out / ".venv").symlink_to(REPO_ROOT / ".venv")     # `./course` finds its environment installed
    return out


def _in_bundle(bundle, *args, timeout=600):
    import os

    env = dict(os.environ, PYTHONPATH=str(bundle))     # the bundle's own packages, as `pip install -e` makes them
    return subprocess.run(list(args), cwd=bundle, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
@pytest.mark.xdist_group("bundle")
def test_the_bundle_is_a_course_for_learners(bundle):
    import re

    readme = (bundle / "README.md").read_text()
    assert "student bundle" in readme and "START_HERE.ipynb" in readme
    for missing in ("solutions/", "tests/", "./course test", "formgrader", "For instructors"):
        assert missing not in readme, f"the bundle's README mentions {missing!r}, which a learner does not have"
    assert (bundle / "jupyter_config" / "learner" / "labconfig" / "page_config.json").exists()
    assert (bundle / "book" / "build.py").exists() and (bundle / "benchmarks" / "gpu_lab.py").exists()
    # No chapter points at a folder of the course that the bundle lacks.
    for path in sorted((bundle / "chapters").glob("*.ipynb")):
        text = "\n".join(c.source for c in notebooks.read(path).cells)
        for hit in re.findall(r"(?<![\w/.])((?:%s)/[\w./-]*)" % "|".join(map(re.escape, _REPO_FOLDERS)), text):
            assert (bundle / hit.rstrip("./")).exists(), f"{path.name} points at {hit}, which the bundle lacks"
    # `./course test` is not offered: its help leaves it out, and run anyway it says why, plainly.
    done = _in_bundle(bundle, "./course", "help")
    assert done.returncode == 0 and "./course lab" in done.stdout and "course test" not in done.stdout
    done = _in_bundle(bundle, "./course", "test")
    assert done.returncode == 2 and "student bundle" in done.stderr and "autograder check" in done.stderr


@pytest.mark.slow
@pytest.mark.xdist_group("bundle")
def test_every_command_the_bundle_readme_gives_runs(bundle, tmp_path):
    from autograder import progress
    from tests.browser.labserver import LabServer, free_port

    commands = _readme_commands((bundle / "README.md").read_text())
    assert any(c.startswith("./course lab") for c in commands) and any("autograder check" in c for c in commands)
    (bundle / "my_residual.py").write_text("import numpy as np\n\ndef residual_sample(p, q, rng):\n    return 0\n")
    for command in commands:
        argv = command.split()
        if argv[:2] == ["./course", "lab"]:
            server = LabServer(root=bundle / "learner", port=free_port(), token="t" * 32, tmp=tmp_path / "lab",
                               course=bundle / "course", extra_env={"PYTHONPATH": str(bundle)})
            server.root.mkdir(exist_ok=True)
            server.extra_env["COURSE_LAB_DIR"] = str(server.root)
            server.start()
            try:
                status, page = server.api("api/contents/START_HERE.ipynb")
                assert status == 200, f"./course lab in the bundle: no start page ({status})"
                text = "\n".join("".join(c["source"]) for c in page["content"]["cells"])
                assert "hidden tests run when your work is graded" in text and "03_acceptance_rule.ipynb" in text
                status, listing = server.api("api/contents")
                names = {item["name"] for item in listing["content"]}
                assert {"START_HERE.ipynb", "13_interview_drills.ipynb"} <= names, names
            finally:
                server.stop()
            continue
        if argv[:2] == ["./course", "book"]:
            # The whole build executes every chapter (minutes): here, that the builder runs in the bundle.
            done = _in_bundle(bundle, sys.executable, "-m", "book", "--help")
            assert done.returncode == 0 and "static website" in done.stdout, done.stderr
            continue
        assert argv[0] == "python", command
        done = _in_bundle(bundle, sys.executable, *argv[1:])
        # A wrong or unfinished answer exits 1, with its report (the chapters here are not solved).
        failing_ok = "--answer" in argv or "--values" in argv or "check" in argv
        assert done.returncode == 0 or (failing_ok and done.returncode == 1), (
            f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        assert "Traceback" not in done.stderr, f"{command}\n{done.stderr[-2000:]}"
        if "--answer" in argv:
            assert "[FAIL]" in done.stdout and "BEGIN HIDDEN" not in done.stdout
        if "check" in argv:
            assert "Total: 0 /" in done.stdout and "hidden tests run when your work is graded" in done.stdout
        if argv[-1] == "progress":
            assert "13_interview_drills" in done.stdout
    log = progress.read_log()          # the session's scratch log (conftest.py): results were recorded
    assert any(e.get("type") == "check" for e in log)
