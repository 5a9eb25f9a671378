"""The tree-mask explorer's state, in plain Python: a token tree, what the learner did to it, and
what `specdec.trees` says about it (mask, position ids, greedy walk). No display here:
`widgets/tree_mask.py` shows it as a live widget, and `widgets/tree_mask_math.js` ports the same
actions to the browser (tests/test_widgets_js_tree_mask.py compares the two on random actions).

It opens on chapter 08's example tree after the prefix "The cat": parents (-1, -1, 0, 0, 1, 2) with
tokens sat, is, on, down, a, the. The learner selects a node (its mask row and its ancestors are
highlighted), says what a greedy target writes at each depth (`choices`), adds a child, removes a
node with its subtree, types a parent array and tokens, or resets. Bad input leaves the last valid
tree in place and sets `message` (with `error` true); surplus typed tokens are dropped with a note.

    >>> tree = TreeModel()
    >>> tree.click(5); tree.highlighted_row, tree.highlighted_nodes
    (5, [0, 2, 5])
    >>> tree.kept_branch, tree.emitted
    ([0, 2, 5], ['sat', 'on', 'the', 'mat'])
    >>> tree.choose(1, "down"); tree.kept_branch, tree.emitted
    ([0, 3], ['sat', 'down', 'the'])
    >>> tree.set_tree("-1, 0, 5"), tree.error
    (False, True)
    >>> tree.message.startswith("Invalid tree")
    True
    >>> tree.set_tree("-1, 0, 1, 2", "sat on the mat down a"), tree.tokens, tree.parents_text
    (True, ['sat', 'on', 'the', 'mat'], '-1, 0, 1, 2')
    >>> print(tree.message)                  # node 5 was selected: a new tree keeps a selection it has
    Note: 6 tokens for 4 nodes; kept the first 4 and dropped down, a. Node #5 is not in the new tree (nodes 0..3): nothing is selected.
    >>> tree.click(3); tree.set_tree("-1, 0, 0, 1, 1"), tree.selected, tree.message
    (True, 3, '')
"""
from __future__ import annotations

import html

import numpy as np

from specdec.trees import depths, greedy_tree_walk, tree_attention_mask, validate_parents

EXAMPLE_PREFIX = ("The", "cat")
EXAMPLE_PARENTS = (-1, -1, 0, 0, 1, 2)
EXAMPLE_TOKENS = ("sat", "is", "on", "down", "a", "the")
EXAMPLE_CHOICES = ("sat", "on", "the", "mat")          # what the target writes at depth 0, 1, 2, 3
VOCAB = ("sat", "is", "on", "down", "a", "the", "mat", "here", "very", "sofa")
MAX_NODES = 12
N_CHOICES = MAX_NODES + 2                               # a choice per depth, and one for the extra token


def _parse_list(text: str) -> list[str]:
    return [t for t in text.replace(",", " ").split() if t]


def _full_choices(choices) -> list[str]:
    return [str(c) for c in choices] + ["mat"] * (N_CHOICES - len(choices))


