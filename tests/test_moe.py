"""Properties of specdec.moe: the expected number of experts a pass touches."""
import numpy as np
import pytest

from specdec.moe import experts_touched, simulate_experts_touched, verification_expert_ratio


def test_limits_and_monotonicity():
    n = np.arange(0, 500)
    t = experts_touched(256, 8, n)
    assert t[0] == 0 and t[1] == pytest.approx(8) and np.all(np.diff(t) > 0) and t[-1] < 256
    assert experts_touched(256, 8, 10_000) == pytest.approx(256)
    assert np.all(t <= np.minimum(256, 8 * n) + 1e-9)


def test_exact_for_small_cases_by_enumeration():
    # E = 4, k = 2, n = 2: each token picks one of 6 pairs; count distinct experts over all 36 choices
    import itertools
    pairs = list(itertools.combinations(range(4), 2))
    mean = np.mean([len(set(a) | set(b)) for a in pairs for b in pairs])
    assert experts_touched(4, 2, 2) == pytest.approx(mean)


def test_simulation_agrees():
    rng = np.random.default_rng(1)
    for n in (1, 4, 64):
        counts = simulate_experts_touched(256, 8, n, 400, rng)
        se = counts.std(ddof=1) / np.sqrt(len(counts)) + 1e-9
        assert abs(counts.mean() - experts_touched(256, 8, n)) < 5 * se + 1e-9


def test_ratio_falls_with_batch():
    r = verification_expert_ratio(256, 8, np.array([1, 4, 16, 64, 256]), 3)
    assert np.all(np.diff(r) < 0) and r[0] == pytest.approx(30.52 / 8, rel=1e-3) and r[-1] < 1.01


def test_validation():
    with pytest.raises(ValueError):
        experts_touched(8, 9, 1)
    with pytest.raises(ValueError):
        experts_touched(8, 2, -1)


# --- what a pass costs when only the touched experts are read -------------------------------------
import dataclasses  # noqa: E402

from specdec.batch_speedup import fall_batch, regime, speedup_at_batch  # noqa: E402
from specdec.cost_model import step_cost  # noqa: E402
from specdec.hardware import GPUS  # noqa: E402
from specdec.model_specs import MODELS  # noqa: E402
from specdec.moe import model_fall_batch, model_regime, pass_time, weight_bytes_read  # noqa: E402

DS, LLAMA, H200 = MODELS["deepseek-v3"], MODELS["llama-3.1-8b"], GPUS["H200"]
DS_ALL_WEIGHTS = dataclasses.replace(DS, n_experts=0, experts_per_token=0, n_routed_params=0.0)


def test_weight_bytes_read_limits():
    shared = DS.bytes_per_weight * (DS.n_params - DS.n_routed_params)
    assert weight_bytes_read(DS, 0) == pytest.approx(shared)
    assert weight_bytes_read(DS, 1) == pytest.approx(shared + DS.bytes_per_weight * DS.n_routed_params * 8 / 256)
    assert weight_bytes_read(DS, 100_000) == pytest.approx(DS.weight_bytes)
    n = np.arange(0, 2000)
    assert np.all(np.diff(weight_bytes_read(DS, n)) >= 0) and np.all(np.diff(weight_bytes_read(DS, n[:300])) > 0)
    assert np.all(weight_bytes_read(LLAMA, n) == LLAMA.weight_bytes)
    with pytest.raises(ValueError):
        weight_bytes_read(DS, -1)


def test_dense_models_are_priced_as_before():
    B = np.array([1, 7, 64, 300, 4096])
    for T in (64, 512, 4096):
        cost = step_cost(LLAMA, GPUS["H100"], T_bar=T)
        for k in (1, 4):
            assert np.allclose(pass_time(LLAMA, GPUS["H100"], B, k, T), cost.t_pass(B, k), rtol=1e-15)
        assert np.array_equal(model_regime(LLAMA, GPUS["H100"], B, 3, T), regime(cost, B, 3))
        assert model_fall_batch(LLAMA, GPUS["H100"], T, 4) == fall_batch(cost, 4)


def test_verification_reads_more_experts_at_small_batch():
    # batch 1, 4 tokens: 30.5 experts per layer against 8, so the pass reads ~2.5x the bytes of a plain step
    ratio = pass_time(DS, H200, 1, 4, 1024, n_gpu=8) / pass_time(DS, H200, 1, 1, 1024, n_gpu=8)
    want = weight_bytes_read(DS, 4) / weight_bytes_read(DS, 1)
    assert ratio == pytest.approx(want, rel=0.05) and 2.4 < ratio < 2.7
    # reading every weight every step (the old model) makes verification look free, i.e. the speedup optimistic
    s_moe = speedup_at_batch(DS, H200, 1, 1024, 3, 0.8, n_gpu=8)
    s_all = speedup_at_batch(DS_ALL_WEIGHTS, H200, 1, 1024, 3, 0.8, n_gpu=8)
    assert s_all == pytest.approx(2.952, abs=1e-3) and s_moe < 0.45 * s_all
    # at large batch nearly every expert is read anyway: the two models agree
    big = np.array([256, 1024, 4096])
    assert np.allclose(speedup_at_batch(DS, H200, big, 1024, 3, 0.8, n_gpu=8),
                       speedup_at_batch(DS_ALL_WEIGHTS, H200, big, 1024, 3, 0.8, n_gpu=8), rtol=0.03)


def test_moe_fall_batch_is_where_the_pass_turns_compute_bound():
    for T, k in ((64, 4), (1024, 4), (1024, 1), (4096, 2)):
        fall = model_fall_batch(DS, H200, T, k, n_gpu=8)
        assert math.isfinite(fall) and fall > 1
        cost = step_cost(DS, H200, 8, T)

        def excess(B):
            return k * B * cost.t_F - (weight_bytes_read(DS, k * B) / (8 * H200.bandwidth) + B * cost.t_K)

        assert excess(fall * 0.999) <= 0 < excess(fall * 1.001)
    B = np.arange(1, 4097)
    reg = model_regime(DS, H200, B, 3, 1024, n_gpu=8)
    assert np.all(np.diff(reg) >= 0), "regimes must come in the order 1, 2, 3"
    assert reg[0] == 1 and reg[-1] == 3


import math  # noqa: E402
