"""The course's engine on a CPU: against Hugging Face assisted generation, and against plain decoding.

    python benchmarks/engine_cpu.py          # about a minute on two cores; writes benchmarks/results/engine_cpu.md

1. Same tiny GPT-2-style models (random weights; the draft is the target's own first layer, so it
   agrees often), same prompts, greedy, gamma = 4: tokens per second of the course's engine and of
   `generate(assistant_model=...)` with a constant draft length of 4, one run each, outputs compared.
2. The course-trained byte-level pair on the lab's prompts: the engine (gamma = 4) against plain
   decoding with the target alone.
One thread (small models run faster on one, and a busy machine does not stall them).
"""
from __future__ import annotations

import datetime
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from specdec.engine.measure import run_plain, run_speculative  # noqa: E402


def first_layer_draft(target):
    from transformers import GPT2LMHeadModel
    cfg = target.config.__class__.from_dict(target.config.to_dict())
    cfg.n_layer = 1
    draft = GPT2LMHeadModel(cfg)
    state = {k: v for k, v in target.state_dict().items()
             if not k.startswith("transformer.h.") or k.startswith("transformer.h.0.")}
    draft.load_state_dict(state, strict=False)
    return draft.eval()


def hf_assisted(target, draft, prompts, gamma, n_new):
    draft.generation_config.num_assistant_tokens = gamma
    draft.generation_config.num_assistant_tokens_schedule = "constant"
    outs, t0 = [], time.perf_counter()
    for ids in prompts:
        x = ids[None, :]
        out = target.generate(x, attention_mask=torch.ones_like(x), assistant_model=draft, do_sample=False,
                              max_new_tokens=n_new, min_new_tokens=n_new, pad_token_id=0)
        outs.append(out[0, x.shape[1]:].tolist())
    return outs, time.perf_counter() - t0


def main():
    from transformers import logging as hf_logging
    from specdec.lab_prompts import all_prompts
    from specdec.tiny_pair import encode, load_tiny_pair
    hf_logging.set_verbosity_error()
    torch.set_num_threads(1)
    lines = [f"# The course's engine on a CPU ({datetime.date.today()}, torch {torch.__version__}, "
             f"transformers {__import__('transformers').__version__}, 1 thread)", ""]

    from transformers import GPT2LMHeadModel
    from specdec.engine.models import gpt2_config
    torch.manual_seed(0)
    cfg = gpt2_config("tiny", vocab_size=512, n_positions=512)
    cfg.n_layer = 4
    target = GPT2LMHeadModel(cfg).eval()
    draft = first_layer_draft(target)
    gen = torch.Generator().manual_seed(0)
    prompts = [torch.randint(511, (16,), generator=gen) for _ in range(8)]
    run_speculative(target, draft, prompts[:1], 4, 8, temperature=0.0)        # warm-up
    ours = run_speculative(target, draft, prompts, 4, 48, temperature=0.0)
    hf_tokens, hf_seconds = hf_assisted(target, draft, prompts, 4, 48)
    ours_tps = ours["n_tokens"] / ours["seconds"]
    hf_tps = sum(map(len, hf_tokens)) / hf_seconds
    lines += ["## 1. Same tiny models: course engine vs Hugging Face assisted generation (greedy, gamma = 4)", "",
              "| engine | tokens/s |", "|---|---|", f"| course engine | {ours_tps:.0f} |",
              f"| HF generate(assistant_model=...) | {hf_tps:.0f} |", "",
              f"Ratio course / HF: {ours_tps / hf_tps:.2f}. Same tokens: {hf_tokens == ours['tokens']}. "
              f"Models: random 4-layer target (width 64, vocabulary 512), its first layer as the draft; "
              f"8 prompts x 48 tokens; n_bar {ours['stats'].n_bar():.2f}.", ""]

    t, d = load_tiny_pair()
    ids = [encode(text)[-81:] for _, text in all_prompts()]       # within the 128 trained positions (as the lab)
    run_plain(t, ids[:1], 8, temperature=0.0)
    plain = run_plain(t, ids, 40, temperature=0.0)
    spec = run_speculative(t, d, ids, 4, 40, temperature=0.0)
    p_tps, s_tps = plain["n_tokens"] / plain["seconds"], spec["n_tokens"] / spec["seconds"]
    lines += ["## 2. Course-trained pair: engine vs plain decoding (greedy, gamma = 4, 12 prompts x 40 tokens)", "",
              "| decoding | tokens/s |", "|---|---|", f"| plain (target alone) | {p_tps:.0f} |",
              f"| speculative, gamma = 4 | {s_tps:.0f} |", "",
              f"Speedup {s_tps / p_tps:.2f}; n_bar {spec['stats'].n_bar():.2f}; same tokens: "
              f"{spec['tokens'] == plain['tokens']}.", ""]
    out = Path(__file__).resolve().parent / "results" / "engine_cpu.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
