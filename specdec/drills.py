"""Numeric interview drills: questions drawn from a seed, answers from the course's formulas.

A drill is a `Question`: a few numbers drawn at random from a seed, a question in words,
and one or more `Part`s, each with the right answer and the tolerance a by-hand answer
needs. `grade(question, values)` checks the learner's numbers; `question.worked` is the
worked answer to show after an attempt. The answers come from the library:
`speedup_model` (tokens per round, speedup, best gamma, break-even alpha),
`distributions` (acceptance, residual), `tree_sampling` (several children at one node)
and `cost_model` (the cost of a pass).

    >>> q = make_question(7, "round")
    >>> q.kind, q.chapter, [part.label for part in q.parts]
    ('round', '05', ['tokens per round n_bar', 'speedup S', 'best gamma (1..16)'])
    >>> g = grade(q, [part.answer for part in q.parts])
    >>> g.correct, [r.ok for r in g.results]
    (True, [True, True, True])
    >>> grade(q, [0.0, 0.0, 0]).correct
    False
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from specdec import speedup_model as sm
from specdec.cost_model import t_pass
from specdec.distributions import acceptance_probability, residual
from specdec.tree_sampling import recursive_acceptance
from specdec.checks import check_int
from specdec.hardware import GPUS

_FORGOT_BONUS = ("that is 1 + alpha + ... + alpha^(gamma-1): you forgot the bonus token a full acceptance earns "
                 "(n_bar = (1 - alpha^(gamma+1)) / (1 - alpha), exponent gamma + 1)")

#: kind -> (chapter to reread, topic)
KINDS = {
    "round": ("05", "speedup formula"),
    "break_even": ("05", "speedup formula"),
    "survival": ("05", "tokens per round"),
    "acceptance": ("03", "acceptance rule"),
    "cost": ("01", "cost of a pass"),
    "tree": ("08", "token trees"),
}
BEST_GAMMA_MAX = 16


@dataclass(frozen=True)
class Part:
    """One number to find. `accepted` (integers only) lists every answer that counts."""

    label: str
    answer: float
    abs_tol: float = 0.0
    rel_tol: float = 0.0
    accepted: tuple = ()
    slips: tuple = ()       # (value, what it is) for the likely wrong answers: the message names the mistake

    def ok(self, value) -> bool:
        try:
            value = float(value)
        except (TypeError, ValueError):
            return False
        if not math.isfinite(value):
            return False
        if self.accepted:
            return value in self.accepted
        return self._near(value, self.answer)

    def _near(self, value: float, target: float) -> bool:
        return abs(value - target) <= max(self.abs_tol, self.rel_tol * abs(target))

    def diagnose(self, value) -> str:
        """What a wrong `value` most likely is: the description of the first slip it matches, else ''.

        A slip that lands on the right answer itself is never named.
        """
        try:
            value = float(value)
        except (TypeError, ValueError):
            return ""
        for slip, why in self.slips:
            if self.accepted:
                if value == slip and slip not in self.accepted:
                    return why
            elif self._near(value, slip) and not self._near(slip, self.answer):
                return why
        return ""


@dataclass(frozen=True)
class Question:
    kind: str
    seed: int
    chapter: str
    topic: str
    text: str
    params: dict
    parts: tuple
    worked: str = field(repr=False, default="")


@dataclass(frozen=True)
class PartResult:
    label: str
    given: object
    expected: float
    ok: bool
    slip: str = ""          # the likely mistake behind a wrong answer, when one matches


@dataclass(frozen=True)
class Grade:
    correct: bool
    results: tuple

    def summary(self) -> str:
        lines = []
        for r in self.results:
            mark = "right" if r.ok else f"wrong (expected {r.expected:.4g})" + (f": {r.slip}" if r.slip else "")
            lines.append(f"{r.label}: you gave {_shown(r.given)}, {mark}")
        return "\n".join(lines)


def _shown(value) -> str:
    """A learner's value as typed: 6.0 shows as 6, a missing value as 'nothing'."""
    if value is None:
        return "nothing"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def grade(question: Question, values) -> Grade:
    """Check the learner's numbers, one per part, in order. Missing values count as wrong."""
    values = list(values) if values is not None else []
    results = []
    for i, part in enumerate(question.parts):
        given = values[i] if i < len(values) else None
        ok = part.ok(given)
        results.append(PartResult(part.label, given, part.answer, ok, "" if ok else part.diagnose(given)))
    return Grade(all(r.ok for r in results), tuple(results))


def _pick(rng, lo, hi, step):
    n = int(round((hi - lo) / step))
    return round(lo + step * int(rng.integers(0, n + 1)), 6)


