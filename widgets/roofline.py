"""The roofline of a verification pass: t_pass(B, k) against k, for any model and GPU.

Symbols as in `specdec.cost_model`: `t_pass(B, k) = max(t_W + B t_K, k B t_F) + t_0`.
The curve is flat while the pass is memory-bound (checking more tokens adds arithmetic,
not bytes), bends at the knee `k* = (t_W + B t_K) / (B t_F)` and then rises with slope
`B t_F` per extra token.

`roofline_curve` computes a curve (pure, no display) and is the reference; `plot_roofline` draws
curves on a matplotlib Axes (the chapter's static figures); `roofline_widget` returns the live
explorer: dropdowns for the model and the GPU, sliders for n_gpu, the batch B and the context T̄.
Its front end (`roofline.js`, maths in `roofline_math.js`, a port tested against this module) draws
the curve in SVG and recomputes it in the browser, in JupyterLab and in the book alike; hover the
plot to read the time of a pass at any k.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> c = roofline_curve(MODELS["llama-3.1-8b"], GPUS["H100"], k_max=1024)
    >>> c.largest_free_k, round(c.knee_k, 1)
    (295, 295.2)
    >>> bool(np.ptp(c.t_pass[c.k <= 295]) == 0)      # flat up to the knee
    True
    >>> round(c.slope * 1e3, 4)                     # ms per extra token past the knee
    0.0162
    >>> hover_text(c, 500)
    'k = 500: a pass takes 8.119 ms, 1.69 decode steps'
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import traitlets
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from specdec.cost_model import StepCost, max_sequences, step_cost
from specdec.hardware import GPU, GPUS
from specdec.model_specs import MODELS, ModelSpec
from widgets.catalogue_view import CatalogueView, catalogue_data
from widgets.live import Control, Text, es_module

K_MAX = 4096                  # the widget's k axis: 1 .. K_MAX tokens per sequence
N_POINTS = 300
# The sliders: (min, max, step). The page builds its sliders from these (sent in the widget's data).
RANGES = {"n_gpu": (1, 8, 1), "batch": (1, 256, 1), "context": (0, 32768, 256)}
FREE_COLOR, COMPUTE_COLOR = "#2CA02C", "#D62728"     # the flat (free) part, the compute-bound part


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
    cost: StepCost | None = field(default=None, repr=False)

    def time_at(self, k: int) -> float:
        """t_pass(B, k) in seconds, at any k (not only the grid's)."""
        return float(self.cost.t_pass(self.B, k))


def roofline_curve(model: ModelSpec, gpu: GPU, n_gpu: int = 1, B: int = 1, T_bar: float = 0.0,
                   k_max: int = K_MAX, n_points: int = N_POINTS, t_0: float = 0.0) -> RooflineCurve:
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
        cost=cost,
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
            # each curve's label a line higher: knees of nearby curves sit close on a narrow figure
            ax.annotate(knee_label(curve), (curve.knee_k, curve.memory_time / unit),
                        textcoords="offset points", xytext=(-8, 8 + 12 * i), ha="right", color=color, fontsize=9)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _pos: f"{v:g}")
    ax.xaxis.set_major_formatter(plain)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel(Y_LABEL)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=9, loc="upper left")
    return ax


# --- what the explorer writes (roofline_math.js writes the same, character for character) ---------

X_LABEL = "tokens checked per sequence in one pass, k"
Y_LABEL = "time of the pass (ms)"


def knee_label(curve: RooflineCurve) -> str:
    return f"knee k ≈ {curve.knee_k:.0f}"


def title(curve: RooflineCurve) -> str:
    """The figure's second title line: how far the pass is free, and what a token costs past it."""
    extra = f"+{curve.slope * 1e3:.4f} ms per extra token"
    if curve.largest_free_k == 0:
        return f"no flat part: {extra} from k = 1"
    return f"flat (free) up to k = {curve.largest_free_k}; then {extra}"


def readout(curve: RooflineCurve) -> str:
    """The line under the figure (HTML)."""
    step = f"one decode step: <b>{curve.t_pass[0] * 1e3:.3f} ms</b>; "
    free = curve.largest_free_k
    if free == 0:
        return (step + f"even one token per sequence is compute-bound at B = {curve.B}: every extra token "
                f"per sequence adds <b>{curve.slope * 1e3:.4f} ms</b>")
    return (step + f"a pass stays at that cost up to <b>k = {free}</b> tokens per sequence "
            f"({free * curve.B:,} tokens per weight read)")


def hover_text(curve: RooflineCurve, k: int) -> str:
    """What the figure says at the pointer: the pass over `k` tokens per sequence, in ms and steps."""
    t = curve.time_at(k)
    if k <= curve.largest_free_k:
        return f"k = {k}: a pass takes {t * 1e3:.3f} ms, one decode step (free)"
    return f"k = {k}: a pass takes {t * 1e3:.3f} ms, {t / curve.time_at(1):.2f} decode steps"


