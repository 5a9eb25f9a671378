"""Tests for widgets.batch_speedup: the Python reference of the live widget against the library, every
control, bad input. The page's drawing is tested in tests/browser/test_live_widgets.py and its maths
in tests/test_widgets_js.py."""
import math

import numpy as np
import pytest

from specdec.batch_speedup import (MAX_CONTEXT, critical_context, fall_batch, max_batch_in_memory,
                                   one_layer_drafter, speedup_at_batch)
from specdec.cost_model import step_cost
from specdec.hardware import GPUS
from specdec.model_specs import MODELS
from widgets.batch_speedup import batch_speedup_curve, batch_speedup_widget, benchmark_update

LLAMA, H100 = MODELS["llama-3.1-8b"], GPUS["H100"]


def test_default_is_the_chapter_preset_and_flat_at_249():
    w = batch_speedup_widget()
    st = w.state
    drafter = one_layer_drafter(LLAMA)
    want = speedup_at_batch(LLAMA, H100, st["B"], 64, 3, 0.8, drafter)
    assert np.allclose(st["speedup"], want, rtol=1e-12)
    flat = st["B"] <= 64
    assert np.all(np.round(st["speedup"][flat], 2) == 2.49)
    assert st["speedup"][st["B"] == 256][0] < 1
    assert st["chosen"]["B"] == 64 and round(st["chosen"]["speedup"], 2) == 2.49 and st["chosen"]["regime"] == 1
    assert "2.49×" in w.readout.value and "weight reads" in w.readout.value
    assert st["critical_context"] == pytest.approx(critical_context(LLAMA, H100, 4))


def test_regime_boundaries_agree_with_the_library():
    w = batch_speedup_widget()
    w.context.value = 512
    st = w.state
    cost = step_cost(LLAMA, H100, T_bar=512)
    fall = fall_batch(cost, 4)
    assert st["fall_batch"] == pytest.approx(fall) and math.floor(fall) == 104
    lo, hi = math.floor(fall), math.floor(fall) + 1
    assert lo in st["B"] and hi in st["B"]
    assert st["regime"][st["B"] == lo][0] == 1 and st["regime"][st["B"] == hi][0] == 2
    assert st["compute_batch"] == math.inf, "at 512 tokens t_K > t_F: plain decoding never turns compute-bound"
    w.context.value = 64
    st = w.state
    compute = fall_batch(step_cost(LLAMA, H100, T_bar=64), 1)
    assert st["compute_batch"] == pytest.approx(compute)
    c_lo, c_hi = math.floor(compute), math.floor(compute) + 1
    assert st["regime"][st["B"] == c_lo][0] == 2 and st["regime"][st["B"] == c_hi][0] == 3
    assert np.all(np.diff(st["speedup"][st["regime"] == 2]) < 0)


def test_past_the_critical_context_the_curve_flattens():
    w = batch_speedup_widget()
    w.context.value = 1024
    assert math.isfinite(w.state["fall_batch"])
    w.context.value = 2048                                    # past T_c(4) = 1,755
    assert w.state["fall_batch"] == math.inf and np.all(w.state["regime"] == 1)
    assert np.all(np.diff(w.state["speedup"]) >= -1e-12)
    assert w.state["max_batch"] == max_batch_in_memory(LLAMA, H100, 2048, one_layer_drafter(LLAMA))


def test_every_control_changes_the_curve_in_place():
    w = batch_speedup_widget()
    view = w.box
    before = w.state["speedup"].copy()
    w.gamma.value = 5
    assert w.state["speedup"].shape != before.shape or not np.allclose(w.state["speedup"], before)
    w.alpha.value = 0.6
    w.drafter.value = 0.0                                     # a free drafter: the ideal speedup
    cost = step_cost(LLAMA, H100, T_bar=64)
    B = w.state["B"]
    ideal = speedup_at_batch(LLAMA, H100, B, 64, 5, 0.6)
    assert np.allclose(w.state["speedup"], ideal)
    assert w.state["regime"][B == 1][0] == 1 and math.floor(w.state["fall_batch"]) == math.floor(fall_batch(cost, 6))
    w.gpu.value = "H200"
    w.n_gpu.value = 2
    w.model.value = "llama-3.1-70b"
    w.context.value = 8192
    w.batch.value = 16
    st = w.state
    want = speedup_at_batch(MODELS["llama-3.1-70b"], GPUS["H200"], 16, 8192, 5, 0.6, None, n_gpu=2)
    assert st["chosen"]["B"] == 16 and st["chosen"]["speedup"] == pytest.approx(want)
    assert w.box is view, "an update must not rebuild the widget"
    assert (view.gpu_key, view.n_gpu, view.model_key, view.context, view.batch) == ("H200", 2, "llama-3.1-70b", 8192, 16)


