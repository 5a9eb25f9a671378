"""Roll a KV cache back to the tokens that were committed.

After verification keeps n of gamma drafts, the target's cache holds entries for drafts that
were rejected, and the draft's cache for tokens that never made it into the text. Both must be
cut back to the committed prefix before the next round, or the next pass attends to tokens
that are not in the output.

transformers changed `DynamicCache.crop` across versions: in 4.x `crop(max_length)` keeps the
first max_length tokens (a negative value removes that many from the end); in 5.x it takes the
number of tokens to remove, as a negative count, and rejects positive values. A negative count
means "remove that many" in both, so `crop_cache` calls `cache.crop(-n_remove)`, checks the
result, and falls back to slicing the layers' tensors itself (and to slicing legacy tuples).

    >>> import torch
    >>> layer = (torch.zeros(1, 2, 5, 4), torch.zeros(1, 2, 5, 4))           # legacy (k, v) per layer
    >>> cut = crop_cache((layer, layer), 3)
    >>> tuple(cut[0][0].shape)
    (1, 2, 3, 4)
"""
from __future__ import annotations

from .prefill import cache_length
from ..checks import check_int


def _slice_layers(cache, n_keep: int) -> bool:
    layers = getattr(cache, "layers", None)
    if not layers or not all(hasattr(l, "keys") and hasattr(l, "values") for l in layers):
        return False
    for layer in layers:
        if getattr(layer, "keys", None) is not None and hasattr(layer.keys, "shape"):
            layer.keys = layer.keys[..., :n_keep, :]
            layer.values = layer.values[..., :n_keep, :]
    return True


def crop_cache(cache, n_keep: int):
    """Keep the first `n_keep` tokens of `cache`; returns the cropped cache (same object for Cache classes)."""
    length = cache_length(cache)
    check_int(n_keep, "n_keep", low=0, high=length,
              must=f"an integer in 0..{length} (the cache holds {length} tokens)")
    n_remove = length - n_keep
    if n_remove == 0:
        return cache
    if isinstance(cache, (tuple, list)):                                     # legacy ((k, v), ...) per layer
        return tuple(tuple(t[..., :n_keep, :] for t in layer) for layer in cache)
    if hasattr(cache, "crop"):
        try:
            cache.crop(-n_remove)
        except (TypeError, ValueError):
            pass
        if cache_length(cache) == n_keep:
            return cache
    if _slice_layers(cache, n_keep) and cache_length(cache) == n_keep:
        return cache
    raise ValueError(f"could not crop a {type(cache).__name__} from {length} to {n_keep} tokens")
