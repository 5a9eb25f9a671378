"""Before grading starts: is the environment complete, and does the course's nbgrader config load?

Two failures used to show up late and quietly:

* one pinned package missing (e.g. `sphinx-mathjax-offline`, which the feedback pages need) made
  every student's row "grading stopped on an internal error";
* an nbgrader config that cannot import `autograder` (run by another Python, or with the course
  not on its path) is logged by nbgrader as an error, which then carries on with its defaults:
  nbgrader's own stubs and preprocessors, no sandbox.

`python -m autograder grade`, `check` and `hub` call `preflight()` first; it raises a
`CourseError` whose message is one sentence saying what is wrong and what to do.

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
from pathlib import Path

from ..errors import CourseError
from ..paths import NBGRADER_CONFIG, REPO_ROOT

CONSTRAINTS = REPO_ROOT / "constraints.txt"
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


def installed_versions() -> dict[str, str]:
    """{name: version} of every distribution this interpreter can import (one scan of sys.path)."""
    found = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name and _key(name) not in found:       # the first on sys.path is the one imported
            found[_key(name)] = dist.version
    return found


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


def environment_problem(constraints: Path = CONSTRAINTS) -> str | None:
    """One sentence when a package pinned in constraints.txt is missing or at another version."""
    problems = missing_pins(read_pins(constraints), installed_versions())
    if not problems:
        return None
    shown = ", ".join(problems[:5]) + (f" and {len(problems) - 5} more" if len(problems) > 5 else "")
    return (f"the course environment ({sys.prefix}) is incomplete: {shown}; "
            f"run ./course setup (or pip install -c constraints.txt -e .) and try again")


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


def preflight(what: str, *, config: Path | None = NBGRADER_CONFIG, constraints: Path = CONSTRAINTS) -> None:
    """Raise `CourseError` (one sentence, starting with `what`) unless the environment is complete
    and the course's nbgrader config loads here; `config=None` skips the config check.

        >>> preflight("grading", config=None, constraints=Path("/nonexistent"))   # nothing pinned: passes
    """
    problem = environment_problem(constraints) or (config_problem_here(config) if config is not None else None)
    if problem:
        raise CourseError(f"{what} refused to start: {problem}.")
