"""Per-round statistics of a speculative run: what a lab measures and chapter 05 predicts.

For rounds of gamma drafts, `RoundStats` records the number of kept drafts n of every round.
From the histogram it estimates the survival a_i = P(n >= i) of each draft position, the mean
tokens per round n_bar = 1 + sum_i a_i, and the conditional acceptance P(n >= i | n >= i - 1)
of each position. With sampling it also records, at every position the verifier reached, the
exact acceptance probability alpha_i = sum_x min(p_i(x), q_i(x)) of that position (chapter 03):
its mean is a lower-variance estimate of the conditional acceptance.

    >>> s = RoundStats(gamma=3)
    >>> for n in (3, 1, 0, 3):
    ...     s.record(n)
    >>> s.histogram.tolist(), s.survival().tolist(), s.n_bar()
    ([1, 1, 0, 2], [0.75, 0.5, 0.5], 2.75)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class RoundStats:
    """Counts over full rounds of `gamma` drafts (a shorter last round is counted apart)."""

    gamma: int
    histogram: np.ndarray = field(init=False)                # (gamma + 1,) rounds that kept n drafts
    alpha_sum: np.ndarray = field(init=False)                # (gamma,) sum of alpha_i where position i was verified
    alpha_count: np.ndarray = field(init=False)              # (gamma,)
    short_rounds: int = 0                                    # rounds cut short by max_new_tokens
    target_calls: int = 0
    draft_calls: int = 0
    tokens: int = 0

    def __post_init__(self):
        if isinstance(self.gamma, bool) or not isinstance(self.gamma, int) or self.gamma < 1:
            raise ValueError(f"gamma must be an integer >= 1, got {self.gamma!r}")
        self.histogram = np.zeros(self.gamma + 1, dtype=np.int64)
        self.alpha_sum = np.zeros(self.gamma)
        self.alpha_count = np.zeros(self.gamma, dtype=np.int64)

    def record(self, n_accepted: int, alphas=None) -> None:
        """One full round that kept `n_accepted` drafts; `alphas` are alpha_1..alpha_{n+1} it reached."""
        if not 0 <= n_accepted <= self.gamma:
            raise ValueError(f"n_accepted must be in 0..{self.gamma}, got {n_accepted}")
        self.histogram[n_accepted] += 1
        if alphas is not None:
            reached = min(n_accepted + 1, self.gamma)
            self.alpha_sum[:reached] += np.asarray(alphas, dtype=float)[:reached]
            self.alpha_count[:reached] += 1

    def merge(self, other: "RoundStats") -> "RoundStats":
        """Add another run's counts (same gamma) into this one; returns self."""
        if other.gamma != self.gamma:
            raise ValueError(f"cannot merge statistics of gamma {other.gamma} into gamma {self.gamma}")
        self.histogram += other.histogram
        self.alpha_sum += other.alpha_sum
        self.alpha_count += other.alpha_count
        for name in ("short_rounds", "target_calls", "draft_calls", "tokens"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self

    @property
    def rounds(self) -> int:
        return int(self.histogram.sum())

    def survival(self) -> np.ndarray:
        """(gamma,) a_i = fraction of rounds that kept at least i drafts, i = 1..gamma."""
        if self.rounds == 0:
            return np.full(self.gamma, np.nan)
        at_least = self.histogram[::-1].cumsum()[::-1]                       # (gamma + 1,) rounds with n >= i
        return at_least[1:] / self.rounds

    def n_bar(self) -> float:
        """Mean tokens per full round, 1 + mean kept drafts."""
        return float(1 + np.dot(np.arange(self.gamma + 1), self.histogram) / self.rounds) if self.rounds else float("nan")

    def conditional_acceptance(self) -> np.ndarray:
        """(gamma,) P(position i kept | position i reached), from the histogram."""
        at_least = self.histogram[::-1].cumsum()[::-1].astype(float)         # (gamma + 1,)
        with np.errstate(invalid="ignore", divide="ignore"):
            return at_least[1:] / at_least[:-1]

    def mean_alpha(self) -> np.ndarray:
        """(gamma,) mean exact acceptance probability sum_x min(p_i, q_i) where position i was verified."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.alpha_sum / self.alpha_count
