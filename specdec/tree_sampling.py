"""Sampling verification at a tree node with several children.

At one node the target's distribution is `p` and the draft proposed `k` children. The
recursive rejection rule (Miao et al., 2024) tries them in order: R_1 = p; child i is kept
with probability min(1, R_i(s_i) / q_i(s_i)); on a rejection
R_{i+1} = norm(max(R_i - q_i, 0)); if every child is rejected the token is drawn from
R_{k+1}. The emitted token is distributed exactly as p, and some child is kept with
probability 1 - prod_i (1 - sum_x min(R_i(x), q_i(x))).

* i.i.d. children: every q_i = q (children drawn independently from q);
* without replacement (Sequoia, Chen et al., 2024): q_1 = q and q_{i+1} is q_i with the
  rejected token zeroed and renormalized, so no wrong token is proposed twice.

    >>> p = np.array([0.40, 0.25, 0.20, 0.10, 0.05])
    >>> q = np.array([0.10, 0.50, 0.05, 0.20, 0.15])
    >>> [round(recursive_acceptance(p, q, k), 4) for k in (1, 2, 4, 8)]
    [0.55, 0.6175, 0.7236, 0.8557]
    >>> [round(without_replacement_acceptance(p, q, k), 4) for k in (1, 2, 4)]
    [0.55, 0.6614, 1.0]
"""
from __future__ import annotations

import numpy as np

from specdec.distributions import validate_distribution
from specdec.checks import check_int


def _check_pair(p, q) -> tuple[np.ndarray, np.ndarray]:
    p = validate_distribution(p, "p")
    q = validate_distribution(q, "q")
    if p.ndim != 1 or p.shape != q.shape:
        raise ValueError(f"p and q must be 1-D distributions over the same vocabulary, got {p.shape} and {q.shape}")
    return p, q


def _check_k(k) -> int:
    return check_int(k, "the number of children k", low=0)


def _next_residual(R: np.ndarray, q: np.ndarray) -> np.ndarray:
    """norm(max(R - q, 0)); only called after a rejection, when its mass is positive."""
    missing = np.maximum(R - q, 0.0)                 # (V,)
    return missing / missing.sum()


def node_residuals(p, q, k: int) -> tuple[np.ndarray, np.ndarray]:
    """For i.i.d. children: the targets R_1..R_{k+1}, shape (k + 1, V), and the chance that try
    i is kept given it is reached, alpha_i = sum_x min(R_i, q) (chapter 03's alpha with target R_i), shape (k,).

    When some R_i equals q, try i is kept for sure; later rows are then never used and are
    filled with R_i (their a is 1)."""
    p, q = _check_pair(p, q)
    k = _check_k(k)
    R = np.empty((k + 1, len(p)))                     # (k + 1, V)
    a = np.empty(k)                                   # (k,)
    R[0] = p
    for i in range(k):
        a[i] = np.minimum(R[i], q).sum()
        R[i + 1] = R[i] if a[i] >= 1.0 - 1e-12 else _next_residual(R[i], q)
    return R, a


def recursive_acceptance(p, q, k: int) -> float:
    """P(some child is kept) with k i.i.d. children: 1 - prod_i (1 - alpha_i)."""
    _, a = node_residuals(p, q, k)
    return float(1.0 - np.prod(1.0 - np.minimum(a, 1.0)))


def recursive_rejection_law(p, q, k: int) -> dict[tuple[int, int], float]:
    """Exact law of (index of the kept child, emitted token) with k i.i.d. children from q;
    index -1 means every child was rejected and the token came from R_{k+1}.

    >>> law = recursive_rejection_law([0.5, 0.5], [0.9, 0.1], 2)
    >>> {key: round(float(v), 3) for key, v in sorted(law.items())}
    {(-1, 1): 0.36, (0, 0): 0.5, (0, 1): 0.1, (1, 1): 0.04}
    """
    R, a = node_residuals(p, q, k)
    q = np.asarray(q, dtype=float)
    law: dict[tuple[int, int], float] = {}
    reach = 1.0                                        # P(try i is reached)
    for i in range(k):
        for x in np.flatnonzero(np.minimum(R[i], q) > 0):
            law[(i, int(x))] = float(reach * min(R[i, x], q[x]))
        reach *= max(0.0, 1.0 - float(a[i]))
    if reach > 0:
        for x in np.flatnonzero(R[k] > 0):
            law[(-1, int(x))] = float(reach * R[k, x])
    return law


def recursive_rejection(p, q, children, rng) -> tuple[int, int]:
    """Recursive rejection at one node whose children were drawn i.i.d. from q.

    Calls rng.random() once per tried child and, only if all are rejected,
    rng.choice(V, p=R_{k+1}) once. Returns (token, index of the kept child), with index
    -1 when the token came from the final residual.
    """
    p, q = _check_pair(p, q)
    R = p
    for i, s in enumerate(children):
        s = int(s)
        if q[s] <= 0:
            raise ValueError(f"child {i} is token {s}, which q never proposes (q = 0)")
        if rng.random() < R[s] / q[s]:
            return s, i
        R = _next_residual(R, q)
    return int(rng.choice(len(p), p=R)), -1