def roofline_notes(model: ModelSpec, gpu: GPU, n_gpu: int, B: int, T_bar: int) -> list[str]:
    """Caveats of a setting the cost model prices anyway: what does not fit, what it ignores."""
    notes = []
    memory = n_gpu * gpu.memory
    if model.weight_bytes > memory:
        notes.append(f"{model.name}'s weights ({model.weight_bytes / 1e9:,.0f} GB) do not fit in {n_gpu}×{gpu.name} "
                     f"({memory / 1e9:,.0f} GB): the times assume they did; add GPUs")
    elif T_bar > 0 and B > max_sequences(model, gpu, n_gpu, T_bar):
        notes.append(f"the caches of {B} sequences of {T_bar:,} tokens do not fit beside the weights: "
                     f"{n_gpu}×{gpu.name} holds at most {max_sequences(model, gpu, n_gpu, T_bar):,}; the times "
                     f"assume they did (fewer sequences, a shorter context or more GPUs)")
    if model.is_moe:
        notes.append(f"{model.name} is a mixture of experts: this chapter's model reads all "
                     f"{model.weight_bytes / 1e9:,.0f} GB of weights every pass; a real pass reads the shared "
                     f"weights and only the experts its tokens are routed to (chapter 06 prices that)")
    return notes


def explore(models: dict[str, ModelSpec], gpus: dict[str, GPU], model_key: str, gpu_key: str, n_gpu: int,
            B: int, T_bar: int, k_max: int = K_MAX) -> tuple[RooflineCurve, list[str]]:
    """The explorer's curve and notes for one setting of its controls; ValueError for one it refuses.

    >>> explore(MODELS, GPUS, "llama-3.1-8b", "B200", 1, 1, 0)
    Traceback (most recent call last):
    ...
    ValueError: no GPU 'B200' here; choose one of H100, H200, A100
    """
    if model_key not in models:
        raise ValueError(f"no model {model_key!r} here; choose one of {', '.join(models)}")
    if gpu_key not in gpus:
        raise ValueError(f"no GPU {gpu_key!r} here; choose one of {', '.join(gpus)}")
    model, gpu = models[model_key], gpus[gpu_key]
    curve = roofline_curve(model, gpu, n_gpu, B, T_bar, k_max=k_max)
    return curve, roofline_notes(model, gpu, n_gpu, B, T_bar)


# --- the live explorer ----------------------------------------------------------------------------

def widget_data(models: dict[str, ModelSpec], gpus: dict[str, GPU], k_max: int = K_MAX) -> dict:
    """What the page computes from, taken from `specdec` (never copied into the JS by hand)."""
    return {
        **catalogue_data(models, gpus),
        "ranges": {name: list(r) for name, r in RANGES.items()},
        "k_max": k_max, "n_points": N_POINTS,
        "x_label": X_LABEL, "y_label": Y_LABEL,
        "free_color": FREE_COLOR, "compute_color": COMPUTE_COLOR,
    }


class RooflineView(CatalogueView):
    """The synced state of the explorer (model, GPU and GPU count from `CatalogueView`);
    `widgets/roofline.js` draws it in the page."""

    _esm = es_module("roofline.js")
    batch = traitlets.Int(1).tag(sync=True)
    context = traitlets.Int(0).tag(sync=True)          # tokens


class RooflineWidget:
    """The live explorer and its Python reference: `.box` is what the notebook displays; every
    control change (in the page or from Python) recomputes `curve`, `state`, `readout`, `title` and
    `message` with `roofline_curve`, which the tests compare with what the page shows."""

    def __init__(self, models: dict[str, ModelSpec] | None = None, gpus: dict[str, GPU] | None = None,
                 k_max: int = K_MAX):
        self.models = MODELS if models is None else models
        self.gpus = GPUS if gpus is None else gpus
        self.k_max = k_max
        view = self.box = RooflineView(data=widget_data(self.models, self.gpus, k_max),
                                       model_key=next(iter(self.models)), gpu_key=next(iter(self.gpus)))
        self.model = Control(view, "model_key", "model", options=[(m.name, k) for k, m in self.models.items()])
        self.gpu = Control(view, "gpu_key", "GPU", options=list(self.gpus))
        self.n_gpu, self.batch, self.context = (
            Control(view, name, label, **dict(zip(("min", "max", "step"), RANGES[name])))
            for name, label in (("n_gpu", "GPUs"), ("batch", "batch B"), ("context", "context T̄")))
        self.controls = [self.model, self.gpu, self.n_gpu, self.batch, self.context]
        self.readout, self.title, self.message = Text(), Text(), Text()
        self.curve: RooflineCurve | None = None
        self.state: dict = {}
        view.observe(self.update, names=[c.trait for c in self.controls])
        self.update()

    def update(self, _change=None) -> None:
        try:
            curve, notes = explore(self.models, self.gpus, self.model.value, self.gpu.value, self.n_gpu.value,
                                   self.batch.value, self.context.value, self.k_max)
        except ValueError as err:
            self.curve = None
            self.readout.value = self.title.value = ""
            self.message.value = f"⚠ {err}"
            self.state = {"message": str(err)}
            return
        self.curve = curve
        self.readout.value, self.title.value = readout(curve), title(curve)
        self.message.value = "\n".join(f"⚠ {note}" for note in notes)
        self.state = {"k": curve.k, "t_pass": curve.t_pass, "memory_time": curve.memory_time,
                      "knee_k": curve.knee_k, "largest_free_k": curve.largest_free_k, "slope": curve.slope,
                      "label": curve.label, "notes": notes}

    def hover_text(self, k: int) -> str:
        """What the page writes when the pointer is over `k` tokens per sequence."""
        return hover_text(self.curve, k)


def roofline_widget(models: dict[str, ModelSpec] | None = None, gpus: dict[str, GPU] | None = None,
                    k_max: int = K_MAX) -> RooflineWidget:
    """Build the explorer; display `widget.box` in a notebook (`display(widget.box)`)."""
    return RooflineWidget(models, gpus, k_max)
