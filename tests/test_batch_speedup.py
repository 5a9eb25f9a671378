"""Properties of specdec.batch_speedup: the three regimes, the critical context, memory capacity."""
import math

import numpy as np
import pytest

from specdec.batch_speedup import (MAX_CONTEXT, critical_context, drafter_cost_ratio, fall_batch, ideal_speedup,
                                   largest_free_batch, max_batch_in_memory, memory_bound_queries, one_layer_drafter, regime,
                                   speedup_at_batch)
from specdec.cost_model import StepCost, step_cost
from specdec.hardware import GPUS
from specdec.model_specs import MODELS
from specdec.speedup_model import expected_tokens_iid

LLAMA, H100 = MODELS["llama-3.1-8b"], GPUS["H100"]


def test_three_regimes_match_the_closed_forms():
    rng = np.random.default_rng(0)
    for _ in range(200):
        cost = StepCost(t_W=float(rng.uniform(1, 10)), t_K=float(rng.uniform(0, 0.05)), t_F=float(rng.uniform(0.01, 0.2)))
        gamma = int(rng.integers(1, 8))
        n_bar = float(rng.uniform(1, gamma + 1))
        B = np.unique(np.round(np.geomspace(1, 5000, 60)))
        s = ideal_speedup(cost, B, gamma, n_bar)
        reg = regime(cost, B, gamma)
        memory = cost.t_W + B * cost.t_K
        assert np.allclose(s[reg == 1], n_bar)
        assert np.allclose(s[reg == 3], n_bar / (gamma + 1))
        mid = reg == 2
        assert np.allclose(s[mid], n_bar * memory[mid] / ((gamma + 1) * B[mid] * cost.t_F))
        assert np.all(np.diff(s[mid]) <= 1e-12), "regime 2 must fall with B"
        assert np.all(np.diff(reg) >= 0), "regimes come in order 1, 2, 3"
        # the fall begins at t_W / ((gamma+1) t_F - t_K)
        fall = fall_batch(cost, gamma + 1)
        assert np.all(reg[B <= fall] == 1) and np.all(reg[B > fall] >= 2)


def test_critical_context_is_where_regime_one_holds_at_every_batch():
    for key in ("llama-3.1-8b", "llama-3.1-70b", "gpt2", "gpt2-xl"):
        model = MODELS[key]
        for gpu in GPUS.values():
            for k in (2, 4, 8):
                T_c = critical_context(model, gpu, k)
                assert math.isfinite(T_c) and T_c > 0
                below, above = step_cost(model, gpu, T_bar=0.99 * T_c), step_cost(model, gpu, T_bar=1.01 * T_c)
                assert k * above.t_F <= above.t_K, (key, gpu.name, k)
                assert k * below.t_F > below.t_K and math.isfinite(fall_batch(below, k))
                assert fall_batch(above, k) == math.inf


def test_chapter_numbers():
    assert round(critical_context(LLAMA, H100, 4)) == 1755
    assert round(fall_batch(step_cost(LLAMA, H100, T_bar=512), 4)) == 104
    assert math.floor(fall_batch(step_cost(LLAMA, H100, T_bar=0), 5)) == 59
    drafter = one_layer_drafter(LLAMA)
    s = speedup_at_batch(LLAMA, H100, np.array([1, 2, 4, 8, 16, 32, 64, 256]), 64, 3, 0.8, drafter)
    assert np.all(np.round(s[:7], 2) == 2.49) and s[-1] < 1
    assert round(expected_tokens_iid(0.8, 3) / 4, 2) == 0.74
    assert 0.69 < speedup_at_batch(LLAMA, H100, 1024, 64, 3, 0.8, drafter) < 0.74
    assert max_batch_in_memory(LLAMA, H100, 4096) == 119
    assert round(memory_bound_queries(MODELS["deepseek-v3"], H100), 2) == 1.22
    assert all(critical_context(MODELS["deepseek-v3"], H100, k) == math.inf for k in range(2, 9))


def test_long_context_speedup_rises_with_batch():
    drafter = one_layer_drafter(LLAMA)
    B = np.array([1, 8, 64, 512])
    s = speedup_at_batch(LLAMA, H100, B, 4096, 3, 0.8, drafter)
    assert np.all(np.diff(s) > 0), "past the critical context the drafter's share shrinks as caches grow"
    c = drafter_cost_ratio(LLAMA, drafter, H100, B, 4096)
    assert np.all(np.diff(c) < 0)


