"""The draft's half of a round: gamma steps on the draft's own KV cache.

`draft_block` feeds the committed tokens the draft has not read yet (at least the last one),
then proposes x_1, ..., x_gamma one at a time, each from q_i = processed draft distribution
after the tokens before it. It returns the drafts and the rows q (gamma, V) they were sampled
from: exactly those rows, not the raw logits, because the verifier's ratio p/q must use the
distribution the draft actually sampled from (after its temperature, top-k and top-p).

    >>> import torch
    >>> from transformers import GPT2Config, GPT2LMHeadModel
    >>> m = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=11, n_positions=32,
    ...                                bos_token_id=0, eos_token_id=0)).eval()
    >>> from specdec.engine.processing import Sampling
    >>> drafts, q, cache = draft_block(m, None, torch.tensor([1, 2]), 3, Sampling(temperature=0.0))
    >>> tuple(drafts.shape), tuple(q.shape), float(q.sum())               # one-hot rows when greedy
    ((3,), (3, 11), 3.0)
"""
from __future__ import annotations

import torch

from .prefill import forward, model_device
from .processing import Sampling, check_generator, process, sample
from ..checks import check_int


def draft_block(model, cache, unseen: torch.Tensor, gamma: int, sampling: Sampling,
                generator: torch.Generator | None = None):
    """Propose gamma tokens after `unseen` (1-D, the committed tokens the cache lacks).

    Returns (drafts (gamma,) int64, q (gamma, V) float, cache), on the model's device (nothing
    is read back to the host: each draft is fed to the next step as a device tensor); the cache
    then holds the committed tokens and drafts x_1..x_{gamma-1} (x_gamma itself was never fed).
    """
    check_int(gamma, "gamma", low=1)
    drafts, rows = [], []
    feed = unseen
    u = None
    if not sampling.greedy:
        check_generator(generator, model_device(model))
    for i in range(gamma):
        logits, cache = forward(model, feed, cache)                          # (n, V)
        q_i = process(logits[-1], sampling)                                  # (V,)
        if sampling.greedy:
            x = q_i.argmax()                                                 # () on the device
        else:
            if u is None:                                                    # all gamma uniforms in one call, in
                u = torch.rand(gamma, generator=generator, device=q_i.device, dtype=q_i.dtype)   # q's dtype: no cast
            x = sample(q_i, u=u[i])                                          # () on the device
        drafts.append(x)
        rows.append(q_i)
        feed = x.reshape(1)
    return torch.stack(drafts).long(), torch.stack(rows), cache          # (gamma,), (gamma, V)
