"""Turn logits into the distribution a model samples from: temperature, top-k, top-p.

Exactness needs the *same* processing on both sides: the target's `p` and the draft's `q`
are both processed distributions, and `q` must be exactly the row the draft sampled from.
`temperature == 0` means greedy decoding: a one-hot row on the argmax (ties go to the lowest
token id, as `torch.argmax` does).

    >>> import torch
    >>> logits = torch.tensor([2.0, 1.0, 0.0, -1.0])
    >>> probs(logits, temperature=1.0, top_k=2).round(decimals=3)
    tensor([0.7310, 0.2690, 0.0000, 0.0000])
    >>> probs(logits, temperature=0.0)
    tensor([1., 0., 0., 0.])
    >>> probs(logits, temperature=1.0, top_p=0.7).round(decimals=3)      # the top token alone has 0.64
    tensor([0.7310, 0.2690, 0.0000, 0.0000])
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Sampling:
    """How both models turn logits into a distribution. temperature 0 = greedy."""

    temperature: float = 1.0
    top_k: int = 0          # 0 = no top-k truncation
    top_p: float = 1.0      # 1.0 = no nucleus truncation

    def __post_init__(self):
        if not (isinstance(self.temperature, (int, float)) and self.temperature >= 0):
            raise ValueError(f"temperature must be a number >= 0, got {self.temperature!r}")
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 0:
            raise ValueError(f"top_k must be an integer >= 0 (0 = off), got {self.top_k!r}")
        if not (isinstance(self.top_p, (int, float)) and 0 < self.top_p <= 1):
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p!r}")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0


def probs(logits: torch.Tensor, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0) -> torch.Tensor:
    """Processed distribution along the last axis of `logits` (..., V), in float32 or wider.

    Order: divide by the temperature, keep the top_k largest logits, softmax, keep the smallest
    set of most likely tokens whose mass reaches top_p (the token that crosses top_p stays),
    renormalize. Returns a tensor of the same shape whose rows sum to 1.
    """
    s = Sampling(temperature, top_k, top_p)
    if logits.ndim == 0:
        raise ValueError("logits must have a vocabulary axis")
    z = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    V = z.shape[-1]
    if s.greedy:
        out = torch.zeros_like(z)                                            # (..., V)
        return out.scatter_(-1, z.argmax(dim=-1, keepdim=True), 1.0)
    z = z / s.temperature                                                    # (..., V)
    if 0 < s.top_k < V:
        kth = torch.topk(z, s.top_k, dim=-1).values[..., -1:]               # (..., 1)
        z = z.masked_fill(z < kth, float("-inf"))
    p = torch.softmax(z, dim=-1)                                             # (..., V)
    if s.top_p < 1.0:
        sorted_p, order = torch.sort(p, dim=-1, descending=True)             # (..., V)
        mass_before = torch.cumsum(sorted_p, dim=-1) - sorted_p              # (..., V) mass of better tokens
        drop_sorted = mass_before >= s.top_p                                  # the crossing token stays
        drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)  # (..., V) back to token order
        p = p.masked_fill(drop, 0.0)
        p = p / p.sum(dim=-1, keepdim=True)
    return p


def sample(p: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One token id per row of p (..., V), drawn with torch.multinomial; shape (...)."""
    if generator is not None and p.device != generator.device:
        p = p.to(generator.device)
    flat = p.reshape(-1, p.shape[-1])                                        # (rows, V)
    return torch.multinomial(flat, 1, generator=generator).reshape(p.shape[:-1])
