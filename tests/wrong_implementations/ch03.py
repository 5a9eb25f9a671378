"""Deliberately wrong answers for chapter 03 (`solutions/03_acceptance_rule.ipynb`).

Each value replaces the whole solution cell with that grade_id; every one must lose points
while the reference solution gets full marks. The comment above each entry names the test
cells that catch it and what they see. (No exercise of this chapter samples, so no
chi-square statistics are involved; the tests compare values with independent formulas.)

MESSAGES names, for the misconceptions of emitted_distribution, words the learner must read in a
failing cell. RIGHT holds correct answers written another natural way (loops, the other identity):
each must keep full marks (measured with tests.power.run_power; see the comment above RIGHT).
"""

from tests.wrong_implementations.delegation import delegation_forms

_EMIT_DEF = "def emitted_distribution(p, q, q_drawn):"
_TV_DEF = "def tv(p, q):"
_ALPHA_DEF = "def acceptance_rate(p_logits, q_logits, tau):"

# Handing the exercises to a library. tv: the grader's own total_variation (autograder.stats) computes it
# outright (delegation_forms), and the course library gives it as 1 - acceptance_probability. acceptance_rate:
# no library function has its signature, so the three forms combine the library's softmax (which handles
# tau = 0 and overflow) with acceptance_probability: renamed function objects, a thin wrapper, a call through
# the module; a fourth form only borrows softmax. All compute the right answer; the hidden assert_own_work
# check of every test cell refuses them ("... calls the course library's ...").
_TV_EXTRA = {
    "delegate_one_minus_acceptance_probability": f"""from specdec.distributions import acceptance_probability

{_TV_DEF}
    return 1.0 - acceptance_probability(p, q)
""",
}
_ALPHA_FORMS = {
    "delegate_same_object": f"""from specdec.distributions import acceptance_probability as overlap, softmax as tempered

{_ALPHA_DEF}
    return overlap(tempered(p_logits, tau), tempered(q_logits, tau))
""",
    "delegate_thin_wrapper": f"""from specdec.distributions import acceptance_probability, softmax

{_ALPHA_DEF}
    return acceptance_probability(softmax(p_logits, tau), softmax(q_logits, tau))
""",
    "delegate_through_module": f"""import specdec.distributions as distributions_lib

{_ALPHA_DEF}
    return distributions_lib.acceptance_probability(distributions_lib.softmax(p_logits, tau),
                                                    distributions_lib.softmax(q_logits, tau))
""",
    "delegate_softmax_only": f"""from specdec.distributions import softmax

{_ALPHA_DEF}
    return np.minimum(softmax(p_logits, tau), softmax(q_logits, tau)).sum(axis=-1)
""",
}

_EMIT_HEAD = _EMIT_DEF + """
    p, q, q_drawn = (np.asarray(a, dtype=float) for a in (p, q, q_drawn))
"""
_KEPT = """    kept = np.zeros_like(p)
    proposed = q_drawn > 0
    kept[proposed] = q_drawn[proposed] * np.minimum(1.0, p[proposed] / q[proposed])
"""

