"""Speculative verification of a whole batch in PyTorch, with no Python loop over sequences.

Inputs for B sequences and gamma drafts each: `p` (B, gamma + 1, V) target rows, `q` (B, gamma, V)
the rows the drafts were sampled from, `drafts` (B, gamma) token ids. The rule per sequence is
the one of chapter 04; here every step is one tensor operation over the batch:

1. gather p_i(x_i) and q_i(x_i) for every position (B, gamma);
2. draw one uniform per position and accept where u * q_i(x_i) < p_i(x_i);
3. the accepted length n is the number of leading accepts: the sum of the cumulative product
   of the accept mask (B,);
4. append a zero row to q, so that position gamma's "residual" max(0, p_{gamma+1} - 0) is the
   bonus row itself, pick row n of p and of the padded q, normalize max(0, p - q) and draw
   the extra token with one multinomial call for the whole batch.

Returns `tokens` (B, gamma + 1) int64, where tokens[b, :n_b] are the kept drafts, tokens[b, n_b]
the extra token and the rest -1, and `n_accepted` (B,) int64.

    >>> import torch
    >>> p = torch.tensor([[[0.5, 0.5], [0.0, 1.0]]])        # (1, 2, 2): gamma = 1
    >>> q = torch.tensor([[[0.5, 0.5]]])                    # (1, 1, 2): q == p at position 1
    >>> tokens, n = batched_verify(p, q, torch.tensor([[0]]), torch.Generator().manual_seed(0))
    >>> tokens.tolist(), n.tolist()                        # draft kept, bonus from p[1] = token 1
    ([[0, 1]], [1])
"""
from __future__ import annotations

import torch

PAD = -1


def check_batch(p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor) -> None:
    """Raise ValueError unless p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma) fit together."""
    for name, t in (("p", p), ("q", q), ("drafts", drafts)):
        if not isinstance(t, torch.Tensor):
            raise ValueError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if gamma < 1 or p.shape != (B, gamma + 1, V) or drafts.shape != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)} p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    if drafts.dtype not in (torch.int64, torch.int32):
        raise ValueError(f"drafts must hold integer token ids, got dtype {drafts.dtype}")
    if drafts.numel() and (drafts.min() < 0 or drafts.max() >= V):
        raise ValueError(f"draft token ids must lie in 0..{V - 1}")


def batched_verify(p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor,
                   generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Verify B rounds at once; returns (tokens (B, gamma + 1) int64 padded with -1, n_accepted (B,) int64)."""
    check_batch(p, q, drafts)
    B, gamma, V = q.shape
    drafts = drafts.long()
    idx = drafts.unsqueeze(-1)                                               # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, idx).squeeze(-1)                           # (B, gamma)
    q_x = q.gather(-1, idx).squeeze(-1)                                      # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, device=p.device, dtype=p_x.dtype)
    accept = u * q_x < p_x                                                   # (B, gamma) u < p/q without dividing
    n = accept.long().cumprod(dim=1).sum(dim=1)                              # (B,) leading accepts
    q_pad = torch.cat([q, q.new_zeros(B, 1, V)], dim=1)                      # (B, gamma + 1, V)
    rows = torch.arange(B, device=p.device)
    missing = (p[rows, n] - q_pad[rows, n]).clamp_min(0.0)                   # (B, V)
    mass = missing.sum(dim=-1, keepdim=True)                                 # (B, 1)
    residual = torch.where(mass > 0, missing / mass.clamp_min(1e-30), p[rows, n])   # (B, V); p if p == q in float
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)  # (B,)
    pos = torch.arange(gamma + 1, device=p.device)                           # (gamma + 1,)
    padded = torch.cat([drafts, drafts.new_full((B, 1), PAD)], dim=1)        # (B, gamma + 1)
    tokens = torch.where(pos < n[:, None], padded, torch.full_like(padded, PAD))
    tokens[rows, n] = extra
    return tokens, n
