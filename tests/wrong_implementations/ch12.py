"""Wrong answers to the chapter 12 exercises (robust_time, lab_prediction), to prove their tests have power.

Each value replaces the solution cell of its exercise in solutions/12_gpt2_lab.ipynb. Both
exercises are deterministic (a scripted clock; histograms), so no chi-square statistics apply: the
comment above each entry names the test cells that catch it.
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

_DEF = "def lab_prediction(histogram, c, pass_ratio):"

# Handing the exercise to the course library. The library has no function with the exercise's
# signature (predicted_speedup takes n_bar and gamma), so delegation_forms' plain forms would only
# crash on a visible assert; these are the forms a learner would really write, each computing the
# right answer through the library: the hidden assert_own_work check of both test cells refuses them.
_FORMS = {
    "delegate_same_object": """from specdec.engine.measure import predicted_n_bar, predicted_speedup

""" + _DEF + """
    h = np.asarray(histogram, dtype=float)
    gamma = h.size - 1
    survival = np.cumsum(h[::-1])[::-1][1:] / h.sum()
    n_bar = predicted_n_bar(survival, gamma)
    return survival, n_bar, predicted_speedup(n_bar, gamma, c, pass_ratio)
""",
    "delegate_thin_wrapper": """from specdec.engine.measure import predicted_speedup as library_speedup

""" + _DEF + """
    h = np.asarray(histogram, dtype=float)
    survival = np.cumsum(h[::-1])[::-1][1:] / h.sum()
    n_bar = float(1 + survival.sum())
    return survival, n_bar, library_speedup(n_bar, h.size - 1, c, pass_ratio)
""",
    "delegate_through_module": """import specdec.speedup_model as sm
import specdec.engine.measure as m

""" + _DEF + """
    h = np.asarray(histogram, dtype=float)
    survival = np.cumsum(h[::-1])[::-1][1:] / h.sum()
    n_bar = m.predicted_n_bar(survival, h.size - 1)
    return survival, n_bar, m.predicted_speedup(n_bar, h.size - 1, c, pass_ratio)
""",
}

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
    **delegation_forms(_TIME_DEF, "specdec.engine.measure", "robust_time"),
}

WRONG = {
    "ex_robust_time": WRONG_ROBUST_TIME,
    "ex_lab_prediction": {
        # P(n == i) instead of P(n >= i): both test cells (hand cases, and n_bar = 1 + mean kept)
        "survival_exactly_i": _DEF + '''
    h = np.asarray(histogram, dtype=float)
    gamma = h.size - 1
    survival = h[1:] / h.sum()
    n_bar = float(1 + survival.sum())
    return survival, n_bar, float(n_bar / (gamma * c + pass_ratio))''',
        # P(n > i): off by one position; both test cells
        "survival_more_than_i": _DEF + '''
    h = np.asarray(histogram, dtype=float)
    gamma = h.size - 1
    survival = np.array([h[i + 1:].sum() / h.sum() for i in range(1, gamma + 1)])
    n_bar = float(1 + survival.sum())
    return survival, n_bar, float(n_bar / (gamma * c + pass_ratio))''',
        # n_bar counts only the kept drafts, forgetting the extra token: both test cells
        "n_bar_without_the_extra_token": _DEF + '''
    h = np.asarray(histogram, dtype=float)
    gamma = h.size - 1
    survival = np.cumsum(h[::-1])[::-1][1:] / h.sum()
    n_bar = float(survival.sum())
    return survival, n_bar, float(n_bar / (gamma * c + pass_ratio))''',
        # assumes free verification (gamma c + 1): test_lab_prediction_cases (second case) and the hidden random check
        "ignores_the_pass_ratio": _DEF + '''
    h = np.asarray(histogram, dtype=float)
    gamma = h.size - 1
    survival = np.cumsum(h[::-1])[::-1][1:] / h.sum()
    n_bar = float(1 + survival.sum())
    return survival, n_bar, float(n_bar / (gamma * c + 1.0))''',
        # counts instead of fractions: both test cells
        "survival_not_normalized": _DEF + '''
    h = np.asarray(histogram, dtype=float)
    gamma = h.size - 1
    survival = np.cumsum(h[::-1])[::-1][1:]
    n_bar = float(1 + survival.sum() / h.sum())
    return survival, n_bar, float(n_bar / (gamma * c + pass_ratio))''',
        # (gamma + 1) draft steps per round: test_lab_prediction_cases and the hidden random check
        "one_draft_step_too_many": _DEF + '''
    h = np.asarray(histogram, dtype=float)
    gamma = h.size - 1
    survival = np.cumsum(h[::-1])[::-1][1:] / h.sum()
    n_bar = float(1 + survival.sum())
    return survival, n_bar, float(n_bar / ((gamma + 1) * c + pass_ratio))''',
        # the course library's RoundStats and predicted_speedup do the work: refused by assert_own_work in both cells
        "delegate_round_stats": '''from specdec.engine.stats import RoundStats
from specdec.engine.measure import predicted_speedup

''' + _DEF + '''
    h = np.asarray(histogram)
    s = RoundStats(int(h.size - 1))
    s.histogram[:] = h
    return s.survival(), s.n_bar(), predicted_speedup(s.n_bar(), int(h.size - 1), c, pass_ratio)''',
        **_FORMS,
    },
}
