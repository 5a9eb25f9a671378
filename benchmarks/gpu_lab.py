"""The timing half of the chapter 12 lab on one GPU: GPT-2 drafting for GPT-2-XL.

    python benchmarks/gpu_lab.py                      # CUDA GPU; < 8 minutes on one H100/H200
    python benchmarks/gpu_lab.py --random-weights     # CUDA GPU; real shapes, random weights, even if weights exist
    python benchmarks/gpu_lab.py --dry                # CPU, tiny random models: the script end to end (seconds)
    python benchmarks/gpu_lab.py --dry --real-shapes  # CPU: GPT-2 / GPT-2-XL widths, heads and vocabulary with
                                                      # one layer each (the real-shape code path, small)

What comes from where. Timings do not depend on the weights, only on the shapes: with no internet
and no checkpoints (an air-gapped cluster) the script builds GPT-2-XL (target) and GPT-2 (draft) at
their real shapes with random weights, in float16 on the GPU, and measures (a) the target's pass time
against k, interleaved over k, synchronized, warmed up, repeated (median, quartiles, range), beside
chapter 01's roofline for the detected GPU; (b) the draft cost ratio c from one-token passes, beside
the layer ratio (12 / 48 = 0.25) and the byte ratio (124M / 1,558M parameters = 0.080); (c) the same
passes on a static KV cache in eager mode and replayed from CUDA graphs; (e) the engine's own work
per round (wall time minus the time inside the models' passes), with dynamic and static caches, and
Hugging Face assisted generation's, each divided by that engine's own round count (counted target
passes). Acceptance (survival, n_bar) and the measured speedup need the real weights: they are
measured only when gpt2 and gpt2-xl are on disk (Hugging Face cache or SPECDEC_GPT2_DIR; never
downloaded); otherwise the speedup is only predicted for stated alphas from the measured costs. Every
row of the output names its source: "real weights", "random weights, real shapes" or "dry".

What to expect (chapter 12). At batch 1 in eager mode a 1.5B-parameter model in Hugging Face is
often launch-bound, not bandwidth-bound: GPT-2-XL issues roughly 48 x 15 kernels per pass, a few
microseconds of launch each, so its one-token pass takes several times the roofline time of
reading its 3.1 GB, and the pass time grows little with k up to tens of tokens. The 12-layer draft
launches a quarter of the kernels, so c sits near the layer ratio 0.25, far above the byte ratio
0.08. With CUDA graphs the launch cost goes, both passes approach their rooflines, and c falls
toward the byte ratio; the engine's own Python work per round (sampling, verification, cache
bookkeeping, one host sync) is then a larger share of a round. Which regime a given GPU is in is
what the measurements decide.

Output: Markdown at --out (default benchmarks/results/gpu_lab.md, or gpu_lab_dry*.md for dry runs)
and a JSON file beside it, with the date, the device and the software versions. Dry runs say so in
their title and are never GPU results.
"""
from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from specdec.engine.generate import plain_generate, speculative_generate  # noqa: E402
from specdec.engine.models import load_gpt2_pair, random_gpt2  # noqa: E402
from specdec.engine.stats import RoundStats  # noqa: E402
from specdec.engine.timing import (Spread, callable_time_samples, graphed, pass_time_samples,  # noqa: E402
                                   static_step, synchronize)

LAYER_RATIO = 12 / 48
BYTE_RATIO = 124_439_808 / 1_557_611_200


def log(msg):
    print(msg, flush=True)


# --- models ---------------------------------------------------------------------------------------

def first_layer_draft(target):
    from transformers import GPT2LMHeadModel
    cfg = target.config.__class__.from_dict(target.config.to_dict())
    cfg.n_layer = 1
    draft = GPT2LMHeadModel(cfg)
    draft.load_state_dict({k: v for k, v in target.state_dict().items() if not k.startswith("transformer.h.")
                           or k.startswith("transformer.h.0.")}, strict=False)
    return draft.to(target.dtype).eval()


