"""Unit tests for specdec.hardware and specdec.model_specs: presets, derived sizes, validation."""
import math

import pytest

from specdec.hardware import GPU, GPUS, ridge_point
from specdec.model_specs import MODELS, ModelSpec, kv_bytes_per_token, latent_kv_bytes_per_token


def test_gpu_presets_match_data_sheets():
    assert GPUS["H100"].flops_bf16 == 989e12 and GPUS["H100"].bandwidth == 3.35e12 and GPUS["H100"].memory == 80e9
    assert GPUS["H200"].flops_bf16 == 989e12 and GPUS["H200"].bandwidth == 4.8e12 and GPUS["H200"].memory == 141e9


def test_ridge_point_is_flops_over_bandwidth():
    assert ridge_point(GPUS["H100"]) == pytest.approx(295.2, abs=0.05)
    assert ridge_point(GPUS["H200"]) == pytest.approx(989 / 4.8)
    toy = GPU("toy", flops_bf16=6.0, bandwidth=2.0, memory=1.0)
    assert ridge_point(toy) == 3.0 == toy.ridge_point


@pytest.mark.parametrize("field", ["flops_bf16", "bandwidth", "memory"])
@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, "1e12"])
def test_gpu_rejects_bad_numbers(field, bad):
    kwargs = dict(flops_bf16=1e12, bandwidth=1e12, memory=1e9)
    kwargs[field] = bad
    with pytest.raises(ValueError, match=field):
        GPU("bad", **kwargs)


def test_ridge_point_rejects_non_gpu():
    with pytest.raises(ValueError):
        ridge_point(MODELS["gpt2"])


def test_kv_bytes_formula():
    assert kv_bytes_per_token(32, 8, 128) == 32 * 8 * 128 * 2 * 2 == 131072
    assert kv_bytes_per_token(80, 8, 128) == 327680
    assert kv_bytes_per_token(2, 3, 4, bytes_per_value=1) == 48
    assert latent_kv_bytes_per_token(1, 576) == 1152
    with pytest.raises(ValueError):
        kv_bytes_per_token(0, 8, 128)
    with pytest.raises(ValueError):
        latent_kv_bytes_per_token(61, -576)


def test_model_presets():
    llama8 = MODELS["llama-3.1-8b"]
    assert llama8.n_params == 8.03e9 and llama8.weight_bytes == pytest.approx(16.06e9)
    assert MODELS["llama-3.1-70b"].weight_bytes == pytest.approx(141.2e9)
    assert MODELS["llama-3.1-70b"].kv_bytes_per_token == 327680
    assert round(MODELS["gpt2"].n_params / 1e6) == 124
    assert round(MODELS["gpt2-xl"].n_params / 1e9, 2) == 1.56
    ds = MODELS["deepseek-v3"]
    assert (ds.n_params, ds.n_active, ds.n_layers) == (671e9, 37e9, 61)
    assert ds.kv_bytes_per_token / ds.n_layers == 1152
    assert ds.d_attn == 128 * 544


def test_attention_intensity():
    assert MODELS["llama-3.1-8b"].attention_flops_per_cached_byte == 4.0
    assert MODELS["gpt2"].attention_flops_per_cached_byte == 1.0       # one query per KV head
    ds = MODELS["deepseek-v3"].attention_flops_per_cached_byte
    assert ds == pytest.approx(4 * 128 * 544 / 1152) and round(ds) == 242
    assert ridge_point(GPUS["H100"]) / ds == pytest.approx(1.22, abs=0.005)


def test_model_spec_validation():
    good = dict(n_params=1e9, n_active=1e9, n_layers=2, d_attn=64, kv_bytes_per_token=512)
    ModelSpec("ok", **good)
    for field in good:
        with pytest.raises(ValueError, match=field):
            ModelSpec("bad", **{**good, field: 0})
    with pytest.raises(ValueError, match="n_active"):
        ModelSpec("bad", **{**good, "n_active": 2e9})
    with pytest.raises(ValueError):
        ModelSpec("bad", **good, bytes_per_weight=-2)


def test_kv_cache_bytes():
    m = MODELS["llama-3.1-8b"]
    assert m.kv_cache_bytes(4096) == 4096 * 131072
    assert m.kv_cache_bytes(0) == 0
    with pytest.raises(ValueError):
        m.kv_cache_bytes(-1)


def test_specs_are_frozen():
    with pytest.raises(Exception):
        MODELS["gpt2"].n_params = 1
    with pytest.raises(Exception):
        GPUS["H100"].bandwidth = 1


def test_deepseek_experts_account_for_the_active_parameters():
    ds = MODELS["deepseek-v3"]
    assert ds.is_moe and (ds.n_experts, ds.experts_per_token) == (256, 8)
    assert ds.n_routed_params == 58 * 256 * 3 * 7168 * 2048
    shared = ds.n_params - ds.n_routed_params                       # read every step
    active = shared + ds.experts_per_token / ds.n_experts * ds.n_routed_params
    assert abs(active - ds.n_active) / ds.n_active < 0.02, f"shared + 8/256 routed = {active / 1e9:.1f}B, not ~37B"
    assert not any(MODELS[k].is_moe for k in ("llama-3.1-8b", "llama-3.1-70b", "gpt2", "gpt2-xl"))


def test_moe_fields_are_validated():
    good = dict(n_params=1e9, n_active=0.3e9, n_layers=2, d_attn=64, kv_bytes_per_token=512)
    ModelSpec("ok", **good, n_experts=8, experts_per_token=2, n_routed_params=0.8e9)
    for bad in (dict(n_experts=8, experts_per_token=9, n_routed_params=0.8e9),
                dict(n_experts=8, experts_per_token=2, n_routed_params=2e9),
                dict(n_experts=8, experts_per_token=0, n_routed_params=0.8e9),
                dict(n_experts=8.0, experts_per_token=2, n_routed_params=0.8e9),
                dict(n_routed_params=0.8e9)):
        with pytest.raises(ValueError):
            ModelSpec("bad", **good, **bad)
