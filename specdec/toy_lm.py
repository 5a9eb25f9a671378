"""Tiny deterministic language models for greedy speculative decoding (chapter 02).

Convention: the target (distribution `p`) and the draft (distribution `q`) are plain
functions over a vocabulary of `V` token ids 0..V-1; `gamma` is the number of drafted
tokens per round. Both models only ever return logits, and greedy decoding takes the
argmax (the lowest id on an exact tie, as `np.argmax` does).

* `target_logits(tokens)` runs the target once on a list of tokens and returns an array
  of shape (len(tokens), V) whose row i scores the token that follows tokens[:i+1].
* `draft_next(tokens)` returns the draft's logits, shape (V,), for the token after tokens.

The target scores the next token from the last two tokens (a start symbol stands in for
the missing one after a one-token context) plus a term for the position, all drawn from
seeded Gaussian tables with unit scale. The draft is the target's row plus `noise` times
a seeded perturbation table, so `noise = 0` is a perfect draft and a large `noise` a poor
one. Every row is one table lookup and one addition, done the same way whatever the
length of the call, so the toy target is batch invariant: row i of a long call equals
the last row of a call on tokens[:i+1], bit for bit.

    >>> target_logits, draft_next, calls = make_models(seed=0, noise=0.0, V=8)
    >>> target_logits([1, 2, 3]).shape, draft_next([1, 2, 3]).shape
    ((3, 8), (8,))
    >>> bool(np.array_equal(draft_next([1, 2, 3]), target_logits([1, 2, 3])[-1]))
    True
    >>> calls["target"], calls["draft"], calls["target_positions"]
    (2, 2, 6)
    >>> plain_greedy(target_logits, [1, 2, 3], 4)
    [1, 2, 3, 5, 7, 3, 7]
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from specdec.checks import check_int, is_int

DEFAULT_V = 32
N_POSITIONS = 256          # period of the position term: context lengths n and n + 256 share it
POSITION_SCALE = 0.5       # the position term is weaker than the two-token term

TargetFn = Callable[[Sequence[int]], np.ndarray]
DraftFn = Callable[[Sequence[int]], np.ndarray]


def validate_request(prompt, n_new, gamma=None, V: int | None = None) -> list[int]:
    """Check a generation request and return the prompt as a new list of Python ints.

    The prompt must be a non-empty sequence of integer token ids (in range(V) when V is
    given), n_new an integer >= 0 and gamma, when given, an integer >= 1.

    >>> validate_request((4, 5), 3, gamma=2, V=8)
    [4, 5]
    >>> validate_request([], 3)
    Traceback (most recent call last):
    ...
    ValueError: the prompt must hold at least one token
    """
    if isinstance(prompt, (str, bytes)) or not hasattr(prompt, "__len__"):
        raise ValueError(f"the prompt must be a list of token ids, got {type(prompt).__name__}")
    if len(prompt) == 0:
        raise ValueError("the prompt must hold at least one token")
    if not all(is_int(t) for t in prompt):
        raise ValueError(f"the prompt must hold integer token ids, got {list(prompt)!r}")
    tokens = [int(t) for t in prompt]
    if V is not None and not all(0 <= t < V for t in tokens):
        raise ValueError(f"token ids must lie in 0..{V - 1}, the prompt holds {tokens!r}")
    check_int(n_new, "n_new", low=0)
    if gamma is not None:
        check_int(gamma, "gamma (drafted tokens per round)", low=1)
    return tokens


def _as_token_array(tokens, V: int) -> np.ndarray:
    t = np.asarray(tokens)                                  # (n,)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"the models need a non-empty 1-D list of token ids, got shape {t.shape}")
    if t.dtype.kind not in "iu":
        raise ValueError(f"token ids must be integers, got dtype {t.dtype}")
    if t.min() < 0 or t.max() >= V:
        raise ValueError(f"token ids must lie in 0..{V - 1}, got min {t.min()} and max {t.max()}")
    return t.astype(np.intp, copy=False)


@lru_cache(maxsize=8)
def _target_tables(seed: int, V: int) -> tuple[np.ndarray, np.ndarray]:
    # Cached (tests build many model pairs from the same seed) and read-only, so sharing is safe.
    rng = np.random.default_rng([seed, V, 0])
    pair = rng.standard_normal((V + 1, V, V))                          # (prev, last, next); prev == V is "start"
    position = POSITION_SCALE * rng.standard_normal((N_POSITIONS, V))  # (N_POSITIONS, V)
    pair.flags.writeable = position.flags.writeable = False
    return pair, position


@lru_cache(maxsize=8)
def _draft_perturbation(seed: int, V: int) -> np.ndarray:
    perturb = np.random.default_rng([seed, V, 1]).standard_normal((V + 1, V, V))   # (prev, last, next)
    perturb.flags.writeable = False
    return perturb


def make_models(seed: int, noise: float, V: int = DEFAULT_V) -> tuple[TargetFn, DraftFn, dict]:
    """A deterministic target, its draft, and a dict counting the calls to each.

    Returns `(target_logits, draft_next, calls)`. `calls` holds "target" and "draft"
    (number of calls), "target_positions" (rows the target scored in all) and "trace",
    the list of ("target" | "draft", tuple_of_input_tokens) in call order.

    >>> t1, d1, _ = make_models(seed=3, noise=0.5, V=16)
    >>> t2, d2, _ = make_models(seed=3, noise=0.5, V=16)
    >>> bool(np.array_equal(d1([5, 6]), d2([5, 6])))      # same seed, same models
    True
    >>> bool(np.array_equal(d1([5, 6]), t1([5, 6])[-1]))  # noise 0.5 perturbs the draft
    False
    """
    check_int(seed, "seed", low=0)
    if not isinstance(V, (int, np.integer)) or V < 2:
        raise ValueError(f"V (vocabulary size) must be an integer >= 2, got {V!r}")
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
    V = int(V)
    pair, position = _target_tables(int(seed), V)
    perturb = _draft_perturbation(int(seed), V) if noise > 0 else None
    noise = float(noise)
    calls = {"target": 0, "draft": 0, "target_positions": 0, "trace": []}

    def target_logits(tokens) -> np.ndarray:
        t = _as_token_array(tokens, V)                              # (n,)
        prev = np.empty_like(t)                                     # (n,) token before each position
        prev[0] = V
        prev[1:] = t[:-1]
        lengths = np.arange(1, t.size + 1) % N_POSITIONS            # (n,) context length of row i is i + 1
        calls["target"] += 1
        calls["target_positions"] += int(t.size)
        calls["trace"].append(("target", tuple(t.tolist())))
        return pair[prev, t] + position[lengths]                    # (n, V)

    def draft_next(tokens) -> np.ndarray:
        t = _as_token_array(tokens, V)                              # (n,)
        prev = int(t[-2]) if t.size >= 2 else V
        last = int(t[-1])
        calls["draft"] += 1
        calls["trace"].append(("draft", tuple(t.tolist())))
        row = pair[prev, last] + position[t.size % N_POSITIONS]     # (V,) the target's own row
        return row if perturb is None else row + noise * perturb[prev, last]   # (V,)

    return target_logits, draft_next, calls


def plain_greedy(target_logits: TargetFn, prompt, n_new: int) -> list[int]:
    """The prompt followed by n_new tokens of plain greedy decoding: one target call per token.

    >>> target_logits, _, calls = make_models(seed=1, noise=0.0, V=8)
    >>> plain_greedy(target_logits, [0], 5), calls["target"]
    ([0, 4, 2, 7, 7, 6], 5)
    """
    tokens = validate_request(prompt, n_new)
    for _ in range(int(n_new)):
        tokens.append(int(np.argmax(target_logits(tokens)[-1])))
    return tokens
