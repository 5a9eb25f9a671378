"""The speculative decoding loop for one sequence, and plain decoding as its baseline.

A round: (1) the draft reads the committed tokens it has not seen and proposes gamma tokens,
recording the rows q it sampled them from; (2) the target runs ONE pass over its unseen
committed tokens (at least the last one) followed by the drafts, giving gamma + 1 rows p;
(3) verification keeps a prefix of the drafts and adds one token; (4) a stop token or the
length limit cuts the emitted tokens where the request ends; (5) both caches are cropped
back to committed tokens. Near the length limit a round drafts only as many tokens as can
still be used (a choice that depends only on the count already emitted, so it stays exact).

    >>> import torch
    >>> from transformers import GPT2Config, GPT2LMHeadModel
    >>> cfg = dict(n_embd=16, n_head=2, vocab_size=11, n_positions=64, bos_token_id=0, eos_token_id=0)
    >>> torch.manual_seed(0) and None
    >>> target = GPT2LMHeadModel(GPT2Config(n_layer=2, **cfg)).eval()
    >>> draft = GPT2LMHeadModel(GPT2Config(n_layer=1, **cfg)).eval()
    >>> prompt = torch.tensor([1, 2, 3])
    >>> fast, stats = speculative_generate(target, draft, prompt, gamma=3, max_new_tokens=10, temperature=0.0)
    >>> slow = plain_generate(target, prompt, max_new_tokens=10, temperature=0.0)
    >>> fast.tolist() == slow.tolist(), len(fast), stats.target_calls < 10
    (True, 10, True)
"""
from __future__ import annotations

import torch

from .draft import draft_block
from .prefill import cache_length, forward, model_device
from .processing import Sampling, check_generator, process, same_device, sample
from .rollback import crop_cache
from .stats import RoundStats
from .verify import verify_block


def _vocab(model) -> int:
    return int(model.get_output_embeddings().weight.shape[0])


def _max_positions(model):
    cfg = model.config
    return getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", None)


def check_pair(target, draft, target_tokenizer=None, draft_tokenizer=None) -> None:
    """Raise ValueError unless the two models score the same vocabulary with the same tokenizer, on one device.

    A drafted token id must mean the same string to both models, or the ratio p/q compares
    probabilities of different tokens. Both models must live on one device, where the engine
    keeps p, q and the drafts for the whole round.
    """
    if not same_device(model_device(target), model_device(draft)):
        raise ValueError(f"the target is on {model_device(target)} and the draft on {model_device(draft)}: put both "
                         "models on one device")
    vt, vd = _vocab(target), _vocab(draft)
    if vt != vd:
        raise ValueError(f"the target has a vocabulary of {vt} tokens and the draft {vd}: speculative decoding "
                         "needs both models to share one tokenizer and vocabulary")
    if (target_tokenizer is None) != (draft_tokenizer is None):
        raise ValueError("pass both tokenizers or neither")
    if target_tokenizer is not None and target_tokenizer.get_vocab() != draft_tokenizer.get_vocab():
        raise ValueError("the target's and the draft's tokenizers differ: a drafted token id would not mean the "
                         "same string to both models")


def _check_request(model, prompt, max_new_tokens, extra=0):
    if not isinstance(prompt, torch.Tensor) or prompt.ndim != 1 or prompt.numel() == 0:
        raise ValueError("prompt must be a non-empty 1-D tensor of token ids (batch size 1)")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise ValueError(f"max_new_tokens must be an integer >= 0, got {max_new_tokens!r}")
    limit = _max_positions(model)
    if limit is not None and prompt.numel() + max_new_tokens + extra > limit:
        raise ValueError(f"prompt ({prompt.numel()}) + max_new_tokens ({max_new_tokens}) + {extra} exceeds the "
                         f"model's {limit} positions")


def _empty_cache(cache_factory, model):
    return None if cache_factory is None else cache_factory(model)


@torch.inference_mode()
def plain_generate(model, prompt: torch.Tensor, max_new_tokens: int, temperature: float = 1.0, top_k: int = 0,
                   top_p: float = 1.0, eos_token_id: int | None = None,
                   generator: torch.Generator | None = None, cache_factory=None) -> torch.Tensor:
    """Ordinary decoding, one target pass per token, with the same processing; returns the new tokens (n,).

    The probabilities stay on the model's device; `generator` must be there too. Each token is
    read back once (`int(x)`): the Python loop needs it to test the stop token.
    """
    sampling = Sampling(temperature, top_k, top_p)
    _check_request(model, prompt, max_new_tokens)
    device = model_device(model)
    check_generator(generator, device)
    out: list[int] = []
    cache, feed = _empty_cache(cache_factory, model), prompt.to(device)
    while len(out) < max_new_tokens:
        logits, cache = forward(model, feed, cache)                          # (n, V)
        p = process(logits[-1], sampling)                                    # (V,)
        x = p.argmax() if sampling.greedy else sample(p, generator)          # () on the device
        out.append(int(x))
        if out[-1] == eos_token_id:
            break
        feed = x.reshape(1)
    return torch.tensor(out, dtype=torch.long)


