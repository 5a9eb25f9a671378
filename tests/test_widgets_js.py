"""The live widgets' maths in JavaScript against `specdec`, the reference: Node 20 runs each widget's
`*_math.js` module (no DOM) on hundreds of random settings, and every number, refusal and message
must agree with Python's."""
from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from specdec.hardware import GPUS
from specdec.model_specs import MODELS
from widgets.batch_speedup import _readout, batch_speedup_curve, widget_data

WIDGETS = Path(__file__).resolve().parents[1] / "widgets"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node (Node.js 20) is not installed")

SPEEDUP_RUNNER = """
import * as m from %s;
import { readFileSync } from "node:fs";
const { data, settings } = JSON.parse(readFileSync(0, "utf8"));
const fin = (x) => (Number.isFinite(x) ? x : String(x));
const out = settings.map((s) => {
  try {
    const c = m.batchSpeedupCurve(s.model, s.gpu, s.T, s.gamma, s.alpha, s.share, s.n_gpu, data);
    return { B: c.B, speedup: c.speedup, regime: c.regime, fall: fin(c.fallBatch), compute: fin(c.computeBatch),
             T_c: fin(c.criticalContext), max_batch: c.maxBatch, label: c.label,
             speedup_at: c.speedupAt(s.B),
             verification: c.verificationCost(s.B), readout: m.readout(c, s.B), fit: m.fitMessage(c, s.B) };
  } catch (err) {
    return { error: err.message };
  }
});
process.stdout.write(JSON.stringify(out));
"""


