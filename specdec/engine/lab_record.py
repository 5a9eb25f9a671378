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
"""
from __future__ import annotations

import json
from pathlib import Path

RECORD_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "lab12_cpu.json"


def recorded_full_run(path: Path = RECORD_PATH) -> dict | None:
    """The recorded full run, or None when this copy of the course has no record."""
    path = Path(path)
    return json.loads(path.read_text()) if path.is_file() else None


def full_run_table(record: dict) -> str:
    """The recorded sweep over gamma at T = 1 (and, when recorded, acceptance at both temperatures), as text."""
    lines = [f"recorded full run on the CPU ({record['machine']}, {record['date']}, {record['seconds']:.0f} s; lowest "
             f"CPU time / wall time {100 * record['cpu_share_lowest']:.0f} %): check prompts, T = 1",
             "gamma   n_bar: measured predicted   speedup: median (IQR)   predicted: ideal  +pass  full",
             "-" * 88]
    lines += [f"{r['gamma']:5d}   {r['n_bar']:7.2f}  {r['n_bar_predicted']:9.2f}   {r['speedup_median']:14.2f} "
              f"({r['speedup_iqr']:.2f})   {r['predicted_ideal']:7.2f}   {r['predicted_pass']:7.2f}  "
              f"{r['predicted_full']:.2f}" for r in record["per_gamma"]]
    for T, cal in record.get("calibration", {}).items():
        lines.append(f"calibration, T = {T}: {cal['rounds']} rounds; first position: conditional acceptance "
                     f"{cal['conditional_acceptance'][0]:.3f}, mean exact alpha {cal['mean_alpha'][0]:.3f}")
    return "\n".join(lines)
