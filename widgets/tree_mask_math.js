// Token trees in the browser: a port of specdec.trees (validate_parents, depths,
// tree_attention_mask, greedy_tree_walk) and of the explorer's state and actions
// (widgets/tree_mask_model.py: select, choose, add a child, remove a subtree, type a tree, reset),
// with the same messages and the same readout. Python stays the reference: tests/test_widgets_js.py
// and tests/test_widgets_js_tree_mask.py run this module in Node on random trees and random actions
// and compare every mask, position id, walk, state and message with Python's. No DOM here.
//
//   treeAttentionMask([-1, 0, 1], 1)   // { mask: [[1,1,0,0],[1,1,1,0],[1,1,1,1]] (as booleans), pos: [1,2,3] }
//   act(state, { kind: "click", node: 5 }, data)   // a new state: node 5 selected, message cleared

export const MAX_NODES = 12;

// Python's repr of a str, for messages that quote what was typed ('-1, x' or "it's").
export function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/\r/g, "\\r");
  if (quote === "'") body = body.replace(/'/g, "\\'");
  return quote + body + quote;
}

/** specdec.trees.validate_parents for an array of integers: throws Error with Python's message. */
export function validateParents(parents) {
  parents.forEach((parent, i) => {
    if (parent < -1 || parent >= i) {
      const allowed = i === 0 ? "-1 (the prefix)" : `-1 (the prefix) or an index in 0..${i - 1}`;
      throw new Error(`parents[${i}] = ${parent} is not a node listed before node ${i}: every entry must be ${allowed}`);
    }
  });
  return parents.slice();
}

/** Number of ancestors of every node (children of the prefix have depth 0). */
export function depths(parents) {
  const out = [];
  parents.forEach((parent, i) => { out[i] = parent < 0 ? 0 : out[parent] + 1; });
  return out;
}

/** specdec.trees.tree_attention_mask: rows of booleans over prefix + node columns, and position ids. */
export function treeAttentionMask(parents, prefixLen) {
  const n = parents.length, mask = [], pos = [];
  parents.forEach((parent, i) => {
    const row = new Array(prefixLen + n).fill(false);
    for (let c = 0; c < prefixLen; c++) row[c] = true;      // every node sees the whole prefix
    if (parent >= 0) for (let c = prefixLen; c < prefixLen + n; c++) row[c] = mask[parent][c];
    row[prefixLen + i] = true;                                // itself
    mask.push(row);
    pos.push(prefixLen + (parent < 0 ? 0 : pos[parent] - prefixLen + 1));
  });
  return { mask, pos };
}

/** specdec.trees.greedy_tree_walk: { path, emitted } (the kept nodes; their tokens + the extra one). */
export function greedyTreeWalk(tokens, parents, targetNext) {
  const kids = new Map();
  parents.forEach((parent, i) => { if (!kids.has(parent)) kids.set(parent, []); kids.get(parent).push(i); });
  const path = [];
  let node = -1;
  for (;;) {
    const want = targetNext[node + 1];
    const match = (kids.get(node) || []).find((c) => tokens[c] === want);
    if (match === undefined) return { path, emitted: [...path.map((i) => tokens[i]), want] };
    path.push(match);
    node = match;
  }
}

// --- where the tree is drawn (widgets/tree_mask.js draws it) -------------------------------------
// Column = depth + 1 (the prefix is column 0), rows in the order of the leaves, a parent at the mean
// row of its children. The token the target adds after the kept branch is laid out as one more leaf
// under the branch's last node: drawn as a box in a slot of its own, not as a label under that node,
// where it spilled into the gap between columns that the edges cross.
export const TREE_BOX = { rowH: 58, top: 6, h: 34, gap: 16 };

/** Slots in grid units: { prefix, nodes, extra } ({ col, row } each), cols, rows. `after`: the node the
 *  target's token follows (the kept branch's last node), -1 for the prefix. */
export function treeLayout(parents, after) {
  const kids = new Map();
  parents.forEach((p, i) => { if (!kids.has(p)) kids.set(p, []); kids.get(p).push(i); });
  const nodes = [];
  let leaves = 0, prefix = null, extra = null;
  function place(node, col) {
    const rows = (kids.get(node) || []).map((k) => place(k, col + 1));
    if (node === after) {
      extra = { col: col + 1, row: leaves++ };
      rows.push(extra.row);
    }
    const row = rows.length ? rows.reduce((x, y) => x + y, 0) / rows.length : leaves++;
    if (node >= 0) nodes[node] = { col, row };
    else prefix = { col, row };
    return row;
  }
  place(-1, 0);
  const cols = Math.max(extra.col, ...nodes.map((at) => at.col)) + 1;
  return { prefix, nodes, extra, cols, rows: leaves };
}

