"""Mixtures of experts: how many experts a decode step or a verification pass reads, and what that costs.

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

`weight_bytes_read` turns this into bytes for a model spec that records its routed experts
(`ModelSpec.n_experts`, `experts_per_token`, `n_routed_params`): the shared part (attention,
dense layers, shared experts, embeddings) is read every step, each routed expert once if any
token of the pass uses it. Uniform, independent routing is an assumption: real routers are
skewed and the tokens of one sequence often pick the same experts, so real passes touch fewer
experts than this, and the extra bytes of verification are overstated (the modelled speedup
errs low, not high).

    >>> from specdec.model_specs import MODELS
    >>> ds = MODELS["deepseek-v3"]
    >>> round(weight_bytes_read(ds, 1) / 1e9, 1), round(weight_bytes_read(ds, 4) / 1e9, 1)
    (37.5, 95.1)
"""
from __future__ import annotations

import math

import numpy as np

from specdec.cost_model import step_cost
from specdec.checks import batch_sizes, check_int, scalar_or_array, tokens_per_sequence


def _check(E, k) -> tuple[int, int]:
    for name, value in (("E", E), ("k", k)):
        check_int(value, name, low=1, must="a positive integer")
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
    return scalar_or_array(out)


def weight_bytes_read(model, n_tokens):
    """Expected bytes of weights a pass over `n_tokens` tokens in all reads.

    A dense model reads all of its weights, `s_W N`, whatever `n_tokens` is. A mixture of experts
    reads its shared parameters and the routed experts its tokens touch:
    `s_W (N - N_routed + N_routed E_touched(n) / E)`.

    >>> from specdec.model_specs import MODELS
    >>> weight_bytes_read(MODELS["llama-3.1-8b"], 7) == MODELS["llama-3.1-8b"].weight_bytes
    True
    """
    n = np.asarray(n_tokens, dtype=float)
    if np.any(~np.isfinite(n)) or np.any(n < 0):
        raise ValueError(f"n_tokens must be >= 0, got {np.asarray(n_tokens).tolist()}")
    if not getattr(model, "is_moe", False):
        out = np.full(n.shape, float(model.weight_bytes))
    else:
        share = np.asarray(experts_touched(model.n_experts, model.experts_per_token, n)) / model.n_experts
        out = model.bytes_per_weight * (model.n_params - model.n_routed_params + model.n_routed_params * share)
    return scalar_or_array(out)


def verification_expert_ratio(E: int, k: int, B, gamma: int):
    """Expert bytes read by a verification pass over `gamma + 1` tokens per sequence, over those
    of a plain step, at batch `B`: `E_touched((gamma+1) B) / E_touched(B)`.

    >>> round(verification_expert_ratio(256, 8, 1, 3), 2), round(verification_expert_ratio(256, 8, 64, 3), 2)
    (3.82, 1.15)
    """
    check_int(gamma, "gamma", low=0)
    B_arr = np.asarray(B, dtype=float)
    if np.any(B_arr < 1):
        raise ValueError("B must be >= 1")
    out = np.asarray(experts_touched(E, k, (gamma + 1) * B_arr)) / np.asarray(experts_touched(E, k, B_arr))
    return scalar_or_array(out)


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


def _weight_time(model: ModelSpec, gpu: GPU, n_gpu: int, n_tokens) -> np.ndarray:
    """Seconds to read the weights a pass over `n_tokens` tokens in all needs (all of them if dense)."""
    return np.asarray(weight_bytes_read(model, n_tokens)) / (n_gpu * gpu.bandwidth)


def pass_time(model: ModelSpec, gpu: GPU, B, k: int, T_bar: float, n_gpu: int = 1, t_0: float = 0.0):
    """`t(B, k)` for `model`: `max(t_W(kB) + B t_K, k B t_F) + t_0`, where `t_W(kB)` is the time to read
    the weights `k B` tokens need (constant for a dense model, growing with the tokens for a mixture
    of experts).

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> ds, h200 = MODELS["deepseek-v3"], GPUS["H200"]
    >>> round(pass_time(ds, h200, 1, 4, 1024, n_gpu=8) / pass_time(ds, h200, 1, 1, 1024, n_gpu=8), 2)
    2.53
    """
    B_arr = batch_sizes(B)
    k = tokens_per_sequence(k)
    cost = step_cost(model, gpu, n_gpu, T_bar, t_0)
    if not model.is_moe:
        return scalar_or_array(np.asarray(cost.t_pass(B_arr, k)))
    memory = _weight_time(model, gpu, n_gpu, k * B_arr) + B_arr * cost.t_K      # same shape as B
    return scalar_or_array(np.maximum(memory, k * B_arr * cost.t_F) + cost.t_0)


def _excess(model: ModelSpec, gpu: GPU, B, k: int, T_bar: float, n_gpu: int) -> np.ndarray:
    """`k B t_F - (t_W(kB) + B t_K)`: > 0 when a pass over k tokens per sequence is compute-bound."""
    cost = step_cost(model, gpu, n_gpu, T_bar)
    B_arr = np.asarray(B, dtype=float)
    return k * B_arr * cost.t_F - (_weight_time(model, gpu, n_gpu, k * B_arr) + B_arr * cost.t_K)


def model_regime(model: ModelSpec, gpu: GPU, B, gamma: int, T_bar: float, n_gpu: int = 1):
    """`regime` for a model spec: 1 while the pass over `gamma + 1` tokens per sequence is memory-bound,
    3 once plain decoding is compute-bound, 2 between. For a mixture of experts the memory side counts
    the experts each pass touches, so regime 1 is memory-bound but not free.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> model_regime(MODELS["deepseek-v3"], GPUS["H200"], np.array([1, 64, 4096]), 3, 1024, n_gpu=8)
    array([1, 1, 3])
    """
    B_arr = batch_sizes(B)
    gamma = tokens_per_sequence(gamma)
    out = np.where(_excess(model, gpu, B_arr, gamma + 1, T_bar, n_gpu) <= 0, 1,
                   np.where(_excess(model, gpu, B_arr, 1, T_bar, n_gpu) >= 0, 3, 2))
    return scalar_or_array(out, int)


def model_fall_batch(model: ModelSpec, gpu: GPU, T_bar: float, k: int, n_gpu: int = 1) -> float:
    """The real batch up to which a pass over `k` tokens per sequence is memory-bound; `inf` if it
    always is. For a dense model this is `t_W / (k t_F - t_K)` (`batch_speedup.fall_batch`); for a mixture of experts the weight read
    grows with the batch (concavely), so the excess `k B t_F - t_W(kB) - B t_K` is convex in B and
    negative at 0: it crosses zero once, found by bisection.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> round(model_fall_batch(MODELS["llama-3.1-8b"], GPUS["H100"], 512, k=4), 1)
    104.2
    """
    k = tokens_per_sequence(k)
    if not model.is_moe:
        cost = step_cost(model, gpu, n_gpu, T_bar)
        excess = k * cost.t_F - cost.t_K
        return math.inf if excess <= 0 else cost.t_W / excess
    cost = step_cost(model, gpu, n_gpu, T_bar)
    if k * cost.t_F <= cost.t_K:
        return math.inf                                  # the excess never turns positive
    lo, hi = 0.0, 1.0
    while _excess(model, gpu, hi, k, T_bar, n_gpu) <= 0:
        lo, hi = hi, 2 * hi
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _excess(model, gpu, mid, k, T_bar, n_gpu) <= 0 else (lo, mid)
    return lo
