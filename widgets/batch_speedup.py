"""The batch/context speedup curve: does speculation still pay at this batch and this context?

For a target model on `n_gpu` GPUs, a one-layer drafter sized as a share of the target's
parameters, a draft length `gamma` and an i.i.d. acceptance `alpha`, the curve is
`specdec.batch_speedup.speedup_at_batch` against the batch size B (log axis), with the
break-even line S = 1, the three regimes of chapter 06 shaded (verification free; falling; plain
decoding compute-bound too), a marker where the fall begins, and the batches that do not fit in
memory greyed out. The readout gives the speedup, the regime, the limiting resource and the cost
of the verification pass at the batch the reader picks. A mixture of experts (DeepSeek-V3) is
priced by the experts each pass touches (`specdec.moe.pass_time`, uniform routing), not by all
of its weights.

`batch_speedup_curve` computes everything (pure, no display); `batch_speedup_widget` returns an
ipywidgets box whose figure is built once: an update only changes the artists' data and
re-renders the PNG. `benchmark_update` times one update against a bare redraw of the same figure.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> curve = batch_speedup_curve(MODELS["llama-3.1-8b"], GPUS["H100"], T_bar=64, gamma=3, alpha=0.8)
    >>> round(curve.speedup_at(64), 2), curve.regime_at(64), round(curve.fall_batch, 1)
    (2.49, 1, 76.6)
"""
from __future__ import annotations

import io
import math
import time
from dataclasses import dataclass, field

import numpy as np

from specdec.batch_speedup import (MAX_CONTEXT, REGIMES, critical_context, drafter_cost_ratio,
                                   max_batch_in_memory, one_layer_drafter, speedup_at_batch)
from specdec.cost_model import step_cost
from specdec.hardware import GPU, GPUS
from specdec.model_specs import MODELS, ModelSpec
from specdec.moe import model_fall_batch, model_regime, pass_time

B_MAX = 4096
BATCH_SLIDER_WIDTH = "720px"
DEFAULT_DRAFTER_SHARE = 100 * 0.5e9 / MODELS["llama-3.1-8b"].n_active   # the 0.5B drafter of chapter 06, in %
# Green, amber, violet: far apart in hue and in lightness, so regimes 2 and 3 never look alike.
REGIME_COLORS = {1: "#2CA02C", 2: "#F2B600", 3: "#7B3FBF"}
REGIME_ALPHA = 0.18
MOE_REGIME_1 = "memory-bound (verification reads more experts: not free)"


@dataclass(frozen=True)
class BatchCurve:
    """Speedup against batch size for one setting, and where it changes regime."""

    B: np.ndarray                # shape (n,), increasing integers 1..B_MAX
    speedup: np.ndarray          # shape (n,)
    regime: np.ndarray           # shape (n,), 1, 2 or 3
    fall_batch: float            # regime 1 up to here (inf: at every batch)
    compute_batch: float         # plain decoding compute-bound from here (inf: never)
    critical_context: float      # T_c(gamma + 1), tokens (inf: never)
    max_batch: int               # sequences that fit beside target and drafter weights
    label: str
    model: ModelSpec = field(repr=False)
    gpu: GPU = field(repr=False)
    n_gpu: int = 1
    T_bar: float = 0.0
    gamma: int = 1
    alpha: float = 0.0
    drafter: ModelSpec | None = field(default=None, repr=False)

    def speedup_at(self, B: int) -> float:
        return float(speedup_at_batch(self.model, self.gpu, B, self.T_bar, self.gamma, self.alpha,
                                      self.drafter, self.n_gpu))

    def regime_at(self, B: int) -> int:
        return int(model_regime(self.model, self.gpu, B, self.gamma, self.T_bar, self.n_gpu))

    def verification_cost(self, B: int) -> float:
        """The target's pass over gamma + 1 tokens per sequence, in plain steps."""
        return float(pass_time(self.model, self.gpu, B, self.gamma + 1, self.T_bar, self.n_gpu)
                     / pass_time(self.model, self.gpu, B, 1, self.T_bar, self.n_gpu))

    def limiting_resource(self, B: int) -> str:
        cost = step_cost(self.model, self.gpu, self.n_gpu, self.T_bar)
        reg = self.regime_at(B)
        if reg == 1:
            weights = "expert and shared weight reads" if self.model.is_moe else "weight reads"
            return f"memory bandwidth: {weights if cost.t_W >= B * cost.t_K else 'KV-cache reads'}"
        if reg == 2:
            return "arithmetic of the verification pass (plain decoding still waits on memory)"
        return "arithmetic, for plain decoding and verification alike"


