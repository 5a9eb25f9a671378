"""Tests for widgets.roofline: the pure curve, the plot helper and the widget's reaction to its controls."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from specdec.cost_model import step_cost  # noqa: E402
from specdec.hardware import GPUS  # noqa: E402
from specdec.model_specs import MODELS  # noqa: E402
from widgets.roofline import plot_roofline, roofline_curve, roofline_widget  # noqa: E402


def test_curve_is_flat_then_linear():
    model, gpu = MODELS["llama-3.1-8b"], GPUS["H100"]
    c = roofline_curve(model, gpu, B=2, T_bar=1000, k_max=2048)
    cost = step_cost(model, gpu, 1, 1000)
    assert c.k[0] == 1 and c.k[-1] == 2048 and np.all(np.diff(c.k) > 0)
    flat = c.k <= c.largest_free_k
    assert np.all(c.t_pass[flat] == c.memory_time)
    steep = c.k > c.knee_k
    assert np.allclose(c.t_pass[steep], c.k[steep] * 2 * cost.t_F)
    assert c.largest_free_k in c.k and c.largest_free_k + 1 in c.k
    assert c.slope == pytest.approx(2 * cost.t_F)


def test_curve_depends_on_batch_and_context():
    model, gpu = MODELS["llama-3.1-70b"], GPUS["H100"]
    base = roofline_curve(model, gpu, n_gpu=8)
    assert base.largest_free_k == 295
    assert roofline_curve(model, gpu, n_gpu=8, B=16).largest_free_k == 295 // 16
    assert roofline_curve(model, gpu, n_gpu=8, B=16, T_bar=8192).largest_free_k > 295 // 16
    assert roofline_curve(model, gpu, n_gpu=1).t_pass[0] == pytest.approx(8 * base.t_pass[0])


def test_curve_validation():
    with pytest.raises(ValueError):
        roofline_curve(MODELS["gpt2"], GPUS["H100"], k_max=1)
    with pytest.raises(ValueError):
        roofline_curve(MODELS["gpt2"], GPUS["H100"], B=0)


def test_plot_draws_one_line_per_curve():
    ax = Figure().add_subplot()
    curves = [roofline_curve(MODELS[m], GPUS["H100"], k_max=512) for m in ("gpt2", "llama-3.1-8b")]
    plot_roofline(curves, ax, mark_knee=False)
    assert len(ax.get_lines()) == 2 and ax.get_xscale() == "log"


def test_widget_redraws_on_change():
    box = roofline_widget()
    controls, image, readout = box.children
    model_box, gpu_box = controls.children[0].children
    n_gpu_box, batch_box, context_box = controls.children[1].children
    assert bytes(image.value)[:4] == b"\x89PNG" and "k = 295<" in readout.value
    before = bytes(image.value)
    batch_box.value = 64
    assert bytes(image.value) != before and "k = 4<" in readout.value
    gpu_box.value = "H200"
    model_box.value = "gpt2"
    context_box.value = 4096
    assert "ms" in readout.value
