"""Wrong answers to the chapter 12 exercise (lab_prediction), to prove its tests have power.

Each value replaces the solution cell `ex_lab_prediction` of solutions/12_gpt2_lab.ipynb. The
exercise is deterministic (no sampling), so no chi-square statistics apply: the comment above
each entry names the test cells that catch it.
"""

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

WRONG = {
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
