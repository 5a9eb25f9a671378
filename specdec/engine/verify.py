"""The target's half of a round for one sequence: the exact rule, greedy or sampled.

`p` (gamma + 1, V) are the target's processed rows along the drafts (the last one is the
bonus row), `q` (gamma, V) the rows the drafts were sampled from, all on the models' device.
Greedy decoding keeps each draft while it equals the target's argmax and emits the argmax at
the first mismatch (or the argmax of the bonus row); it needs no randomness and reproduces
plain greedy decoding. Sampling uses the batched rule with a batch of one.

Returns (emitted tokens, n_accepted, alphas). The decision is made on the device; the result
crosses to the host once per round, in one transfer, because the batch-1 Python loop must
know how many tokens to commit (and where to crop the caches) before its next round: that
one sync is inherent to a loop driven from Python. With `with_alpha` the exact acceptance
probabilities alpha_i = sum_x min(p_i(x), q_i(x)) ride along in the same transfer.

    >>> import torch
    >>> p = torch.eye(4)[[2, 0, 3, 1]].float()               # target argmax 2, 0, 3, then bonus 1
    >>> verify_block(p, None, torch.tensor([2, 0, 1]), greedy=True)
    ([2, 0, 3], 2, None)
"""
from __future__ import annotations

import torch

from .batched import accept_and_extra
from .processing import check_generator, sample


def verify_block(p: torch.Tensor, q: torch.Tensor | None, drafts: torch.Tensor, greedy: bool,
                 generator: torch.Generator | None = None,
                 with_alpha: bool = False) -> tuple[list[int], int, list[float] | None]:
    """Emitted tokens (the kept drafts, then one more), how many drafts were kept, and alphas if asked."""
    gamma = drafts.shape[0]
    if p.shape[0] != gamma + 1:
        raise ValueError(f"p must have gamma + 1 = {gamma + 1} rows for {gamma} drafts, got {p.shape[0]}")
    if greedy:
        best = p.argmax(dim=-1)                                              # (gamma + 1,)
        host = torch.cat([drafts.to(best.dtype), best]).tolist()             # the round's one sync
        drafted, best = host[:gamma], host[gamma:]
        n = next((i for i in range(gamma) if drafted[i] != best[i]), gamma)  # leading matches
        return drafted[:n] + [best[n]], n, None
    check_generator(generator, p.device)
    if q is None or q.shape != (gamma, p.shape[1]):
        raise ValueError(f"q must have shape {(gamma, p.shape[1])} for sampling, got {None if q is None else tuple(q.shape)}")
    n, extra = accept_and_extra(p[None], q[None].to(p.dtype), drafts[None].long(), generator, draw=sample)  # (1,), (1,)
    parts = [drafts.to(p.dtype), n.to(p.dtype), extra.to(p.dtype)]          # ids are exact in float32/64
    if with_alpha:
        parts.append(torch.minimum(p[:gamma], q.to(p.dtype)).sum(-1))      # (gamma,) alpha_i
    host = torch.cat(parts).tolist()                                         # the round's one sync
    n = int(host[gamma])
    return [int(t) for t in host[:n]] + [int(host[gamma + 1])], n, (host[gamma + 2:] if with_alpha else None)
