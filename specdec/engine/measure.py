"""Measurements the lab makes, on any pair of models and any device.

- `pass_times(model, ks)`: median time of one forward pass over k new tokens on top of a
  cached context, for each k (warm-up first; CUDA synchronized around every timing);
- `draft_cost_ratio(target, draft)`: c = t_draft(1) / t_target(1), one-token passes;
- `run_speculative` / `run_plain`: generate from a list of prompts and time the whole run;
- `predicted_n_bar`, `predicted_speedup`: chapter 05's formulas fed with measured numbers,
  S = n_bar / (gamma c + t_pass(gamma + 1) / t_pass(1)) (verification is not free on a CPU);
- `first_divergence`: where two greedy outputs part, and the target's logit gap there.

    >>> predicted_n_bar([0.8, 0.6, 0.4], 2)
    2.4
    >>> round(predicted_speedup(2.4, 2, c=0.1, pass_ratio=1.0), 3)
    2.0
"""
from __future__ import annotations

import statistics
import time

import numpy as np
import torch

from .generate import plain_generate, speculative_generate
from .prefill import forward, prefill
from .rollback import crop_cache
from .stats import RoundStats


def _device(model) -> torch.device:
    return next(model.parameters()).device


def synchronize(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def pass_times(model, ks, context: int = 64, repeats: int = 7, warmup: int = 2, seed: int = 0) -> dict[int, float]:
    """{k: median seconds of one pass over k new tokens after `context` cached tokens}."""
    device = _device(model)
    vocab = model.get_output_embeddings().weight.shape[0]
    gen = torch.Generator().manual_seed(seed)
    _, cache = prefill(model, torch.randint(vocab, (context,), generator=gen))
    out = {}
    for k in ks:
        ids = torch.randint(vocab, (int(k),), generator=gen).to(device)
        samples = []
        for r in range(warmup + repeats):
            synchronize(device)
            t0 = time.perf_counter()
            forward(model, ids, cache)
            synchronize(device)
            if r >= warmup:
                samples.append(time.perf_counter() - t0)
            cache = crop_cache(cache, context)
        out[int(k)] = statistics.median(samples)
    return out


def draft_cost_ratio(target, draft, context: int = 64, repeats: int = 15) -> tuple[float, float, float]:
    """(c, t_target(1), t_draft(1)): the draft cost ratio from one-token passes."""
    t_t = pass_times(target, [1], context, repeats)[1]
    t_d = pass_times(draft, [1], context, repeats)[1]
    return t_d / t_t, t_t, t_d


def _seeded_generator(device: torch.device, seed: int) -> torch.Generator:
    """A generator on the models' device (CUDA sampling needs a CUDA generator), seeded."""
    return torch.Generator(device=device).manual_seed(seed)


def run_speculative(target, draft, prompts, gamma: int, max_new_tokens: int, seed: int = 0, eos_token_id=None,
                    **sampling) -> dict:
    """Generate after every prompt; returns {'stats', 'seconds', 'tokens', 'n_tokens'}."""
    device = _device(target)
    stats = RoundStats(gamma)
    gen = _seeded_generator(device, seed)
    outs = []
    synchronize(device)
    t0 = time.perf_counter()
    for prompt in prompts:
        out, _ = speculative_generate(target, draft, prompt, gamma=gamma, max_new_tokens=max_new_tokens,
                                      eos_token_id=eos_token_id, generator=gen, stats=stats, **sampling)
        outs.append(out.tolist())
    synchronize(device)
    return dict(stats=stats, seconds=time.perf_counter() - t0, tokens=outs, n_tokens=sum(map(len, outs)))


def run_plain(target, prompts, max_new_tokens: int, seed: int = 0, eos_token_id=None, **sampling) -> dict:
    """Plain decoding after every prompt; returns {'seconds', 'tokens', 'n_tokens'}."""
    device = _device(target)
    gen = _seeded_generator(device, seed)
    outs = []
    synchronize(device)
    t0 = time.perf_counter()
    for prompt in prompts:
        outs.append(plain_generate(target, prompt, max_new_tokens, eos_token_id=eos_token_id, generator=gen,
                                   **sampling).tolist())
    synchronize(device)
    return dict(seconds=time.perf_counter() - t0, tokens=outs, n_tokens=sum(map(len, outs)))


def predicted_n_bar(survival, gamma: int) -> float:
    """Chapter 05's survival form: n_bar = 1 + a_1 + ... + a_gamma."""
    a = np.asarray(survival, dtype=float)
    if gamma > a.size:
        raise ValueError(f"need survival probabilities for {gamma} positions, got {a.size}")
    return float(1 + a[:gamma].sum())


def predicted_speedup(n_bar: float, gamma: int, c: float, pass_ratio: float = 1.0) -> float:
    """S = n_bar / (gamma c + pass_ratio), pass_ratio = t_pass(gamma + 1) / t_pass(1) (1 when free)."""
    return float(n_bar / (gamma * c + pass_ratio))


@torch.inference_mode()
def first_divergence(target, prompt: torch.Tensor, a, b):
    """(index, logit gap) where greedy outputs a and b first differ, or None if they agree.

    The gap is the target's top-1 minus top-2 logit at that position, computed in one fresh pass:
    a tiny gap means a near-tie that a different kernel order could flip (chapter 02).
    """
    a, b = list(a), list(b)
    i = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y), None)
    if i is None:
        return None
    logits, _ = forward(target, torch.cat([prompt.cpu(), torch.tensor(a[:i], dtype=torch.long)]))
    top = torch.topk(logits[-1].float(), 2).values
    return i, float(top[0] - top[1])
