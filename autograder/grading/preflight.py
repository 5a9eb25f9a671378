"""Before grading starts: is the environment complete, and does the course's nbgrader config load?

Two failures used to show up late and quietly:

* one pinned package missing (e.g. `latex2mathml`, which the feedback pages need) made
  every student's row "grading stopped on an internal error";
* an nbgrader config that cannot import `autograder` (run by another Python, or with the course
  not on its path) is logged by nbgrader as an error, which then carries on with its defaults:
  nbgrader's own stubs and preprocessors, no sandbox.

`python -m autograder grade`, `check` and `hub` call `preflight()` first; it raises a
`CourseError` whose message is one sentence saying what is wrong and what to do.

Packages are installed by role (pyproject.toml): the learner's set, then one extra per role
(`grade`, `cluster`, `book`, `hub`, `dev`). A command checks the packages its role needs: every
package reached from the learner's requirements and its role's extras (transitive ones through the
installed packages' own metadata), each at the version constraints.txt pins. A role whose extra
is not installed is told the one command that installs it.

    >>> missing_pins({"numpy": "2.4.6", "not-a-real-package": "1.0"}, {"numpy": "2.4.6"})
    ['not-a-real-package==1.0 (not installed)']
    >>> missing_pins({"torch": "2.13.0"}, {"torch": "2.13.0+cpu"})
    []
"""
from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

from ..errors import CourseError
from ..paths import NBGRADER_CONFIG, REPO_ROOT

CONSTRAINTS = REPO_ROOT / "constraints.txt"
PYPROJECT = REPO_ROOT / "pyproject.toml"
# The commands that install their role's extras on first use (any other set: ./course setup EXTRA...).
ROLE_COMMANDS = (("./course book", ("book",)), ("./course hub", ("hub", "grade")),
                 ("./course test", ("book", "grade", "hub", "cluster", "dev")))
# The extras each command of `python -m autograder` needs besides the learner's set (`grade
# --scheduler` also needs `cluster`: grading.cluster asks for it).
EXTRAS_OF = {"check": (), "grade": ("grade",), "hub": ("hub", "grade")}
_EXTRA_MARKER = re.compile(r";.*\bextra\s*==")
# Loads a config file the way nbgrader's command-line apps do, but lets the error out instead of
# logging it and carrying on.
_LOAD_CONFIG = ("import sys; from traitlets.config.loader import PyFileConfigLoader; "
                "from pathlib import Path; p = Path(sys.argv[1]); "
                "PyFileConfigLoader(p.name, path=str(p.parent)).load_config()")


def _key(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(constraints: Path = CONSTRAINTS) -> dict[str, str]:
    """{name: version} of every `name==version` line of constraints.txt ({} when there is none)."""
    pins = {}
    if not Path(constraints).is_file():
        return pins
    for line in Path(constraints).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].split(";", 1)[0].strip()
        if "==" in line:
            name, version = (part.strip() for part in line.split("==", 1))
            pins[_key(name)] = version
    return pins


def _distributions() -> dict[str, importlib.metadata.Distribution]:
    found = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name and _key(name) not in found:       # the first on sys.path is the one imported
            found[_key(name)] = dist
    return found


def installed_versions() -> dict[str, str]:
    """{name: version} of every distribution this interpreter can import (one scan of sys.path)."""
    return {name: dist.version for name, dist in _distributions().items()}


def role_requirements(extras: tuple[str, ...] = (), pyproject: Path = PYPROJECT) -> list[Requirement]:
    """The course's own requirements for the learner's set plus `extras` (an extra that names the
    course itself, as `dev` does, brings in those extras); [] when there is no pyproject.toml.

        >>> sorted(r.name for r in role_requirements(("cluster",)) if r.name in ("dask", "numpy", "pytest"))
        ['dask', 'numpy']
    """
    if not Path(pyproject).is_file():
        return []
    project = tomllib.loads(Path(pyproject).read_text(encoding="utf-8"))["project"]
    optional = project.get("optional-dependencies", {})
    reqs, todo, seen = [Requirement(r) for r in project.get("dependencies", [])], list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        if extra not in optional:
            raise CourseError(f"pyproject.toml has no extra `{extra}`")
        for req in map(Requirement, optional[extra]):
            if _key(req.name) == _key(project["name"]):
                todo.extend(req.extras)
            else:
                reqs.append(req)
    return reqs


def needed_packages(requirements: list[Requirement], dists: dict | None = None) -> set[str]:
    """Every distribution `requirements` reach: themselves, then what each installed one requires
    (its metadata, markers evaluated here, its requested extras followed). One not installed ends
    its branch: it is reported missing, and pip would bring its own requirements with it."""
    dists = _distributions() if dists is None else dists
    needed, todo, seen = set(), list(requirements), set()
    while todo:
        req = todo.pop()
        name, extras = _key(req.name), frozenset(req.extras)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        needed.add(name)
        dist = dists.get(name)
        for text in (dist.requires or []) if dist is not None else []:
            if not extras and _EXTRA_MARKER.search(text):
                continue            # an extra's, not asked for: most lines of most packages, skipped unparsed
            sub = Requirement(text)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in extras or {""}):
                todo.append(sub)
    return needed


