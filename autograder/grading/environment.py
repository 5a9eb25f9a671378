"""The environment kernels and nbgrader run in: this interpreter's tools, the course on the path.

    >>> env = nbgrader_env()
    >>> env["PYTHONPATH"].split(os.pathsep)[0] == str(REPO_ROOT)
    True
    >>> env["SPECDEC_LAB_PRESET"] if "SPECDEC_LAB_PRESET" not in os.environ else "test"
    'test'
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from ..paths import REPO_ROOT

# ipykernel logs a transport warning to the terminal at every start; learners need not see it.
QUIET_KERNEL = ["--IPKernelApp.log_level=ERROR"]


def nbgrader_env() -> dict:
    """The environment for nbgrader subprocesses: this interpreter's bin/ first on PATH."""
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.setdefault("PYTHONWARNINGS", "ignore")
    # Kernels import the same course code as this process (matters in a copied student bundle).
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    # Notebooks draw figures without a display.
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    # Chapter 12's full CPU lab takes minutes; grading, self-check and scripted runs take its short
    # preset (the graded cells do not depend on it). A learner's JupyterLab kernel runs the full one.
    env.setdefault("SPECDEC_LAB_PRESET", "test")
    # A notebook the course runs itself (grading, self-check, `execute`) is no learner's session: its drill
    # cells must not write to, or show, the learner's progress log (autograder.progress.log_path).
    env.setdefault("COURSE_PROGRESS_LOG", "off")
    return env


@contextlib.contextmanager
def kernel_environment():
    """Run notebooks with `nbgrader_env()` (kernels inherit it), restoring os.environ afterwards."""
    saved = dict(os.environ)
    os.environ.update(nbgrader_env())
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