WRONG = {
    "ex_tv": {
        **delegation_forms(_TV_DEF, "autograder.stats", "total_variation"),
        **_TV_EXTRA,
        # Forgets the factor 1/2: the running example gives 0.6 instead of 0.3.
        # Caught by test_tv_values (0.6 vs 0.3), test_tv_shapes (twice each row), test_tv_properties (bounds, identity).
        "no_half": '''def tv(p, q):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    return np.abs(p - q).sum(axis=-1)
''',
        # Sums over every axis: right for 1-D input, one number for a whole batch.
        # Caught by test_tv_shapes ((4, 5) gives shape () instead of (4,)) and test_tv_properties (shape (300,)).
        "flattened": '''def tv(p, q):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    return 0.5 * np.abs(p - q).sum()
''',
        # Sums over the first axis (the batch) instead of the vocabulary.
        # Caught by test_tv_shapes ((4, 5) gives shape (5,); the hidden square (6, 6) case has the right shape
        # but wrong values) and test_tv_properties ((300, 7) gives shape (7,)).
        "wrong_axis": '''def tv(p, q):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    return 0.5 * np.abs(p - q).sum(axis=0)
''',
        # The largest single-token gap instead of half the total gap ("largest difference over events"
        # misread as "over tokens"). Coincides with TV on the running, sky and two-token examples!
        # Caught by test_tv_shapes (row values), test_tv_properties (identity with sum min),
        # and the hidden reversed-ramp value in test_tv_values (0.3 instead of 0.4).
        "max_single_token_gap": '''def tv(p, q):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    return np.abs(p - q).max(axis=-1)
''',
    },
    "ex_acceptance_rate": {
        **_ALPHA_FORMS,
        # The naive rule's agreement sum p*q instead of the overlap sum min(p, q): 0.32 instead of 0.7.
        # Caught by test_acceptance_values (0.32: the message names the naive rule), _temperature,
        # _stability and _shapes. (test_acceptance_greedy passes: on one-hot rows sum p*q = sum min(p, q).)
        "naive_sum_pq": '''def acceptance_rate(p_logits, q_logits, tau):
    def dist(logits):
        z = np.asarray(logits, dtype=float)
        if tau == 0:
            out = np.zeros_like(z)
            np.put_along_axis(out, np.argmax(z, axis=-1)[..., None], 1.0, axis=-1)
            return out
        z = z / tau
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return (dist(p_logits) * dist(q_logits)).sum(axis=-1)
''',
        # The ratio uses the draft's distribution before processing: temperature applied to p only.
        # Right at tau = 1 (test_acceptance_values passes), wrong elsewhere.
        # Caught by test_acceptance_temperature (tau = 0.5: 0.542 instead of 0.419 on the running example),
        # test_acceptance_greedy (tau = 0 gives q(argmax p) = 0.909, not 1.0), test_acceptance_stability
        # (tau = 0.01: 0.487 instead of 0.0067) and test_acceptance_shapes (tau = 0.8: off by 0.06).
        "q_before_processing": '''def acceptance_rate(p_logits, q_logits, tau):
    def soft(z, t):
        z = np.asarray(z, dtype=float) / t
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    if tau == 0:
        z = np.asarray(p_logits, dtype=float)
        p = np.zeros_like(z)
        np.put_along_axis(p, np.argmax(z, axis=-1)[..., None], 1.0, axis=-1)
    else:
        p = soft(p_logits, tau)
    q = soft(q_logits, 1.0)
    return np.minimum(p, q).sum(axis=-1)
''',
        # Divides by tau even when tau = 0: the logits become +-inf and the result is nan.
        # Caught by test_acceptance_greedy only (nan instead of exactly 1.0 / 0.0); every tau > 0 test passes.
        "tau_zero_divides": '''def acceptance_rate(p_logits, q_logits, tau):
    def dist(logits):
        with np.errstate(all="ignore"):
            z = np.asarray(logits, dtype=float) / tau
            e = np.exp(z - z.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
    return np.minimum(dist(p_logits), dist(q_logits)).sum(axis=-1)
''',
        # Softmax without subtracting the maximum: exp(1000) overflows to inf and inf/inf is nan
        # (exp(-1000) underflows to 0 and 0/0 is nan).
        # Caught by test_acceptance_stability only (nan at logits near +-1000 and at tau = 0.01).
        "no_max_subtraction": '''def acceptance_rate(p_logits, q_logits, tau):
    def dist(logits):
        z = np.asarray(logits, dtype=float)
        if tau == 0:
            out = np.zeros_like(z)
            np.put_along_axis(out, np.argmax(z, axis=-1)[..., None], 1.0, axis=-1)
            return out
        e = np.exp(z / tau)
        return e / e.sum(axis=-1, keepdims=True)
    return np.minimum(dist(p_logits), dist(q_logits)).sum(axis=-1)
''',
        # Argmax agreement at every temperature (the greedy test applied to a sampling target).
        # Right at tau = 0 only. Caught by test_acceptance_values (0.0 instead of 0.7), _temperature
        # (0.0 instead of 0.419), _stability and _shapes.
        "argmax_agreement": '''def acceptance_rate(p_logits, q_logits, tau):
    zp = np.asarray(p_logits, dtype=float)
    zq = np.asarray(q_logits, dtype=float)
    return (np.argmax(zp, axis=-1) == np.argmax(zq, axis=-1)).astype(float)
''',
        # tau = 0 approximated by a tiny temperature: right unless there is a tie, where softmax splits
        # the mass (0.5 instead of 1.0). Caught by test_acceptance_greedy only (first tied case).
        "tiny_tau_instead_of_greedy": '''def acceptance_rate(p_logits, q_logits, tau):
    t = tau if tau > 0 else 1e-9
    def dist(logits):
        z = np.asarray(logits, dtype=float) / t
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.minimum(dist(p_logits), dist(q_logits)).sum(axis=-1)
''',
        # Ties at tau = 0 go to the highest index instead of np.argmax's lowest.
        # Caught by test_acceptance_greedy only (first tied case: 0.0 instead of 1.0).
        "ties_to_last_index": '''def acceptance_rate(p_logits, q_logits, tau):
    def dist(logits):
        z = np.asarray(logits, dtype=float)
        if tau == 0:
            last = z.shape[-1] - 1 - np.argmax(z[..., ::-1], axis=-1)
            out = np.zeros_like(z)
            np.put_along_axis(out, last[..., None], 1.0, axis=-1)
            return out
        z = z / tau
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.minimum(dist(p_logits), dist(q_logits)).sum(axis=-1)
''',
        # Multiplies the logits by tau instead of dividing. Right at tau = 1, and alpha -> 1 as tau -> 0
        # instead of as tau -> infinity. Caught by test_acceptance_temperature (tau = 0.5: 0.853 instead
        # of 0.419), test_acceptance_stability (tau = 0.01: 0.998 instead of 0.0067) and test_acceptance_shapes.
        "multiplies_by_tau": '''def acceptance_rate(p_logits, q_logits, tau):
    def dist(logits):
        z = np.asarray(logits, dtype=float)
        if tau == 0:
            out = np.zeros_like(z)
            np.put_along_axis(out, np.argmax(z, axis=-1)[..., None], 1.0, axis=-1)
            return out
        z = z * tau
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.minimum(dist(p_logits), dist(q_logits)).sum(axis=-1)
''',
        # One number for the whole batch (the mean over rows) instead of one per row.
        # Caught by test_acceptance_greedy (stacked (5, 3) batch gives 0.6), test_acceptance_shapes (shape ()),
        # and the hidden batches of test_acceptance_temperature and test_acceptance_stability.
        "mean_over_rows": '''def acceptance_rate(p_logits, q_logits, tau):
    def dist(logits):
        z = np.asarray(logits, dtype=float)
        if tau == 0:
            out = np.zeros_like(z)
            np.put_along_axis(out, np.argmax(z, axis=-1)[..., None], 1.0, axis=-1)
            return out
        z = z / tau
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.minimum(dist(p_logits), dist(q_logits)).sum(axis=-1).mean()
''',
        # Normalises over the wrong axis (axis 0, the batch): right for 1-D input only.
        # The tau = 0 path is right, so test_acceptance_greedy passes. Caught by test_acceptance_shapes
        # (every batch: off by up to 0.83) and the hidden batches of _temperature and _stability.
        "softmax_over_batch_axis": '''def acceptance_rate(p_logits, q_logits, tau):
    def dist(logits):
        z = np.asarray(logits, dtype=float)
        if tau == 0:
            out = np.zeros_like(z)
            np.put_along_axis(out, np.argmax(z, axis=-1)[..., None], 1.0, axis=-1)
            return out
        z = z / tau
        e = np.exp(z - z.max(axis=0, keepdims=True))
        return e / e.sum(axis=0, keepdims=True)
    return np.minimum(dist(p_logits), dist(q_logits)).sum(axis=-1)
''',
    },
    "ex_emitted_distribution": {
        # The course library's emitted_distribution, handed back three ways; a fourth only borrows residual.
        # Every test cell's hidden assert_own_work refuses them ("... calls the course library's ...").
        **delegation_forms(_EMIT_DEF, "specdec.distributions", "emitted_distribution"),
        "delegate_residual_only": """from specdec.distributions import residual

""" + _EMIT_HEAD + _KEPT + """    return kept + (1.0 - kept.sum()) * residual(p, q)
""",
        # "The rule is exact, so the answer is p": true only when q_drawn = q. Passes test_emitted_exact;
        # caught by test_emitted_hand_values (the draft that always proposes b: p instead of (0.5, 0.5, 0)) and
        # the hidden reference of test_emitted_mismatch.
        "returns_p": _EMIT_HEAD + "    return p.copy()\n",
        # Section 3's broken rule: rejections refilled from p. Running example: (0.35, 0.39, 0.26) instead of p.
        "refill_from_p": _EMIT_HEAD + _KEPT + "    return kept + (1.0 - kept.sum()) * p\n",
        # The residual left unnormalised: the output sums to less than 1 (0.79 on the running example).
        "residual_unnormalised": _EMIT_HEAD + _KEPT + "    return kept + (1.0 - kept.sum()) * np.maximum(p - q, 0.0)\n",
        # The rejection mass taken as 1 - sum min(p, q), the acceptance of the matched pair: right when
        # q_drawn = q only. Draft always b: (0.3, 0.5, 0), which sums to 0.8.
        "rejection_mass_from_overlap": _EMIT_HEAD + _KEPT + """    deficit = np.maximum(p - q, 0.0)
    if deficit.sum() == 0:
        return kept
    return kept + (1.0 - np.minimum(p, q).sum()) * deficit / deficit.sum()
""",
        # The deficit itself as the refill (its total is 1 - sum min(p, q)): the same mistake, written shorter.
        "refill_is_the_deficit": _EMIT_HEAD + _KEPT + "    return kept + np.maximum(p - q, 0.0)\n",
        # The keep ratio computed with q_drawn (the verifier's q ignored): draft always b gives (0.7, 0.3, 0).
        "ratio_with_q_drawn": _EMIT_HEAD + """    kept = np.where(q_drawn > 0, q_drawn * np.minimum(1.0, p / np.where(q_drawn > 0, q_drawn, 1.0)), 0.0)
    deficit = np.maximum(p - q, 0.0)
    if deficit.sum() == 0:
        return kept
    return kept + (1.0 - kept.sum()) * deficit / deficit.sum()
""",
        # The residual built from q_drawn: draft always b gives (0.357, 0.5, 0.143).
        "residual_from_q_drawn": _EMIT_HEAD + _KEPT + """    deficit = np.maximum(p - q_drawn, 0.0)
    if deficit.sum() == 0:
        return kept
    return kept + (1.0 - kept.sum()) * deficit / deficit.sum()
""",
        # min(1, p/q) times q_drawn on every token: 0/0 = nan where p = q = q_drawn = 0 (a greedy draft
        # against a top-p target). Caught by test_emitted_hand_values (nan) and the hidden sparse pairs.
        "nan_on_never_proposed": _EMIT_HEAD + """    with np.errstate(all="ignore"):
        kept = q_drawn * np.minimum(1.0, p / q)
    deficit = np.maximum(p - q, 0.0)
    if deficit.sum() == 0:
        return kept
    return kept + (1.0 - kept.sum()) * deficit / deficit.sum()
""",
        # Divides by the residual's total even when it is 0 (p = q): nan. Caught by test_emitted_hand_values
        # (p = q, drafts always b) and test_emitted_mismatch (p = q gives q_drawn).
        "residual_zero_total": _EMIT_HEAD + _KEPT + """    deficit = np.maximum(p - q, 0.0)
    with np.errstate(all="ignore"):
        return kept + (1.0 - kept.sum()) * deficit / deficit.sum()
""",
    },
}