def sample_without_replacement(p, q, k: int, rng) -> tuple[int, int, list[int]]:
    """Sequoia's variant: draw child i from q_i, try it against R_i, and on a rejection zero
    that token in q before the next draw. Per try: rng.choice(V, p=q_i), then rng.random();
    after k rejections one rng.choice(V, p=R_{k+1}). Returns (token, index of the kept child
    or -1, the children drawn)."""
    p, q = _check_pair(p, q)
    k = _check_k(k)
    R, q_i, drawn = p, q, []
    for i in range(k):
        if q_i.sum() <= 0:                              # nothing left to propose
            break
        s = int(rng.choice(len(p), p=q_i))
        drawn.append(s)
        if rng.random() < R[s] / q_i[s]:
            return s, i, drawn
        R = _next_residual(R, q_i)
        q_i = q_i.copy()
        q_i[s] = 0.0
        q_i = q_i / q_i.sum() if q_i.sum() > 0 else q_i
    return int(rng.choice(len(p), p=R)), -1, drawn


def without_replacement_acceptance(p, q, k: int) -> float:
    """Exact P(some child is kept) for `sample_without_replacement`, by summing over which
    tokens were rejected in which order (fine for the small vocabularies of the course)."""
    p, q = _check_pair(p, q)
    k = _check_k(k)

    def kept(R: np.ndarray, q_i: np.ndarray, left: int) -> float:
        if left == 0 or q_i.sum() <= 0:
            return 0.0
        a = float(np.minimum(R, q_i).sum())
        if a >= 1.0 - 1e-12:
            return 1.0
        R_next = _next_residual(R, q_i)
        total = a
        for x in np.flatnonzero(q_i > R):               # tokens that can be rejected
            q_next = q_i.copy()
            q_next[x] = 0.0
            if q_next.sum() > 0:
                q_next /= q_next.sum()
            total += float(q_i[x] - R[x]) * kept(R_next, q_next, left - 1)
        return total

    return kept(p, q, k)


def _draw(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draws from one distribution `probs` (V,) for uniforms `u` (any shape)."""
    cdf = np.cumsum(probs)                               # (V,)
    return np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), len(probs) - 1)


def simulate_node(p, q, k: int, n_trials: int, rng, replacement: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Many independent runs of one node with k children, vectorized: i.i.d. children and
    recursive rejection (`replacement=True`), or Sequoia's draws without replacement.
    Returns (tokens, kept): int64 (n_trials,) emitted tokens and bool (n_trials,) whether
    some child was kept. Same law as `recursive_rejection` / `sample_without_replacement`."""
    p, q = _check_pair(p, q)
    k = _check_k(k)
    tokens = np.full(n_trials, -1, dtype=np.int64)       # (N,)
    kept = np.zeros(n_trials, dtype=bool)                 # (N,)
    # every trial is in a state: the tokens rejected so far (i.i.d.: the count only matters)
    groups: dict[tuple, np.ndarray] = {(): np.arange(n_trials)}
    targets: dict[tuple, tuple[np.ndarray, np.ndarray]] = {(): (p, q)}
    for i in range(k):
        next_groups: dict[tuple, list[np.ndarray]] = {}
        for key, idx in groups.items():
            R, q_i = targets[key]
            if q_i.sum() <= 0:
                next_groups.setdefault(key, []).append(idx)
                continue
            s = _draw(q_i, rng.random(len(idx)))             # (m,) the children of these trials
            ok = rng.random(len(idx)) < R[s] / q_i[s]         # (m,)
            tokens[idx[ok]], kept[idx[ok]] = s[ok], True
            rejected, s_rej = idx[~ok], s[~ok]
            if len(rejected) == 0:
                continue
            R_next = _next_residual(R, q_i)
            for token in (np.unique(s_rej) if not replacement else [None]):
                sub = rejected if token is None else rejected[s_rej == token]
                new_key = key + (i if token is None else int(token),)
                if new_key not in targets:
                    q_next = q_i.copy()
                    if token is not None:
                        q_next[token] = 0.0
                        q_next = q_next / q_next.sum() if q_next.sum() > 0 else q_next
                    targets[new_key] = (R_next, q_next)
                next_groups.setdefault(new_key, []).append(sub)
        groups = {key: np.concatenate(parts) for key, parts in next_groups.items()}
    for key, idx in groups.items():                       # every child rejected: sample R_{k+1}
        tokens[idx] = _draw(targets[key][0], rng.random(len(idx)))
    return tokens, kept
