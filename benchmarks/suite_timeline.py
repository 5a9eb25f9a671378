"""Where a parallel test run's time went, from the timeline the suite writes on request.

    COURSE_TEST_TIMELINE=/tmp/timeline.jsonl ./course test
    python benchmarks/suite_timeline.py /tmp/timeline.jsonl

Prints, per worker, when it started and ended, how long it ran tests and how long it sat idle
(between tests and after its last one, while another worker still ran); the heaviest xdist groups
and single tests; and the tests still running in the run's last minutes (what the end waited on).
A worker's time between tests is pytest-xdist's own (collection, scheduling, module fixtures set up
outside a test's protocol are inside the first test that needs them).

    >>> rows = [{"worker": "gw0", "test": "a.py::t@g", "start": 0.0, "end": 10.0},
    ...         {"worker": "gw1", "test": "b.py::u", "start": 0.0, "end": 4.0}]
    >>> s = summarize(rows)
    >>> s["wall"], s["workers"]["gw1"]["idle_at_end"], s["groups"][0]
    (10.0, 6.0, ('g', 10.0, 1))
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path


def read(path: Path) -> list[dict]:
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    if not rows:
        raise SystemExit(f"{path}: no timeline lines (was the suite run with COURSE_TEST_TIMELINE={path}?)")
    return rows


def group_of(test: str) -> str:
    """A test's xdist group ('book_site' of 'tests/x.py::t@book_site'), else its module."""
    return test.rsplit("@", 1)[1] if "@" in test else test.split("::", 1)[0]


def summarize(rows: list[dict], tail_s: float = 120.0) -> dict:
    t0 = min(r["start"] for r in rows)
    t1 = max(r["end"] for r in rows)
    workers = {}
    for w in sorted({r["worker"] for r in rows}):
        mine = sorted((r for r in rows if r["worker"] == w), key=lambda r: r["start"])
        busy = sum(r["end"] - r["start"] for r in mine)
        first, last = mine[0]["start"], mine[-1]["end"]
        workers[w] = {"tests": len(mine), "busy": busy, "idle_between": (last - first) - busy,
                      "idle_at_start": first - t0, "idle_at_end": t1 - last}
    groups = defaultdict(lambda: [0.0, 0])
    for r in rows:
        g = groups[group_of(r["test"])]
        g[0] += r["end"] - r["start"]
        g[1] += 1
    ranked = sorted(((k, v[0], v[1]) for k, v in groups.items()), key=lambda x: -x[1])
    tail = sorted((r for r in rows if r["end"] > t1 - tail_s), key=lambda r: r["start"])
    return {"wall": t1 - t0, "workers": workers, "groups": ranked,
            "slowest": sorted(rows, key=lambda r: r["start"] - r["end"]), "tail": tail, "t0": t0}


def report(s: dict, top: int = 15) -> str:
    out = [f"wall (first test start to last test end): {s['wall']:.0f} s", "",
           "| worker | tests | running tests, s | idle between, s | idle before first, s | idle after last, s |",
           "|---|---|---|---|---|---|"]
    for w, d in s["workers"].items():
        out.append(f"| {w} | {d['tests']} | {d['busy']:.0f} | {d['idle_between']:.0f} | {d['idle_at_start']:.0f} "
                   f"| {d['idle_at_end']:.0f} |")
    total = sum(d["busy"] for d in s["workers"].values())
    out += ["", f"all workers together ran tests for {total:.0f} s: with {len(s['workers'])} workers "
                f"never idle the wall would be {total / max(1, len(s['workers'])):.0f} s", "",
            "| group or module | s | tests |", "|---|---|---|"]
    out += [f"| {g} | {sec:.0f} | {n} |" for g, sec, n in s["groups"][:top]]
    out += ["", "| single test | s |", "|---|---|"]
    out += [f"| {r['test']} | {r['end'] - r['start']:.0f} |" for r in s["slowest"][:top]]
    out += ["", "running in the last minutes (start → end, s from the first test):", ""]
    out += [f"- {r['worker']} {r['start'] - s['t0']:.0f} → {r['end'] - s['t0']:.0f}: {r['test']}"
            for r in s["tail"] if r["end"] - r["start"] > 5]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("timeline", type=Path)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args(argv)
    print(report(summarize(read(args.timeline)), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
