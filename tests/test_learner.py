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


def test_a_copy_opened_only_to_read_is_not_modified(tmp_path):
    """JupyterLab writes the kernel's `language_info` into a notebook when its kernel starts, which
    marks a notebook modified unless it already holds exactly that: `learn` copies with it (the
    browser test test_learner_round_trip.py opens a copy and checks it stays unmodified)."""
    import json

    from ipykernel.ipkernel import IPythonKernel

    _learn_all(tmp_path)
    for path in sorted(tmp_path.glob("*.ipynb")):
        assert json.loads(path.read_text())["metadata"]["language_info"] == IPythonKernel.language_info, path.name


def test_the_start_page_maps_the_course_and_shows_progress(tmp_path, monkeypatch):
    from autograder import notebooks, progress
    from autograder.learner.learn import learn
    from autograder.learner.start import write_start_page

    monkeypatch.delenv(progress.ENV_VAR, raising=False)
    learn("05", tmp_path)
    progress.append({"type": "check", "chapter": "05_speedup",
                     "exercises": {"ex_expected_tokens": [2, 2], "ex_speedup": [0, 2], "ex_best_gamma": [1, 1]}},
                    tmp_path / progress.LOG_NAME)
    page = notebooks.read(write_start_page(tmp_path))
    text = "\n".join(c.source for c in page.cells)
    for name in CHAPTERS:
        assert f"]({name}.ipynb)" in text, f"no link to {name}"
    assert "5.1 `expected_tokens`, 5.2 `speedup`, 5.3 `best_gamma`" in text   # chapter 05's exercises, numbered
    assert "derive the expected number of tokens per round" in text        # what it teaches (its goals)
    row = next(ln for ln in text.splitlines() if "](05_speedup.ipynb) |" in ln)
    assert "2/3 exercises passed" in row
    for step in ("Read and run", "Exercises", "hints", "Check my work", "Ctrl+S", "interview drills"):
        assert step in text, step
    assert page.cells[-1].cell_type == "code" and "show_progress()" in page.cells[-1].source


def test_the_labs_terminal_reaches_the_course_python(tmp_path):
    """JupyterLab's terminal runs the shell jupyter_config/common/jupyter_server_config.py sets: even
    with the system's Python first on PATH (what a login shell's /etc/profile does) and a ~/.bashrc
    that puts it first again, `python` there is the course's and imports the course's packages."""
    import os
    import shutil

    from traitlets.config.loader import PyFileConfigLoader

    folder = REPO_ROOT / "jupyter_config" / "common"
    env_before = dict(os.environ)
    try:
        config = PyFileConfigLoader("jupyter_server_config.py", path=str(folder)).load_config()
        shell = list(config.ServerApp.terminado_settings.get_value({})["shell_command"])
        course_bin = os.environ["COURSE_PYTHON_BIN"]
    finally:
        os.environ.clear()
        os.environ.update(env_before)
    assert course_bin == os.path.dirname(os.path.abspath(sys.executable))
    assert "-l" not in shell and "--login" not in shell
    home = tmp_path / "home"
    home.mkdir()
    system_bin = os.path.dirname(shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "/usr/bin/python3")
    (home / ".bashrc").write_text(f'export PATH="{system_bin}:/usr/bin:/bin:$PATH"\n')
    env = {"HOME": str(home), "PATH": f"{system_bin}:/usr/bin:/bin", "COURSE_PYTHON_BIN": course_bin,
           "PYTHONPATH": os.environ.get("PYTHONPATH", ""), "TERM": "dumb"}
    if shell[0].endswith("sh") and "bash" not in shell[0]:
        env["ENV"] = str(folder / "course_terminal_rc.sh")
    script = ('python -c "import sys, nbformat, autograder; print(\'@@\' + sys.executable)"\n'
              "python -m autograder --help | head -1\nexit\n")
    done = subprocess.run(shell, input=script, env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("@@")), None)
    assert line is not None, done.stdout + done.stderr
    assert os.path.dirname(line[2:]) == course_bin, line
    assert "usage: python -m autograder" in done.stdout, done.stdout + done.stderr
