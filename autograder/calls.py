"""How test cells call the learner's code: `call_quietly(fn, *args)` or `quiet(fn)`.

nbgrader scores a test cell 0 if anything appears on stderr, so a learner's debug print
or a `warnings.warn` in a correct answer would cost the points. Test cells therefore call
learner code through this helper (`call_quietly` says what it does to the call). How a test cell
uses it is in docs/EXERCISES.md, section "Exercise and test rules".

    >>> double = quiet(lambda v: 2 * v)
    >>> double(21)
    42
"""
from __future__ import annotations

import contextlib
import copy
import functools
import io
import warnings

import numpy as np

MAX_NOTE = 2000      # characters of captured stderr shown


def _copy(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (list, dict)):
        try:
            return copy.deepcopy(value)
        except Exception:   # something uncopyable inside: pass it as it is
            return value
    return value


def _changed(original, passed) -> bool:
    if original is passed:
        return False
    try:
        if isinstance(original, np.ndarray):
            return original.shape != passed.shape or not np.array_equal(original, passed, equal_nan=True)
        return bool(original != passed)
    except Exception:
        return False


def call_quietly(fn, *args, **kwargs):
    """`fn(*args, **kwargs)`, called so that a correct answer never loses points to its side effects:

    * what the call writes to stderr and the warnings it raises are captured and shown on stdout
      with a note (they never cost points);
    * NumPy floating-point warnings are silenced (`np.errstate(all="ignore")`), as the tests
      check finiteness themselves;
    * array, list and dict arguments are passed as copies, so a function that changes its inputs
      in place cannot corrupt the test's later checks (a note says it happened).

    Exceptions propagate unchanged.

        >>> import sys, numpy as np
        >>> def noisy(x):
        ...     print("debug", file=sys.stderr)
        ...     x *= 2
        ...     return float(x.sum())
        >>> a = np.ones(3)
        >>> call_quietly(noisy, a)
        [note] noisy wrote to stderr (shown here; this does not cost points):
        debug
        [note] noisy changed its argument 1 in place; the test passed it a copy, so its own data is intact.
        6.0
        >>> a
        array([1., 1., 1.])
    """
    name = getattr(fn, "__name__", "your function")
    call_args = [_copy(a) for a in args]
    call_kwargs = {k: _copy(v) for k, v in kwargs.items()}
    err = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(err), \
            np.errstate(all="ignore"):
        warnings.simplefilter("always")
        try:
            return fn(*call_args, **call_kwargs)
        finally:
            text = err.getvalue()
            text += "".join(f"{w.category.__name__}: {w.message}\n" for w in caught)
            if text.strip():
                print(f"[note] {name} wrote to stderr (shown here; this does not cost points):\n"
                      f"{text.strip()[:MAX_NOTE]}")
            for where, original, passed in [(i + 1, a, c) for i, (a, c) in enumerate(zip(args, call_args))] + \
                    [(k, kwargs[k], call_kwargs[k]) for k in kwargs]:
                if _changed(original, passed):
                    print(f"[note] {name} changed its argument {where} in place; the test passed it a copy, "
                          f"so its own data is intact.")


def quiet(fn):
    """`fn` wrapped with `call_quietly`: `tv = quiet(tv)` at the top of a test cell."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        return call_quietly(fn, *args, **kwargs)
    return wrapped
