"""The course's engine on a CPU, like for like against Hugging Face assisted generation and plain decoding.

    python benchmarks/engine_cpu.py            # a few minutes on two cores; writes benchmarks/results/engine_cpu.md
    python benchmarks/engine_cpu.py --quick    # 2 repeats, 4 prompts: checks the script (not for publishing)

Both engines run the course-trained byte-level pair (`specdec.tiny_pair`) on the lab's 12 prompts
(`specdec.lab_prompts`, the last 120 bytes of each, about what the lab keeps, so that prompt +
tokens stay within the positions the pair was trained on), 48 new tokens each, gamma = 4, one thread.

Hugging Face `generate(assistant_model=draft)` is set up to do the same work as the course's engine
(transformers 5.x defaults differ, read from `GenerationConfig._get_default_generation_params`):

- `assistant_confidence_threshold = 0` (default 0.4: the draft stops early when its own top
  probability falls below an adaptive threshold, so HF makes more, shorter rounds);
- `num_assistant_tokens_schedule = "constant"`, `num_assistant_tokens = gamma` (default 20);
- `max_new_tokens = min_new_tokens = 48`; near the limit both engines draft only what can still be
  used (HF: `min(num_assistant_tokens, max_length - cur_len - 1)`, the course: `min(gamma, room - 1)`);
- sampling (T = 1): `do_sample=True, temperature=1.0, top_k=0, top_p=1.0` (HF's default top_k is 50;
  the course's engine samples from the full distribution).

Every forward of both models is counted by wrapping `forward`, so the table shows target passes
(= rounds) and draft passes of each engine, not only its own statistics. Each engine is warmed up
once, then the engines run in alternation (course, HF, plain, course, HF, plain, ...) for
`--repeats` repeats; tokens/s is reported as median and range, and the ratio course / HF per
repeat as median and range. Greedy outputs are compared token for token.
"""
from __future__ import annotations

import argparse
import datetime
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from specdec.engine.generate import plain_generate, speculative_generate  # noqa: E402
from specdec.engine.stats import RoundStats  # noqa: E402
from specdec.engine.timing import Quietness  # noqa: E402

GAMMA, N_NEW, PROMPT_BYTES = 4, 48, 120


class Counter:
    """Counts calls of model.forward (every pass, whoever makes it)."""

    def __init__(self, model):
        self.calls = 0
        inner = model.forward

        def counted(*a, **k):
            self.calls += 1
            return inner(*a, **k)
        model.forward = counted


def configure_hf_assistant(draft, gamma):
    """The draft's generation config for a constant gamma and no early stop (what HF reads from the assistant)."""
    cfg = draft.generation_config
    cfg.num_assistant_tokens = gamma
    cfg.num_assistant_tokens_schedule = "constant"
    cfg.assistant_confidence_threshold = 0.0
    return {k: getattr(cfg, k) for k in ("num_assistant_tokens", "num_assistant_tokens_schedule",
                                         "assistant_confidence_threshold")}


def hf_sampling_kwargs(temperature):
    if temperature == 0:
        return dict(do_sample=False)
    return dict(do_sample=True, temperature=temperature, top_k=0, top_p=1.0)


def run_hf(target, draft, prompts, temperature, seed):
    torch.manual_seed(seed)                      # HF samples from the global generator
    outs = []
    t0, c0 = time.perf_counter(), time.thread_time()
    for ids in prompts:
        x = ids[None, :]
        out = target.generate(x, attention_mask=torch.ones_like(x), assistant_model=draft, max_new_tokens=N_NEW,
                              min_new_tokens=N_NEW, pad_token_id=0, **hf_sampling_kwargs(temperature))
        outs.append(out[0, x.shape[1]:].tolist())
    return outs, (time.perf_counter() - t0, time.thread_time() - c0)


def run_course(target, draft, prompts, temperature, seed):
    gen = torch.Generator().manual_seed(seed)
    stats = RoundStats(GAMMA)
    outs = []
    t0, c0 = time.perf_counter(), time.thread_time()
    for ids in prompts:
        out, _ = speculative_generate(target, draft, ids, gamma=GAMMA, max_new_tokens=N_NEW, temperature=temperature,
                                      generator=gen, stats=stats)
        outs.append(out.tolist())
    return outs, (time.perf_counter() - t0, time.thread_time() - c0), stats


