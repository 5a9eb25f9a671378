"""Unit tests for specdec.cost_model: the formulas, the course numbers, the free range, validation."""
import math

import numpy as np
import pytest

from specdec.cost_model import (StepCost, largest_free_k, max_sequences, short_context_free_k, step_cost,
                                t_pass, t_step)
from specdec.hardware import GPU, GPUS
from specdec.model_specs import MODELS, ModelSpec

H100 = GPUS["H100"]
L8, L70 = MODELS["llama-3.1-8b"], MODELS["llama-3.1-70b"]


def test_terms_from_definitions():
    c = step_cost(L8, H100, n_gpu=2, T_bar=100)
    assert c.t_W == pytest.approx(2 * 8.03e9 / (2 * 3.35e12))
    assert c.t_K == pytest.approx(100 * 131072 / (2 * 3.35e12))
    assert c.t_F == pytest.approx((2 * 8.03e9 + 4 * 32 * 4096 * 100) / (2 * 989e12))
    assert c.t_0 == 0.0


def test_llama_70b_on_8_h100():
    c = step_cost(L70, H100, n_gpu=8)
    assert round(L70.weight_bytes / 1e9) == 141
    assert round(c.t_W * 1e3, 1) == 5.3
    assert round(c.t_F * 1e3, 3) == 0.018
    assert round(5 * c.t_F * 1e3, 2) == 0.09
    assert c.t_pass(1, 5) == c.t_step(1)


def test_llama_8b_on_one_h100():
    c = step_cost(L8, H100)
    assert round(c.t_W * 1e3, 2) == 4.79
    assert round(c.t_F * 1e3, 3) == 0.016
    assert round(100 * 4 * c.t_F / c.t_W, 1) == 1.4
    assert round(step_cost(L8, H100, T_bar=4096).t_K * 1e3, 2) == 0.16


@pytest.mark.parametrize("model", [L8, L70])
def test_256_free_512_not(model):
    c = step_cost(model, H100, n_gpu=8 if model is L70 else 1, T_bar=128)
    assert c.t_pass(1, 256) == c.t_step(1)
    assert c.t_pass(1, 512) > c.t_step(1)


def test_t_pass_branches_and_broadcast():
    assert t_pass(1, 1, 5.0, 0.5, 0.1) == 5.5
    assert t_pass(1, 100, 5.0, 0.5, 0.1) == pytest.approx(10.0)
    assert t_pass(3, 1, 5.0, 0.5, 0.1, t_0=0.25) == 6.75
    ks = np.arange(1, 200)
    out = t_pass(2, ks, 5.0, 0.5, 0.1)
    assert out.shape == ks.shape and np.all(np.diff(out) >= 0)
    assert np.allclose(out, np.maximum(6.0, 0.2 * ks))
    grid = t_pass(np.array([[1], [4]]), np.array([1, 10]), 1.0, 1.0, 1.0)
    assert grid.shape == (2, 2) and grid.tolist() == [[2.0, 10.0], [5.0, 40.0]]
    assert t_step(4, 1.0, 1.0, 1.0) == t_pass(4, 1, 1.0, 1.0, 1.0)


@pytest.mark.parametrize("args", [(0, 1, 1.0, 0.0, 1.0), (1, 0, 1.0, 0.0, 1.0), (1, np.array([1, 0.5]), 1.0, 0.0, 1.0),
                                  (1, 1, -1.0, 0.0, 1.0), (1, 1, 1.0, math.nan, 1.0), (1, 1, 1.0, 0.0, "x")])
def test_t_pass_rejects_bad_input(args):
    with pytest.raises(ValueError):
        t_pass(*args)
    with pytest.raises(ValueError):
        t_pass(1, 1, 1.0, 0.0, 1.0, t_0=-0.1)


def test_step_cost_validation():
    with pytest.raises(ValueError):
        StepCost(1.0, 0.0, 0.0)          # t_F must be > 0
    with pytest.raises(ValueError):
        StepCost(-1.0, 0.0, 1.0)
    for bad in [dict(n_gpu=0), dict(n_gpu=1.5), dict(T_bar=-1), dict(T_bar=math.inf), dict(t_0=-1e-3)]:
        with pytest.raises(ValueError):
            step_cost(L8, H100, **bad)
    with pytest.raises(ValueError):
        step_cost(H100, L8)


