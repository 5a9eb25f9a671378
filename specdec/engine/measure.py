"""Runs the lab times: plain, speculative and Hugging Face generation over a list of prompts.

Every run is timed the same way (`_timed_run`): wall clock and this thread's CPU time read once
at each end of the whole run, the device synchronized before both, and every forward call of
every model timed and counted by `clock.model_clock`. A run returns a dict with

    seconds, cpu_seconds   wall clock and thread CPU time of the whole run (on one thread on a
                           quiet machine their ratio is about 1: `timing.Quietness` judges it);
    tokens, n_tokens       each prompt's new tokens, and how many in all;
    passes                 {model name: clock.ForwardTime}: time and count of its passes, the
                           first pass of each request apart;

and a speculative run also `stats` (`RoundStats`). From two runs, `in_run_costs` reads chapter
05's costs in units of one plain decoding step (c, r_gamma, the engine's own work per round and
per plain token, each request's first passes); `first_divergence` says where two greedy outputs
part. The formulas that use these numbers live in `prediction`.

    >>> costs = in_run_costs(dict(seconds=12.0, passes={"target": ForwardTime(10.0, 10, 1.0, 1)}),
    ...                      dict(seconds=6.0, passes={"target": ForwardTime(4.0, 3, 2.0, 1),
    ...                                                "draft": ForwardTime(1.5, 9, 0.5, 1)}))
    >>> {k: round(v, 3) for k, v in costs.items()}
    {'o_plain': 0.2, 'first_plain': 1.0, 'c': 0.125, 'r_gamma': 1.0, 'o_round': 0.167, 'first_spec': 2.5}
"""
from __future__ import annotations

import copy
import time

import torch

from .clock import ForwardTime, model_clock
from .generate import plain_generate, speculative_generate
from .prefill import forward, model_device
from .stats import RoundStats
from .timing import synchronize


def _seeded_generator(device: torch.device, seed: int) -> torch.Generator:
    """A generator on the models' device (CUDA sampling needs a CUDA generator), seeded."""
    return torch.Generator(device=device).manual_seed(seed)


def _timed_run(models: dict, prompts, generate_one) -> dict:
    """generate_one(prompt) -> list of tokens for every prompt, inside `model_clock(**models)`.

    The CPU time is read once at each end (it costs about 0.2 ms a read on some machines: see
    `model_clock`), and the device is synchronized before both clocks are read, so queued GPU
    work lands in its run.
    """
    device = model_device(next(iter(models.values())))
    outs = []
    with model_clock(**models) as passes:
        synchronize(device)
        t0, c0 = time.perf_counter(), time.thread_time()
        for prompt in prompts:
            outs.append(generate_one(prompt))
        synchronize(device)
        seconds, cpu_seconds = time.perf_counter() - t0, time.thread_time() - c0
    return dict(seconds=seconds, cpu_seconds=cpu_seconds, tokens=outs, n_tokens=sum(map(len, outs)), passes=passes)


def run_plain(target, prompts, max_new_tokens: int, seed: int = 0, eos_token_id=None, cache_factory=None,
              **sampling) -> dict:
    """Plain decoding (the course's loop) after every prompt; the fields above."""
    gen = _seeded_generator(model_device(target), seed)
    return _timed_run(dict(target=target), prompts, lambda prompt: plain_generate(
        target, prompt, max_new_tokens, eos_token_id=eos_token_id, generator=gen, cache_factory=cache_factory,
        **sampling).tolist())


def run_speculative(target, draft, prompts, gamma: int, max_new_tokens: int, seed: int = 0, eos_token_id=None,
                    cache_factory=None, **sampling) -> dict:
    """The course's speculative engine after every prompt; the fields above and 'stats' (one RoundStats)."""
    stats = RoundStats(gamma)
    gen = _seeded_generator(model_device(target), seed)

    def generate_one(prompt):
        out, _ = speculative_generate(target, draft, prompt, gamma=gamma, max_new_tokens=max_new_tokens,
                                      eos_token_id=eos_token_id, generator=gen, stats=stats,
                                      cache_factory=cache_factory, **sampling)
        return out.tolist()
    return dict(stats=stats, **_timed_run(dict(target=target, draft=draft), prompts, generate_one))


