"""The timing half of the chapter 12 lab on one GPU: GPT-2 drafting for GPT-2-XL.

    python benchmarks/gpu_lab.py                 # on a CUDA GPU, < 8 minutes on one H100/H200
    python benchmarks/gpu_lab.py --dry           # on a CPU, tiny random models: checks the script end to end

Measures (a) the target's pass time over k = 1..128 tokens against chapter 01's roofline for the
detected GPU; (b) the draft cost ratio c; (d) the speedup against gamma, measured with the course's
engine beside chapter 05's prediction from the measured survival curve, c and pass-time ratio; and
the engine's per-round overhead against Hugging Face assisted generation on the same models. It uses
the real gpt2 / gpt2-xl weights when they are in the Hugging Face cache (or SPECDEC_GPT2_DIR) and
otherwise random weights of the same shapes, which is stated in the output: timings are then real,
acceptance is not (random models rarely agree). Nothing is downloaded. The table goes to --out
(Markdown) and a JSON file beside it, with the date, the GPU and the software versions.
"""
from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from specdec.engine.measure import (draft_cost_ratio, pass_times, predicted_n_bar, predicted_speedup,  # noqa: E402
                                    run_plain, run_speculative, synchronize)
from specdec.engine.models import load_gpt2_pair, random_gpt2  # noqa: E402


def log(msg):
    print(msg, flush=True)


def models(args, device):
    if args.dry:
        t = random_gpt2("tiny", device, torch.float32, seed=0, vocab_size=512, n_positions=512)
        t2 = random_gpt2("tiny", device, torch.float32, seed=0, vocab_size=512, n_positions=512)
        # a draft made of the target's first layer: same embeddings, so acceptance is not zero
        from transformers import GPT2LMHeadModel
        cfg = t2.config
        cfg.n_layer = 1
        d = GPT2LMHeadModel(cfg)
        d.load_state_dict({k: v for k, v in t2.state_dict().items() if not k.startswith("transformer.h.")
                           or k.startswith("transformer.h.0.")}, strict=False)
        return t, d.eval(), None, "random tiny models (dry run: 2-layer target, its first layer as draft)"
    dtype = torch.float16
    try:
        target, draft, tok = load_gpt2_pair(device, dtype)
        return target, draft, tok, "gpt2-xl (target) and gpt2 (draft), real weights, float16"
    except FileNotFoundError as err:
        log(f"real weights not found ({str(err)[:100]}...): using RANDOM weights of the same shapes")
        target = random_gpt2("gpt2-xl", device, dtype, seed=0)
        draft = random_gpt2("gpt2", device, dtype, seed=1)
        return target, draft, None, "RANDOM weights of GPT-2-XL (target) and GPT-2 (draft) shape, float16"


PROMPT_TEXTS = None


def prompts(tok, vocab, n, length, seed=0):
    if tok is not None:
        from specdec.lab_prompts import all_prompts
        return [tok(text, return_tensors="pt").input_ids[0] for _, text in all_prompts()][:n]
    gen = torch.Generator().manual_seed(seed)
    return [torch.randint(vocab - 1, (length,), generator=gen) for _ in range(n)]