/** The layout in pixels at column width `colW`: boxes { x, y (centre), w, h } for the prefix, every
 *  node and the target's token, and the edges { x1, y1, x2, y2 } from a box's right side to its
 *  child's left side (the target's token last). Edges run only in the gaps between columns. */
export function treeBoxes(layout, parents, after, colW) {
  const { rowH, top, h, gap } = TREE_BOX;
  const box = ({ col, row }) => ({ x: col * colW + colW / 2, y: top + row * rowH + h / 2 + 4, w: colW - gap, h });
  const prefix = box(layout.prefix), nodes = layout.nodes.map(box), extra = box(layout.extra);
  const edge = (from, to) => ({ x1: from.x + from.w / 2, y1: from.y, x2: to.x - to.w / 2, y2: to.y });
  const edges = parents.map((p, i) => edge(p < 0 ? prefix : nodes[p], nodes[i]));
  edges.push(edge(after < 0 ? prefix : nodes[after], extra));
  return { prefix, nodes, extra, edges, width: layout.cols * colW, height: top + layout.rows * rowH + 8 };
}

/** What the target writes after the prefix and after each node: the choice at its depth + 1. */
export function targetNext(parents, choices) {
  return [choices[0], ...depths(parents).map((d) => choices[d + 1])];
}

function parseList(text) {
  return text.replace(/,/g, " ").split(/\s+/).filter((t) => t);
}

// Python's int() of one typed word: optional sign, digits (underscores between digits allowed).
function pyInt(word) {
  if (!/^[+-]?\d+(_\d+)*$/.test(word)) return null;
  return Number(word.replace(/_/g, ""));
}

/** TreeModel.set_tree on typed text: { ok, parents, tokens, message }.
 *  `oldTokens` names the nodes that get no typed token (else w<i>). */
export function setTree(parentsText, tokensText, oldTokens = []) {
  const words = parseList(parentsText);
  const parents = words.map(pyInt);
  if (parents.some((v) => v === null)) {
    return invalid(`the parent array must be whole numbers separated by commas, got ${pyRepr(parentsText)}`);
  }
  return checkTree(parents, parseList(tokensText || ""), oldTokens);
}

function invalid(why) {
  return { ok: false, message: `Invalid tree: ${why}. The tree shown is unchanged.` };
}

/** TreeModel.set_tree on lists: the parent array checked, surplus tokens dropped with a note,
 *  missing ones taken from `oldTokens` (else w<i>). */
export function checkTree(parents, tokenList, oldTokens = []) {
  try {
    validateParents(parents);
  } catch (err) {
    return invalid(err.message);
  }
  if (parents.length === 0) return invalid("the tree needs at least one node");
  if (parents.length > MAX_NODES) return invalid(`the explorer draws at most ${MAX_NODES} nodes, got ${parents.length}`);
  let tokens = tokenList.map(String);
  let note = "";
  if (tokens.length > parents.length) {
    note = `Note: ${tokens.length} tokens for ${parents.length} nodes; kept the first ${parents.length} and dropped ` +
      `${tokens.slice(parents.length).join(", ")}.`;
    tokens = tokens.slice(0, parents.length);
  }
  for (let i = tokens.length; i < parents.length; i++) tokens.push(i < oldTokens.length ? oldTokens[i] : `w${i}`);
  return { ok: true, parents: parents.slice(), tokens, message: note };
}

/** TreeModel.remove_node: { ok, parents, tokens, message }. */
export function removeNode(parents, tokens, node) {
  const n = parents.length;
  if (node === null || node === undefined || !(node >= 0 && node < n)) {
    return { ok: false, message: "Select a node to remove first." };
  }
  const gone = new Set();
  parents.forEach((parent, i) => { if (i === node || gone.has(parent)) gone.add(i); });
  if (gone.size === n) {
    return { ok: false, message: "That would remove every node: the tree needs at least one. Use reset to start over." };
  }
  const keep = [...Array(n).keys()].filter((i) => !gone.has(i));
  const newIndex = new Map(keep.map((old, i) => [old, i]));
  const newParents = keep.map((i) => (newIndex.has(parents[i]) ? newIndex.get(parents[i]) : -1));
  const below = [...gone].sort((a, b) => a - b).filter((i) => i !== node).map((i) => `${i} (${tokens[i]})`);
  const what = below.length
    ? `and the ${below.length} node${below.length > 1 ? "s" : ""} below it: ${below.join(", ")}`
    : "(nothing was below it)";
  return {
    ok: true, parents: newParents, tokens: keep.map((i) => tokens[i]),
    message: `Removed node ${node} (${tokens[node]}) ${what}. The remaining nodes were renumbered.`,
  };
}

// --- the explorer's state and actions (TreeModel) ------------------------------------------------
// A state holds the synced fields of widgets/tree_mask.py's view, under the same names:
// prefix, parents, tokens, choices, selected (a node or null), message, message_error,
// parents_text, tokens_text, new_token. `data` holds what Python sends once: vocab, initial.