def like_for_like(gamma: int) -> dict:
    """Hugging Face assistant settings under which its rounds are the course engine's: exactly gamma
    drafts a round (constant schedule) and no early stop (its default stops drafting when the draft's
    own confidence falls below 0.4, and drafts 20 tokens a round in transformers 5)."""
    return dict(num_assistant_tokens=gamma, num_assistant_tokens_schedule="constant",
                assistant_confidence_threshold=0.0)


def run_hf(target, prompts, max_new_tokens: int, assistant=None, assistant_settings: dict | None = None,
           temperature: float = 0.0, seed: int = 0, pad_token_id: int = 0, **generate_kwargs) -> dict:
    """Hugging Face `target.generate` after every prompt, exactly max_new_tokens each; the fields above.

    Exactly: `min_new_tokens = max_new_tokens`, which masks the end-of-text token, so compare the
    tokens with course runs made without an `eos_token_id`.

    assistant: a draft model for assisted generation (its passes are clocked as 'draft');
    assistant_settings: set on a copy of the assistant's generation config for this run only
    (e.g. `like_for_like(gamma)`; None: the assistant's own settings). Sampling at temperature
    T > 0 uses the full distribution (top_k 0, top_p 1, as the course's engine), seeded through
    `torch.manual_seed(seed)`, since `generate` draws from the global generator. Other keyword
    arguments go to `generate` (e.g. `prompt_lookup_num_tokens=4`).
    """
    device = model_device(target)
    sampling = dict(do_sample=False) if temperature == 0 else dict(do_sample=True, temperature=temperature,
                                                                    top_k=0, top_p=1.0)
    models = dict(target=target) if assistant is None else dict(target=target, draft=assistant)
    if assistant is not None:
        generate_kwargs["assistant_model"] = assistant
        saved = assistant.generation_config
        assistant.generation_config = copy.deepcopy(saved)
        for key, value in (assistant_settings or {}).items():
            setattr(assistant.generation_config, key, value)
    torch.manual_seed(seed)

    def generate_one(prompt):
        x = prompt[None, :].to(device)                                       # (1, T)
        out = target.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=max_new_tokens,
                              min_new_tokens=max_new_tokens, pad_token_id=pad_token_id, **sampling, **generate_kwargs)
        return out[0, x.shape[1]:].tolist()
    try:
        return _timed_run(models, prompts, generate_one)
    finally:
        if assistant is not None:
            assistant.generation_config = saved


def engine_seconds(run: dict) -> float:
    """The engine's own work in a run: its wall time minus the time inside every model's passes."""
    return run["seconds"] - sum(p.seconds for p in run["passes"].values())


def in_run_costs(plain: dict, spec: dict) -> dict:
    """Chapter 05's costs measured inside two runs on the same prompts, in units of one plain step.

    The unit, a plain step, is the target's mean pass in `plain` leaving out each request's first
    pass (it reads the whole prompt). Returns o_plain (the engine's own work per plain token),
    first_plain (a plain request's first pass), c (a draft pass), r_gamma (a target pass in a
    round), o_round (the engine's own work per round: a round is a target pass) and first_spec
    (both models' first passes of a speculative request).
    """
    step = plain["passes"]["target"].step_seconds()
    plain_t, spec_t, spec_d = plain["passes"]["target"], spec["passes"]["target"], spec["passes"]["draft"]
    return dict(o_plain=engine_seconds(plain) / plain_t.calls / step,
                first_plain=plain_t.first_seconds / plain_t.first_calls / step,
                c=spec_d.step_seconds() / step,
                r_gamma=spec_t.step_seconds() / step,
                o_round=engine_seconds(spec) / spec_t.calls / step,
                first_spec=(spec_t.first_seconds + spec_d.first_seconds) / spec_t.first_calls / step)


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
