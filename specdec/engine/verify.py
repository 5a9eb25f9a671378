"""The target's half of a round for one sequence: the exact rule, greedy or sampled.

`p` (gamma + 1, V) are the target's processed rows along the drafts (the last one is the
bonus row), `q` (gamma, V) the rows the drafts were sampled from. Greedy decoding keeps each
draft while it equals the target's argmax and emits the argmax at the first mismatch (or the
argmax of the bonus row); it needs no randomness and reproduces plain greedy decoding.
Sampling uses the batched rule with a batch of one. Returns (emitted tokens, n_accepted).

    >>> import torch
    >>> p = torch.eye(4)[[2, 0, 3, 1]].float()               # target argmax 2, 0, 3, then bonus 1
    >>> verify_block(p, None, torch.tensor([2, 0, 1]), greedy=True)
    ([2, 0, 3], 2)
"""
from __future__ import annotations

import torch

from .batched import batched_verify


def verify_block(p: torch.Tensor, q: torch.Tensor | None, drafts: torch.Tensor, greedy: bool,
                 generator: torch.Generator | None = None) -> tuple[list[int], int]:
    """Emitted tokens (the kept drafts, then one more) and how many drafts were kept."""
    gamma = drafts.shape[0]
    if p.shape[0] != gamma + 1:
        raise ValueError(f"p must have gamma + 1 = {gamma + 1} rows for {gamma} drafts, got {p.shape[0]}")
    if greedy:
        best = p.argmax(dim=-1)                                              # (gamma + 1,)
        match = (drafts == best[:gamma]).long()                              # (gamma,)
        n = int(match.cumprod(0).sum())
        return [int(t) for t in drafts[:n]] + [int(best[n])], n
    tokens, n = batched_verify(p[None].double(), q[None].double(), drafts[None].long(), generator)
    n0 = int(n[0])
    return [int(t) for t in tokens[0, :n0 + 1]], n0