def _round_question(rng):
    alpha, gamma, c = _pick(rng, 0.55, 0.92, 0.01), int(rng.integers(2, 9)), _pick(rng, 0.02, 0.25, 0.01)
    n_bar = sm.expected_tokens_iid(alpha, gamma)
    s = sm.predicted_speedup(alpha, gamma, c)
    best, s_best = sm.optimal_gamma(alpha, c, BEST_GAMMA_MAX)
    text = (f"A draft is accepted with probability alpha = {alpha} at every position (i.i.d.), it drafts "
            f"gamma = {gamma} tokens per round, and one draft step costs c = {c} of a target step. "
            f"(1) How many tokens does a round produce on average? (2) What is the speedup over plain "
            f"decoding? (3) Which gamma in 1..{BEST_GAMMA_MAX} gives the largest speedup?")
    worked = (f"n_bar = (1 - alpha^(gamma+1)) / (1 - alpha) = (1 - {alpha}^{gamma + 1}) / {1 - alpha:.2f} = {n_bar:.3f}.\n"
              f"A round costs gamma*c + 1 = {gamma}*{c} + 1 = {gamma * c + 1:.2f} target steps, so "
              f"S = {n_bar:.3f} / {gamma * c + 1:.2f} = {s:.3f}.\n"
              f"Best gamma: S(gamma) rises while the next draft's survival alpha^(gamma+1) pays for its cost; "
              f"scanning gamma = 1..{BEST_GAMMA_MAX} gives gamma = {best} with S = {s_best:.3f} "
              f"(ceiling for a free, endless draft: 1/(1 - alpha) = {1 / (1 - alpha):.2f}).")
    no_bonus = n_bar - alpha ** gamma                 # 1 + alpha + ... + alpha^(gamma-1)
    cost = gamma * c + 1
    parts = (Part("tokens per round n_bar", n_bar, rel_tol=0.01, slips=(
                 (no_bonus, _FORGOT_BONUS),
                 (n_bar - 1, "that counts only the kept drafts: every round also emits one token of the target's own (+1)"))),
             Part("speedup S", s, rel_tol=0.01, slips=(
                 (no_bonus / cost, "that divides the n_bar without the bonus token: " + _FORGOT_BONUS),
                 ((n_bar - 1) / cost, "that divides the kept drafts only: every round also emits the target's own token"),
                 (n_bar, "that is n_bar alone: a round costs gamma*c + 1 target steps, not 1"),
                 (n_bar / (gamma * c), "that forgets the target's pass: a round costs gamma*c + 1, not gamma*c"),
                 (n_bar / (c + 1), "that charges one draft step per round: the draft runs gamma steps, gamma*c + 1"))),
             Part(f"best gamma (1..{BEST_GAMMA_MAX})", best, accepted=(best,)))
    return dict(alpha=alpha, gamma=gamma, c=c), text, parts, worked


def _break_even_question(rng):
    gamma, c = int(rng.integers(1, 7)), _pick(rng, 0.05, 0.4, 0.01)
    alpha_star = sm.alpha_from_speedup(1.0, gamma, c)
    text = (f"A draft costs c = {c} of a target step per token and drafts gamma = {gamma} tokens per round "
            f"(i.i.d. acceptance alpha). Below which alpha is speculation slower than plain decoding "
            f"(the break-even alpha, where S = 1)?")
    worked = (f"S = n_bar / (gamma*c + 1) = 1 means n_bar = 1 + alpha + ... + alpha^gamma = {gamma * c + 1:.2f}. "
              + ("With gamma = 1 that is 1 + alpha = 1 + c, so alpha = c: one guess pays exactly when it is "
                 f"accepted more often than it costs, alpha* = {alpha_star:.3f}."
                 if gamma == 1 else
                 f"n_bar rises with alpha, so solve alpha + ... + alpha^{gamma} = {gamma * c:.2f} numerically "
                 f"(bisection): alpha* = {alpha_star:.3f}."))
    slips = (((c, "that is the one-draft rule alpha = c: with gamma drafts solve alpha + ... + alpha^gamma = gamma*c"),)
             if gamma > 1 else ())
    return dict(gamma=gamma, c=c), text, (Part("break-even alpha", alpha_star, abs_tol=0.01, slips=slips),), worked


