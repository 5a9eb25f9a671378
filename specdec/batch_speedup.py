"""Speculation in a busy server: the speedup at batch size B, its three regimes, the critical context.

Symbols as in `specdec.cost_model` (chapter 01): a pass over `k` new tokens of each of `B`
sequences takes `t(B, k) = max(t_W + B t_K, k B t_F) + t_0`. A speculative round drafts `gamma`
tokens per sequence, then verifies them in one target pass over `k = gamma + 1` tokens per
sequence, and emits `n_bar` tokens per sequence on average (chapter 05). Without the draft's cost,

    S(B) = n_bar t(B, 1) / t(B, gamma + 1)

and, with `t_0 = 0`, the theorem of chapter 06 splits it into three regimes:

    1. (gamma+1) B t_F <= t_W + B t_K   verification is memory-bound:    S = n_bar
    2. between                          plain decoding memory-bound:      S = n_bar (t_W + B t_K) / ((gamma+1) B t_F)
    3. B t_F >= t_W + B t_K             plain decoding compute-bound too: S = n_bar / (gamma + 1)

Regime 1 holds at every B when the mean context reaches the critical context
`T_c(k) = 2 N_act k / (I* m_KV - 4 L d_attn k)` (if the denominator is positive), otherwise up to
`B = t_W / (k t_F - t_K)`, where the fall begins.

The drafter is a model too: `speedup_at_batch` charges its `gamma` steps through the same cost
model, so its cost ratio `c(B)` comes from its own size (`one_layer_drafter` builds the
0.5B-parameter, one-layer drafter of chapter 06).

A mixture of experts (a `ModelSpec` with routed experts) does not read all its weights every
step: `pass_time` charges the shared weights plus the experts the pass's `k B` tokens touch
(`specdec.moe.weight_bytes_read`), so `t_W` grows with the tokens of the pass. `model_regime` and
`model_fall_batch` classify batches by the same two inequalities with that weight read; for a
dense model they equal `regime` and `fall_batch`.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> llama, h100 = MODELS["llama-3.1-8b"], GPUS["H100"]
    >>> round(critical_context(llama, h100, k=4))
    1755
    >>> round(fall_batch(step_cost(llama, h100, T_bar=512), k=4), 1)
    104.2
    >>> drafter = one_layer_drafter(llama)
    >>> s = speedup_at_batch(llama, h100, B=np.array([1, 64, 256]), T_bar=64, gamma=3, alpha=0.8, drafter=drafter)
    >>> np.round(s, 2)
    array([2.49, 2.49, 0.91])
"""
from __future__ import annotations

import math

import numpy as np

from specdec.cost_model import StepCost, step_cost
from specdec.hardware import GPU
from specdec.model_specs import ModelSpec
from specdec.moe import model_fall_batch, model_regime, pass_time  # noqa: F401  (re-exported)
from specdec.speedup_model import tokens_per_round
from specdec.checks import batch_sizes, check_int, scalar_or_array, tokens_per_sequence

# Longest context each preset was trained for (model cards / config.json), keyed like MODELS.
MAX_CONTEXT: dict[str, int] = {
    "llama-3.1-8b": 131_072,     # Llama 3.1: 128K tokens
    "llama-3.1-70b": 131_072,
    "gpt2": 1_024,               # GPT-2: n_positions = 1024
    "gpt2-xl": 1_024,
    "deepseek-v3": 131_072,      # DeepSeek-V3 technical report: extended to 128K
}

REGIMES = {1: "verification free (memory-bound)", 2: "falling (only verification compute-bound)",
           3: "plain decoding compute-bound too"}


