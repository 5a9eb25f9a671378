"""Wrong answers to the chapter 12 exercises (robust_time, in_run_costs, draws_needed), to prove their tests have power.

Each value replaces the solution cell of its exercise in solutions/12_gpt2_lab.ipynb. The
exercises are deterministic (a scripted clock; run records; exact powers from SciPy), so no
chi-square statistics apply: the comment above each entry names the test cells that catch it and,
for in_run_costs and draws_needed, the message the learner reads (MESSAGES holds the latter's).
"""
from tests.wrong_implementations.delegation import delegation_forms

_TIME_DEF = "def robust_time(fn, repeats, warmup=1, synchronize=None, clock=time.perf_counter):"
_CHECKS = """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError("repeats")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError("warmup")
    sync = synchronize if synchronize is not None else (lambda: None)"""
_STATS = """
    q25, q50, q75 = np.percentile(samples, [25, 50, 75])
    return float(q50), float(q75 - q25)"""


def _timed(loop_body: str, checks: str = _CHECKS, stats: str = _STATS, warm: str = """
    for _ in range(warmup):
        fn()""") -> str:
    return _TIME_DEF + checks + warm + """
    samples = []
    for _ in range(repeats):""" + loop_body + stats

_RIGHT_LOOP = """
        sync()
        start = clock()
        fn()
        sync()
        samples.append(clock() - start)"""

WRONG_ROBUST_TIME = {
    # starts the clock before draining earlier work: test_robust_time_protocol
    "clock_before_first_sync": _timed("""
        start = clock()
        sync()
        fn()
        sync()
        samples.append(clock() - start)"""),
    # stops the clock before the work has finished (times the launch on a GPU): test_robust_time_protocol
    "no_sync_before_stop": _timed("""
        sync()
        start = clock()
        fn()
        stop = clock()
        sync()
        samples.append(stop - start)"""),
    # one synchronize for the whole loop: test_robust_time_protocol
    "sync_once_outside_the_loop": _TIME_DEF + _CHECKS + """
    for _ in range(warmup):
        fn()
    sync()
    samples = []
    for _ in range(repeats):
        start = clock()
        fn()
        samples.append(clock() - start)
    sync()""" + _STATS,
    # no warm-up calls at all: test_robust_time_protocol (fn count)
    "no_warmup": _timed(_RIGHT_LOOP, warm=""),
    # warm-up calls timed too, and counted as samples: both test cells
    "warmup_timed": _timed(_RIGHT_LOOP, warm="""
    samples0 = []
    for _ in range(warmup):
        sync()
        start = clock()
        fn()
        sync()
        samples0.append(clock() - start)""", stats="""
    samples = samples0 + samples
    q25, q50, q75 = np.percentile(samples, [25, 50, 75])
    return float(q50), float(q75 - q25)"""),
    # the mean, which one outlier drags: test_robust_time_statistics
    "mean_not_median": _timed(_RIGHT_LOOP, stats="""
    q25, q75 = np.percentile(samples, [25, 75])
    return float(np.mean(samples)), float(q75 - q25)"""),
    # the range (max - min) as the spread: test_robust_time_statistics
    "range_not_iqr": _timed(_RIGHT_LOOP, stats="""
    return float(np.median(samples)), float(np.max(samples) - np.min(samples))"""),
    # the standard deviation as the spread: test_robust_time_statistics
    "std_not_iqr": _timed(_RIGHT_LOOP, stats="""
    return float(np.median(samples)), float(np.std(samples))"""),
    # the minimum instead of the median: both test cells' statistics
    "minimum_not_median": _timed(_RIGHT_LOOP, stats="""
    q25, q75 = np.percentile(samples, [25, 75])
    return float(np.min(samples)), float(q75 - q25)"""),
    # accepts repeats = 0 (returns nan) instead of refusing it: test_robust_time_statistics
    "no_input_checks": _timed(_RIGHT_LOOP, checks="""
    sync = synchronize if synchronize is not None else (lambda: None)"""),
    **delegation_forms(_TIME_DEF, "specdec.engine.timing", "robust_time"),
}

_COSTS_DEF = "def in_run_costs(plain, spec):"


