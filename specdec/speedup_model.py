"""Tokens per round and the speedup of speculative decoding, in closed form.

Symbols (the course's convention): `p` is the target's distribution and `q` the draft's;
`gamma` is the number of drafted tokens per round; `J` the number of drafts a round keeps,
so a round emits `J + 1` tokens. `alpha` is an acceptance probability, given either as one
number (the i.i.d. model: every draft is kept with probability `alpha` once the drafts
before it were) or as an array whose entry `i` is P(draft i+1 kept | drafts 1..i kept).
`a_i = P(J >= i)` is the survival of position `i`, and `n_bar = E[J + 1] = 1 + sum_i a_i`.

Costs are in target decode steps: `c` is the time of one draft step over one target step,
`c_hat` the draft's FLOPs per token over the target's, and `v` the extra target time per
verified draft once the verification pass is no longer free (zero at small batch; chapter 06
derives it from `t_W`, `t_K`, `t_F`, the decode cost model of chapter 01). A round costs
`gamma * c + 1 + gamma * v` steps, or `c + 1 + gamma * v` for a parallel drafter that
proposes the whole block in one pass.

    >>> round(expected_tokens_iid(0.8, 4), 4)
    3.3616
    >>> round(predicted_speedup(0.8, 4, c=0.05), 3)
    2.801
    >>> optimal_gamma(0.8, c=0.05, max_gamma=20)[0]
    8
"""
from __future__ import annotations

import math

import numpy as np
from specdec.checks import check_int


def _check_gamma(gamma, name: str = "gamma") -> int:
    check_int(gamma, name, low=0, must="a non-negative integer")
    return int(gamma)


def _check_cost(value, name: str) -> float:
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def _check_probability(alpha: float, name: str = "alpha") -> float:
    alpha = float(alpha)
    if not (0.0 <= alpha <= 1.0):
        raise ValueError(f"{name} must be a probability in [0, 1], got {alpha!r}")
    return alpha


def survival_curve(alpha, gamma: int) -> np.ndarray:
    """The survivals a_1..a_gamma, with a_i the chance that the first i drafts are all kept.

    `alpha` is a number (then a_i = alpha**i) or an array of per-position acceptance
    probabilities with at least `gamma` entries (then a_i = alpha_1 * ... * alpha_i).

    >>> survival_curve(0.5, 3)
    array([0.5  , 0.25 , 0.125])
    >>> survival_curve(np.array([0.9, 0.5, 0.0, 1.0]), 3)
    array([0.9 , 0.45, 0.  ])
    """
    gamma = _check_gamma(gamma)
    if np.ndim(alpha) == 0:
        alpha = _check_probability(alpha)
        return alpha ** np.arange(1, gamma + 1, dtype=float)           # (gamma,)
    per_position = np.asarray(alpha, dtype=float)                       # (m,)
    if per_position.ndim != 1:
        raise ValueError(f"alpha must be a number or a 1-D array, got shape {per_position.shape}")
    if per_position.size < gamma:
        raise ValueError(f"alpha has {per_position.size} entries but gamma = {gamma} needs at least {gamma}")
    if np.any(~np.isfinite(per_position)) or np.any((per_position < 0) | (per_position > 1)):
        raise ValueError("every entry of alpha must be a probability in [0, 1]")
    return np.cumprod(per_position[:gamma])                             # (gamma,)


def accepted_length_pmf(alpha, gamma: int) -> np.ndarray:
    """P(J = j) for j = 0..gamma: a_j - a_{j+1}, with a_0 = 1 and a_{gamma+1} = 0.

    In the i.i.d. model this is a geometric distribution capped at gamma.

    >>> accepted_length_pmf(0.8, 2)
    array([0.2 , 0.16, 0.64])
    """
    a = np.concatenate(([1.0], survival_curve(alpha, gamma), [0.0]))  # (gamma+2,)
    return a[:-1] - a[1:]                                               # (gamma+1,)


def expected_tokens_from_survival(survival) -> float:
    """n_bar = 1 + sum_i a_i: the token the target always adds, plus each position's survival.

    >>> expected_tokens_from_survival([0.8, 0.64])
    2.44
    """
    a = np.asarray(survival, dtype=float)                               # (gamma,)
    if a.ndim != 1 or np.any(~np.isfinite(a)) or np.any((a < 0) | (a > 1)):
        raise ValueError("survival must be a 1-D array of probabilities")
    if np.any(np.diff(a) > 1e-12):
        raise ValueError("survival probabilities cannot increase along the draft")
    return 1.0 + float(a.sum())


