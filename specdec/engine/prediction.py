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

- `fitted_costs`: the costs of a round measured at several gammas, each replaced by a fit through all
  of them: a line in gamma for the draft's work and the engine's, the clean pass table's shape for
  the target's pass (see its docstring for why).
"""
from __future__ import annotations

import numpy as np


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


def fitted_costs(costs: dict, pass_ratio: dict) -> dict:
    """{gamma: costs} measured at several gammas -> the same keys, each round's cost fitted across all gammas.

    Each gamma's costs come from its own short runs, so alone they are noisy; a fit through every
    gamma keeps the shape each cost is known to have and averages the noise:

    - the draft's gamma passes together (gamma c) and the engine's work per round (o_round) are a
      fixed cost plus a cost per drafted token (the draft's first call of a round also catches up
      on the tokens it has not seen; the engine samples and checks gamma rows): a least-squares line
      in gamma;
    - the target's pass over gamma + 1 tokens (r_gamma) has the shape of the clean pass table,
      `pass_ratio[gamma]` = t_pass(gamma + 1) / t_pass(1), measured with many repeats at one context.
      That shape is not a line: matrix kernels work on blocks of rows, and on the course's CPU a pass
      over four tokens costs less than one over three. Real requests have other contexts than the
      table, so the fit is one factor k through all gammas, r_gamma = k pass_ratio[gamma];
    - the first passes do not depend on gamma: each takes the median over gammas.

    >>> raw = {1: dict(c=0.30, r_gamma=1.2, o_round=0.10, first_spec=4.0, o_plain=0.03, first_plain=3.0),
    ...        2: dict(c=0.20, r_gamma=1.1, o_round=0.20, first_spec=4.4, o_plain=0.03, first_plain=3.2),
    ...        3: dict(c=0.50 / 3, r_gamma=1.3, o_round=0.30, first_spec=4.2, o_plain=0.03, first_plain=3.1)}
    >>> fit = fitted_costs(raw, {1: 1.1, 2: 1.2, 3: 1.15})   # gamma c = 0.3, 0.4, 0.5 is a line already: c stays
    >>> [round(fit[g]["r_gamma"], 3) for g in (1, 2, 3)], [round(fit[g]["c"], 3) for g in (1, 2, 3)]
    ([1.145, 1.249, 1.197], [0.3, 0.2, 0.167])
    >>> round(fit[2]["first_spec"], 2), round(fit[2]["o_round"], 2)
    (4.2, 0.2)
    """
    gammas = sorted(costs)
    if len(gammas) < 2:
        raise ValueError(f"a fit across gammas needs costs at two gammas at least, got gammas {gammas}")
    if sorted(pass_ratio) != gammas:
        raise ValueError(f"pass_ratio must hold the gammas of the costs, {gammas}; got {sorted(pass_ratio)}")
    g = np.array(gammas, dtype=float)

    def line(values):
        return np.polyval(np.polyfit(g, values, 1), g)

    draft_per_round = line([gamma * costs[gamma]["c"] for gamma in gammas])   # gamma c, a line in gamma
    o_round = line([costs[gamma]["o_round"] for gamma in gammas])
    shape = np.array([pass_ratio[gamma] for gamma in gammas], dtype=float)
    measured = np.array([costs[gamma]["r_gamma"] for gamma in gammas])
    r_gamma = shape * (measured @ shape) / (shape @ shape)                    # k * shape, k by least squares
    out = {}
    for i, gamma in enumerate(gammas):
        out[gamma] = {key: float(np.median([costs[x][key] for x in gammas])) for key in costs[gamma]}
        out[gamma].update(c=float(draft_per_round[i] / gamma), r_gamma=float(r_gamma[i]), o_round=float(o_round[i]))
    return out