def _costs(step="(pt.seconds - pt.first_seconds) / (pt.calls - pt.first_calls)",
           o_plain="(plain['seconds'] - pt.seconds) / pt.calls / step",
           c="(sd.seconds - sd.first_seconds) / (sd.calls - sd.first_calls) / step",
           r_gamma="(st.seconds - st.first_seconds) / (st.calls - st.first_calls) / step",
           o_round="(spec['seconds'] - st.seconds - sd.seconds) / st.calls / step",
           first_spec="(st.first_seconds + sd.first_seconds) / st.first_calls / step") -> str:
    return _COSTS_DEF + f"""
    pt, st, sd = plain["passes"]["target"], spec["passes"]["target"], spec["passes"]["draft"]
    step = {step}
    return dict(o_plain=float({o_plain}), first_plain=float(pt.first_seconds / pt.first_calls / step),
                c=float({c}), r_gamma=float({r_gamma}), o_round=float({o_round}), first_spec=float({first_spec}))"""


WRONG_IN_RUN_COSTS = {
    # the unit counts first passes (each reads a whole prompt): test_in_run_costs_cases,
    # "o_plain: expected 0.2500 plain steps, got 0.2 (the unit leaves each request's first pass out: it reads a whole prompt)"
    "unit_includes_first_passes": _costs(step="pt.seconds / pt.calls"),
    # o_plain per decoding step, first passes left out of the count: test_in_run_costs_cases,
    # "o_plain: expected 0.2500 plain steps, got 0.2777... (per plain token means per target call, first passes included ...)"
    "o_plain_per_later_step": _costs(o_plain="(plain['seconds'] - pt.seconds) / (pt.calls - pt.first_calls) / step"),
    # the engine's work per token in seconds, not in plain steps: test_in_run_costs_cases,
    # "o_plain: expected 0.2500 plain steps, got 0.0005 (in seconds: divide by the unit, one plain step)", and
    # test_in_run_costs_units ("every time multiplied by 7 (a slower machine) changed it ...")
    "seconds_not_steps": _costs(o_plain="(plain['seconds'] - pt.seconds) / pt.calls"),
    # c in units of the speculative run's target pass: test_in_run_costs_cases,
    # "c: expected 0.1000 plain steps, got 0.125 (c is a draft pass in plain steps, not in the speculative run's target passes)"
    "c_in_round_target_passes": _costs(c="(sd.seconds - sd.first_seconds) / (sd.calls - sd.first_calls) "
                                         "/ ((st.seconds - st.first_seconds) / (st.calls - st.first_calls))"),
    # the draft's first passes averaged into c: test_in_run_costs_cases, "c: ... (leave the draft's first passes out of c)"
    "c_with_first_passes": _costs(c="sd.seconds / sd.calls / step"),
    # the target's first passes averaged into r_gamma: test_in_run_costs_cases,
    # "r_gamma: expected 0.8000 plain steps, got 1.3875 (leave the target's first passes out of r_gamma)"
    "r_gamma_with_first_passes": _costs(r_gamma="st.seconds / st.calls / step"),
    # only the target's time subtracted from the run: test_in_run_costs_cases,
    # "o_round: ... (the engine's work is the run minus the time inside BOTH models)"
    "o_round_forgets_the_draft": _costs(o_round="(spec['seconds'] - st.seconds) / st.calls / step"),
    # the engine's work shared among draft passes: test_in_run_costs_cases, "o_round: ... (a round is one target pass,
    # not one draft pass)"
    "o_round_per_draft_pass": _costs(o_round="(spec['seconds'] - st.seconds - sd.seconds) / sd.calls / step"),
    # the draft's first pass forgotten: test_in_run_costs_cases, "first_spec: ... (first_spec holds both models' first
    # passes, the draft's too)"
    "first_spec_target_only": _costs(first_spec="st.first_seconds / st.first_calls / step"),
    # the library's clock does the unit: refused by assert_own_work in both cells (ForwardTime.step_seconds is off limits)
    "library_step_seconds": _costs(step="pt.step_seconds()"),
    **delegation_forms(_COSTS_DEF, "specdec.engine.measure", "in_run_costs"),
}

_DRAWS_DEF = "def draws_needed(p, w, power=0.99, level=1e-6):"


