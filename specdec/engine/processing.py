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
    return process(logits, Sampling(temperature, top_k, top_p))


def process(logits: torch.Tensor, s: Sampling) -> torch.Tensor:
    """`probs` for an already checked `Sampling`: what the engine calls on every row it processes.

    Each step is skipped when it is the identity (temperature 1, top_k 0, top_p 1), so plain
    sampling costs one softmax over the rows it is given and nothing else.
    """
    if logits.ndim == 0:
        raise ValueError("logits must have a vocabulary axis")
    z = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    V = z.shape[-1]
    if s.greedy:
        out = torch.zeros_like(z)                                            # (..., V)
        return out.scatter_(-1, z.argmax(dim=-1, keepdim=True), 1.0)
    if s.temperature != 1:
        z = z / s.temperature                                                # (..., V)
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


def same_device(a, b) -> bool:
    """True when two devices name the same one ('cuda' and 'cuda:0' agree on the current GPU)."""
    a, b = torch.device(a), torch.device(b)
    if a.type != b.type:
        return False
    if a.index is None or b.index is None:
        current = torch.cuda.current_device() if a.type == "cuda" and torch.cuda.is_available() else 0
        return (a.index if a.index is not None else current) == (b.index if b.index is not None else current)
    return a.index == b.index


def check_generator(generator: torch.Generator | None, device) -> None:
    """Raise ValueError unless `generator` (if any) lives on `device`.

    PyTorch draws `torch.rand` and `torch.multinomial` on the generator's own device only, so
    the probabilities, the uniforms and the generator must sit together: the engine keeps p
    and q where the models are, and the caller makes the generator there. Moving rows of V
    probabilities to another device every round would cost a copy and a host sync each time.
    """
    if generator is not None and generator.device != device and not same_device(generator.device, device):
        raise ValueError(f"the generator is on {generator.device} but the models and their probabilities are on "
                         f"{torch.device(device)}: make it with torch.Generator(device={str(torch.device(device))!r})"
                         ".manual_seed(seed)")


def sample(p: torch.Tensor, generator: torch.Generator | None = None, u: torch.Tensor | None = None) -> torch.Tensor:
    """One token id per row of p (..., V) by inverse transform sampling; shape (...), on p's device.

    Token x is drawn when u * total falls in [cdf(x - 1), cdf(x)), u uniform on [0, 1): one
    uniform, a cumulative sum and a binary search per row. Rows need not be normalized (total =
    the row's sum). It replaces `torch.multinomial`, which on a CPU costs 70 microseconds for a
    row of 256 and about 3 ms for GPT-2's 50,257 (the inverse transform: 30 and 190). The result
    stays on p's device (no host sync); `generator` must be on that device too. `u` (shape (...))
    passes uniforms drawn beforehand (a caller that needs several draws makes them in one call).

        >>> sample(torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 3.0]])).tolist()
        [1, 2]
    """
    check_generator(generator, p.device)
    cdf = p.cumsum(dim=-1)                                                   # (..., V)
    total = cdf[..., -1:]                                                    # (..., 1)
    if u is None:
        u = torch.rand(total.shape, generator=generator, device=p.device, dtype=cdf.dtype)   # (..., 1)
    else:
        u = u.to(cdf.dtype).reshape(total.shape)
    x = torch.searchsorted(cdf, u * total, right=True)                       # (..., 1) first cdf above u * total
    last = (cdf < total).sum(dim=-1, keepdim=True)                           # (..., 1) the last token with p > 0
    return torch.minimum(x, last).squeeze(-1)                                # guards u * total rounding up to total