def models(args, device):
    """(target, draft, tokenizer or None, source label)."""
    if args.dry and args.real_shapes:
        t = random_gpt2("gpt2-xl", device, torch.float32, seed=0, n_layer=args.layers)
        d = random_gpt2("gpt2", device, torch.float32, seed=1, n_layer=args.layers)
        return t, d, None, f"dry: GPT-2-XL and GPT-2 widths, heads and vocabulary, {args.layers} layer(s) each, random"
    if args.dry:
        t = random_gpt2("tiny", device, torch.float32, seed=0, vocab_size=512, n_positions=512)
        return t, first_layer_draft(t), None, "dry: random tiny models (2-layer target, its first layer as draft)"
    if not args.random_weights:
        try:
            target, draft, tok = load_gpt2_pair(device, torch.float16)
            return target, draft, tok, "real weights"
        except FileNotFoundError as err:
            log(f"real weights not found ({str(err)[:100]}...): timing with RANDOM weights of the real shapes")
    return (random_gpt2("gpt2-xl", device, torch.float16, seed=0), random_gpt2("gpt2", device, torch.float16, seed=1),
            None, "random weights, real shapes")


def prompts(tok, vocab, n, length, seed=0):
    if tok is not None:
        from specdec.lab_prompts import all_prompts
        return [tok(text, return_tensors="pt").input_ids[0] for _, text in all_prompts()][:n]
    gen = torch.Generator().manual_seed(seed)
    return [torch.randint(vocab - 1, (length,), generator=gen) for _ in range(n)]


# --- timed runs -----------------------------------------------------------------------------------

class PassClock:
    """Wraps model.forward: counts passes and adds the synchronized seconds spent inside them.

    A synchronization before the pass bills the engine's own queued kernels to the engine, one
    after it bills the pass's kernels to the pass.
    """

    def __init__(self, model, device):
        self.calls, self.seconds, self.model = 0, 0.0, model
        inner = model.forward

        def timed(*a, **k):
            synchronize(device)
            t0 = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                synchronize(device)
                self.seconds += time.perf_counter() - t0
                self.calls += 1
        model.forward = timed

    def reset(self):
        self.calls, self.seconds = 0, 0.0

    def remove(self):
        del self.model.forward                         # the class's own forward again


def seeded(device, seed):
    return torch.Generator(device=device).manual_seed(seed)


def run_course(target, draft, ids, gamma, n_new, temperature, device, seed=0, cache_factory=None):
    stats = RoundStats(gamma)
    gen = seeded(device, seed)
    outs = []
    synchronize(device)
    t0 = time.perf_counter()
    for x in ids:
        out, _ = speculative_generate(target, draft, x, gamma=gamma, max_new_tokens=n_new, temperature=temperature,
                                      generator=gen, stats=stats, cache_factory=cache_factory)
        outs.append(out.tolist())
    synchronize(device)
    return dict(seconds=time.perf_counter() - t0, stats=stats, tokens=outs, n_tokens=sum(map(len, outs)))


def run_plain(target, ids, n_new, temperature, device, seed=0, cache_factory=None):
    gen = seeded(device, seed)
    synchronize(device)
    t0 = time.perf_counter()
    outs = [plain_generate(target, x, n_new, temperature=temperature, generator=gen,
                           cache_factory=cache_factory).tolist() for x in ids]
    synchronize(device)
    return dict(seconds=time.perf_counter() - t0, tokens=outs, n_tokens=sum(map(len, outs)))


def run_hf(target, draft, ids, gamma, n_new, device):
    """HF assisted generation, greedy, doing the course engine's work: constant gamma drafts, no early stop."""
    cfg = draft.generation_config
    cfg.num_assistant_tokens, cfg.num_assistant_tokens_schedule, cfg.assistant_confidence_threshold = gamma, "constant", 0.0
    outs = []
    synchronize(device)
    t0 = time.perf_counter()
    for x in ids:
        x = x[None, :].to(device)
        out = target.generate(x, attention_mask=torch.ones_like(x), assistant_model=draft, do_sample=False,
                              max_new_tokens=n_new, min_new_tokens=n_new, pad_token_id=0)
        outs.append(out[0, x.shape[1]:].tolist())
    synchronize(device)
    return dict(seconds=time.perf_counter() - t0, tokens=outs, n_tokens=sum(map(len, outs)))


def static_factory(max_len):
    from transformers import StaticCache
    return lambda model: StaticCache(config=model.config, max_cache_len=max_len)


