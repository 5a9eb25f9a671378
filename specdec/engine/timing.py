"""Timing a model's passes robustly: interleaved, synchronized, repeated, with a spread.

A pass over k new tokens on top of a cached context is the unit of every cost in the course
(t_pass(k), c = t_draft(1) / t_target(1)). Timed one k after another, a drift of the machine
(clock boost, another process, thermal limits) lands on some k and not others and bends the
curve; so `pass_time_samples` visits the ks in an interleaved order, round after round, each
timing bracketed by a device synchronization, after warm-up passes, and returns every sample.
`robust_time` is the same protocol for any callable (median and interquartile range);
`draft_cost_ratio` reads c from the paired rounds of `pass_time_samples`. `Spread` summarizes
samples as median, quartiles and range; `Quietness` says whether the machine was quiet while
they were taken.

`static_step` builds the same pass on a transformers `StaticCache` (fixed-size key/value
buffers, the length kept in a device counter); on a CUDA device `graphed` captures it once in
a CUDA graph and replays it, which removes the per-kernel launch cost of eager mode.

    >>> s = Spread.of([3.0, 1.0, 2.0, 10.0])
    >>> s.median, s.low, s.high
    (2.5, 1.0, 10.0)
    >>> ticks = iter(range(100))
    >>> robust_time(lambda: None, repeats=3, warmup=1, clock=lambda: next(ticks))     # each call: 1 tick
    (1.0, 0.0)
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass

import numpy as np
import torch

from .prefill import cache_argument, forward, model_device, prefill
from .rollback import crop_cache


@dataclass(frozen=True)
class Spread:
    """Median, quartiles and range of timing samples (seconds or any unit)."""

    median: float
    q1: float
    q3: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, samples) -> "Spread":
        xs = sorted(float(x) for x in samples)
        if not xs:
            raise ValueError("no samples")
        q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
        return cls(statistics.median(xs), q[0], q[2], xs[0], xs[-1], len(xs))

    def scaled(self, factor: float) -> "Spread":
        return Spread(*(v * factor for v in (self.median, self.q1, self.q3, self.low, self.high)), self.n)

    def __str__(self) -> str:
        return f"{self.median:.3g} (IQR {self.q1:.3g}-{self.q3:.3g}, range {self.low:.3g}-{self.high:.3g})"


# Below this share of its wall time on a processor, a run was slowed by another program.
QUIET_SHARE = 0.9


@dataclass(frozen=True)
class Quietness:
    """Was the machine quiet? Each timed run's thread CPU time over its wall time, summarized.

    A single-threaded run on a quiet machine has a processor all the time (share about 1); when
    another program takes it, the share drops and that run's wall time is inflated. The share
    cannot see a program on another core competing for caches or memory bandwidth.

        >>> q = Quietness.of([0.99, 1.0, 0.97])
        >>> q.quiet, str(q)
        (True, 'CPU time / wall time over each timed run: lowest 97 %, median 99 %')
        >>> Quietness.of([0.99, 0.6]).verdict()
        'another program took the processor during some runs: rerun on a quieter machine'
    """

    lowest: float
    median: float

    @classmethod
    def of(cls, shares) -> "Quietness":
        xs = [float(x) for x in shares]
        if not xs:
            raise ValueError("no timed runs to judge")
        if not all(math.isfinite(x) and x >= 0 for x in xs):
            raise ValueError(f"a CPU time / wall time share must be a finite number >= 0, got {xs}")
        # The two clocks tick differently, so a fully busy thread can read a hair above 1.
        return cls(min(min(xs), 1.0), min(statistics.median(xs), 1.0))

    @property
    def quiet(self) -> bool:
        return self.lowest >= QUIET_SHARE

    def verdict(self) -> str:
        if self.quiet:
            return ("the thread was not kept off the processor (this cannot see a program on the other core "
                    "competing for caches or memory)")
        return "another program took the processor during some runs: rerun on a quieter machine"

    def __str__(self) -> str:
        return (f"CPU time / wall time over each timed run: lowest {share_percent(self.lowest)} %, "
                f"median {share_percent(self.median)} %")


def share_percent(x: float) -> int:
    """A CPU time / wall time share in whole percent, rounded down: a share of 0.996 is not a run that had the
    processor 100 % of the time (share_percent(0.996) == 99)."""
    return math.floor(100 * x + 1e-9)


def synchronize(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def _time_once(fn, sync, clock=time.perf_counter) -> float:
    """synchronize, start, fn(), synchronize, stop: earlier work is done before the start, this call's before the stop."""
    sync()
    start = clock()
    fn()
    sync()
    return clock() - start


