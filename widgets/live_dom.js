// What every live widget's front end does with the page the same way: make SVG and HTML elements,
// a root the notebook leaves the keyboard to, labelled native controls, and keep the figure drawn
// while it is shown (a redraw on every change of a synced trait, a re-fit when the column's width
// changes) with render()'s cleanup that stops both when the widget is removed. The front ends
// (roofline.js, batch_speedup.js, tree_mask.js) import it; Python inlines it once in front of them,
// all in one scope, so no module inlined with it may declare the names below.
//
//   const root = liveRoot(el, "course-demo", "a demo figure", ".course-demo { color: #222; }");
//   const gamma = labelledSelect("demo-1", "gamma", "γ", [["1", 1], ["2", 2]], root);
//   svg("circle", { r: 5 }, svg("svg", {}, root));
//   return keepDrawn(model, root, ["gamma"], draw, () => { layout(); draw(); });

const SVG_NS = "http://www.w3.org/2000/svg";

// `node` with its attributes and text, appended to `parent` if given.
function finishNode(node, attrs, parent, text) {
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text != null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

export function svg(tag, attrs = {}, parent = null, text = null) {
  return finishNode(document.createElementNS(SVG_NS, tag), attrs, parent, text);
}

export function html(tag, attrs = {}, parent = null, text = null) {
  return finishNode(document.createElement(tag), attrs, parent, text);
}

// The front end's root in `el`: a labelled group of class `course-live` (the JupyterLab tests count
// those as rendered widgets) with its own style sheet `css`. The notebook moves focus that enters a
// cell to the active cell (command mode) and takes the keys pressed in it (arrows, Enter, Space):
// `data-lm-suppress-shortcuts` and stopping focusin/keydown here leave both to the controls.
export function liveRoot(el, className, label, css) {
  const root = html("div", { class: `course-live ${className}`, role: "group", "aria-label": label,
                             "data-lm-suppress-shortcuts": "true" }, el);
  root.addEventListener("focusin", (event) => event.stopPropagation());
  root.addEventListener("keydown", (event) => event.stopPropagation());
  html("style", {}, root, css);
  return root;
}

// A native <select> (keyboard-operable) with its <label>, in a <span> of `row`, ids prefixed by the
// widget's `id`; `options` are [text, value] pairs. Returns the <select>.
export function labelledSelect(id, name, label, options, row) {
  const wrap = html("span", {}, row);
  html("label", { for: `${id}-${name}` }, wrap, `${label} `);
  const node = html("select", { id: `${id}-${name}`, "data-control": name }, wrap);
  for (const [text, value] of options) html("option", { value: String(value) }, node, text);
  return node;
}

// A slider (<input type=range>, [min, max, step]) with its <label> and an <output> for its value, in
// a <span> of `row`, or in a <div> of class `wideClass` that takes the row's whole width.
// Returns [input, output].
export function labelledRange(id, name, label, [min, max, step], row, wideClass = null) {
  const wrap = html(wideClass ? "div" : "span", wideClass ? { class: wideClass } : {}, row);
  html("label", { for: `${id}-${name}` }, wrap, label);
  const input = html("input", { id: `${id}-${name}`, type: "range", min, max, step, "data-control": name }, wrap);
  return [input, html("output", { for: `${id}-${name}`, "data-readout": name }, wrap)];
}

// Where the pointer of a mouse `event` is across `fig`, in the units of its viewBox (`width` wide):
// the figure is scaled to the column, the drawing's coordinates are not.
export function pointerX(event, fig, width) {
  const box = fig.getBoundingClientRect();
  return (event.clientX - box.left) * width / box.width;
}

// Calls `onChange` on every `change:<trait>` of `traits`, and `onResize` when `root` gets a new
// width (a phone turned, a sidebar opened, JupyterLab's panel resized; a change under 8 px is
// scrollbar noise). Returns the cleanup render() hands back to anywidget: without it a removed
// widget would keep redrawing into detached nodes on every change of the model it shared.
export function keepDrawn(model, root, traits, onChange, onResize) {
  for (const name of traits) model.on(`change:${name}`, onChange);
  let lastWidth = root.clientWidth;
  const resize = typeof ResizeObserver === "function" ? new ResizeObserver(() => {
    if (Math.abs(root.clientWidth - lastWidth) < 8) return;
    lastWidth = root.clientWidth;
    onResize();
  }) : null;
  if (resize) resize.observe(root);
  return () => {
    for (const name of traits) model.off(`change:${name}`, onChange);
    if (resize) resize.disconnect();
  };
}
