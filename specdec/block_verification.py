"""Block verification (Sun et al. 2024): judge the drafted block as a whole, not token by token.

Same conventions as `specdec.speculative`: `p` has shape (gamma + 1, V), row i the target's
distribution after the prefix and drafts[:i] (row gamma is the bonus row); `q` has shape
(gamma, V), row i the distribution drafts[i] was sampled from.

Token-by-token verification keeps draft i with probability min(1, p_i(x_i)/q_i(x_i)) and stops
at the first refusal. Block verification carries a running weight instead,

    w_0 = 1,   w_i = min(1, w_{i-1} * p_i(x_i) / q_i(x_i)),

so a draft the target likes more than the draft did can pay for an earlier one it liked less.
With the residual mass one position ahead, rho_i = sum_x max(w_i p_{i+1}(x) - q_{i+1}(x), 0),
prefix i is accepted with probability

    h_i = rho_i / (rho_i + 1 - w_i)  for i < gamma,     h_gamma = w_gamma,

each test with its own uniform, and the round keeps the LONGEST accepted prefix tau (tau = 0 is
always accepted). It then emits one more token: the bonus from p[gamma] when tau = gamma,
otherwise a sample of the block residual norm(max(w_tau p_{tau+1} - q_{tau+1}, 0)). With
gamma = 1 this is the token rule exactly (h_1 = w_1 = min(1, p/q)).

`block_verify` samples one round; `block_round_law` is the exact law of its emitted list for
fixed drafts, and `expected_kept` the exact mean number of kept drafts, for tests and figures.

The target likes the first draft less than the draft did (0.4 against 0.6) and the second more
(0.8 against 0.5); block verification lets the second pay for the first:

    >>> P = np.array([[0.6, 0.4], [0.2, 0.8], [0.5, 0.5]])     # (gamma + 1, V) = (3, 2)
    >>> Q = np.array([[0.4, 0.6], [0.5, 0.5]])                  # (gamma, V) = (2, 2)
    >>> law = block_round_law(P, Q, [1, 1])
    >>> round(float(sum(law.values())), 12)
    1.0
    >>> round(expected_kept(P, Q, [1, 1]), 4), round(expected_kept(P, Q, [1, 1], rule="token"), 4)
    (2.0, 1.3333)
"""
from __future__ import annotations

import numpy as np

from .speculative import _check_round


def _weights(p: np.ndarray, q: np.ndarray, drafts: list[int]) -> np.ndarray:
    """w_0..w_gamma, shape (gamma + 1,): the capped running ratio of target to draft along the block."""
    w = np.ones(len(drafts) + 1)
    for i, x in enumerate(drafts):
        w[i + 1] = min(1.0, w[i] * p[i, x] / q[i, x])
    return w


def _thresholds(p: np.ndarray, q: np.ndarray, w: np.ndarray) -> np.ndarray:
    """h_0..h_gamma, shape (gamma + 1,): the probability that prefix i passes its own test."""
    gamma = q.shape[0]
    h = np.ones(gamma + 1)
    for i in range(1, gamma):
        rho = np.maximum(w[i] * p[i] - q[i], 0.0).sum()        # residual mass one position ahead
        denom = rho + 1.0 - w[i]
        h[i] = rho / denom if denom > 0 else 1.0               # w_i = 1 and rho = 0: p_i == q_i, accept
    h[gamma] = w[gamma]
    return h


def _block_residual(p: np.ndarray, q: np.ndarray, w: np.ndarray, tau: int) -> np.ndarray:
    """The row the extra token is drawn from after keeping tau < gamma drafts, shape (V,)."""
    missing = np.maximum(w[tau] * p[tau] - q[tau], 0.0)
    return missing / missing.sum()


def block_verify(p, q, drafts, rng) -> list[int]:
    """Verify one round by block verification; return the kept drafts and one more token.

    Draws gamma uniforms with rng.random() (the tests of prefixes 1..gamma) and one token with
    rng.choice(V, p=...).

    >>> P = np.array([[0.5, 0.5], [0.5, 0.5]]); Q = np.array([[0.5, 0.5]])
    >>> len(block_verify(P, Q, [0], np.random.default_rng(0)))        # p == q: the draft is kept
    2
    """
    p, q, drafts = _check_round(p, q, drafts)
    gamma, V = q.shape
    w = _weights(p, q, drafts)                                  # (gamma + 1,)
    h = _thresholds(p, q, w)                                    # (gamma + 1,)
    u = np.array([rng.random() for _ in range(gamma)])          # (gamma,) one test per prefix 1..gamma
    passed = np.flatnonzero(u <= h[1:])
    tau = int(passed[-1]) + 1 if passed.size else 0             # the longest accepted prefix
    row = p[gamma] if tau == gamma else _block_residual(p, q, w, tau)
    return drafts[:tau] + [int(rng.choice(V, p=row))]


def block_round_law(p, q, drafts) -> dict[tuple[int, ...], float]:
    """Exact {emitted list: probability} of `block_verify` for fixed drafts.

    P(tau = i) = h_i * prod_{j > i} (1 - h_j): prefix i passes and every longer one fails.
    """
    p, q, drafts = _check_round(p, q, drafts)
    gamma = q.shape[0]
    w = _weights(p, q, drafts)
    h = _thresholds(p, q, w)
    law: dict[tuple[int, ...], float] = {}
    for tau in range(gamma + 1):
        prob = h[tau] * np.prod(1.0 - h[tau + 1:])
        if prob <= 0:
            continue
        row = p[gamma] if tau == gamma else _block_residual(p, q, w, tau)
        for y in np.flatnonzero(row):
            key = tuple(drafts[:tau]) + (int(y),)
            law[key] = law.get(key, 0.0) + prob * row[y]
    return law


def expected_kept(p, q, drafts, rule: str = "block") -> float:
    """Exact E[number of kept drafts] for fixed drafts, under block or token-by-token verification."""
    p, q, drafts = _check_round(p, q, drafts)
    gamma = q.shape[0]
    if rule == "token":
        keep = [min(1.0, p[i, x] / q[i, x]) for i, x in enumerate(drafts)]
        return float(np.cumprod(keep).sum())                    # sum of P(J >= i)
    if rule != "block":
        raise ValueError(f"rule must be 'block' or 'token', got {rule!r}")
    h = _thresholds(p, q, _weights(p, q, drafts))
    return float(sum(i * h[i] * np.prod(1.0 - h[i + 1:]) for i in range(1, gamma + 1)))
