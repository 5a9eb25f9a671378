"""Mixtures of experts: how many experts a decode step or a verification pass reads.

Each token is routed to `k` of the `E` experts of a layer. If `n` tokens are routed
independently and uniformly, an expert is missed by one token with probability `1 - k/E`, so
by all `n` with probability `(1 - k/E)**n`, and by linearity of expectation the step touches

    E_touched(n) = E (1 - (1 - k/E)**n)

experts per layer, each read from memory once. Verification puts `(gamma + 1) B` tokens through
a pass instead of `B`: at batch 1 that multiplies the expert bytes, at large batch it changes
almost nothing because nearly every expert is read anyway.

    >>> round(experts_touched(256, 8, 4), 1), experts_touched(256, 8, 1)
    (30.5, 8.0)
    >>> round(experts_touched(256, 8, 64)), round(experts_touched(256, 8, 256))
    (222, 256)
"""
from __future__ import annotations

import numpy as np


def _check(E, k) -> tuple[int, int]:
    for name, value in (("E", E), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if k > E:
        raise ValueError(f"k (experts per token, {k}) cannot exceed E (experts per layer, {E})")
    return int(E), int(k)


def experts_touched(E: int, k: int, n_tokens):
    """Expected number of distinct experts per layer that `n_tokens` uniformly routed tokens use.

    >>> experts_touched(4, 4, 3)      # every token uses every expert
    4.0
    """
    E, k = _check(E, k)
    n = np.asarray(n_tokens, dtype=float)
    if np.any(~np.isfinite(n)) or np.any(n < 0):
        raise ValueError(f"n_tokens must be >= 0, got {np.asarray(n_tokens).tolist()}")
    out = E * (1.0 - (1.0 - k / E) ** n)
    return float(out) if out.ndim == 0 else out


def verification_expert_ratio(E: int, k: int, B, gamma: int):
    """Expert bytes read by a verification pass over `gamma + 1` tokens per sequence, over those
    of a plain step, at batch `B`: `E_touched((gamma+1) B) / E_touched(B)`.

    >>> round(verification_expert_ratio(256, 8, 1, 3), 2), round(verification_expert_ratio(256, 8, 64, 3), 2)
    (3.82, 1.15)
    """
    if isinstance(gamma, bool) or not isinstance(gamma, (int, np.integer)) or gamma < 0:
        raise ValueError(f"gamma must be an integer >= 0, got {gamma!r}")
    B_arr = np.asarray(B, dtype=float)
    if np.any(B_arr < 1):
        raise ValueError("B must be >= 1")
    out = np.asarray(experts_touched(E, k, (gamma + 1) * B_arr)) / np.asarray(experts_touched(E, k, B_arr))
    return float(out) if out.ndim == 0 else out


def simulate_experts_touched(E: int, k: int, n_tokens: int, n_trials: int, rng: np.random.Generator) -> np.ndarray:
    """Distinct experts touched in `n_trials` simulated steps: each token picks k distinct experts
    uniformly at random. Returns an int array of shape (n_trials,).

    >>> counts = simulate_experts_touched(256, 8, 1, 5, np.random.default_rng(0))
    >>> counts.tolist()
    [8, 8, 8, 8, 8]
    """
    E, k = _check(E, k)
    if n_tokens < 0 or n_trials < 1:
        raise ValueError("n_tokens must be >= 0 and n_trials >= 1")
    keys = rng.random((n_trials, n_tokens, E))                       # (trials, tokens, E)
    chosen = np.argsort(keys, axis=-1)[..., :k]                      # (trials, tokens, k) k distinct experts
    touched = np.zeros((n_trials, E), dtype=bool)                    # (trials, E)
    rows = np.repeat(np.arange(n_trials), n_tokens * k)
    touched[rows, chosen.reshape(-1)] = True
    return touched.sum(axis=1)
