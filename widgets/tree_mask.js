// The tree-mask explorer of chapter 08, drawn in SVG and computed in the browser.
// An anywidget front end (`export default { render({ model, el }) }`): the same module runs in
// JupyterLab (every action synced back to Python, widgets/tree_mask.py) and in the book, where
// book/static/live_widgets.js gives it a small model read from the saved widget state.
// The state and the actions live in tree_mask_math.js (a port of widgets/tree_mask_model.py, tested
// against it in Node); this file draws the state and turns clicks, keys and typing into actions.
import { act, choiceOptions, depths, greedyTreeWalk, highlightedNodes, levels, readout, targetNext,
  treeAttentionMask, treeBoxes, treeLayout } from "./tree_mask_math.js";
import { html, keepDrawn, liveRoot, svg } from "./live_dom.js";

// The synced traits, under the names the maths' states use.
const FIELDS = ["prefix", "parents", "tokens", "choices", "selected", "message", "message_error",
  "parents_text", "tokens_text", "new_token"];
// Dark text on every fill (contrast above 7:1); green and orange also differ in lightness.
const C = {
  hot: "#F28C28", hotLight: "#FDD9B5", kept: "#2A7F3A", edge: "#A0A0A0", stroke: "#555",
  prefixSeen: "#C6DBEF", nodeSeen: "#4A7CB8", unseen: "#FFFFFF", grid: "#BBBBBB", outline: "#A33F00",
};
let uid = 0;

