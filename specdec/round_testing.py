"""What chapter 04's tests need to judge a verifier: the exact law of a round's emitted list,
fresh draft blocks to feed it, and the misconception behind a wrong call sequence or extra-token row.

Same conventions as `specdec.speculative`: `p` (gamma + 1, V), `q` (gamma, V), draft i sampled
from q[i]. Nothing here verifies a round: `exact_round_lists` only writes out the law the proof of
chapter 04 gives, and the test compares a learner's samples with it.

    >>> P = np.array([[0.5, 0.5], [0.9, 0.1]]); Q = np.array([[1.0, 0.0]])
    >>> {k: round(float(v), 3) for k, v in sorted(exact_round_lists(P, Q).items())}
    {(0, 0): 0.45, (0, 1): 0.05, (1,): 0.5}
"""
from __future__ import annotations

import numpy as np


def exact_round_lists(p, q) -> dict[tuple[int, ...], float]:
    """{emitted list: probability} when draft i is sampled from q[i] and verified exactly.

    Keep x_1..x_j with probability prod_i min(p_i, q_i)(x_i), then either (j < gamma) emit y from
    the rejection branch, whose mass on y is max(p_{j+1} - q_{j+1}, 0)(y), or (j = gamma) a bonus
    y ~ p_gamma.
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    keep = np.minimum(p[:gamma], q)                      # (gamma, V)
    lost = np.maximum(p[:gamma] - q, 0.0)                # (gamma, V)
    table: dict[tuple[int, ...], float] = {}

    def walk(prefix: tuple[int, ...], prob: float) -> None:
        j = len(prefix)
        if j == gamma:
            for y in np.flatnonzero(p[gamma] > 0):
                table[prefix + (int(y),)] = prob * p[gamma, y]
            return
        for y in np.flatnonzero(lost[j] > 0):
            table[prefix + (int(y),)] = prob * lost[j, y]
        for x in np.flatnonzero(keep[j] > 0):
            walk(prefix + (int(x),), prob * keep[j, x])

    walk((), 1.0)
    return table


def draw_drafts(q, n: int, seed: int) -> list[list[int]]:
    """n draft blocks, block k holding one token from each row of q (inverse CDF, vectorized).

    >>> draw_drafts(np.array([[0.0, 1.0], [1.0, 0.0]]), 2, seed=0)
    [[1, 0], [1, 0]]
    """
    q = np.asarray(q, dtype=float)
    u = np.random.default_rng(seed).random((n, q.shape[0]))                     # (n, gamma)
    cdf = np.cumsum(q, axis=1)                                                   # (gamma, V)
    idx = (u[:, :, None] * cdf[None, :, -1:] >= cdf[None, :, :]).sum(axis=2)     # (n, gamma)
    return np.minimum(idx, q.shape[1] - 1).tolist()


def emitted_lists(verify, p, q, n: int, seed: int) -> list[tuple[int, ...]]:
    """Call verify(p, q, drafts, rng) on n fresh draft blocks; return the emitted lists as tuples of ints."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    rng = np.random.default_rng(seed + 1)
    return [tuple(int(t) for t in verify(p.copy(), q.copy(), drafts, rng)) for drafts in draw_drafts(q, n, seed)]


def call_misconception(names: list[str], n_accepted: int, gamma: int) -> str:
    """The likely misconception behind rng calls `names` in a round that should keep n_accepted drafts.

    >>> call_misconception(["random", "choice", "choice"], 0, 3)[:23]
    'you called rng.choice 2'
    """
    n_random, n_choice, want_random = names.count("random"), names.count("choice"), min(n_accepted + 1, gamma)
    if n_random == 0:
        return ("you never drew a uniform: keep draft i with probability min(1, p/q) by comparing a fresh "
                "rng.random() with p[i, x] / q[i, x] (a draft that merely matches the target's argmax is not enough)")
    if n_random == 1 and want_random > 1:
        return "you drew one uniform for the whole round: every verified position needs its own rng.random()"
    if n_choice == 0:
        return ("every draft was kept but you drew no extra token: the round ends with a bonus token from p[gamma]"
                if n_accepted == gamma else "after a rejection, draw the replacement with one rng.choice(V, p=...)")
    if n_choice > 1:
        return f"you called rng.choice {n_choice} times: a round draws exactly one extra token, not one per position"
    if n_random > want_random:
        return (f"u = 0.99 is above the keep ratio of draft {n_accepted + 1}, yet you went on verifying: keep only "
                "when u < p[i, x] / q[i, x] (is your ratio upside down, q/p?) and stop at the first rejection")
    if n_random < want_random:
        return "u = 0 is below every keep ratio, yet you stopped verifying: keep draft i when u < p[i, x] / q[i, x]"
    return "call rng.random() for each verified position first, then rng.choice once"


def row_misconception(got, p, q, n_accepted: int) -> str:
    """The likely misconception behind drawing the extra token with probabilities `got`."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    gamma = q.shape[0]
    flipped = [np.maximum(q[j] - p[j], 0) / np.maximum(q[j] - p[j], 0).sum() for j in range(gamma)]
    if n_accepted < gamma and np.allclose(got, p[n_accepted]):
        return "you resampled from p[i] instead of the residual max(p[i] - q[i], 0) / sum: over-proposed tokens come twice"
    if n_accepted < gamma and np.allclose(got, p[gamma]):
        return "after a rejection the extra token comes from that position's residual, not the bonus row p[gamma]"
    if any(np.allclose(got, f) for f in flipped):
        return "your residual has its sign reversed: it is max(p - q, 0), what the draft under-proposed, not max(q - p, 0)"
    if n_accepted == gamma and np.allclose(got, p[gamma - 1]):
        return "off by one: the bonus token comes from p[gamma] (p has gamma + 1 rows), not p[gamma - 1]"
    if n_accepted == gamma:
        return "every draft was kept, so the bonus token comes from p[gamma], not from a residual"
    return "the extra token comes from the residual of the rejected position"
