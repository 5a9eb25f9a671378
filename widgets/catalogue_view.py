"""What the two cost-model widgets (the roofline and the batch speedup) share: the model and GPU
catalogues as the page reads them, and the synced choice of model, GPU and number of GPUs.

Each widget's view subclasses `CatalogueView`, adding its `_esm` and the traits of its own controls;
its `widget_data` starts from `catalogue_data` and adds what only its page needs.

    >>> from specdec.hardware import GPUS
    >>> from specdec.model_specs import MODELS
    >>> data = catalogue_data(MODELS, GPUS)
    >>> sorted(data), data["gpu_options"] == list(GPUS)
    (['gpu_options', 'gpus', 'model_options', 'models'], True)
    >>> [name for name in ("data", "model_key", "gpu_key", "n_gpu") if CatalogueView.class_traits().get(name)]
    ['data', 'model_key', 'gpu_key', 'n_gpu']
"""
from __future__ import annotations

import dataclasses

import anywidget
import traitlets

from specdec.hardware import GPU
from specdec.model_specs import ModelSpec


def catalogue_data(models: dict[str, ModelSpec], gpus: dict[str, GPU]) -> dict:
    """Every field of every model and GPU, and the dropdowns' options, taken from `specdec` (never
    copied into the JS by hand)."""
    return {
        "models": {k: {f.name: getattr(m, f.name) for f in dataclasses.fields(m)} for k, m in models.items()},
        "gpus": {k: {f.name: getattr(g, f.name) for f in dataclasses.fields(g)} for k, g in gpus.items()},
        "model_options": [[m.name, k] for k, m in models.items()],
        "gpu_options": list(gpus),
    }


class CatalogueView(anywidget.AnyWidget):
    """Synced state of a cost-model widget: what its page computes from (`data`) and which model, GPU
    and number of GPUs are chosen. Never shown itself: a subclass names its front end (`_esm`)."""

    data = traitlets.Dict().tag(sync=True)
    model_key = traitlets.Unicode("llama-3.1-8b").tag(sync=True)
    gpu_key = traitlets.Unicode("H100").tag(sync=True)
    n_gpu = traitlets.Int(1).tag(sync=True)
