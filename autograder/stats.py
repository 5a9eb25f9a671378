"""Statistical checks for exercises that sample.

A sampler is graded by its distribution, never by a few strings: we count what it
emits over many independent calls and compare the counts with the exact
probabilities by Pearson's chi-square test.

    statistic = sum over cells of (observed - expected)^2 / expected

Rare cells are pooled first (`chi_square`). The textbook p-value (the chi-square law of the
statistic) is only right far into the tail when every cell expects many outcomes: with a cell
expecting 5 in 200 draws, "p < 1e-6" happens to an exact sampler 5e-5 of the time. So a test
fails on `p_bound`, an upper bound on the exact tail probability (`tail_bound`), below `P_FAIL`:
then an exact sampler fails with probability below P_FAIL whatever the table and the seed
(measured in tests/test_stats.py). How a chapter chooses its sample sizes against these
thresholds: docs/EXERCISES.md, section "Exercise and test rules".

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = np.array([0.5, 0.3, 0.2])
    >>> samples = rng.choice(3, size=20_000, p=p)
    >>> result = chi_square(count_outcomes(samples), dict(enumerate(p)))
    >>> result.p_value > 1e-6
    True
"""
from __future__ import annotations

import functools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Hashable, Iterable, Mapping, Sequence

import numpy as np
from scipy import signal as _scipy_signal
from scipy import stats as _scipy_stats

from specdec.checks import paired_rows, scalar_or_array

P_FAIL = 1e-6          # a correct sampler fails a test with probability below this, whatever its seed
MIN_EXPECTED = 5.0     # cells expected fewer times than this are pooled
_PROB_ATOL = 1e-9      # how far from 1 a probability table may sum


@dataclass(frozen=True)
class Cell:
    """One row of the comparison table: an outcome, its counts, its share of the statistic."""

    label: str
    observed: int
    expected: float

    @property
    def contribution(self) -> float:
        return (self.observed - self.expected) ** 2 / self.expected if self.expected > 0 else math.inf


@dataclass(frozen=True)
class ChiSquareResult:
    """The outcome of a Pearson chi-square goodness-of-fit test."""

    statistic: float
    dof: int
    p_value: float                          # the chi-square approximation (the textbook p-value)
    n: int
    cells: tuple[Cell, ...]                 # after pooling, sorted by contribution (worst first)
    pooled: tuple[str, ...] = field(default=())   # labels merged into the pooled cell
    impossible: tuple[tuple[str, int], ...] = field(default=())  # outcomes with probability 0 that occurred
    p_bound: float = 1.0                    # an upper bound on the exact p-value: what a test judges

    @property
    def passed(self) -> bool:
        return not self.impossible and self.p_bound >= P_FAIL

    def table(self, rows: int = 6) -> str:
        """The worst cells as an aligned text table (observed vs expected counts)."""
        lines = [f"{'outcome':<28}{'observed':>10}{'expected':>12}{'(o-e)^2/e':>12}"]
        for cell in self.cells[:rows]:
            lines.append(f"{cell.label:<28}{cell.observed:>10d}{cell.expected:>12.1f}{cell.contribution:>12.1f}")
        if len(self.cells) > rows:
            lines.append(f"... {len(self.cells) - rows} more cells")
        return "\n".join(lines)

    def summary(self) -> str:
        return (f"chi-square = {self.statistic:.1f} on {self.dof} degrees of freedom "
                f"(an exact sampler gives about {self.dof} ± {math.sqrt(2 * self.dof):.0f}), "
                f"p = {self.p_value:.2e} by the chi-square approximation, at most {self.p_bound:.1e} "
                f"exactly, n = {self.n}")


def _label(key: Hashable) -> str:
    if isinstance(key, tuple):
        return "(" + ", ".join(str(k) for k in key) + ")"
    return str(key)


def _as_probability_table(expected: Mapping[Hashable, float] | Sequence[float] | np.ndarray) -> dict:
    if isinstance(expected, Mapping):
        table = {k: float(v) for k, v in expected.items()}
    else:
        arr = np.asarray(expected, dtype=float)
        if arr.ndim != 1:
            raise ValueError(f"expected probabilities must be 1-D or a dict, got shape {arr.shape}")
        table = {i: float(v) for i, v in enumerate(arr)}
    values = np.array(list(table.values()))
    if len(values) == 0 or not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError("expected probabilities must be finite and non-negative")
    if abs(values.sum() - 1.0) > _PROB_ATOL * max(1, len(values)):
        raise ValueError(f"expected probabilities must sum to 1, they sum to {values.sum():.12f}")
    return table


