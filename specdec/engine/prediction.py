"""Chapter 05's predictions fed with what the lab measured: tokens per round and the speedup.

- `predicted_steady_speedup`: the steady state of decoding, S = n_bar (1 + o_plain) / (gamma c + r_gamma
  + o_round), where r_gamma = t_pass(gamma + 1) / t_pass(1) and the o's are the engine's own work
  per plain step and per round; all times in units of one plain decoding step;
- `predicted_request_speedup`: the same for whole requests of n_new tokens, where each request
  also pays its first passes over the prompt (a plain request one, a speculative one in each model).

n_bar itself comes from a measured survival curve through `specdec.speedup_model.expected_tokens_from_survival`
(1 + a_1 + ... + a_gamma), and chapter 05's speedup from alpha is `specdec.speedup_model.predicted_speedup`.

    >>> round(predicted_steady_speedup(2.4, 2, c=0.1, pass_ratio=1.0), 3)
    2.0
    >>> round(predicted_steady_speedup(2.4, 2, c=0.1, pass_ratio=1.0, overhead=0.2, plain_overhead=0.05), 3)
    1.8

A request of 24 tokens whose prompt pass costs 3 steps (and 4 for both models' first passes): plain
26 steps, speculative 4 + 0.1 + 9 x 1.2 = 14.9

    >>> round(predicted_request_speedup(2.4, 2, 0.1, 1.0, n_new=24, first_plain=3.0, first_spec=4.0), 3)
    1.745
    >>> round(predicted_request_speedup(2.4, 2, 0.1, 1.0, n_new=10**7, first_plain=3.0, first_spec=4.0), 3)
    2.0
"""
from __future__ import annotations


def predicted_steady_speedup(n_bar: float, gamma: int, c: float, pass_ratio: float = 1.0, overhead: float = 0.0,
                             plain_overhead: float = 0.0) -> float:
    """S = n_bar (1 + plain_overhead) / (gamma c + pass_ratio + overhead).

    pass_ratio = t_pass(gamma + 1) / t_pass(1) (1 when verification is free); overhead = the
    engine's work per round outside the models, plain_overhead = plain decoding's work per token
    outside the model, both in units of t_pass(1) (0 for the ideal formula).
    """
    return float(n_bar * (1 + plain_overhead) / (gamma * c + pass_ratio + overhead))


def predicted_request_speedup(n_bar: float, gamma: int, c: float, pass_ratio: float = 1.0, overhead: float = 0.0,
                              plain_overhead: float = 0.0, *, n_new: int, first_plain: float,
                              first_spec: float) -> float:
    """Speedup of whole requests of n_new tokens, the first passes over the prompt included.

    Plain decoding: one first pass (first_plain steps, it yields token 1), then n_new - 1 steps,
    and the engine's plain_overhead on each of the n_new tokens. Speculative decoding: about
    n_new / n_bar rounds; the first round's draft and target passes also read the prompt
    (first_spec = both first passes together, in steps) and the round's other gamma - 1 draft
    steps cost c each; every later round costs gamma c + pass_ratio; every round adds overhead.
    For long requests the first passes fade and this tends to `predicted_steady_speedup`.
    """
    rounds = n_new / n_bar
    plain = first_plain + (n_new - 1) + n_new * plain_overhead
    spec = first_spec + (gamma - 1) * c + (rounds - 1) * (gamma * c + pass_ratio) + rounds * overhead
    return float(plain / spec)