def one_layer_drafter(target: ModelSpec, n_params: float = 0.5e9) -> ModelSpec:
    """A drafter of `n_params` parameters with one Transformer layer shaped like one of the target's.

    Its cache holds one layer's keys and values (`m_KV / L` of the target per token), and its
    attention is one target layer wide. Such drafters read the target's features (EAGLE-style).

    >>> from specdec.model_specs import MODELS
    >>> d = one_layer_drafter(MODELS["llama-3.1-8b"])
    >>> d.n_layers, d.kv_bytes_per_token, d.weight_bytes / 1e9
    (1, 4096.0, 1.0)
    """
    if not isinstance(target, ModelSpec):
        raise ValueError(f"target must be a ModelSpec, got {type(target).__name__}")
    if not (isinstance(n_params, (int, float)) and math.isfinite(n_params) and n_params > 0):
        raise ValueError(f"n_params must be a positive number, got {n_params!r}")
    if n_params >= target.n_params:
        raise ValueError(f"a drafter of {n_params:.3g} parameters is not smaller than the target "
                         f"{target.name} ({target.n_params:.3g})")
    return ModelSpec(f"1-layer drafter ({n_params / 1e9:.3g}B) for {target.name}", n_params=n_params,
                     n_active=n_params, n_layers=1, d_attn=target.d_attn,
                     kv_bytes_per_token=target.kv_bytes_per_token / target.n_layers,
                     bytes_per_weight=target.bytes_per_weight)


def critical_context(model: ModelSpec, gpu: GPU, k: int) -> float:
    """`T_c(k) = 2 N_act (pi / pi_W) k / (I* m_KV - 4 L d_attn k)`: the mean context from which a pass over k
    tokens per sequence is memory-bound at every batch size; `inf` when the denominator is <= 0
    (attention alone is then compute-bound with k queries per cached token: never free). `pi / pi_W`
    is 1 unless the weight products run in fp8 at a faster peak (`cost_model.step_cost`).

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> critical_context(MODELS["deepseek-v3"], GPUS["H100"], k=2)
    inf
    """
    k = tokens_per_sequence(k)
    denominator = gpu.ridge_point * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k
    if denominator <= 0:
        return math.inf
    weight_rate = gpu.flops_bf16 / gpu.gemm_flops(model.fp8_gemms)   # 1, or about 1/2 for fp8 products
    return 2 * model.n_active * weight_rate * k / denominator


def memory_bound_queries(model: ModelSpec, gpu: GPU) -> float:
    """The largest number of queries per cached token for which attention stays memory-bound:
    `I* / (4 L d_attn / m_KV)`. Below 2, even one draft per sequence makes attention compute-bound.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> round(memory_bound_queries(MODELS["deepseek-v3"], GPUS["H100"]), 2)
    1.22
    """
    return gpu.ridge_point / model.attention_flops_per_cached_byte


def fall_batch(cost: StepCost, k: int) -> float:
    """The real batch `t_W / (k t_F - t_K)` up to which a pass over k tokens per sequence is
    memory-bound (regime 1 for k = gamma + 1); `inf` when `k t_F <= t_K`.

    >>> fall_batch(StepCost(t_W=4.0, t_K=0.5, t_F=0.25), k=4)
    8.0
    """
    if not isinstance(cost, StepCost):
        raise ValueError(f"cost must be a StepCost (specdec.cost_model.step_cost), got {type(cost).__name__}")
    excess = tokens_per_sequence(k) * cost.t_F - cost.t_K
    return math.inf if excess <= 0 else cost.t_W / excess


def largest_free_batch(t_W: float, t_K: float, t_F: float, k: int):
    """The largest integer B >= 0 with `k B t_F <= t_W + B t_K` (evaluated in floating point), or
    `inf` when `k t_F <= t_K` (every batch qualifies).

    >>> largest_free_batch(1.0, 0.125, 0.0625, 4), largest_free_batch(4.3, 0.0, 0.1, 1), largest_free_batch(1.0, 0.5, 0.1, 4)
    (8, 43, inf)
    """
    k = tokens_per_sequence(k)
    if not (t_W >= 0 and t_K >= 0 and t_F > 0) or not all(map(math.isfinite, (t_W, t_K, t_F))):
        raise ValueError(f"need t_W >= 0, t_K >= 0, t_F > 0 (finite), got {t_W!r}, {t_K!r}, {t_F!r}")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:      # the quotient can land just below an exact integer
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return int(B)


def regime(cost: StepCost, B, gamma: int):
    """1, 2 or 3 (see the module docstring) for each batch size in `B` (t_0 does not matter).

    >>> regime(StepCost(t_W=4.0, t_K=0.0, t_F=0.25), np.array([1, 8, 15, 16, 100]), gamma=3)
    array([1, 2, 2, 3, 3])
    """
    B_arr = batch_sizes(B)
    gamma = tokens_per_sequence(gamma)
    memory = cost.t_W + B_arr * cost.t_K                       # same shape as B
    out = np.where((gamma + 1) * B_arr * cost.t_F <= memory, 1,
                   np.where(B_arr * cost.t_F >= memory, 3, 2))
    return scalar_or_array(out, int)