def missing_pins(pins: dict[str, str], installed: dict[str, str]) -> list[str]:
    """Each pin that `installed` does not satisfy, as `name==version (what is there)`. A local
    version label (torch's `+cpu`) is not a difference: constraints.txt is written without it."""
    problems = []
    for name, version in sorted(pins.items()):
        have = installed.get(_key(name))
        if have is None:
            problems.append(f"{name}=={version} (not installed)")
        elif have.split("+", 1)[0] != version:
            problems.append(f"{name}=={version} ({have} installed)")
    return problems


def environment_problem(constraints: Path = CONSTRAINTS, extras: tuple[str, ...] = (),
                        pyproject: Path = PYPROJECT) -> str | None:
    """One sentence when a package that the learner's set and `extras` need is missing or not at
    the version constraints.txt pins, naming the command that installs them: the role's own
    packages (pyproject's lists) first, then what they require."""
    installed, pins, requirements = installed_versions(), read_pins(constraints), role_requirements(extras, pyproject)
    top = {_key(r.name) for r in requirements}
    needed = needed_packages(requirements)
    problems = (missing_pins({n: v for n, v in pins.items() if n in top}, installed)
                + missing_pins({n: v for n, v in pins.items() if n in needed - top}, installed))
    if not problems:
        return None
    shown = ", ".join(problems[:5]) + (f" and {len(problems) - 5} more" if len(problems) > 5 else "")
    run = next((command for command, role in ROLE_COMMANDS if set(role) == set(extras)),
               " ".join(("./course setup",) + tuple(extras)))
    target = f".[{','.join(extras)}]" if extras else "."
    return (f"the course environment ({sys.prefix}) is incomplete: {shown}; run {run} "
            f"(or pip install -c constraints.txt -e '{target}') and try again")


def config_problem(config: Path = NBGRADER_CONFIG, python: str = sys.executable,
                   env: dict | None = None, user: str | None = None) -> str | None:
    """One sentence when the nbgrader config `config` does not load in `python` with `env` (as
    nbgrader would load it there: a fresh process), e.g. because `autograder` is not importable;
    `user` runs the check as that Unix user (the hub: a student's server)."""
    from .environment import nbgrader_env

    cmd = [python, "-c", _LOAD_CONFIG, str(config)]
    if user is not None:
        from ..hub.users import runuser
        cmd = [runuser(), "-u", user, "--"] + cmd
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                              env=nbgrader_env() if env is None else env, cwd="/")
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"the nbgrader config {config} could not be loaded with {python}: {err}"
    if proc.returncode == 0:
        return None
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else f"exit code {proc.returncode}"
    return (f"the nbgrader config {config} does not load with {python}"
            f"{f' as {user}' if user else ''} ({last[:200]}), so nbgrader would fall back to its "
            f"defaults (no sandbox, its own stubs); install the course in that environment "
            f"(pip install -e .) and try again")


def config_problem_here(config: Path = NBGRADER_CONFIG) -> str | None:
    """`config_problem` in this process: what `grade` and `check` run (their workers are this
    interpreter with this environment), without the seconds a fresh interpreter takes."""
    from traitlets.config.loader import PyFileConfigLoader

    config = Path(config)
    try:
        PyFileConfigLoader(config.name, path=str(config.parent)).load_config()
    except Exception as err:   # noqa: BLE001  (any failure in the config file is the problem to report)
        return (f"the nbgrader config {config} does not load ({type(err).__name__}: {str(err)[:200]}), so "
                f"nbgrader would fall back to its defaults (no sandbox, its own stubs); install the course "
                f"in this environment (pip install -e .) and try again")
    return None


def preflight(what: str, *, config: Path | None = NBGRADER_CONFIG, constraints: Path = CONSTRAINTS,
              extras: tuple[str, ...] | None = None) -> None:
    """Raise `CourseError` (one sentence, starting with `what`) unless the packages of `what`'s role
    are installed (`extras`, by default `EXTRAS_OF[what]`) and the course's nbgrader config loads
    here; `config=None` skips the config check.

        >>> preflight("grading", config=None, constraints=Path("/nonexistent"))   # nothing pinned: passes
    """
    extras = EXTRAS_OF.get(what, ()) if extras is None else tuple(extras)
    problem = (environment_problem(constraints, extras)
               or (config_problem_here(config) if config is not None else None))
    if problem:
        raise CourseError(f"{what} refused to start: {problem}.")
