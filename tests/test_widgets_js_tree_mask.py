"""The tree-mask explorer's actions in JavaScript (`widgets/tree_mask_math.js`, what the page does on a
click, a dropdown, a button or a typed tree) against Python's `TreeModel`, the reference: Node runs
random sequences of actions, and after every action the whole state, the readout under the figure,
the dropdowns' words and every message must be Python's, character for character."""
from __future__ import annotations

import numpy as np

from tests.test_widgets_js import NODE, run_node  # noqa: F401  (NODE: the module skips without Node)
from tests.test_widgets_js import pytestmark  # noqa: F401
from widgets.tree_mask import SYNCED
from widgets.tree_mask_model import MAX_NODES, VOCAB, TreeModel

RUNNER = """
import * as m from %s;
import { readFileSync } from "node:fs";
const { data, start, actions } = JSON.parse(readFileSync(0, "utf8"));
let state = start;
const out = [];
for (const a of actions) {
  if (a.kind === "type") state = { ...state, parents_text: a.parents_text, tokens_text: a.tokens_text };
  else state = m.act(state, a, data);
  out.push({ state, readout: m.readout(state), options: m.choiceOptions(state, data.vocab),
             levels: m.levels(state.parents), hot: m.highlightedNodes(state.parents, state.selected) });
}
process.stdout.write(JSON.stringify({ out, max_nodes: m.MAX_NODES }));
"""
WORDS = list(VOCAB) + ["", "  ", " here ", "a b", "<b>", "x&y"]
TYPED = ["-1", "0", "1", "2", "3", "5", "-2", "7", "x", "1.5", "+1", "13"]


def _state(model: TreeModel) -> dict:
    return {name: (model.error if name == "message_error" else
                   list(getattr(model, name)) if isinstance(getattr(model, name), (list, tuple)) else getattr(model, name))
            for name in SYNCED}


def _random_action(rng: np.random.Generator, model: TreeModel) -> dict:
    n, kind = model.n, rng.choice(["click", "choose", "add_child", "remove_node", "type", "apply", "reset"],
                                  p=[0.2, 0.15, 0.25, 0.15, 0.1, 0.1, 0.05])
    if kind == "click":
        return {"kind": kind, "node": None if rng.random() < 0.1 else int(rng.integers(-1, n + 2))}
    if kind == "choose":
        return {"kind": kind, "depth": int(rng.integers(-1, MAX_NODES + 3)), "token": str(rng.choice(WORDS[:6]))}
    if kind == "add_child":
        parent = model.selected if rng.random() < 0.6 else int(rng.integers(-1, n + 1))
        return {"kind": kind, "parent": parent, "token": str(rng.choice(WORDS))}
    if kind == "remove_node":
        return {"kind": kind, "node": model.selected if rng.random() < 0.6 else int(rng.integers(-1, n + 1))}
    if kind == "type":
        k = int(rng.integers(0, MAX_NODES + 3))
        parents = [-1 if i == 0 or rng.random() < 0.2 else int(rng.integers(-1, i)) for i in range(k)]
        text = ", ".join(str(rng.choice(TYPED)) if rng.random() < 0.1 else str(v) for v in parents)
        tokens = " ".join(str(rng.choice(WORDS[:10])) for _ in range(int(rng.integers(0, 15))))
        return {"kind": kind, "parents_text": text, "tokens_text": tokens}
    return {"kind": str(kind)}


def _python(model: TreeModel, a: dict) -> None:
    if a["kind"] == "type":
        model.parents_text, model.tokens_text = a["parents_text"], a["tokens_text"]
    elif a["kind"] == "click":
        model.click(a["node"])
    elif a["kind"] == "choose":
        model.choose(a["depth"], a["token"])
    elif a["kind"] == "add_child":
        model.add_child(a["parent"], a["token"])
    elif a["kind"] == "remove_node":
        model.remove_node(a["node"])
    else:
        getattr(model, a["kind"])()