def test_free_drafter_equals_ideal_speedup_and_ratios_ignore_n_gpu():
    B = np.array([1, 50, 300, 2000])
    s = speedup_at_batch(LLAMA, H100, B, 700, 4, 0.7)
    assert np.allclose(s, ideal_speedup(step_cost(LLAMA, H100, T_bar=700), B, 4, expected_tokens_iid(0.7, 4)))
    d = one_layer_drafter(MODELS["llama-3.1-70b"])
    s1 = speedup_at_batch(MODELS["llama-3.1-70b"], H100, B, 700, 4, 0.7, d, n_gpu=1)
    s8 = speedup_at_batch(MODELS["llama-3.1-70b"], H100, B, 700, 4, 0.7, d, n_gpu=8)
    assert np.allclose(s1, s8)


def test_parallel_drafter_is_cheaper():
    d = one_layer_drafter(LLAMA)
    seq = speedup_at_batch(LLAMA, H100, 8, 512, 5, 0.8, d)
    par = speedup_at_batch(LLAMA, H100, 8, 512, 5, 0.8, d, parallel=True)
    assert par > seq


def test_memory_capacity_counts_the_drafter():
    d = one_layer_drafter(LLAMA)
    for T in (512, 4096, 32768):
        plain = max_batch_in_memory(LLAMA, H100, T)
        spec = max_batch_in_memory(LLAMA, H100, T, d)
        assert spec <= plain
        used = LLAMA.weight_bytes + d.weight_bytes + spec * T * (LLAMA.kv_bytes_per_token + d.kv_bytes_per_token)
        assert used <= H100.memory < used + T * (LLAMA.kv_bytes_per_token + d.kv_bytes_per_token)
    assert max_batch_in_memory(MODELS["llama-3.1-70b"], H100, 4096) == 0
    assert max_batch_in_memory(MODELS["llama-3.1-70b"], H100, 4096, n_gpu=8) > 0


def test_validation():
    with pytest.raises(ValueError):
        one_layer_drafter(MODELS["gpt2"], n_params=0.5e9)
    with pytest.raises(ValueError):
        speedup_at_batch(LLAMA, H100, 0, 64, 3, 0.8)
    with pytest.raises(ValueError):
        critical_context(LLAMA, H100, 0)
    with pytest.raises(ValueError):
        max_batch_in_memory(LLAMA, H100, 0)
    assert set(MAX_CONTEXT) == set(MODELS)


def test_largest_free_batch_is_the_last_memory_bound_batch():
    rng = np.random.default_rng(9)
    for _ in range(2000):
        t_W, t_K, t_F, k = rng.uniform(0, 1e-2), rng.uniform(0, 1e-4), rng.uniform(1e-7, 1e-3), int(rng.integers(1, 17))
        B = largest_free_batch(t_W, t_K, t_F, k)
        if k * t_F <= t_K:
            assert B == math.inf
            continue
        assert k * B * t_F <= t_W + B * t_K and k * (B + 1) * t_F > t_W + (B + 1) * t_K
    c = step_cost(LLAMA, H100, T_bar=512)
    assert largest_free_batch(c.t_W, c.t_K, c.t_F, 4) == math.floor(fall_batch(c, 4)) == 104


def test_critical_context_is_where_k_t_F_meets_t_K_for_every_preset():
    # Including DeepSeek-V3 at k = 1, whose fp8 weight products run at the fp8 peak.
    from specdec.cost_model import step_cost
    from specdec.hardware import GPUS
    for model in MODELS.values():
        for gpu in GPUS.values():
            for k in (1, 2, 4):
                T_c = critical_context(model, gpu, k)
                if math.isinf(T_c):
                    far = step_cost(model, gpu, T_bar=1e9)
                    assert k * far.t_F > far.t_K
                    continue
                below, above = step_cost(model, gpu, T_bar=0.999 * T_c), step_cost(model, gpu, T_bar=1.001 * T_c)
                assert k * below.t_F > below.t_K and k * above.t_F <= above.t_K, (model.name, gpu.name, k)
