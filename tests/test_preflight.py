"""Preflight: `grade` and `check` refuse to start, in one sentence, when a package of their role is
missing or not at its pin (a role without its extra is told the command that installs it), or the
course's nbgrader config cannot import `autograder` (nbgrader would carry on with its defaults)."""
import os
import subprocess
import sys

import pytest

from autograder.errors import CourseError
from autograder.grading import preflight as pf
from autograder.paths import NBGRADER_CONFIG, REPO_ROOT

# Hides one installed distribution from importlib.metadata, as if pip had never installed it.
HIDE = """import importlib.metadata as _m
_real = _m.distributions
def _distributions(**kw):
    return (d for d in _real(**kw) if (d.metadata['Name'] or '').lower() != 'latex2mathml')
_m.distributions = _distributions
"""


def test_this_environment_passes():
    assert pf.environment_problem() is None
    assert pf.config_problem_here() is None
    for extras in pf.EXTRAS_OF.values():
        assert pf.environment_problem(extras=extras) is None


def test_a_missing_pinned_package_is_named(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "c"\ndependencies = ["numpy==2.4.6"]\n'
                                             '[project.optional-dependencies]\n'
                                             'grade = ["no-such-package-xyz==1.0", "latex2mathml==3.77.0"]\n')
    pins = tmp_path / "constraints.txt"
    pins.write_text("# pinned\nnumpy==2.4.6\nlatex2mathml==3.77.0\nno-such-package-xyz==1.0\n")
    assert pf.environment_problem(pins, (), tmp_path / "pyproject.toml") is None      # the learner's set is here
    msg = pf.environment_problem(pins, ("grade",), tmp_path / "pyproject.toml")
    assert msg.startswith("the course environment") and "\n" not in msg
    assert "no-such-package-xyz==1.0 (not installed)" in msg and "numpy" not in msg
    assert "; run ./course setup grade (or pip install -c constraints.txt -e '.[grade]') and try again" in msg


def _without(monkeypatch, names):
    real = pf.installed_versions
    monkeypatch.setattr(pf, "installed_versions", lambda: {k: v for k, v in real().items() if k not in names})


def test_a_learners_install_checks_its_work_and_each_role_asks_for_its_extra(monkeypatch):
    """With only the learner's set (the other roles' own packages gone): `check` starts; `grade`,
    the hub, the book and a cluster each say in one sentence which command installs theirs."""
    _without(monkeypatch, {"latex2mathml", "sphinx-mathjax-offline", "sphinx", "myst-nb", "jupyterhub", "dask", "distributed",
                           "pytest", "pytest-xdist", "playwright"})
    pf.preflight("check", config=None)
    for what, extras, command in (("grade", None, "./course setup grade"),
                                  ("the hub", ("hub", "grade"), "./course hub"),
                                  ("the book", ("book",), "./course book"),
                                  ("grading on a Dask cluster", ("grade", "cluster"), "./course setup grade cluster")):
        with pytest.raises(CourseError) as err:
            pf.preflight(what, config=None, extras=extras)
        msg = str(err.value)
        assert msg.startswith(f"{what} refused to start: the course environment") and "\n" not in msg, msg
        assert f"; run {command} (or pip install" in msg, msg
    with pytest.raises(CourseError, match=r"jupyterhub==6\.1\.1 \(not installed\)"):
        pf.preflight("the hub", config=None, extras=("hub",))


def test_a_package_at_another_version_is_named():
    assert pf.missing_pins({"numpy": "1.0.0"}, {"numpy": "2.4.6"}) == ["numpy==1.0.0 (2.4.6 installed)"]


def test_grade_refuses_before_grading_when_a_package_is_missing(tmp_path):
    """The real command, with one pinned package hidden: one sentence, exit 1, no course folder."""
    (tmp_path / "hide").mkdir()
    (tmp_path / "hide" / "sitecustomize.py").write_text(HIDE)
    subs = tmp_path / "subs" / "alice"
    subs.mkdir(parents=True)
    (subs / "02_greedy_speculation.ipynb").write_text("{}")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "hide"))
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp_path / "subs"),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, env=env,
                          cwd=REPO_ROOT, timeout=300)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "latex2mathml==3.77.0 (not installed)" in lines[0], proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_config_that_cannot_import_autograder_is_refused(tmp_path):
    """A folder on PYTHONPATH shadows the course with a broken `autograder`: the course config
    fails in a fresh interpreter, and preflight says so instead of nbgrader's silent fall-back."""
    shadow = tmp_path / "shadow" / "autograder"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('autograder is not installed here')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "shadow"))
    problem = pf.config_problem(NBGRADER_CONFIG, env=env)
    assert problem and "does not load" in problem and "autograder is not installed here" in problem
    assert "no sandbox" in problem and "\n" not in problem
    assert pf.config_problem(NBGRADER_CONFIG) is None       # the same config loads in this environment


def test_check_refuses_a_config_that_does_not_load(tmp_path):
    config = tmp_path / "nbgrader_config.py"
    config.write_text("c = get_config()\nimport autograder_missing_module\n")
    with pytest.raises(CourseError, match=r"^check refused to start: the nbgrader config .*autograder_missing_module"):
        pf.preflight("check", config=config, constraints=tmp_path / "none.txt")