function clip(text, chars) {
  return text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1))}…`;
}

// A figure wider than the column keeps its text legible and scrolls sideways; a scrolling box
// takes the keyboard's focus (arrow keys scroll it), as a region named after its figure.
function scrolls(box, figure, width, avail) {
  const wide = width > avail + 1;
  figure.style.width = wide ? `${width}px` : "100%";
  if (wide) box.setAttribute("tabindex", "0");
  else box.removeAttribute("tabindex");
}

function render({ model, el }) {
  const data = model.get("data");
  const id = `course-tm-${++uid}`;
  // Keys and focus stay here (Enter and Space select nodes, the boxes take typing), not with the notebook.
  const root = liveRoot(el, "course-tree-mask",
                        "tree-mask explorer: a token tree, its attention mask and the greedy walk", `
    /* its own light panel in any theme (JupyterLab dark, the book's dark mode) */
    .course-tree-mask { font: 13px/1.4 system-ui, sans-serif; max-width: 960px; color: #222; background: #fff;
      padding: 6px; border-radius: 4px; color-scheme: light; }
    .course-tree-mask .ctm-figs { display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: flex-start; }
    .course-tree-mask .ctm-fig { flex: 1 1 300px; min-width: 0; }
    .course-tree-mask .ctm-scroll { overflow-x: auto; }
    .course-tree-mask .ctm-cap { font-weight: 600; margin: 2px 0 4px; }
    .course-tree-mask svg { display: block; height: auto; background: #fff; color: #222; }
    .course-tree-mask .ctm-row { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; margin: 5px 0; }
    .course-tree-mask .ctm-row > span { white-space: nowrap; }
    .course-tree-mask label { margin-right: 4px; }
    .course-tree-mask input[type=text] { width: 12em; max-width: 60vw; font: inherit; }
    /* the tokens box holds a word per node (six by default, twelve at most): it takes the row's width */
    .course-tree-mask .ctm-wide { flex: 1 1 24em; display: flex; align-items: center; min-width: 0; }
    .course-tree-mask .ctm-wide input[type=text] { flex: 1 1 auto; width: auto; min-width: 8em; max-width: none; }
    .course-tree-mask button, .course-tree-mask select { font: inherit; }
    .course-tree-mask [data-node] { cursor: pointer; }
    .course-tree-mask [data-node]:focus { outline: none; }
    .course-tree-mask .ctm-ring { visibility: hidden; }
    .course-tree-mask [data-node]:focus .ctm-ring { visibility: visible; }
    .course-tree-mask .message[data-kind=error] { color: #B00020; }
    .course-tree-mask .legend { display: flex; flex-wrap: wrap; gap: 2px 14px; font-size: 12px; margin-top: 4px; }
    .course-tree-mask .legend span::before { content: ""; display: inline-block; width: 14px; height: 10px;
      margin-right: 4px; vertical-align: middle; background: var(--sw); border: var(--bd, 1px solid #888); }`);

  // --- the two figures ---
  const figs = html("div", { class: "ctm-figs" }, root);
  const treeFig = html("div", { class: "ctm-fig" }, figs);
  html("div", { class: "ctm-cap", id: `${id}-tree-cap` }, treeFig,
       "token tree: click a node (or Tab to it, Enter) to select it");
  const treeScroll = html("div", { class: "ctm-scroll", role: "region", "aria-labelledby": `${id}-tree-cap` }, treeFig);
  const treeSvg = svg("svg", { role: "group", "aria-labelledby": `${id}-tree-cap`, "data-part": "tree" }, treeScroll);
  const maskFig = html("div", { class: "ctm-fig" }, figs);
  html("div", { class: "ctm-cap", id: `${id}-mask-cap` }, maskFig,
       "attention mask (rows: nodes; columns: prefix | nodes) and position ids");
  const maskScroll = html("div", { class: "ctm-scroll", role: "region", "aria-labelledby": `${id}-mask-cap` }, maskFig);
  const maskSvg = svg("svg", { role: "img", "data-part": "mask" }, maskScroll);
  const legend = html("div", { class: "legend", "aria-hidden": "true" }, root);
  for (const [sw, text, bd] of [
    [C.hot, "selected node, its row", null], [C.hotLight, "its ancestors, what its row sees", null],
    ["#fff", "kept by the greedy walk", `3px solid ${C.kept}`], [C.prefixSeen, "sees a prefix token", null],
    [C.nodeSeen, "sees a node", null], [C.unseen, "does not see", null]]) {
    html("span", { style: `--sw:${sw};${bd ? `--bd:${bd}` : ""}` }, legend, text);
  }
  const readoutBox = html("div", { class: "readout", "data-part": "readout", "aria-live": "polite" }, root);

  // --- controls: native, labelled, keyboard-operable ---
  const choiceRow = html("div", { class: "ctm-row", "data-part": "choices" }, root);
  const editRow = html("div", { class: "ctm-row" }, root);
  const typedRow = html("div", { class: "ctm-row" }, root);
  function textBox(name, label, row, wide = false) {
    const wrap = html("span", wide ? { class: "ctm-wide" } : {}, row);
    html("label", { for: `${id}-${name}` }, wrap, label);
    return html("input", { id: `${id}-${name}`, type: "text", "data-control": name, "data-focus-key": name,
                           autocomplete: "off", spellcheck: "false" }, wrap);
  }
  function button(name, label, title, row) {
    return html("button", { type: "button", "data-control": name, "data-focus-key": name, title }, row, label);
  }
  const newToken = textBox("new_token", "new token", editRow);
  const addButton = button("add", "add child to selected", "adds a node under the selected one (under the prefix if none is selected)", editRow);
  const removeButton = button("remove", "remove selected + subtree", "removes the selected node and every node below it", editRow);
  const resetButton = button("reset", "reset", "back to the example tree and the default target choices", editRow);
  const parentsBox = textBox("parents_text", "parents", typedRow);
  const tokensBox = textBox("tokens_text", "tokens", typedRow, true);
  const applyButton = button("apply", "apply", "builds the tree typed in the parents and tokens boxes", typedRow);
  const messageBox = html("div", { class: "message", role: "status", "aria-live": "polite", "data-part": "message" }, root);

  // --- state and actions ---
  function current() {
    const s = {};
    for (const k of FIELDS) s[k] = model.get(k);
    return s;
  }
  // An action computes the next state with the maths and sends what changed (once) to Python.
  function perform(action) {
    const before = current();
    const next = act(before, action, data);
    for (const k of FIELDS) if (JSON.stringify(next[k]) !== JSON.stringify(before[k])) model.set(k, next[k]);
    model.save_changes();
  }
  function setText(name, value, save) {
    if (model.get(name) !== value) model.set(name, value);
    if (save) model.save_changes();
  }
  for (const [box, name] of [[newToken, "new_token"], [parentsBox, "parents_text"], [tokensBox, "tokens_text"]]) {
    box.addEventListener("input", () => setText(name, box.value, false));
    box.addEventListener("change", () => setText(name, box.value, true));
  }
  function applyTyped() {
    setText("parents_text", parentsBox.value, false);
    setText("tokens_text", tokensBox.value, false);
    perform({ kind: "apply" });
  }
  for (const box of [parentsBox, tokensBox]) {
    box.addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); applyTyped(); } });
  }
  newToken.addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); addButton.click(); } });
  applyButton.addEventListener("click", applyTyped);
  addButton.addEventListener("click", () => {
    setText("new_token", newToken.value, false);
    perform({ kind: "add_child", parent: model.get("selected"), token: newToken.value });
  });
  removeButton.addEventListener("click", () => perform({ kind: "remove_node", node: model.get("selected") }));
  resetButton.addEventListener("click", () => perform({ kind: "reset" }));
  function selectNode(node) { perform({ kind: "click", node }); }

  // --- drawing ---
  function drawTree(s, d, walk, hot) {
    const after = walk.path.length ? walk.path[walk.path.length - 1] : -1;
    const layout = treeLayout(s.parents, after);
    const avail = Math.max(260, treeScroll.clientWidth || 360);
    const colW = Math.max(66, Math.min(130, avail / layout.cols));   // 66: the example and its token fit a phone
    const { prefix: pre, nodes, extra, edges: lines, width, height } = treeBoxes(layout, s.parents, after, colW);
    const W = Math.max(avail, width), H = height;
    treeSvg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    scrolls(treeScroll, treeSvg, W, avail);
    treeSvg.replaceChildren();
    const kept = new Set(walk.path);
    const edges = svg("g", { "data-part": "edges" }, treeSvg);
    lines.forEach((e, i) => {
      const last = i === s.parents.length;          // the target's token: dashed, the walk's colour
      svg("line", { ...e, stroke: last || kept.has(i) ? C.kept : C.edge, "stroke-width": kept.has(i) ? 3.5 : last ? 2 : 1.5,
                    ...(last ? { "stroke-dasharray": "5 3" } : {}) }, edges);
    });
    const prefix = svg("g", { "data-part": "prefix" }, treeSvg);
    svg("rect", { x: pre.x - pre.w / 2, y: pre.y - pre.h / 2, width: pre.w, height: pre.h, rx: 10, fill: "#EBEBEB", stroke: "#777" }, prefix);
    svg("text", { x: pre.x, y: pre.y + 4, "text-anchor": "middle", "font-size": 12 }, prefix,
        clip(s.prefix.join(" "), Math.floor(pre.w / 7)));
    svg("title", {}, prefix, `the prefix: ${s.prefix.join(" ")}`);
    const { pos } = treeAttentionMask(s.parents, s.prefix.length);
    s.parents.forEach((_, i) => {
      const { x, y, w, h } = nodes[i], sel = i === s.selected;
      const shown = clip(s.tokens[i], Math.floor((w - 6) / 7.5));
      // The name starts with the text the node shows (what a speech-input user says to click it).
      const g = svg("g", { role: "button", tabindex: 0, "data-node": i, "data-focus-key": `node-${i}`,
                           "aria-pressed": sel ? "true" : "false",
                           "aria-label": `${shown} #${i}: node ${i} “${s.tokens[i]}”, depth ${d[i]}` +
                             `${kept.has(i) ? ", kept by the greedy walk" : ""}` },
                    treeSvg);
      svg("title", {}, g, `node #${i} “${s.tokens[i]}”: depth ${d[i]}, position id ${pos[i]}; click to see its mask row`);
      svg("rect", { class: "ctm-ring", x: x - w / 2 - 4, y: y - h / 2 - 4, width: w + 8, height: h + 8, rx: 13,
                    fill: "none", stroke: "#111", "stroke-width": 2, "stroke-dasharray": "4 2" }, g);
      svg("rect", { x: x - w / 2, y: y - h / 2, width: w, height: h, rx: 10,
                    fill: sel ? C.hot : hot.has(i) ? C.hotLight : "#fff",
                    stroke: kept.has(i) ? C.kept : C.stroke, "stroke-width": kept.has(i) ? 3 : 1.2 }, g);
      svg("text", { x, y: y - 1, "text-anchor": "middle", "font-size": 13, fill: "#111" }, g, shown);
      svg("text", { x, y: y + 12, "text-anchor": "middle", "font-size": 10, fill: "#333" }, g, `#${i}`);
      g.addEventListener("click", () => selectNode(i));
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); selectNode(i); }
      });
    });
    // The token the target adds after the kept branch, in its own slot after the branch's last node.
    const token = walk.emitted[walk.emitted.length - 1];
    const plus = svg("g", { "data-part": "extra" }, treeSvg);
    svg("rect", { x: extra.x - extra.w / 2, y: extra.y - extra.h / 2, width: extra.w, height: extra.h, rx: 10, fill: "#fff",
                  stroke: C.kept, "stroke-width": 2, "stroke-dasharray": "5 3" }, plus);
    svg("text", { x: extra.x, y: extra.y - 1, "text-anchor": "middle", "font-size": 13, "font-weight": "bold", fill: C.kept },
        plus, clip(`+ ${token}`, Math.floor((extra.w - 6) / 7.5)));
    svg("text", { x: extra.x, y: extra.y + 12, "text-anchor": "middle", "font-size": 10, fill: "#333" }, plus, "target");
    svg("title", {}, plus, `+ ${token}: the token the target writes after the kept branch`);
  }

  function drawMask(s) {
    const P = s.prefix.length, n = s.parents.length, cols = P + n;
    const { mask, pos } = treeAttentionMask(s.parents, P);
    const avail = Math.max(260, maskScroll.clientWidth || 360);
    const L = 78, R = 40, T = 64, over = 36;    // over: the slanted "position id" reaches past the last column
    const cell = Math.max(18, Math.min(34, Math.floor((avail - L - R - over) / cols)));
    const W = Math.max(avail, L + cols * cell + R + over), H = T + n * cell + 4;
    maskSvg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    scrolls(maskScroll, maskSvg, W, avail);
    maskSvg.replaceChildren();
    const names = [...s.prefix, ...s.tokens.map((t, i) => `#${i} ${t}`)];
    const heads = svg("g", { "font-size": 11, fill: "#222" }, maskSvg);
    names.forEach((name, c) => {
      const x = L + c * cell + cell / 2 + 3;
      svg("text", { x, y: T - 6, transform: `rotate(-55 ${x} ${T - 6})` }, heads, clip(name, 10));
    });
    const px = L + cols * cell + R / 2;
    svg("text", { x: px - 2, y: T - 6, transform: `rotate(-55 ${px - 2} ${T - 6})` }, heads, "position id");
    const cells = svg("g", { "data-part": "cells" }, maskSvg);
    for (let r = 0; r < n; r++) {
      const row = svg("g", { "data-row": r, "data-highlighted": r === s.selected ? "true" : "false" }, cells);
      svg("text", { x: L - 6, y: T + r * cell + cell / 2 + 4, "text-anchor": "end", "font-size": 12 }, row,
          clip(`#${r} ${s.tokens[r]}`, 10));
      for (let c = 0; c < cols; c++) {
        const seen = mask[r][c], hotRow = r === s.selected;
        const fill = !seen ? C.unseen : c < P ? (hotRow ? C.hotLight : C.prefixSeen) : (hotRow ? C.hot : C.nodeSeen);
        const rect = svg("rect", { x: L + c * cell, y: T + r * cell, width: cell, height: cell, fill, stroke: C.grid,
                                   "stroke-width": 0.6, "data-col": c, "data-seen": seen ? "1" : "0" }, row);
        svg("title", {}, rect, `row #${r} ${s.tokens[r]}, column ${names[c]}: ${seen ? "sees it" : "does not see it"}`);
      }
      svg("text", { x: px, y: T + r * cell + cell / 2 + 4, "text-anchor": "middle", "font-size": 12,
                    "data-part": "pos" }, row, String(pos[r]));
    }
    svg("line", { x1: L + P * cell, x2: L + P * cell, y1: T - 2, y2: T + n * cell, stroke: "#111", "stroke-width": 1.5 }, maskSvg);
    if (s.selected !== null && s.selected !== undefined) {
      svg("rect", { x: L - 1, y: T + s.selected * cell - 1, width: cols * cell + 2, height: cell + 2, fill: "none",
                    stroke: C.outline, "stroke-width": 2.5, "data-part": "row-highlight" }, maskSvg);
      const sees = mask[s.selected].map((v, c) => (v ? names[c] : null)).filter((v) => v !== null);
      maskSvg.setAttribute("aria-label", `attention mask of ${n} nodes after ${P} prefix tokens; row ${s.selected} ` +
        `(${s.tokens[s.selected]}) is highlighted: it sees ${sees.join(", ")}; position id ${pos[s.selected]}`);
    } else {
      maskSvg.setAttribute("aria-label", `attention mask of ${n} nodes after ${P} prefix tokens; select a node to highlight its row`);
    }
  }

  let optionsKey = "";
  function drawControls(s) {
    const options = choiceOptions(s, data.vocab), depthsShown = levels(s.parents);
    const key = JSON.stringify([options, depthsShown]);
    if (key !== optionsKey) {                 // rebuild the dropdowns only when what they offer changes
      optionsKey = key;
      choiceRow.replaceChildren();
      html("span", { class: "ctm-cap", id: `${id}-writes` }, choiceRow, "target writes");
      for (let depth = 0; depth < depthsShown; depth++) {
        const wrap = html("span", {}, choiceRow);
        html("label", { for: `${id}-depth-${depth}` }, wrap, `depth ${depth}`);
        const select = html("select", { id: `${id}-depth-${depth}`, "data-control": `depth-${depth}`,
                                         "data-focus-key": `depth-${depth}`, "aria-describedby": `${id}-writes` }, wrap);
        for (const word of options) html("option", { value: word }, select, word);
        select.addEventListener("change", () => perform({ kind: "choose", depth, token: select.value }));
      }
    }
    choiceRow.querySelectorAll("select").forEach((select, depth) => { select.value = s.choices[depth]; });
    for (const [box, name] of [[newToken, "new_token"], [parentsBox, "parents_text"], [tokensBox, "tokens_text"]]) {
      if (box.value !== s[name]) box.value = s[name];
    }
  }

  function draw() {
    const s = current();
    if (!Array.isArray(s.parents) || !s.parents.length || s.tokens.length !== s.parents.length) return;
    const active = root.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
    const d = depths(s.parents);
    const walk = greedyTreeWalk(s.tokens, s.parents, targetNext(s.parents, s.choices));
    const hot = new Set(highlightedNodes(s.parents, s.selected));
    drawTree(s, d, walk, hot);
    drawMask(s);
    drawControls(s);
    readoutBox.innerHTML = readout(s);
    messageBox.textContent = s.message;
    messageBox.dataset.kind = s.message ? (s.message_error ? "error" : "note") : "";
    root.dataset.selected = s.selected === null || s.selected === undefined ? "" : String(s.selected);
    if (active) {                                  // the redrawn node keeps the keyboard's focus
      const again = root.querySelector(`[data-focus-key="${active}"]`);
      if (again && again !== document.activeElement) again.focus({ preventScroll: true });
    }
  }

  // Several traits change together (an action, a push from Python): draw once, after all of them.
  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    queueMicrotask(() => { pending = false; draw(); });
  }
  draw();
  // Draw after every batch of trait changes, again at a new column width, and stop both when removed.
  return keepDrawn(model, root, FIELDS, schedule, draw);
}

export default { render };
