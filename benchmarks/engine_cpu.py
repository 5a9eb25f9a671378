"""The course's engine on a CPU, like for like against Hugging Face assisted generation and plain decoding.

    python benchmarks/engine_cpu.py            # a few minutes on two cores; writes benchmarks/results/engine_cpu.md
    python benchmarks/engine_cpu.py --quick    # 2 repeats, 4 prompts: checks the script (not for publishing)

Both engines run the course-trained byte-level pair (`specdec.tiny_pair`) on the lab's 12 prompts
(`specdec.lab_prompts`, the last 120 bytes of each, about what the lab keeps, so that prompt +
tokens stay within the positions the pair was trained on), 48 new tokens each, gamma = 4, one thread.

Hugging Face `generate(assistant_model=draft)` runs with `specdec.engine.measure.like_for_like(gamma)`
and `run_hf`'s sampling settings, so it does the same work as the course's engine (transformers 5.x
defaults differ, read from `GenerationConfig._get_default_generation_params`: a confidence threshold
of 0.4, 20 assistant tokens, top_k 50). Near the token limit both engines draft only what can still
be used (HF: `min(num_assistant_tokens, max_length - cur_len - 1)`, the course: `min(gamma, room - 1)`).
`measure` says how the engines are timed and compared; the README lists this script, and its
recorded result, under "For authors".
"""
from __future__ import annotations

import argparse
import datetime
import statistics
import time
from pathlib import Path

import torch

from specdec.engine.measure import like_for_like, run_hf, run_plain, run_speculative
from specdec.engine.timing import Quietness

GAMMA, N_NEW, PROMPT_BYTES = 4, 48, 120


def spread(xs, fmt="{:.0f}"):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"


def measure(target, draft, prompts, temperature, repeats):
    """Alternating repeats of course / HF / plain; returns a dict of per-repeat lists and pass counts.

    Every run goes through `specdec.engine.measure` (`run_speculative`, `run_hf`, `run_plain`), whose
    clock counts every forward of both models, so the table shows target passes (= rounds) and draft
    passes of each engine, not only its own statistics. Each engine is warmed up once, then the
    engines run in alternation (course, HF, plain, course, HF, plain, ...) for `repeats` repeats;
    tokens/s is reported as median and range, and the ratio course / HF per repeat as median and
    range. Greedy outputs are compared token for token."""
    n_tokens = len(prompts) * N_NEW
    runs = dict(course=lambda seed: run_speculative(target, draft, prompts, GAMMA, N_NEW, seed, temperature=temperature),
                hf=lambda seed: run_hf(target, prompts, N_NEW, assistant=draft, assistant_settings=like_for_like(GAMMA),
                                       temperature=temperature, seed=seed),
                plain=lambda seed: run_plain(target, prompts, N_NEW, seed, temperature=temperature))
    for name in runs:                                                          # warm-up, each engine once
        (run_speculative(target, draft, prompts[:2], GAMMA, N_NEW, temperature=temperature) if name == "course" else
         run_hf(target, prompts[:2], N_NEW, assistant=draft, assistant_settings=like_for_like(GAMMA),
                temperature=temperature) if name == "hf" else run_plain(target, prompts[:2], N_NEW, temperature=temperature))
    res = dict(course=[], hf=[], plain=[], ratio=[], share=[], course_passes=[], hf_passes=[], same=[], n_bar=[])
    for r in range(repeats):
        done = {name: run(100 + r) for name, run in runs.items()}
        ours, theirs, plain = done["course"], done["hf"], done["plain"]
        res["course_passes"].append((ours["passes"]["target"].calls, ours["passes"]["draft"].calls))
        res["n_bar"].append(ours["stats"].n_bar())
        res["hf_passes"].append((theirs["passes"]["target"].calls, theirs["passes"]["draft"].calls))
        if theirs["n_tokens"] != n_tokens or ours["n_tokens"] != n_tokens:
            raise RuntimeError("an engine stopped early: the comparison needs the same number of tokens")
        for name in runs:
            res[name].append(n_tokens / done[name]["seconds"])
        res["ratio"].append(theirs["seconds"] / ours["seconds"])
        res["share"] += [d["cpu_seconds"] / d["seconds"] for d in done.values()]   # CPU time / wall time: 1 when quiet
        res["same"].append((ours["tokens"] == theirs["tokens"], ours["tokens"] == plain["tokens"]))
        res["greedy_outs"] = ours["tokens"]
        print(f"  T = {temperature}, repeat {r + 1}: course {res['course'][-1]:.0f} tok/s "
              f"({res['course_passes'][-1][0]} target passes), HF {res['hf'][-1]:.0f} tok/s "
              f"({res['hf_passes'][-1][0]} target passes), plain {res['plain'][-1]:.0f} tok/s", flush=True)
    return res


def table(res, temperature, n_prompts):
    passes_c = sorted(set(res["course_passes"]))
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
    t_start = time.time()
    contrast = dict(num_assistant_tokens=GAMMA, num_assistant_tokens_schedule="constant")   # threshold: the default
    run_hf(target, prompts[:2], N_NEW, assistant=draft, assistant_settings=contrast)
    default = run_hf(target, prompts, N_NEW, assistant=draft, assistant_settings=contrast)
    default_outs, t_default = default["tokens"], default["seconds"]
    default_passes = (default["passes"]["target"].calls, default["passes"]["draft"].calls)
    hf_settings = like_for_like(GAMMA)
    results = {T: measure(target, draft, prompts, T, repeats) for T in (0.0, 1.0)}
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
             "`max_new_tokens = min_new_tokens = 48`. Passes are counted by forward hooks on each model "
             "(`specdec.engine.clock.model_clock`).", ""]
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