def speculative_generate(target, draft, prompt: torch.Tensor, gamma: int, max_new_tokens: int,
                         temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0,
                         eos_token_id: int | None = None, generator: torch.Generator | None = None,
                         stats: RoundStats | None = None, cache_factory=None) -> tuple[torch.Tensor, RoundStats]:
    """Generate up to max_new_tokens after `prompt` (1-D) with gamma drafts per round.

    Returns (new tokens (n,) int64, RoundStats). The output has the target's exact distribution
    under the given sampling (greedy when temperature == 0: the target's own greedy text).
    Stops right after eos_token_id, or at exactly max_new_tokens tokens. `cache_factory(model)`,
    if given, makes each model's empty KV cache (e.g. a transformers StaticCache, which rolls
    back by a device-side counter); by default the models make dynamic caches.
    """
    if isinstance(gamma, bool) or not isinstance(gamma, int) or gamma < 1:
        raise ValueError(f"gamma must be an integer >= 1, got {gamma!r}")
    sampling = Sampling(temperature, top_k, top_p)
    check_pair(target, draft)
    for model in (target, draft):
        _check_request(model, prompt, max_new_tokens, extra=gamma)
    stats = RoundStats(gamma) if stats is None else stats
    if stats.gamma != gamma:
        raise ValueError(f"stats were made for gamma {stats.gamma}, not {gamma}")
    device = model_device(target)
    check_generator(generator, device)
    caches = (_empty_cache(cache_factory, target), _empty_cache(cache_factory, draft))
    return _speculative_loop(target, draft, prompt.tolist(), gamma, max_new_tokens, sampling, eos_token_id,
                             generator, stats, device, caches)


@torch.inference_mode()
def _speculative_loop(target, draft, committed: list[int], gamma, max_new_tokens, sampling, eos_token_id, generator,
                      stats, device, caches):
    # p, q and the drafts stay on `device` for the whole round; verify_block reads the round's
    # outcome back once (the loop must know how much to commit and where to crop). The committed
    # text lives on the host (it is what the loop returns): each round sends only the one or two
    # tokens a cache has not seen yet.
    n_prompt = len(committed)
    t_cache, d_cache = caches
    while len(committed) - n_prompt < max_new_tokens:
        room = max_new_tokens - (len(committed) - n_prompt)
        g = min(gamma, room - 1)                                             # drafts that can still be used
        t_seen = cache_length(t_cache)
        if g == 0:                                                           # one plain target step
            logits, t_cache = forward(target, torch.tensor(committed[t_seen:], device=device), t_cache)
            stats.target_calls += 1
            p = process(logits[-1], sampling)                                # (V,)
            new = [int(p.argmax() if sampling.greedy else sample(p, generator))]
            stats.short_rounds += 1
        else:
            d_seen = cache_length(d_cache)
            drafts, q, d_cache = draft_block(draft, d_cache, torch.tensor(committed[d_seen:], device=device), g,
                                             sampling, generator)            # (g,), (g, V) on the device
            stats.draft_calls += g
            feed = torch.cat([torch.tensor(committed[t_seen:], device=device), drafts])   # (unseen + g,)
            logits, t_cache = forward(target, feed, t_cache)                 # (unseen + g, V)
            stats.target_calls += 1
            p = process(logits[-(g + 1):], sampling)                         # (g + 1, V), where the models are
            full = g == gamma
            new, n, alphas = verify_block(p, q, drafts, sampling.greedy, generator,
                                          with_alpha=full and not sampling.greedy)
            if full:
                stats.record(n, alphas)
            else:
                stats.short_rounds += 1
            keep = len(committed) + n                                        # committed prefix + kept drafts
            t_cache = crop_cache(t_cache, min(keep, cache_length(t_cache)))
            d_cache = crop_cache(d_cache, min(keep, cache_length(d_cache)))
        new = new[:room]
        if eos_token_id is not None and eos_token_id in new:
            new = new[:new.index(eos_token_id) + 1]
        committed.extend(new)
        stats.tokens += len(new)
        if eos_token_id is not None and new[-1] == eos_token_id:
            break
    return torch.tensor(committed[n_prompt:], dtype=torch.long), stats
