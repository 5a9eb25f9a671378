"""The recorded full CPU run of chapter 12, shown beside a run made with the short preset.

`python benchmarks/lab12_cpu.py` runs the lab's full preset once and writes what it measured to
`benchmarks/results/lab12_cpu.json` (the student bundle carries the file too). A page made with
the short test preset (16 tokens, one gamma, 3 repeats) prints `full_run_table(recorded_full_run())`
so that its prose, which describes a sweep over gamma, has that sweep beside it.

    >>> rec = dict(date="2026-12-01", machine="x86_64, 2 cores", seconds=455.0, cpu_share_lowest=0.99,
    ...            per_gamma=[dict(gamma=3, n_bar=2.46, n_bar_predicted=2.39, speedup_median=1.32, speedup_iqr=0.04,
    ...                            predicted_ideal=1.6, predicted_pass=1.44, predicted_full=1.42)])
    >>> print(full_run_table(rec).splitlines()[3])
        3      2.46       2.39             1.32 (0.04)      1.60      1.44  1.42
    >>> fit = prediction_fit(rec)
    >>> round(fit["predicted_full"]["worst"], 3), fit["predicted_full"]["same_best"], fit["predicted_full"]["fits"]
    (0.076, True, True)

`prediction_fit` is the course's test of a prediction: within `TOLERANCE` (10 %) of the measured
median at every gamma, and the same best gamma; a record also carries, per gamma, the in-run
costs (c, r_gamma, o_round, first passes) each prediction was built from, so a miss can be traced.
"""
from __future__ import annotations

import json
from pathlib import Path

# The record's place in a course (the repository, a student bundle, the hub's copy), built here only:
# autograder.paths.LAB12_RECORD names it for the bundle and the grading sandbox.
RECORD = Path("benchmarks", "results", "lab12_cpu.json")
RECORD_PATH = Path(__file__).resolve().parents[2] / RECORD
PREDICTORS = {"predicted_ideal": "ideal", "predicted_pass": "+pass", "predicted_full": "full"}
TOLERANCE = 0.10          # a prediction fits when it is this close to the measured median at every gamma


def recorded_full_run(path: Path = RECORD_PATH) -> dict | None:
    """The recorded full run, or None when this copy of the course has no record."""
    path = Path(path)
    return json.loads(path.read_text()) if path.is_file() else None


def full_run_table(record: dict) -> str:
    """The recorded sweep over gamma at T = 1 (and, when recorded, acceptance at both temperatures), as text."""
    from .timing import share_percent     # here, not at the top: autograder.paths imports this module without torch
    lines = [f"recorded full run on the CPU ({record['machine']}, {record['date']}, {record['seconds']:.0f} s; lowest "
             f"CPU time / wall time {share_percent(record['cpu_share_lowest'])} %): check prompts, T = 1",
             "gamma   n_bar: measured predicted   speedup: median (IQR)   predicted: ideal  +pass  full",
             "-" * 88]
    lines += [f"{r['gamma']:5d}   {r['n_bar']:7.2f}  {r['n_bar_predicted']:9.2f}   {r['speedup_median']:14.2f} "
              f"({r['speedup_iqr']:.2f})   {r['predicted_ideal']:7.2f}   {r['predicted_pass']:7.2f}  "
              f"{r['predicted_full']:.2f}" for r in record["per_gamma"]]
    for T, cal in record.get("calibration", {}).items():
        lines.append(f"calibration, T = {T}: {cal['rounds']} rounds; first position: conditional acceptance "
                     f"{cal['conditional_acceptance'][0]:.3f}, mean exact alpha {cal['mean_alpha'][0]:.3f}")
    return "\n".join(lines)


