"""Train the course's tiny target/draft pair on the Python standard library's source.

    python -m specdec.tiny_pair.train                 # writes specdec/tiny_pair/weights/
    python -m specdec.tiny_pair.train --quick --out /tmp/pair   # a few steps, to test the script

Seeded (torch and data order), one CPU thread by default (1,000 steps took 5.5 minutes on a busy two-core machine). The models are trained on windows of
128 bytes, so they see positions 0..127 only: generation must stay within 128 tokens of context. The target (8 layers x 96) learns next-byte
prediction; the draft (1 layer x 192) learns at the same time, on the same batches, by
distillation: its loss is the cross-entropy against the target's full next-byte distribution,
which drives q towards p and therefore raises the acceptance sum_x min(p, q) (chapter 03's
Pinsker link). Weights are
saved in float16 (safetensors) with their configs, a SHA256SUMS file and train_log.json.
The corpus is the standard library of the Python running the script, so another Python
version gives a slightly different, equally usable pair.
"""
from __future__ import annotations

import argparse
import json
import math
import sysconfig
import time
from pathlib import Path

import torch

from . import EOS, VOCAB, WEIGHTS, sha256

TARGET = dict(n_layer=8, n_embd=96, n_head=4)
DRAFT = dict(n_layer=1, n_embd=192, n_head=4)
SEQ, BATCH = 128, 8
CORPUS_BYTES = 6_000_000