def run_plain(target, prompts, temperature, seed):
    gen = torch.Generator().manual_seed(seed)
    t0, c0 = time.perf_counter(), time.thread_time()
    outs = [plain_generate(target, ids, N_NEW, temperature=temperature, generator=gen).tolist() for ids in prompts]
    return outs, (time.perf_counter() - t0, time.thread_time() - c0)


def spread(xs, fmt="{:.0f}"):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"


def measure(target, draft, prompts, temperature, repeats, counts):
    """Alternating repeats of course / HF / plain; returns a dict of per-repeat lists and pass counts."""
    tc, dc = counts
    n_tokens = len(prompts) * N_NEW
    run_course(target, draft, prompts[:2], temperature, 0)                   # warm-up, each engine once
    run_hf(target, draft, prompts[:2], temperature, 0)
    run_plain(target, prompts[:2], temperature, 0)
    res = dict(course=[], hf=[], plain=[], ratio=[], share=[], course_passes=[], hf_passes=[], same=[], n_bar=[])
    for r in range(repeats):
        seed = 100 + r
        tc.calls = dc.calls = 0
        ours, t_ours, stats = run_course(target, draft, prompts, temperature, seed)
        res["course_passes"].append((tc.calls, dc.calls, stats.target_calls))
        res["n_bar"].append(stats.n_bar())
        tc.calls = dc.calls = 0
        theirs, t_hf = run_hf(target, draft, prompts, temperature, seed)
        res["hf_passes"].append((tc.calls, dc.calls))
        plain, t_plain = run_plain(target, prompts, temperature, seed)
        if sum(map(len, theirs)) != n_tokens or sum(map(len, ours)) != n_tokens:
            raise RuntimeError("an engine stopped early: the comparison needs the same number of tokens")
        res["course"].append(n_tokens / t_ours[0])
        res["hf"].append(n_tokens / t_hf[0])
        res["plain"].append(n_tokens / t_plain[0])
        res["ratio"].append(t_hf[0] / t_ours[0])
        res["share"] += [t[1] / t[0] for t in (t_ours, t_hf, t_plain)]     # CPU time / wall time: 1 when quiet
        res["same"].append((ours == theirs, ours == plain))
        res["greedy_outs"] = ours
        print(f"  T = {temperature}, repeat {r + 1}: course {res['course'][-1]:.0f} tok/s "
              f"({res['course_passes'][-1][0]} target passes), HF {res['hf'][-1]:.0f} tok/s "
              f"({res['hf_passes'][-1][0]} target passes), plain {res['plain'][-1]:.0f} tok/s", flush=True)
    return res