def run_node(runner: str, module: str, payload: dict, tmp_path: Path):
    script = tmp_path / "runner.mjs"
    script.write_text(runner % json.dumps((WIDGETS / module).as_uri()), encoding="utf-8")
    done = subprocess.run([NODE, str(script)], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _num(x):
    return float(x) if not isinstance(x, str) else float(x.replace("Infinity", "inf"))


def _random_settings(rng: np.random.Generator, n: int) -> list[dict]:
    out = []
    for _ in range(n):
        exp_T = rng.choice(np.arange(6, 17.01, 0.25))           # the slider's stops, as the page sends them
        out.append(dict(model=str(rng.choice(list(MODELS))), gpu=str(rng.choice(list(GPUS))),
                        n_gpu=int(rng.choice([1, 2, 4, 8])), T=int(round(2 ** exp_T)),
                        gamma=int(rng.integers(1, 13)), alpha=round(float(rng.uniform(0, 0.99)), 2),
                        share=round(float(rng.choice([0.0, rng.uniform(0, 25)])), 1),
                        B=int(round(2 ** rng.choice(np.arange(0, 12.01, 0.125))))))
    return out


def test_speedup_model_in_js_agrees_with_specdec(tmp_path):
    rng = np.random.default_rng(20260601)
    settings = _random_settings(rng, 600)
    got = run_node(SPEEDUP_RUNNER, "batch_speedup_math.js", {"data": widget_data(MODELS, GPUS), "settings": settings},
                   tmp_path)
    worst, refused, curves = 0.0, 0, 0
    for s, js in zip(settings, got):
        try:
            py = batch_speedup_curve(MODELS[s["model"]], GPUS[s["gpu"]], T_bar=s["T"], gamma=s["gamma"],
                                     alpha=s["alpha"], drafter_share=s["share"], n_gpu=s["n_gpu"])
        except ValueError as err:
            refused += 1
            assert js.get("error") == str(err), f"{s}: Python refuses with {err!r}, JS says {js}"
            continue
        curves += 1
        assert "error" not in js, f"{s}: JS refuses ({js['error']}), Python draws the curve"
        assert js["B"] == py.B.tolist(), f"{s}: the batch grids differ"
        assert js["regime"] == py.regime.tolist(), f"{s}: the regimes differ"
        assert js["max_batch"] == py.max_batch and js["label"] == py.label
        pairs = [(np.array(js["speedup"]), py.speedup), (_num(js["speedup_at"]), py.speedup_at(s["B"])),
                 (_num(js["verification"]), py.verification_cost(s["B"])), (_num(js["fall"]), py.fall_batch),
                 (_num(js["compute"]), py.compute_batch), (_num(js["T_c"]), py.critical_context)]
        for a, b in pairs:
            a, b = np.atleast_1d(a), np.atleast_1d(b)
            assert np.array_equal(np.isinf(a), np.isinf(b)), f"{s}: {a} vs {b}"
            fin = np.isfinite(b)
            rel = np.max(np.abs(a[fin] - b[fin]) / np.abs(b[fin]), initial=0.0)
            worst = max(worst, float(rel))
        assert js["readout"] == _readout(py, s["B"]), f"{s}: the readouts differ"
        fits = s["B"] <= py.max_batch
        assert (js["fit"] == "") == fits
    print(f"JS vs specdec: {curves} curves, {refused} refusals, worst relative difference {worst:.2e}")
    assert curves >= 300 and refused >= 20, "the random settings should exercise both curves and refusals"
    assert worst < 1e-12, f"the JS speedup model drifts from specdec by {worst:.2e} (relative)"


def test_readout_formatting_matches_python_format_specs(tmp_path):
    runner = """
import * as m from %s;
import { readFileSync } from "node:fs";
const xs = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(xs.map((x) => [m.fmtFixed(x, 0, true), m.fmtFixed(x, 1, true),
  m.fmtFixed(x, 2), m.fmtFixed(x, 3), m.fmtG(x), m.fmtG(x, 3)])));
"""
    rng = np.random.default_rng(7)
    xs = [float(v) for v in np.concatenate([rng.uniform(0, 10, 60), 10 ** rng.uniform(-3, 7, 60),
                                            [0.8, 0.99, 0.05, 1755.4, 131072, 1e-5, 2.5e6]])]
    got = run_node(runner, "pyformat.js", xs, tmp_path)
    for x, js in zip(xs, got):
        assert js == [f"{x:,.0f}", f"{x:,.1f}", f"{x:.2f}", f"{x:.3f}", f"{x:g}", f"{x:.3g}"], x
    assert math.isfinite(sum(xs))


TREE_RUNNER = """
import * as m from %s;
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => {
  if (c.kind === "tree") {
    const { mask, pos } = m.treeAttentionMask(c.parents, c.prefix_len);
    const walk = m.greedyTreeWalk(c.tokens, c.parents, m.targetNext(c.parents, c.choices));
    return { mask, pos, depths: m.depths(c.parents), path: walk.path, emitted: walk.emitted };
  }
  if (c.kind === "typed") return m.setTree(c.parents_text, c.tokens_text, c.old_tokens);
  return m.removeNode(c.parents, c.tokens, c.node);
})));
"""


def _random_tree(rng: np.random.Generator, n: int) -> list[int]:
    return [-1 if i == 0 or rng.random() < 0.2 else int(rng.integers(-1, i)) for i in range(n)]


def test_tree_maths_in_js_agrees_with_specdec(tmp_path):
    from specdec.trees import depths, greedy_tree_walk, tree_attention_mask
    from widgets.tree_mask import MAX_NODES, VOCAB

    rng = np.random.default_rng(8)
    cases = []
    for _ in range(300):
        n = int(rng.integers(1, MAX_NODES + 1))
        cases.append(dict(kind="tree", parents=_random_tree(rng, n), prefix_len=int(rng.integers(0, 5)),
                          tokens=[str(rng.choice(VOCAB[:4])) for _ in range(n)],   # few words: walks go deep
                          choices=[str(rng.choice(VOCAB[:4])) for _ in range(MAX_NODES + 2)]))
    got = run_node(TREE_RUNNER, "tree_mask_math.js", cases, tmp_path)
    deepest = 0
    for c, js in zip(cases, got):
        mask, pos = tree_attention_mask(c["parents"], c["prefix_len"])
        assert js["mask"] == mask.tolist() and js["pos"] == pos.tolist(), c
        d = depths(c["parents"])
        assert js["depths"] == d.tolist(), c
        target_next = [c["choices"][0]] + [c["choices"][int(k) + 1] for k in d]
        path, emitted = greedy_tree_walk(c["tokens"], c["parents"], target_next)
        assert (js["path"], js["emitted"]) == (path, emitted), c
        deepest = max(deepest, len(path))
    assert deepest >= 3, "the random trees should give walks several nodes deep"


def test_tree_edits_in_js_give_python_s_trees_and_messages(tmp_path):
    from widgets.tree_mask import MAX_NODES, tree_mask_explorer

    rng = np.random.default_rng(9)
    words = ["-1", "0", "1", "2", "3", "5", "-2", "7", "x", "1.5", "", "13"]
    cases = []
    for _ in range(200):
        n = int(rng.integers(0, MAX_NODES + 3))
        text = ", ".join(str(rng.choice(words)) if rng.random() < 0.15 else str(v)
                         for v in _random_tree(rng, n))
        cases.append(dict(kind="typed", parents_text=text, tokens_text=" ".join(f"t{i}" for i in range(int(rng.integers(0, 15)))),
                          old_tokens=["sat", "is", "on"]))
    for _ in range(100):
        n = int(rng.integers(1, MAX_NODES + 1))
        cases.append(dict(kind="remove", parents=_random_tree(rng, n), tokens=[f"t{i}" for i in range(n)],
                          node=int(rng.integers(-1, n + 1))))
    got = run_node(TREE_RUNNER, "tree_mask_math.js", cases, tmp_path)
    ex = tree_mask_explorer()
    outcomes = set()
    for c, js in zip(cases, got):
        if c["kind"] == "typed":
            ex.set_tree([-1, -1, 0], ["sat", "is", "on"])
            ok = ex.set_tree(c["parents_text"], c["tokens_text"])
        else:
            ex.set_tree(c["parents"], c["tokens"])
            ok = ex.remove_node(c["node"])
        assert js["ok"] == ok and js["message"] == ex.message, (c, js, ex.message)
        if ok:
            assert js["parents"] == list(ex.parents) and js["tokens"] == ex.tokens, c
        outcomes.add((c["kind"], ok))
    assert outcomes == {("typed", True), ("typed", False), ("remove", True), ("remove", False)}


def test_every_front_end_loads_as_one_module(tmp_path):
    """anywidget and the book load a front end from one string (`es_module` inlines its imports into
    one scope): Node must parse it, so no two inlined modules declare the same top-level name, and the
    modules widgets share (`pyformat.js`, `cost_math.js`, `live_dom.js`) are inlined once each."""
    from widgets.live import es_module

    default = re.compile(r"^export default ", re.M)
    front_ends = sorted(p.name for p in WIDGETS.glob("*.js") if default.search(p.read_text(encoding="utf-8")))
    assert front_ends == ["batch_speedup.js", "roofline.js", "tree_mask.js"]
    for name in front_ends:
        src = es_module(name)
        assert 'from "./' not in src and len(default.findall(src)) == 1, name
        for shared in ("export function keepDrawn(", "export function svg(", "export function html("):
            assert src.count(shared) == 1, f"{name}: {shared} inlined {src.count(shared)} times"
        if name != "tree_mask.js":
            assert src.count("export function stepCost(") == 1 and src.count("export function fmtFixed(") == 1, name
        script = tmp_path / f"{name}.mjs"
        script.write_text(src, encoding="utf-8")
        done = subprocess.run([NODE, "--check", str(script)], capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, f"{name} does not load as one module:\n{done.stderr}"


KEEP_DRAWN_RUNNER = """
import { keepDrawn } from %s;
const listeners = {};
const model = { on(e, cb) { (listeners[e] = listeners[e] || []).push(cb); },
                off(e, cb) { listeners[e] = (listeners[e] || []).filter((f) => f !== cb); } };
const fire = (e) => (listeners[e] || []).forEach((cb) => cb());
function run(withObserver) {
  let observer = null;
  globalThis.ResizeObserver = withObserver ? class {
    constructor(cb) { this.cb = cb; observer = this; }
    observe(el) { this.el = el; this.on = true; }
    disconnect() { this.on = false; }
  } : undefined;
  const root = { clientWidth: 700 }, calls = [];
  const stop = keepDrawn(model, root, ["gamma", "alpha"], () => calls.push("draw"), () => calls.push("fit"));
  fire("change:gamma"); fire("change:beta"); fire("change:alpha");
  const resize = (w) => { root.clientWidth = w; if (observer) observer.cb(); };
  resize(704);                       // under 8 px: no re-fit
  resize(500); resize(505);
  const watching = observer ? observer.on && observer.el === root : null;
  stop();
  fire("change:gamma"); fire("change:alpha");
  return { calls, watching, after: observer ? observer.on : null };
}
process.stdout.write(JSON.stringify([run(true), run(false)]));
"""


def test_keep_drawn_redraws_refits_and_stops_when_removed(tmp_path):
    """The resize/teardown every front end shares (`live_dom.js`): a redraw per change of a watched
    trait, a re-fit only when the width moves 8 px or more, and nothing after render's cleanup ran
    (nor a failure where the browser has no ResizeObserver)."""
    with_observer, without = run_node(KEEP_DRAWN_RUNNER, "live_dom.js", {}, tmp_path)
    assert with_observer == {"calls": ["draw", "draw", "fit"], "watching": True, "after": False}
    assert without == {"calls": ["draw", "draw"], "watching": None, "after": None}
