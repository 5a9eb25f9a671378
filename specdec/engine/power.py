"""The power of a chi-square check: how many draws it takes to catch a wrong distribution.

Pearson's statistic of N draws from a law w, tested against the law p over k cells, follows
approximately a noncentral chi-square with k - 1 degrees of freedom and noncentrality

    lambda = N * sum_x (w(x) - p(x))**2 / p(x),

(central when w = p). The check rejects when the statistic exceeds the (1 - level) quantile of the
central chi-square with k - 1 degrees of freedom, so its power against w is the noncentral law's
tail beyond that quantile (`scipy.stats.ncx2`). The noncentrality grows linearly with N: solving
power(N) >= target for the smallest N sizes a check before it is run. The total variation
1/2 sum |w - p| says how far w is, but not how visible: the same distance in rare cells weighs more.

`pooled_cells` mirrors the pooling of `autograder.stats.chi_square` (cells expected fewer than 5
times are merged), so `chi_square_power` is the power of exactly the test the course runs.

    >>> p, w = [0.5, 0.5], [0.55, 0.45]                          # total variation 0.05
    >>> round(chi_square_power(p, w, 5000, pool=False), 3)
    0.985
    >>> draws_for_power(p, w, power=0.99, pool=False)
    5210
"""
from __future__ import annotations

import numpy as np
from scipy import stats

MIN_EXPECTED = 5.0          # as autograder.stats.chi_square


def _laws(p, w) -> tuple[np.ndarray, np.ndarray]:
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    if p.ndim != 1 or p.shape != w.shape or p.size < 2:
        raise ValueError(f"p and w must be 1-D laws over the same k >= 2 outcomes, got shapes {p.shape}, {w.shape}")
    if np.any(p < 0) or np.any(w < 0) or abs(p.sum() - 1) > 1e-6 or abs(w.sum() - 1) > 1e-6:
        raise ValueError("p and w must be probability vectors (non-negative, summing to 1)")
    if np.any(w[p == 0] > 0):
        raise ValueError("w puts mass where p has none: any single such draw already refutes p")
    return p, w


def pooled_cells(p, n: int, min_expected: float = MIN_EXPECTED) -> list[np.ndarray]:
    """The cells the course's chi-square test forms for n draws: index arrays, the rare ones pooled.

        >>> [c.tolist() for c in pooled_cells([0.7, 0.2, 0.05, 0.05], 60)]     # expected 42, 12, 3, 3
        [[1], [0], [2, 3]]
    """
    p = np.asarray(p, dtype=float)
    order = [i for i in np.argsort(n * p, kind="stable") if p[i] > 0]
    pooled = []
    while order and n * p[order[0]] < min_expected:
        pooled.append(order.pop(0))
    if pooled:
        while n * p[pooled].sum() < min_expected and order:
            pooled.append(order.pop(0))
        return [np.array([i]) for i in order] + [np.array(pooled)]
    return [np.array([i]) for i in order]


def noncentrality_per_draw(p, w, cells=None) -> float:
    """sum over cells of (w - p)^2 / p: the noncentrality that one draw adds.

        >>> noncentrality_per_draw([0.5, 0.5], [0.55, 0.45])
        0.01
    """
    p, w = _laws(p, w)
    cells = [np.array([i]) for i in np.flatnonzero(p)] if cells is None else cells
    pc = np.array([p[c].sum() for c in cells])
    wc = np.array([w[c].sum() for c in cells])
    return float(np.round(np.sum((wc - pc) ** 2 / pc), 15))


def chi_square_power(p, w, n: int, level: float = 1e-6, pool: bool = True) -> float:
    """Probability that Pearson's test of n draws from w against p rejects at `level`.

    pool: merge rare cells as the course's `chi_square` does for n draws (False: every cell of p).
    """
    cells = pooled_cells(p, n) if pool else [np.array([i]) for i in np.flatnonzero(np.asarray(p) > 0)]
    dof = len(cells) - 1
    if dof < 1:
        return 0.0
    critical = stats.chi2.isf(level, dof)
    return float(stats.ncx2.sf(critical, dof, n * noncentrality_per_draw(p, w, cells)))


def draws_for_power(p, w, power: float = 0.99, level: float = 1e-6, pool: bool = True, limit: int = 10**8) -> int:
    """The smallest n at which `chi_square_power` reaches `power` (and stays there for the next few n).

    Without pooling the power rises with n, so a doubling search and a bisection find it. With
    pooling the number of cells changes with n and the power can dip by a little just after a
    change; the search then steps on until the power holds.
    """
    if not 0 < power < 1 or not 0 < level < 1:
        raise ValueError("power and level must lie strictly between 0 and 1")
    reach = lambda n: chi_square_power(p, w, n, level, pool) >= power
    hi = 1
    while not reach(hi):
        hi *= 2
        if hi > limit:
            raise ValueError(f"no n up to {limit} reaches power {power}: w is too close to p")
    lo = hi // 2                                   # reach(lo) is False (or lo == 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reach(mid) else (mid, hi)
    while pool and not all(reach(hi + j) for j in range(1, 4)):
        hi += 1
    return hi
