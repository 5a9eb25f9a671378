"""The chapters' interactive figures, driven in the browser as a learner drives them, and what they
show compared with the course library (`specdec`). Each chapter is run first (Run All, as in the
chapter test, whose run is reused); screenshots before and after each interaction."""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from tests.browser import labui

FIND_WIDGET = """
import json
from {module} import {cls} as _cls
_found = [v for v in list(globals().values()) if isinstance(v, _cls)]
print(json.dumps({expr}, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))
"""


def _kernel_widget(page, module, cls, expr):
    """`expr` evaluated in the kernel on the chapter's last widget of class `cls`, named `w` there."""
    code = FIND_WIDGET.format(module=module, cls=cls, expr=f"(lambda w: {expr})(_found[-1])")
    return labui.kernel_json(page, code)


def _plain(html_text: str) -> str:
    return re.sub(r"\s+", " ", html_text).strip()


# --- chapter 06: the batch/context speedup widget ------------------------------------------------

def test_batch_speedup_context_slider(chapter_runs, shots):
    """The live figure (an ES module drawing in SVG): the context slider moved by keyboard, the plot
    hovered and clicked; the page's readouts must say what Python's reference (and specdec) says."""
    from specdec.batch_speedup import REGIMES, critical_context, fall_batch, one_layer_drafter, regime, speedup_at_batch
    from specdec.cost_model import step_cost
    from specdec.hardware import GPUS
    from specdec.model_specs import MODELS

    run = chapter_runs.get("06_batching.ipynb")
    page = run.page
    cell = labui.widget_cell(run.state, "batch_speedup_widget(")
    box = labui.cell_node(page, cell).locator(".course-batch-speedup").first
    box.scroll_into_view_if_needed()
    slider = box.get_by_role("slider", name="context T̄")
    readout_box = box.locator("[data-part=readout]")
    assert box.locator("output[data-readout=context]").text_content() == "64", "the context slider should start at 64"

    def settings():
        return _kernel_widget(page, "widgets.batch_speedup", "BatchSpeedupWidget",
                              "dict(model=w.model.value, gpu=w.gpu.value, n_gpu=w.n_gpu.value, T=round(w.context.value),"
                              " gamma=w.gamma.value, alpha=w.alpha.value, share=w.drafter.value, B=w.chosen_batch,"
                              " readout=w.readout.value,"
                              " state={k: w.state[k] for k in ('critical_context', 'fall_batch', 'chosen')})")

    def library(s):
        model, gpu = MODELS[s["model"]], GPUS[s["gpu"]]
        drafter = None if s["share"] == 0 else one_layer_drafter(model, s["share"] / 100 * model.n_active)
        cost = step_cost(model, gpu, s["n_gpu"], s["T"])
        return dict(speedup=float(speedup_at_batch(model, gpu, s["B"], s["T"], s["gamma"], s["alpha"], drafter, s["n_gpu"])),
                    regime=REGIMES[int(regime(cost, s["B"], s["gamma"]))],
                    fall=fall_batch(cost, s["gamma"] + 1),
                    T_c=float(critical_context(model, gpu, s["gamma"] + 1)))

    def check_readout(s, lib, text):
        assert text == _plain(re.sub(r"<br>", " ", re.sub(r"</?b>", "", s["readout"]))), (
            f"the page's readout differs from Python's:\n page: {text}\n python: {s['readout']}")
        assert f"B = {s['B']}" in text and f"speedup {lib['speedup']:.2f}×" in text, (
            f"T̄ = {s['T']}: the library gives speedup {lib['speedup']:.2f}× at B = {s['B']}; the readout says: {text}")
        assert lib["regime"] in text, f"T̄ = {s['T']}: the library's regime is {lib['regime']!r}; readout: {text}"
        free = "at every batch" if math.isinf(lib["fall"]) else f"up to B ≈ {lib['fall']:,.1f}"
        assert f"verification is free {free}" in text, f"T̄ = {s['T']}: the library says free {free}; readout: {text}"
        chosen = s["state"]["chosen"]
        assert chosen["B"] == s["B"] and abs(chosen["speedup"] - lib["speedup"]) < 1e-9
        assert s["state"]["critical_context"] == pytest.approx(lib["T_c"])

    def wait_python(expr, what):
        for _ in range(60):
            if _kernel_widget(page, "widgets.batch_speedup", "BatchSpeedupWidget", expr):
                return
            page.wait_for_timeout(250)
        raise AssertionError(f"Python never saw {what}: " + json.dumps(settings(), default=str)[:300])

    before_settings = settings()
    before_lib = library(before_settings)
    before_text = _plain(readout_box.inner_text())
    check_readout(before_settings, before_lib, before_text)
    T_c = before_lib["T_c"]
    assert before_settings["T"] == 64 < T_c, f"the critical context {T_c:.0f} should lie above the start, 64"
    before_path = box.locator("[data-part=curve]").get_attribute("d")
    box.screenshot(path=str(shots / "06_batch_speedup_before.png"))

    # the keyboard moves the slider: 24 steps of 1/4 doubling, 2^6 -> 2^12 = 4096 tokens, past T_c
    # (a click on the handle first, as a learner does: the notebook moves a bare focus() to a cell)
    r = slider.bounding_box()
    page.mouse.click(r["x"] + 3, r["y"] + r["height"] / 2)      # the handle sits at the left end (64)
    for _ in range(24):
        page.keyboard.press("ArrowRight")
    assert box.locator("output[data-readout=context]").text_content() == "4096", (
        "the keyboard did not move the slider; focus on: " + page.evaluate("document.activeElement.outerHTML.slice(0, 120)"))
    wait_python("round(w.context.value) == 4096", "the context slider reach 4096")
    after_settings = settings()
    after_lib = library(after_settings)
    after_text = _plain(readout_box.inner_text())
    shown_T = box.locator("output[data-readout=context]").text_content()
    assert after_settings["T"] == 4096 > T_c, f"the slider stopped at {after_settings['T']}, not past T_c = {T_c:.0f}"
    assert shown_T == str(after_settings["T"]), f"the slider shows {shown_T}, the widget holds {after_settings['T']}"
    check_readout(after_settings, after_lib, after_text)
    assert after_text != before_text
    assert box.locator("[data-part=curve]").get_attribute("d") != before_path, "the figure did not change"
    box.screenshot(path=str(shots / "06_batch_speedup_after.png"))

    # hover: the page's speedup at the pointer is Python's at that batch
    area = box.locator("[data-part=plot-area]")
    a = area.bounding_box()
    page.mouse.move(a["x"] + a["width"] * 0.8, a["y"] + a["height"] * 0.5)
    hover = box.locator("[data-part=hover-readout]")
    B_hover = int(hover.get_attribute("data-batch"))
    python = _kernel_widget(page, "widgets.batch_speedup", "BatchSpeedupWidget", f"w.curve.speedup_at({B_hover})")
    assert f"B = {B_hover}: speedup {python:.2f}×" in hover.inner_text(), hover.inner_text()
    box.screenshot(path=str(shots / "06_batch_speedup_hover.png"))

    # click: that batch becomes the learner's, in the page and in Python
    page.mouse.click(a["x"] + a["width"] * 0.8, a["y"] + a["height"] * 0.5)
    wait_python(f"w.chosen_batch == {B_hover}", f"the clicked batch {B_hover}")
    clicked = settings()
    check_readout(clicked, library(clicked), _plain(readout_box.inner_text()))
    assert box.locator("output[data-readout=batch]").text_content() == str(B_hover)


