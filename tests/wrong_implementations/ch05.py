"""Wrong answers to the exercises of chapter 05 (expected tokens, speedup, best gamma).

Each value replaces the whole solution cell with that grade_id; the real solutions of the
other cells stay in place. Every entry must lose points under the hidden tests, while the
unmodified notebook gets full marks. The exercises are deterministic (no sampling), so no
chi-square statistics apply: each comment names the test cells that catch the bug and why.
"""

from tests.wrong_implementations.delegation import delegation_forms

_N_BAR_DEF = "def expected_tokens(alpha, gamma):"
_SPEEDUP_DEF = "def speedup(alpha, gamma, c, parallel=False, v=0.0):"
_BEST_DEF = "def best_gamma(alpha, c, max_gamma, parallel=False, v=0.0):"

# Handing the exercises to specdec.speedup_model. tokens_per_round and predicted_speedup have the exercises'
# signatures, so their three delegation forms compute the right answers; optimal_gamma returns (gamma, S),
# so its plain forms fail on the type, and the form a learner would really write, optimal_gamma(...)[0],
# is added for each route. The hidden assert_own_work check of every test cell refuses all of them.
_BEST_FORMS = {
    "delegate_same_object": f"""from specdec.speedup_model import optimal_gamma

{_BEST_DEF}
    return optimal_gamma(alpha, c, max_gamma, parallel, v)[0]
""",
    "delegate_thin_wrapper": f"""from specdec.speedup_model import optimal_gamma as library_best

{_BEST_DEF}
    best, _ = library_best(alpha, c, max_gamma, parallel=parallel, v=v)
    return best
""",
    "delegate_through_module": f"""import specdec.speedup_model as speedup_model_lib

{_BEST_DEF}
    return speedup_model_lib.optimal_gamma(alpha, c, max_gamma, parallel, v)[0]
""",
}

