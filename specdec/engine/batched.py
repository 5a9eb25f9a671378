"""Speculative verification of a whole batch in PyTorch, with no Python loop over sequences.

Inputs for B sequences and gamma drafts each: `p` (B, gamma + 1, V) target rows, `q` (B, gamma, V)
the rows the drafts were sampled from, `drafts` (B, gamma) token ids. The rule per sequence is
the one of chapter 04; here every step is one tensor operation over the batch:

1. gather p_i(x_i) and q_i(x_i) for every position (B, gamma);
2. draw one uniform per position and accept where u * q_i(x_i) < p_i(x_i);
3. the accepted length n is the number of leading accepts: the sum of the cumulative product
   of the accept mask (B,);
4. pick row n of p and of q, where q's row gamma (past the last draft) is a zero row, so that
   position gamma's "residual" max(0, p_{gamma+1} - 0) is the bonus row itself, and draw the
   extra token of every sequence from its unnormalized residual at once (`exponential_race`).
   The zero row is not built by copying q into a (B, gamma + 1, V) tensor (at B = 256 and
   V = 128k that copy alone is 650 MB): row n of q is gathered and masked to zero where n = gamma.

Two optional per-request arguments cover what a serving batch mixes:
- `lengths` (B,): request b drafted only lengths[b] <= gamma tokens (an adaptive drafter, chapter 07).
  Its drafts sit in drafts[b, :lengths[b]], its bonus row is p[b, lengths[b]]; the slots after
  them are padding and are never read for the decision (any id, any values).
- `greedy` (B,) bool: request b decodes greedily (temperature 0): keep drafts while they equal the
  argmax of p, emit the argmax at the first mismatch; its q rows are not used.
Both change only their own requests: the random numbers are drawn for the whole batch in the same
order, so the sampled requests get exactly what they would get without these arguments.

Nothing here waits for the host: n stays a device tensor, no call reads a value back (the
exponential race replaces torch.multinomial, whose argument checks read the GPU back in older
PyTorch releases), and the value checks that would read data (ids and lengths in range) run
on CPU tensors only; on a GPU an id out of range trips the gather's own device-side assertion.
The generator must live on the tensors' device (`processing.check_generator`).

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


def check_requests(drafts: torch.Tensor, V: int, lengths: torch.Tensor | None, greedy: torch.Tensor | None) -> None:
    """Raise ValueError unless `lengths` (B,) integers in 0..gamma and `greedy` (B,) bool fit the batch.

    Values are read (ids and lengths in range) for CPU tensors only: elsewhere the read would sync.
    """
    B, gamma = drafts.shape
    for name, t, kinds in (("lengths", lengths, (torch.int64, torch.int32)), ("greedy", greedy, (torch.bool,))):
        if t is None:
            continue
        if not isinstance(t, torch.Tensor) or t.shape != (B,) or t.dtype not in kinds:
            raise ValueError(f"{name} must be a tensor of shape ({B},) with dtype {' or '.join(map(str, kinds))}, "
                             f"got {getattr(t, 'shape', type(t).__name__)} {getattr(t, 'dtype', '')}")
        if t.device != drafts.device:
            raise ValueError(f"{name} must be on the drafts' device {drafts.device}, got {t.device}")
    if drafts.device.type != "cpu" or not drafts.numel():
        return
    if lengths is not None and (lengths.min() < 0 or lengths.max() > gamma):
        raise ValueError(f"lengths must lie in 0..{gamma} (gamma = drafts.shape[1]), got {lengths.tolist()}")
    real = drafts if lengths is None else drafts[torch.arange(gamma) < lengths[:, None]]
    if real.numel() and (real.min() < 0 or real.max() >= V):
        raise ValueError(f"draft token ids must lie in 0..{V - 1}")


def batched_verify(p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor, generator: torch.Generator | None = None,
                   lengths: torch.Tensor | None = None,
                   greedy: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Verify B rounds at once; returns (tokens (B, gamma + 1) int64 padded with -1, n_accepted (B,) int64).

    `lengths` (B,) ints: request b's real draft count (default gamma for all); `greedy` (B,) bool:
    requests verified by argmax (temperature 0). See the module docstring.
    """
    check_batch(p, q, drafts)
    check_requests(drafts, q.shape[-1], lengths, greedy)
    check_generator(generator, p.device)
    drafts = drafts.long()
    n, extra = accept_and_extra(p, q, drafts, generator, lengths=lengths, greedy=greedy)   # (B,), (B,)
    B, gamma = drafts.shape
    pos = torch.arange(gamma + 1, device=p.device)                           # (gamma + 1,)
    padded = torch.cat([drafts, drafts.new_full((B, 1), PAD)], dim=1)        # (B, gamma + 1), small: ids only
    tokens = torch.where(pos < n[:, None], padded, PAD)                      # (B, gamma + 1)
    tokens[torch.arange(B, device=p.device), n] = extra
    return tokens, n