# --- chapter 08: the tree-mask explorer ------------------------------------------------------------

# The edges of the drawn tree (in its SVG's units) that run through a box other than their own ends:
# an edge ends on a box's side, so a box counts only where the line passes its inside.
EDGES_THROUGH_BOXES = """root => {
  const boxes = [...root.querySelectorAll("[data-part=tree] [data-node] rect:not(.ctm-ring), [data-part=tree] [data-part=extra] rect")]
    .map(r => r.getBBox());
  const bad = [];
  root.querySelectorAll("[data-part=tree] [data-part=edges] line").forEach((l, k) => {
    const [x1, y1, x2, y2] = ["x1", "y1", "x2", "y2"].map(a => l[a].baseVal.value);
    for (let t = 0; t <= 1; t += 0.005) {
      const x = x1 + t * (x2 - x1), y = y1 + t * (y2 - y1);
      if (boxes.some(b => x > b.x + 0.5 && x < b.x + b.width - 0.5 && y > b.y + 0.5 && y < b.y + b.height - 0.5)) {
        bad.push(k); break;
      }
    }
  });
  return bad.length ? bad : null;
}"""

def test_tree_mask_explorer(chapter_runs, shots):
    """The live explorer (an ES module drawing in SVG): a node clicked, another reached by keyboard,
    two dropdowns, a bad tree typed; what the page shows and what reaches Python must be what
    specdec.trees says."""
    from specdec.trees import depths, greedy_tree_walk, tree_attention_mask, validate_parents

    run = chapter_runs.get("08_token_trees.ipynb")
    page = run.page
    cell = labui.widget_cell(run.state, "tree_mask_explorer(")
    box = labui.cell_node(page, cell).locator(".course-tree-mask").first
    box.scroll_into_view_if_needed()
    readout = box.locator("[data-part=readout]")
    parents_input = box.get_by_label("parents", exact=True)

    def kernel_state():
        return _kernel_widget(page, "widgets.tree_mask", "TreeMaskExplorer",
                              "dict(w.state(), parents=list(w.parents), tokens=list(w.tokens), prefix=list(w.prefix),"
                              " choices=list(w.choices), mask=w.mask, position_ids=w.position_ids, readout=w.readout)")

    def wait_python(expr, what):
        for _ in range(60):
            if _kernel_widget(page, "widgets.tree_mask", "TreeMaskExplorer", expr):
                return
            page.wait_for_timeout(250)
        raise AssertionError(f"Python never saw {what}: " + json.dumps(kernel_state(), default=str)[:400])

    def highlighted_row():
        return [c == "1" for c in box.locator("[data-row][data-highlighted=true] rect").evaluate_all(
            "rects => rects.map(r => r.dataset.seen)")]

    state = kernel_state()
    parents, tokens, prefix_len = state["parents"], state["tokens"], len(state["prefix"])
    assert parents_input.input_value() == ", ".join(map(str, parents)), "the page and Python hold different trees"
    mask, pos = tree_attention_mask(parents, prefix_len)
    # the tokens box shows every token of the tree; no edge runs through a node or the target's token
    tokens_input = box.get_by_label("tokens", exact=True)
    assert tokens_input.input_value() == ", ".join(tokens) and tokens_input.evaluate(
        "e => e.scrollWidth <= e.clientWidth"), "the tokens box is too narrow for the tree's tokens"
    assert not box.evaluate(EDGES_THROUGH_BOXES), "an edge of the tree runs through a node"

    # a click on node 3 in the tree; then the keyboard: Tab to node 5, Enter
    box.locator("[data-node='3']").click()
    wait_python("w.selected == 3", "the click on node 3")
    assert highlighted_row() == mask[3].tolist(), "the page highlights another row than node 3's"
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    wait_python("w.selected == 5", "node 5 selected by keyboard (Tab, Tab, Enter after the click on node 3)")
    state = kernel_state()
    assert state["highlighted_row"] == 5 and state["mask"][5] == mask[5].tolist()
    assert highlighted_row() == mask[5].tolist(), (
        f"row 5 of tree_attention_mask is {mask[5].tolist()}; the page highlights {highlighted_row()}")
    seen = np.flatnonzero(mask[5, prefix_len:]).tolist()
    text = _plain(readout.inner_text())
    assert f"Node #5 sees the prefix and nodes {seen}; position id {int(pos[5])}" in text, (
        f"tree_attention_mask: row 5 sees the prefix and nodes {seen}, position id {int(pos[5])}; the page says: {text}")
    assert text == _plain(re.sub(r"<br>", " ", re.sub(r"</?b>", "", state["readout"])))
    box.screenshot(path=str(shots / "08_tree_mask_node5.png"))

    # the target writes other tokens: choose them in the dropdowns, check the kept branch
    choices = list(state["choices"])
    for depth, token in {0: "sat", 1: "down"}.items():
        box.get_by_label(f"depth {depth}", exact=True).select_option(token)
        choices[depth] = token
    wait_python(f"w.choices[:2] == {choices[:2]!r}", "the dropdowns' choices")
    target_next = [choices[0]] + [choices[int(d) + 1] for d in depths(parents)]
    path, emitted = greedy_tree_walk(tokens, parents, target_next)
    state = kernel_state()
    assert state["kept_branch"] == path and state["emitted"] == emitted, (
        f"greedy_tree_walk keeps {path} and emits {emitted}; the explorer holds {state['kept_branch']}, {state['emitted']}")
    kept_text = " → ".join(f"#{i} {tokens[i]}" for i in path)
    text = _plain(readout.inner_text())
    assert f"Greedy walk keeps: {kept_text}" in text and " ".join(emitted) in text, (
        f"the library keeps {kept_text} and emits {' '.join(emitted)}; the page says: {text}")
    box.screenshot(path=str(shots / "08_tree_mask_choices.png"))

    # an invalid parent array: the message says why, the tree stays as it was
    bad = "-1, 0, 5"
    with pytest.raises(ValueError) as why:
        validate_parents([int(v) for v in bad.split(",")])
    row_before = highlighted_row()
    parents_input.fill(bad)
    parents_input.press("Enter")
    message = box.locator("[data-part=message][data-kind=error]")
    message.wait_for(timeout=30_000)
    shown = _plain(message.inner_text())
    assert str(why.value) in shown, f"validate_parents says {str(why.value)!r}; the widget says {shown!r}"
    wait_python("w.error and w.message.startswith('Invalid tree')", "the refusal of the typed tree")
    state = kernel_state()
    assert state["parents"] == parents and state["message"] == shown, json.dumps(state, default=str)[:500]
    assert highlighted_row() == row_before and box.locator("[data-node]").count() == len(parents), (
        "an invalid tree changed the figure")
    assert "Traceback" not in _plain(box.inner_text())
    errors = [e for c in labui.cells(page) if c["index"] == cell for e in labui.error_outputs(c)]
    assert not errors, f"the widget's cell shows errors: {errors}"
    box.screenshot(path=str(shots / "08_tree_mask_invalid.png"))

    # the tree, node 4 selected: the selection stays, no edge crosses the target's token
    box.locator("[data-node='4']").click()
    wait_python("w.selected == 4", "the click on node 4")
    parents_input.fill("-1, 0, 0, 1, 1")
    parents_input.press("Enter")
    wait_python("w.parents == (-1, 0, 0, 1, 1) and w.selected == 4", "the typed tree with node 4 still selected")
    assert not box.evaluate(EDGES_THROUGH_BOXES), "an edge of the tree -1, 0, 0, 1, 1 runs through a node"
    box.screenshot(path=str(shots / "08_tree_mask_typed.png"))