def table(res, temperature, n_prompts):
    passes_c = sorted({p[:2] for p in res["course_passes"]})
    passes_h = sorted(set(res["hf_passes"]))
    fmt_p = lambda ps: ", ".join(f"{t} / {d}" for t, d in ps)                # noqa: E731
    kind = "greedy" if temperature == 0 else f"sampling at T = {temperature:g} (full distribution, no top-k)"
    lines = [f"### {kind}", "",
             "| engine | target passes (= rounds) / draft passes, per run | tokens/s, median (range) |",
             "|---|---|---|",
             f"| course engine, gamma = {GAMMA} | {fmt_p(passes_c)} | {spread(res['course'])} |",
             f"| HF assisted, constant {GAMMA} drafts, threshold 0 | {fmt_p(passes_h)} | {spread(res['hf'])} |",
             f"| plain decoding (target alone) | {n_prompts * N_NEW} / 0 | {spread(res['plain'])} |", "",
             f"Ratio course / HF (per repeat, same prompts and tokens): **{spread(res['ratio'], '{:.2f}')}**. "
             f"Course engine against plain decoding: {spread([c / p for c, p in zip(res['course'], res['plain'])], '{:.2f}')}; "
             f"HF against plain: {spread([h / p for h, p in zip(res['hf'], res['plain'])], '{:.2f}')}. "
             f"Course n_bar: {spread(res['n_bar'], '{:.2f}')}."]
    if temperature == 0:
        same_hf = all(s[0] for s in res["same"])
        same_plain = all(s[1] for s in res["same"])
        lines.append(f"Greedy outputs identical: course = HF {same_hf}, course = plain {same_plain}.")
    else:
        lines.append("Sampled outputs differ between engines (different random streams); the pass counts differ "
                     "for the same reason and vary between repeats.")
    return lines + [""]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="2 repeats on 4 prompts; writes nothing")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "engine_cpu.md")
    args = ap.parse_args(argv)
    import transformers
    from transformers import logging as hf_logging
    from specdec.lab_prompts import all_prompts
    from specdec.tiny_pair import encode, load_tiny_pair
    hf_logging.set_verbosity_error()
    torch.set_num_threads(1)
    repeats = 2 if args.quick else args.repeats
    target, draft = load_tiny_pair()
    prompts = [encode(text)[-PROMPT_BYTES:] for _, text in all_prompts()]
    if args.quick:
        prompts = prompts[:4]
    counts = Counter(target), Counter(draft)
    t_start = time.time()
    draft.generation_config.num_assistant_tokens = GAMMA
    draft.generation_config.num_assistant_tokens_schedule = "constant"
    run_hf(target, draft, prompts[:2], 0.0, 0)
    counts[0].calls = counts[1].calls = 0
    default_outs, (t_default, _) = run_hf(target, draft, prompts, 0.0, 0)
    default_passes = (counts[0].calls, counts[1].calls)
    hf_settings = configure_hf_assistant(draft, GAMMA)
    results = {T: measure(target, draft, prompts, T, repeats, counts) for T in (0.0, 1.0)}
    minutes = (time.time() - t_start) / 60
    quiet = Quietness.of([x for res in results.values() for x in res["share"]])
    lines = [f"# The course's engine against Hugging Face assisted generation on a CPU", "",
             f"{datetime.date.today()}, torch {torch.__version__}, transformers {transformers.__version__}, one thread, "
             f"{minutes:.1f} min (`python benchmarks/engine_cpu.py`). Wall-clock time. {quiet}: {quiet.verdict()}.", "",
             f"Models: the course-trained byte-level pair (`specdec.tiny_pair`: target {target.config.n_layer} layers "
             f"of width {target.config.n_embd}, draft {draft.config.n_layer} layer of width {draft.config.n_embd}). "
             f"Prompts: the lab's {len(prompts)} prompts, last {PROMPT_BYTES} bytes; {N_NEW} new tokens each; "
             f"gamma = {GAMMA}; {repeats} alternating repeats after one warm-up run of each engine.", "",
             f"Hugging Face settings (on the assistant's generation config): {hf_settings}; "
             "`max_new_tokens = min_new_tokens = 48`. Passes are counted by wrapping each model's `forward`.", ""]
    for T, res in results.items():
        lines += table(res, T, len(prompts))
    same_default = default_outs == [o for o in results[0.0]["greedy_outs"]]
    lines += [f"For contrast, HF with `assistant_confidence_threshold` left at its default "
              f"({transformers.GenerationConfig._get_default_generation_params()['assistant_confidence_threshold']}) "
              f"and the other settings as above, greedy, one run: {default_passes[0]} target passes and "
              f"{default_passes[1]} draft passes, {len(prompts) * N_NEW / t_default:.0f} tokens/s "
              f"(same tokens: {same_default}).", ""]
    lines += ["What the ratio measures: both engines make the same target passes under greedy decoding, so the "
              "ratio reflects the difference in each engine's own per-round work (HF's candidate generator runs a "
              "`generate` call on the draft per round, with its logits processors and stopping criteria). "
              "With the confidence threshold at its default 0.4, HF stops drafting when the draft is unsure, so its "
              "rounds draft fewer tokens (compare the draft passes of the contrast run with the like-for-like row); "
              "with all the transformers 5.x defaults (20 drafts per round) its rounds are fewer and longer. Either "
              "way it runs a different algorithm, not a like-for-like comparison.", ""]
    text = "\n".join(lines)
    print(text)
    if not args.quick:
        args.out.parent.mkdir(exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
