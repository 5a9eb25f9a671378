"""The forward-call timer: how many passes each model ran, and the wall time spent inside them.

`model_clock(target=t, draft=d)` puts PyTorch forward hooks on each model for the length of a
`with` block, whoever calls the model (the course's engine, Hugging Face's `generate`, its
assistant), and yields one `ForwardTime` per name. The time of a whole run minus the time inside
the models is then the engine's own work: sampling, verification, cache crops, bookkeeping.

    >>> import torch
    >>> m = torch.nn.Linear(2, 2)
    >>> with model_clock(m=m) as spent:
    ...     _ = m(torch.zeros(1, 2)); _ = m(torch.zeros(1, 2))
    >>> spent["m"].calls, spent["m"].seconds > 0, m._forward_hooks == {}
    (2, True, True)
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from .prefill import cache_length, model_device
from .timing import synchronize


@dataclass
class ForwardTime:
    """One model's passes in a run: all of them, and apart those on an empty cache.

    A pass on an empty cache is the first pass of a request, over its whole prompt: it costs
    several decoding steps, so it must not be averaged into the price of a step.
    """

    seconds: float = 0.0
    calls: int = 0
    first_seconds: float = 0.0
    first_calls: int = 0

    def add(self, seconds: float, first: bool) -> None:
        self.seconds += seconds
        self.calls += 1
        if first:
            self.first_seconds += seconds
            self.first_calls += 1

    def step_seconds(self) -> float:
        """Mean seconds of a pass that is not a request's first (a decoding step or a round's pass).

        >>> ForwardTime(seconds=10.0, calls=5, first_seconds=4.0, first_calls=1).step_seconds()
        1.5
        """
        steps = self.calls - self.first_calls
        if steps < 1:
            raise ValueError(f"no pass after a request's first was timed ({self.calls} calls, "
                             f"{self.first_calls} first passes)")
        return (self.seconds - self.first_seconds) / steps


@contextlib.contextmanager
def model_clock(**models):
    """Yield {name: ForwardTime}, filled by hooks around every forward call of each model.

    The hooks synchronize the model's device before reading the clock at both ends (a CUDA
    pass is asynchronous: the synchronization before bills queued engine work to the engine,
    the one after bills the pass's kernels to the pass) and read only `time.perf_counter`
    (tens of nanoseconds). A costlier clock would be charged to the engine, and more often to
    speculative decoding (gamma + 1 model calls a round) than to plain decoding (one a token):
    `time.thread_time`, for one, costs about 0.2 ms a call on some virtual machines, a sizeable
    share of a small model's pass. The hooks are removed when the block ends (none may run
    inside a CUDA graph capture).
    """
    spent = {name: ForwardTime() for name in models}
    handles = []
    for name, model in models.items():
        device, start = model_device(model), {}

        def pre(module, args, kwargs, device=device, start=start):
            cache = kwargs.get("cache", kwargs.get("past_key_values"))
            start["first"] = cache is None or cache_length(cache) == 0
            synchronize(device)
            start["t"] = time.perf_counter()

        def post(module, args, output, name=name, device=device, start=start):
            synchronize(device)
            spent[name].add(time.perf_counter() - start["t"], start["first"])

        handles += [model.register_forward_pre_hook(pre, with_kwargs=True), model.register_forward_hook(post)]
    try:
        yield spent
    finally:
        for handle in handles:
            handle.remove()