def ideal_speedup(cost: StepCost, B, gamma: int, n_bar: float):
    """`S(B) = n_bar t(B, 1) / t(B, gamma + 1)`: the speedup with a free drafter.

    >>> c = StepCost(t_W=4.0, t_K=0.0, t_F=0.25)
    >>> ideal_speedup(c, np.array([1, 4, 8, 16]), gamma=3, n_bar=2.0)
    array([2. , 2. , 1. , 0.5])
    """
    B_arr = batch_sizes(B)
    k = tokens_per_sequence(gamma) + 1
    return scalar_or_array(n_bar * np.asarray(cost.t_pass(B_arr, 1)) / np.asarray(cost.t_pass(B_arr, k)))


def drafter_cost_ratio(target: ModelSpec, drafter: ModelSpec, gpu: GPU, B, T_bar: float,
                       n_gpu: int = 1):
    """`c(B)`: one drafter step over one plain target step, both through the cost model.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> llama = MODELS["llama-3.1-8b"]
    >>> round(drafter_cost_ratio(llama, one_layer_drafter(llama), GPUS["H100"], B=1, T_bar=64), 4)
    0.0623
    """
    B_arr = batch_sizes(B)
    d_cost = step_cost(drafter, gpu, n_gpu, T_bar)
    plain = np.asarray(pass_time(target, gpu, B_arr, 1, T_bar, n_gpu))          # experts touched, if MoE
    return scalar_or_array(np.asarray(d_cost.t_step(B_arr)) / plain)


def speedup_at_batch(target: ModelSpec, gpu: GPU, B, T_bar: float, gamma: int, alpha,
                     drafter: ModelSpec | None = None, n_gpu: int = 1, t_0: float = 0.0,
                     parallel: bool = False):
    """Plain decoding's time per token over speculation's, at batch `B` and mean context `T_bar`.

    A round costs `gamma` drafter steps (one drafter pass over `gamma` tokens if `parallel`) plus
    one target pass over `gamma + 1` tokens per sequence, and emits `n_bar(alpha, gamma)` tokens;
    plain decoding emits one token per target step. `drafter=None` means a free drafter. Passes
    are priced by `pass_time`, so a mixture of experts pays for the experts verification touches.
    """
    B_arr = batch_sizes(B)
    gamma = tokens_per_sequence(gamma)
    n_bar = tokens_per_round(alpha, gamma)
    round_time = np.asarray(pass_time(target, gpu, B_arr, gamma + 1, T_bar, n_gpu, t_0))   # same shape as B
    if drafter is not None:
        d_cost = step_cost(drafter, gpu, n_gpu, T_bar, t_0)
        drafting = d_cost.t_pass(B_arr, gamma) if parallel else gamma * np.asarray(d_cost.t_step(B_arr))
        round_time = round_time + drafting
    plain = np.asarray(pass_time(target, gpu, B_arr, 1, T_bar, n_gpu, t_0))
    return scalar_or_array(n_bar * plain / round_time)


def max_batch_in_memory(target: ModelSpec, gpu: GPU, T_bar: float, drafter: ModelSpec | None = None,
                        n_gpu: int = 1) -> int:
    """How many sequences of `T_bar` cached tokens fit beside the weights (and the drafter's
    weights and caches, if given) in `n_gpu` GPUs' memory; 0 if the weights alone do not fit.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> llama = MODELS["llama-3.1-8b"]
    >>> max_batch_in_memory(llama, GPUS["H100"], 4096), max_batch_in_memory(llama, GPUS["H100"], 4096, one_layer_drafter(llama))
    (119, 113)
    """
    check_int(n_gpu, "n_gpu", low=1, must="a positive integer")
    if not (isinstance(T_bar, (int, float, np.integer, np.floating)) and math.isfinite(T_bar) and T_bar > 0):
        raise ValueError(f"T_bar must be a positive number of tokens, got {T_bar!r}")
    free = n_gpu * gpu.memory - target.weight_bytes
    per_sequence = target.kv_cache_bytes(T_bar)
    if drafter is not None:
        free -= drafter.weight_bytes
        per_sequence += drafter.kv_cache_bytes(T_bar)
    return max(0, math.floor(free / per_sequence))
