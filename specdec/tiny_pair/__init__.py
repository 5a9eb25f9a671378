"""A small target/draft pair of GPT-2-style models the course trains itself, byte-level.

Every machine that runs the course has Python, so both models learn from the same offline
text: the Python standard library's own source code and its English reference documentation
(`pydoc_data.topics`), read byte by byte (token id = byte value, vocabulary 256, no tokenizer to
download). The target is deep and narrow (12 layers of width 128), the draft a single wider layer
(192) distilled from the target. On a CPU the time of a forward pass of such small models is
dominated by a fixed cost per layer, so the target's pass over a few tokens costs about the same
as over one, and the one-layer draft costs a fraction of it: the same shape of costs that makes
speculation pay for large models on a GPU. Both were trained on windows of 256 bytes, and their
configs allow 256 positions, so the engine refuses a request that would go beyond them.

`train.py` rebuilds the pair (seeded; `train.log` and `train_log.json` beside the weights record
the command, the losses and the time); the committed weights are checked against their SHA-256
sums when loaded.

    >>> ids = encode("def f():")
    >>> ids.tolist()[:4], decode(ids)
    ([100, 101, 102, 32], 'def f():')
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch

WEIGHTS = Path(__file__).resolve().parent / "weights"
EOS = 0                      # byte 0 (NUL) never occurs in source text; used as the stop token id
VOCAB = 256


def encode(text: str) -> torch.Tensor:
    """UTF-8 bytes of `text` as a 1-D int64 tensor of token ids."""
    return torch.tensor(list(text.encode("utf-8")), dtype=torch.long)


def decode(ids) -> str:
    """Token ids back to text (invalid UTF-8 shown as the replacement character)."""
    return bytes(int(i) for i in ids).decode("utf-8", errors="replace")


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def check_weights(directory: Path = WEIGHTS) -> dict:
    """Verify every file listed in SHA256SUMS; returns {file: digest}. Raises ValueError on a mismatch."""
    sums = {}
    listing = Path(directory) / "SHA256SUMS"
    if not listing.exists():
        raise ValueError(f"no SHA256SUMS in {directory}: train the pair with `python -m specdec.tiny_pair.train`")
    for line in listing.read_text().splitlines():
        digest, name = line.split()
        got = sha256(Path(directory) / name)
        if got != digest:
            raise ValueError(f"{name}: SHA-256 {got[:12]}... does not match the recorded {digest[:12]}...; "
                             "the weights are damaged or were retrained without updating SHA256SUMS")
        sums[name] = digest
    return sums


def load_model(name: str, directory: Path = WEIGHTS, dtype=torch.float32):
    """One model of the pair ('target' or 'draft'), in eval mode."""
    from safetensors.torch import load_file
    from transformers import GPT2Config, GPT2LMHeadModel

    directory = Path(directory)
    cfg = GPT2Config.from_dict(json.loads((directory / f"{name}.json").read_text()))
    model = GPT2LMHeadModel(cfg)
    state = {k: v.to(dtype) for k, v in load_file(str(directory / f"{name}.safetensors")).items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or any(k != "lm_head.weight" for k in missing):
        raise ValueError(f"{name}: weights do not fit the config (missing {missing}, unexpected {unexpected})")
    model.tie_weights()
    return model.to(dtype).eval()


def load_tiny_pair(directory: Path = WEIGHTS, dtype=torch.float32):
    """(target, draft), after checking the weights' SHA-256 sums."""
    check_weights(directory)
    return load_model("target", directory, dtype), load_model("draft", directory, dtype)


def training_log(directory: Path = WEIGHTS) -> dict:
    """What train.py recorded: sizes, steps, losses, time, the corpus digest."""
    return json.loads((Path(directory) / "train_log.json").read_text())
