"""One round of speculative sampling, and simulations of many rounds on the bigram models.

Convention: `p` holds the target's next-token distributions and `q` the draft's; `gamma`
is the number of drafted tokens per round; rows run along the last axis (length V).
In a round the draft proposes x_1..x_gamma, drafting x_i from q_i = q(. | prefix, x_<i);
one target pass gives p_1..p_{gamma+1}, where p_i = p(. | prefix, x_<i). Verification
walks the drafts left to right, keeps x_i when a fresh uniform u_i < p_i(x_i)/q_i(x_i),
and stops at the first rejection, where it samples one token from the normalized
residual max(0, p_i - q_i); if every draft is kept, it samples a bonus token from
p_{gamma+1}. A round therefore emits between 1 and gamma + 1 tokens; their expected
number is `n_bar`.

Randomness follows a fixed protocol (the one the chapter 04 exercise asks for):
`rng.random()` once per verified position, then `rng.choice(V, p=...)` once for the
extra token. `sample_round_bigram` drafts with `rng.random()` too (inverse CDF), so a
whole simulation is reproducible from one seed.

    >>> from specdec.bigram import make_bigram_pair
    >>> pair = make_bigram_pair(seed=0)
    >>> tokens, n_bar = sample_sequences(pair, 200, 2, 3, np.random.default_rng(0))
    >>> tokens.shape, bool(1.0 <= n_bar <= 4.0)
    ((200, 2), True)
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .bigram import BigramPair
from .distributions import residual, validate_distribution
from specdec.checks import check_int

Verifier = Callable[[np.ndarray, np.ndarray, Sequence[int], np.random.Generator], list]


def _check_round(p, q, drafts) -> tuple[np.ndarray, np.ndarray, list[int]]:
    p = validate_distribution(p, "p")
    q = validate_distribution(q, "q")
    if p.ndim != 2 or q.ndim != 2:
        raise ValueError(f"p and q must be 2-D tables of rows, got shapes {p.shape} and {q.shape}")
    gamma, V = q.shape
    if gamma < 1:
        raise ValueError("gamma (the number of drafts, q.shape[0]) must be at least 1")
    if p.shape != (gamma + 1, V):
        raise ValueError(f"p must have shape (gamma + 1, V) = {(gamma + 1, V)} for q of shape {q.shape}, "
                         f"got {p.shape}")
    drafts_arr = np.asarray(drafts)
    if drafts_arr.shape != (gamma,) or not np.issubdtype(drafts_arr.dtype, np.integer):
        raise ValueError(f"drafts must be {gamma} integer token ids (one per row of q), got {drafts!r}")
    if np.any(drafts_arr < 0) or np.any(drafts_arr >= V):
        raise ValueError(f"draft token ids must lie in 0..{V - 1}, got {drafts_arr.tolist()}")
    out = [int(x) for x in drafts_arr]
    for i, x in enumerate(out):
        if q[i, x] <= 0:
            raise ValueError(f"draft {i} is token {x}, which q[{i}] gives probability 0: "
                             "a draft must be sampled from its q row")
    return p, q, out


def verify_round(p, q, drafts, rng) -> list[int]:
    """Verify one round: return the kept drafts followed by one more token.

    p: (gamma + 1, V) target rows; q: (gamma, V) draft rows; drafts: gamma token ids,
    draft i sampled from q[i]. Uses rng.random() once per verified position and
    rng.choice(V, p=...) once for the extra token (the normalized residual of the first
    rejected position, or p[gamma] when all drafts are kept).

    >>> rng = np.random.default_rng(0)
    >>> verify_round(np.array([[0.5, 0.5], [0.0, 1.0]]), np.array([[0.5, 0.5]]), [0], rng)  # p == q: kept, bonus 1
    [0, 1]
    >>> verify_round(np.array([[0.0, 1.0], [0.5, 0.5]]), np.array([[1.0, 0.0]]), [0], rng)  # p(0) = 0: rejected
    [1]
    """
    p, q, drafts = _check_round(p, q, drafts)
    return _verify_unchecked(p, q, drafts, rng)


def _verify_unchecked(p: np.ndarray, q: np.ndarray, drafts: list[int], rng) -> list[int]:
    # The body of verify_round, for inputs already known to be valid (the simulations).
    gamma, V = q.shape
    emitted: list[int] = []
    for i, x in enumerate(drafts):
        u = rng.random()
        if u < p[i, x] / q[i, x]:
            emitted.append(x)
            continue
        r = residual(p[i], q[i])                                           # (V,)
        emitted.append(int(rng.choice(V, p=r)))
        return emitted
    emitted.append(int(rng.choice(V, p=p[gamma])))
    return emitted


def _check_pair_args(pair, gamma) -> None:
    if not isinstance(pair, BigramPair):
        raise ValueError(f"pair must be a BigramPair, got {type(pair).__name__}")
    check_int(gamma, "gamma", low=1)


def _draft_round(q_cdf: np.ndarray, prev_token: int, gamma: int, rng) -> list[int]:
    # q_cdf: (V, V) cumulative sums of the draft rows; inverse-CDF sampling with rng.random().
    V = q_cdf.shape[1]
    drafts: list[int] = []
    s = prev_token
    for _ in range(gamma):
        row = q_cdf[s]                                                     # (V,)
        s = min(int(np.searchsorted(row, rng.random() * row[-1], side="right")), V - 1)
        drafts.append(s)
    return drafts


def _round(pair: BigramPair, q_cdf: np.ndarray, prev_token: int, gamma: int, rng,
           verify: Verifier) -> list[int]:
    drafts = _draft_round(q_cdf, prev_token, gamma, rng)                   # gamma ids
    context = [prev_token] + drafts                                        # gamma + 1 ids
    p_rows = pair.p[context]                                               # (gamma + 1, V)
    q_rows = pair.q[context[:-1]]                                          # (gamma, V)
    if verify is verify_round:                                             # rows come from a checked pair
        return _verify_unchecked(p_rows, q_rows, drafts, rng)
    emitted = verify(p_rows, q_rows, drafts, rng)
    try:
        emitted = [int(t) for t in emitted]
    except (TypeError, ValueError):
        raise ValueError(f"verify must return a list of token ids, got {emitted!r}") from None
    if not 1 <= len(emitted) <= gamma + 1:
        raise ValueError(f"verify returned {len(emitted)} tokens; a round emits between 1 and gamma + 1 = "
                         f"{gamma + 1}: {emitted}")
    if any(not 0 <= t < pair.V for t in emitted):
        raise ValueError(f"verify returned token ids outside 0..{pair.V - 1}: {emitted}")
    return emitted


def sample_round_bigram(pair: BigramPair, prev_token: int, gamma: int, rng,
                        verify: Verifier = verify_round) -> list[int]:
    """Run one round on the bigram models after token `prev_token`; return the emitted tokens.

    Drafts gamma tokens, each from the q row of the draft before it (inverse CDF with
    rng.random()), builds p rows (gamma + 1, V) and q rows (gamma, V) and calls
    verify(p_rows, q_rows, drafts, rng). Pass another `verify` to test a different rule.

    >>> from specdec.bigram import make_bigram_pair
    >>> pair = make_bigram_pair(seed=0, noise=0.0)            # perfect draft: all kept
    >>> len(sample_round_bigram(pair, 0, 3, np.random.default_rng(1)))
    4
    """
    _check_pair_args(pair, gamma)
    check_int(prev_token, "prev_token", low=0, high=pair.V - 1, must=f"a token id in 0..{pair.V - 1}")
    return _round(pair, np.cumsum(pair.q, axis=1), int(prev_token), int(gamma), rng, verify)


def sample_sequences(pair: BigramPair, n_sequences: int, n_tokens: int, gamma: int, rng,
                     verify: Verifier = verify_round) -> tuple[np.ndarray, float]:
    """Generate `n_sequences` sequences of `n_tokens` tokens after `pair.start` by rounds.

    Each sequence runs rounds until it has at least `n_tokens` tokens (a round continues
    from the last emitted token); extra tokens of its last round are dropped. Returns the
    (n_sequences, n_tokens) int array of first tokens and the mean number of tokens per
    round over all rounds run (every token a round emitted counts, kept or dropped).

    >>> from specdec.bigram import make_bigram_pair
    >>> pair = make_bigram_pair(seed=0, noise=0.0)            # perfect draft
    >>> tokens, n_bar = sample_sequences(pair, 5, 2, 3, np.random.default_rng(0))
    >>> tokens.shape, n_bar
    ((5, 2), 4.0)
    """
    _check_pair_args(pair, gamma)
    for name, value in (("n_sequences", n_sequences), ("n_tokens", n_tokens)):
        check_int(value, name, low=1)
    tokens = np.empty((int(n_sequences), int(n_tokens)), dtype=np.int64)   # (n_sequences, n_tokens)
    q_cdf = np.cumsum(pair.q, axis=1)                                      # (V, V)
    rounds = emitted_total = 0
    for k in range(int(n_sequences)):
        seq: list[int] = []
        prev = pair.start
        while len(seq) < n_tokens:
            emitted = _round(pair, q_cdf, prev, int(gamma), rng, verify)
            rounds += 1
            emitted_total += len(emitted)
            seq.extend(emitted)
            prev = seq[-1]
        tokens[k] = seq[:n_tokens]
    return tokens, emitted_total / rounds