def batch_speedup_curve(model: ModelSpec, gpu: GPU, T_bar: float, gamma: int, alpha: float,
                        drafter_share: float = DEFAULT_DRAFTER_SHARE, n_gpu: int = 1,
                        n_points: int = 160) -> BatchCurve:
    """The curve for one setting. `drafter_share` is the drafter's size in % of the target's active
    parameters (0 = a free drafter). Raises ValueError for settings the model cannot take."""
    if not (isinstance(T_bar, (int, float, np.integer, np.floating)) and math.isfinite(T_bar) and T_bar >= 1):
        raise ValueError(f"the context must be at least 1 token, got {T_bar!r}")
    key = next((k for k, m in MODELS.items() if m == model), None)
    limit = MAX_CONTEXT.get(key)
    if limit is not None and T_bar > limit:
        raise ValueError(f"{model.name} supports at most {limit:,} tokens of context; {T_bar:,.0f} is longer")
    if not (0 <= drafter_share < 100):
        raise ValueError(f"the drafter's share of the target must be in [0, 100) %, got {drafter_share}")
    drafter = None if drafter_share == 0 else one_layer_drafter(model, drafter_share / 100 * model.n_active)
    if model.weight_bytes + (drafter.weight_bytes if drafter else 0) > n_gpu * gpu.memory:
        raise ValueError(f"{model.name}'s weights ({model.weight_bytes / 1e9:.0f} GB) do not fit in "
                         f"{n_gpu}×{gpu.name} ({n_gpu * gpu.memory / 1e9:.0f} GB): use more GPUs")
    fall = model_fall_batch(model, gpu, T_bar, gamma + 1, n_gpu)
    compute = model_fall_batch(model, gpu, T_bar, 1, n_gpu)
    grid = np.round(np.geomspace(1, B_MAX, n_points))
    extra = [math.floor(b) + d for b in (fall, compute) if math.isfinite(b) and b < B_MAX for d in (0, 1)]
    B = np.unique(np.concatenate([grid, np.clip(extra, 1, B_MAX)]).astype(np.int64))      # (n,)
    return BatchCurve(
        B=B,
        speedup=np.asarray(speedup_at_batch(model, gpu, B, T_bar, gamma, alpha, drafter, n_gpu)),
        regime=np.asarray(model_regime(model, gpu, B, gamma, T_bar, n_gpu)),
        fall_batch=fall,
        compute_batch=compute,
        critical_context=critical_context(model, gpu, gamma + 1),
        max_batch=max_batch_in_memory(model, gpu, T_bar, drafter, n_gpu),
        label=f"{model.name}, {n_gpu}×{gpu.name}, T̄={T_bar:,.0f}, γ={gamma}, α={alpha:g}",
        model=model, gpu=gpu, n_gpu=n_gpu, T_bar=float(T_bar), gamma=gamma, alpha=float(alpha), drafter=drafter,
    )


