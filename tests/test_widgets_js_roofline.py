"""Chapter 01's roofline in JavaScript against `specdec`, the reference: Node runs
`widgets/roofline_math.js` on hundreds of random settings of the explorer's controls (and settings
only Python could send: no GPUs, an empty batch, a negative context, an unknown GPU), and every
number, refusal, message and text the page writes must be Python's."""
from __future__ import annotations

import numpy as np
import pytest

from specdec.hardware import GPUS
from specdec.model_specs import MODELS
from tests.test_widgets_js import NODE, run_node
from widgets.roofline import K_MAX, RANGES, explore, hover_text, readout, title, widget_data

pytestmark = pytest.mark.skipif(NODE is None, reason="node (Node.js 20) is not installed")

RUNNER = """
import * as m from %s;
import { readFileSync } from "node:fs";
const { data, settings } = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(settings.map((s) => {
  try {
    const c = m.rooflineCurve(data, s.model, s.gpu, s.n_gpu, s.B, s.T);
    return { k: c.k, t_pass: c.tPass, memory_time: c.memoryTime, knee_k: c.kneeK, free: c.largestFreeK,
             slope: c.slope, label: c.label, title: m.title(c), readout: m.readout(c), notes: m.notes(c),
             message: m.message(c), hover: m.hoverText(c, s.k), knee_label: m.kneeLabel(c) };
  } catch (err) {
    return { error: err.message };
  }
})));
"""


def _random_settings(rng: np.random.Generator, n: int) -> list[dict]:
    """The sliders' stops, as the page sends them; one setting in ten holds a value only Python can set."""
    def stops(name):
        low, high, step = RANGES[name]
        return int(rng.choice(np.arange(low, high + 1, step)))

    out = []
    for _ in range(n):
        s = dict(model=str(rng.choice(list(MODELS))), gpu=str(rng.choice(list(GPUS))), n_gpu=stops("n_gpu"),
                 B=stops("batch"), T=stops("context"), k=int(rng.integers(1, K_MAX + 1)))
        if rng.random() < 0.1:
            key, bad = [("n_gpu", 0), ("B", 0), ("B", -3), ("T", -256), ("gpu", "B200"), ("model", "llama-4")][
                int(rng.integers(6))]
            s[key] = bad
        out.append(s)
    return out


def test_roofline_in_js_agrees_with_specdec(tmp_path):
    rng = np.random.default_rng(20260101)
    settings = _random_settings(rng, 500)
    # no context at the largest batch: where the pass is compute-bound from k = 1 on some GPUs
    settings += [dict(model=m, gpu=g, n_gpu=1, B=RANGES["batch"][1], T=0, k=1) for m in MODELS for g in GPUS]
    got = run_node(RUNNER, "roofline_math.js", {"data": widget_data(MODELS, GPUS), "settings": settings}, tmp_path)
    worst, refused, curves, noted, flat = 0.0, 0, 0, 0, 0
    for s, js in zip(settings, got):
        try:
            py, notes = explore(MODELS, GPUS, s["model"], s["gpu"], s["n_gpu"], s["B"], s["T"])
        except ValueError as err:
            refused += 1
            assert js.get("error") == str(err), f"{s}: Python refuses with {err!r}, JS says {js}"
            continue
        curves += 1
        assert "error" not in js, f"{s}: JS refuses ({js['error']}), Python draws the curve"
        assert js["k"] == py.k.tolist(), f"{s}: the k grids differ"
        assert js["free"] == py.largest_free_k, f"{s}: largest free k {js['free']} vs {py.largest_free_k}"
        for a, b in [(js["t_pass"], py.t_pass), (js["memory_time"], py.memory_time), (js["knee_k"], py.knee_k),
                     (js["slope"], py.slope)]:
            a, b = np.atleast_1d(np.asarray(a, dtype=float)), np.atleast_1d(b)
            worst = max(worst, float(np.max(np.abs(a - b) / np.abs(b))))
        assert (js["label"], js["title"], js["readout"]) == (py.label, title(py), readout(py)), s
        assert js["notes"] == notes and js["message"] == "\n".join(f"⚠ {n}" for n in notes), s
        assert js["hover"] == hover_text(py, s["k"]), s
        assert js["knee_label"] == f"knee k ≈ {py.knee_k:.0f}", s
        noted += bool(notes)
        flat += py.largest_free_k == 0
    print(f"JS vs specdec: {curves} curves ({noted} with notes, {flat} compute-bound at k = 1), "
          f"{refused} refusals, worst relative difference {worst:.2e}")
    assert curves >= 300 and refused >= 20 and noted >= 50 and flat >= 5, (
        "the random settings should exercise curves, notes, a pass compute-bound at k = 1 and refusals")
    assert worst < 1e-12, f"the JS roofline drifts from specdec by {worst:.2e} (relative)"
