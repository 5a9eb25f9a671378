"""Measurements the lab makes, on any pair of models and any device.

- `robust_time(fn, repeats)`: median and interquartile range of `repeats` timed calls after
  warm-up, synchronizing before each start and before each stop (CUDA work is asynchronous);
- `pass_times(model, ks)`: median time of one forward pass over k new tokens on top of a
  cached context, for each k, with the k interleaved in a shuffled order in every repeat (so a
  slow moment of a shared machine hits every k alike, not one k);
- `draft_cost_ratio(target, draft)`: c = t_draft(1) / t_target(1), one-token passes, interleaved;
- `run_speculative` / `run_plain`: generate from a list of prompts and time the whole run, and
  the time spent inside each model's forward (the rest is the engine's own work);
- `predicted_n_bar`, `predicted_speedup`, `predicted_request_speedup` (from `prediction`, where
  they live): chapter 05's formulas fed with measured numbers;
- `first_divergence`: where two greedy outputs part, and the target's logit gap there.

    >>> ticks = iter(range(100))
    >>> robust_time(lambda: None, repeats=3, warmup=1, clock=lambda: next(ticks))     # each call: 1 tick
    (1.0, 0.0)
"""
from __future__ import annotations

import contextlib
import random
import statistics
import time

import numpy as np
import torch

from .generate import plain_generate, speculative_generate
from .prediction import predicted_n_bar, predicted_request_speedup, predicted_speedup  # noqa: F401 (the lab imports them here)
from .prefill import cache_length, forward, model_device, prefill
from .rollback import crop_cache
from .stats import RoundStats
from .timing import synchronize


def robust_time(fn, repeats: int, warmup: int = 1, synchronize=None, clock=time.perf_counter) -> tuple[float, float]:
    """(median, interquartile range) of `repeats` timed calls of fn(), after `warmup` untimed calls.

    Each timed call is synchronize(); start = clock(); fn(); synchronize(); stop = clock(), so the
    work of earlier calls is finished before the clock starts and this call's work before it stops.
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an integer >= 0, got {warmup!r}")
    sync = synchronize or (lambda: None)
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        samples.append(_time_once(fn, sync, clock))
    q25, q50, q75 = np.percentile(samples, [25, 50, 75])
    return float(q50), float(q75 - q25)


def _time_once(fn, sync, clock=time.perf_counter) -> float:
    sync()
    start = clock()
    fn()
    sync()
    return clock() - start


def pass_time_samples(model, ks, context: int = 64, repeats: int = 7, warmup: int = 2,
                      seed: int = 0) -> dict[int, list[float]]:
    """{k: [seconds of each repeat]} for one pass over k new tokens after `context` cached tokens.

    Every repeat times every k once, in a fresh shuffled order; the cache is cropped back to the
    context after each pass, so every pass sees the same context.
    """
    device = model_device(model)
    ks = [int(k) for k in ks]
    vocab = model.get_output_embeddings().weight.shape[0]
    gen = torch.Generator().manual_seed(seed)
    order = random.Random(seed)
    _, cache = prefill(model, torch.randint(vocab, (context,), generator=gen))
    ids = {k: torch.randint(vocab, (k,), generator=gen).to(device) for k in ks}
    sync = lambda: synchronize(device)
    out = {k: [] for k in ks}
    for r in range(warmup + repeats):
        for k in order.sample(ks, len(ks)):
            seconds = _time_once(lambda: forward(model, ids[k], cache), sync)
            cache = crop_cache(cache, context)
            if r >= warmup:
                out[k].append(seconds)
    return out


def pass_times(model, ks, context: int = 64, repeats: int = 7, warmup: int = 2, seed: int = 0) -> dict[int, float]:
    """{k: median seconds of one pass over k new tokens after `context` cached tokens} (k interleaved)."""
    return {k: statistics.median(v) for k, v in pass_time_samples(model, ks, context, repeats, warmup, seed).items()}


def draft_cost_ratio(target, draft, context: int = 64, repeats: int = 15) -> tuple[float, float, float]:
    """(c, t_target(1), t_draft(1)): the draft cost ratio from one-token passes, the two models alternating."""
    samples = {"t": [], "d": []}
    vocab = target.get_output_embeddings().weight.shape[0]
    gen = torch.Generator().manual_seed(0)
    prompt = torch.randint(vocab, (context,), generator=gen)
    one = torch.randint(vocab, (1,), generator=gen)
    caches = {"t": prefill(target, prompt)[1], "d": prefill(draft, prompt)[1]}
    models = {"t": target, "d": draft}
    sync = lambda: synchronize(model_device(target))
    for r in range(2 + repeats):
        for name in ("t", "d") if r % 2 else ("d", "t"):
            seconds = _time_once(lambda: forward(models[name], one, caches[name]), sync)
            caches[name] = crop_cache(caches[name], context)
            if r >= 2:
                samples[name].append(seconds)
    t_t, t_d = statistics.median(samples["t"]), statistics.median(samples["d"])
    return t_d / t_t, t_t, t_d


@contextlib.contextmanager
def model_clock(**models):
    """Accumulate the wall-clock time spent inside each model's forward.

    Yields {name: [seconds, calls, first_seconds, first_calls]}: all calls, and apart the calls on
    an empty cache (the first pass of a request, over its whole prompt), which cost several
    decoding steps each and so must not be averaged into the price of a step.

    Forward hooks read a clock around every call (synchronizing on CUDA), so the time of a whole
    run minus these is the engine's own work: sampling, verification, cache cropping, Python
    bookkeeping. The hooks read only `time.perf_counter` (tens of nanoseconds): a clock that costs
    more would be charged to the engine, and more often to speculative decoding (gamma + 1 model
    calls a round) than to plain decoding (one a token). `time.thread_time`, for one, costs about
    0.2 ms a call on some virtual machines, a sizeable share of a small model's pass.
    """
    spent = {name: [0.0, 0, 0.0, 0] for name in models}     # wall seconds, calls; the same for first passes
    handles = []
    for name, model in models.items():
        device = model_device(model)
        start = {}

        def pre(module, args, kwargs, device=device, start=start):
            cache = kwargs.get("cache", kwargs.get("past_key_values"))
            start["first"] = cache is None or cache_length(cache) == 0
            synchronize(device)
            start["t"] = time.perf_counter()

        def post(module, args, output, name=name, device=device, start=start):
            synchronize(device)
            seconds = time.perf_counter() - start["t"]
            spent[name][0] += seconds
            spent[name][1] += 1
            if start["first"]:
                spent[name][2] += seconds
                spent[name][3] += 1

        handles += [model.register_forward_pre_hook(pre, with_kwargs=True), model.register_forward_hook(post)]
    try:
        yield spent
    finally:
        for h in handles:
            h.remove()


def _seeded_generator(device: torch.device, seed: int) -> torch.Generator:
    """A generator on the models' device (CUDA sampling needs a CUDA generator), seeded."""
    return torch.Generator(device=device).manual_seed(seed)


