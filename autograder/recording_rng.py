"""A random generator that records how it was used.

Engines draw randomness in a fixed protocol (one uniform per verified position, one
categorical draw for the extra token), and the tests of the sampling exercises check
that protocol. `RecordingGenerator` wraps `numpy.random.Generator`, forwards
`random()` and `choice()` and appends one `Call` per use. Optionally it can be
scripted: `uniforms=[0.1, 0.9]` makes the first two `random()` calls return those
values, which lets a test force an acceptance or a rejection.

    >>> rng = RecordingGenerator(0, uniforms=[0.25])
    >>> rng.random()
    0.25
    >>> int(rng.choice(3, p=[0.0, 1.0, 0.0]))
    1
    >>> [c.name for c in rng.calls]
    ['random', 'choice']
    >>> rng.calls[1].kwargs['p']
    (0.0, 1.0, 0.0)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np


@dataclass(frozen=True)
class Call:
    """One use of the generator: the method name, its arguments and what it returned."""

    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    result: Any = None


def _freeze(value: Any) -> Any:
    # Arrays are copied into tuples so a later in-place edit by the caller cannot change the record.
    if isinstance(value, np.ndarray):
        return tuple(value.tolist())
    if isinstance(value, list):
        return tuple(value)
    return value


class RecordingGenerator:
    """Forwards `random()` and `choice()` to a numpy Generator and records every call.

    Any other method (`integers`, `uniform`, ...) is refused with a clear error, because
    the exercises fix the protocol and a test must see every draw.
    """

    def __init__(self, seed: int | np.random.Generator | None = None, uniforms: Sequence[float] = ()):
        self._rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self._scripted = [float(u) for u in uniforms]
        self.calls: list[Call] = []

    def random(self, size=None, dtype=np.float64, out=None):
        if size is None and out is None and self._scripted:
            value = self._scripted.pop(0)
        else:
            value = self._rng.random(size=size, dtype=dtype, out=out)
        self.calls.append(Call("random", (), {} if size is None else {"size": size}, _freeze(value)))
        return value

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        value = self._rng.choice(a, size=size, replace=replace, p=p, axis=axis, shuffle=shuffle)
        kwargs = {"p": None if p is None else _freeze(np.asarray(p, dtype=float))}
        if size is not None:
            kwargs["size"] = size
        self.calls.append(Call("choice", (_freeze(a),), kwargs, _freeze(value)))
        return value

    def names(self) -> list[str]:
        """The sequence of method names called, e.g. ['random', 'random', 'choice']."""
        return [c.name for c in self.calls]

    def reset(self) -> None:
        self.calls.clear()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(
            f"this exercise's test generator supports only rng.random() and rng.choice(...); "
            f"you called rng.{name}(). Draw uniforms with rng.random() and categorical "
            f"samples with rng.choice(V, p=probabilities).")
