"""Bigram toy models: a target and a draft we can solve exactly (chapters 04 and 05).

A bigram model's next-token distribution depends only on the previous token `s`, so a
whole model is a (V, V) table whose row `s` is the distribution of the next token after
`s`. Convention: `p` is the target's table and `q` the draft's, a perturbed copy of `p`;
every sequence starts after the token `start`. `gamma` is the draft length; the course's
simulations use `gamma = DEFAULT_GAMMA = 3`, at which the default pair (seed 0, noise
`DEFAULT_NOISE`) accepts about 79 % of first drafts and a round emits about 2.96 tokens
(`n_bar`). `alpha` is an acceptance probability, `sum_x min(p(x|s), q(x|s))`.

Because the models are tiny tables, everything about them is computable exactly:

* `exact_joint(p, start, n)` is the target's probability of every possible run of
  n tokens after `start` (what an exact sampler must reproduce);
* `acceptance_matrix(pair)` is `A[s, x] = min(p[s, x], q[s, x])`, the probability of
  drafting `x` after `s` and keeping it;
* `survival_probabilities(pair, gamma)` gives `a_i = sum(e_start^T A^i)`, the
  probability that the first i drafts of a round that starts after `start` are all kept.

    >>> pair = make_bigram_pair(seed=0)
    >>> pair.V, pair.start
    (6, 0)
    >>> joint = exact_joint(pair.p, pair.start, 2)
    >>> joint.shape, round(float(joint.sum()), 12)
    ((6, 6), 1.0)
    >>> a = survival_probabilities(pair, 3)
    >>> bool(a[0] > a[1] > a[2] > 0)
    True
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .distributions import softmax, validate_distribution
from specdec.checks import check_int

DEFAULT_GAMMA = 3      # draft length used by the bigram simulations of chapters 04 and 05
DEFAULT_NOISE = 0.6    # std of the Gaussian noise added to the target's logits to make the draft
LOGIT_SCALE = 0.9      # std of the target's random logits (keeps every bigram reasonably likely)


def _check_table(table, name: str) -> np.ndarray:
    arr = validate_distribution(table, name)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square (V, V) table of next-token rows, got shape {arr.shape}")
    return arr


def _check_token(token, V: int, name: str) -> int:
    check_int(token, name, must="a token id (an int)")
    if not 0 <= int(token) < V:
        raise ValueError(f"{name} must be a token id in 0..{V - 1}, got {int(token)}")
    return int(token)


@dataclass(frozen=True, eq=False)
class BigramPair:
    """A target table `p` and a draft table `q`, both (V, V), and the start token.

    Row `s` of each table is the next-token distribution after token `s`. The arrays are
    stored as read-only copies, so a pair can be shared between experiments safely.

    >>> pair = BigramPair(p=np.eye(2)[[1, 0]], q=np.full((2, 2), 0.5))
    >>> pair.V, float(pair.p[0, 1])
    (2, 1.0)
    """

    p: np.ndarray   # (V, V): p[s] = target's p(. | previous token s)
    q: np.ndarray   # (V, V): q[s] = draft's q(. | previous token s)
    start: int = 0  # every sequence starts after this token

    def __post_init__(self):
        p = _check_table(self.p, "p").copy()
        q = _check_table(self.q, "q").copy()
        if p.shape != q.shape:
            raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}")
        start = _check_token(self.start, p.shape[0], "start")
        p.setflags(write=False)
        q.setflags(write=False)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "start", start)

    @property
    def V(self) -> int:
        """The vocabulary size."""
        return self.p.shape[0]


def make_bigram_pair(seed: int = 0, noise: float = DEFAULT_NOISE, V: int = 6) -> BigramPair:
    """A random target table and a draft made by adding Gaussian noise to its logits.

    The target's logits are N(0, LOGIT_SCALE^2); the draft's are the same logits plus
    N(0, noise^2), so `noise = 0` gives a perfect draft (q == p) and larger noise a worse
    one. The same seed always gives the same pair.

    >>> pair = make_bigram_pair(seed=0, noise=0.0)
    >>> bool(np.allclose(pair.p, pair.q))
    True
    >>> pair = make_bigram_pair(seed=0)
    >>> alpha = acceptance_matrix(pair)[pair.start].sum()   # first-position acceptance
    >>> round(float(alpha), 2)
    0.79
    """
    check_int(V, "V", low=2)
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
    rng = np.random.default_rng(seed)
    logits = LOGIT_SCALE * rng.standard_normal((V, V))                    # (V, V)
    perturbation = rng.standard_normal((V, V))                            # (V, V)
    return BigramPair(p=softmax(logits), q=softmax(logits + noise * perturbation), start=0)


def exact_joint(rows: np.ndarray, start: int, n_tokens: int = 2) -> np.ndarray:
    """The exact probability of the first `n_tokens` tokens generated after `start`.

    Returns an array of shape (V,) * n_tokens whose entry [x1, ..., xn] is
    rows[start, x1] * rows[x1, x2] * ... * rows[x_{n-1}, xn] (the chain rule).

    >>> rows = np.array([[0.5, 0.5], [0.1, 0.9]])
    >>> exact_joint(rows, 0, 2)
    array([[0.25, 0.25],
           [0.05, 0.45]])
    """
    rows = _check_table(rows, "rows")
    start = _check_token(start, rows.shape[0], "start")
    check_int(n_tokens, "n_tokens", low=1)
    joint = rows[start]                                                    # (V,)
    for _ in range(n_tokens - 1):
        # joint[..., a] * rows[a, b] -> new joint[..., a, b]
        joint = joint[..., None] * rows                                    # (V,)*k + (V,)
    return joint


def acceptance_matrix(pair: BigramPair) -> np.ndarray:
    """A[s, x] = min(p[s, x], q[s, x]): draft x after s and keep it.

    Row sums are the per-context acceptance probabilities alpha(s) = 1 - TV(p[s], q[s]).

    >>> pair = BigramPair(p=np.array([[0.5, 0.5], [0.2, 0.8]]), q=np.array([[0.9, 0.1], [0.2, 0.8]]))
    >>> acceptance_matrix(pair)
    array([[0.5, 0.1],
           [0.2, 0.8]])
    """
    if not isinstance(pair, BigramPair):
        raise ValueError(f"expected a BigramPair, got {type(pair).__name__}")
    return np.minimum(pair.p, pair.q)                                      # (V, V)


def survival_probabilities(pair: BigramPair, gamma: int) -> np.ndarray:
    """a_i = P(the first i drafts of a round starting after `pair.start` are all kept), i = 1..gamma.

    Entry x of the row vector e_start^T A^i is the probability of keeping the first i
    drafts and ending on token x, so a_i is that row's sum. Returns shape (gamma,).

    >>> pair = BigramPair(p=np.array([[0.5, 0.5], [0.2, 0.8]]), q=np.array([[0.9, 0.1], [0.2, 0.8]]))
    >>> survival_probabilities(pair, 2)          # a_1 = 0.6; a_2 = 0.5*0.6 + 0.1*1.0
    array([0.6, 0.4])
    """
    A = acceptance_matrix(pair)                                            # (V, V)
    check_int(gamma, "gamma", low=1)
    row = np.zeros(pair.V)                                                 # (V,) = e_start
    row[pair.start] = 1.0
    out = np.empty(int(gamma))                                             # (gamma,)
    for i in range(int(gamma)):
        row = row @ A                                                      # (V,) = e_start^T A^(i+1)
        out[i] = row.sum()
    return out