def _survival_question(rng):
    gamma = int(rng.integers(3, 6))
    alphas = np.sort(np.array([_pick(rng, 0.5, 0.95, 0.05) for _ in range(gamma)]))[::-1]
    a = sm.survival_curve(alphas, gamma)
    n_bar = sm.expected_tokens_from_survival(a)
    shown = ", ".join(f"{x:.2f}" for x in alphas)
    text = (f"A confidence head says the drafts of this round are kept with conditional probabilities "
            f"{shown} (position i is kept with that chance once the drafts before it were). (1) What is the "
            f"chance that all {gamma} drafts are kept? (2) How many tokens does the round produce on average?")
    steps = " + ".join(f"{x:.3f}" for x in a)
    worked = (f"Survivals multiply: a_i = alpha_1 * ... * alpha_i = {', '.join(f'{x:.3f}' for x in a)}. "
              f"All kept: a_{gamma} = {a[-1]:.3f}. n_bar = 1 + sum_i a_i = 1 + {steps} = {n_bar:.3f} "
              f"(the 1 is the target's own token, always produced).")
    return (dict(alphas=[float(x) for x in alphas]), text,
            (Part("all drafts kept", float(a[-1]), abs_tol=0.005, slips=(
                (float(alphas[-1]), "that is the last draft's own conditional chance: survivals multiply, a = alpha_1 * ... * alpha_gamma"),)),
             Part("tokens per round n_bar", n_bar, abs_tol=0.01, slips=(
                 (n_bar - 1, "that counts only the kept drafts: add 1 for the token the target always produces"),
                 (1 + float(alphas.sum()), "that adds the conditional chances: position i survives with the product alpha_1 * ... * alpha_i"),
                 (float(alphas.sum()), "that adds the conditional chances and forgets the target's own token")))),
            worked)


def _distribution_pair(rng, V):
    while True:
        p = rng.integers(1, 9, size=V).astype(float)
        q = rng.integers(1, 9, size=V).astype(float)
        p, q = np.round(p / p.sum(), 2), np.round(q / q.sum(), 2)
        p[-1], q[-1] = round(1 - p[:-1].sum(), 2), round(1 - q[:-1].sum(), 2)
        if p.min() > 0 and q.min() > 0 and np.abs(p - q).max() > 0.05:
            return p, q


def _acceptance_question(rng):
    p, q = _distribution_pair(rng, 4)
    alpha = acceptance_probability(p, q)
    over = int(np.argmax(q - p))                 # the token the draft over-proposes most
    keep = min(1.0, p[over] / q[over])
    r = residual(p, q)
    under = int(np.argmax(p - q))
    text = (f"Target p = {p.tolist()}, draft q = {q.tolist()} over tokens 0..3. (1) What is the chance that "
            f"the draft's token is accepted? (2) The draft proposes token {over}: with what probability is it "
            f"kept? (3) After a rejection, with what probability is token {under} emitted?")
    worked = (f"alpha = sum_x min(p(x), q(x)) = {' + '.join(f'{m:.2f}' for m in np.minimum(p, q))} = {alpha:.3f} "
              f"(= 1 - TV(p, q)). Token {over} is kept with probability min(1, p/q) = {p[over]:.2f}/{q[over]:.2f} "
              f"= {keep:.3f}. The residual is max(0, p - q) = {np.round(np.maximum(p - q, 0), 2).tolist()}, "
              f"normalized by its sum 1 - alpha = {1 - alpha:.2f}: token {under} gets {r[under]:.3f}.")
    return (dict(p=p.tolist(), q=q.tolist()), text,
            (Part("acceptance alpha", float(alpha), abs_tol=0.005, slips=(
                (float(1 - alpha), "that is 1 - alpha, the rejection chance (the total variation distance)"),
                (float(np.maximum(p, q).sum()), "that sums max(p, q): acceptance sums min(p, q)"))),
             Part(f"keep probability of token {over}", float(keep), abs_tol=0.005, slips=(
                 (float(q[over] / p[over]), "the ratio is upside down: keep with min(1, p/q)"),
                 (float(p[over]), "that is p alone: the draft proposed it with q, so keep with p/q"))),
             Part(f"residual probability of token {under}", float(r[under]), abs_tol=0.005, slips=(
                 (float(p[under] - q[under]), "that is max(0, p - q) before normalizing: divide by its sum, 1 - alpha"),
                 (float(p[under]), "that is p itself: after a rejection draw from the residual norm(max(0, p - q))")))), worked)


_COST_GPUS = ("A100", "H100", "H200")        # one GPU's data sheet: its own bandwidth and its own FLOP/s


