"""Runs the lab times: plain, speculative and Hugging Face generation over a list of prompts.

Every run is timed the same way (`_timed_run`): wall clock and this thread's CPU time read once
at each end of the whole run, the device synchronized before both. Two kinds of run, never mixed:

* **clocked** (`clocked=True`, the default): every forward call of every model is also timed and
  counted by `clock.model_clock`, whose hooks synchronize the device around each pass. That
  attributes a run's time to passes and to the engine's own work, but the synchronizations take
  away the overlap of host and device a real run has (gamma + 1 of them a round on a GPU), and
  the hooks cost a little per call: a clocked run's wall time is not the speed of the engine.
* **unclocked** (`clocked=False`): no hooks; `passes` is None. Speedups come from these only,
  alternated and warmed up by `alternating_runs`; the costs come from separate clocked runs.

A run returns a dict with

    seconds, cpu_seconds   wall clock and thread CPU time of the whole run (on one thread on a
                           quiet machine their ratio is about 1: `timing.Quietness` judges it);
    tokens, n_tokens       each prompt's new tokens, and how many in all;
    passes                 {model name: clock.ForwardTime}: time and count of its passes, the
                           first pass of each request apart (None in an unclocked run);

and a speculative run also `stats` (`RoundStats`). From two clocked runs, `in_run_costs` reads
chapter 05's costs in units of one plain decoding step (c, r_gamma, the engine's own work per
round and per plain token, each request's first passes); `first_divergence` says where two greedy
outputs part. The formulas that use these numbers live in `prediction`.

    >>> costs = in_run_costs(dict(seconds=12.0, passes={"target": ForwardTime(10.0, 10, 1.0, 1)}),
    ...                      dict(seconds=6.0, passes={"target": ForwardTime(4.0, 3, 2.0, 1),
    ...                                                "draft": ForwardTime(1.5, 9, 0.5, 1)}))
    >>> {k: round(v, 3) for k, v in costs.items()}
    {'o_plain': 0.2, 'first_plain': 1.0, 'c': 0.125, 'r_gamma': 1.0, 'o_round': 0.167, 'first_spec': 2.5}
"""
from __future__ import annotations

import contextlib
import copy
import random
import time

import numpy as np
import torch

from .clock import ForwardTime, model_clock
from .generate import plain_generate, speculative_generate
from .prefill import forward, model_device
from .stats import RoundStats
from .timing import synchronize


def _seeded_generator(device: torch.device, seed: int) -> torch.Generator:
    """A generator on the models' device (CUDA sampling needs a CUDA generator), seeded."""
    return torch.Generator(device=device).manual_seed(seed)


def _timed_run(models: dict, prompts, generate_one, clocked: bool = True) -> dict:
    """generate_one(prompt) -> list of tokens for every prompt, inside `model_clock(**models)` if clocked.

    The CPU time is read once at each end (it costs about 0.2 ms a read on some machines: see
    `model_clock`), and the device is synchronized before both clocks are read, so queued GPU
    work lands in its run. Unclocked, nothing is synchronized in between.
    """
    device = model_device(next(iter(models.values())))
    outs = []
    with (model_clock(**models) if clocked else contextlib.nullcontext()) as passes:
        synchronize(device)
        t0, c0 = time.perf_counter(), time.thread_time()
        for prompt in prompts:
            outs.append(generate_one(prompt))
        synchronize(device)
        seconds, cpu_seconds = time.perf_counter() - t0, time.thread_time() - c0
    return dict(seconds=seconds, cpu_seconds=cpu_seconds, tokens=outs, n_tokens=sum(map(len, outs)), passes=passes)


def tokens_per_second_ratio(plain: dict, spec: dict) -> float:
    """The speedup of one pair of runs: tokens per second of `spec` over those of `plain`."""
    return (spec["n_tokens"] / spec["seconds"]) / (plain["n_tokens"] / plain["seconds"])


def alternating_runs(runs: dict, repeats: int, anchor="plain", seed: int = 0, warmup: bool = True) -> list[dict]:
    """Run every setting once per repeat, alternated so that a slow minute of the machine hits all alike.

    runs: {name: run(rep) -> run record} (e.g. unclocked `run_plain` / `run_speculative` with a seed
    per repeat); the `anchor` (plain decoding) runs first in even repeats and last in odd ones, the
    others in a fresh seeded shuffle. With `warmup`, each setting runs once before the timed repeats,
    untimed (repeat -1), so the first timed run pays no one-off allocation. Returns one {name: record}
    per repeat.

        >>> order = []
        >>> out = alternating_runs({"plain": lambda r: order.append(("p", r)), 3: lambda r: order.append((3, r))}, 2,
        ...                        warmup=False)
        >>> order
        [('p', 0), (3, 0), (3, 1), ('p', 1)]
    """
    shuffle = random.Random(seed)
    others = [name for name in runs if name != anchor]
    if warmup:
        for name in runs:
            runs[name](-1)
    out = []
    for rep in range(repeats):
        order = shuffle.sample(others, len(others))
        order = [anchor] + order if rep % 2 == 0 else order + [anchor]
        out.append({name: runs[name](rep) for name in order})
    return out