WRONG = {
    "ex_expected_tokens": {
        **delegation_forms(_N_BAR_DEF, "specdec.speedup_model", "tokens_per_round"),
        # The textbook's placeholder: no bonus token, no compounding. 0.8, 2 -> 1.6 instead of 2.44.
        # Caught by test_expected_tokens_iid, _edges (alpha=1 -> gamma), _array, and every speedup test.
        "placeholder_gamma_times_alpha": '''def expected_tokens(alpha, gamma):
    return gamma * alpha
''',
        # Forgets the bonus token: (1 - alpha**gamma)/(1 - alpha), 2.952 at alpha=0.8, gamma=4 (vs 3.3616).
        # Caught by test_expected_tokens_iid, test_expected_tokens_edges (alpha=1 -> gamma), _array.
        "no_bonus_token": '''def expected_tokens(alpha, gamma):
    if np.ndim(alpha) == 0:
        alpha = np.full(gamma, float(alpha))
    survival = np.cumprod(np.asarray(alpha, dtype=float)[:gamma])
    return 1.0 + float(survival[:-1].sum())
''',
        # gamma off by one the other way: sums powers/survivals up to gamma + 1 instead of gamma.
        # 0.8, 2 -> 2.952 instead of 2.44; alpha=1 -> gamma + 2. Caught by test_expected_tokens_iid, _edges,
        # _array (the 5-entry array with gamma=2 gives 2.602) and the speedup and best_gamma tests.
        "gamma_off_by_one_range": '''def expected_tokens(alpha, gamma):
    if np.ndim(alpha) == 0:
        return float(sum(float(alpha) ** i for i in range(gamma + 2)))
    arr = np.asarray(alpha, dtype=float)
    return 1.0 + float(np.cumprod(arr[:gamma + 1]).sum())
''',
        # Drops the leading 1 (counts only kept drafts, E[J]). 0.8, 2 -> 1.44.
        # Caught by test_expected_tokens_iid, _edges (alpha=0 -> 0), _array.
        "drops_leading_one": '''def expected_tokens(alpha, gamma):
    if np.ndim(alpha) == 0:
        alpha = np.full(gamma, float(alpha))
    return float(np.cumprod(np.asarray(alpha, dtype=float)[:gamma]).sum())
''',
        # The closed form without the alpha = 1 case: ZeroDivisionError for a Python float 1.0, nan for
        # np.float64. Arrays are handled correctly. Caught by test_expected_tokens_edges, and by
        # test_best_gamma_ties (best_gamma(1.0, 1.0, 10) raises).
        "alpha_one_division_by_zero": '''def expected_tokens(alpha, gamma):
    if np.ndim(alpha) == 0:
        return (1 - alpha ** (gamma + 1)) / (1 - alpha)
    return 1.0 + float(np.cumprod(np.asarray(alpha, dtype=float)[:gamma]).sum())
''',
        # Treats an array as i.i.d. with its first entry. [0.9, 0.6, 0.3], 3 -> 3.439 instead of 2.602.
        # Caught by test_expected_tokens_array and test_best_gamma_parallel_v_arrays (decaying -> 12, not 5).
        "array_as_iid_first_entry": '''def expected_tokens(alpha, gamma):
    a = float(alpha) if np.ndim(alpha) == 0 else float(np.asarray(alpha)[0])
    return float(sum(a ** i for i in range(gamma + 1)))
''',
        # Uses the array entries themselves as survivals a_i (no running product).
        # [0.9, 0.6, 0.3], 3 -> 2.8 instead of 2.602. Caught by test_expected_tokens_array.
        "array_entries_as_survivals": '''def expected_tokens(alpha, gamma):
    if np.ndim(alpha) == 0:
        return float(sum(float(alpha) ** i for i in range(gamma + 1)))
    return 1.0 + float(np.asarray(alpha, dtype=float)[:gamma].sum())
''',
        # Ignores gamma for arrays and sums the running product over the whole array.
        # 5-entry array with gamma=2 -> 2.92 instead of 2.44. Caught by test_expected_tokens_array and
        # test_best_gamma_parallel_v_arrays (the decaying 12-entry array gives the same n_bar for every gamma).
        "array_uses_all_entries": '''def expected_tokens(alpha, gamma):
    if np.ndim(alpha) == 0:
        return float(sum(float(alpha) ** i for i in range(gamma + 1)))
    return 1.0 + float(np.cumprod(np.asarray(alpha, dtype=float)).sum())
''',
    },
    "ex_speedup": {
        **delegation_forms(_SPEEDUP_DEF, "specdec.speedup_model", "predicted_speedup"),
        # Drops the per-draft verification cost: 0.8, 4, 0.05, v=0.1 -> 2.80 instead of 2.10.
        # Caught by test_speedup_v and test_best_gamma_parallel_v_arrays (v=0.05 -> 8, not 6).
        "ignores_v": '''def speedup(alpha, gamma, c, parallel=False, v=0.0):
    drafting = c if parallel else gamma * c
    return expected_tokens(alpha, gamma) / (drafting + 1.0)
''',
        # Charges gamma * c even for a parallel drafter: parallel 0.8, 4, 0.05 -> 2.80 instead of 3.20.
        # Caught by test_speedup_parallel, test_speedup_v (parallel case) and
        # test_best_gamma_parallel_v_arrays (parallel, v=0 -> 2, not 6).
        "ignores_parallel": '''def speedup(alpha, gamma, c, parallel=False, v=0.0):
    return expected_tokens(alpha, gamma) / (gamma * c + 1.0 + gamma * v)
''',
        # Pays the verification pass once per draft: gamma * (c + 1). 0.8, 4, 0.05 -> 0.80 instead of 2.80.
        # Caught by test_speedup_basic, _v, and the best_gamma tests (everything is best at gamma = 1).
        "cost_gamma_times_c_plus_one": '''def speedup(alpha, gamma, c, parallel=False, v=0.0):
    return expected_tokens(alpha, gamma) / (gamma * (c + 1.0) + gamma * v)
''',
        # Adds v once per round instead of once per verified draft: 0.8, 4, 0.05, v=0.1 -> 2.59 vs 2.10.
        # Caught by test_speedup_v.
        "v_once_per_round": '''def speedup(alpha, gamma, c, parallel=False, v=0.0):
    drafting = c if parallel else gamma * c
    return expected_tokens(alpha, gamma) / (drafting + 1.0 + v)
''',
    },
    "ex_best_gamma": {
        **_BEST_FORMS,
        # Breaks ties towards the largest gamma (>= instead of >). best_gamma(1.0, 1.0, 10) -> 10, not 1.
        # Caught by test_best_gamma_ties.
        "ties_to_largest": '''def best_gamma(alpha, c, max_gamma, parallel=False, v=0.0):
    best, best_s = 1, speedup(alpha, 1, c, parallel, v)
    for gamma in range(2, max_gamma + 1):
        s = speedup(alpha, gamma, c, parallel, v)
        if s >= best_s:
            best, best_s = gamma, s
    return best
''',
        # Never tries max_gamma itself: best_gamma(1.0, 0.0, 7) -> 6. Caught by test_best_gamma_ties and
        # test_best_gamma_parallel_v_arrays (parallel -> 5, not 6).
        "excludes_max_gamma": '''def best_gamma(alpha, c, max_gamma, parallel=False, v=0.0):
    gammas = list(range(1, max(max_gamma, 2)))
    values = [speedup(alpha, g, c, parallel, v) for g in gammas]
    return gammas[int(np.argmax(values))]
''',
        # Searches 0..max_gamma: gamma = 0 (no drafting, S = 1) wins ties and losing cases.
        # best_gamma(1.0, 1.0, 10) -> 0. Caught by test_best_gamma_ties.
        "includes_gamma_zero": '''def best_gamma(alpha, c, max_gamma, parallel=False, v=0.0):
    values = [speedup(alpha, g, c, parallel, v) if g > 0 else 1.0 for g in range(max_gamma + 1)]
    return int(np.argmax(values))
''',
        # Returns the best speedup instead of the best gamma (a float). Caught by test_best_gamma_values
        # (type check) and every other best_gamma test.
        "returns_speedup": '''def best_gamma(alpha, c, max_gamma, parallel=False, v=0.0):
    return max(speedup(alpha, g, c, parallel, v) for g in range(1, max_gamma + 1))
''',
        # Searches with the default parallel=False, v=0 whatever it is given.
        # best_gamma(0.7, 0.3, 6, parallel=True) -> 2 instead of 6. Caught by test_best_gamma_parallel_v_arrays.
        "drops_parallel_and_v": '''def best_gamma(alpha, c, max_gamma, parallel=False, v=0.0):
    values = [speedup(alpha, g, c) for g in range(1, max_gamma + 1)]
    return int(np.argmax(values)) + 1
''',
    },
}