def exponential_race(rows: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One token per row of rows (B, V), weights >= 0 not necessarily normalized; (B,), on rows' device.

    Token x wins when rows[x] / E_x is largest, E_x ~ Exp(1) independent: E_x / rows[x] is an
    exponential clock of rate rows[x], and the first of independent clocks to ring is x with
    probability rows[x] / sum(rows). No normalization, no check that reads a value back, so
    nothing waits for the host. Zero-weight tokens never win (score -1, below every positive score).

        >>> exponential_race(torch.tensor([[0.0, 2.0, 0.0], [0.0, 0.0, 5.0]])).tolist()
        [1, 2]
    """
    e = torch.empty_like(rows).exponential_(generator=generator)            # (B, V) Exp(1) clocks
    score = torch.where(rows > 0, rows / e, -1.0)                            # (B, V) larger = rings first
    return score.argmax(dim=-1)                                              # (B,)


def accept_and_extra(p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor, generator: torch.Generator | None = None,
                     draw=exponential_race, lengths: torch.Tensor | None = None,
                     greedy: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The rule on checked tensors: (n_accepted (B,), extra token (B,)), both left on the device.

    `draw(rows (B, V), generator) -> (B,)` samples the extra tokens from unnormalized rows: the
    exponential race by default; the engine's batch-1 loop passes `processing.sample`, the same
    law at a fraction of the cost on a CPU for a large vocabulary.
    """
    B, gamma, V = q.shape
    real = None if lengths is None else torch.arange(gamma, device=p.device) < lengths[:, None]  # (B, gamma)
    ids = drafts if real is None else torch.where(real, drafts, 0)          # (B, gamma) padding read as token 0
    idx = ids.unsqueeze(-1)                                                  # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, idx).squeeze(-1)                           # (B, gamma)
    q_x = q.gather(-1, idx).squeeze(-1).to(p.dtype)                          # (B, gamma) cast the rows used, never all of q
    u = torch.rand(B, gamma, generator=generator, device=p.device, dtype=p.dtype)
    accept = u * q_x < p_x                                                   # (B, gamma) u < p/q without dividing
    if greedy is not None:
        matches = ids == p[:, :gamma].argmax(dim=-1)                         # (B, gamma) draft is the target's argmax
        accept = torch.where(greedy[:, None], matches, accept)
    if real is not None:
        accept = accept & real                                               # padding is never kept
    n = accept.long().cumprod(dim=1).sum(dim=1)                              # (B,) leading accepts, on the device
    end = gamma if lengths is None else lengths                              # where each request's bonus row is
    rows = torch.arange(B, device=p.device)                                  # (B,)
    p_n = p[rows, n]                                                         # (B, V)
    q_n = q[rows, n.clamp_max(gamma - 1)].to(p.dtype)                        # (B, V) row n, or row gamma - 1 if n = gamma
    q_n = torch.where((n < end)[:, None], q_n, 0.0)                          # (B, V) the zero row past the last draft
    missing = (p_n - q_n).clamp_min(0.0)                                     # (B, V) unnormalized residual
    residual = torch.where(missing.sum(dim=-1, keepdim=True) > 0, missing, p_n)   # (B, V); p if p == q in float
    extra = draw(residual, generator)                                        # (B,)
    if greedy is not None:
        extra = torch.where(greedy, p_n.argmax(dim=-1), extra)               # greedy: the argmax at row n
    return n, extra