def count_outcomes(samples: Iterable[Hashable]) -> Counter:
    """Count hashable outcomes; lists and arrays become tuples of ints so sequences can be counted.

    >>> count_outcomes([[1, 2], (1, 2), [0]])
    Counter({(1, 2): 2, (0,): 1})
    """
    counts: Counter = Counter()
    for s in samples:
        if isinstance(s, (list, tuple, np.ndarray)):
            s = tuple(int(v) for v in s)
        elif isinstance(s, (np.integer,)):
            s = int(s)
        counts[s] += 1
    return counts


@functools.lru_cache(maxsize=512)
def _tail_table(expected: tuple[float, ...]) -> tuple[float, np.ndarray]:
    """(h, tail): tail[i] bounds from above the probability that the statistic reaches i * h.

    Each cell's count is taken as an independent Poisson(e) variable (a multinomial is that,
    conditioned on the total: one degree of freedom fewer, a lighter tail; tests/test_stats.py
    measures that the bound holds for multinomial tables). Each cell's contribution
    (N - e)^2 / e is rounded *up* to a grid of width h, so the grid's sum is never below the
    statistic; the laws of the rounded contributions are convolved exactly (FFT), and all mass at
    or beyond the grid's end, `far`, stays in its last bin.
    """
    k = len(expected)
    bins = 4096 * min(8, 1 + k // 40)
    far = 2.0 * float(_scipy_stats.chi2.isf(1e-9, k)) + 40.0
    while True:
        h = far / bins
        dist = np.zeros(bins + 1)
        dist[0] = 1.0
        for e in expected:
            hi = int(e + 12.0 * math.sqrt(e) + 40.0)     # beyond: Poisson mass below 1e-15
            counts = np.arange(hi + 1)
            pmf = _scipy_stats.poisson.pmf(counts, e)
            index = np.minimum(np.ceil((counts - e) ** 2 / e / h * (1 + 1e-12)), bins).astype(int)
            cell = np.bincount(index, weights=pmf, minlength=bins + 1)
            cell[bins] += _scipy_stats.poisson.sf(hi, e)
            body = np.clip(_scipy_signal.fftconvolve(dist[:bins], cell[:bins])[:bins], 0.0, None)
            dist = np.append(body, max(0.0, 1.0 - body.sum()))
        tail = np.cumsum(dist[::-1])[::-1]
        if tail[bins] < P_FAIL / 1000 or far > 1e6:
            return h, np.minimum(tail, 1.0)
        far *= 2.0


def tail_bound(statistic: float, expected_counts: Sequence[float]) -> float:
    """An upper bound on P(chi-square statistic >= `statistic`) for a sampler that is exact.

    Unlike the chi-square approximation it holds in the far tail however few outcomes a cell
    expects (see `_tail_table`); it is never below the exact probability.

    >>> tail_bound(0.0, [50.0, 50.0])
    1.0
    >>> b = tail_bound(30.0, [5.0, 195.0])      # a cell expecting 5 outcomes in 200 draws
    >>> float(_scipy_stats.chi2.sf(30.0, 1)) < 1e-7 < b < 1e-4
    True
    """
    if statistic <= 0:
        return 1.0
    h, tail = _tail_table(tuple(round(float(e), 9) for e in expected_counts))
    return float(tail[min(int(math.ceil(statistic / h)), len(tail) - 1)])


def chi_square(observed: Mapping[Hashable, int], expected: Mapping[Hashable, float] | Sequence[float],
               min_expected: float = MIN_EXPECTED) -> ChiSquareResult:
    """Pearson's chi-square test of observed counts against exact probabilities.

    `observed` maps outcomes to counts (a Counter); `expected` maps the same outcomes to
    probabilities (or is an array indexed by outcome). Outcomes missing from `observed`
    count as 0. An observed outcome that has probability 0 is recorded in `impossible`.

    Cells whose expected count is below `min_expected` are pooled into one cell (the chi-square
    approximation is poor for rare cells); if the pool itself is still below `min_expected`, it
    absorbs the smallest remaining cell until it is not (or nothing is left to absorb). The p-value
    comes from scipy's chi-square survival function with (cells - 1) degrees of freedom; `p_bound`,
what a test judges, from `tail_bound`.

    >>> r = chi_square({0: 48, 1: 52}, [0.5, 0.5])
    >>> round(r.statistic, 2), r.dof
    (0.16, 1)
    """
    probs = _as_probability_table(expected)
    n = int(sum(observed.values()))
    if n <= 0:
        raise ValueError("no samples to test")
    impossible = tuple(sorted(((_label(k), int(c)) for k, c in observed.items()
                               if c > 0 and probs.get(k, 0.0) <= 0.0), key=lambda t: -t[1]))
    cells = [Cell(_label(k), int(observed.get(k, 0)), n * p) for k, p in probs.items() if p > 0]
    cells.sort(key=lambda c: c.expected)
    pooled: list[Cell] = []
    while cells and cells[0].expected < min_expected:
        pooled.append(cells.pop(0))
    if pooled:
        pool_obs = sum(c.observed for c in pooled)
        pool_exp = sum(c.expected for c in pooled)
        while pool_exp < min_expected and cells:
            c = cells.pop(0)
            pooled.append(c)
            pool_obs += c.observed
            pool_exp += c.expected
        cells.append(Cell(f"<{len(pooled)} rare outcomes pooled>", pool_obs, pool_exp))
    if len(cells) < 2:
        raise ValueError("fewer than two cells after pooling: draw more samples")
    statistic = float(sum(c.contribution for c in cells))
    dof = len(cells) - 1
    p_value = float(_scipy_stats.chi2.sf(statistic, dof))
    p_bound = tail_bound(statistic, [c.expected for c in cells])
    cells.sort(key=lambda c: -c.contribution)
    return ChiSquareResult(statistic, dof, p_value, n, tuple(cells),
                           tuple(c.label for c in pooled), impossible, p_bound)


def total_variation(p: np.ndarray, q: np.ndarray) -> np.ndarray | float:
    """Total variation distance along the last axis: half the L1 distance.

    >>> float(total_variation(np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.6, 0.2])))
    0.3
    """
    p, q = paired_rows(p, q)
    out = 0.5 * np.abs(p - q).sum(axis=-1)
    return scalar_or_array(out)


def empirical_tv(observed: Mapping[Hashable, int], expected: Mapping[Hashable, float] | Sequence[float]) -> float:
    """Total variation between the empirical distribution of `observed` and `expected`."""
    probs = _as_probability_table(expected)
    n = sum(observed.values())
    keys = set(probs) | set(observed)
    return 0.5 * sum(abs(observed.get(k, 0) / n - probs.get(k, 0.0)) for k in keys)


def assert_distribution(samples: Iterable[Hashable] | Mapping[Hashable, int],
                        expected: Mapping[Hashable, float] | Sequence[float],
                        what: str = "your sampler's output",
                        hint: str = "",
                        threshold: float = P_FAIL) -> ChiSquareResult:
    """Fail with a learner-readable message unless the samples fit `expected`.

    `samples` is either the raw outcomes or a Counter of them. The message names what
    was tested, shows the observed vs expected counts of the worst cells and adds `hint`.
    Returns the result so a test can report or reuse the statistic.
    """
    observed = samples if isinstance(samples, Mapping) else count_outcomes(samples)
    probs = _as_probability_table(expected)
    impossible = sorted(((_label(k), int(c)) for k, c in observed.items() if c > 0 and probs.get(k, 0.0) <= 0.0),
                        key=lambda t: -t[1])
    if impossible:
        shown = ", ".join(f"{label} ({count} times)" for label, count in impossible[:5])
        raise AssertionError(
            f"{what} produced outcomes that have probability 0 under the exact distribution: {shown}."
            + (f"\n{hint}" if hint else ""))
    result = chi_square(observed, probs)
    if result.p_bound < threshold:
        raise AssertionError(
            f"{what} does not follow the exact distribution.\n{result.summary()}\n"
            f"The cells that disagree most:\n{result.table()}"
            + (f"\n{hint}" if hint else ""))
    return result
