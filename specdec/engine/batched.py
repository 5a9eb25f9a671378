"""Speculative verification of a whole batch in PyTorch, with no Python loop over sequences.

Inputs for B sequences and gamma drafts each: `p` (B, gamma + 1, V) target rows, `q` (B, gamma, V)
the rows the drafts were sampled from, `drafts` (B, gamma) token ids. The rule per sequence is
the one of chapter 04; here every step is one tensor operation over the batch:

1. gather p_i(x_i) and q_i(x_i) for every position (B, gamma);
2. draw one uniform per position and accept where u * q_i(x_i) < p_i(x_i);
3. the accepted length n is the number of leading accepts: the sum of the cumulative product
   of the accept mask (B,);
4. pick row n of p and of q, where q's row gamma (past the last draft) is a zero row, so that
   position gamma's "residual" max(0, p_{gamma+1} - 0) is the bonus row itself; normalize
   max(0, p - q) and draw the extra token with one multinomial call for the whole batch.
   The zero row is not built by copying q into a (B, gamma + 1, V) tensor (at B = 256 and
   V = 128k that copy alone is 650 MB): row n of q is gathered and masked to zero where n = gamma.

Nothing here waits for the host: n stays a device tensor, and the only value check that
would read data back (draft ids in range) runs on CPU tensors only; on a GPU an id out of
range trips the gather's own device-side assertion. The generator must live on the tensors'
device (`processing.check_generator`).

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

from .processing import check_generator

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
    if not (p.device == q.device == drafts.device):
        raise ValueError(f"p, q and drafts must be on one device, got {p.device}, {q.device} and {drafts.device}")
    if drafts.device.type == "cpu" and drafts.numel() and (drafts.min() < 0 or drafts.max() >= V):
        raise ValueError(f"draft token ids must lie in 0..{V - 1}")      # CPU only: elsewhere this read syncs


def batched_verify(p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor,
                   generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Verify B rounds at once; returns (tokens (B, gamma + 1) int64 padded with -1, n_accepted (B,) int64)."""
    check_batch(p, q, drafts)
    check_generator(generator, p.device)
    drafts = drafts.long()
    n, extra = accept_and_extra(p, q.to(p.dtype), drafts, generator)        # (B,), (B,)
    B, gamma = drafts.shape
    pos = torch.arange(gamma + 1, device=p.device)                           # (gamma + 1,)
    padded = torch.cat([drafts, drafts.new_full((B, 1), PAD)], dim=1)        # (B, gamma + 1), small: ids only
    tokens = torch.where(pos < n[:, None], padded, PAD)                      # (B, gamma + 1)
    tokens[torch.arange(B, device=p.device), n] = extra
    return tokens, n


def multinomial(rows: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One token per row of rows (B, V), weights not necessarily normalized, in a single torch.multinomial call; (B,)."""
    return torch.multinomial(rows, 1, generator=generator).squeeze(-1)


def accept_and_extra(p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor, generator: torch.Generator | None = None,
                     draw=multinomial) -> tuple[torch.Tensor, torch.Tensor]:
    """The rule on checked tensors: (n_accepted (B,), extra token (B,)), both left on the device.

    `draw(rows (B, V), generator) -> (B,)` samples the extra tokens from unnormalized rows: one
    multinomial call by default (as chapter 11 builds it); the engine passes `processing.sample`,
    the same law at a fraction of multinomial's cost on a CPU.
    """
    B, gamma, V = q.shape
    idx = drafts.unsqueeze(-1)                                               # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, idx).squeeze(-1)                           # (B, gamma)
    q_x = q.gather(-1, idx).squeeze(-1)                                      # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, device=p.device, dtype=p.dtype)
    accept = u * q_x < p_x                                                   # (B, gamma) u < p/q without dividing
    n = accept.long().cumprod(dim=1).sum(dim=1)                              # (B,) leading accepts, on the device
    rows = torch.arange(B, device=p.device)                                  # (B,)
    p_n = p[rows, n]                                                         # (B, V)
    q_n = q[rows, n.clamp_max(gamma - 1)]                                    # (B, V) row n, or row gamma - 1 if n = gamma
    q_n = torch.where((n < gamma)[:, None], q_n, 0.0)                        # (B, V) the zero row past the last draft
    missing = (p_n - q_n).clamp_min(0.0)                                     # (B, V) unnormalized residual
    residual = torch.where(missing.sum(dim=-1, keepdim=True) > 0, missing, p_n)   # (B, V); p if p == q in float
    return n, draw(residual, generator)