def test_the_page_s_actions_leave_python_s_state_readout_and_messages(tmp_path):
    rng = np.random.default_rng(808)
    model = TreeModel()
    data = {"vocab": list(VOCAB), "initial": {"parents": list(model.initial[0]), "tokens": list(model.initial[1]),
                                              "choices": list(model.initial[2])}}
    start = _state(model)
    actions, expected = [], []
    for _ in range(1500):
        a = _random_action(rng, model)
        _python(model, a)
        actions.append(a)
        expected.append((_state(model), model.readout, model.choice_options, model.levels, model.highlighted_nodes))
    got = run_node(RUNNER, "tree_mask_math.js", {"data": data, "start": start, "actions": actions}, tmp_path)
    assert got["max_nodes"] == MAX_NODES, "the page and Python allow different numbers of nodes"
    seen = {"messages": set(), "errors": 0, "full": 0, "selected": 0}
    for step, (a, js, (state, text, options, levels, hot)) in enumerate(zip(actions, got["out"], expected)):
        where = f"step {step}, action {a}"
        assert js["state"] == state, f"{where}: the page's state differs:\n js: {js['state']}\n py: {state}"
        assert js["readout"] == text, f"{where}: the readouts differ:\n js: {js['readout']}\n py: {text}"
        assert js["options"] == options and js["levels"] == levels and js["hot"] == hot, where
        seen["messages"].add(state["message"].split(":")[0].split(" ")[0])
        seen["errors"] += state["message_error"]
        seen["full"] += len(state["parents"]) == MAX_NODES
        seen["selected"] += state["selected"] is not None
    print(f"{len(actions)} actions; message kinds {sorted(seen['messages'])}; {seen['errors']} refusals")
    # the random actions reach every kind of message, a full tree and selections
    # ("Node": a typed tree without the selected node says it is gone)
    assert {"", "Invalid", "Removed", "Reset", "Note", "Node", "There", "depth", "Select", "The", "That"} <= seen["messages"], seen
    assert seen["errors"] >= 100 and seen["full"] >= 5 and seen["selected"] >= 200, seen


GEOMETRY = """
import * as m from %s;
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(({ parents, after, colW }) =>
  m.treeBoxes(m.treeLayout(parents, after), parents, after, colW))));
"""


def _crosses(edge: dict, box: dict) -> bool:
    """Whether the segment `edge` enters the inside of `box` (centre x, y; size w, h), by sampling it."""
    t = np.linspace(0.0, 1.0, 200)
    x, y = edge["x1"] + t * (edge["x2"] - edge["x1"]), edge["y1"] + t * (edge["y2"] - edge["y1"])
    return bool(np.any((np.abs(x - box["x"]) < box["w"] / 2 - 0.5) & (np.abs(y - box["y"]) < box["h"] / 2 - 0.5)))


def test_no_edge_of_the_drawn_tree_crosses_a_node_or_the_target_s_token(tmp_path):
    """The tree as the page draws it (`treeLayout`, `treeBoxes`): no edge passes through a box but its
    own two ends (the target's token, once a label under its node, sat where other edges ran: parents
    -1, 0, 0, 1, 1 drew the edge to node 4 through it), no two boxes overlap, all lie in the picture."""
    rng = np.random.default_rng(88)
    cases = [{"parents": [-1, 0, 0, 1, 1], "after": a, "colW": 66} for a in (-1, 0, 1, 2, 3)]
    cases.append({"parents": list(TreeModel().parents), "after": 5, "colW": 100})
    for _ in range(400):
        n = int(rng.integers(1, MAX_NODES + 1))
        parents = [-1 if i == 0 or rng.random() < 0.2 else int(rng.integers(-1, i)) for i in range(n)]
        cases.append({"parents": parents, "after": int(rng.integers(-1, n)), "colW": float(rng.choice([66, 100, 130]))})
    got = run_node(GEOMETRY, "tree_mask_math.js", cases, tmp_path)
    for case, drawn in zip(cases, got):
        parents, after = case["parents"], case["after"]
        boxes = {"prefix": drawn["prefix"], "target": drawn["extra"], **{i: b for i, b in enumerate(drawn["nodes"])}}
        ends = [("prefix" if p < 0 else p, i) for i, p in enumerate(parents)] + [("prefix" if after < 0 else after, "target")]
        assert len(drawn["edges"]) == len(ends), case
        for edge, (a, b) in zip(drawn["edges"], ends):
            through = [k for k, box in boxes.items() if k not in (a, b) and _crosses(edge, box)]
            assert not through, f"{case}: the edge {a} -> {b} passes through {through}"
        keys = list(boxes)
        for i, k in enumerate(keys):
            box = boxes[k]
            assert box["x"] - box["w"] / 2 >= 0 and box["x"] + box["w"] / 2 <= drawn["width"], (case, k)
            assert box["y"] - box["h"] / 2 >= 0 and box["y"] + box["h"] / 2 <= drawn["height"], (case, k)
            for other in keys[i + 1:]:
                o = boxes[other]
                assert abs(box["x"] - o["x"]) >= (box["w"] + o["w"]) / 2 or abs(box["y"] - o["y"]) >= (box["h"] + o["h"]) / 2, \
                    f"{case}: boxes {k} and {other} overlap"