# Correct answers written another natural way, which must keep full marks (run through the power harness
# beside WRONG): a loop over positions, the closed form with its alpha = 1 case, an if/else round cost,
# and an argmax over the list of speedups (np.argmax takes the first, i.e. smallest, best gamma).
RIGHT = {
    "ex_expected_tokens": {
        "loop_over_positions": '''def expected_tokens(alpha, gamma):
    total, reach = 1.0, 1.0
    for i in range(gamma):
        reach *= alpha if np.ndim(alpha) == 0 else alpha[i]
        total += reach
    return total
''',
        "closed_form_with_alpha_one": '''def expected_tokens(alpha, gamma):
    if np.ndim(alpha) == 0:
        if alpha == 1:
            return gamma + 1.0
        return (1 - alpha ** (gamma + 1)) / (1 - alpha)
    return 1.0 + float(np.cumprod(np.asarray(alpha, dtype=float)[:gamma]).sum())
''',
    },
    "ex_speedup": {
        "if_else_cost": '''def speedup(alpha, gamma, c, parallel=False, v=0.0):
    if parallel:
        cost = c + 1 + gamma * v
    else:
        cost = gamma * c + 1 + gamma * v
    return expected_tokens(alpha, gamma) / cost
''',
    },
    "ex_best_gamma": {
        "argmax_of_list": '''def best_gamma(alpha, c, max_gamma, parallel=False, v=0.0):
    values = [speedup(alpha, g, c, parallel, v) for g in range(1, max_gamma + 1)]
    return int(np.argmax(values)) + 1
''',
    },
}
