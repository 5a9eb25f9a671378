"""Adaptive verification: how many drafted tokens of each request one target pass should check.

A confidence head gives, for request `r` and drafted position `i`, the probability that draft
`i` is accepted given that drafts `1..i-1` were; their running product is the request's
survival curve `a[r][0] >= a[r][1] >= ...` (entry `i` = P(the first i+1 drafts are all kept)).
Verifying the first `l_r` drafts of every request emits, in expectation,
`sum_r (1 + a[r][0] + ... + a[r][l_r - 1])` tokens, in a pass over `sum_r (1 + l_r)` tokens whose
time `step_time(n_tokens)` comes from a cost table (here: chapter 01's cost model).

`greedy_slot_schedule` admits draft slots one at a time, largest survival first, and stops at
the first slot that does not raise the expected tokens per second. It reads a request's survival
of slot `i + 1` only after admitting slot `i`, so the decision about a slot never looks at
anything computed from that slot's own draft (the non-anticipating requirement of chapter 04).
`best_prefix_schedule` sorts every survival and tries every number of slots: the optimum for
any cost table, but it reads all survivals before deciding. For a convex step cost (such as the
roofline) the two agree.

    >>> a = [[0.9, 0.5, 0.1], [0.8, 0.2, 0.05]]
    >>> step = lambda n: max(5.0, n * 1.0)                 # memory-bound up to 5 tokens, then 1 per token
    >>> greedy_slot_schedule(a, step)
    [2, 1]
    >>> best_prefix_schedule(a, step)
    [2, 1]
    >>> round(expected_tokens_per_second(a, [2, 1], step), 4)      # (1 + 0.9 + 0.5 + 1 + 0.8) / 5
    0.84

The trimming trap: verifying a draft only when it is not some token `b`, and otherwise letting
the target sample afresh from `p`, changes the output distribution.

    >>> trimmed_output_distribution([0.5, 0.3, 0.2], [0.2, 0.6, 0.2], verify=[True, False, True]).round(2)
    array([0.5 , 0.18, 0.32])
"""
from __future__ import annotations

import heapq
from typing import Callable, Sequence

import numpy as np

from specdec.checks import check_int, is_int

from specdec.cost_model import StepCost
from specdec.distributions import residual, validate_distribution


def survival_from_confidence(confidence) -> np.ndarray:
    """Running product of per-position acceptance confidences along the last axis.

    >>> survival_from_confidence([[0.9, 0.5], [1.0, 0.2]])
    array([[0.9 , 0.45],
           [1.  , 0.2 ]])
    """
    conf = np.asarray(confidence, dtype=float)                     # (..., gamma)
    if conf.ndim < 1 or np.any(~np.isfinite(conf)) or np.any((conf < 0) | (conf > 1)):
        raise ValueError("confidences must be probabilities in [0, 1], drafted positions along the last axis")
    return np.cumprod(conf, axis=-1)                               # (..., gamma)


def roofline_step_time(cost: StepCost, n_requests: int) -> Callable[[int], float]:
    """`n_tokens -> max(t_W + B t_K, n_tokens t_F) + t_0` for a pass over `B = n_requests` sequences
    whose new tokens number `n_tokens` in all (each costs `t_F`; each cache is read once).

    >>> step = roofline_step_time(StepCost(t_W=4.0, t_K=0.5, t_F=1.0), n_requests=2)
    >>> step(2), step(5), step(7)
    (5.0, 5.0, 7.0)
    """
    if not isinstance(cost, StepCost):
        raise ValueError(f"cost must be a StepCost, got {type(cost).__name__}")
    check_int(n_requests, "n_requests", low=1, must="a positive integer")
    memory = cost.t_W + n_requests * cost.t_K

    def step_time(n_tokens: int) -> float:
        if n_tokens < n_requests:
            raise ValueError(f"a pass over {n_requests} requests has at least {n_requests} tokens, got {n_tokens}")
        return max(memory, n_tokens * cost.t_F) + cost.t_0
    return step_time


def _check_rows(survivals) -> None:
    if len(survivals) < 1:
        raise ValueError("survivals must have one row per request (at least one request)")


def expected_tokens_per_second(survivals, lengths: Sequence[int], step_time: Callable[[int], float]) -> float:
    """Expected tokens emitted over the pass time when request r verifies its first `lengths[r]` drafts."""
    _check_rows(survivals)
    if len(lengths) != len(survivals):
        raise ValueError(f"lengths has {len(lengths)} entries for {len(survivals)} requests")
    tokens, n_tokens = 0.0, 0
    for row, l in zip(survivals, lengths):
        if not 0 <= l <= len(row):
            raise ValueError(f"a request with {len(row)} drafts cannot verify {l}")
        tokens += 1.0 + float(sum(row[i] for i in range(l)))
        n_tokens += 1 + int(l)
    return tokens / step_time(n_tokens)