def corpus() -> tuple[bytes, bytes, list[str]]:
    """(train bytes, held-out bytes, files): stdlib .py files in sorted order, tests excluded."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py")
                   if not any(part in {"test", "tests", "idlelib", "site-packages", "lib2to3"}
                              for part in p.relative_to(root).parts))
    chunks, used, total = [], [], 0
    for f in files:
        data = f.read_bytes().replace(b"\x00", b"")
        chunks.append(data)
        used.append(str(f.relative_to(root)))
        total += len(data)
        if total >= CORPUS_BYTES:
            break
    text = b"\n".join(chunks)
    cut = int(len(text) * 0.95)
    return text[:cut], text[cut:], used


def config(shape: dict):
    from transformers import GPT2Config
    return GPT2Config(vocab_size=VOCAB, n_positions=512, bos_token_id=EOS, eos_token_id=EOS,
                      resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, **shape)


def batches(data: torch.Tensor, gen: torch.Generator, batch=BATCH, seq=SEQ):
    while True:
        starts = torch.randint(0, data.numel() - seq - 1, (batch,), generator=gen)
        yield torch.stack([data[s:s + seq + 1] for s in starts.tolist()])    # (batch, seq + 1)


def lr_at(step: int, steps: int, peak: float, warmup: int = 30) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup))) + peak * 0.02


def train_pair(target, draft, steps, data, gen, peak, log_every=50):
    """Train both models on the same batches: the target on the next byte, the draft on the target's p.

    The draft's loss is the cross-entropy against the target's current (detached) next-byte
    distribution, so no separate teacher pass is needed; as the learning rate decays the target
    settles and the draft follows it.
    """
    opts = [torch.optim.AdamW(m.parameters(), lr=peak, weight_decay=0.01, betas=(0.9, 0.98)) for m in (target, draft)]
    target.train()
    draft.train()
    t_losses, d_losses = [], []
    it = batches(data, gen)
    for step in range(steps):
        for opt in opts:
            for g in opt.param_groups:
                g["lr"] = lr_at(step, steps, peak)
        xy = next(it)
        x, y = xy[:, :-1], xy[:, 1:]                                          # (batch, seq)
        logits = target(input_ids=x).logits                                   # (batch, seq, V)
        loss_t = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        p = torch.softmax(logits.detach(), -1)                                # (batch, seq, V)
        loss_d = -(p * torch.log_softmax(draft(input_ids=x).logits, -1)).sum(-1).mean()
        for opt, loss, model in zip(opts, (loss_t, loss_d), (target, draft)):
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        t_losses.append(loss_t.item())
        d_losses.append(loss_d.item())
        if (step + 1) % log_every == 0:
            print(f"step {step + 1}/{steps}  target loss {sum(t_losses[-log_every:]) / log_every:.3f}  "
                  f"draft loss (to the target's p) {sum(d_losses[-log_every:]) / log_every:.3f}", flush=True)
    target.eval()
    draft.eval()
    return t_losses, d_losses


@torch.no_grad()
def evaluate(target, draft, held: torch.Tensor, gen: torch.Generator, n_batches=8):
    """Held-out cross-entropy (nats/byte) of both models and their greedy agreement and mean alpha."""
    ce_t = ce_d = agree = alpha = 0.0
    it = batches(held, gen)
    for _ in range(n_batches):
        xy = next(it)
        x, y = xy[:, :-1], xy[:, 1:]
        lt, ld = target(input_ids=x).logits, draft(input_ids=x).logits       # (batch, seq, V)
        ce_t += float(torch.nn.functional.cross_entropy(lt.reshape(-1, VOCAB), y.reshape(-1)))
        ce_d += float(torch.nn.functional.cross_entropy(ld.reshape(-1, VOCAB), y.reshape(-1)))
        agree += float((lt.argmax(-1) == ld.argmax(-1)).float().mean())
        alpha += float(torch.minimum(torch.softmax(lt, -1), torch.softmax(ld, -1)).sum(-1).mean())
    n = n_batches
    return dict(target_ce=ce_t / n, draft_ce=ce_d / n, greedy_agreement=agree / n, alpha_t1=alpha / n)


def save(model, name: str, out: Path) -> None:
    from safetensors.torch import save_file
    state = {k: v.detach().to(torch.float16).contiguous() for k, v in model.state_dict().items()
             if k != "lm_head.weight"}                                        # tied to the embedding
    save_file(state, str(out / f"{name}.safetensors"), metadata={"format": "pt"})
    (out / f"{name}.json").write_text(model.config.to_json_string())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--out", type=Path, default=WEIGHTS)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="a few steps only, to test the script")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: small models gain little from more, and a busy machine stalls them)")
    args = ap.parse_args(argv)
    if args.quick:
        args.steps = 6
    from transformers import GPT2LMHeadModel, logging as hf_logging
    hf_logging.set_verbosity_error()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.time()
    train_bytes, held_bytes, files = corpus()
    data = torch.frombuffer(bytearray(train_bytes), dtype=torch.uint8).long()
    held = torch.frombuffer(bytearray(held_bytes), dtype=torch.uint8).long()
    print(f"corpus: {len(files)} files, {len(train_bytes):,} training bytes, {len(held_bytes):,} held out", flush=True)
    gen = torch.Generator().manual_seed(args.seed)
    target = GPT2LMHeadModel(config(TARGET))
    draft = GPT2LMHeadModel(config(DRAFT))
    t_losses, d_losses = train_pair(target, draft, args.steps, data, gen, peak=3e-3)
    metrics = evaluate(target, draft, held, torch.Generator().manual_seed(args.seed + 1))
    args.out.mkdir(parents=True, exist_ok=True)
    save(target, "target", args.out)
    save(draft, "draft", args.out)
    log = dict(seed=args.seed, target=TARGET, draft=DRAFT, seq=SEQ, batch=BATCH,
               steps=args.steps,
               target_params=sum(p.numel() for p in target.parameters()),
               draft_params=sum(p.numel() for p in draft.parameters()),
               corpus_files=len(files), corpus_sha256=__import__("hashlib").sha256(train_bytes + held_bytes).hexdigest(),
               python_stdlib=sysconfig.get_paths()["stdlib"], torch=torch.__version__,
               final_target_loss=sum(t_losses[-50:]) / len(t_losses[-50:]),
               final_draft_loss=sum(d_losses[-50:]) / len(d_losses[-50:]),
               seconds=round(time.time() - t0, 1), **metrics)
    (args.out / "train_log.json").write_text(json.dumps(log, indent=1) + "\n")
    names = ["target.safetensors", "target.json", "draft.safetensors", "draft.json"]
    (args.out / "SHA256SUMS").write_text("".join(f"{sha256(args.out / n)}  {n}\n" for n in names))
    print(json.dumps(log, indent=1))


if __name__ == "__main__":
    main()