def robust_time(fn, repeats: int, warmup: int = 1, synchronize=None, clock=time.perf_counter) -> tuple[float, float]:
    """(median, interquartile range) of `repeats` timed calls of fn(), after `warmup` untimed calls.

    Each timed call is synchronize(); start = clock(); fn(); synchronize(); stop = clock(). A bool
    is refused as `repeats` or `warmup` (in Python True is an int).
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an integer >= 0, got {warmup!r}")
    sync = synchronize or (lambda: None)
    for _ in range(warmup):
        fn()
    samples = [_time_once(fn, sync, clock) for _ in range(repeats)]
    q25, q50, q75 = np.percentile(samples, [25, 50, 75])
    return float(q50), float(q75 - q25)


def interleaved(keys, repeats: int, seed: int = 0):
    """The visiting order: `repeats` rounds, each a fresh shuffle of all keys (seeded)."""
    gen = torch.Generator().manual_seed(seed)
    keys = list(keys)
    return [keys[i] for _ in range(repeats) for i in torch.randperm(len(keys), generator=gen).tolist()]


def pass_time_samples(models: dict, ks, context: int = 128, repeats: int = 10, warmup: int = 3,
                      seed: int = 0) -> dict:
    """{(name, k): [seconds, ...]}: passes of k new tokens after `context` cached tokens, interleaved.

    `models` maps a name to a model (e.g. {'target': t, 'draft': d}); every (model, k) pair is
    timed once per round, the rounds in shuffled order, after `warmup` untimed rounds; sample i
    of every key comes from round i, so samples of two keys can be paired. Each pass runs on a
    cache holding `context` random tokens, cropped back after the pass (outside the clock).
    """
    caches, devices = {}, {}
    gen = torch.Generator().manual_seed(seed)
    vocab = {name: model.get_output_embeddings().weight.shape[0] for name, model in models.items()}
    for name, model in models.items():
        devices[name] = model_device(model)
        _, caches[name] = prefill(model, torch.randint(vocab[name], (context,), generator=gen))
    ids = {(name, int(k)): torch.randint(vocab[name], (int(k),), generator=gen).to(devices[name])
           for name in models for k in ks}
    out = {key: [] for key in ids}
    for r, key in enumerate(interleaved(ids, warmup + repeats, seed)):
        name = key[0]
        seconds = _time_once(lambda: forward(models[name], ids[key], caches[name]), lambda: synchronize(devices[name]))
        caches[name] = crop_cache(caches[name], context)
        if r >= warmup * len(ids):
            out[key].append(seconds)
    return out


def draft_cost_ratio(samples: dict, draft: str = "draft", target: str = "target") -> Spread:
    """c = t_draft(1) / t_target(1), one ratio per round of `pass_time_samples` (the two passes of a
    round ran within moments of each other, so a slow minute of the machine cancels).

        >>> draft_cost_ratio({("target", 1): [2.0, 4.0, 2.0], ("draft", 1): [0.5, 1.0, 1.0]}).median
        0.25
    """
    pairs = zip(samples[(draft, 1)], samples[(target, 1)])
    return Spread.of([d / t for d, t in pairs])


def static_step(model, k: int, context: int = 128, seed: int = 0):
    """A callable running one pass of k tokens after `context` tokens on a StaticCache (eager).

    The cache is filled once; each call writes the same k positions again (the length counter is
    wound back after every call), so the call can be repeated, timed, or captured in a graph.
    """
    from transformers import StaticCache
    device = model_device(model)
    vocab = model.get_output_embeddings().weight.shape[0]
    gen = torch.Generator().manual_seed(seed)
    cache = StaticCache(config=model.config, max_cache_len=context + k)
    arg = cache_argument(model)
    with torch.inference_mode():
        model(input_ids=torch.randint(vocab, (1, context), generator=gen).to(device), use_cache=True, **{arg: cache})
    ids = torch.randint(vocab, (1, k), generator=gen).to(device)

    @torch.inference_mode()
    def step():
        logits = model(input_ids=ids, use_cache=True, **{arg: cache}).logits      # (1, k, V)
        cache.crop(-k)                                                          # back to `context` on the device
        return logits
    return step


def graphed(step, device, warmup: int = 3):
    """Capture `step` (a static-shape callable) in a CUDA graph; returns a callable that replays it."""
    if torch.device(device).type != "cuda":
        raise ValueError("CUDA graphs need a CUDA device")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    return graph.replay


def callable_time_samples(steps: dict, device, repeats: int = 10, warmup: int = 3, seed: int = 0) -> dict:
    """{key: [seconds, ...]} for zero-argument callables, interleaved and synchronized like `pass_time_samples`."""
    out = {key: [] for key in steps}
    for r, key in enumerate(interleaved(steps, warmup + repeats, seed)):
        seconds = _time_once(steps[key], lambda: synchronize(device))
        if r >= warmup * len(steps):
            out[key].append(seconds)
    return out