def test_bad_combinations_show_a_message_not_a_traceback():
    w = batch_speedup_widget()
    w.model.value = "gpt2"
    w.drafter.value = 5.0
    w.context.value = 4096                                   # GPT-2 supports 1,024
    assert "1,024" in w.message.value and w.curve is None and "message" in w.state
    w.context.value = 512
    assert w.message.value == "" and w.curve is not None
    w.model.value = "llama-3.1-70b"                          # 141 GB on one 80 GB GPU
    assert "do not fit" in w.message.value and w.curve is None
    w.n_gpu.value = 4
    w.context.value = 32768
    w.batch.value = 4096                                     # far more caches than 320 GB hold
    assert "does not fit" in w.message.value and w.state["chosen"]["fits"] is False
    assert w.state["max_batch"] < 4096


def test_curve_validation():
    with pytest.raises(ValueError):
        batch_speedup_curve(LLAMA, H100, T_bar=0, gamma=3, alpha=0.8)
    with pytest.raises(ValueError):
        batch_speedup_curve(LLAMA, H100, T_bar=64, gamma=3, alpha=0.8, drafter_share=150)


def test_benchmark_returns_two_positive_times():
    update_s, redraw_s = benchmark_update(repeats=2)
    assert update_s > 0 and redraw_s > 0


def test_regimes_two_and_three_have_clearly_distinct_colours():
    from matplotlib.colors import to_rgb

    from widgets.batch_speedup import REGIME_ALPHA, REGIME_COLORS

    def shaded(c):                                      # what the eye sees: the colour at its alpha on white
        return np.array([REGIME_ALPHA * v + (1 - REGIME_ALPHA) for v in to_rgb(c)])

    for a, b in ((1, 2), (2, 3), (1, 3)):
        distance = np.linalg.norm((shaded(REGIME_COLORS[a]) - shaded(REGIME_COLORS[b])) * 255)
        assert distance > 30, f"regimes {a} and {b} are shaded too alike ({distance:.0f} of 441 RGB units)"


def test_batch_control_is_log_scale_over_1_to_4096():
    w = batch_speedup_widget()
    assert (w.batch.min, w.batch.max) == (1, 4096) and w.batch.log_step <= 0.125
    w.batch.value = 2 ** 11.125                                 # a slider stop between two integers
    assert w.chosen_batch == round(2 ** 11.125) == w.state["chosen"]["B"]


def test_the_page_gets_its_numbers_from_specdec():
    """The JS computes from the data the Python side sends, not from numbers copied into the JS."""
    w = batch_speedup_widget()
    data = w.box.data
    assert data["models"]["deepseek-v3"]["n_routed_params"] == MODELS["deepseek-v3"].n_routed_params
    assert data["gpus"]["H100"]["flops_fp8"] == GPUS["H100"].flops_fp8
    assert data["max_context"] == {k: v for k, v in MAX_CONTEXT.items() if k in MODELS}
    src = w.box._esm
    assert "export default" in src and 'from "./' not in src, "the ES module must load from one string"
    assert "989e12" not in src and "8.03e9" not in src, "GPU and model numbers must come from specdec"


def test_deepseek_reads_only_the_experts_it_touches():
    from specdec.moe import pass_time

    w = batch_speedup_widget()
    w.model.value, w.gpu.value, w.n_gpu.value = "deepseek-v3", "H200", 8
    w.batch.value = 1
    st = w.state
    ds, h200 = MODELS["deepseek-v3"], GPUS["H200"]
    drafter = one_layer_drafter(ds, w.drafter.value / 100 * ds.n_active)
    assert st["model_is_moe"] and np.allclose(st["speedup"], speedup_at_batch(ds, h200, st["B"], 64, 3, 0.8, drafter, 8))
    want = pass_time(ds, h200, 1, 4, 64, 8) / pass_time(ds, h200, 1, 1, 64, 8)
    assert st["chosen"]["verification_cost"] == pytest.approx(want) and want > 2.4
    assert st["chosen"]["speedup"] < 1.2, "at batch 1 verification reads ~2.5x the expert bytes: little speedup"
    assert "experts" in w.readout.value and "not free" in w.readout.value and "errs low" in w.readout.value
    assert "not free" in st["regime_1_name"]
    w.model.value = "llama-3.1-8b"
    w.n_gpu.value = 1
    assert "not free" not in w.state["regime_1_name"] and "experts" not in w.readout.value