def greedy_slot_schedule(survivals, step_time: Callable[[int], float]) -> list[int]:
    """Admit slots in order of survival (ties: lower request index first); stop at the first
    slot that does not strictly raise expected tokens per second. Returns drafts verified per request.

    Reads `survivals[r][i + 1]` only after admitting slot `i` of request `r`.
    """
    _check_rows(survivals)
    B = len(survivals)
    lengths = [0] * B
    tokens, n_tokens = float(B), B                     # every request emits one token of the target's
    time = step_time(n_tokens)
    frontier = [(-float(row[0]), r) for r, row in enumerate(survivals) if len(row) > 0]
    heapq.heapify(frontier)
    while frontier:
        neg_a, r = heapq.heappop(frontier)
        a = -neg_a
        new_time = step_time(n_tokens + 1)
        if not (tokens + a) * time > tokens * new_time:        # (tokens + a)/new_time > tokens/time ?
            break
        tokens, n_tokens, time = tokens + a, n_tokens + 1, new_time
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            heapq.heappush(frontier, (-float(survivals[r][lengths[r]]), r))
    return lengths


def best_prefix_schedule(survivals, step_time: Callable[[int], float]) -> list[int]:
    """Sort every survival, try every number b of slots, keep the b with the most expected tokens
    per second (the smallest on ties). Optimal for any step cost, but it reads all survivals first."""
    _check_rows(survivals)
    B = len(survivals)
    slots = sorted(((-float(row[i]), r, i) for r, row in enumerate(survivals) for i in range(len(row))))
    best_b, best_rate, tokens = 0, B / step_time(B), float(B)
    for b, (neg_a, _r, _i) in enumerate(slots, start=1):
        tokens -= neg_a
        rate = tokens / step_time(B + b)
        if rate > best_rate:
            best_b, best_rate = b, rate
    lengths = [0] * B
    for _neg_a, r, _i in slots[:best_b]:
        lengths[r] += 1
    return lengths


def trimmed_output_distribution(p, q, verify) -> np.ndarray:
    """Exact law of the emitted token when a draft x ~ q is verified by the acceptance rule only if
    `verify[x]`, and otherwise discarded and replaced by a fresh sample from p.

    With `verify` all True this is p (the rule is exact); all False gives p too.
    """
    p = validate_distribution(p, "p")
    q = validate_distribution(q, "q")
    mask = np.asarray(verify, dtype=bool)
    if p.shape != q.shape or p.ndim != 1 or mask.shape != p.shape:
        raise ValueError(f"p, q and verify must be 1-D of one length, got {p.shape}, {q.shape}, {mask.shape}")
    keep = np.minimum(1.0, np.divide(p, q, out=np.ones_like(p), where=q > 0))     # (V,)
    res = residual(p, q)                                  # (V,)
    out = np.zeros_like(p)
    for x in range(len(p)):
        if q[x] == 0:
            continue
        if mask[x]:
            out[x] += q[x] * keep[x]
            out += q[x] * (1.0 - keep[x]) * res
        else:
            out += q[x] * p
    return out


def sample_trimmed(p, q, verify, n: int, rng: np.random.Generator) -> np.ndarray:
    """`n` emitted tokens of the trimmed rule (see `trimmed_output_distribution`), vectorized."""
    p = validate_distribution(p, "p")
    q = validate_distribution(q, "q")
    mask = np.asarray(verify, dtype=bool)
    V = len(p)
    drafts = rng.choice(V, size=n, p=q)                                           # (n,)
    ratio = np.divide(p, q, out=np.ones_like(p), where=q > 0)                     # (V,)
    accepted = rng.random(n) < ratio[drafts]                                      # (n,)
    res = residual(p, q)
    fresh_residual = rng.choice(V, size=n, p=res)                                 # (n,)
    fresh_p = rng.choice(V, size=n, p=p)                                          # (n,)
    verified = mask[drafts]                                                       # (n,)
    return np.where(verified, np.where(accepted, drafts, fresh_residual), fresh_p)


def is_prefix_schedule(lengths, survivals) -> bool:
    """True when every entry of `lengths` is an integer between 0 and that request's draft count."""
    if len(lengths) != len(survivals):
        return False
    return all(is_int(l) and 0 <= l <= len(row)
               for l, row in zip(lengths, survivals))

