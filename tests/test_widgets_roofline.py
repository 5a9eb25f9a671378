"""Tests for widgets.roofline: the pure curve, the plot helper and the Python reference of the live explorer
(its controls, notes, refusals, hover text). The page's maths is tested in tests/test_widgets_js_roofline.py,
its drawing in tests/browser/test_live_roofline.py."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from specdec.cost_model import max_sequences, step_cost  # noqa: E402
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
    assert roofline_curve(model, gpu, n_gpu=1).knee_k == pytest.approx(base.knee_k), "GPUs do not move the knee"


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
    w = roofline_widget()
    view = w.box
    assert [c.description for c in w.controls] == ["model", "GPU", "GPUs", "batch B", "context T̄"]
    assert "k = 295<" in w.readout.value and w.title.value.startswith("flat (free) up to k = 295")
    before = w.state["t_pass"].copy()
    w.batch.value = 64
    assert not np.array_equal(w.state["t_pass"], before) and "k = 4<" in w.readout.value
    cost = step_cost(MODELS["llama-3.1-8b"], GPUS["H100"], 1, 0)
    assert w.state["largest_free_k"] == cost.largest_free_k(64) and w.state["slope"] == pytest.approx(64 * cost.t_F)
    w.gpu.value = "H200"
    w.model.value = "gpt2"
    w.context.value = 4096
    assert "ms" in w.readout.value and w.curve.label == "GPT-2, 1×H200, B=64, T̄=4096"
    want = step_cost(MODELS["gpt2"], GPUS["H200"], 1, 4096).t_pass(64, w.state["k"])
    assert np.allclose(w.state["t_pass"], want, rtol=1e-12)
    assert w.box is view, "an update must not rebuild the widget"
    assert (view.model_key, view.gpu_key, view.batch, view.context) == ("gpt2", "H200", 64, 4096)


def test_hover_reads_the_pass_time_at_any_k():
    w = roofline_widget()
    t_step = step_cost(MODELS["llama-3.1-8b"], GPUS["H100"]).t_step(1)
    assert w.hover_text(295) == f"k = 295: a pass takes {t_step * 1e3:.3f} ms, one decode step (free)"
    t = step_cost(MODELS["llama-3.1-8b"], GPUS["H100"]).t_pass(1, 1000)
    assert w.hover_text(1000) == f"k = 1000: a pass takes {t * 1e3:.3f} ms, {t / t_step:.2f} decode steps"


def test_notes_say_what_does_not_fit_and_what_the_model_leaves_out():
    w = roofline_widget()
    assert w.message.value == "" and w.state["notes"] == []
    w.model.value = "deepseek-v3"                               # 671 GB on one 80 GB H100
    assert "do not fit in 1×H100 (80 GB)" in w.message.value and "mixture of experts" in w.message.value
    w.n_gpu.value = 8
    w.gpu.value = "H200"                                        # 8 x 141 GB: the weights fit
    assert "do not fit" not in w.message.value and w.curve is not None
    w.model.value, w.n_gpu.value, w.batch.value, w.context.value = "llama-3.1-8b", 1, 256, 32768
    assert f"holds at most {max_sequences(MODELS['llama-3.1-8b'], GPUS['H200'], 1, 32768)}" in w.message.value
    w.context.value, w.gpu.value = 0, "A100"                    # 256 x 1 token: over the A100's ridge of 153
    assert w.state["largest_free_k"] == 0 and "compute-bound" in w.readout.value
    assert w.title.value.startswith("no flat part")


def test_bad_settings_show_python_s_message_not_a_traceback():
    w = roofline_widget()
    w.batch.value = 0
    assert w.curve is None and w.readout.value == "" and w.message.value.startswith("⚠ B must be >= 1")
    w.batch.value = 1
    w.gpu.value = "B200"
    assert "no GPU 'B200'" in w.message.value and w.curve is None
    w.gpu.value = "H100"
    assert w.curve is not None and w.message.value == ""


def test_the_page_gets_its_numbers_from_specdec():
    """The JS computes from the data the Python side sends, not from numbers copied into the JS."""
    w = roofline_widget()
    data = w.box.data
    assert data["models"]["llama-3.1-8b"]["n_params"] == MODELS["llama-3.1-8b"].n_params
    assert data["gpus"]["H100"]["flops_fp8"] == GPUS["H100"].flops_fp8
    assert data["ranges"]["batch"] == [w.batch.min, w.batch.max, w.batch.step]
    src = w.box._esm
    assert "export default" in src and 'from "./' not in src, "the ES module must load from one string"
    assert "989e12" not in src and "8.03e9" not in src, "GPU and model numbers must come from specdec"
