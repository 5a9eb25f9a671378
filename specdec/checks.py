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

Functions that take a value or an array answer in kind: a float for a scalar input, an array otherwise.

    >>> scalar_or_array(np.float64(2.5)), scalar_or_array(np.array([1, 2]), int)
    (2.5, array([1, 2]))
    >>> paired_rows([0.5, 0.5], [1.0, 0.0])[1]
    array([1., 0.])
    >>> paired_rows([0.5, 0.5], [1.0, 0.0, 0.0])
    Traceback (most recent call last):
    ...
    ValueError: p and q must have the same shape, got (2,) and (3,)
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


def scalar_or_array(out, kind=float):
    """`out` as a Python `kind` (float or int) when it is 0-dimensional, else the array itself:
    a function called with one setting returns a number, with a grid of settings an array."""
    out = np.asarray(out)
    return kind(out) if out.ndim == 0 else out


def paired_rows(p, q, names: tuple[str, str] = ("p", "q")) -> tuple[np.ndarray, np.ndarray]:
    """`p` and `q` as float arrays of one shape (rows of distributions along the last axis), or a
    ValueError naming both shapes: comparing a target row with a draft row of another vocabulary
    is always a caller's mistake."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if p.shape != q.shape:
        raise ValueError(f"{names[0]} and {names[1]} must have the same shape, got {p.shape} and {q.shape}")
    return p, q


def batch_sizes(B) -> np.ndarray:
    """`B` (a batch size or an array of them) as floats, each finite and >= 1, or a ValueError
    listing what was given. Floats are allowed: the cost model treats B as a continuous variable."""
    B_arr = np.asarray(B, dtype=float)
    if not np.all(np.isfinite(B_arr)) or np.any(B_arr < 1):
        raise ValueError(f"batch sizes must be >= 1, got {np.asarray(B).tolist()}")
    return B_arr


def tokens_per_sequence(k) -> int:
    """`k`, the tokens each sequence sends through a pass (1 for plain decoding, gamma + 1 to verify)."""
    return check_int(k, "k (tokens per sequence in the pass)", low=1)