def ms(spread: Spread) -> str:
    s = spread.scaled(1e3)
    return f"{s.median:.3f} ({s.q1:.3f}-{s.q3:.3f}; {s.low:.3f}-{s.high:.3f})"


# --- the lab --------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry", action="store_true", help="CPU, tiny random models: test the script end to end")
    ap.add_argument("--real-shapes", action="store_true", help="with --dry: GPT-2/GPT-2-XL widths and vocabulary")
    ap.add_argument("--layers", type=int, default=1, help="with --dry --real-shapes: layers per model")
    ap.add_argument("--random-weights", action="store_true", help="GPU: random weights at the real shapes")
    ap.add_argument("--out", type=Path, default=None, help="Markdown table (default benchmarks/results/...)")
    ap.add_argument("--budget", type=float, default=420.0, help="seconds after which optional parts are skipped")
    args = ap.parse_args(argv)
    if args.real_shapes and not args.dry:
        ap.error("--real-shapes is the CPU check of the real-shape path: use it with --dry (on a GPU the real shapes "
                 "are the default)")
    t_start = time.time()
    from transformers import logging as hf_logging
    hf_logging.set_verbosity_error()
    if not args.dry and not torch.cuda.is_available():
        sys.exit("no CUDA GPU: run with --dry to check the script on a CPU")
    device = torch.device("cpu" if args.dry else "cuda")
    if args.dry:
        torch.set_num_threads(1)
    gpu = "CPU (dry run)" if args.dry else torch.cuda.get_device_name(0)
    stem = ("gpu_lab_dry_real_shapes" if args.real_shapes else "gpu_lab_dry") if args.dry else "gpu_lab"
    out = args.out or Path(__file__).resolve().parent / "results" / f"{stem}.md"
    target, draft, tok, source = models(args, device)
    timing_source = source if source != "real weights" else "real weights (timings do not depend on them)"
    acceptance_real = source == "real weights" or (args.dry and not args.real_shapes)   # random real shapes: no
    vocab = target.get_output_embeddings().weight.shape[0]
    small = args.dry
    log(f"device: {gpu}; models: {source}")
    res = dict(date=datetime.datetime.now().isoformat(timespec="seconds"), device=gpu, source=source,
               dry=args.dry, torch=torch.__version__, transformers=__import__("transformers").__version__,
               python=platform.python_version(), target_layers=target.config.n_layer, draft_layers=draft.config.n_layer)
    context = 64 if small else 128
    repeats, warmup = (3, 1) if small else (15, 3)
    gammas = [1, 2, 4] if small else [1, 2, 3, 4, 5, 6, 8]

    # (a) pass time against k, interleaved, and chapter 01's roofline; (b) c from the same rounds
    ks = sorted({1, 2, 4, 8} | {g + 1 for g in gammas}) if small else \
        sorted({1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128} | {g + 1 for g in gammas})
    samples = pass_time_samples({"target": target, "draft": draft}, ks if not args.real_shapes else ks[:6],
                                context=context, repeats=repeats, warmup=warmup)
    ks = sorted({k for name, k in samples if name == "target"})
    t_pass = {k: Spread.of(samples[("target", k)]) for k in ks}
    t_draft = {k: Spread.of(samples[("draft", k)]) for k in ks}
    roof, roof_draft = {}, None
    if not args.dry:
        from specdec.cost_model import step_cost
        from specdec.hardware import GPUS
        from specdec.model_specs import MODELS
        chip = next((g for name, g in GPUS.items() if name in gpu), None)
        if chip is not None:
            cost = step_cost(MODELS["gpt2-xl"], chip, T_bar=context)
            roof = {k: float(cost.t_pass(1, k)) for k in ks}
            roof_draft = float(step_cost(MODELS["gpt2"], chip, T_bar=context).t_pass(1, 1))
    ratios = [d / t for d, t in zip(samples[("draft", 1)], samples[("target", 1)])]   # same round, paired
    c = Spread.of(ratios)
    res["pass_ms"] = {k: vars(t_pass[k].scaled(1e3)) for k in ks}
    res["draft_pass_ms"] = {k: vars(t_draft[k].scaled(1e3)) for k in ks}
    res["roofline_ms"] = {k: v * 1e3 for k, v in roof.items()}
    res["c"] = vars(c)
    log("(a) " + ", ".join(f"k={k}: {t_pass[k].median * 1e3:.2f} ms" for k in ks))
    log(f"(b) c = {c}")

    # (c) the same passes on a static cache, eager and from CUDA graphs
    modes = {}
    static_ks = [1] + [g + 1 for g in gammas if g + 1 in (2, 4, 5)]
    steps = {}
    for name, model in (("target", target), ("draft", draft)):
        for k in static_ks if name == "target" else [1]:
            steps[(name, "static eager", k)] = static_step(model, k, context)
    for key, xs in callable_time_samples(steps, device, repeats=repeats, warmup=warmup).items():
        modes[key] = Spread.of(xs)
    log("(c) static cache, eager: " + ", ".join(f"{n} k={k}: {s.median * 1e3:.2f} ms" for (n, _, k), s in modes.items()))
    # CUDA graphs are captured last (after (d) and (e)): a capture that fails can leave the CUDA
    # context unusable, and it must not take the other measurements with it.

    # (d) acceptance and speedup: measured with real weights (or dry models), predicted otherwise
    n_new = 16 if small else 64
    ids = prompts(tok, vocab, 12, 24)
    if small:
        ids = ids[:4]
    fit, check = ids[0::2], ids[1::2]                  # predictions from one half, checked on the other
    rows, sampled_rows = [], []
    if acceptance_real:
        run_course(target, draft, fit[:1], 2, 8, 0.0, device)            # warm-up
        run_plain(target, fit[:1], 8, 0.0, device)
        fitted = run_course(target, draft, fit, max(gammas), n_new, 0.0, device)
        survival = fitted["stats"].survival()
        res["survival_fit_half"] = survival.tolist()
        for temperature in (0.0, 1.0):
            fitted_T = fitted if temperature == 0 else run_course(target, draft, fit, max(gammas), n_new, 1.0, device)
            surv_T = fitted_T["stats"].survival()
            for g in gammas if temperature == 0 else [g for g in gammas if g in ((2,) if small else (2, 4))]:
                if time.time() - t_start > args.budget:
                    log(f"budget reached: T = {temperature}, gamma >= {g} skipped")
                    break
                n_pred = 1 + float(surv_T[:g].sum())
                speed, n_bars, same = [], [], True
                for r in range(1 if small else 2):       # alternating plain / speculative repeats
                    plain = run_plain(target, check, n_new, temperature, device, seed=r)
                    run = run_course(target, draft, check, g, n_new, temperature, device, seed=r)
                    speed.append(plain["seconds"] / run["seconds"])
                    n_bars.append(run["stats"].n_bar())
                    same = same and (temperature > 0 or run["tokens"] == plain["tokens"])
                ratio = t_pass[g + 1].median / t_pass[1].median if g + 1 in t_pass else float("nan")
                pred = n_pred / (g * c.median + ratio)
                row = dict(temperature=temperature, gamma=g, n_bar=float(sum(n_bars) / len(n_bars)),
                           n_bar_pred=n_pred, pass_ratio=ratio, speedup=vars(Spread.of(speed)), speedup_pred=pred,
                           greedy_equal=same if temperature == 0 else None)
                (rows if temperature == 0 else sampled_rows).append(row)
                log(f"(d) T={temperature} gamma={g}: n_bar {row['n_bar']:.2f} (pred {n_pred:.2f}), speedup "
                    f"{Spread.of(speed)} (pred {pred:.2f})")
    res["sweep"], res["sweep_T1"] = rows, sampled_rows
    assumed = {}
    for alpha in (0.6, 0.7, 0.8):
        assumed[alpha] = {g: ((1 - alpha ** (g + 1)) / (1 - alpha)) /
                          (g * c.median + t_pass[g + 1].median / t_pass[1].median) for g in gammas if g + 1 in t_pass}
    res["speedup_for_assumed_alpha"] = assumed

    # (e) the engines' own work per round: wall time minus the time inside the models' passes
    g = 4 if 4 in gammas else gammas[-1]
    clocks = PassClock(target, device), PassClock(draft, device)
    eng = {}
    over_ids = ids[:4] if not args.real_shapes else ids[:2]
    n_over = n_new if not args.real_shapes else 8
    for label, factory in (("course engine, dynamic cache", None),
                           ("course engine, static cache", static_factory(max(len(x) for x in over_ids) + n_over + g + 1))):
        if time.time() - t_start > args.budget:
            log(f"budget reached: {label} skipped")
            continue
        run_course(target, draft, over_ids[:1], g, 8, 0.0, device, cache_factory=factory)   # warm-up
        samples_over = []
        for r in range(2 if small else 3):
            for ck in clocks:
                ck.reset()
            run = run_course(target, draft, over_ids, g, n_over, 0.0, device, cache_factory=factory)
            rounds = clocks[0].calls
            samples_over.append((run["seconds"] - clocks[0].seconds - clocks[1].seconds) / rounds)
        eng[label] = dict(rounds=rounds, draft_passes=clocks[1].calls, overhead=Spread.of(samples_over),
                          tok_s=run["n_tokens"] / run["seconds"])
    if time.time() - t_start <= args.budget:
        run_hf(target, draft, over_ids[:1], g, 8, device)                               # warm-up
        samples_over = []
        for r in range(2 if small else 3):
            for ck in clocks:
                ck.reset()
            hf = run_hf(target, draft, over_ids, g, n_over, device)
            rounds = clocks[0].calls                  # HF's own target passes: its rounds
            samples_over.append((hf["seconds"] - clocks[0].seconds - clocks[1].seconds) / rounds)
        eng["HF assisted (constant gamma, threshold 0)"] = dict(rounds=rounds, draft_passes=clocks[1].calls,
                                                               overhead=Spread.of(samples_over),
                                                               tok_s=hf["n_tokens"] / hf["seconds"])
    res["overhead"] = {k: dict(v, overhead=vars(v["overhead"].scaled(1e3))) for k, v in eng.items()}
    for ck in clocks:
        ck.remove()                                    # no synchronization may run inside a graph capture

    # (c, continued) the static-cache passes replayed from CUDA graphs, timed interleaved with eager
    graph_note = "not run: CUDA graphs need a GPU" if device.type != "cuda" else ""
    if device.type == "cuda":
        try:
            graphs = {(n, "CUDA graph", k): graphed(step, device) for (n, _, k), step in steps.items()}
            timed = callable_time_samples({**steps, **graphs}, device, repeats=repeats, warmup=warmup)
            modes.update({key: Spread.of(xs) for key, xs in timed.items()})
        except Exception as err:                      # report, never die: the eager numbers still stand
            graph_note = f"capture failed: {type(err).__name__}: {str(err)[:200]}"
    res["static_and_graph_ms"] = {f"{n}|{m}|{k}": vars(s.scaled(1e3)) for (n, m, k), s in modes.items()}
    res["graph_note"] = graph_note
    c_modes = {"eager, dynamic cache": c.median}
    for m in ("static eager", "CUDA graph"):
        if ("target", m, 1) in modes and ("draft", m, 1) in modes:
            c_modes[m] = modes[("draft", m, 1)].median / modes[("target", m, 1)].median
    res["c_by_mode"] = c_modes
    log(f"(c) c by mode: {c_modes}; {graph_note or 'graphs captured'}")
    for k, v in eng.items():
        log(f"(e) {k}: {v['rounds']} rounds, overhead per round {ms(v['overhead'])} ms")
    res["seconds"] = time.time() - t_start

    # --- write ---
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(res, indent=1, default=str) + "\n")
    title = ("# DRY RUN on a CPU, not a GPU result: " if args.dry else "# GPU lab: ") + "GPT-2 drafting for GPT-2-XL"
    L = [title, "", f"{res['date']}, {gpu}, torch {res['torch']}, transformers {res['transformers']}, "
         f"{res['seconds']:.0f} s. Models: {source}.", "",
         "Timings are median (interquartile range; range) over interleaved, synchronized repeats after warm-up.", "",
         f"## (a) target pass over k tokens after {context} cached tokens [{timing_source}]", "",
         "| k | measured ms | t(k)/t(1) | roofline ms |", "|---|---|---|---|"]
    L += [f"| {k} | {ms(t_pass[k])} | {t_pass[k].median / t_pass[1].median:.2f} | "
          f"{roof[k] * 1e3:.3f} |" if k in roof else
          f"| {k} | {ms(t_pass[k])} | {t_pass[k].median / t_pass[1].median:.2f} | - |" for k in ks]
    L += ["", f"## (b) draft cost ratio [{timing_source}]", "",
          f"c = t_draft(1) / t_target(1) = **{c.median:.3f}** (paired per round: IQR {c.q1:.3f}-{c.q3:.3f}, range "
          f"{c.low:.3f}-{c.high:.3f}); draft {ms(t_draft[1])} ms, target {ms(t_pass[1])} ms per one-token pass. "
          f"Layer ratio {LAYER_RATIO:.3f}, byte ratio {BYTE_RATIO:.3f}"
          + (f", roofline ratio {roof_draft / roof[1]:.3f}" if roof_draft and 1 in roof else "") + ".", "",
          f"## (c) static cache and CUDA graphs [{timing_source}]", "",
          "| model | mode | k | ms |", "|---|---|---|---|"]
    L += [f"| {n} | eager, dynamic cache | {k} | {ms(t_pass[k] if n == 'target' else t_draft[k])} |"
          for n, k in [("target", k) for k in static_ks] + [("draft", 1)]]
    L += [f"| {n} | {m} | {k} | {ms(s)} |" for (n, m, k), s in modes.items()]
    L += ["", "c by mode: " + ", ".join(f"{m} {v:.3f}" for m, v in c_modes.items())
          + (f". CUDA graphs {graph_note}." if graph_note else "."), ""]
    if rows or sampled_rows:
        L += [f"## (d) speedup against gamma [{'dry models' if args.dry else 'real weights'}]", "",
              f"Survival fitted on {len(fit)} prompts, speedup and n_bar measured on {len(check)} others "
              f"({n_new} tokens each; {'1 repeat' if small else '2 alternating repeats'} of plain and speculative "
              "decoding). Predicted speedup = n_bar / (gamma c + t(gamma+1)/t(1)), no overhead term.", "",
              "| T | gamma | n_bar | n_bar predicted | t(g+1)/t(1) | speedup, median (range) | predicted | greedy equal |",
              "|---|---|---|---|---|---|---|---|"]
        for r in rows + sampled_rows:
            sp = r["speedup"]
            L.append(f"| {r['temperature']:g} | {r['gamma']} | {r['n_bar']:.2f} | {r['n_bar_pred']:.2f} | "
                     f"{r['pass_ratio']:.2f} | {sp['median']:.2f} ({sp['low']:.2f}-{sp['high']:.2f}) | "
                     f"{r['speedup_pred']:.2f} | {'' if r['greedy_equal'] is None else r['greedy_equal']} |")
    else:
        L += ["## (d) speedup against gamma: not measured", "",
              "Acceptance needs the real weights (random models agree on almost nothing). From the measured costs "
              "alone, with an assumed constant alpha per position, n_bar = (1 - alpha^(gamma+1)) / (1 - alpha):", "",
              "| assumed alpha | " + " | ".join(f"gamma = {g}" for g in assumed[0.6]) + " |",
              "|---|" + "---|" * len(assumed[0.6])]
        L += [f"| {a} | " + " | ".join(f"{v:.2f}" for v in row.values()) + " |" for a, row in assumed.items()]
    L += ["", f"## (e) the engines' own work per round, gamma = {g} [{timing_source}; greedy]", "",
          "Overhead = (wall time - time inside the models' synchronized passes) / that engine's own rounds "
          "(its counted target passes).", "",
          "| engine | rounds | draft passes | overhead per round, ms | tokens/s |", "|---|---|---|---|---|"]
    L += [f"| {k} | {v['rounds']} | {v['draft_passes']} | {ms(v['overhead'])} | {v['tok_s']:.0f} |" for k, v in eng.items()]
    L.append("")
    out.write_text("\n".join(L))
    log(f"wrote {out} and {out.with_suffix('.json')} in {res['seconds']:.0f} s")
    return res


if __name__ == "__main__":
    main()
