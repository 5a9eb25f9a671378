"""Train the course's tiny target/draft pair on the Python standard library: its code and its English docs.

    python -m specdec.tiny_pair.train                 # writes specdec/tiny_pair/weights/ (and train.log there)
    python -m specdec.tiny_pair.train --quick --out /tmp/pair   # a few steps, to test the script
    python -m specdec.tiny_pair.train --init specdec/tiny_pair/weights --steps 1000   # train the saved pair further

Seeded (torch and data order). The models are trained on windows of SEQ = 256 bytes, so they see
positions 0..255 only: generation must stay within 256 tokens of context (the lab keeps the end of
each prompt so that prompt + output + drafts fit). Every batch mixes two texts that every Python
installation carries: the standard library's source code and its English reference documentation
(`pydoc_data.topics`, the text behind `help("if")`), which the lab's prose and question prompts need.
The target (12 layers x 128) learns next-byte prediction; the draft (1 layer x 192) learns at the
same time, on the same batches, by distillation: its loss is the cross-entropy against the target's
full next-byte distribution, which drives q towards p and therefore raises the acceptance
sum_x min(p, q) (chapter 03's Pinsker link). Weights are saved in float16 (safetensors) with their
configs, a SHA256SUMS file and train_log.json; the console output is also written to train.log.
Another Python version gives a slightly different corpus and an equally usable pair.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import sysconfig
import time
from pathlib import Path

import torch

from . import EOS, VOCAB, WEIGHTS, sha256
from .quality import repeated_ngram_fraction

TARGET = dict(n_layer=12, n_embd=128, n_head=4)
DRAFT = dict(n_layer=1, n_embd=192, n_head=4)
SEQ, BATCH = 256, 16
CODE_BYTES = 8_000_000
ENGLISH_SHARE = 0.35          # fraction of every batch drawn from the English documentation


def corpus() -> dict:
    """{'code': (train, held), 'english': (train, held), 'files': [...]}, all bytes, fixed order."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py")
                   if not any(part in {"test", "tests", "idlelib", "site-packages", "lib2to3", "pydoc_data"}
                              for part in p.relative_to(root).parts))
    chunks, used, total = [], [], 0
    for f in files:
        data = f.read_bytes().replace(b"\x00", b"")
        chunks.append(data)
        used.append(str(f.relative_to(root)))
        total += len(data)
        if total >= CODE_BYTES:
            break
    code = b"\n".join(chunks)
    from pydoc_data.topics import topics
    english = "\n\n".join(topics[k].strip() for k in sorted(topics)).encode("utf-8").replace(b"\x00", b"")
    out = {"files": used}
    for name, text in (("code", code), ("english", english)):
        cut = int(len(text) * 0.95)
        out[name] = (text[:cut], text[cut:])
    return out


def config(shape: dict):
    from transformers import GPT2Config
    return GPT2Config(vocab_size=VOCAB, n_positions=SEQ, bos_token_id=EOS, eos_token_id=EOS,
                      resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, **shape)


def batches(code: torch.Tensor, english: torch.Tensor, gen: torch.Generator, batch=BATCH, seq=SEQ):
    """Endless (batch, seq + 1) windows, round(ENGLISH_SHARE * batch) of them from the English text."""
    n_en = round(ENGLISH_SHARE * batch)
    while True:
        rows = []
        for data, n in ((english, n_en), (code, batch - n_en)):
            starts = torch.randint(0, data.numel() - seq - 1, (n,), generator=gen)
            rows += [data[s:s + seq + 1] for s in starts.tolist()]
        yield torch.stack(rows)                                              # (batch, seq + 1)


def lr_at(step: int, steps: int, peak: float, warmup: int = 50) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup))) + peak * 0.02


def train_pair(target, draft, steps, code, english, gen, peak, log, log_every=25, batch=BATCH):
    """Train both models on the same batches: the target on the next byte, the draft on the target's p.

    The draft's loss is the cross-entropy against the target's current (detached) next-byte
    distribution, so no separate teacher pass is needed; as the learning rate decays the target
    settles and the draft follows it.
    """
    opts = [torch.optim.AdamW(m.parameters(), lr=peak, weight_decay=0.01, betas=(0.9, 0.98)) for m in (target, draft)]
    target.train()
    draft.train()
    t_losses, d_losses = [], []
    it = batches(code, english, gen, batch=batch)
    t0 = time.time()
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
            log(f"step {step + 1}/{steps}  target loss {sum(t_losses[-log_every:]) / log_every:.3f}  "
                f"draft loss (to the target's p) {sum(d_losses[-log_every:]) / log_every:.3f}  "
                f"{time.time() - t0:.0f} s")
    target.eval()
    draft.eval()
    return t_losses, d_losses


@torch.no_grad()
def evaluate(target, draft, code, english, gen: torch.Generator, n_batches=6):
    """Held-out cross-entropy (nats/byte) of both models and their greedy agreement and mean alpha."""
    ce_t = ce_d = agree = alpha = 0.0
    it = batches(code, english, gen)
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


@torch.no_grad()
def greedy_loops(target, held: torch.Tensor, gen: torch.Generator, n=8, context=128, new=64) -> dict:
    """Repeated-8-gram fraction of `new` greedy bytes after held-out contexts, beside the real continuation's."""
    from specdec.engine.generate import plain_generate
    got, ref = [], []
    for s in torch.randint(0, held.numel() - context - new, (n,), generator=gen).tolist():
        out = plain_generate(target, held[s:s + context], new, temperature=0.0)
        got.append(repeated_ngram_fraction(out.tolist()))
        ref.append(repeated_ngram_fraction(held[s + context:s + context + new].tolist()))
    return dict(greedy=sum(got) / n, reference=sum(ref) / n)


