"""Run chapter 12 (the lab) in full on this machine's CPU and record how long it took and what it measured.

    python benchmarks/lab12_cpu.py            # writes benchmarks/results/lab12_cpu.json and .md
    python benchmarks/lab12_cpu.py --rewrite  # only the .md again, from the recorded .json

The test suite runs the chapter with the short preset (SPECDEC_LAB_PRESET=test); this script runs
the learner's full preset (the default) once, with SPECDEC_LAB_RECORD naming a file into which the
notebook's last cell writes what it measured (the sweep over gamma at T = 1: median and interquartile
range over alternating, unclocked runs beside the three predictions, and per gamma the in-run costs the
full prediction was built from, measured in separate clocked runs, each gamma beside its own plain run;
acceptance on the calibration prompts at both temperatures; T = 0.7; the exactness check's draws and
power; the loop measure; the Hugging Face line; the quietness of the machine), and
records it with the wall time, so the chapter, its top cell (when a page is made with the short
preset) and the README can quote a measured full run. On a machine with a GPU and the GPT-2 weights
the notebook measures that pair instead; this script refuses to record such a run as a CPU result.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

from autograder.authoring.execute import execute
from specdec.engine.lab_record import cost_lines, fit_lines
from specdec.engine.timing import Quietness

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(SPECDEC_LAB_PRESET="full", SPECDEC_LAB_RECORD=str(Path(tmp) / "record.json"))
        result = execute(ROOT / "solutions" / "12_gpt2_lab.ipynb", timeout=1800)
        if result.errors:
            raise SystemExit(f"the notebook raised: {result.errors}")
        measured = json.loads((Path(tmp) / "record.json").read_text())
    if measured.pop("gpu"):
        raise SystemExit("this run measured a GPU pair; record GPU runs with benchmarks/gpu_lab.py")
    if measured.pop("preset") != "full":
        raise SystemExit("the notebook did not run the full preset")
    record = dict(date=str(datetime.date.today()), machine=f"{platform.machine()}, {os.cpu_count()} cores",
                  seconds=round(result.seconds, 1), **measured)
    (RESULTS / "lab12_cpu.json").write_text(json.dumps(record, indent=1) + "\n")
    write_markdown(record)


def write_markdown(record: dict) -> None:
    """benchmarks/results/lab12_cpu.md from a record (what `--rewrite` redoes from the saved JSON)."""
    best = next(r for r in record["per_gamma"] if r["gamma"] == record["best_gamma"])
    quiet = Quietness(record["cpu_share_lowest"], record["cpu_share_median"])
    per_gamma, loop = record["per_gamma"], record["repeated_8gram_mean"]
    runs = ("alternating unclocked runs" if all("costs" in r for r in per_gamma) else
            "alternating clocked runs (this record predates unclocked timing and the per-gamma costs)")
    lines = [f"# Chapter 12 in full on the CPU ({record['date']}, {record['machine']})", "",
             f"Whole notebook: {record['seconds']:.0f} s. Wall-clock speedup at T = 1 on the check prompts, median (IQR) "
             f"over {runs}, beside the prediction from the calibration prompts (full: in-run costs, the "
             "engine's overhead and each request's first passes). " + f"{quiet}: {quiet.verdict()}.", "",
             "| gamma | n_bar measured | n_bar predicted | speedup median (IQR) | predicted: ideal | + pass ratio | full |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['gamma']} | {r['n_bar']:.2f} | {r['n_bar_predicted']:.2f} | {r['speedup_median']:.2f} "
              f"({r['speedup_iqr']:.2f}) | {r['predicted_ideal']:.2f} | {r['predicted_pass']:.2f} | "
              f"{r['predicted_full']:.2f} |" for r in per_gamma]
    lines += ["", "Does each prediction fit (within 10 % at every gamma, same best gamma)?", "", "```"] + fit_lines(record)
    lines += ["```", "", "In-run costs per gamma, from clocked runs on the calibration prompts (median over repeats):", "",
              "```"] + cost_lines(record) + ["```"]
    if "exactness" in record:
        lines += [""] + [f"Exactness, {kind} prompt: {e['draws']} draws (power {e['power']:.3f} against 'resample from p' "
                         f"at the 1e-6 level); the simulated bug {'caught' if e['bug_caught'] else 'NOT caught'}."
                         for kind, e in record["exactness"].items()]
    lines += [""] + [f"Calibration prompts, T = {T}: {cal['rounds']} rounds; conditional acceptance by position "
              f"{[round(a, 3) for a in cal['conditional_acceptance']]}, mean exact alpha "
              f"{[round(a, 3) for a in cal['mean_alpha']]}." for T, cal in record.get("calibration", {}).items()]
    lines += ["", f"T = 0.7 at gamma {best['gamma']}: speedup {record['t07']['speedup_median']:.2f} "
              f"(IQR {record['t07']['speedup_iqr']:.2f}), predicted {record['t07']['predicted']:.2f}.",
              f"Repeated 8-grams (mean share): {loop}.", f"Hugging Face: {record['hf_line']}", ""]
    (RESULTS / "lab12_cpu.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    if sys.argv[1:] == ["--rewrite"]:          # the Markdown again from the recorded JSON (after a wording change)
        write_markdown(json.loads((RESULTS / "lab12_cpu.json").read_text()))
    else:
        main()