def run_plain(target, prompts, max_new_tokens: int, seed: int = 0, eos_token_id=None, cache_factory=None,
              clocked: bool = True, **sampling) -> dict:
    """Plain decoding (the course's loop) after every prompt; the fields above."""
    gen = _seeded_generator(model_device(target), seed)
    return _timed_run(dict(target=target), prompts, lambda prompt: plain_generate(
        target, prompt, max_new_tokens, eos_token_id=eos_token_id, generator=gen, cache_factory=cache_factory,
        **sampling).tolist(), clocked)


def run_speculative(target, draft, prompts, gamma: int, max_new_tokens: int, seed: int = 0, eos_token_id=None,
                    cache_factory=None, clocked: bool = True, **sampling) -> dict:
    """The course's speculative engine after every prompt; the fields above and 'stats' (one RoundStats)."""
    stats = RoundStats(gamma)
    gen = _seeded_generator(model_device(target), seed)

    def generate_one(prompt):
        out, _ = speculative_generate(target, draft, prompt, gamma=gamma, max_new_tokens=max_new_tokens,
                                      eos_token_id=eos_token_id, generator=gen, stats=stats,
                                      cache_factory=cache_factory, **sampling)
        return out.tolist()
    return dict(stats=stats, **_timed_run(dict(target=target, draft=draft), prompts, generate_one, clocked))


def like_for_like(gamma: int) -> dict:
    """Hugging Face assistant settings under which its rounds are the course engine's: exactly gamma
    drafts a round (constant schedule) and no early stop (its default stops drafting when the draft's
    own confidence falls below 0.4, and drafts 20 tokens a round in transformers 5)."""
    return dict(num_assistant_tokens=gamma, num_assistant_tokens_schedule="constant",
                assistant_confidence_threshold=0.0)


def run_hf(target, prompts, max_new_tokens: int, assistant=None, assistant_settings: dict | None = None,
           temperature: float = 0.0, seed: int = 0, pad_token_id: int = 0, clocked: bool = True,
           **generate_kwargs) -> dict:
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
        return _timed_run(models, prompts, generate_one, clocked)
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


def paired_costs(target, draft, prompts, gammas, max_new_tokens: int, repeats: int, seed: int = 0,
                 **sampling) -> dict:
    """{gamma: [in_run_costs of one repeat, ...]} from clocked runs, each gamma beside its own plain run.

    The unit of every cost is a plain step, so the plain run that measures it runs right next to
    the speculative run whose passes it divides (plain first in even repeats, last in odd ones;
    the gammas in a seeded shuffle): a slow minute of the machine then lands on both, and one
    slow plain run cannot scale every gamma's costs at once. Take medians over the repeats.
    """
    out = {g: [] for g in gammas}
    for rep in range(repeats):
        for g in random.Random(seed + rep).sample(list(gammas), len(gammas)):
            runs = {}
            for name in (("plain", "spec") if rep % 2 == 0 else ("spec", "plain")):
                runs[name] = (run_plain(target, prompts, max_new_tokens, seed=seed + rep, **sampling) if name == "plain"
                              else run_speculative(target, draft, prompts, g, max_new_tokens, seed=seed + rep, **sampling))
            out[g].append(in_run_costs(runs["plain"], runs["spec"]))
    return out


def median_costs(parts: list) -> dict:
    """The median of each cost over repeats (a list of `in_run_costs` dicts)."""
    return {key: float(np.median([part[key] for part in parts])) for key in parts[0]}


def speedup_sweep(target, draft, prompts, gammas, max_new_tokens: int, repeats: int, seed: int = 0,
                  **sampling) -> dict:
    """Wall-clock speedups from unclocked runs: plain decoding and every gamma, alternated, warmed up.

    Each repeat runs plain decoding and every gamma once (`alternating_runs`, seed `seed + rep` for
    all of them); the speedup of a repeat is the ratio of tokens per second, speculative over plain.
    Returns {'speedup': {gamma: [...]}, 'n_bar': {gamma: [...]}, 'stats': {gamma: RoundStats},
    'cpu_share': [thread CPU time / wall time of every timed run], 'plain_tokens_per_second': [...],
    'last': the last repeat's run records}.
    """
    def runner(g):
        def run(rep):
            ps, n = (prompts[:1], min(8, max_new_tokens)) if rep < 0 else (prompts, max_new_tokens)  # warm-up: small
            if g == "plain":
                return run_plain(target, ps, n, seed=seed + rep, clocked=False, **sampling)
            return run_speculative(target, draft, ps, g, n, seed=seed + rep, clocked=False, **sampling)
        return run
    reps = alternating_runs({name: runner(name) for name in ["plain", *gammas]}, repeats, seed=seed)
    out = dict(speedup={g: [] for g in gammas}, n_bar={g: [] for g in gammas},
               stats={g: RoundStats(g) for g in gammas}, cpu_share=[], plain_tokens_per_second=[], last=reps[-1])
    for rec in reps:
        plain = rec["plain"]
        out["plain_tokens_per_second"].append(plain["n_tokens"] / plain["seconds"])
        out["cpu_share"] += [r["cpu_seconds"] / r["seconds"] for r in rec.values()]
        for g in gammas:
            out["speedup"][g].append(tokens_per_second_ratio(plain, rec[g]))
            out["n_bar"][g].append(rec[g]["stats"].n_bar())
            out["stats"][g].merge(rec[g]["stats"])
    return out


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
