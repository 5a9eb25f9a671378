"""Chapter 12's prose against the recorded full CPU run (benchmarks/results/lab12_cpu.json).

A page made with the short test preset prints this record at its top, and the prose quotes it
("about a thousand rounds", "below 0.02", "less than three such errors", "lowering T raises alpha"): each claim is checked
here, so rerunning `python benchmarks/lab12_cpu.py` cannot silently leave a false sentence.
"""
import math

import pytest

from autograder.authoring import bundle
from autograder.notebooks import read
from autograder.paths import solution_notebook
from specdec.engine.lab_record import RECORD_PATH, full_run_table, recorded_full_run

PROSE = "\n".join(c.source for c in read(solution_notebook("12_gpt2_lab")).cells if c.cell_type == "markdown")


@pytest.fixture(scope="module")
def record():
    rec = recorded_full_run()
    assert rec is not None, f"no recorded full run at {RECORD_PATH}: run python benchmarks/lab12_cpu.py"
    return rec


def test_the_record_is_a_sweep_over_gamma_and_the_page_prints_all_of_it(record):
    gammas = [r["gamma"] for r in record["per_gamma"]]
    assert len(gammas) >= 3 and gammas == sorted(gammas), gammas
    table = full_run_table(record).splitlines()
    assert [int(line.split()[0]) for line in table[3:3 + len(gammas)]] == gammas
    assert record["best_gamma"] == max(record["per_gamma"], key=lambda r: r["speedup_median"])["gamma"]


@pytest.mark.parametrize("T", ["1.0", "0.7"])
def test_the_two_estimates_of_acceptance_agree_within_the_noise_the_prose_states(record, T):
    assert "about a thousand rounds at each temperature" in PROSE and "below 0.02" in PROSE
    assert "differ by less than three such errors" in PROSE
    cal = record["calibration"][T]
    cond, exact = cal["conditional_acceptance"][0], cal["mean_alpha"][0]
    se = math.sqrt(cond * (1 - cond) / cal["rounds"])
    assert 900 <= cal["rounds"] <= 1100, cal["rounds"]                 # "about a thousand"
    assert se < 0.02, se
    assert abs(cond - exact) < 3 * se, (T, cond, exact, se)           # "differ by less than three such errors"


def test_lowering_the_temperature_raises_alpha_in_the_recorded_run(record):
    assert "the recorded full run shows the rise at the first position" in PROSE
    cal = record["calibration"]
    assert cal["0.7"]["mean_alpha"][0] > cal["1.0"]["mean_alpha"][0], cal


def test_the_student_bundle_carries_the_record():
    assert bundle.LAB12_RECORD in bundle.FILES
    assert (RECORD_PATH.parents[2] / bundle.LAB12_RECORD) == RECORD_PATH


def test_the_recorded_speedup_peaks_at_a_moderate_gamma(record):
    """The prose: 'the speedup peaks at a moderate gamma ... the recorded full run's sweep ... shows the peak'."""
    assert "the recorded full run's sweep at the top of the page shows the peak" in PROSE
    gammas = [r["gamma"] for r in record["per_gamma"]]
    assert gammas[0] < record["best_gamma"] < gammas[-1], (record["best_gamma"], gammas)


def test_the_course_engine_was_faster_than_hugging_face_in_the_recorded_run(record):
    """The prose: 'In the recorded full run the course's loop came out faster than Hugging Face's
    assisted generation (the last cell prints that run's ratios)'."""
    import re

    assert "In the recorded full run the course's loop came out faster than Hugging Face's assisted generation" in PROSE
    ratio = re.search(r"course speculative / HF assisted \(tokens per second\) = ([\d.]+)", record["hf_line"])
    assert ratio and float(ratio.group(1)) > 1, record["hf_line"]