def expected_tokens_iid(alpha: float, gamma: int) -> float:
    """(1 - alpha**(gamma+1)) / (1 - alpha), and gamma + 1 at alpha = 1 (the limit).

    >>> expected_tokens_iid(1.0, 4)
    5.0
    >>> round(expected_tokens_iid(0.75, 7), 2)
    3.6
    """
    alpha = _check_probability(alpha)
    gamma = _check_gamma(gamma)
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)


def tokens_per_round(alpha, gamma: int) -> float:
    """n_bar for a number (closed form) or a per-position array (survival form).

    >>> round(tokens_per_round(0.8, 2), 12), round(tokens_per_round(np.array([0.8, 0.8, 0.3]), 2), 12)
    (2.44, 2.44)
    """
    if np.ndim(alpha) == 0:
        return expected_tokens_iid(alpha, gamma)
    return expected_tokens_from_survival(survival_curve(alpha, gamma))


def round_cost(gamma: int, c: float, parallel: bool = False, v: float = 0.0) -> float:
    """Time of one round in target steps: drafting + one verification pass + gamma * v.

    >>> round_cost(4, 0.05)
    1.2
    >>> round(round_cost(4, 0.05, parallel=True, v=0.1), 12)
    1.45
    """
    gamma = _check_gamma(gamma)
    c, v = _check_cost(c, "c"), _check_cost(v, "v")
    drafting = c if parallel else gamma * c
    return drafting + 1.0 + gamma * v


def predicted_speedup(alpha, gamma: int, c: float, parallel: bool = False, v: float = 0.0) -> float:
    """S = n_bar / round cost: plain decoding's time per token over speculation's.

    >>> round(predicted_speedup(0.8, 1, c=0.8), 12)
    1.0
    """
    return tokens_per_round(alpha, gamma) / round_cost(gamma, c, parallel, v)


def optimal_gamma(alpha, c: float, max_gamma: int, parallel: bool = False,
                  v: float = 0.0) -> tuple[int, float]:
    """(gamma, S) maximizing the speedup over gamma = 1..max_gamma; the smallest gamma on ties.

    >>> g, s = optimal_gamma(0.8, c=0.2, max_gamma=12)
    >>> g, round(s, 2)
    (4, 1.87)
    """
    max_gamma = _check_gamma(max_gamma, "max_gamma")
    if max_gamma < 1:
        raise ValueError("max_gamma must be at least 1")
    best, best_s = 1, predicted_speedup(alpha, 1, c, parallel, v)
    for gamma in range(2, max_gamma + 1):
        s = predicted_speedup(alpha, gamma, c, parallel, v)
        if s > best_s:
            best, best_s = gamma, s
    return best, best_s


def free_draft_ceiling(alpha: float) -> float:
    """1 / (1 - alpha): the limit of n_bar as gamma grows, the speedup of a free, endless draft.

    >>> round(free_draft_ceiling(0.8), 12)
    5.0
    """
    alpha = _check_probability(alpha)
    return math.inf if alpha == 1.0 else 1.0 / (1.0 - alpha)


def flop_factor(alpha, gamma: int, c_hat: float) -> float:
    """Arithmetic per emitted token relative to plain decoding: (gamma*c_hat + gamma + 1) / n_bar.

    The target processes gamma + 1 positions per round and the draft gamma tokens of
    relative cost c_hat, while the round emits n_bar tokens.

    >>> round(flop_factor(0.8, 4, c_hat=0.05), 2)
    1.55
    """
    gamma = _check_gamma(gamma)
    c_hat = _check_cost(c_hat, "c_hat")
    return (gamma * c_hat + gamma + 1) / tokens_per_round(alpha, gamma)


def alpha_from_speedup(speedup: float, gamma: int, c: float, parallel: bool = False,
                       v: float = 0.0, tol: float = 1e-12) -> float:
    """The i.i.d. alpha at which the model predicts `speedup`, found by bisection.

    n_bar rises strictly with alpha (for gamma >= 1), so the solution is unique; it
    exists when the speedup lies between the model's values at alpha = 0 and alpha = 1.

    >>> round(alpha_from_speedup(2.801, 4, c=0.05), 3)
    0.8
    """
    gamma = _check_gamma(gamma)
    if gamma < 1:
        raise ValueError("gamma must be at least 1 to infer alpha")
    lo, hi = 0.0, 1.0
    s_lo = predicted_speedup(lo, gamma, c, parallel, v)
    s_hi = predicted_speedup(hi, gamma, c, parallel, v)
    if not (s_lo <= speedup <= s_hi):
        raise ValueError(f"speedup {speedup} is outside what gamma={gamma}, c={c} can give "
                         f"([{s_lo:.4g}, {s_hi:.4g}])")
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if predicted_speedup(mid, gamma, c, parallel, v) < speedup:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