def _draws(per_draw="float(np.sum((w - p) ** 2 / p))", dof="p.size - 1", x_star="stats.chi2.isf(level, dof)",
           reaches="stats.ncx2.sf(x_star, dof, n * per_draw) >= power", result="int(high)",
           guard="""
    if per_draw <= 0:
        raise ValueError("w equals p")""") -> str:
    return _DRAWS_DEF + f"""
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    per_draw = {per_draw}{guard}
    dof = {dof}
    x_star = {x_star}
    reaches = lambda n: {reaches}
    high = 1
    while not reaches(high):
        high *= 2
    low = high // 2
    while high - low > 1:
        mid = (low + high) // 2
        if reaches(mid):
            high = mid
        else:
            low = mid
    return {result}"""


WRONG_DRAWS_NEEDED = {
    # lambda = N * TV: test_draws_needed_exact, "the total variation is not the noncentrality per draw", and the
    # rare-cell property of test_draws_needed_properties (the same TV gives the same N)
    "tv_as_noncentrality": _draws(per_draw="0.5 * float(np.abs(w - p).sum())"),
    # k degrees of freedom: test_draws_needed_exact, "k cells give k - 1 degrees of freedom"
    "dof_k_not_k_minus_1": _draws(dof="p.size"),
    # the level quantile as the critical value: test_draws_needed_exact, "not its level quantile"
    "level_quantile": _draws(x_star="stats.chi2.ppf(level, dof)"),
    # the central law moved by lambda: test_draws_needed_exact, "not the central law moved by lambda"
    "central_law_shifted": _draws(reaches="stats.chi2.sf(x_star - n * per_draw, dof) >= power"),
    # the statistic's mean at the critical value (power about 1/2): test_draws_needed_exact, "about half the time"
    "mean_reaches_critical": _DRAWS_DEF + """
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    per_draw = float(np.sum((w - p) ** 2 / p))
    if per_draw <= 0:
        raise ValueError("w equals p")
    dof = p.size - 1
    return int(np.ceil((stats.chi2.isf(level, dof) - dof) / per_draw))""",
    # the largest N that fails: test_draws_needed_exact, "one short"
    "one_short": _draws(result="int(high) - 1"),
    # the worked example's normal approximation, as if every check had one degree of freedom:
    # test_draws_needed_exact (not the smallest N, or too few on many cells)
    "normal_approximation": _DRAWS_DEF + """
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    per_draw = float(np.sum((w - p) ** 2 / p))
    if per_draw <= 0:
        raise ValueError("w equals p")
    z = stats.norm.isf(level / 2) + stats.norm.ppf(power)
    return int(np.ceil(z ** 2 / per_draw))""",
    # no refusal of w == p (returns 0 instead of searching forever): test_draws_needed_properties
    "no_value_error": _draws(guard="""
    if per_draw <= 0:
        return 0"""),
    **delegation_forms(_DRAWS_DEF, "specdec.engine.power", "draws_for_power"),
}

MESSAGES = {f"ex_draws_needed/{bug}": words for bug, words in {
    "tv_as_noncentrality": "the total variation is not the noncentrality per draw",
    "dof_k_not_k_minus_1": "k cells give k - 1 degrees of freedom",
    "level_quantile": "not its level quantile",
    "central_law_shifted": "not the central law moved by lambda",
    "mean_reaches_critical": "caught only about half the time",
    "one_short": "one short",
    "no_value_error": "raise ValueError",
}.items()}


WRONG = {
    "ex_robust_time": WRONG_ROBUST_TIME,
    "ex_in_run_costs": WRONG_IN_RUN_COSTS,
    "ex_draws_needed": WRONG_DRAWS_NEEDED,
}

# Correct answers written another way: each must keep full marks (a root of the power in lambda, then
# whole numbers around lambda / per draw; an upward gallop that returns a NumPy integer).
RIGHT = {"ex_draws_needed": {
    "root_in_lambda_then_neighbours": _DRAWS_DEF + """
    from scipy.optimize import brentq
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    per_draw = float(np.sum((w - p) ** 2 / p))
    if per_draw <= 0:
        raise ValueError("w equals p")
    dof = p.size - 1
    x_star = stats.chi2.isf(level, dof)
    gap = lambda lam: stats.ncx2.sf(x_star, dof, lam) - power
    top = 1.0
    while gap(top) < 0:
        top *= 2
    n = max(1, int(np.ceil(brentq(gap, 0.0, top) / per_draw)))
    while gap(n * per_draw) < 0:
        n += 1
    while n > 1 and gap((n - 1) * per_draw) >= 0:
        n -= 1
    return n""",
    "gallop_numpy_integer": _DRAWS_DEF + """
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    per_draw = np.sum((w - p) ** 2 / p)
    if not per_draw > 0:
        raise ValueError("w equals p")
    x_star = stats.chi2.isf(level, len(p) - 1)
    power_at = lambda n: stats.ncx2.sf(x_star, len(p) - 1, n * per_draw)
    n, step = np.int64(1), np.int64(1)
    while power_at(n) < power:
        n, step = n + step, step * 2
    while step > 1:
        step //= 2
        if n - step >= 1 and power_at(n - step) >= power:
            n -= step
    while n > 1 and power_at(n - 1) >= power:
        n -= 1
    return n""",
}}

