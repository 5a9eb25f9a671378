// The roofline explorer of chapter 01, drawn in SVG and computed in the browser.
// An anywidget front end (`export default { render({ model, el }) }`): the same module runs in
// JupyterLab (state synced back to Python) and in the book, where book/static/live_widgets.js
// gives it a small model read from the widget state saved in the executed notebook.
// The maths lives in roofline_math.js (tested against specdec in Node); Python inlines it in front
// of this file, because a module loaded from a string cannot import a relative file.
import { hoverText, kneeLabel, message, readout, rooflineCurve, title } from "./roofline_math.js";
import { fmtFixed, fmtG } from "./pyformat.js";
import { html, keepDrawn, labelledRange, labelledSelect, liveRoot, pointerX, svg } from "./live_dom.js";

let uid = 0;

// Ticks of a log10 axis over [lo, hi]: 1, 2, 5 x 10^n (every digit when that gives fewer than two).
function logTicks(lo, hi) {
  for (const subs of [[1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of subs) {
        const v = Number((m * Math.pow(10, e)).toPrecision(12));
        if (v >= lo && v <= hi) out.push(v);
      }
    }
    if (out.length >= 2) return out;
  }
  return [];
}

function render({ model, el }) {
  const data = model.get("data");
  const kMax = data.k_max;
  // The viewBox follows the column (720 units wide at most, 330 at least), so the text stays about
  // 12 px on a phone instead of shrinking with a fixed drawing; layout() moves the fixed parts.
  const M = { left: 58, right: 16, top: 46, bottom: 44 };
  let W = 720, H = 420, PW = W - M.left - M.right, PH = H - M.top - M.bottom, narrow = false;
  let yLo = 1, yHi = 10;
  const xOf = (k) => M.left + PW * Math.log2(k) / Math.log2(kMax);
  const kOf = (x) => Math.pow(2, (x - M.left) / PW * Math.log2(kMax));
  const yOf = (t) => M.top + PH * (1 - Math.log10(t / yLo) / Math.log10(yHi / yLo));
  const id = `course-rf-${++uid}`;
  const root = liveRoot(el, "course-roofline", "roofline: time of a pass against tokens checked", `
    /* its own light panel in any theme (JupyterLab dark, the book's dark mode): colours that keep their contrast */
    .course-roofline { font: 13px/1.4 system-ui, sans-serif; max-width: 760px; color: #222; background: #fff;
      padding: 6px; border-radius: 4px; color-scheme: light; }
    .course-roofline .crf-row { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: center; margin: 3px 0; }
    .course-roofline label { white-space: nowrap; margin-right: 4px; }
    .course-roofline input[type=range] { vertical-align: middle; width: 120px; }
    .course-roofline .crf-wide { flex: 1 1 100%; display: flex; gap: 8px; align-items: center; }
    .course-roofline .crf-wide input[type=range] { flex: 1 1 auto; width: auto; }
    .course-roofline svg { width: 100%; height: auto; display: block; background: #fff; color: #222; }
    .course-roofline .message { color: #B0303A; white-space: pre-line; }
    .course-roofline .legend { display: flex; flex-wrap: wrap; gap: 2px 14px; font-size: 12px; }
    .course-roofline .legend span::before { content: ""; display: inline-block; width: 14px; height: 10px;
      margin-right: 4px; vertical-align: middle; background: var(--sw); }`);

  // --- controls: native, labelled, keyboard-operable ---
  const controls = {};
  function select(name, label, options, row) { controls[name] = labelledSelect(id, name, label, options, row); }
  function range(name, label, row, wide = false) {
    [controls[name], controls[`${name}Out`]] = labelledRange(id, name, label, data.ranges[name], row,
                                                             wide ? "crf-wide" : null);
  }
  const row1 = html("div", { class: "crf-row" }, root);
  select("model_key", "model", data.model_options, row1);
  select("gpu_key", "GPU", data.gpu_options.map((g) => [g, g]), row1);
  range("n_gpu", "GPUs", row1);
  const row2 = html("div", { class: "crf-row" }, root);
  range("batch", "batch B", row2, true);
  const row3 = html("div", { class: "crf-row" }, root);
  range("context", "context T̄", row3, true);

  // --- the figure ---
  const fig = svg("svg", { role: "img", "aria-labelledby": `${id}-title` }, root);
  const titleNode = svg("text", { id: `${id}-title`, y: 16, "text-anchor": "middle", "font-size": 12 }, fig);
  const titleLines = [0, 16, 16].map((dy) => svg("tspan", { dy }, titleNode));
  const freeSpan = svg("rect", { fill: data.free_color, "fill-opacity": 0.14, "data-part": "free" }, fig);
  const computeSpan = svg("rect", { fill: data.compute_color, "fill-opacity": 0.08, "data-part": "compute" }, fig);
  const grid = svg("g", { stroke: "#ccc", "stroke-width": 0.6 }, fig);
  const ticks = svg("g", { "font-size": 11, fill: "#222" }, fig);
  const frame = svg("rect", { fill: "none", stroke: "#222" }, fig);
  const kneeLine = svg("line", { stroke: "#1F5FA8", "stroke-dasharray": "2 3", "stroke-width": 1.2 }, fig);
  const line = svg("path", { fill: "none", stroke: "#1F5FA8", "stroke-width": 2.2, "data-part": "curve" }, fig);
  const kneeDot = svg("circle", { r: 5, fill: "#1F5FA8", "data-part": "knee" }, fig);
  const kneeText = svg("text", { "font-size": 12, fill: "#1F5FA8", "data-part": "knee-label", "paint-order": "stroke",
                                 stroke: "#fff", "stroke-width": 3 }, fig);
  const xLabel = svg("text", { "text-anchor": "middle", "font-size": 12 }, fig);
  xLabel.textContent = data.x_label;
  const yLabel = svg("text", { x: 14, "text-anchor": "middle", "font-size": 12 }, fig);
  yLabel.textContent = data.y_label;
  const hoverLine = svg("line", { stroke: "#555", "stroke-width": 0.8, visibility: "hidden" }, fig);
  const hoverText_ = svg("text", { "font-size": 12, "data-part": "hover", visibility: "hidden", "paint-order": "stroke",
                                   stroke: "#fff", "stroke-width": 3 }, fig);
  const hit = svg("rect", { fill: "transparent", style: "cursor: crosshair", "data-part": "plot-area" }, fig);

  const legend = html("div", { class: "legend", "aria-hidden": "true" }, root);
  for (const [sw, text] of [
    [`${data.free_color}40`, "flat: the pass costs one decode step (free)"],
    [`${data.compute_color}26`, "past the knee: compute-bound, each token adds B t_F"],
    ["linear-gradient(#1F5FA8,#1F5FA8) center/100% 3px no-repeat", "t_pass(B, k)"],
    ["radial-gradient(circle,#1F5FA8 45%,transparent 50%)", "the knee"],
  ]) html("span", { style: `--sw:${sw}` }, legend, text);
  const hoverReadout = html("div", { class: "hover-readout", "aria-live": "polite", "data-part": "hover-readout" }, root);
  const readoutBox = html("div", { class: "readout", "data-part": "readout" }, root);
  const messageBox = html("div", { class: "message", "aria-live": "polite", "data-part": "message" }, root);

  let curve = null;

  function layout() {
    const width = root.clientWidth || 720;
    W = Math.round(Math.min(720, Math.max(330, width - 12)));
    narrow = W < 520;                   // the second title line then breaks in two
    M.top = narrow ? 62 : 46;
    H = narrow ? 380 : 420;
    PW = W - M.left - M.right;
    PH = H - M.top - M.bottom;
    fig.setAttribute("viewBox", `0 0 ${W} ${H}`);
    for (const node of [titleNode, ...titleLines]) node.setAttribute("x", W / 2);
    for (const node of [freeSpan, computeSpan]) { node.setAttribute("y", M.top); node.setAttribute("height", PH); }
    for (const node of [frame, hit]) {
      node.setAttribute("x", M.left); node.setAttribute("y", M.top);
      node.setAttribute("width", PW); node.setAttribute("height", PH);
    }
    xLabel.setAttribute("x", M.left + PW / 2);
    xLabel.setAttribute("y", H - 8);
    yLabel.setAttribute("y", M.top + PH / 2);
    yLabel.setAttribute("transform", `rotate(-90 14 ${M.top + PH / 2})`);
  }

  function settings() {
    return { modelKey: model.get("model_key"), gpuKey: model.get("gpu_key"), nGpu: model.get("n_gpu"),
             B: model.get("batch"), T: model.get("context") };
  }

  function syncControls() {
    const s = settings();
    controls.model_key.value = s.modelKey;
    controls.gpu_key.value = s.gpuKey;
    for (const [name, v] of [["n_gpu", s.nGpu], ["batch", s.B], ["context", s.T]]) {
      controls[name].value = String(v);
      controls[`${name}Out`].textContent = String(v);
    }
    controls.context.setAttribute("aria-valuetext", `${s.T} tokens`);
    controls.batch.setAttribute("aria-valuetext", `${s.B} sequences`);
  }

  function axes() {
    grid.replaceChildren();
    ticks.replaceChildren();
    const every = narrow ? 2 : 1;                       // k = 1, 4, 16, ... on a phone
    for (let e = 0; 2 ** e <= kMax; e += every) {
      const x = xOf(2 ** e);
      svg("line", { x1: x, x2: x, y1: M.top, y2: M.top + PH }, grid);
      svg("text", { x, y: M.top + PH + 16, "text-anchor": "middle" }, ticks).textContent = String(2 ** e);
    }
    for (const v of logTicks(yLo, yHi)) {
      const y = yOf(v);
      svg("line", { x1: M.left, x2: M.left + PW, y1: y, y2: y }, grid);
      svg("text", { x: M.left - 6, y: y + 4, "text-anchor": "end" }, ticks).textContent = fmtG(v);
    }
  }

  function hideHover() {
    hoverText_.setAttribute("visibility", "hidden");
    hoverLine.setAttribute("visibility", "hidden");
  }

  function draw() {
    const s = settings();
    syncControls();
    hideHover();
    hoverReadout.textContent = "";
    try {
      curve = rooflineCurve(data, s.modelKey, s.gpuKey, s.nGpu, s.B, s.T);
    } catch (err) {
      curve = null;
      line.setAttribute("d", "");
      for (const node of [kneeDot, kneeLine, kneeText]) node.setAttribute("visibility", "hidden");
      for (const node of [freeSpan, computeSpan]) node.setAttribute("width", 0);
      titleLines[0].textContent = "no curve for this setting (see the message below)";
      titleLines[1].textContent = titleLines[2].textContent = "";
      readoutBox.innerHTML = "";
      messageBox.textContent = `⚠ ${err.message}`;
      root.dataset.state = "error";
      return;
    }
    root.dataset.state = "ok";
    const ms = curve.tPass.map((t) => t * 1e3);
    yLo = Math.min(...ms) / 1.3;
    yHi = Math.max(...ms) * 1.3;
    if (yHi / yLo < 10) {                   // a flat curve: one decade around it, so the axis has ticks
      const mid = Math.sqrt(yLo * yHi);
      [yLo, yHi] = [mid / Math.sqrt(10), mid * Math.sqrt(10)];
    }
    axes();
    line.setAttribute("d", curve.k.map((k, i) => `${i ? "L" : "M"}${xOf(k).toFixed(2)},${yOf(ms[i]).toFixed(2)}`).join(""));
    const free = Math.min(curve.largestFreeK, kMax), knee = Math.min(Math.max(curve.kneeK, 1), kMax);
    freeSpan.setAttribute("x", xOf(1));
    freeSpan.setAttribute("width", free >= 1 ? xOf(free) - xOf(1) : 0);
    computeSpan.setAttribute("x", xOf(knee));
    computeSpan.setAttribute("width", xOf(kMax) - xOf(knee));
    const showKnee = curve.kneeK <= kMax && curve.kneeK >= 1;
    for (const node of [kneeDot, kneeLine, kneeText]) node.setAttribute("visibility", showKnee ? "visible" : "hidden");
    if (showKnee) {
      const x = xOf(curve.kneeK), y = yOf(curve.memoryTime * 1e3);
      kneeDot.setAttribute("cx", x);
      kneeDot.setAttribute("cy", y);
      for (const [k, v] of [["x1", x], ["x2", x], ["y1", M.top], ["y2", M.top + PH]]) kneeLine.setAttribute(k, v);
      const left = x > M.left + 0.3 * PW;                 // keep the label inside the axes
      kneeText.setAttribute("x", x + (left ? -8 : 8));
      kneeText.setAttribute("y", y - 10);
      kneeText.setAttribute("text-anchor", left ? "end" : "start");
      kneeText.textContent = kneeLabel(curve);
    }
    const second = title(curve);
    const cut = narrow ? second.indexOf("; ") : -1;
    titleLines[0].textContent = curve.label;
    titleLines[1].textContent = cut < 0 ? second : second.slice(0, cut + 1);
    titleLines[2].textContent = cut < 0 ? "" : second.slice(cut + 2);
    readoutBox.innerHTML = readout(curve);
    messageBox.textContent = message(curve);
  }

  // Where the pointer is on the log axis: the nearest whole k, 1..k_max.
  function kAt(event) { return Math.min(kMax, Math.max(1, Math.round(kOf(pointerX(event, fig, W))))); }
  hit.addEventListener("mousemove", (event) => {
    if (!curve) return;
    const k = kAt(event), x = xOf(k);
    for (const [a, v] of [["x1", x], ["x2", x], ["y1", M.top], ["y2", M.top + PH]]) hoverLine.setAttribute(a, v);
    hoverLine.setAttribute("visibility", "visible");
    const right = x > M.left + 0.5 * PW;
    hoverText_.setAttribute("x", x + (right ? -6 : 6));
    hoverText_.setAttribute("y", M.top + 16);           // the top of the plot: the flat part runs low
    hoverText_.setAttribute("text-anchor", right ? "end" : "start");
    hoverText_.setAttribute("visibility", "visible");
    hoverText_.textContent = `k = ${k}: ${fmtFixed(curve.timeAt(k) * 1e3, 3)} ms`;     // short: fits a phone
    hoverReadout.textContent = `pointer at ${hoverText(curve, k)}`;
    hoverReadout.dataset.k = String(k);
  });
  hit.addEventListener("mouseleave", hideHover);

  // Sliders redraw while they move (the maths is here) and tell Python when they settle.
  function bind(name, parse) {
    const node = controls[name];
    node.addEventListener("input", () => model.set(name, parse(node.value)));          // fires change: redraw
    node.addEventListener("change", () => { model.set(name, parse(node.value)); model.save_changes(); });
  }
  bind("model_key", String);
  bind("gpu_key", String);
  for (const name of ["n_gpu", "batch", "context"]) bind(name, Number);

  layout();
  draw();
  // Redraw on every control's change, re-fit to a new column width, and stop both when removed.
  const names = ["model_key", "gpu_key", "n_gpu", "batch", "context"];
  return keepDrawn(model, root, names, draw, () => { layout(); draw(); });
}

export default { render };
