"""Argument checks shared by the library's public functions.

An integer argument (a count, a token id, a draft length) must be a real integer: `True` is
an `int` to Python but never a meaningful gamma, and 2.0 hides a caller's mistake. NumPy
integers are accepted because arrays hand them out.

    >>> check_int(3, "gamma", low=1)
    3
    >>> check_int(np.int64(0), "k", low=0)
    0
    >>> check_int(True, "gamma", low=1)
    Traceback (most recent call last):
    ...
    ValueError: gamma must be an integer >= 1, got True
    >>> check_int(9, "n_gpu", low=1, high=8, must="a GPU count in 1..8")
    Traceback (most recent call last):
    ...
    ValueError: n_gpu must be a GPU count in 1..8, got 9
    >>> check_number(0.5, "t_W")
    0.5
"""
from __future__ import annotations

import numpy as np

INTEGER_TYPES = (int, np.integer)
NUMBER_TYPES = (int, float, np.integer, np.floating)


def is_int(value) -> bool:
    """True for Python and NumPy integers, False for bools and everything else."""
    return isinstance(value, INTEGER_TYPES) and not isinstance(value, (bool, np.bool_))


def check_int(value, name: str, *, low: int | None = None, high: int | None = None,
              must: str | None = None) -> int:
    """`value` as an int if it is an integer in [low, high]; otherwise a ValueError naming `name`.

    `must` replaces the default description ("an integer >= low") in the message.
    """
    if not is_int(value) or (low is not None and value < low) or (high is not None and value > high):
        if must is None:
            bounds = [f">= {low}"] if low is not None else []
            bounds += [f"<= {high}"] if high is not None else []
            must = "an integer" + (" " + " and ".join(bounds) if bounds else "")
        raise ValueError(f"{name} must be {must}, got {value!r}")
    return int(value)


def check_number(value, name: str, *, must: str = "a number") -> float:
    """`value` as a float if it is a real number (not a bool); otherwise a ValueError naming `name`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, NUMBER_TYPES):
        raise ValueError(f"{name} must be {must}, got {value!r}")
    return float(value)
