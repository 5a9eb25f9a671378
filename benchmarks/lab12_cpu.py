"""Run chapter 12 (the lab) in full on this machine's CPU and record how long it took and what it measured.

    python benchmarks/lab12_cpu.py            # writes benchmarks/results/lab12_cpu.json and .md
    python benchmarks/lab12_cpu.py --rewrite  # only the .md again, from the recorded .json

The test suite runs the chapter with the short preset (SPECDEC_LAB_PRESET=test); this script runs
the learner's full preset (the default) once, reads the numbers the notebook printed from its
executed copy (the speedup table at T = 1: median and interquartile range over alternating runs,
beside the full prediction), and records them with the wall time, so the chapter and the README
can quote a measured full run. On a machine with a GPU and the GPT-2 weights the notebook measures
that pair instead; this script refuses to record such a run as a CPU result.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT))

from autograder.authoring.execute import execute  # noqa: E402
from specdec.engine.timing import Quietness  # noqa: E402


def _text(nb, marker: str) -> str:
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "")
            if marker in text:
                return text
    raise ValueError(f"the executed notebook printed no line with {marker!r}")


def main():
    os.environ["SPECDEC_LAB_PRESET"] = "full"
    result = execute(ROOT / "solutions" / "12_gpt2_lab.ipynb", timeout=1800)
    if result.errors:
        raise SystemExit(f"the notebook raised: {result.errors}")
    nb = result.notebook
    import tempfile
    import nbformat
    saved = Path(tempfile.gettempdir()) / "lab12_cpu_executed.ipynb"
    nbformat.write(nb, str(saved))
    print(f"executed notebook: {saved}")
    if "on the CPU" not in _text(nb, "pair measured:"):
        raise SystemExit("this run measured a GPU pair; record GPU runs with benchmarks/gpu_lab.py")
    table = _text(nb, "best measured: gamma")
    rows = re.findall(r"^\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) \(([\d.]+)\)\s+([\d.]+)\s+([\d.]+)\s+"
                      r"([\d.]+)\s+([\d.]+)$", table, flags=re.M)
    per_gamma = [dict(gamma=int(r[0]), n_bar=float(r[1]), n_bar_predicted=float(r[2]), pass_ratio=float(r[3]),
                      speedup_median=float(r[4]), speedup_iqr=float(r[5]), predicted_ideal=float(r[6]),
                      predicted_pass=float(r[7]), predicted_full=float(r[8])) for r in rows]
    best = max(per_gamma, key=lambda r: r["speedup_median"])
    loops = _text(nb, "repeated 8-grams in")
    loop = {name: float(v) for name, v in re.findall(r"^\s+(greedy output|sampled output, T = 1|real text \(docs, code\))\s+mean ([\d.]+)",
                                                      loops, flags=re.M)}
    t07 = re.search(r"speedup measured ([\d.]+) \(IQR ([\d.]+)\), predicted ([\d.]+)", _text(nb, "T = 0.7, gamma ="))
    hf = _text(nb, "course speculative / HF assisted")
    quiet = re.search(r"CPU time / wall time over each timed run: lowest (\d+) %, median (\d+) %", _text(nb, "CPU time / wall"))
    record = dict(date=str(datetime.date.today()), machine=f"{platform.machine()}, {os.cpu_count()} cores",
                  seconds=round(result.seconds, 1), best_gamma=best["gamma"], speedup_median=best["speedup_median"],
                  speedup_iqr=best["speedup_iqr"], speedup_predicted=best["predicted_full"], per_gamma=per_gamma,
                  repeated_8gram_mean=loop,
                  t07=dict(speedup_median=float(t07[1]), speedup_iqr=float(t07[2]), predicted=float(t07[3])),
                  hf_line=hf.strip().splitlines()[-1], cpu_share_lowest=int(quiet[1]) / 100,
                  cpu_share_median=int(quiet[2]) / 100)
    (RESULTS / "lab12_cpu.json").write_text(json.dumps(record, indent=1) + "\n")
    write_markdown(record)


def write_markdown(record: dict) -> None:
    """benchmarks/results/lab12_cpu.md from a record (what `--rewrite` redoes from the saved JSON)."""
    best = next(r for r in record["per_gamma"] if r["gamma"] == record["best_gamma"])
    quiet = Quietness(record["cpu_share_lowest"], record["cpu_share_median"])
    per_gamma, loop = record["per_gamma"], record["repeated_8gram_mean"]
    lines = [f"# Chapter 12 in full on the CPU ({record['date']}, {record['machine']})", "",
             f"Whole notebook: {record['seconds']:.0f} s. Wall-clock speedup at T = 1 on the check prompts, median (IQR) "
             "over alternating runs, beside the prediction from the calibration prompts (full: in-run costs, the "
             "engine's overhead and each request's first passes). " + f"{quiet}: {quiet.verdict()}.", "",
             "| gamma | n_bar measured | n_bar predicted | speedup median (IQR) | predicted: ideal | + pass ratio | full |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['gamma']} | {r['n_bar']:.2f} | {r['n_bar_predicted']:.2f} | {r['speedup_median']:.2f} "
              f"({r['speedup_iqr']:.2f}) | {r['predicted_ideal']:.2f} | {r['predicted_pass']:.2f} | "
              f"{r['predicted_full']:.2f} |" for r in per_gamma]
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