def hf_assisted(target, draft, ids_list, gamma, n_new):
    draft.generation_config.num_assistant_tokens = gamma
    draft.generation_config.num_assistant_tokens_schedule = "constant"
    device = next(target.parameters()).device
    outs = []
    synchronize(device)
    t0 = time.perf_counter()
    for ids in ids_list:
        x = ids[None, :].to(device)
        out = target.generate(x, attention_mask=torch.ones_like(x), assistant_model=draft, do_sample=False,
                              max_new_tokens=n_new, min_new_tokens=n_new, pad_token_id=0)
        outs.append(out[0, x.shape[1]:].tolist())
    synchronize(device)
    return outs, time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry", action="store_true", help="CPU, tiny random models: test the script end to end")
    ap.add_argument("--out", type=Path, default=None, help="Markdown table (default benchmarks/results/gpu_lab[_dry].md)")
    ap.add_argument("--budget", type=float, default=360.0, help="seconds after which optional parts are skipped")
    args = ap.parse_args(argv)
    t_start = time.time()
    from transformers import logging as hf_logging
    hf_logging.set_verbosity_error()
    if not args.dry and not torch.cuda.is_available():
        sys.exit("no CUDA GPU: run with --dry to check the script on a CPU")
    device = torch.device("cpu" if args.dry else "cuda")
    if args.dry:
        torch.set_num_threads(1)
    gpu = "CPU (dry run)" if args.dry else torch.cuda.get_device_name(0)
    out = args.out or Path(__file__).resolve().parent / "results" / ("gpu_lab_dry.md" if args.dry else "gpu_lab.md")
    target, draft, tok, pair = models(args, device)
    vocab = target.get_output_embeddings().weight.shape[0]
    log(f"device: {gpu}; pair: {pair}")
    res = dict(date=datetime.datetime.now().isoformat(timespec="seconds"), gpu=gpu, pair=pair,
               torch=torch.__version__, transformers=__import__("transformers").__version__,
               python=platform.python_version())

    # (a) pass time against k, and chapter 01's roofline for this GPU
    ks = [1, 2, 4, 8, 16, 32] if args.dry else [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128]
    t_pass = pass_times(target, ks, context=128, repeats=10, warmup=3)
    roof = {}
    if not args.dry:
        from specdec.cost_model import step_cost
        from specdec.hardware import GPUS
        from specdec.model_specs import MODELS
        chip = next((g for name, g in GPUS.items() if name in gpu), None)
        if chip is not None:
            cost = step_cost(MODELS["gpt2-xl"], chip, T_bar=128)
            roof = {k: float(cost.t_pass(1, k)) for k in ks}
    res["pass_ms"] = {k: v * 1e3 for k, v in t_pass.items()}
    res["roofline_ms"] = {k: v * 1e3 for k, v in roof.items()}
    log("(a) " + ", ".join(f"k={k}: {v * 1e3:.2f} ms" for k, v in t_pass.items()))

    # (b) the draft cost ratio
    c, t1_t, t1_d = draft_cost_ratio(target, draft, context=128, repeats=20)
    res.update(c=c, t_target_1_ms=t1_t * 1e3, t_draft_1_ms=t1_d * 1e3)
    log(f"(b) c = {c:.3f} (target {t1_t * 1e3:.2f} ms, draft {t1_d * 1e3:.2f} ms)")

    # (d) speedup against gamma, measured and predicted
    n_new = 32 if args.dry else 64
    ids = prompts(tok, vocab, 4 if args.dry else 8, 24)
    gammas = [1, 2, 3, 4] if args.dry else [1, 2, 3, 4, 5, 6, 8]
    t_more = pass_times(target, [g + 1 for g in gammas if g + 1 not in t_pass], context=128, repeats=10, warmup=3)
    t_all = {**t_pass, **t_more}
    run_speculative(target, draft, ids[:1], 2, 8, temperature=0.0)                 # warm-up
    plain = run_plain(target, ids, n_new, temperature=0.0)
    base = run_speculative(target, draft, ids, max(gammas), n_new, temperature=0.0)
    survival = base["stats"].survival()
    res["survival_at_gamma_max"] = survival.tolist()
    res["plain_tok_s"] = plain["n_tokens"] / plain["seconds"]
    rows = []
    for g in gammas:
        if time.time() - t_start > args.budget:
            log(f"budget reached: gamma >= {g} skipped")
            break
        run = base if g == max(gammas) else run_speculative(target, draft, ids, g, n_new, temperature=0.0)
        same = run["tokens"] == plain["tokens"]
        ratio = t_all[g + 1] / t_all[1]
        n_pred = predicted_n_bar(survival, g)
        rows.append(dict(gamma=g, n_bar=run["stats"].n_bar(), n_bar_pred=n_pred,
                         speedup=plain["seconds"] / run["seconds"], speedup_pred=predicted_speedup(n_pred, g, c, ratio),
                         pass_ratio=ratio, tok_s=run["n_tokens"] / run["seconds"], greedy_equal=same))
        log(f"(d) gamma={g}: n_bar {rows[-1]['n_bar']:.2f} (pred {n_pred:.2f}), speedup {rows[-1]['speedup']:.2f} "
            f"(pred {rows[-1]['speedup_pred']:.2f}), greedy equal: {same}")
    res["sweep"] = rows

    # per-round overhead: the course's engine against Hugging Face assisted generation, gamma = 4
    g = 4
    ours = run_speculative(target, draft, ids, g, n_new, temperature=0.0)
    hf_tokens, hf_seconds = hf_assisted(target, draft, ids, g, n_new)
    st = ours["stats"]
    rounds = st.rounds + st.short_rounds
    model_time = st.draft_calls * t1_d + st.target_calls * t_all[g + 1]
    res["overhead"] = dict(
        gamma=g, rounds=rounds, engine_seconds=ours["seconds"], hf_seconds=hf_seconds,
        engine_tok_s=ours["n_tokens"] / ours["seconds"], hf_tok_s=sum(map(len, hf_tokens)) / hf_seconds,
        model_seconds_estimate=model_time,
        engine_overhead_ms_per_round=(ours["seconds"] - model_time) / rounds * 1e3,
        hf_overhead_ms_per_round=(hf_seconds - model_time) / rounds * 1e3,
        same_tokens=hf_tokens == ours["tokens"])
    log("overhead: " + json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in res["overhead"].items()}))
    res["seconds"] = time.time() - t_start

    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n")
    lines = [f"# GPU lab: {pair}", "", f"{res['date']}, {gpu}, torch {res['torch']}, transformers {res['transformers']}, "
             f"{res['seconds']:.0f} s" + (" (DRY RUN on a CPU with tiny random models: numbers test the script only)"
                                         if args.dry else ""), "",
             "## (a) target pass over k tokens after 128 cached tokens", "", "| k | measured ms | roofline ms |", "|---|---|---|"]
    lines += [f"| {k} | {t_pass[k] * 1e3:.2f} | {roof[k] * 1e3:.2f} |" if k in roof else f"| {k} | {t_pass[k] * 1e3:.2f} | - |"
              for k in ks]
    lines += ["", f"## (b) draft cost ratio c = {c:.3f} (target {t1_t * 1e3:.2f} ms, draft {t1_d * 1e3:.2f} ms per token)",
              "", f"## (d) speedup against gamma (greedy, {len(ids)} prompts x {n_new} tokens; plain "
              f"{res['plain_tok_s']:.0f} tok/s)", "",
              "| gamma | n_bar | n_bar predicted | t(g+1)/t(1) | speedup | speedup predicted | tok/s | greedy equal |",
              "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['gamma']} | {r['n_bar']:.2f} | {r['n_bar_pred']:.2f} | {r['pass_ratio']:.2f} | {r['speedup']:.2f} | "
              f"{r['speedup_pred']:.2f} | {r['tok_s']:.0f} | {r['greedy_equal']} |" for r in rows]
    o = res["overhead"]
    lines += ["", f"## Per-round overhead at gamma = {g} ({o['rounds']} rounds)", "",
              "| engine | tok/s | overhead per round (ms) |", "|---|---|---|",
              f"| course engine | {o['engine_tok_s']:.0f} | {o['engine_overhead_ms_per_round']:.2f} |",
              f"| HF assistant_model | {o['hf_tok_s']:.0f} | {o['hf_overhead_ms_per_round']:.2f} |", "",
              f"Same tokens: {o['same_tokens']}. Overhead = wall time minus the model time estimated from the measured "
              "pass times (draft steps x t_draft(1) + target passes x t_pass(gamma + 1)), per round.", ""]
    out.write_text("\n".join(lines))
    log(f"wrote {out} and {out.with_suffix('.json')} in {res['seconds']:.0f} s")


if __name__ == "__main__":
    main()