def _cost_question(rng):
    n_params = float(rng.choice([1, 3, 7, 8, 13, 34, 70]))
    gpu = GPUS[str(rng.choice(_COST_GPUS))]
    bandwidth = round(gpu.bandwidth / 1e12, 3)                   # TB/s
    flops = round(gpu.flops_bf16 / 1e12, 1)                      # TFLOP/s, dense bf16
    t_W = 2 * n_params * 1e9 / (bandwidth * 1e12)                 # bf16: 2 bytes per weight
    t_F = 2 * n_params * 1e9 / (flops * 1e12)                     # 2 FLOPs per weight per token
    one = t_pass(1, 1, t_W, 0.0, t_F)
    k_free = 1
    while t_pass(1, k_free + 1, t_W, 0.0, t_F) <= one:
        k_free += 1
    text = (f"A dense {n_params:g}B-parameter model in bfloat16 runs on one {gpu.name} ({bandwidth:g} TB/s of memory "
            f"bandwidth, {flops:g} TFLOP/s dense bf16). Batch 1, short context. (1) How long does reading the weights take "
            f"(ms)? (2) How long is the arithmetic for one token (microseconds)? (3) Up to how many tokens does one pass cost "
            f"no more than a single-token step?")
    worked = (f"t_W = 2 bytes x {n_params:g}e9 / {bandwidth:g}e12 B/s = {t_W * 1e3:.3f} ms. t_F = 2 FLOP x "
              f"{n_params:g}e9 / {flops:g}e12 FLOP/s = {t_F * 1e6:.2f} us. A pass over k tokens costs "
              f"max(t_W, k t_F): flat while k <= t_W / t_F = pi / beta = {t_W / t_F:.1f}, so k = {k_free} "
              f"(the ridge point, in FLOP per byte, times 2 bytes per weight over 2 FLOP per weight).")
    return (dict(gpu=gpu.name, n_params_billion=n_params, bandwidth_TBps=bandwidth, flops_TFLOPs=flops), text,
            (Part("weight read t_W (ms)", t_W * 1e3, rel_tol=0.02, slips=(
                (t_W * 1e3 / 2, "that reads 1 byte per weight: bfloat16 takes 2"),
                (t_W * 1e6, "that is in microseconds: the part asks for ms"))),
             Part("arithmetic per token (us)", t_F * 1e6, rel_tol=0.02, slips=(
                 (t_F * 1e6 / 2, "that counts 1 FLOP per weight: a multiply and an add make 2"),
                 (t_F * 1e3, "that is in ms: the part asks for microseconds"))),
             Part("largest free k", k_free, accepted=(k_free,), slips=(
                 (k_free + 1, "one too many: k t_F must stay at or below t_W"),
                 (k_free - 1, "one too few: a pass stays free while k t_F <= t_W")))), worked)


def _tree_question(rng):
    p, q = _distribution_pair(rng, 3)
    k = int(rng.integers(2, 4))
    one, many = recursive_acceptance(p, q, 1), recursive_acceptance(p, q, k)
    text = (f"At one node of a token tree, the target's distribution is p = {p.tolist()} and the draft's is "
            f"q = {q.tolist()}. The node has children drawn independently from q and is verified by recursive "
            f"rejection. What is the chance that some child is accepted (1) with one child, (2) with {k} children?")
    worked = (f"One child: alpha = sum min(p, q) = {one:.3f}. Each rejection replaces p by its residual "
              f"norm(max(0, R - q)) and the next child is accepted with sum min(R, q); the chance that all {k} "
              f"are rejected is the product of (1 - a_i), so P(some child kept) = {many:.3f}. More children help, "
              f"with diminishing returns; the emitted token still follows p exactly.")
    return (dict(p=p.tolist(), q=q.tolist(), k=k), text,
            (Part("one child", float(one), abs_tol=0.005),
             Part(f"{k} children", float(many), abs_tol=0.01, slips=(
                 (float(1 - (1 - one) ** k), "that tries every child against p itself: after a rejection the next child "
                                               "is tested against the residual norm(max(0, R - q)), not p"),))), worked)


_MAKERS = {"round": _round_question, "break_even": _break_even_question, "survival": _survival_question,
           "acceptance": _acceptance_question, "cost": _cost_question, "tree": _tree_question}


def make_question(seed: int, kind: str | None = None) -> Question:
    """The numeric drill of `kind` (or of a kind chosen by the seed) with numbers drawn from `seed`.

    The same seed and kind always give the same question.
    """
    check_int(seed, "seed", low=0, must="a non-negative integer")
    if kind is not None and kind not in _MAKERS:
        raise ValueError(f"unknown drill kind {kind!r}; kinds are {', '.join(_MAKERS)}")
    rng = np.random.default_rng([int(seed), 1013])
    if kind is None:
        kind = list(_MAKERS)[int(rng.integers(len(_MAKERS)))]
    params, text, parts, worked = _MAKERS[kind](rng)
    chapter, topic = KINDS[kind]
    return Question(kind, int(seed), chapter, topic, text, params, tuple(parts), worked)


def drill_set(seed: int, n: int = 6) -> list[Question]:
    """`n` questions, one of each kind in turn, numbers drawn from seeds derived from `seed`."""
    kinds = list(_MAKERS)
    return [make_question(int(seed) * 100 + i, kinds[i % len(kinds)]) for i in range(n)]