# Correct answers to 12.1 and 12.2 written another way, which must keep full marks too: np.quantile with the
# synchronize calls guarded inline (type(...) is int refuses a bool), or the start and stop stamps kept apart and
# subtracted at the end; the in-run costs through a helper for a model's later passes, or in seconds first and
# divided by the unit once.
RIGHT["ex_robust_time"] = {
    "quantile_inline_sync": '''def robust_time(fn, repeats, warmup=1, synchronize=None, clock=time.perf_counter):
    if type(repeats) is not int or repeats < 1:
        raise ValueError("repeats must be an integer >= 1")
    if type(warmup) is not int or warmup < 0:
        raise ValueError("warmup must be an integer >= 0")
    for _ in range(warmup):
        fn()
    samples = np.empty(repeats)
    for i in range(repeats):
        if synchronize is not None:
            synchronize()
        t0 = clock()
        fn()
        if synchronize is not None:
            synchronize()
        samples[i] = clock() - t0
    lo, mid, hi = np.quantile(samples, [0.25, 0.5, 0.75])
    return float(mid), float(hi - lo)
''',
    "stamps_then_differences": '''def robust_time(fn, repeats, warmup=1, synchronize=None, clock=time.perf_counter):
    for name, value, least in (("repeats", repeats, 1), ("warmup", warmup, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    wait = synchronize or (lambda: None)
    for _ in range(warmup):
        fn()
    starts, stops = [], []
    for _ in range(repeats):
        wait()
        starts.append(clock())
        fn()
        wait()
        stops.append(clock())
    samples = np.array(stops) - np.array(starts)
    return float(np.median(samples)), float(np.percentile(samples, 75) - np.percentile(samples, 25))
''',
}
RIGHT["ex_in_run_costs"] = {
    "helper_per_pass": '''def in_run_costs(plain, spec):
    def later(ft):                      # mean time of the passes after each request's first
        return (ft.seconds - ft.first_seconds) / (ft.calls - ft.first_calls)

    target, draft = spec["passes"]["target"], spec["passes"]["draft"]
    base = plain["passes"]["target"]
    unit = later(base)
    engine_plain = plain["seconds"] - base.seconds
    engine_spec = spec["seconds"] - target.seconds - draft.seconds
    costs = {
        "o_plain": engine_plain / base.calls,
        "first_plain": base.first_seconds / base.first_calls,
        "c": later(draft),
        "r_gamma": later(target),
        "o_round": engine_spec / target.calls,
        "first_spec": (target.first_seconds + draft.first_seconds) / target.first_calls,
    }
    return {key: float(seconds / unit) for key, seconds in costs.items()}
''',
    "seconds_then_one_division": '''def in_run_costs(plain, spec):
    P = plain["passes"]["target"]
    T = spec["passes"]["target"]
    D = spec["passes"]["draft"]
    step_seconds = (P.seconds - P.first_seconds) / (P.calls - P.first_calls)
    out = {}
    out["o_plain"] = (plain["seconds"] - P.seconds) / P.calls
    out["first_plain"] = P.first_seconds / P.first_calls
    out["c"] = (D.seconds - D.first_seconds) / (D.calls - D.first_calls)
    out["r_gamma"] = (T.seconds - T.first_seconds) / (T.calls - T.first_calls)
    out["o_round"] = (spec["seconds"] - (T.seconds + D.seconds)) / T.calls
    out["first_spec"] = (T.first_seconds / T.first_calls) + (D.first_seconds / T.first_calls)
    for key in out:
        out[key] = float(out[key] / step_seconds)
    return out
''',
}