class _Plot:
    """A figure built once; `show(curve, B)` changes the artists' data only."""

    def __init__(self):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle
        from matplotlib.ticker import FuncFormatter

        self.fig = Figure(figsize=(8.0, 5.0), dpi=90)
        FigureCanvasAgg(self.fig)
        ax = self.ax = self.fig.add_subplot()
        ax.set_xscale("log", base=2)
        ax.set_xlim(1, B_MAX)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.set_xlabel("batch size B (sequences decoded together)")
        ax.set_ylabel("speedup over plain decoding")
        ax.grid(True, which="major", alpha=0.3)
        trans = ax.get_xaxis_transform()                     # x in data, y in axes fraction
        self.spans = {r: ax.add_patch(Rectangle((1, 0), 1, 1, transform=trans, color=REGIME_COLORS[r],
                                                alpha=REGIME_ALPHA, lw=0, label=REGIMES[r]))
                      for r in (1, 2, 3)}
        self.no_fit = ax.add_patch(Rectangle((B_MAX, 0), 0, 1, transform=trans, facecolor="0.6", alpha=0.4,
                                             hatch="//", lw=0, label="batches that do not fit in memory"))
        self.break_even = ax.axhline(1.0, color="k", lw=1.2, ls="--", label="break-even S = 1")
        (self.line,) = ax.plot([], [], color="#4C72B0", lw=2.2, label="speedup S(B)")
        (self.fall_line,) = ax.plot([], [], color="#B07F00", ls=":", lw=1.5)
        (self.fall_dot,) = ax.plot([], [], "o", color="#B07F00", ms=7, label="the fall begins")
        (self.pick,) = ax.plot([], [], "D", color="k", ms=7, label="your batch")
        self.pick_text = ax.annotate("", (1, 1), textcoords="offset points", xytext=(8, 8), fontsize=9,
                                     bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85))
        self.title = ax.set_title("", fontsize=10)
        self.fig.subplots_adjust(left=0.08, right=0.96, top=0.88, bottom=0.27)
        self.legend = self.fig.legend(handles=[*self.spans.values(), self.no_fit, self.break_even, self.line, self.fall_dot, self.pick],
                        loc="lower center", ncol=3, fontsize=8, frameon=False)

    def show(self, curve: BatchCurve | None, B: int) -> None:
        if curve is None:
            self.line.set_data([], [])
            for artist in (self.fall_dot, self.fall_line, self.pick):
                artist.set_data([], [])
            self.pick_text.set_text("")
            for span in self.spans.values():
                span.set_width(0)
            self.no_fit.set_width(0)
            self.title.set_text("no curve for this setting (see the message below)")
            return
        self.line.set_data(curve.B, curve.speedup)
        self.legend.get_texts()[0].set_text(MOE_REGIME_1 if curve.model.is_moe else REGIMES[1])
        edges = [1.0, min(curve.fall_batch, B_MAX), min(curve.compute_batch, B_MAX), float(B_MAX)]
        for r in (1, 2, 3):
            lo, hi = edges[r - 1], max(edges[r - 1], edges[r])
            self.spans[r].set_x(lo)
            self.spans[r].set_width(hi - lo)
        start = max(curve.max_batch + 0.5, 1.0)
        self.no_fit.set_x(min(start, B_MAX))
        self.no_fit.set_width(max(B_MAX - start, 0.0))
        top = max(1.6, float(curve.speedup.max()) * 1.15)
        self.ax.set_ylim(0, top)
        if math.isfinite(curve.fall_batch) and curve.fall_batch <= B_MAX:
            s_fall = curve.speedup_at(max(curve.fall_batch, 1.0))
            self.fall_dot.set_data([curve.fall_batch], [s_fall])
            self.fall_line.set_data([curve.fall_batch] * 2, [0, top])
        else:
            self.fall_dot.set_data([], [])
            self.fall_line.set_data([], [])
        s_pick = curve.speedup_at(B)
        self.pick.set_data([B], [s_pick])
        self.pick_text.xy = (B, s_pick)
        self.pick_text.set_text(f"B={B}: {s_pick:.2f}×")
        right_half = math.log2(B) > 0.5 * math.log2(B_MAX)       # keep the label inside the axes
        self.pick_text.set_position((-8, 8) if right_half else (8, 8))
        self.pick_text.set_horizontalalignment("right" if right_half else "left")
        t_c = "never (attention alone is compute-bound)" if math.isinf(curve.critical_context) \
            else f"{curve.critical_context:,.0f} tokens"
        self.title.set_text(f"{curve.label}\ncritical context T̄c(γ+1) = {t_c}")

    def png(self) -> bytes:
        buffer = io.BytesIO()
        self.fig.canvas.print_png(buffer)
        return buffer.getvalue()


def _readout(curve: BatchCurve, B: int) -> str:
    s = curve.speedup_at(B)
    fall = "at every batch" if math.isinf(curve.fall_batch) else f"up to B ≈ {curve.fall_batch:,.1f}"
    c_txt = ""
    if curve.drafter is not None:
        c = float(drafter_cost_ratio(curve.model, curve.drafter, curve.gpu, B, curve.T_bar, curve.n_gpu))
        c_txt = f"; drafter step = {c:.3f} of a target step"
    verdict = "faster" if s > 1 else "slower"
    reg = curve.regime_at(B)
    name = MOE_REGIME_1 if (reg == 1 and curve.model.is_moe) else REGIMES[reg]
    free = f"the pass stays memory-bound {fall}" if curve.model.is_moe else f"verification is free {fall}"
    moe = ""
    if curve.model.is_moe:
        moe = ("<br>mixture of experts: each pass reads the shared weights and the experts its tokens touch "
               "(uniform routing; real routing touches fewer, so the speedup shown errs low)")
    return (f"at <b>B = {B}</b>: speedup <b>{s:.2f}×</b> ({verdict} than plain decoding); "
            f"regime: <b>{name}</b>; limiting resource: {curve.limiting_resource(B)}"
            f"{c_txt}; the verification pass costs {curve.verification_cost(B):.2f} plain steps."
            f"<br>{free}; at most {curve.max_batch:,} sequences of "
            f"{curve.T_bar:,.0f} tokens fit beside the weights.{moe}")


