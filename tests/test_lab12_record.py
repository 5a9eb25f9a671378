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


def test_the_recorded_lines_are_the_least_squares_lines_through_the_recorded_costs(record):
    """Each gamma's full prediction was built from the costs on their lines in gamma (section 5): the record
    keeps both, and the lines follow from the raw costs, so a miss can be traced to a measured number."""
    from specdec.engine.prediction import costs_on_lines
    assert all("costs_on_lines" in r for r in record["per_gamma"])
    again = costs_on_lines({r["gamma"]: r["costs"] for r in record["per_gamma"]})
    for r in record["per_gamma"]:
        for key, value in r["costs_on_lines"].items():
            assert again[r["gamma"]][key] == pytest.approx(value, rel=1e-9), (r["gamma"], key)


@pytest.mark.xfail((recorded_full_run() or {}).get("date") == "2026-12-06",
                   reason="the 2026-12-06 run (costs on lines) is within 7 % at every gamma but puts the best gamma at 4, "
                          "1 % above gamma = 3, where the measurement puts it at 3: the acceptance forecast from eight "
                          "calibration prompts decides a flat peak (issue 37)", strict=True)
def test_the_full_prediction_fits_the_recorded_run_at_every_gamma(record):
    """Issue 37's target: the full prediction within 10 % of the measured median at every gamma, the same best gamma,
    and each prediction traceable to the in-run costs stored beside it."""
    from specdec.engine.lab_record import prediction_fit
    from specdec.engine.prediction import predicted_request_speedup
    assert _has_costs(record)
    for r in record["per_gamma"]:
        k = r.get("costs_on_lines", r["costs"])
        again = predicted_request_speedup(r["n_bar_predicted"], r["gamma"], k["c"], k["r_gamma"], k["o_round"],
                                          record["o_plain"], n_new=record["n_new"], first_plain=record["first_plain"],
                                          first_spec=k["first_spec"])
        assert again == pytest.approx(r["predicted_full"], rel=1e-9), r["gamma"]
    fit = prediction_fit(record)["predicted_full"]
    assert fit["fits"], fit


def test_the_two_halves_paragraph_states_the_recorded_run(record):
    """Section 6's 'Two halves': the cost half within 6 % and on the measured best gamma, the acceptance half within 3 %,
    the full prediction's best gamma moved by a predicted difference of 1 %, and the measured speedups it quotes."""
    import re
    from specdec.engine.lab_record import prediction_fit
    from specdec.engine.prediction import predicted_request_speedup
    from specdec.lab_prompts import CALIBRATION, PROMPTS
    para = next(c.source for c in read(solution_notebook("12_gpt2_lab")).cells if c.source.startswith("**Two halves.**"))
    rows = {r["gamma"]: r for r in record["per_gamma"]}
    cost_only = {g: predicted_request_speedup(r["n_bar"], g, r["costs_on_lines"]["c"], r["costs_on_lines"]["r_gamma"],
                                              r["costs_on_lines"]["o_round"], record["o_plain"], n_new=record["n_new"],
                                              first_plain=record["first_plain"],
                                              first_spec=r["costs_on_lines"]["first_spec"]) for g, r in rows.items()}
    cost_worst = max(abs(cost_only[g] / r["speedup_median"] - 1) for g, r in rows.items())
    assert "within 6 % at every $\\gamma$" in para and 0.05 < cost_worst <= 0.06, cost_worst
    assert max(cost_only, key=cost_only.get) == record["best_gamma"]
    n_worst = max(abs(r["n_bar_predicted"] / r["n_bar"] - 1) for r in rows.values())
    assert "errs by 3 % at most" in para and 0.02 < n_worst <= 0.035, n_worst
    full = prediction_fit(record)["predicted_full"]
    fb, mb = full["best_gamma"], record["best_gamma"]
    assert f"best $\\gamma$ from {mb} to {fb}" in para and fb != mb
    assert round(100 * abs(rows[fb]["predicted_full"] / rows[mb]["predicted_full"] - 1)) == 1 and "differ by 1 %" in para
    quoted = re.search(r"\(([\d.]+) at \$\\gamma = (\d)\$, ([\d.]+) at (\d)\)", para)
    assert quoted, para
    assert float(quoted.group(1)) == round(rows[int(quoted.group(2))]["speedup_median"], 2)
    assert float(quoted.group(3)) == round(rows[int(quoted.group(4))]["speedup_median"], 2)
    per_kind = 3                                   # the full preset's prompts of each kind (chapter 12, cell PRESETS)
    assert "the eight calibration prompts" in para and sum(len(v[:per_kind]) for v in CALIBRATION.values()) == 8
    assert "the twelve check prompts" in para and sum(len(v[:per_kind]) for v in PROMPTS.values()) == 12


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
