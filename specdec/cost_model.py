"""The decode cost model: what one forward pass over B sequences and k new tokens each costs.

Symbols: `p` and `q` (target and draft distributions), `gamma` (draft length), `alpha`
(acceptance) and `n_bar` (tokens per round) belong to later chapters; here only the step
cost matters. For `B` sequences of mean cached context `T_bar` on `n_gpu` GPUs of peak rate
`pi` (FLOP/s) and bandwidth `beta` (bytes/s):

    t_W = s_W N / (n_gpu beta)                                 read the weights once
    t_K = T_bar m_KV / (n_gpu beta)                            read one sequence's KV cache
    t_F = 2 N_act / (n_gpu pi_W) + 4 L d_attn T_bar / (n_gpu pi)   arithmetic of one token
    t_pass(B, k) = max(t_W + B t_K, k B t_F) + t_0             B sequences, k new tokens each
    t_step(B) = t_pass(B, 1)                                   a plain decode step

`pi_W` is the rate of the weight products: `pi` (bfloat16) unless the model runs them in fp8
(`model.fp8_gemms`, DeepSeek-V3) on a GPU with fp8 units, where it is the fp8 peak (about 2 pi).
Weight-only quantization (W4A16, W8A16) shrinks `s_W` and so `t_W`, but multiplies in bfloat16:
`t_F` is unchanged. `t_0` is the fixed per-step overhead (kernel launches, all-reduce latency). The pass costs
one decode step while `k B t_F <= t_W + B t_K`; for one sequence at short context that is
`k <= t_W / t_F = s_W I* / 2` (dense model), with `I* = pi / beta` the ridge point.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> cost = step_cost(MODELS["llama-3.1-8b"], GPUS["H100"], n_gpu=1, T_bar=0)
    >>> round(cost.t_W * 1e3, 2), round(cost.t_F * 1e3, 4)   # ms
    (4.79, 0.0162)
    >>> cost.t_pass(1, 5) == cost.t_step(1)                   # 5 tokens for the price of 1
    True
    >>> cost.largest_free_k(B=1)
    295
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from specdec.hardware import GPU
from specdec.model_specs import ModelSpec
from specdec.checks import check_int, check_number, scalar_or_array


def _check_sizes(B, k) -> tuple[np.ndarray, np.ndarray]:
    B_arr = np.asarray(B, dtype=float)
    k_arr = np.asarray(k, dtype=float)
    for name, arr in (("B", B_arr), ("k", k_arr)):
        if not np.all(np.isfinite(arr)) or np.any(arr < 1):
            raise ValueError(f"{name} must be >= 1 (sequences / tokens per sequence), got {np.asarray(arr).tolist()}")
    return B_arr, k_arr


def _check_time(name: str, value, strictly_positive: bool = False) -> float:
    check_number(value, name, must="a number of seconds")
    value = float(value)
    if not math.isfinite(value) or value < 0 or (strictly_positive and value == 0):
        raise ValueError(f"{name} must be {'> 0' if strictly_positive else '>= 0'} and finite, got {value!r}")
    return value


def t_pass(B, k, t_W: float, t_K: float, t_F: float, t_0: float = 0.0):
    """Time of one pass over `k` new tokens for each of `B` sequences (broadcasts over arrays).

    >>> t_pass(1, 1, t_W=5.0, t_K=0.5, t_F=0.1)      # memory-bound: 5 + 0.5
    5.5
    >>> t_pass(1, 100, t_W=5.0, t_K=0.5, t_F=0.1)    # compute-bound: 100 x 0.1
    10.0
    >>> t_pass(2, np.array([1, 20, 40]), 5.0, 0.5, 0.1, t_0=1.0)  # shape (3,)
    array([7., 7., 9.])
    """
    B_arr, k_arr = _check_sizes(B, k)
    t_W, t_K, t_F, t_0 = (_check_time(n, v) for n, v in (("t_W", t_W), ("t_K", t_K), ("t_F", t_F), ("t_0", t_0)))
    memory = t_W + B_arr * t_K                     # bytes: weights once, each sequence's cache once
    compute = k_arr * B_arr * t_F                  # arithmetic: every new token pays in full
    return scalar_or_array(np.maximum(memory, compute) + t_0)


def t_step(B, t_W: float, t_K: float, t_F: float, t_0: float = 0.0):
    """A plain decode step for `B` sequences: `t_pass(B, 1)`.

    >>> t_step(np.array([1, 100]), t_W=5.0, t_K=0.0, t_F=0.1)
    array([ 5., 10.])
    """
    return t_pass(B, 1, t_W, t_K, t_F, t_0)


@dataclass(frozen=True)
class StepCost:
    """The four times of the cost model for one (model, GPU, n_gpu, T_bar), in seconds.

    >>> c = StepCost(t_W=4.0, t_K=0.5, t_F=0.25)
    >>> c.t_step(2), c.t_pass(2, 10), c.knee_k(2), c.largest_free_k(2)
    (5.0, 5.0, 10.0, 10)
    >>> c.knee_batch(k=4)          # 4 B t_F <= t_W + B t_K  <=>  B <= t_W / (4 t_F - t_K)
    8.0
    """

    t_W: float
    t_K: float
    t_F: float
    t_0: float = 0.0

    def __post_init__(self) -> None:
        _check_time("t_W", self.t_W)
        _check_time("t_K", self.t_K)
        _check_time("t_F", self.t_F, strictly_positive=True)
        _check_time("t_0", self.t_0)

    def memory_time(self, B=1):
        """`t_W + B t_K`: the bytes side of the maximum."""
        B_arr, _ = _check_sizes(B, 1)
        return scalar_or_array(self.t_W + B_arr * self.t_K)

    def t_pass(self, B, k):
        return t_pass(B, k, self.t_W, self.t_K, self.t_F, self.t_0)

    def t_step(self, B):
        return t_pass(B, 1, self.t_W, self.t_K, self.t_F, self.t_0)

    def knee_k(self, B=1) -> float:
        """The real k where the two branches meet: `(t_W + B t_K) / (B t_F)`."""
        B_arr, _ = _check_sizes(B, 1)
        return scalar_or_array((self.t_W + B_arr * self.t_K) / (B_arr * self.t_F))

    def largest_free_k(self, B=1) -> int:
        """The largest integer k with `k B t_F <= t_W + B t_K` (0 if even k = 1 is compute-bound)."""
        B_arr, _ = _check_sizes(B, 1)
        if B_arr.ndim != 0:
            raise ValueError("largest_free_k takes one batch size at a time")
        B_val = float(B_arr)
        memory = self.t_W + B_val * self.t_K
        k = math.floor(memory / (B_val * self.t_F))
        while (k + 1) * B_val * self.t_F <= memory:    # guard against rounding just below an integer
            k += 1
        while k > 0 and k * B_val * self.t_F > memory:
            k -= 1
        return k

    def knee_batch(self, k=1) -> float:
        """The largest batch at which a pass over `k` tokens per sequence stays memory-bound.

        `k B t_F <= t_W + B t_K` holds for every B when `k t_F <= t_K` (returns inf),
        otherwise up to `B = t_W / (k t_F - t_K)`.
        """
        _, k_arr = _check_sizes(1, k)
        excess = float(k_arr) * self.t_F - self.t_K
        return math.inf if excess <= 0 else self.t_W / excess


def _check_setup(model: ModelSpec, gpu: GPU, n_gpu, T_bar) -> None:
    if not isinstance(model, ModelSpec):
        raise ValueError(f"model must be a ModelSpec (see specdec.model_specs.MODELS), got {type(model).__name__}")
    if not isinstance(gpu, GPU):
        raise ValueError(f"gpu must be a GPU (see specdec.hardware.GPUS), got {type(gpu).__name__}")
    check_int(n_gpu, "n_gpu", low=1, must="a positive integer")
    if isinstance(T_bar, bool) or not isinstance(T_bar, (int, float, np.integer, np.floating)) \
            or not math.isfinite(T_bar) or T_bar < 0:
        raise ValueError(f"T_bar (mean cached context, tokens) must be a finite number >= 0, got {T_bar!r}")


def step_cost(model: ModelSpec, gpu: GPU, n_gpu: int = 1, T_bar: float = 0.0, t_0: float = 0.0) -> StepCost:
    """The cost model of `model` split over `n_gpu` copies of `gpu`, at mean context `T_bar`.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> c = step_cost(MODELS["llama-3.1-70b"], GPUS["H100"], n_gpu=8)
    >>> round(c.t_W * 1e3, 2), round(c.t_F * 1e3, 4)
    (5.27, 0.0178)
    """
    _check_setup(model, gpu, n_gpu, T_bar)
    bytes_per_s = n_gpu * gpu.bandwidth
    flops_per_s = n_gpu * gpu.flops_bf16                       # attention: bfloat16
    gemm_flops_per_s = n_gpu * gpu.gemm_flops(model.fp8_gemms)  # weight products: fp8 when the model runs them so
    return StepCost(
        t_W=model.weight_bytes / bytes_per_s,
        t_K=T_bar * model.kv_bytes_per_token / bytes_per_s,
        t_F=2 * model.n_active / gemm_flops_per_s + 4 * model.n_layers * model.d_attn * T_bar / flops_per_s,
        t_0=_check_time("t_0", t_0),
    )


def short_context_free_k(model: ModelSpec, gpu: GPU) -> float:
    """`t_W / t_F` at `T_bar = 0`, one sequence: `s_W N I*_W / (2 N_act)`, which is `s_W I*_W / 2`
    for a dense model, with `I*_W = pi_W / beta` the ridge of the weight products (fp8 peak for
    fp8 products). It does not depend on the number of GPUs.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> round(short_context_free_k(MODELS["llama-3.1-70b"], GPUS["H100"]), 1)
    295.2
    """
    _check_setup(model, gpu, 1, 0)
    ridge_w = gpu.gemm_flops(model.fp8_gemms) / gpu.bandwidth
    return model.bytes_per_weight * model.n_params * ridge_w / (2 * model.n_active)


def largest_free_k(model: ModelSpec, gpu: GPU, n_gpu: int = 1, T_bar: float = 0.0, B: int = 1) -> int:
    """The largest k for which a pass over k tokens of each of B sequences costs one decode step.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> largest_free_k(MODELS["llama-3.1-8b"], GPUS["H100"], T_bar=4096, B=64)
    12
    """
    return step_cost(model, gpu, n_gpu, T_bar).largest_free_k(B)


def max_sequences(model: ModelSpec, gpu: GPU, n_gpu: int = 1, T_bar: float = 1.0) -> int:
    """How many sequences of `T_bar` cached tokens fit beside one copy of the weights.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> max_sequences(MODELS["llama-3.1-8b"], GPUS["H100"], T_bar=4096)
    119
    """
    _check_setup(model, gpu, n_gpu, T_bar)
    if T_bar <= 0:
        raise ValueError("T_bar must be > 0 to count sequences")
    free = n_gpu * gpu.memory - model.weight_bytes
    return max(0, math.floor(free / model.kv_cache_bytes(T_bar)))
