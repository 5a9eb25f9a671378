"""During a graded cell, what the student's code writes to stderr is shown on stdout, with a note.

A test cell's stderr output is read by nbgrader as a failure signal in some setups and by learners
as an error; a debug print to stderr, a `warnings.warn` or a logging line from the student's
function must never cost points. `begin_test()` routes Python-level stderr (prints, warnings,
logging) to stdout for the cell that follows; `end_test()` puts the streams back. The grader calls
them through `autograder.integrity.before_locked(graded=True)` and `after_locked()`.

    >>> import io, sys
    >>> out, err = io.StringIO(), sys.stderr
    >>> sys.stdout, saved_out = out, sys.stdout
    >>> begin_test(); print("debug", file=sys.stderr); end_test()
    >>> sys.stdout = saved_out
    >>> out.getvalue().splitlines()
    ['[your code wrote this to stderr; shown here, not counted against you]', 'debug']
    >>> sys.stderr is err
    True
"""
from __future__ import annotations

import sys

_saved: dict = {}


class _StderrToStdout:
    """sys.stderr during a test: the student's debug output is shown, but on stdout."""

    def __init__(self, stdout):
        self._stdout = stdout
        self._noted = False

    def write(self, text):
        if not self._noted and text.strip():
            self._noted = True
            self._stdout.write("[your code wrote this to stderr; shown here, not counted against you]\n")
        return self._stdout.write(text)

    def flush(self):
        self._stdout.flush()

    def isatty(self):
        return False

    def __getattr__(self, name):
        return getattr(self._stdout, name)


def begin_test() -> None:
    """Route Python-level stderr (prints, warnings, logging) to stdout for the next cell."""
    import warnings
    if not isinstance(sys.stderr, _StderrToStdout):
        _saved["stderr"] = sys.stderr
        sys.stderr = _StderrToStdout(sys.stdout)
    _saved["showwarning"] = warnings.showwarning
    warnings.showwarning = _show_warning


def _show_warning(message, category, filename, lineno, file=None, line=None):
    import warnings
    sys.stdout.write(f"[a warning from your code, not counted against you] "
                     f"{warnings.formatwarning(message, category, filename, lineno, line)}")


def end_test() -> None:
    import warnings
    if "stderr" in _saved:
        sys.stderr = _saved.pop("stderr")
    if "showwarning" in _saved:
        warnings.showwarning = _saved.pop("showwarning")