def save(model, name: str, out: Path) -> None:
    from safetensors.torch import save_file
    state = {k: v.detach().to(torch.float16).contiguous() for k, v in model.state_dict().items()
             if k != "lm_head.weight"}                                        # tied to the embedding
    save_file(state, str(out / f"{name}.safetensors"), metadata={"format": "pt"})
    (out / f"{name}.json").write_text(model.config.to_json_string())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--out", type=Path, default=WEIGHTS)
    ap.add_argument("--steps", type=int, default=3200)
    ap.add_argument("--quick", action="store_true", help="a few steps only, to test the script")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: a busy two-core machine stalls two threads)")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--init", type=Path, default=None,
                    help="start from the pair saved in this folder (its log is kept, and the totals add up)")
    args = ap.parse_args(argv)
    # --quick tests the script, not the pair: a few steps on small batches (seconds, not half a minute).
    batch = 4 if args.quick else BATCH
    if args.quick:
        args.steps = 6
    args.out.mkdir(parents=True, exist_ok=True)
    previous = None
    lines = []
    if args.init is not None:                     # read before --out (possibly the same folder) is written
        previous = json.loads((args.init / "train_log.json").read_text())
        lines = (args.init / "train.log").read_text().splitlines() + [f"--- continued from {args.init} ---"]

    def log(msg):
        print(msg, flush=True)
        lines.append(msg)
        (args.out / "train.log").write_text("\n".join(lines) + "\n")

    from transformers import GPT2LMHeadModel, logging as hf_logging
    hf_logging.set_verbosity_error()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.time()
    command = "python -m specdec.tiny_pair.train " + " ".join(argv if argv is not None else sys.argv[1:])
    log(f"command: {command.strip()}  (torch {torch.__version__}, {args.threads} threads)")
    data = corpus()
    as_tensor = lambda b: torch.frombuffer(bytearray(b), dtype=torch.uint8).long()
    code, code_held = map(as_tensor, data["code"])
    english, english_held = map(as_tensor, data["english"])
    log(f"corpus: {len(data['files'])} source files, {code.numel():,} code bytes and {english.numel():,} English "
        f"bytes for training, {code_held.numel() + english_held.numel():,} held out; English share of a batch "
        f"{ENGLISH_SHARE}")
    gen = torch.Generator().manual_seed(args.seed)
    if previous is None:
        target = GPT2LMHeadModel(config(TARGET))
        draft = GPT2LMHeadModel(config(DRAFT))
    else:
        from . import load_model
        target, draft = (load_model(name, args.init) for name in ("target", "draft"))
        gen.manual_seed(args.seed + previous["steps"])            # fresh batches, not the first run's again
    t_losses, d_losses = train_pair(target, draft, args.steps, code, english, gen, peak=args.lr, log=log, batch=batch)
    train_seconds = time.time() - t0
    small = dict(n_batches=1) if args.quick else {}                  # --quick tests the script, not the pair
    metrics = evaluate(target, draft, code_held, english_held, torch.Generator().manual_seed(args.seed + 1), **small)
    loops = {kind: greedy_loops(target, held, torch.Generator().manual_seed(args.seed + 2), n=2 if args.quick else 8)
             for kind, held in (("code", code_held), ("english", english_held))}
    save(target, "target", args.out)
    save(draft, "draft", args.out)
    digest = hashlib.sha256(b"".join(data["code"]) + b"".join(data["english"])).hexdigest()
    tail = min(50, len(t_losses))
    runs = [] if previous is None else previous.get("runs") or [
        {k: previous[k] for k in ("command", "steps", "lr", "threads", "train_seconds")}]
    runs.append(dict(command=command.strip(), steps=args.steps, batch=batch, lr=args.lr, threads=args.threads,
                     train_seconds=round(train_seconds, 1)))
    steps = sum(r["steps"] for r in runs)
    record = dict(command=" && ".join(r["command"] for r in runs), seed=args.seed, threads=args.threads, target=TARGET,
                  draft=DRAFT, seq=SEQ, batch=batch, english_share=ENGLISH_SHARE, steps=steps, lr=args.lr,
                  tokens_seen=sum(r["steps"] * r.get("batch", BATCH) for r in runs) * SEQ, runs=runs,
                  target_params=sum(p.numel() for p in target.parameters()),
                  draft_params=sum(p.numel() for p in draft.parameters()),
                  corpus_files=len(data["files"]), corpus_sha256=digest,
                  python_stdlib=sysconfig.get_paths()["stdlib"], torch=torch.__version__,
                  final_target_loss=sum(t_losses[-tail:]) / tail, final_draft_loss=sum(d_losses[-tail:]) / tail,
                  train_seconds=round(sum(r["train_seconds"] for r in runs), 1), seconds=round(time.time() - t0, 1),
                  repeated_8gram_fraction=loops, **metrics)
    (args.out / "train_log.json").write_text(json.dumps(record, indent=1) + "\n")
    names = ["target.safetensors", "target.json", "draft.safetensors", "draft.json"]
    (args.out / "SHA256SUMS").write_text("".join(f"{sha256(args.out / n)}  {n}\n" for n in names))
    log(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
