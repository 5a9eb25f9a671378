"""Installs by role: pyproject.toml's dependencies are the learner's set, each other role an extra;
constraints.txt pins every package of the full install, environment.yml the learner's set; `./course`
installs each role's set (and npm's proxy only for the hub and the suite) on first use.

What a role installs is read from the installed packages' own metadata (no network): the packages
its requirements reach, as pip resolves them at the pinned versions."""
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from autograder.grading.preflight import _key, needed_packages, read_pins, role_requirements

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS = PROJECT["optional-dependencies"]
# The packages of the other roles, which a learner never runs: the suite's, the book's, the hub's, a
# cluster's, grading's.
NOT_THE_LEARNERS = {"pytest", "pytest-xdist", "playwright", "execnet", "sphinx", "myst-nb", "myst-parser",
                    "sphinx-book-theme", "pydata-sphinx-theme", "sphinx-mathjax-offline", "sphinx-copybutton",
                    "jupyter-cache", "jupyterhub", "pamela", "certipy", "dask", "distributed", "latex2mathml"}


def _pins(lines):
    pins = {}
    for line in lines:
        m = re.fullmatch(r"\s*([A-Za-z0-9_.\-\[\]]+)\s*==\s*([A-Za-z0-9_.+\-]+)\s*", line)
        if m:
            pins[_key(m.group(1))] = m.group(2)
    return pins


def _own(requirements):
    """The requirements that are not the course itself (`dev` names the course's other extras)."""
    return [r for r in requirements if _key(re.split(r"[\[=<>; ]", r, maxsplit=1)[0]) != _key(PROJECT["name"])]


def test_pyproject_pins_every_dependency_exactly():
    lists = [PROJECT["dependencies"]] + [_own(reqs) for reqs in EXTRAS.values()]
    assert all(lists) and all("==" in r for reqs in lists for r in reqs), lists


def test_each_role_has_an_extra_and_dev_holds_every_other():
    assert set(EXTRAS) == {"book", "grade", "hub", "cluster", "dev"}
    dev = {_key(r.name) for r in role_requirements(("dev",))}
    for extra in EXTRAS:
        assert {_key(r.name) for r in role_requirements((extra,))} <= dev, extra


def test_the_learners_set_reaches_no_package_of_another_role():
    """What `pip install -c constraints.txt -e .` installs: every package pyproject's dependencies
    reach through the installed packages' metadata. None is the suite's, the book's, the hub's or a
    cluster's; each of those is reached by its role's extra."""
    learner = needed_packages(role_requirements())
    assert {"numpy", "torch", "transformers", "nbgrader", "jupyterlab", "anywidget"} <= learner
    assert not learner & NOT_THE_LEARNERS, sorted(learner & NOT_THE_LEARNERS)
    everything = needed_packages(role_requirements(("dev",)))
    assert NOT_THE_LEARNERS <= everything, sorted(NOT_THE_LEARNERS - everything)
    for extra, names in (("book", {"sphinx", "myst-nb"}), ("hub", {"jupyterhub"}),
                         ("cluster", {"dask", "distributed"}), ("grade", {"latex2mathml"})):
        assert names <= needed_packages(role_requirements((extra,))), extra


def test_environment_yml_pins_the_learners_set():
    env = (ROOT / "environment.yml").read_text().splitlines()
    pip_lines = [ln.strip()[2:] for ln in env if ln.strip().startswith("- ") and "==" in ln]
    assert _pins(pip_lines) == _pins(PROJECT["dependencies"])
    assert any(re.fullmatch(r"\s*- python=3\.11(\.\*)?\s*", ln) for ln in env), "environment.yml must pin python 3.11"


def test_constraints_agree_with_the_top_level_pins():
    frozen = read_pins()
    for reqs in [PROJECT["dependencies"]] + [_own(reqs) for reqs in EXTRAS.values()]:
        for name, version in _pins(reqs).items():
            assert frozen.get(name) == version, f"constraints.txt pins {name}=={frozen.get(name)}, pyproject {version}"


def test_constraints_pin_exactly_the_full_install():
    """Every package the full install (`.[dev]`) reaches is pinned, transitive ones included, and
    nothing else is: an install by any role is reproducible."""
    everything, frozen = needed_packages(role_requirements(("dev",))), set(read_pins())
    assert everything - frozen == set(), "not pinned in constraints.txt: " + ", ".join(sorted(everything - frozen))
    assert frozen - everything == set(), "pinned but no role needs it: " + ", ".join(sorted(frozen - everything))


