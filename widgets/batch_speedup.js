// The speedup-curve widget of chapter 06, drawn in SVG and computed in the browser.
// An anywidget front end (`export default { render({ model, el }) }`): the same module runs in
// JupyterLab (state synced back to Python) and in the book, where book/static/live_widgets.js
// gives it a small model read from the widget state saved in the executed notebook.
// The maths lives in batch_speedup_math.js (tested against specdec in Node); Python inlines it
// in front of this file, because a module loaded from a string cannot import a relative file.
import { B_MAX, batchSpeedupCurve, fitMessage, isMoe, readout, regimeName } from "./batch_speedup_math.js";
import { fmtFixed } from "./pyformat.js";
import { html, keepDrawn, labelledRange, labelledSelect, liveRoot, pointerX, svg } from "./live_dom.js";

const M = { left: 56, right: 16, top: 46, bottom: 44 };
let uid = 0;

function render({ model, el }) {
  const data = model.get("data");
  // The viewBox follows the column (720 units wide at most, 330 at least), so the text stays about
  // 12 px on a phone instead of shrinking with a fixed drawing; layout() moves the fixed parts.
  let W = 720, H = 420, PW = W - M.left - M.right, PH = H - M.top - M.bottom;
  const xOf = (B) => M.left + PW * Math.log2(B) / Math.log2(B_MAX);
  const bOf = (x) => Math.pow(2, (x - M.left) / PW * Math.log2(B_MAX));
  const id = `course-bs-${++uid}`;
  const root = liveRoot(el, "course-batch-speedup", "speedup against batch size", `
    /* its own light panel in any theme (JupyterLab dark, the book's dark mode): colours that keep their contrast */
    .course-batch-speedup { font: 13px/1.4 system-ui, sans-serif; max-width: 760px; color: #222; background: #fff;
      padding: 6px; border-radius: 4px; color-scheme: light; }
    .course-batch-speedup .cbs-row { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: center; margin: 3px 0; }
    .course-batch-speedup label { white-space: nowrap; margin-right: 4px; }
    .course-batch-speedup input[type=range] { vertical-align: middle; width: 150px; }
    .course-batch-speedup .cbs-wide { flex: 1 1 100%; display: flex; gap: 8px; align-items: center; }
    .course-batch-speedup .cbs-wide input[type=range] { flex: 1 1 auto; width: auto; }
    .course-batch-speedup svg { width: 100%; height: auto; display: block; background: #fff; color: #222; }
    .course-batch-speedup .message { color: #B0303A; }
    .course-batch-speedup .legend { display: flex; flex-wrap: wrap; gap: 2px 14px; font-size: 12px; }
    .course-batch-speedup .legend span::before { content: ""; display: inline-block; width: 14px; height: 10px;
      margin-right: 4px; vertical-align: middle; background: var(--sw); border: var(--bd, none); }`);

  // --- controls: native, labelled, keyboard-operable ---
  const controls = {};
  function select(name, label, options, row) { controls[name] = labelledSelect(id, name, label, options, row); }
  function range(name, label, min, max, step, row, wide = false) {
    [controls[name], controls[`${name}Out`]] = labelledRange(id, name, label, [min, max, step], row,
                                                             wide ? "cbs-wide" : null);
  }
  const row1 = html("div", { class: "cbs-row" }, root);
  select("model_key", "model", data.model_options, row1);
  select("gpu_key", "GPU", data.gpu_options.map((g) => [g, g]), row1);
  select("n_gpu", "GPUs", data.n_gpu_options.map((n) => [String(n), n]), row1);
  const row2 = html("div", { class: "cbs-row" }, root);
  range("context", "context T̄", 6, 17, 0.25, row2, true);         // log2 of tokens
  const row3 = html("div", { class: "cbs-row" }, root);
  range("batch", "your batch B", 0, 12, 0.125, row3, true);        // log2 of sequences
  const row4 = html("div", { class: "cbs-row" }, root);
  range("gamma", "γ", 1, 12, 1, row4);
  range("alpha", "α", 0, 0.99, 0.01, row4);
  range("drafter_share", "drafter size (% of target)", 0, 25, 0.1, row4);

  // --- the figure ---
  const fig = svg("svg", { role: "img", "aria-labelledby": `${id}-title` }, root);
  const title = svg("text", { id: `${id}-title`, y: 16, "text-anchor": "middle", "font-size": 12 }, fig);
  const title1 = svg("tspan", { dy: 0 }, title), title2 = svg("tspan", { dy: 16 }, title);
  const defs = svg("defs", {}, fig);
  const hatch = svg("pattern", { id: `${id}-hatch`, width: 6, height: 6, patternUnits: "userSpaceOnUse",
                                 patternTransform: "rotate(45)" }, defs);
  svg("rect", { width: 6, height: 6, fill: "#999", "fill-opacity": 0.4 }, hatch);
  svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#666", "stroke-width": 1.5 }, hatch);
  const spans = {};
  for (const r of [1, 2, 3]) {
    spans[r] = svg("rect", { y: M.top, fill: data.regime_colors[r], "fill-opacity": data.regime_alpha,
                             "data-regime": r }, fig);
  }
  const noFit = svg("rect", { y: M.top, fill: `url(#${id}-hatch)`, "data-part": "no-fit" }, fig);
  const grid = svg("g", { stroke: "#ccc", "stroke-width": 0.6 }, fig);
  const ticks = svg("g", { "font-size": 11, fill: "#222" }, fig);
  const frame = svg("rect", { x: M.left, y: M.top, fill: "none", stroke: "#222" }, fig);
  const breakEven = svg("line", { x1: M.left, stroke: "#000", "stroke-dasharray": "6 4",
                                  "stroke-width": 1.2 }, fig);
  const fallLine = svg("line", { stroke: "#B07F00", "stroke-dasharray": "2 3", "stroke-width": 1.5 }, fig);
  const line = svg("path", { fill: "none", stroke: "#4C72B0", "stroke-width": 2.2, "data-part": "curve" }, fig);
  const fallDot = svg("circle", { r: 5, fill: "#B07F00", "data-part": "fall" }, fig);
  const pick = svg("path", { d: "M0,-6 L6,0 L0,6 L-6,0 Z", fill: "#000", "data-part": "pick" }, fig);
  const pickText = svg("text", { "font-size": 12, "data-part": "pick-label", "paint-order": "stroke",
                                 stroke: "#fff", "stroke-width": 3 }, fig);
  const xLabel = svg("text", { "text-anchor": "middle", "font-size": 12 }, fig);
  xLabel.textContent = "batch size B (sequences decoded together)";
  const yLabel = svg("text", { x: 14, "text-anchor": "middle", "font-size": 12 }, fig);
  yLabel.textContent = "speedup over plain decoding";
  const hoverLine = svg("line", { stroke: "#555", "stroke-width": 0.8, visibility: "hidden" }, fig);
  const hoverText = svg("text", { "font-size": 12, "data-part": "hover", visibility: "hidden", "paint-order": "stroke",
                                  stroke: "#fff", "stroke-width": 3 }, fig);
  const hit = svg("rect", { x: M.left, y: M.top, fill: "transparent",
                            style: "cursor: crosshair", "data-part": "plot-area" }, fig);

  const legend = html("div", { class: "legend", "aria-hidden": "true" }, root);
  const legendItems = [
    ...[1, 2, 3].map((r) => [data.regime_colors[r], data.regimes[r], `regime-${r}`]),
    ["repeating-linear-gradient(45deg,#999 0 2px,#ddd 2px 5px)", "batches that do not fit in memory", "no-fit"],
    ["linear-gradient(#000,#000) center/100% 2px no-repeat", "break-even S = 1", "break-even"],
    ["linear-gradient(#4C72B0,#4C72B0) center/100% 3px no-repeat", "speedup S(B)", "curve"],
    ["radial-gradient(circle,#B07F00 45%,transparent 50%)", "the fall begins", "fall"],
    ["linear-gradient(#000,#000) center/8px 8px no-repeat", "your batch", "pick"],
  ].map(([sw, text, key]) => {
    const span = html("span", { "data-legend": key, style: `--sw:${sw}` }, legend, text);
    return span;
  });
  const hoverReadout = html("div", { class: "hover-readout", "aria-live": "polite", "data-part": "hover-readout" }, root);
  const readoutBox = html("div", { class: "readout", "data-part": "readout" }, root);
  const messageBox = html("div", { class: "message", role: "alert", "data-part": "message" }, root);

  let curve = null, top = 1.6;
  const yOf = (s) => M.top + PH * (1 - s / top);

  function layout() {
    const width = root.clientWidth || 720;
    W = Math.round(Math.min(720, Math.max(330, width - 12)));
    H = W < 520 ? 360 : 420;
    PW = W - M.left - M.right;
    PH = H - M.top - M.bottom;
    fig.setAttribute("viewBox", `0 0 ${W} ${H}`);
    for (const node of [title, title1, title2]) node.setAttribute("x", W / 2);
    for (const node of [...Object.values(spans), noFit]) node.setAttribute("height", PH);
    for (const node of [frame, hit]) { node.setAttribute("width", PW); node.setAttribute("height", PH); }
    breakEven.setAttribute("x2", M.left + PW);
    xLabel.setAttribute("x", M.left + PW / 2);
    xLabel.setAttribute("y", H - 8);
    yLabel.setAttribute("y", M.top + PH / 2);
    yLabel.setAttribute("transform", `rotate(-90 14 ${M.top + PH / 2})`);
  }

  function settings() {
    return {
      modelKey: model.get("model_key"), gpuKey: model.get("gpu_key"), nGpu: model.get("n_gpu"),
      T: Math.round(model.get("context")), gamma: model.get("gamma"), alpha: model.get("alpha"),
      share: model.get("drafter_share"), B: Math.round(model.get("batch")),
    };
  }

  function syncControls() {
    controls.model_key.value = model.get("model_key");
    controls.gpu_key.value = model.get("gpu_key");
    controls.n_gpu.value = String(model.get("n_gpu"));
    controls.context.value = String(Math.log2(model.get("context")));
    controls.batch.value = String(Math.log2(model.get("batch")));
    controls.gamma.value = String(model.get("gamma"));
    controls.alpha.value = String(model.get("alpha"));
    controls.drafter_share.value = String(model.get("drafter_share"));
    const s = settings();
    controls.contextOut.textContent = String(s.T);
    controls.batchOut.textContent = String(s.B);
    controls.gammaOut.textContent = String(s.gamma);
    controls.alphaOut.textContent = fmtFixed(s.alpha, 2);
    controls.drafter_shareOut.textContent = fmtFixed(s.share, 1);
    controls.context.setAttribute("aria-valuetext", `${s.T} tokens`);
    controls.batch.setAttribute("aria-valuetext", `${s.B} sequences`);
  }

  function axes() {
    grid.replaceChildren();
    ticks.replaceChildren();
    for (let e = 0; e <= 12; e += 2) {
      const x = xOf(2 ** e);
      svg("line", { x1: x, x2: x, y1: M.top, y2: M.top + PH }, grid);
      svg("text", { x, y: M.top + PH + 16, "text-anchor": "middle" }, ticks).textContent = String(2 ** e);
    }
    const step = top > 6 ? 2 : top > 3 ? 1 : 0.5;
    for (let v = 0; v <= top + 1e-9; v += step) {
      const y = yOf(v);
      svg("line", { x1: M.left, x2: M.left + PW, y1: y, y2: y }, grid);
      svg("text", { x: M.left - 6, y: y + 4, "text-anchor": "end" }, ticks).textContent = String(v);
    }
  }

  function draw() {
    const s = settings();
    syncControls();
    hoverText.setAttribute("visibility", "hidden");
    hoverLine.setAttribute("visibility", "hidden");
    hoverReadout.textContent = "";
    try {
      curve = batchSpeedupCurve(s.modelKey, s.gpuKey, s.T, s.gamma, s.alpha, s.share, s.nGpu, data);
    } catch (err) {
      curve = null;
      line.setAttribute("d", "");
      for (const node of [fallDot, pick, pickText, fallLine]) node.setAttribute("visibility", "hidden");
      for (const r of [1, 2, 3]) spans[r].setAttribute("width", 0);
      noFit.setAttribute("width", 0);
      title1.textContent = "no curve for this setting (see the message below)";
      title2.textContent = "";
      readoutBox.innerHTML = "";
      messageBox.textContent = `⚠ ${err.message}`;
      root.dataset.state = "error";
      return;
    }
    root.dataset.state = "ok";
    top = Math.max(1.6, Math.max(...curve.speedup) * 1.15);
    axes();
    line.setAttribute("d", curve.B.map((b, i) => `${i ? "L" : "M"}${xOf(b).toFixed(2)},${yOf(curve.speedup[i]).toFixed(2)}`).join(""));
    legendItems[0].textContent = regimeName(curve, 1);
    const edges = [1, Math.min(curve.fallBatch, B_MAX), Math.min(curve.computeBatch, B_MAX), B_MAX];
    for (const r of [1, 2, 3]) {
      const lo = edges[r - 1], hi = Math.max(lo, edges[r]);
      spans[r].setAttribute("x", xOf(lo));
      spans[r].setAttribute("width", xOf(hi) - xOf(lo));
    }
    const start = Math.min(Math.max(curve.maxBatch + 0.5, 1), B_MAX);
    noFit.setAttribute("x", xOf(start));
    noFit.setAttribute("width", xOf(B_MAX) - xOf(start));
    breakEven.setAttribute("y1", yOf(1));
    breakEven.setAttribute("y2", yOf(1));
    const showFall = Number.isFinite(curve.fallBatch) && curve.fallBatch <= B_MAX;
    for (const node of [fallDot, fallLine]) node.setAttribute("visibility", showFall ? "visible" : "hidden");
    if (showFall) {
      const x = xOf(Math.max(curve.fallBatch, 1));
      fallDot.setAttribute("cx", x);
      fallDot.setAttribute("cy", yOf(curve.speedupAt(Math.max(curve.fallBatch, 1))));
      for (const [k, v] of [["x1", x], ["x2", x], ["y1", M.top], ["y2", M.top + PH]]) fallLine.setAttribute(k, v);
    }
    const sPick = curve.speedupAt(s.B);
    pick.setAttribute("visibility", "visible");
    pickText.setAttribute("visibility", "visible");
    pick.setAttribute("transform", `translate(${xOf(s.B)},${yOf(sPick)})`);
    const right = Math.log2(s.B) > 0.5 * Math.log2(B_MAX);        // keep the label inside the axes
    pickText.setAttribute("x", xOf(s.B) + (right ? -10 : 10));
    pickText.setAttribute("y", yOf(sPick) - 10);
    pickText.setAttribute("text-anchor", right ? "end" : "start");
    pickText.textContent = `B=${s.B}: ${fmtFixed(sPick, 2)}×`;
    const tC = curve.criticalContext === Infinity ? "never (attention alone is compute-bound)"
      : `${fmtFixed(curve.criticalContext, 0, true)} tokens`;
    title1.textContent = curve.label;
    title2.textContent = `critical context T̄c(γ+1) = ${tC}`;
    readoutBox.innerHTML = readout(curve, s.B);
    const fit = fitMessage(curve, s.B);
    messageBox.textContent = fit ? `⚠ ${fit}` : "";
  }

  // Where the pointer is on the log axis: the nearest whole batch, 1..B_MAX.
  function batchAt(event) { return Math.min(B_MAX, Math.max(1, Math.round(bOf(pointerX(event, fig, W))))); }
  hit.addEventListener("mousemove", (event) => {
    if (!curve) return;
    const B = batchAt(event), sp = curve.speedupAt(B), x = xOf(B);
    for (const [k, v] of [["x1", x], ["x2", x], ["y1", M.top], ["y2", M.top + PH]]) hoverLine.setAttribute(k, v);
    hoverLine.setAttribute("visibility", "visible");
    const right = Math.log2(B) > 0.5 * Math.log2(B_MAX);
    hoverText.setAttribute("x", x + (right ? -6 : 6));
    hoverText.setAttribute("y", M.top + 16);
    hoverText.setAttribute("text-anchor", right ? "end" : "start");
    hoverText.setAttribute("visibility", "visible");
    const text = `B = ${B}: speedup ${fmtFixed(sp, 2)}× (${regimeName(curve, curve.regimeAt(B))})`;
    hoverText.textContent = text;
    hoverReadout.textContent = `pointer at ${text}`;
    hoverReadout.dataset.batch = String(B);
  });
  hit.addEventListener("mouseleave", () => {
    hoverLine.setAttribute("visibility", "hidden");
    hoverText.setAttribute("visibility", "hidden");
  });
  hit.addEventListener("click", (event) => {           // click the curve: that batch becomes yours
    model.set("batch", batchAt(event));
    model.save_changes();
  });

  // Sliders redraw while they move (the maths is here) and tell Python when they settle.
  function bind(name, parse) {
    const node = controls[name];
    const value = () => parse(node.value);
    node.addEventListener("input", () => model.set(name, value()));          // fires change: redraw
    node.addEventListener("change", () => { model.set(name, value()); model.save_changes(); });
  }
  bind("model_key", String);
  bind("gpu_key", String);
  bind("n_gpu", Number);
  bind("context", (v) => Math.round(2 ** Number(v)));
  bind("batch", (v) => Math.round(2 ** Number(v)));
  bind("gamma", Number);
  bind("alpha", Number);
  bind("drafter_share", Number);

  layout();
  draw();
  // Redraw on every control's change, re-fit to a new column width, and stop both when removed.
  const names = ["model_key", "gpu_key", "n_gpu", "context", "batch", "gamma", "alpha", "drafter_share"];
  return keepDrawn(model, root, names, draw, () => { layout(); draw(); });
}

export default { render };