def test_largest_free_k_exact_boundary():
    # Powers of two make every quantity exact: the ratio is exactly 8, and 8 must be free.
    gpu = GPU("pow2", flops_bf16=2.0**40, bandwidth=2.0**37, memory=2.0**30)
    model = ModelSpec("pow2", n_params=1024, n_active=1024, n_layers=2, d_attn=8, kv_bytes_per_token=64)
    assert largest_free_k(model, gpu) == 8
    c = step_cost(model, gpu, T_bar=16)
    assert c.knee_k(4) == 4.0 and c.largest_free_k(4) == 4


def test_largest_free_k_course_numbers():
    assert short_context_free_k(L8, H100) == pytest.approx(295.22, abs=0.01)
    for model, n in [(L8, 1), (L70, 8)]:
        assert largest_free_k(model, H100, n, T_bar=0, B=1) == 295
    assert largest_free_k(L8, H100, T_bar=64, B=64) == 4
    assert largest_free_k(L8, H100, T_bar=4096, B=64) == 12
    assert largest_free_k(L8, H100, T_bar=64, B=512) == 0
    # n_gpu cancels in the ratio
    assert largest_free_k(L70, H100, 1, 1000, 8) == largest_free_k(L70, H100, 8, 1000, 8)


def test_largest_free_k_is_the_boundary():
    rng = np.random.default_rng(0)
    for _ in range(200):
        c = StepCost(*rng.uniform(0.01, 1.0, size=3))
        B = int(rng.integers(1, 50))
        k = c.largest_free_k(B)
        mem = c.t_W + B * c.t_K
        assert k * B * c.t_F <= mem < (k + 1) * B * c.t_F


def test_knee_batch_matches_free_condition():
    c = step_cost(L8, H100, T_bar=512)
    B_star = c.knee_batch(k=4)
    assert 4 * math.floor(B_star) * c.t_F <= c.memory_time(math.floor(B_star))
    assert 4 * math.ceil(B_star) * c.t_F > c.memory_time(math.ceil(B_star))
    long_ctx = step_cost(L8, H100, T_bar=4096)
    assert long_ctx.knee_batch(k=4) == math.inf            # past the critical context (1,755 at k=4)


def test_max_sequences():
    assert max_sequences(L8, H100, T_bar=4096) == 119
    assert max_sequences(L70, H100, n_gpu=1, T_bar=4096) == 0   # the weights alone do not fit
    with pytest.raises(ValueError):
        max_sequences(L8, H100, T_bar=0)


def test_fp8_products_run_at_the_fp8_peak_and_attention_does_not():
    # DeepSeek-V3's weight products are fp8 (W8A8): their FLOPs are priced at the fp8 peak, about
    # twice bf16, while attention over the bf16 cache stays at the bf16 rate.
    import dataclasses
    from specdec.hardware import GPUS
    from specdec.model_specs import MODELS
    ds, h100 = MODELS["deepseek-v3"], GPUS["H100"]
    as_bf16 = dataclasses.replace(ds, fp8_gemms=False)
    for T_bar in (0, 4096):
        fp8, bf16 = step_cost(ds, h100, 8, T_bar), step_cost(as_bf16, h100, 8, T_bar)
        weight_fp8 = 2 * ds.n_active / (8 * h100.flops_fp8)
        weight_bf16 = 2 * ds.n_active / (8 * h100.flops_bf16)
        assert fp8.t_F - weight_fp8 == pytest.approx(bf16.t_F - weight_bf16)   # attention part unchanged
        assert fp8.t_F < bf16.t_F and fp8.t_W == bf16.t_W and fp8.t_K == bf16.t_K
    assert step_cost(ds, h100).t_F == pytest.approx(step_cost(as_bf16, h100).t_F * h100.flops_bf16 / h100.flops_fp8)
    # A chip without fp8 units multiplies fp8 weights at its bf16 rate.
    a100 = GPUS["A100"]
    assert step_cost(ds, a100).t_F == step_cost(as_bf16, a100).t_F


def test_weight_only_quantization_shrinks_t_W_not_t_F():
    import dataclasses
    from specdec.hardware import GPUS
    from specdec.model_specs import MODELS
    llama, h100 = MODELS["llama-3.1-8b"], GPUS["H100"]
    w4 = dataclasses.replace(llama, bytes_per_weight=0.5)
    full, quant = step_cost(llama, h100, T_bar=512), step_cost(w4, h100, T_bar=512)
    assert quant.t_W == pytest.approx(full.t_W / 4) and quant.t_F == full.t_F and quant.t_K == full.t_K
    assert quant.knee_batch(4) == pytest.approx(full.knee_batch(4) / 4)      # the fall comes 4x sooner
