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

`batch_speedup_curve` computes everything (pure, no display) and is the reference;
`batch_speedup_widget` returns a live widget whose front end (`batch_speedup.js`, maths in
`batch_speedup_math.js`, a port tested against this module) draws the figure in SVG and recomputes
it in the browser, in JupyterLab and in the book alike. Hover the plot to read the speedup at any
batch; click it to make that batch yours. `benchmark_update` times the Python side of an update.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> curve = batch_speedup_curve(MODELS["llama-3.1-8b"], GPUS["H100"], T_bar=64, gamma=3, alpha=0.8)
    >>> round(curve.speedup_at(64), 2), curve.regime_at(64), round(curve.fall_batch, 1)
    (2.49, 1, 76.6)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import traitlets

from specdec.batch_speedup import (MAX_CONTEXT, REGIMES, critical_context, drafter_cost_ratio,
                                   max_batch_in_memory, one_layer_drafter, speedup_at_batch)
from specdec.cost_model import step_cost
from specdec.hardware import GPU, GPUS
from specdec.model_specs import MODELS, ModelSpec
from specdec.moe import model_fall_batch, model_regime, pass_time
from widgets.catalogue_view import CatalogueView, catalogue_data
from widgets.live import Control, Text, es_module

B_MAX = 4096
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


def widget_data(models: dict[str, ModelSpec], gpus: dict[str, GPU]) -> dict:
    """What the page computes from, taken from `specdec` (never copied into the JS by hand)."""
    return {
        **catalogue_data(models, gpus),
        "max_context": {k: MAX_CONTEXT[k] for k in models if k in MAX_CONTEXT},
        "regimes": {str(r): name for r, name in REGIMES.items()},
        "moe_regime_1": MOE_REGIME_1,
        "regime_colors": {str(r): c for r, c in REGIME_COLORS.items()},
        "regime_alpha": REGIME_ALPHA,
        "n_gpu_options": [1, 2, 4, 8],
    }


class BatchSpeedupView(CatalogueView):
    """The synced state of the figure (model, GPU and GPU count from `CatalogueView`);
    `widgets/batch_speedup.js` draws it in the page."""

    _esm = es_module("batch_speedup.js")
    context = traitlets.Float(64.0).tag(sync=True)          # tokens; the slider moves log2 of it
    gamma = traitlets.Int(3).tag(sync=True)
    alpha = traitlets.Float(0.8).tag(sync=True)
    drafter_share = traitlets.Float(DEFAULT_DRAFTER_SHARE).tag(sync=True)
    batch = traitlets.Float(64.0).tag(sync=True)            # sequences; the slider moves log2 of it


class BatchSpeedupWidget:
    """The live widget and its Python reference: `.box` is what the notebook displays; every
    control change (in the page or from Python) recomputes `curve`, `state`, `readout` and
    `message` with `batch_speedup_curve`, which the tests compare with what the page shows."""

    def __init__(self, models: dict[str, ModelSpec] | None = None, gpus: dict[str, GPU] | None = None):
        self.models = MODELS if models is None else models
        self.gpus = GPUS if gpus is None else gpus
        view = self.box = BatchSpeedupView(
            data=widget_data(self.models, self.gpus),
            model_key="llama-3.1-8b" if "llama-3.1-8b" in self.models else next(iter(self.models)),
            gpu_key="H100" if "H100" in self.gpus else next(iter(self.gpus)))
        self.model = Control(view, "model_key", "model", options=[(m.name, k) for k, m in self.models.items()])
        self.gpu = Control(view, "gpu_key", "GPU", options=list(self.gpus))
        self.n_gpu = Control(view, "n_gpu", "GPUs", options=[1, 2, 4, 8])
        self.context = Control(view, "context", "context T̄", min=2 ** 6, max=2 ** 17, log_step=0.25)
        self.gamma = Control(view, "gamma", "γ", min=1, max=12, step=1)
        self.alpha = Control(view, "alpha", "α", min=0.0, max=0.99, step=0.01)
        self.drafter = Control(view, "drafter_share", "drafter size (% of target)", min=0.0, max=25.0, step=0.1)
        self.batch = Control(view, "batch", "your batch B", min=1, max=B_MAX, log_step=0.125)
        self.controls = [self.model, self.gpu, self.n_gpu, self.context, self.gamma, self.alpha, self.drafter,
                         self.batch]
        self.readout, self.message = Text(), Text()
        self.curve: BatchCurve | None = None
        self.state: dict = {}
        view.observe(self.update, names=[c.trait for c in self.controls])
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
            self.readout.value = ""
            self.message.value = f"⚠ {err}"
            self.state = {"message": str(err)}
            return
        self.curve = curve
        fits = B <= curve.max_batch
        self.readout.value = _readout(curve, B)
        self.message.value = "" if fits else (
            f"⚠ a batch of {B} does not fit: the caches of at most "
            f"{curve.max_batch:,} sequences of {curve.T_bar:,.0f} tokens fit; use more GPUs or a shorter context")
        self.state = {
            "model_is_moe": curve.model.is_moe,
            "regime_1_name": MOE_REGIME_1 if curve.model.is_moe else REGIMES[1],
            "B": curve.B, "speedup": curve.speedup, "regime": curve.regime,
            "fall_batch": curve.fall_batch, "compute_batch": curve.compute_batch,
            "critical_context": curve.critical_context, "max_batch": curve.max_batch,
            "chosen": {"B": B, "speedup": curve.speedup_at(B), "regime": curve.regime_at(B),
                       "verification_cost": curve.verification_cost(B),
                       "resource": curve.limiting_resource(B), "fits": fits},
            "message": "" if fits else "does not fit",
        }


def batch_speedup_widget(models: dict[str, ModelSpec] | None = None,
                         gpus: dict[str, GPU] | None = None) -> BatchSpeedupWidget:
    """Build the widget; display `widget.box` in a notebook (`display(widget.box)`)."""
    return BatchSpeedupWidget(models, gpus)


def benchmark_update(repeats: int = 5) -> tuple[float, float]:
    """(update_s, curve_s): median seconds of one Python-side update after a control change (the
    reference curve and readout; the page redraws by itself) and of `batch_speedup_curve` alone."""
    widget = BatchSpeedupWidget()
    updates, curves = [], []
    for i in range(repeats):
        start = time.perf_counter()
        widget.gamma.value = 4 + i % 2
        updates.append(time.perf_counter() - start)
        start = time.perf_counter()
        batch_speedup_curve(MODELS["llama-3.1-8b"], GPUS["H100"], 64, 4 + i % 2, 0.8)
        curves.append(time.perf_counter() - start)
    return float(np.median(updates)), float(np.median(curves))