def _timed_run(models: dict, prompts, generate_one) -> dict:
    """generate_one(prompt) -> tokens for every prompt, inside `model_clock(**models)`; the fields every run has.

    The CPU time is read once at each end (it is costly on some machines: see `model_clock`), and
    the device is synchronized before both clocks are read, so queued GPU work lands in its run.
    """
    device = model_device(next(iter(models.values())))
    outs = []
    with model_clock(**models) as spent:
        synchronize(device)
        t0, c0 = time.perf_counter(), time.thread_time()
        for prompt in prompts:
            outs.append(generate_one(prompt))
        synchronize(device)
        seconds, cpu_seconds = time.perf_counter() - t0, time.thread_time() - c0
    fields = ("model_seconds", "model_calls", "first_seconds", "first_calls")
    return dict(seconds=seconds, cpu_seconds=cpu_seconds, tokens=outs, n_tokens=sum(map(len, outs)),
                **{field: {name: v[i] for name, v in spent.items()} for i, field in enumerate(fields)})


def run_speculative(target, draft, prompts, gamma: int, max_new_tokens: int, seed: int = 0, eos_token_id=None,
                    **sampling) -> dict:
    """Generate after every prompt; returns {'stats', 'seconds', 'cpu_seconds', 'tokens', 'n_tokens', 'model_seconds',
    'model_calls', 'first_seconds', 'first_calls'}.

    seconds: wall clock of the whole run; cpu_seconds: this thread's CPU time over the same run, read
    once at each end (with torch on one thread, cpu_seconds / seconds near 1 says no other program
    took the CPU during the run); model_*: wall time inside, and number of, each model's forward
    calls (first passes included); first_*: the same for the first pass of each request alone.
    """
    stats = RoundStats(gamma)
    gen = _seeded_generator(model_device(target), seed)

    def generate_one(prompt):
        out, _ = speculative_generate(target, draft, prompt, gamma=gamma, max_new_tokens=max_new_tokens,
                                      eos_token_id=eos_token_id, generator=gen, stats=stats, **sampling)
        return out.tolist()
    return dict(stats=stats, **_timed_run(dict(target=target, draft=draft), prompts, generate_one))


def run_plain(target, prompts, max_new_tokens: int, seed: int = 0, eos_token_id=None, **sampling) -> dict:
    """Plain decoding after every prompt; returns {'seconds', 'cpu_seconds', 'tokens', 'n_tokens', 'model_seconds',
    'model_calls', 'first_seconds', 'first_calls'}, as `run_speculative` does."""
    gen = _seeded_generator(model_device(target), seed)
    return _timed_run(dict(target=target), prompts, lambda prompt: plain_generate(
        target, prompt, max_new_tokens, eos_token_id=eos_token_id, generator=gen, **sampling).tolist())


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
