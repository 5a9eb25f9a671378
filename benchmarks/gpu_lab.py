"""The timing half of the chapter 12 lab on one GPU: GPT-2 drafting for GPT-2-XL.

    python benchmarks/gpu_lab.py                      # CUDA GPU; < 8 minutes on one H100/H200
    python benchmarks/gpu_lab.py --random-weights     # CUDA GPU; real shapes, random weights, even if weights exist
    python benchmarks/gpu_lab.py --dry                # CPU, tiny random models: the script end to end (seconds)
    python benchmarks/gpu_lab.py --dry --real-shapes  # CPU: GPT-2 / GPT-2-XL widths, heads and vocabulary with
                                                      # one layer each (the real-shape code path, small)

Timings depend on the shapes, not the weights: without gpt2 and gpt2-xl on disk (Hugging Face cache
or SPECDEC_GPT2_DIR; never downloaded) the script builds GPT-2-XL (target) and GPT-2 (draft) at their
real shapes with random float16 weights and still measures pass times, c and each engine's own work
per round (`measure_passes`, `measure_graphs`, `measure_overhead`). Acceptance and the measured
speedup (`measure_sweep`) need the real weights; without them the speedup is only predicted for
stated alphas (`assumed_alpha_speedups`). Every row of the output names its source: "real weights",
"random weights, real shapes" or "dry". What to expect (launch-bound eager passes, c near the layer
ratio, CUDA graphs) is chapter 12's prose; the README lists this script under "For authors".

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

from specdec.engine.measure import engine_seconds, like_for_like, run_hf, run_plain, run_speculative, speedup_sweep
from specdec.engine.models import load_gpt2_pair, random_gpt2
from specdec.engine.prediction import predicted_steady_speedup
from specdec.engine.timing import (Spread, callable_time_samples, draft_cost_ratio, graphed, pass_time_samples,
                                   static_step)
from specdec.speedup_model import expected_tokens_from_survival, expected_tokens_iid

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


# --- (a)-(c) passes ------------------------------------------------------------------------------

def static_factory(max_len):
    from transformers import StaticCache
    return lambda model: StaticCache(config=model.config, max_cache_len=max_len)


def ms(spread: Spread) -> str:
    s = spread.scaled(1e3)
    return f"{s.median:.3f} ({s.q1:.3f}-{s.q3:.3f}; {s.low:.3f}-{s.high:.3f})"


def roofline(gpu: str, ks, context: int):
    """({k: GPT-2-XL's roofline seconds}, GPT-2's one-token roofline) for a known GPU, else ({}, None)."""
    from specdec.cost_model import step_cost
    from specdec.hardware import GPUS
    from specdec.model_specs import MODELS
    chip = next((g for name, g in GPUS.items() if name in gpu), None)
    if chip is None:
        return {}, None
    cost = step_cost(MODELS["gpt2-xl"], chip, T_bar=context)
    return {k: float(cost.t_pass(1, k)) for k in ks}, float(step_cost(MODELS["gpt2"], chip, T_bar=context).t_pass(1, 1))


def measure_passes(cfg, target, draft, device) -> dict:
    """(a) target and draft pass time against k, interleaved over k, synchronized, warmed up, repeated
    (median, quartiles, range), beside chapter 01's roofline for the detected GPU; (b) c from the same
    rounds, paired (the report sets it beside the layer ratio, 12 / 48 = 0.25, and the byte ratio,
    124M / 1,558M parameters = 0.080); (c) the same passes on a static cache in eager mode (the
    CUDA-graph replays come last: `measure_graphs`)."""
    samples = pass_time_samples({"target": target, "draft": draft}, cfg["ks"], context=cfg["context"],
                                repeats=cfg["repeats"], warmup=cfg["warmup"])
    ks = sorted({k for name, k in samples if name == "target"})
    out = dict(ks=ks, t_pass={k: Spread.of(samples[("target", k)]) for k in ks},
               t_draft={k: Spread.of(samples[("draft", k)]) for k in ks}, c=draft_cost_ratio(samples))
    out["roof"], out["roof_draft"] = ({}, None) if cfg["dry"] else roofline(cfg["gpu"], ks, cfg["context"])
    steps = {("target", "static eager", k): static_step(target, k, cfg["context"]) for k in cfg["static_ks"]}
    steps[("draft", "static eager", 1)] = static_step(draft, 1, cfg["context"])
    timed = callable_time_samples(steps, device, repeats=cfg["repeats"], warmup=cfg["warmup"])
    out["steps"], out["modes"] = steps, {key: Spread.of(xs) for key, xs in timed.items()}
    log("(a) " + ", ".join(f"k={k}: {out['t_pass'][k].median * 1e3:.2f} ms" for k in ks))
    log(f"(b) c = {out['c']}")
    return out


def measure_graphs(cfg, passes, device) -> str:
    """(c, continued) the static-cache passes replayed from CUDA graphs, interleaved with eager; a note."""
    if device.type != "cuda":
        return "not run: CUDA graphs need a GPU"
    try:
        graphs = {(n, "CUDA graph", k): graphed(step, device) for (n, _, k), step in passes["steps"].items()}
        timed = callable_time_samples({**passes["steps"], **graphs}, device, repeats=cfg["repeats"], warmup=cfg["warmup"])
    except Exception as err:                      # report, never die: the eager numbers still stand
        return f"capture failed: {type(err).__name__}: {str(err)[:200]}"
    passes["modes"].update({key: Spread.of(xs) for key, xs in timed.items()})
    return ""


# --- (d)-(e) runs ---------------------------------------------------------------------------------

def measure_sweep(cfg, target, draft, passes, fit, check) -> tuple[list, list]:
    """(d) n_bar and the speedup against gamma at T = 0 and 1: survival fitted on `fit`, checked on `check`;
    speedups from unclocked runs (`measure.speedup_sweep`)."""
    t_pass, c = passes["t_pass"], passes["c"].median
    run_speculative(target, draft, fit[:1], 2, 8, temperature=0.0)                  # warm-up
    run_plain(target, fit[:1], 8, temperature=0.0)
    rows = {0.0: [], 1.0: []}
    for temperature, gammas in ((0.0, cfg["gammas"]), (1.0, cfg["sampled_gammas"])):
        fitted = run_speculative(target, draft, fit, max(cfg["gammas"]), cfg["n_new"], temperature=temperature)
        survival = fitted["stats"].survival()
        for g in gammas:
            if time.time() - cfg["t_start"] > cfg["budget"]:
                log(f"budget reached: T = {temperature}, gamma >= {g} skipped")
                break
            n_pred = expected_tokens_from_survival(survival[:g])
            # Unclocked, alternated, warmed-up runs: no per-pass synchronization takes away the overlap
            # of host and device that the speed is about (the costs come from clocked runs, elsewhere).
            sweep = speedup_sweep(target, draft, check, [g], cfg["n_new"], cfg["sweep_repeats"], temperature=temperature)
            speed, n_bars = sweep["speedup"][g], sweep["n_bar"][g]
            same = temperature > 0 or sweep["last"][g]["tokens"] == sweep["last"]["plain"]["tokens"]
            ratio = t_pass[g + 1].median / t_pass[1].median if g + 1 in t_pass else float("nan")
            pred = predicted_steady_speedup(n_pred, g, c, ratio)
            rows[temperature].append(dict(temperature=temperature, gamma=g, n_bar=sum(n_bars) / len(n_bars),
                                          n_bar_pred=n_pred, pass_ratio=ratio, speedup=vars(Spread.of(speed)),
                                          speedup_pred=pred, greedy_equal=same if temperature == 0 else None))
            log(f"(d) T={temperature} gamma={g}: n_bar {rows[temperature][-1]['n_bar']:.2f} (pred {n_pred:.2f}), "
                f"speedup {Spread.of(speed)} (pred {pred:.2f})")
    return rows[0.0], rows[1.0]


def assumed_alpha_speedups(cfg, passes) -> dict:
    """{alpha: {gamma: predicted speedup}} from the measured costs alone, for stated constant alphas."""
    t_pass, c = passes["t_pass"], passes["c"].median
    return {alpha: {g: predicted_steady_speedup(expected_tokens_iid(alpha, g), g, c, t_pass[g + 1].median / t_pass[1].median)
                    for g in cfg["gammas"] if g + 1 in t_pass} for alpha in (0.6, 0.7, 0.8)}


def measure_overhead(cfg, target, draft, prompts) -> dict:
    """(e) each engine's own work per round: (wall time - time inside the passes) / its counted target passes,
    for the course's engine with dynamic and static caches and for Hugging Face assisted generation."""
    g, n_new = cfg["overhead_gamma"], cfg["overhead_tokens"]
    static = static_factory(max(len(x) for x in prompts) + n_new + g + 1)
    engines = {
        "course engine, dynamic cache": lambda ps, n: run_speculative(target, draft, ps, g, n, temperature=0.0),
        "course engine, static cache": lambda ps, n: run_speculative(target, draft, ps, g, n, temperature=0.0,
                                                                     cache_factory=static),
        "HF assisted (constant gamma, threshold 0)": lambda ps, n: run_hf(target, ps, n, assistant=draft,
                                                                          assistant_settings=like_for_like(g)),
    }
    eng = {}
    for label, run_engine in engines.items():
        if time.time() - cfg["t_start"] > cfg["budget"]:
            log(f"budget reached: {label} skipped")
            continue
        run_engine(prompts[:1], 8)                                                      # warm-up
        runs = [run_engine(prompts, n_new) for _ in range(cfg["overhead_repeats"])]
        per_round = [engine_seconds(run) / run["passes"]["target"].calls for run in runs]
        run = runs[-1]
        eng[label] = dict(rounds=run["passes"]["target"].calls, draft_passes=run["passes"]["draft"].calls,
                          overhead=Spread.of(per_round), tok_s=run["n_tokens"] / run["seconds"])
        log(f"(e) {label}: {eng[label]['rounds']} rounds, overhead per round {ms(eng[label]['overhead'])} ms")
    return eng


# --- the report -----------------------------------------------------------------------------------

def write_report(out: Path, res: dict, cfg: dict, passes: dict, eng: dict) -> None:
    """The Markdown table at `out` and the JSON record beside it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(res, indent=1, default=str) + "\n")
    t_pass, t_draft, roof, c, modes = passes["t_pass"], passes["t_draft"], passes["roof"], passes["c"], passes["modes"]
    source, timing_source, rows = res["source"], cfg["timing_source"], res["sweep"] + res["sweep_T1"]
    title = ("# DRY RUN on a CPU, not a GPU result: " if cfg["dry"] else "# GPU lab: ") + "GPT-2 drafting for GPT-2-XL"
    L = [title, "", f"{res['date']}, {res['device']}, torch {res['torch']}, transformers {res['transformers']}, "
         f"{res['seconds']:.0f} s. Models: {source}.", "",
         "Timings are median (interquartile range; range) over interleaved, synchronized repeats after warm-up.", "",
         f"## (a) target pass over k tokens after {cfg['context']} cached tokens [{timing_source}]", "",
         "| k | measured ms | t(k)/t(1) | roofline ms |", "|---|---|---|---|"]
    L += [f"| {k} | {ms(t_pass[k])} | {t_pass[k].median / t_pass[1].median:.2f} | "
          + (f"{roof[k] * 1e3:.3f} |" if k in roof else "- |") for k in passes["ks"]]
    roof_ratio = f", roofline ratio {passes['roof_draft'] / roof[1]:.3f}" if passes["roof_draft"] and 1 in roof else ""
    L += ["", f"## (b) draft cost ratio [{timing_source}]", "",
          f"c = t_draft(1) / t_target(1) = **{c.median:.3f}** (paired per round: IQR {c.q1:.3f}-{c.q3:.3f}, range "
          f"{c.low:.3f}-{c.high:.3f}); draft {ms(t_draft[1])} ms, target {ms(t_pass[1])} ms per one-token pass. "
          f"Layer ratio {LAYER_RATIO:.3f}, byte ratio {BYTE_RATIO:.3f}{roof_ratio}.", "",
          f"## (c) static cache and CUDA graphs [{timing_source}]", "", "| model | mode | k | ms |", "|---|---|---|---|"]
    L += [f"| {n} | eager, dynamic cache | {k} | {ms(t_pass[k] if n == 'target' else t_draft[k])} |"
          for n, k in [("target", k) for k in cfg["static_ks"]] + [("draft", 1)]]
    L += [f"| {n} | {m} | {k} | {ms(s)} |" for (n, m, k), s in modes.items()]
    note = res["graph_note"]
    L += ["", "c by mode: " + ", ".join(f"{m} {v:.3f}" for m, v in res["c_by_mode"].items())
          + (f". CUDA graphs {note}." if note else "."), ""]
    L += sweep_lines(res, cfg, rows) if rows else assumed_lines(res["speedup_for_assumed_alpha"])
    L += ["", f"## (e) the engines' own work per round, gamma = {cfg['overhead_gamma']} [{timing_source}; greedy]", "",
          "Overhead = (wall time - time inside the models' synchronized passes) / that engine's own rounds "
          "(its counted target passes).", "",
          "| engine | rounds | draft passes | overhead per round, ms | tokens/s |", "|---|---|---|---|---|"]
    L += [f"| {k} | {v['rounds']} | {v['draft_passes']} | {ms(v['overhead'])} | {v['tok_s']:.0f} |" for k, v in eng.items()]
    out.write_text("\n".join(L + [""]))


def sweep_lines(res, cfg, rows) -> list[str]:
    L = [f"## (d) speedup against gamma [{'dry models' if cfg['dry'] else 'real weights'}]", "",
         f"Survival fitted on {cfg['n_fit']} prompts, speedup and n_bar measured on {cfg['n_check']} others "
         f"({cfg['n_new']} tokens each; {cfg['sweep_repeats']} alternating repeat(s) of plain and speculative "
         "decoding). Predicted speedup = n_bar / (gamma c + t(gamma+1)/t(1)), no overhead term.", "",
         "| T | gamma | n_bar | n_bar predicted | t(g+1)/t(1) | speedup, median (range) | predicted | greedy equal |",
         "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        sp = r["speedup"]
        L.append(f"| {r['temperature']:g} | {r['gamma']} | {r['n_bar']:.2f} | {r['n_bar_pred']:.2f} | "
                 f"{r['pass_ratio']:.2f} | {sp['median']:.2f} ({sp['low']:.2f}-{sp['high']:.2f}) | "
                 f"{r['speedup_pred']:.2f} | {'' if r['greedy_equal'] is None else r['greedy_equal']} |")
    return L


def assumed_lines(assumed) -> list[str]:
    first = next(iter(assumed.values()))
    return (["## (d) speedup against gamma: not measured", "",
             "Acceptance needs the real weights (random models agree on almost nothing). From the measured costs "
             "alone, with an assumed constant alpha per position, n_bar = (1 - alpha^(gamma+1)) / (1 - alpha):", "",
             "| assumed alpha | " + " | ".join(f"gamma = {g}" for g in first) + " |", "|---|" + "---|" * len(first)]
            + [f"| {a} | " + " | ".join(f"{v:.2f}" for v in row.values()) + " |" for a, row in assumed.items()])


# --- the lab --------------------------------------------------------------------------------------

def settings(args, gpu: str, source: str) -> dict:
    """Sizes of every part: small for a dry run, the lab's on a GPU."""
    small = args.dry
    gammas = [1, 2, 4] if small else [1, 2, 3, 4, 5, 6, 8]
    ks = sorted({1, 2, 4, 8} | {g + 1 for g in gammas}) if small else \
        sorted({1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128} | {g + 1 for g in gammas})
    return dict(dry=args.dry, gpu=gpu, budget=args.budget, t_start=time.time(), gammas=gammas,
                ks=ks[:6] if args.real_shapes else ks, context=64 if small else 128,
                repeats=3 if small else 15, warmup=1 if small else 3,
                static_ks=[1] + [g + 1 for g in gammas if g + 1 in (2, 4, 5)],
                sampled_gammas=[2] if small else [2, 4], n_new=16 if small else 64, sweep_repeats=1 if small else 2,
                overhead_gamma=4 if 4 in gammas else gammas[-1], overhead_tokens=8 if args.real_shapes else (16 if small else 64),
                overhead_repeats=2 if small else 3,
                timing_source=source if source != "real weights" else "real weights (timings do not depend on them)")


def parse(argv):
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
    return args


def main(argv=None):
    args = parse(argv)
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
    cfg = settings(args, gpu, source)
    log(f"device: {gpu}; models: {source}")
    res = dict(date=datetime.datetime.now().isoformat(timespec="seconds"), device=gpu, source=source,
               dry=args.dry, torch=torch.__version__, transformers=__import__("transformers").__version__,
               python=platform.python_version(), target_layers=target.config.n_layer, draft_layers=draft.config.n_layer)

    passes = measure_passes(cfg, target, draft, device)
    ids = prompts(tok, target.get_output_embeddings().weight.shape[0], 12, 24)[:4 if args.dry else 12]
    fit, check = ids[0::2], ids[1::2]                  # predictions from one half, checked on the other
    cfg.update(n_fit=len(fit), n_check=len(check))
    acceptance_real = source == "real weights" or (args.dry and not args.real_shapes)   # random real shapes: no
    res["sweep"], res["sweep_T1"] = measure_sweep(cfg, target, draft, passes, fit, check) if acceptance_real else ([], [])
    res["speedup_for_assumed_alpha"] = assumed_alpha_speedups(cfg, passes)
    eng = measure_overhead(cfg, target, draft, ids[:2] if args.real_shapes else ids[:4])
    res["graph_note"] = measure_graphs(cfg, passes, device)     # last: a failed capture can spoil the CUDA context

    modes, t_pass = passes["modes"], passes["t_pass"]
    res["pass_ms"] = {k: vars(t_pass[k].scaled(1e3)) for k in passes["ks"]}
    res["draft_pass_ms"] = {k: vars(passes["t_draft"][k].scaled(1e3)) for k in passes["ks"]}
    res["roofline_ms"] = {k: v * 1e3 for k, v in passes["roof"].items()}
    res["c"] = vars(passes["c"])
    res["static_and_graph_ms"] = {f"{n}|{m}|{k}": vars(s.scaled(1e3)) for (n, m, k), s in modes.items()}
    res["c_by_mode"] = {"eager, dynamic cache": passes["c"].median} | {
        m: modes[("draft", m, 1)].median / modes[("target", m, 1)].median
        for m in ("static eager", "CUDA graph") if ("target", m, 1) in modes and ("draft", m, 1) in modes}
    res["overhead"] = {k: dict(v, overhead=vars(v["overhead"].scaled(1e3))) for k, v in eng.items()}
    log(f"(c) c by mode: {res['c_by_mode']}; {res['graph_note'] or 'graphs captured'}")
    res["seconds"] = time.time() - cfg["t_start"]
    write_report(out, res, cfg, passes, eng)
    log(f"wrote {out} and {out.with_suffix('.json')} in {res['seconds']:.0f} s")
    return res


if __name__ == "__main__":
    main()