def test_the_chapter_prints_which_prediction_fits_from_the_record():
    """The prose names the course's test of a prediction and leaves the verdict to a cell that reads the record."""
    from specdec.engine.lab_record import TOLERANCE
    assert TOLERANCE == 0.10 and "within 10 % of the measured median at every $\\gamma$, and the same best $\\gamma$" in PROSE
    sources = [c.source for c in read(solution_notebook("12_gpt2_lab")).cells if c.cell_type == "code"]
    assert any("fit_lines(FULL_RUN)" in s and "cost_lines(FULL_RUN)" in s for s in sources)


def _has_costs(record):
    return all("costs" in r for r in record["per_gamma"])


def test_the_recorded_fit_follows_from_the_recorded_costs_and_pass_table(record):
    """Each gamma's full prediction was built from the costs fitted through all gammas (section 5): the record keeps
    the raw costs, the clean pass table's ratios and the fit, and the fit follows from the first two, so a miss can be
    traced to a measured number."""
    from specdec.engine.prediction import fitted_costs
    assert all("costs_fitted" in r for r in record["per_gamma"])
    again = fitted_costs({r["gamma"]: r["costs"] for r in record["per_gamma"]},
                         {r["gamma"]: r["pass_ratio"] for r in record["per_gamma"]})
    for r in record["per_gamma"]:
        for key, value in r["costs_fitted"].items():
            assert again[r["gamma"]][key] == pytest.approx(value, rel=1e-9), (r["gamma"], key)


def test_the_full_prediction_fits_the_recorded_run_at_every_gamma(record):
    """Issue 37's target: the full prediction within 10 % of the measured median at every gamma, the same best gamma,
    and each prediction traceable to the in-run costs stored beside it."""
    from specdec.engine.lab_record import prediction_fit
    from specdec.engine.prediction import predicted_request_speedup
    assert _has_costs(record)
    for r in record["per_gamma"]:
        k = r["costs_fitted"]
        again = predicted_request_speedup(r["n_bar_predicted"], r["gamma"], k["c"], k["r_gamma"], k["o_round"],
                                          record["o_plain"], n_new=record["n_new"], first_plain=record["first_plain"],
                                          first_spec=k["first_spec"])
        assert again == pytest.approx(r["predicted_full"], rel=1e-9), r["gamma"]
    fit = prediction_fit(record)["predicted_full"]
    assert fit["fits"], fit


def _cell(prefix):
    return next(c.source for c in read(solution_notebook("12_gpt2_lab")).cells if c.source.startswith(prefix))


def _full(record, n_key="n_bar_predicted", r_gamma=None):
    """{gamma: the full prediction} from the record's fitted costs, with n_bar and r_gamma swappable."""
    from specdec.engine.prediction import predicted_request_speedup
    out = {}
    for r in record["per_gamma"]:
        k = r["costs_fitted"]
        out[r["gamma"]] = predicted_request_speedup(
            r[n_key], r["gamma"], k["c"], k["r_gamma"] if r_gamma is None else r_gamma[r["gamma"]], k["o_round"],
            record["o_plain"], n_new=record["n_new"], first_plain=record["first_plain"], first_spec=k["first_spec"])
    return out


