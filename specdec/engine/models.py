"""Finding the lab's models: GPT-2 and GPT-2-XL from local files, or random ones of their shape.

The course never downloads anything. `load_gpt2_pair` looks for the weights in the Hugging Face
cache (or under a folder given by `root` or the environment variable SPECDEC_GPT2_DIR, holding
`gpt2/` and `gpt2-xl/`), with `local_files_only=True`; when they are missing it raises
FileNotFoundError with the command that fetches them on a machine with internet:

    hf download gpt2 && hf download gpt2-xl        # or: huggingface-cli download gpt2 ...

`random_gpt2` builds a model of GPT-2's or GPT-2-XL's shape with random weights: right for
timing (same matrices, same bytes), meaningless for acceptance.

    >>> cfg = gpt2_config("gpt2-xl")
    >>> cfg.n_layer, cfg.n_embd, cfg.n_head, cfg.vocab_size
    (48, 1600, 25, 50257)
"""
from __future__ import annotations

import os

import torch

SHAPES = {
    "gpt2": dict(n_layer=12, n_embd=768, n_head=12),
    "gpt2-xl": dict(n_layer=48, n_embd=1600, n_head=25),
    "tiny": dict(n_layer=2, n_embd=64, n_head=4),
}
FETCH_HINT = ("the weights are not on this machine. With internet access run `hf download gpt2` and "
              "`hf download gpt2-xl` (or `huggingface-cli download ...`) to fill the Hugging Face cache, or save "
              "both models with save_pretrained into one folder as gpt2/ and gpt2-xl/ and set SPECDEC_GPT2_DIR to it.")


def gpt2_config(name: str, vocab_size: int = 50257, n_positions: int = 1024, **shape):
    """The GPT2Config of a named shape; `shape` overrides n_layer, n_embd or n_head (e.g. fewer layers for a CPU check)."""
    from transformers import GPT2Config
    if name not in SHAPES:
        raise ValueError(f"unknown shape {name!r}; choose from {sorted(SHAPES)}")
    unknown = set(shape) - {"n_layer", "n_embd", "n_head"}
    if unknown:
        raise ValueError(f"unknown shape fields {sorted(unknown)}; only n_layer, n_embd and n_head can be changed")
    return GPT2Config(vocab_size=vocab_size, n_positions=n_positions, bos_token_id=vocab_size - 1,
                      eos_token_id=vocab_size - 1, **{**SHAPES[name], **shape})


def random_gpt2(name: str, device="cpu", dtype=torch.float32, seed: int = 0, **overrides):
    """A GPT-2-family model of the named shape with random weights, in eval mode."""
    from transformers import GPT2LMHeadModel
    torch.manual_seed(seed)
    with torch.device(device):                      # initialize where the model will live (fast on a GPU)
        model = GPT2LMHeadModel(gpt2_config(name, **overrides))
    return model.to(dtype=dtype).eval()


def load_gpt2_pair(device="cuda", dtype=torch.float16, root: str | None = None):
    """(target gpt2-xl, draft gpt2, tokenizer) from local files only; FileNotFoundError if absent."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    root = root or os.environ.get("SPECDEC_GPT2_DIR")

    def where(name):
        return os.path.join(root, name) if root else name

    def load(name):
        try:                                            # transformers >= 4.56 names it dtype
            return AutoModelForCausalLM.from_pretrained(where(name), local_files_only=True, dtype=dtype)
        except TypeError:                               # older releases: torch_dtype
            return AutoModelForCausalLM.from_pretrained(where(name), local_files_only=True, torch_dtype=dtype)

    try:
        tok = AutoTokenizer.from_pretrained(where("gpt2"), local_files_only=True)
        draft, target = load("gpt2"), load("gpt2-xl")
    except (OSError, ValueError) as err:
        raise FileNotFoundError(f"GPT-2 / GPT-2-XL: {FETCH_HINT} ({type(err).__name__}: {str(err)[:120]})") from None
    return target.to(device).eval(), draft.to(device).eval(), tok