class BatchSpeedupWidget:
    """Holds the controls, the figure and the state; `.box` is the ipywidgets VBox to display."""

    def __init__(self, models: dict[str, ModelSpec] | None = None, gpus: dict[str, GPU] | None = None):
        import ipywidgets as w

        self.models = MODELS if models is None else models
        self.gpus = GPUS if gpus is None else gpus
        style = {"description_width": "initial"}
        self.model = w.Dropdown(options=[(m.name, k) for k, m in self.models.items()],
                                value="llama-3.1-8b" if "llama-3.1-8b" in self.models else next(iter(self.models)),
                                description="model")
        self.gpu = w.Dropdown(options=list(self.gpus), value="H100" if "H100" in self.gpus else next(iter(self.gpus)),
                              description="GPU")
        self.n_gpu = w.Dropdown(options=[1, 2, 4, 8], value=1, description="GPUs")
        self.context = w.FloatLogSlider(value=64, base=2, min=6, max=17, step=0.25, description="context T̄",
                                        readout_format=".0f", continuous_update=False, style=style)
        self.gamma = w.IntSlider(value=3, min=1, max=12, description="γ", continuous_update=False)
        self.alpha = w.FloatSlider(value=0.8, min=0.0, max=0.99, step=0.01, description="α", continuous_update=False)
        self.drafter = w.FloatSlider(value=DEFAULT_DRAFTER_SHARE, min=0.0, max=25.0, step=0.1, readout_format=".1f",
                                     description="drafter size (% of target)", continuous_update=False, style=style)
        # A log-scale slider across the whole row, so one doubling of B is about 1/12 of its track
        # (some 50 px) and a step is an eighth of a doubling.
        self.batch = w.FloatLogSlider(value=64, base=2, min=0, max=12, step=0.125, readout_format=".0f",
                                      description="your batch B", continuous_update=False, style=style,
                                      layout=w.Layout(width=BATCH_SLIDER_WIDTH))
        self.image = w.Image(format="png", layout=w.Layout(width="720px"))
        self.readout = w.HTML()
        self.message = w.HTML()
        self.plot = _Plot()
        self.curve: BatchCurve | None = None
        self.state: dict = {}
        self.controls = [self.model, self.gpu, self.n_gpu, self.context, self.gamma, self.alpha, self.drafter,
                         self.batch]
        for box in self.controls:
            box.observe(self.update, names="value")
        self.box = w.VBox([w.HBox([self.model, self.gpu, self.n_gpu]),
                           self.context, self.batch,
                           w.HBox([self.gamma, self.alpha, self.drafter]),
                           self.image, self.readout, self.message])
        self.update()

    @property
    def chosen_batch(self) -> int:
        return int(round(self.batch.value))

    def update(self, _change=None) -> None:
        B = self.chosen_batch
        try:
            curve = batch_speedup_curve(self.models[self.model.value], self.gpus[self.gpu.value],
                                        T_bar=round(self.context.value), gamma=self.gamma.value,
                                        alpha=self.alpha.value, drafter_share=self.drafter.value,
                                        n_gpu=self.n_gpu.value)
        except ValueError as err:
            self.curve = None
            self.plot.show(None, B)
            self.readout.value = ""
            self.message.value = f"<span style='color:#C44E52'>⚠ {err}</span>"
            self.state = {"message": str(err)}
            self.image.value = self.plot.png()
            return
        self.curve = curve
        self.plot.show(curve, B)
        fits = B <= curve.max_batch
        self.readout.value = _readout(curve, B)
        self.message.value = "" if fits else (
            f"<span style='color:#C44E52'>⚠ a batch of {B} does not fit: the caches of at most "
            f"{curve.max_batch:,} sequences of {curve.T_bar:,.0f} tokens fit; use more GPUs or a shorter context</span>")
        self.state = {
            "model_is_moe": curve.model.is_moe,
            "B": curve.B, "speedup": curve.speedup, "regime": curve.regime,
            "fall_batch": curve.fall_batch, "compute_batch": curve.compute_batch,
            "critical_context": curve.critical_context, "max_batch": curve.max_batch,
            "chosen": {"B": B, "speedup": curve.speedup_at(B), "regime": curve.regime_at(B),
                       "verification_cost": curve.verification_cost(B),
                       "resource": curve.limiting_resource(B), "fits": fits},
            "message": "" if fits else "does not fit",
        }
        self.image.value = self.plot.png()


def batch_speedup_widget(models: dict[str, ModelSpec] | None = None,
                         gpus: dict[str, GPU] | None = None) -> BatchSpeedupWidget:
    """Build the widget; display `widget.box` in a notebook (`display(widget.box)`)."""
    return BatchSpeedupWidget(models, gpus)


def benchmark_update(repeats: int = 5) -> tuple[float, float]:
    """(update_s, redraw_s): median seconds of one widget update (change γ, recompute the curve,
    move the artists, render the PNG) and of a bare matplotlib redraw of the same figure to PNG."""
    widget = BatchSpeedupWidget()
    updates, redraws = [], []
    for i in range(repeats):
        start = time.perf_counter()
        widget.gamma.value = 3 + (i % 2) + 1 if widget.gamma.value == 3 else 3
        updates.append(time.perf_counter() - start)
        start = time.perf_counter()
        widget.plot.png()
        redraws.append(time.perf_counter() - start)
    return float(np.median(updates)), float(np.median(redraws))