class TreeModel:
    """The explorer's state and its actions. Fields: `prefix`, `parents`, `tokens`, `choices` (what
    the target writes at each depth), `selected` (a node or None), `message` and `error` (whether
    the message reports refused input), and the edit boxes' text `parents_text`, `tokens_text`,
    `new_token`. Derived: `mask`, `position_ids`, `highlighted_nodes`, `kept_branch`, `emitted`,
    `readout`. Every action ends in `_changed()`, a hook a display overrides to redraw."""

    def __init__(self, parents=EXAMPLE_PARENTS, tokens=EXAMPLE_TOKENS, prefix=EXAMPLE_PREFIX,
                 choices=EXAMPLE_CHOICES):
        self.prefix = tuple(prefix)
        self.initial = (tuple(parents), tuple(tokens), tuple(choices))
        self.parents: tuple[int, ...] = ()
        self.tokens: list[str] = []
        self.choices = _full_choices(choices)
        self.selected: int | None = None
        self.message, self.error = "", False
        self.parents_text = self.tokens_text = ""
        self.new_token = "mat"
        if not self.set_tree(parents, tokens):
            raise ValueError(self.message)

    # --- derived state ------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.parents)

    @property
    def depths(self) -> np.ndarray:
        return depths(self.parents)

    @property
    def levels(self) -> int:
        """How many depths the target's choices matter at: the tree's depths and the extra token's."""
        return int(self.depths.max()) + 2

    @property
    def mask(self) -> np.ndarray:
        return tree_attention_mask(self.parents, len(self.prefix))[0]

    @property
    def position_ids(self) -> np.ndarray:
        return tree_attention_mask(self.parents, len(self.prefix))[1]

    @property
    def highlighted_row(self) -> int | None:
        """The mask row drawn highlighted: the selected node's row, or None."""
        return self.selected

    @property
    def highlighted_nodes(self) -> list[int]:
        """The selected node and its ancestors, root first (the columns its row sees in the node block)."""
        if self.selected is None:
            return []
        out, j = [], self.selected
        while j >= 0:
            out.append(j)
            j = self.parents[j]
        return out[::-1]

    @property
    def target_next(self) -> list[str]:
        """What the target writes after the prefix (entry 0) and after each node: the choice at its depth + 1."""
        return [self.choices[0]] + [self.choices[int(d) + 1] for d in self.depths]

    def _walk(self):
        return greedy_tree_walk(self.tokens, self.parents, self.target_next)

    @property
    def kept_branch(self) -> list[int]:
        return self._walk()[0]

    @property
    def emitted(self) -> list[str]:
        return self._walk()[1]

    @property
    def choice_options(self) -> list[str]:
        """The words each depth's dropdown offers: the vocabulary, the tree's tokens, the current choices."""
        return list(dict.fromkeys(list(VOCAB) + self.tokens + self.choices[:self.levels]))

    @property
    def readout(self) -> str:
        """The sentence under the figure (HTML; tokens escaped), e.g. for node 5 of the example:
        'Node #5 sees the prefix and nodes [0, 2, 5]; position id 4.<br>Greedy walk keeps: ...'."""
        path, emitted = self._walk()
        esc = lambda t: html.escape(t, quote=False)          # noqa: E731 (a typed token may hold < or &)
        kept = " → ".join(f"#{i} {esc(self.tokens[i])}" for i in path) or "nothing (no child matches)"
        sel = ("" if self.selected is None else
               f"Node #{self.selected} sees the prefix and nodes {self.highlighted_nodes}; "
               f"position id {int(self.position_ids[self.selected])}.<br>")
        return (f"{sel}Greedy walk keeps: <b>{kept}</b>; the round emits <b>{esc(' '.join(emitted))}</b> "
                f"({len(emitted)} tokens: {len(path)} kept + 1 from the target).")

    def state(self) -> dict:
        return {"selected": self.selected, "highlighted_row": self.highlighted_row,
                "kept_branch": self.kept_branch, "emitted": self.emitted, "message": self.message,
                "error": self.error}

    # --- actions (what the controls do) -------------------------------------------------------
    def click(self, node: int | None) -> None:
        """Select a node (None clears the selection); clicking the selected node again keeps it selected."""
        if node is not None and not (isinstance(node, (int, np.integer)) and not isinstance(node, bool)
                                     and 0 <= node < self.n):
            self._say(f"There is no node {node!r}: nodes are numbered 0..{self.n - 1}.", error=True)
            return
        self.selected = None if node is None else int(node)
        self._say("")

    def choose(self, depth: int, token: str) -> None:
        """Say that the target writes `token` at `depth` (0 = the first token after the prefix)."""
        if not 0 <= depth < len(self.choices):
            self._say(f"depth must be in 0..{len(self.choices) - 1}, got {depth}.", error=True)
            return
        self.choices[depth] = str(token)
        self._say("")

    def add_child(self, parent: int | None = None, token: str | None = None) -> bool:
        """Append a node under `parent` (None or -1: under the prefix). Returns whether it was added."""
        parent = -1 if parent is None else int(parent)
        token = (token or "").strip() or "mat"
        if self.n >= MAX_NODES:
            self._say(f"The explorer draws at most {MAX_NODES} nodes; remove one first.", error=True)
            return False
        return self.set_tree(list(self.parents) + [parent], self.tokens + [token])

    def remove_node(self, node: int | None = None) -> bool:
        """Remove `node` and everything below it (its subtree); later nodes are renumbered.
        The message says which nodes went."""
        if node is None or not 0 <= node < self.n:
            self._say("Select a node to remove first.", error=True)
            return False
        gone = set()
        for i, parent in enumerate(self.parents):
            if i == node or parent in gone:
                gone.add(i)
        if len(gone) == self.n:
            self._say("That would remove every node: the tree needs at least one. Use reset to start over.",
                      error=True)
            return False
        keep = [i for i in range(self.n) if i not in gone]
        new_index = {old: new for new, old in enumerate(keep)}
        parents = [new_index.get(self.parents[i], -1) for i in keep]
        below = [f"{i} ({self.tokens[i]})" for i in sorted(gone) if i != node]
        head = f"{node} ({self.tokens[node]})"
        self.selected = None
        self.set_tree(parents, [self.tokens[i] for i in keep])
        what = (f"and the {len(below)} node{'s' * (len(below) > 1)} below it: {', '.join(below)}" if below
                else "(nothing was below it)")
        self._say(f"Removed node {head} {what}. The remaining nodes were renumbered.")
        return True

    def reset(self) -> None:
        """Back to the tree, tokens and target choices the explorer opened with."""
        parents, tokens, choices = self.initial
        self.choices = _full_choices(choices)
        self.selected = None
        self.set_tree(parents, tokens)
        self._say("Reset to the example tree.")

    def apply(self) -> bool:
        """Build the tree typed in the edit boxes (`parents_text`, `tokens_text`)."""
        return self.set_tree(self.parents_text, self.tokens_text)

    def set_tree(self, parents, tokens=None) -> bool:
        """Replace the tree. `parents` and `tokens` may be lists or typed text ("-1, -1, 0");
        missing tokens keep the old node's token (else a placeholder w<i>). The selected node stays
        selected if the new tree has it; if not, the message says so. Invalid input keeps the old
        tree, says why in `message`, and returns False."""
        try:
            if isinstance(parents, str):
                words = _parse_list(parents)
                try:
                    parents = [int(v) for v in words]
                except ValueError:
                    raise ValueError(f"the parent array must be whole numbers separated by commas, got {parents!r}")
            par = validate_parents(parents)
            if len(par) == 0:
                raise ValueError("the tree needs at least one node")
            if len(par) > MAX_NODES:
                raise ValueError(f"the explorer draws at most {MAX_NODES} nodes, got {len(par)}")
            if isinstance(tokens, str):
                tokens = _parse_list(tokens)
            tokens = [str(t) for t in (tokens or [])]
            note = ""
            if len(tokens) > len(par):
                note = (f"Note: {len(tokens)} tokens for {len(par)} nodes; kept the first {len(par)} and dropped "
                        f"{', '.join(tokens[len(par):])}.")
                tokens = tokens[:len(par)]
            tokens += [self.tokens[i] if i < len(self.tokens) else f"w{i}" for i in range(len(tokens), len(par))]
        except ValueError as exc:
            self._say(f"Invalid tree: {exc}. The tree shown is unchanged.", error=True)
            return False
        self.parents = tuple(int(v) for v in par)
        self.tokens = tokens
        self.parents_text = ", ".join(str(v) for v in self.parents)
        self.tokens_text = ", ".join(self.tokens)
        if self.selected is not None and self.selected >= self.n:
            gone, self.selected = self.selected, None
            note = " ".join(filter(None, [note, f"Node #{gone} is not in the new tree (nodes 0..{self.n - 1}): "
                                                "nothing is selected."]))
        self._say(note)
        return True

    def _say(self, text: str, error: bool = False) -> None:
        self.message, self.error = text, error
        self._changed()

    def _changed(self) -> None:
        """Called after every change of state; a display redraws here."""
