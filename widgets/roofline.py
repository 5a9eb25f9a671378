"""The roofline of a verification pass: t_pass(B, k) against k, for any model and GPU.

Symbols as in `specdec.cost_model`: `t_pass(B, k) = max(t_W + B t_K, k B t_F) + t_0`.
The curve is flat while the pass is memory-bound (checking more tokens adds arithmetic,
not bytes), bends at the knee `k* = (t_W + B t_K) / (B t_F)` and then rises with slope
`B t_F` per extra token.

`roofline_curve` computes a curve (pure, no display), `plot_roofline` draws curves on a
matplotlib Axes, and `roofline_widget` returns an ipywidgets box with dropdowns for the
model and the GPU and sliders for n_gpu, the batch B and the context T_bar.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> c = roofline_curve(MODELS["llama-3.1-8b"], GPUS["H100"], k_max=1024)
    >>> c.largest_free_k, round(c.knee_k, 1)
    (295, 295.2)
    >>> bool(np.ptp(c.t_pass[c.k <= 295]) == 0)      # flat up to the knee
    True
    >>> round(c.slope * 1e3, 4)                     # ms per extra token past the knee
    0.0162
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from specdec.cost_model import step_cost
from specdec.hardware import GPU, GPUS
from specdec.model_specs import MODELS, ModelSpec


@dataclass(frozen=True)
class RooflineCurve:
    """One curve: pass times (seconds) at integer draft sizes `k`, and where it bends."""

    label: str
    k: np.ndarray            # shape (n,), increasing integers from 1 to k_max
    t_pass: np.ndarray       # shape (n,), seconds
    memory_time: float       # t_W + B t_K + t_0, the flat part, seconds
    knee_k: float            # where the two branches meet
    largest_free_k: int      # largest integer k on the flat part
    slope: float             # B t_F, seconds per extra token past the knee
    B: int
    T_bar: float


def roofline_curve(model: ModelSpec, gpu: GPU, n_gpu: int = 1, B: int = 1, T_bar: float = 0.0,
                   k_max: int = 4096, n_points: int = 300, t_0: float = 0.0) -> RooflineCurve:
    """t_pass(B, k) at about `n_points` log-spaced integers k in [1, k_max] (the knee included)."""
    if isinstance(k_max, bool) or not isinstance(k_max, (int, np.integer)) or k_max < 2:
        raise ValueError(f"k_max must be an integer >= 2, got {k_max!r}")
    if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)) or n_points < 2:
        raise ValueError(f"n_points must be an integer >= 2, got {n_points!r}")
    cost = step_cost(model, gpu, n_gpu, T_bar, t_0)
    knee = float(cost.knee_k(B))
    free = cost.largest_free_k(B)
    grid = np.round(np.geomspace(1, k_max, n_points))                      # shape (n_points,)
    extra = [v for v in (free, free + 1) if 1 <= v <= k_max]               # make the bend sharp
    k = np.unique(np.concatenate([grid, extra]).astype(np.int64))          # shape (n,)
    return RooflineCurve(
        label=f"{model.name}, {n_gpu}×{gpu.name}, B={B}, T̄={T_bar:g}",
        k=k,
        t_pass=np.asarray(cost.t_pass(B, k)),
        memory_time=float(cost.memory_time(B)) + cost.t_0,
        knee_k=knee,
        largest_free_k=free,
        slope=B * cost.t_F,
        B=B,
        T_bar=float(T_bar),
    )


def plot_roofline(curves, ax, mark_knee: bool = True, label_knee: bool = True, unit: float = 1e-3):
    """Draw `curves` (RooflineCurve or a list of them) on `ax`: time (ms) against k, log-log.

    `mark_knee` draws a dot and a dotted line at each knee; `label_knee` also writes its value.
    """
    if isinstance(curves, RooflineCurve):
        curves = [curves]
    for i, curve in enumerate(curves):
        color = f"C{i}"
        ax.plot(curve.k, curve.t_pass / unit, color=color, lw=2, label=curve.label)
        if mark_knee and curve.knee_k <= curve.k[-1]:
            ax.axvline(curve.knee_k, color=color, ls=":", lw=1)
            ax.plot([curve.knee_k], [curve.memory_time / unit], "o", color=color, ms=6)
        if mark_knee and label_knee and curve.knee_k <= curve.k[-1]:
            ax.annotate(f"knee k ≈ {curve.knee_k:.0f}", (curve.knee_k, curve.memory_time / unit),
                        textcoords="offset points", xytext=(-8, 8), ha="right", color=color, fontsize=9)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _pos: f"{v:g}")
    ax.xaxis.set_major_formatter(plain)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("tokens checked per sequence in one pass, k")
    ax.set_ylabel("time of the pass (ms)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    return ax


def _render_png(curve: RooflineCurve) -> bytes:
    import io

    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 4.2), dpi=90)
    ax = fig.add_subplot()
    plot_roofline(curve, ax)
    ax.axvspan(1, max(curve.largest_free_k, 1), color="C2", alpha=0.08)
    ax.set_title(f"flat (free) up to k = {curve.largest_free_k}; "
                 f"then +{curve.slope * 1e3:.4f} ms per extra token", fontsize=10)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def roofline_widget(models: dict[str, ModelSpec] | None = None, gpus: dict[str, GPU] | None = None,
                    k_max: int = 4096):
    """An ipywidgets VBox: controls on top, the roofline image and a one-line readout below.

    The image is a PNG rendered without pyplot, so it works under any matplotlib backend.
    """
    import ipywidgets as w

    models = MODELS if models is None else models
    gpus = GPUS if gpus is None else gpus
    model_box = w.Dropdown(options=[(m.name, key) for key, m in models.items()],
                           value=next(iter(models)), description="model")
    gpu_box = w.Dropdown(options=list(gpus), value=next(iter(gpus)), description="GPU")
    style = {"description_width": "initial"}
    n_gpu_box = w.IntSlider(value=1, min=1, max=8, description="n_gpu", continuous_update=False)
    batch_box = w.IntSlider(value=1, min=1, max=256, description="batch B", continuous_update=False)
    context_box = w.IntSlider(value=0, min=0, max=32768, step=256, description="context T̄",
                              continuous_update=False, style=style)
    image = w.Image(format="png", layout=w.Layout(width="675px"))
    readout = w.HTML()

    def redraw(_change=None):
        model, gpu = models[model_box.value], gpus[gpu_box.value]
        curve = roofline_curve(model, gpu, n_gpu_box.value, batch_box.value, context_box.value, k_max=k_max)
        image.value = _render_png(curve)
        readout.value = (f"one decode step: <b>{curve.t_pass[0] * 1e3:.3f} ms</b>; "
                         f"a pass stays at that cost up to <b>k = {curve.largest_free_k}</b> tokens per "
                         f"sequence ({curve.largest_free_k * batch_box.value} tokens per weight read)")

    for box in (model_box, gpu_box, n_gpu_box, batch_box, context_box):
        box.observe(redraw, names="value")
    redraw()
    controls = w.VBox([w.HBox([model_box, gpu_box]), w.HBox([n_gpu_box, batch_box, context_box])])
    return w.VBox([controls, image, readout])