# Misconceptions of emitted_distribution and words each must meet in some failing test cell.
MESSAGES = {
    "ex_emitted_distribution/returns_p": "only when q is the distribution the drafts were really drawn",
    "ex_emitted_distribution/refill_from_p": "refilled from p",
    "ex_emitted_distribution/residual_unnormalised": "must be normalised to sum to 1",
    "ex_emitted_distribution/rejection_mass_from_overlap": "1 minus the mass actually kept",
    "ex_emitted_distribution/refill_is_the_deficit": "1 minus the mass actually kept",
    "ex_emitted_distribution/ratio_with_q_drawn": "the verifier's own q",
    "ex_emitted_distribution/residual_from_q_drawn": "its own residual",
    "ex_emitted_distribution/nan_on_never_proposed": "never proposed",
    "ex_emitted_distribution/residual_zero_total": "nothing is ever rejected",
}

# Correct answers written another natural way: each keeps full marks. Measured by running them through the
# harness as if they were wrong answers (tests.power.run_power(solution_nb("03_acceptance_rule"), RIGHT)):
# every test cell passes.
RIGHT = {
    "ex_emitted_distribution": {
        # A loop over the drafted token: kept or refilled.
        "loop_over_drafts": _EMIT_HEAD + """    gap = np.maximum(p - q, 0.0)
    out = np.zeros_like(p)
    for x in range(len(p)):
        if q_drawn[x] == 0:
            continue
        keep = min(1.0, p[x] / q[x])
        out[x] += q_drawn[x] * keep
        if keep < 1:
            out += q_drawn[x] * (1 - keep) * gap / gap.sum()
    return out
""",
    },
    "ex_tv": {
        "loop_over_rows": """def tv(p, q):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    out = np.zeros(p.shape[:-1])
    for row in np.ndindex(*p.shape[:-1]):
        out[row] = sum(abs(a - b) for a, b in zip(p[row], q[row])) / 2
    return out
""",
        "one_minus_overlap": """def tv(p, q):
    return 1.0 - np.minimum(np.asarray(p, dtype=float), np.asarray(q, dtype=float)).sum(axis=-1)
""",
        "positive_part": """def tv(p, q):
    return np.maximum(np.asarray(p, dtype=float) - np.asarray(q, dtype=float), 0.0).sum(axis=-1)
""",
    },
    "ex_acceptance_rate": {
        "argmax_compare_and_loop": """def acceptance_rate(p_logits, q_logits, tau):
    zp = np.asarray(p_logits, dtype=float)
    zq = np.asarray(q_logits, dtype=float)
    if tau == 0:
        return (np.argmax(zp, axis=-1) == np.argmax(zq, axis=-1)).astype(float)
    out = np.zeros(zp.shape[:-1])
    for row in np.ndindex(*zp.shape[:-1]):
        a = np.exp((zp[row] - zp[row].max()) / tau)
        b = np.exp((zq[row] - zq[row].max()) / tau)
        out[row] = np.minimum(a / a.sum(), b / b.sum()).sum()
    return out
""",
    },
}
