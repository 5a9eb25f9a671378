"""One forward pass of a causal LM over new tokens on top of its KV cache.

`forward(model, ids, cache)` feeds `ids` (1-D, the tokens the cache has not seen yet) and
returns the logits at every fed position and the grown cache. Prefill is the first call
(cache None, ids = the prompt); the draft's steps and the target's verification pass are
later calls. transformers renamed the cache argument across 5.x (`past_key_values` became
`cache`); this module asks the model's signature which name it takes, so the engine runs on
either side of the rename.

    >>> import torch
    >>> from transformers import GPT2Config, GPT2LMHeadModel
    >>> m = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=11, n_positions=32,
    ...                                bos_token_id=0, eos_token_id=0)).eval()
    >>> logits, cache = prefill(m, torch.tensor([1, 2, 3]))
    >>> tuple(logits.shape), cache_length(cache)
    ((3, 11), 3)
    >>> logits2, cache = forward(m, torch.tensor([4, 5]), cache)
    >>> tuple(logits2.shape), cache_length(cache)
    ((2, 11), 5)
"""
from __future__ import annotations

import inspect
import weakref

import torch

_CACHE_ARG: dict[type, str] = {}


def cache_argument(model) -> str:
    """'cache' or 'past_key_values': the name this model's forward takes its KV cache by."""
    cls = type(model)
    if cls not in _CACHE_ARG:
        params = inspect.signature(cls.forward).parameters
        _CACHE_ARG[cls] = "cache" if "cache" in params else "past_key_values"
    return _CACHE_ARG[cls]


_FIRST_PARAMETER: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def model_device(model) -> torch.device:
    """The model's device, read from its first parameter, which is located once per model.

    The owning submodule and the parameter's name are remembered, not the tensor: `model.to`
    may replace a Parameter object (as it does for 'meta'), and the lookup then finds the new
    one. Walking `model.parameters()` on every pass costs more than verifying a round.
    """
    where = _FIRST_PARAMETER.get(model)
    if where is None:
        name = next(name for name, _ in model.named_parameters())
        *path, leaf = name.split(".")
        where = _FIRST_PARAMETER[model] = (model.get_submodule(".".join(path)), leaf)
    owner, leaf = where
    return owner._parameters[leaf].device


def cache_length(cache) -> int:
    """How many tokens a KV cache holds (a Cache object or legacy ((k, v), ...) tuples)."""
    if cache is None:
        return 0
    if hasattr(cache, "get_seq_length"):
        return int(cache.get_seq_length())
    return int(cache[0][0].shape[-2])                                        # k: (batch, heads, T, head_dim)


def forward(model, ids: torch.Tensor, cache=None):
    """Feed `ids` (1-D, n >= 1 tokens) after `cache`; return (logits (n, V), cache)."""
    if ids.ndim != 1 or ids.numel() == 0:
        raise ValueError(f"ids must be a non-empty 1-D tensor of token ids, got shape {tuple(ids.shape)}")
    if not torch.is_inference_mode_enabled():                               # the engine's loops enter it once
        with torch.inference_mode():
            return forward(model, ids, cache)
    device = model_device(model)
    out = model(input_ids=ids.to(device)[None, :], use_cache=True, **{cache_argument(model): cache})
    keys = out.keys()
    new_cache = out["cache"] if "cache" in keys else out["past_key_values"]
    return out["logits"][0], new_cache                                       # (n, V)


def prefill(model, prompt: torch.Tensor):
    """The first pass: the whole prompt (1-D) into an empty cache; returns (logits (n, V), cache)."""
    return forward(model, prompt, None)