# `./course` with a stand-in environment: its python and jupyter, and npm, only record how they are called.
RECORDER = '#!/bin/sh\necho "$(basename "$0") $*" >> "$COURSE_CALLS"\n'
NPM = RECORDER + 'mkdir -p "$3"\n'          # npm install --prefix DIR ...


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "learner").mkdir()                 # what `python -m autograder learn all` would make
    for name in ("course", "pyproject.toml", "constraints.txt"):
        shutil.copy2(ROOT / name, root / name)
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    for path, text in ((root / ".venv" / "bin" / "python", RECORDER), (root / ".venv" / "bin" / "jupyter", RECORDER),
                       (fake_bin / "npm", NPM)):
        path.write_text(text)
        path.chmod(0o755)
    calls = tmp_path / "calls"
    env = dict(os.environ, COURSE_CALLS=str(calls), PATH=f"{fake_bin}:{os.environ['PATH']}")

    def run(*args):
        calls.write_text("")
        done = subprocess.run([str(root / "course"), *args], cwd=root, env=env, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        return [ln.replace(str(root), "ROOT") for ln in calls.read_text().splitlines()]
    return run


def _installs(calls):
    return [c.split(" -e ", 1)[1] for c in calls if c.startswith("python -m pip install") and " -e " in c]


def test_course_lab_installs_the_learners_set_once_and_no_npm(course):
    calls = course("setup")
    assert _installs(calls) == ["ROOT"] and not [c for c in calls if c.startswith("npm")], calls
    assert all("-c ROOT/constraints.txt" in c for c in calls if " -e " in c)
    calls = course("lab")                                      # installed: offline from now on
    assert not _installs(calls) and not [c for c in calls if c.startswith("npm")], calls
    assert any(c.startswith("jupyter lab") for c in calls), calls


def test_each_role_adds_its_extra_on_first_use_and_only_the_hub_and_the_suite_use_npm(course):
    assert _installs(course("book")) == ["ROOT[book]"]
    assert _installs(course("book")) == []
    calls = course("hub", "stop")
    assert _installs(calls) == ["ROOT[hub,grade]"], calls
    assert [c for c in calls if c.startswith("npm")] == [
        "npm install --prefix ROOT/.venv/hub-proxy --no-audit --no-fund --silent configurable-http-proxy@5.3.0"]
    assert _installs(course("setup", "cluster")) == ["ROOT[cluster]"]
    calls = course("test", "-q")
    assert _installs(calls) == ["ROOT[book,grade,hub,cluster,dev]"], calls
    # The hub's proxy is there already; the suite adds only axe-core (the book's accessibility checks).
    assert [c for c in calls if c.startswith("npm")] == [
        "npm install --prefix ROOT/build/npm --no-audit --no-fund --silent axe-core@4.14.1"], calls
    assert calls[-1].startswith("python -m pytest -n auto"), calls
    assert _installs(course("lab")) == []


# Imports a module of each of the learner's packages with the other roles' packages absent (as in an
# install of the learner's set): no import of the learner's path may need them.
_WITHOUT_OTHER_ROLES = """
import importlib, importlib.abc, importlib.machinery, pkgutil, sys
ABSENT = set(sys.argv[1].split(","))
class Absent(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        return importlib.machinery.ModuleSpec(name, self) if name.split(".")[0] in ABSENT else None
    def create_module(self, spec):
        raise ModuleNotFoundError(f"No module named {spec.name!r}", name=spec.name)
    def exec_module(self, module):
        pass
sys.meta_path.insert(0, Absent())
for package in ("specdec", "widgets", "autograder"):
    for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
        if info.name != "autograder.grading.nbgrader_config":        # a config file, run by nbgrader
            try:
                importlib.import_module(info.name)
            except ImportError as err:
                print(info.name, err)
"""


@pytest.mark.slow
def test_the_learners_path_imports_without_the_other_roles_packages():
    absent = ["sphinx", "myst_nb", "myst_parser", "sphinx_book_theme", "sphinx_copybutton", "sphinx_mathjax_offline",
              "latex2mathml", "jupyterhub", "dask", "distributed", "pytest", "_pytest", "xdist", "playwright"]
    done = subprocess.run([sys.executable, "-c", _WITHOUT_OTHER_ROLES, ",".join(absent)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr[-3000:]


def test_the_readme_quotes_the_measured_setup():
    """The README's and docs/benchmarks.md's time and size of `./course lab`'s setup, after and before installs by role, are
    the ones benchmarks/results/setup.md records (measured by hand from fresh clones: a test has no network)."""
    rows = re.findall(r"^\| \w+ \((before|after)\) \|[^|]+\| (\d+) \| (\d+) \| \d+ \|",
                      (ROOT / "benchmarks" / "results" / "setup.md").read_text(), re.M)
    recorded = {when: (int(seconds), int(mib)) for when, seconds, mib in rows}
    assert set(recorded) == {"before", "after"}, recorded
    for page in ("README.md", "docs/benchmarks.md"):
        said = re.search(r"its setup took (\d+) min (\d+) s and (\d+) MiB, against (\d+) min (\d+) s and (\d+) MiB",
                         re.sub(r"\s+", " ", (ROOT / page).read_text()))
        assert said, f"{page} no longer states the learner's measured setup"
        m1, s1, size1, m0, s0, size0 = map(int, said.groups())
        assert {"after": (60 * m1 + s1, size1), "before": (60 * m0 + s0, size0)} == recorded, page