def test_the_two_halves_paragraph_states_the_recorded_run(record):
    """Section 6's 'Two halves': the acceptance half within 3 %, the cost half within 7 % on the measured best gamma,
    the full prediction within 9 % on the same best gamma, the measured speedups it quotes, its largest error where the
    spread is widest, and the +pass prediction's range of errors."""
    import re
    from specdec.engine.lab_record import prediction_fit
    from specdec.lab_prompts import CALIBRATION, PROMPTS
    para = _cell("**Two halves.**")
    rows = {r["gamma"]: r for r in record["per_gamma"]}
    n_worst = max(abs(r["n_bar_predicted"] / r["n_bar"] - 1) for r in rows.values())
    assert "the acceptance forecast errs by 3 % at most" in para and 0.025 <= n_worst < 0.035, n_worst
    cost_only = _full(record, n_key="n_bar")
    cost_worst = max(abs(cost_only[g] / r["speedup_median"] - 1) for g, r in rows.items())
    assert "is within 7 % at every $\\gamma$ and names the measured best" in para and 0.06 < cost_worst < 0.075, cost_worst
    assert max(cost_only, key=cost_only.get) == record["best_gamma"]
    fits = prediction_fit(record)
    full, plus = fits["predicted_full"], fits["predicted_pass"]
    assert "within 9 % at every $\\gamma$ and put the best $\\gamma$ at 3, as measured" in para
    assert 0.085 <= full["worst"] < 0.095 and full["fits"] and record["best_gamma"] == 3, full
    quoted = re.search(r"\(([\d.]+) at \$\\gamma = (\d)\$, ([\d.]+) at (\d)\)", para)
    assert quoted, para
    assert float(quoted.group(1)) == round(rows[int(quoted.group(2))]["speedup_median"], 2)
    assert float(quoted.group(3)) == round(rows[int(quoted.group(4))]["speedup_median"], 2)
    worst_gamma = max(rows, key=lambda g: abs(full["errors"][list(rows).index(g)]))
    assert "Its largest error is at $\\gamma = 5$, where the measured spread is widest" in para and worst_gamma == 5
    assert max(rows, key=lambda g: rows[g]["speedup_iqr"]) == 5
    low, high = (round(100 * e) for e in (min(plus["errors"]), max(plus["errors"])))
    assert f"lands {low} to {high} % too high" in para and plus["best_gamma"] == record["best_gamma"], (low, high)
    per_kind = 3                                   # the full preset's prompts of each kind (chapter 12, cell PRESETS)
    assert "the eight calibration prompts" in para and sum(len(v[:per_kind]) for v in CALIBRATION.values()) == 8
    assert "the twelve check prompts" in para and sum(len(v[:per_kind]) for v in PROMPTS.values()) == 12


def test_the_pass_table_dips_at_four_tokens_and_a_line_would_flatten_the_peak(record):
    """Section 5's 'One fit per cost': the recorded pass table has four tokens cheaper than three, a line through the
    in-run r_gamma leaves gamma = 3 and 4 within 1 % of each other, and the table's shape puts gamma = 3 ahead by 4 %."""
    import numpy as np
    para = _cell("**One fit per cost.**")
    rows = {r["gamma"]: r for r in record["per_gamma"]}
    assert (f"{rows[3]['pass_ratio']:.2f} plain steps for four tokens, {rows[2]['pass_ratio']:.2f} for three" in para
            and rows[3]["pass_ratio"] < rows[2]["pass_ratio"])
    gammas = sorted(rows)
    line = np.polyval(np.polyfit(gammas, [rows[g]["costs"]["r_gamma"] for g in gammas], 1), gammas)
    on_line, shaped = _full(record, r_gamma=dict(zip(gammas, line))), _full(record)
    assert "within 1 % of each other" in para and round(100 * abs(on_line[3] / on_line[4] - 1)) <= 1, on_line
    assert "puts $\\gamma = 3$ ahead by 4 %" in para and round(100 * (shaped[3] / shaped[4] - 1)) == 4, shaped


@pytest.mark.xfail(recorded_full_run() is None or "exactness" not in recorded_full_run(),
                   reason="the recorded run predates the powered exactness check", strict=True)
def test_the_recorded_exactness_check_had_the_power_to_catch_resampling_from_p(record):
    for kind in ("code", "prose"):
        check = record["exactness"][kind]
        assert check["power"] >= 0.99 and check["bug_caught"], (kind, check)


def test_the_chapter_times_speed_unclocked_and_attributes_it_in_clocked_runs():
    """Issue 37: wall-clock speedups from runs without the per-pass hooks; costs from separate, clocked runs."""
    code = "\n".join(c.source for c in read(solution_notebook("12_gpt2_lab")).cells if c.cell_type == "code")
    assert code.count("speedup_sweep(") == 2 and "paired_costs(" in code         # T = 1 sweep, T = 0.7; the costs
    assert "tokens_per_second" not in code.replace("plain_tokens_per_second", "")  # no speedup from any other run
    assert "clocked=True" not in code
