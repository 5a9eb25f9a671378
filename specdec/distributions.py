"""Next-token distributions: checking them, tempering and truncating logits, the residual of
the sampling rule, and the divergences that measure how far a draft is from its target.

Convention: `p` is the target's distribution, `q` the draft's, both along the last axis
of arrays of shape (..., V). `tau` is the sampling temperature; `tau = 0` means greedy
decoding, a one-hot distribution on the argmax (ties go to the lowest token id, as
`np.argmax` does).

    >>> softmax(np.array([0.0, np.log(3.0)]))
    array([0.25, 0.75])
    >>> softmax(np.array([1.0, 5.0, 2.0]), tau=0)
    array([0., 1., 0.])
    >>> residual(np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.6, 0.2]))
    array([1., 0., 0.])
    >>> nucleus(np.array([0.5, 0.3, 0.2]), top_p=0.7)
    array([0.625, 0.375, 0.   ])
"""
from __future__ import annotations

import numpy as np

from .checks import paired_rows, scalar_or_array

_SUM_ATOL = 1e-6


def validate_distribution(p, name: str = "p", axis: int = -1) -> np.ndarray:
    """Return `p` as a float array after checking it is a probability table along `axis`.

    Raises ValueError (never a deep numpy traceback) for NaN/inf, negative entries,
    or rows that do not sum to 1 within 1e-6.
    """
    arr = np.asarray(p, dtype=float)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be an array of probabilities, got a scalar")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    if np.any(arr < 0):
        raise ValueError(f"{name} has negative entries (min {arr.min():.3g})")
    sums = arr.sum(axis=axis)
    bad = np.abs(sums - 1.0) > _SUM_ATOL
    if np.any(bad):
        worst = np.asarray(sums)[bad].ravel()[0]
        raise ValueError(f"{name} must sum to 1 along its last axis; a row sums to {worst:.6f}")
    return arr


def softmax(logits, tau: float = 1.0) -> np.ndarray:
    """softmax(logits / tau) along the last axis; one-hot argmax when tau == 0.

    Subtracting the row maximum first keeps exp() from overflowing for large logits.
    """
    z = np.asarray(logits, dtype=float)
    if z.ndim == 0:
        raise ValueError("logits must have at least one axis (the vocabulary)")
    if not np.all(np.isfinite(z)):
        raise ValueError("logits must be finite")
    if tau < 0:
        raise ValueError(f"temperature must be >= 0, got {tau}")
    if tau == 0:
        out = np.zeros_like(z)
        np.put_along_axis(out, np.argmax(z, axis=-1)[..., None], 1.0, axis=-1)
        return out
    z = z / tau
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def residual(p, q) -> np.ndarray:
    """The rejection distribution norm(max(0, p - q)) along the last axis.

    When p == q the residual is undefined (it is never sampled: every draft is kept);
    we return p there so callers always get a valid distribution.
    """
    p, q = paired_rows(p, q)
    r = np.maximum(p - q, 0.0)
    total = r.sum(axis=-1, keepdims=True)
    safe = total > 1e-12
    return np.where(safe, r / np.where(safe, total, 1.0), p)


def acceptance_probability(p, q) -> np.ndarray | float:
    """alpha = sum_x min(p(x), q(x)) = 1 - TV(p, q), one value per row."""
    p, q = paired_rows(p, q)
    out = np.minimum(p, q).sum(axis=-1)
    return scalar_or_array(out)


def nucleus(p, top_p: float) -> np.ndarray:
    """Top-p (nucleus) truncation along the last axis, renormalized.

    Keeps the smallest set of most probable tokens whose total probability reaches
    `top_p` (equal probabilities are ranked by lower token id first) and rescales them to
    sum to 1; `top_p = 1` returns `p` unchanged. This is one of the "processing" steps that
    turn a model's raw softmax into the distribution it really samples from.

    >>> nucleus(np.array([[0.1, 0.6, 0.3], [0.4, 0.4, 0.2]]), top_p=0.4)
    array([[0., 1., 0.],
           [1., 0., 0.]])
    """
    p = validate_distribution(p, "p")
    if not 0.0 < top_p <= 1.0:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")
    order = np.argsort(-p, axis=-1, kind="stable")                    # (..., V) most probable first
    sorted_p = np.take_along_axis(p, order, axis=-1)                  # (..., V)
    mass_before = np.cumsum(sorted_p, axis=-1) - sorted_p              # (..., V) mass of better tokens
    keep_sorted = mass_before < top_p - 1e-12                          # (..., V) still short of top_p
    keep = np.zeros_like(keep_sorted)
    np.put_along_axis(keep, order, keep_sorted, axis=-1)               # back to token order
    kept = np.where(keep, p, 0.0)                                      # (..., V)
    return kept / kept.sum(axis=-1, keepdims=True)


def kl_divergence(p, q) -> np.ndarray | float:
    """KL(p || q) = sum_x p(x) log(p(x) / q(x)) in nats, one value per row.

    Tokens with p(x) = 0 contribute nothing; a token with p(x) > 0 = q(x) makes the
    divergence infinite. Pinsker's inequality bounds total variation by it:
    TV(p, q) <= sqrt(KL(p || q) / 2).

    >>> round(kl_divergence(np.array([0.5, 0.5]), np.array([0.25, 0.75])), 4)
    0.1438
    >>> kl_divergence(np.array([0.5, 0.5]), np.array([1.0, 0.0]))
    inf
    """
    p = validate_distribution(p, "p")
    q = validate_distribution(q, "q")
    p, q = paired_rows(p, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * (np.log(p) - np.log(q)), 0.0)     # (..., V)
    out = terms.sum(axis=-1)
    return scalar_or_array(out)


def emitted_distribution(p, q, q_drawn) -> np.ndarray:
    """Exact law of the token one step of the speculative rule emits when the verifier keeps a
    draft x with probability min(1, p(x)/q(x)) and refills a rejection from norm(max(0, p - q)),
    but the draft really drew x from `q_drawn` (rows along the last axis).

    With q_drawn == q the answer is p (the rule is exact); a verifier that uses the wrong q is not.
    Tokens with q_drawn(x) = 0 are never proposed and contribute nothing; when no draft can be
    rejected the residual is never used. `q_drawn` must be 0 wherever `q` is 0.

    >>> p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.6, 0.2])
    >>> emitted_distribution(p, q, q)                       # the verifier uses the real q: exact
    array([0.5, 0.3, 0.2])
    >>> emitted_distribution(p, q, np.array([0.0, 1.0, 0.0]))   # greedy draft, softmax q in the ratio
    array([0.5, 0.5, 0. ])
    """
    p = validate_distribution(p, "p")
    q = validate_distribution(q, "q")
    q_drawn = validate_distribution(q_drawn, "q_drawn")
    p, q = paired_rows(p, q)
    p, q_drawn = paired_rows(p, q_drawn, ("p", "q_drawn"))
    if np.any((q == 0) & (q_drawn > 0)):
        raise ValueError("q_drawn proposes a token the verifier's q gives probability 0")
    keep = np.minimum(1.0, p / np.where(q > 0, q, 1.0))                # (..., V) never evaluated where q = 0
    kept = np.where(q_drawn > 0, q_drawn * keep, 0.0)                   # (..., V) drafted and kept
    rejected = np.clip(1.0 - kept.sum(axis=-1, keepdims=True), 0.0, None)   # (..., 1)
    return kept + rejected * residual(p, q)                             # residual is p where p == q: unused