/** The node and its ancestors, root first (the node columns its mask row sees). */
export function highlightedNodes(parents, selected) {
  const out = [];
  for (let j = selected; j !== null && j !== undefined && j >= 0; j = parents[j]) out.push(j);
  return out.reverse();
}

/** How many depths the target's choices matter at: the tree's depths and the extra token's. */
export function levels(parents) {
  return Math.max(...depths(parents)) + 2;
}

/** The words each depth's dropdown offers: the vocabulary, the tree's tokens, the current choices. */
export function choiceOptions(state, vocab) {
  return [...new Set([...vocab, ...state.tokens, ...state.choices.slice(0, levels(state.parents))])];
}

// Python's html.escape(text, quote=False).
export function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** TreeModel.readout: the sentence under the figure (HTML, tokens escaped). */
export function readout(state) {
  const { parents, tokens, choices, selected } = state;
  const { pos } = treeAttentionMask(parents, state.prefix.length);
  const walk = greedyTreeWalk(tokens, parents, targetNext(parents, choices));
  const kept = walk.path.map((i) => `#${i} ${escapeHtml(tokens[i])}`).join(" → ") || "nothing (no child matches)";
  const sel = selected === null || selected === undefined ? ""
    : `Node #${selected} sees the prefix and nodes [${highlightedNodes(parents, selected).join(", ")}]; ` +
      `position id ${pos[selected]}.<br>`;
  return `${sel}Greedy walk keeps: <b>${kept}</b>; the round emits <b>${escapeHtml(walk.emitted.join(" "))}</b> ` +
    `(${walk.emitted.length} tokens: ${walk.path.length} kept + 1 from the target).`;
}

function say(state, message, error = false) {
  return { ...state, message, message_error: error };
}

function fullChoices(choices) {
  const out = choices.map(String);
  while (out.length < MAX_NODES + 2) out.push("mat");
  return out;
}

// TreeModel.set_tree's outcome applied to a state: the selected node stays selected if the new tree
// has it; if not, the message says so.
function adopt(state, result) {
  if (!result.ok) return say(state, result.message, true);
  const n = result.parents.length;
  const selected = state.selected === undefined ? null : state.selected;
  const gone = selected !== null && selected >= n;
  const message = gone
    ? [result.message, `Node #${selected} is not in the new tree (nodes 0..${n - 1}): nothing is selected.`]
      .filter((t) => t).join(" ")
    : result.message;
  return {
    ...state, parents: result.parents, tokens: result.tokens,
    parents_text: result.parents.join(", "), tokens_text: result.tokens.join(", "),
    selected: gone ? null : selected, message, message_error: false,
  };
}

/** The state after one action, as TreeModel's method of the same name leaves it:
 *  click {node}, choose {depth, token}, add_child {parent, token}, remove_node {node}, apply (the
 *  typed boxes), reset (to data.initial). The state passed in is not changed. */
export function act(state, action, data) {
  const n = state.parents.length;
  switch (action.kind) {
    case "click": {
      const node = action.node;
      if (node !== null && node !== undefined && !(Number.isInteger(node) && node >= 0 && node < n)) {
        return say(state, `There is no node ${node}: nodes are numbered 0..${n - 1}.`, true);
      }
      return say({ ...state, selected: node === undefined ? null : node }, "");
    }
    case "choose": {
      const { depth, token } = action;
      if (!(depth >= 0 && depth < state.choices.length)) {
        return say(state, `depth must be in 0..${state.choices.length - 1}, got ${depth}.`, true);
      }
      const choices = state.choices.slice();
      choices[depth] = String(token);
      return say({ ...state, choices }, "");
    }
    case "add_child": {
      const parent = action.parent === null || action.parent === undefined ? -1 : action.parent;
      const token = (action.token || "").trim() || "mat";
      if (n >= MAX_NODES) return say(state, `The explorer draws at most ${MAX_NODES} nodes; remove one first.`, true);
      return adopt(state, checkTree([...state.parents, parent], [...state.tokens, token], state.tokens));
    }
    case "remove_node": {
      const result = removeNode(state.parents, state.tokens, action.node);
      if (!result.ok) return say(state, result.message, true);
      const next = adopt({ ...state, selected: null }, checkTree(result.parents, result.tokens, state.tokens));
      return say(next, result.message);
    }
    case "apply":
      return adopt(state, setTree(state.parents_text, state.tokens_text, state.tokens));
    case "reset": {
      const { parents, tokens, choices } = data.initial;
      const next = adopt({ ...state, choices: fullChoices(choices), selected: null },
        checkTree(parents, tokens, state.tokens));
      return say(next, "Reset to the example tree.");
    }
    default:
      throw new Error(`unknown action ${action.kind}`);
  }
}