def prediction_fit(record: dict) -> dict:
    """{predictor: {'errors': [relative error at each gamma], 'worst': largest |error|, 'best_gamma': its argmax,
    'same_best': whether it is the measured best gamma, 'fits': worst <= TOLERANCE and same_best}}."""
    rows = record["per_gamma"]
    measured_best = max(rows, key=lambda r: r["speedup_median"])["gamma"]
    out = {}
    for key in PREDICTORS:
        errors = [r[key] / r["speedup_median"] - 1 for r in rows]
        best = max(rows, key=lambda r: r[key])["gamma"]
        worst = max(abs(e) for e in errors)
        out[key] = dict(errors=errors, worst=worst, best_gamma=best, same_best=best == measured_best,
                        fits=worst <= TOLERANCE and best == measured_best)
    return out


def percent(x: float) -> str:
    """A relative error as whole percent with its sign, and no sign on zero: percent(-0.004) == '0 %'."""
    n = round(100 * x)
    return f"{n:+d} %" if n else "0 %"


def fit_lines(record: dict) -> list[str]:
    """One line per predictor: its error at each gamma, the gamma it puts best, and whether it fits."""
    measured_best = max(record["per_gamma"], key=lambda r: r["speedup_median"])["gamma"]
    lines = [f"measured best gamma {measured_best}; a prediction fits when it is within {TOLERANCE:.0%} of the "
             "measured median at every gamma and puts the best gamma there too"]
    for key, fit in prediction_fit(record).items():
        errs = ", ".join(percent(e) for e in fit["errors"])
        lines.append(f"{PREDICTORS[key]:>6}: error by gamma {errs}; best gamma {fit['best_gamma']}: "
                     + ("FITS" if fit["fits"] else "does not fit"))
    return lines


def halves_lines(record: dict) -> list[str]:
    """Where the full prediction errs, split in its two halves: the acceptance forecast (the calibration
    prompts' n_bar against the check prompts' measured n_bar) and the cost model (the full prediction
    recomputed with the measured n_bar, against the measured speedup). Needs the in-run costs."""
    from .prediction import predicted_request_speedup

    rows = record["per_gamma"]
    if not all("costs" in r for r in rows):
        return ["(this record has no in-run costs per gamma: it predates them)"]
    costs = [r.get("costs_fitted", r["costs"]) for r in rows]
    cost_only = [predicted_request_speedup(r["n_bar"], r["gamma"], k["c"], k["r_gamma"], k["o_round"], record["o_plain"],
                                           n_new=record["n_new"], first_plain=record["first_plain"],
                                           first_spec=k["first_spec"]) for r, k in zip(rows, costs)]
    best = rows[max(range(len(rows)), key=lambda i: cost_only[i])]["gamma"]
    n_err = ", ".join(percent(r["n_bar_predicted"] / r["n_bar"] - 1) for r in rows)
    s_err = ", ".join(percent(s / r["speedup_median"] - 1) for s, r in zip(cost_only, rows))
    return [f"acceptance half: n_bar forecast from the calibration prompts against the check prompts' by gamma {n_err}",
            f"cost half: the full prediction with the measured n_bar, error by gamma {s_err}; best gamma {best}"]


def cost_lines(record: dict) -> list[str]:
    """The in-run costs behind the full prediction at each gamma, when the record has them (in plain steps):
    as measured at that gamma and, when recorded, as fitted across all gammas for the prediction."""
    rows = record["per_gamma"]
    if not all("costs" in r for r in rows):
        return ["(this record has no in-run costs per gamma: it predates them)"]
    lines = [f"in-run costs, units of one plain step (o_plain {record['o_plain']:.3f}, F_plain {record['first_plain']:.2f}); "
             "each as measured at its gamma, then fitted across gammas (c and o_round on lines, r_gamma on the pass "
             "table's shape)"]
    lines.append("gamma   c: run    fit   r_gamma: run    fit   o_round: run    fit   F_spec: run    fit")
    for r in rows:
        k, f = r["costs"], r.get("costs_fitted", r["costs"])     # records before the fit used each gamma's own
        lines.append(f"{r['gamma']:5d}   {k['c']:7.3f} {f['c']:6.3f}   {k['r_gamma']:12.3f} {f['r_gamma']:6.3f}   "
                     f"{k['o_round']:12.3f} {f['o_round']:6.3f}   {k['first_spec']:11.2f} {f['first_spec']:6.2f}")
    return lines
