"""Deliberately wrong verifiers, for chapter 04's demonstration that a broken sampler looks healthy.

Each function has the signature and random-number protocol of `specdec.speculative.verify_round`
(`rng.random()` per verified position, one `rng.choice`) and differs from the correct rule in
exactly one place, named in its docstring and marked `# CHANGED` in the code:

* `verify_resample_p`: after a rejection, the extra token comes from `p[i]`, not the residual;
* `verify_keep_drafts`: after a rejection, the drafts after the rejected one are emitted too;
* `verify_argmax`: a draft is kept when it is the target's argmax (no uniform at all);
* `verify_no_bonus`: no bonus token when every draft is kept (slow, but still exact).

They live in the library so that the chapter can run them without printing a near-solution of
its exercise below the exercise. Inputs are not validated (the demonstration passes valid rounds).

    >>> import numpy as np
    >>> p = np.array([[0.0, 1.0], [0.5, 0.5]]); q = np.array([[1.0, 0.0]])
    >>> verify_resample_p(p, q, [0], np.random.default_rng(0))      # p[0] puts no mass on the draft
    [1]
    >>> verify_no_bonus(np.array([[1.0, 0.0], [0.5, 0.5]]), q, [0], np.random.default_rng(0))
    [0]
"""
from __future__ import annotations

import numpy as np

from .distributions import residual


def verify_resample_p(p, q, drafts, rng) -> list[int]:
    """BROKEN: after a rejection, draw from the target row p[i] instead of the residual."""
    gamma, V = q.shape
    out = []
    for i, x in enumerate(drafts):
        if rng.random() < p[i, x] / q[i, x]:
            out.append(int(x))
            continue
        out.append(int(rng.choice(V, p=p[i])))                        # CHANGED: p[i], not residual(p[i], q[i])
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out


def verify_keep_drafts(p, q, drafts, rng) -> list[int]:
    """BROKEN: after a rejection, emit the residual sample and then the stale drafts too."""
    gamma, V = q.shape
    out = []
    for i, x in enumerate(drafts):
        if rng.random() < p[i, x] / q[i, x]:
            out.append(int(x))
            continue
        out.append(int(rng.choice(V, p=residual(p[i], q[i]))))
        return out + [int(t) for t in drafts[i + 1:]]                  # CHANGED: `return out` drops them
    out.append(int(rng.choice(V, p=p[gamma])))
    return out


def verify_argmax(p, q, drafts, rng) -> list[int]:
    """BROKEN: keep a draft iff it is the target's argmax; residual at the first mismatch."""
    gamma, V = q.shape
    out = []
    for i, x in enumerate(drafts):
        if x == int(np.argmax(p[i])):                                  # CHANGED: rng.random() < p/q
            out.append(int(x))
            continue
        out.append(int(rng.choice(V, p=residual(p[i], q[i]))))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out


def verify_no_bonus(p, q, drafts, rng) -> list[int]:
    """SLOW BUT EXACT: like the correct rule, but no bonus token when every draft is kept."""
    gamma, V = q.shape
    out = []
    for i, x in enumerate(drafts):
        if rng.random() < p[i, x] / q[i, x]:
            out.append(int(x))
            continue
        out.append(int(rng.choice(V, p=residual(p[i], q[i]))))
        return out
    return out                                                         # CHANGED: no bonus draw from p[gamma]
