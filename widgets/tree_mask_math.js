// Token trees in the browser: a port of specdec.trees (validate_parents, depths,
// tree_attention_mask, greedy_tree_walk) and of the tree edits of widgets.tree_mask
// (set_tree from typed text, remove a node with its subtree), with the same messages.
// Python stays the reference: tests/test_widgets_js.py runs this module in Node on random trees
// and compares every mask, position id, walk and message with specdec's. No DOM here.
//
//   treeAttentionMask([-1, 0, 1], 1)   // { mask: [[1,1,0,0],[1,1,1,0],[1,1,1,1]] (as booleans), pos: [1,2,3] }

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

/** widgets.tree_mask.TreeMaskExplorer.set_tree on typed text: { ok, parents, tokens, message }.
 *  `oldTokens` names the nodes that get no typed token (else w<i>). */
export function setTree(parentsText, tokensText, oldTokens = []) {
  try {
    const words = parseList(parentsText);
    const parents = words.map(pyInt);
    if (parents.some((v) => v === null)) {
      throw new Error(`the parent array must be whole numbers separated by commas, got ${pyRepr(parentsText)}`);
    }
    validateParents(parents);
    if (parents.length === 0) throw new Error("the tree needs at least one node");
    if (parents.length > MAX_NODES) throw new Error(`the explorer draws at most ${MAX_NODES} nodes, got ${parents.length}`);
    let tokens = parseList(tokensText || "");
    let note = "";
    if (tokens.length > parents.length) {
      note = `Note: ${tokens.length} tokens for ${parents.length} nodes; kept the first ${parents.length} and dropped ` +
        `${tokens.slice(parents.length).join(", ")}.`;
      tokens = tokens.slice(0, parents.length);
    }
    for (let i = tokens.length; i < parents.length; i++) tokens.push(i < oldTokens.length ? oldTokens[i] : `w${i}`);
    return { ok: true, parents, tokens, message: note };
  } catch (err) {
    return { ok: false, message: `Invalid tree: ${err.message}. The tree shown is unchanged.` };
  }
}

/** widgets.tree_mask.TreeMaskExplorer.remove_node: { ok, parents, tokens, message }. */
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
