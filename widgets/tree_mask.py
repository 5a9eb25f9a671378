"""The tree-mask explorer: a token tree, its attention mask and position ids, and the greedy walk.

It opens on chapter 08's example tree after the prefix "The cat": parents (-1, -1, 0, 0, 1, 2)
with tokens sat, is, on, down, a, the. Left: the tree (prefix on the left, depth growing to
the right). Right: the mask of `specdec.trees.tree_attention_mask` (prefix block, then node
block) with each row's position id. Clicking a node highlights its mask row and its
ancestors. A dropdown per depth says what a greedy target writes there; the explorer walks
the tree with `greedy_tree_walk` and shows the kept branch and the emitted tokens, the extra
token included. The tree can be edited (add a child, remove a node with its whole subtree, type
a parent array and tokens, reset to the example); an invalid tree leaves the last valid one in
place and shows a message, and surplus typed tokens are dropped with a note saying which.

Everything a click does is also a method, so tests and notebooks drive it from Python:

    >>> ex = tree_mask_explorer()
    >>> ex.click(5); ex.highlighted_row, ex.highlighted_nodes
    (5, [0, 2, 5])
    >>> ex.kept_branch, ex.emitted
    ([0, 2, 5], ['sat', 'on', 'the', 'mat'])
    >>> ex.choose(1, "down"); ex.kept_branch, ex.emitted
    ([0, 3], ['sat', 'down', 'the'])
    >>> ex.set_tree("-1, 0, 5")
    False
    >>> ex.message.startswith("Invalid tree")
    True
    >>> ex.set_tree("-1, 0, 1, 2", "sat on the mat down a"), ex.tokens
    (True, ['sat', 'on', 'the', 'mat'])
    >>> ex.message
    'Note: 6 tokens for 4 nodes; kept the first 4 and dropped down, a.'
"""
from __future__ import annotations

import io

import numpy as np

from specdec.trees import depths, greedy_tree_walk, tree_attention_mask, validate_parents

EXAMPLE_PREFIX = ("The", "cat")
EXAMPLE_PARENTS = (-1, -1, 0, 0, 1, 2)
EXAMPLE_TOKENS = ("sat", "is", "on", "down", "a", "the")
EXAMPLE_CHOICES = ("sat", "on", "the", "mat")          # what the target writes at depth 0, 1, 2, 3
VOCAB = ("sat", "is", "on", "down", "a", "the", "mat", "here", "very", "sofa")
MAX_NODES = 12

_WHITE, _PREFIX, _NODE = (1.0, 1.0, 1.0), (0.78, 0.86, 0.95), (0.25, 0.47, 0.75)
_HOT, _HOT_PREFIX = (0.93, 0.45, 0.10), (0.99, 0.80, 0.62)
_KEPT = "#2a9d3a"


def _parse_list(text: str) -> list[str]:
    return [t for t in text.replace(",", " ").split() if t]


class TreeMaskExplorer:
    """State and drawing of the explorer; `.widget` is the ipywidgets box to display.

    State for tests: `parents`, `tokens`, `selected` (node index or None), `highlighted_row`,
    `highlighted_nodes` (selected node and its ancestors), `choices` (target token per depth),
    `kept_branch`, `emitted`, `mask`, `position_ids`, `message`.
    """

    def __init__(self, parents=EXAMPLE_PARENTS, tokens=EXAMPLE_TOKENS, prefix=EXAMPLE_PREFIX,
                 choices=EXAMPLE_CHOICES):
        import ipywidgets as w
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.prefix = tuple(prefix)
        self._initial = (tuple(parents), tuple(tokens), tuple(choices))
        self.parents: tuple[int, ...] = ()
        self.tokens: list[str] = []
        self.selected: int | None = None
        self.choices = list(choices) + ["mat"] * (MAX_NODES + 2 - len(choices))
        self.message = ""
        self._syncing = False

        # --- controls ---------------------------------------------------------------------
        self.node_buttons = w.ToggleButtons(options=[], value=None, description="node",
                                            style={"button_width": "auto"})
        self.choice_boxes = w.HBox([])
        self.token_box = w.Text(value="mat", description="new token", layout=w.Layout(width="200px"))
        self.add_button = w.Button(description="add child to selected", icon="plus",
                                   layout=w.Layout(width="190px"))
        self.remove_button = w.Button(description="remove selected + subtree", icon="trash",
                                      tooltip="removes the selected node and every node below it",
                                      layout=w.Layout(width="230px"))
        self.reset_button = w.Button(description="reset", icon="undo",
                                     tooltip="back to the example tree and the default target choices",
                                     layout=w.Layout(width="90px"))
        self.parents_box = w.Text(description="parents", layout=w.Layout(width="300px"))
        self.tokens_box = w.Text(description="tokens", layout=w.Layout(width="320px"))
        self.apply_button = w.Button(description="apply", layout=w.Layout(width="80px"))
        self.message_html = w.HTML()
        self.readout = w.HTML()
        self.image = w.Image(format="png", layout=w.Layout(width="900px"))

        self.node_buttons.observe(self._on_node, names="value")
        self.add_button.on_click(lambda _b: self.add_child(self.selected, self.token_box.value))
        self.remove_button.on_click(lambda _b: self.remove_node(self.selected))
        self.apply_button.on_click(lambda _b: self.set_tree(self.parents_box.value, self.tokens_box.value))
        self.reset_button.on_click(lambda _b: self.reset())

        # --- the figure: built once, its artists updated in place ---------------------------
        from matplotlib.collections import LineCollection
        from matplotlib.patches import Rectangle

        self.figure = Figure(figsize=(10.0, 4.0), dpi=90)
        FigureCanvasAgg(self.figure)
        self.ax_tree = self.figure.add_axes((0.01, 0.04, 0.40, 0.86))
        self.ax_mask = self.figure.add_axes((0.50, 0.10, 0.40, 0.72))
        self.ax_tree.set_axis_off()
        self.ax_tree.set_title("token tree (pick a node with the node buttons)", fontsize=10)
        self._edges = LineCollection([], colors="0.6", linewidths=1.5, zorder=1)
        self.ax_tree.add_collection(self._edges)
        self._dots = self.ax_tree.scatter([], [], s=900, zorder=2, edgecolors="0.3", linewidths=1.0)
        self._prefix_text = self.ax_tree.text(0, 0, " ".join(self.prefix), ha="center", va="center", fontsize=10,
                                              bbox=dict(boxstyle="round", fc="0.92", ec="0.5"), zorder=3)
        self._labels = [self.ax_tree.text(0, 0, "", ha="center", va="center", fontsize=8, zorder=3, visible=False)
                        for _ in range(MAX_NODES)]
        self._extra = self.ax_tree.text(0, 0, "", ha="left", va="center", fontsize=9, color=_KEPT,
                                        fontweight="bold", zorder=3)
        self._mask_image = self.ax_mask.imshow(np.ones((1, 1, 3)), interpolation="nearest", aspect="auto")
        self._split = self.ax_mask.axvline(0, color="k", lw=1.5)
        self._row_box = Rectangle((0, 0), 1, 1, fill=False, ec=_HOT, lw=2.5, visible=False)
        self.ax_mask.add_patch(self._row_box)
        self._pos_texts = [self.ax_mask.text(0, 0, "", ha="left", va="center", fontsize=9, clip_on=False)
                           for _ in range(MAX_NODES + 1)]
        self.ax_mask.tick_params(length=0, labelsize=8)
        self.ax_mask.xaxis.tick_top()

        controls = w.VBox([
            self.node_buttons,
            w.HBox([w.HTML("<b>target writes</b>&nbsp;"), self.choice_boxes]),
            w.HBox([self.token_box, self.add_button, self.remove_button, self.reset_button]),
            w.HBox([self.parents_box, self.tokens_box, self.apply_button]),
            self.message_html,
        ])
        self.widget = w.VBox([self.image, self.readout, controls])
        self.widget.explorer = self
        self.set_tree(parents, tokens)

    # --- derived state ----------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.parents)

    @property
    def depths(self) -> np.ndarray:
        return depths(self.parents)

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

    def state(self) -> dict:
        return {"selected": self.selected, "highlighted_row": self.highlighted_row,
                "kept_branch": self.kept_branch, "emitted": self.emitted, "message": self.message}

    # --- actions (what the buttons do) -----------------------------------------------------
    def click(self, node: int | None) -> None:
        """Select a node (None clears the selection); clicking the selected node again keeps it selected."""
        if node is not None and not (isinstance(node, (int, np.integer)) and 0 <= node < self.n):
            self._say(f"There is no node {node!r}: nodes are numbered 0..{self.n - 1}.", error=True)
            return
        self.selected = None if node is None else int(node)
        self._say("")
        self._refresh()

    def choose(self, depth: int, token: str) -> None:
        """Say that the target writes `token` at `depth` (0 = the first token after the prefix)."""
        if not 0 <= depth < len(self.choices):
            self._say(f"depth must be in 0..{len(self.choices) - 1}, got {depth}.", error=True)
            return
        self.choices[depth] = str(token)
        self._say("")
        self._refresh()

    def add_child(self, parent: int | None = None, token: str | None = None) -> bool:
        """Append a node under `parent` (None or -1: under the prefix). Returns whether it was added."""
        parent = -1 if parent is None else int(parent)
        token = (token or "").strip() or "mat"
        if self.n >= MAX_NODES:
            self._say(f"The explorer draws at most {MAX_NODES} nodes; remove one first.", error=True)
            return False
        return self.set_tree(list(self.parents) + [parent], self.tokens + [token], keep_selection=True)

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
        if not self.set_tree(parents, [self.tokens[i] for i in keep]):
            return False
        what = (f"and the {len(below)} node{'s' * (len(below) > 1)} below it: {', '.join(below)}" if below
                else "(nothing was below it)")
        self._say(f"Removed node {head} {what}. The remaining nodes were renumbered.")
        return True

    def reset(self) -> None:
        """Back to the tree, tokens and target choices the explorer opened with."""
        parents, tokens, choices = self._initial
        self.choices = list(choices) + ["mat"] * (MAX_NODES + 2 - len(choices))
        self.selected = None
        self.set_tree(parents, tokens)
        self._say("Reset to the example tree.")

    def set_tree(self, parents, tokens=None, keep_selection: bool = False) -> bool:
        """Replace the tree. `parents` and `tokens` may be lists or typed text ("-1, -1, 0");
        missing tokens get placeholder names. Invalid input keeps the old tree, shows why, returns False."""
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
        if not keep_selection or (self.selected is not None and self.selected >= self.n):
            self.selected = None
        self._say(note)
        self._refresh(structure=True)
        return True

    # --- widget plumbing -------------------------------------------------------------------
    def _say(self, text: str, error: bool = False) -> None:
        self.message = text
        color = "#b00020" if error else "#333"
        self.message_html.value = f"<span style='color:{color}'>{text}</span>" if text else ""

    def _on_node(self, change) -> None:
        if not self._syncing:
            self.click(change["new"])

    def _on_choice(self, depth: int, change) -> None:
        if not self._syncing:
            self.choose(depth, change["new"])

    def _sync_controls(self, structure: bool) -> None:
        import ipywidgets as w

        self._syncing = True
        try:
            if structure:
                self.node_buttons.options = [(f"{i}: {t}", i) for i, t in enumerate(self.tokens)]
                levels = int(self.depths.max()) + 2
                vocab = list(dict.fromkeys(list(VOCAB) + self.tokens + self.choices[:levels]))
                boxes = []
                for d in range(levels):
                    box = w.Dropdown(options=vocab, value=self.choices[d], description=f"depth {d}",
                                     layout=w.Layout(width="175px"), style={"description_width": "initial"})
                    box.observe(lambda change, d=d: self._on_choice(d, change), names="value")
                    boxes.append(box)
                self.choice_boxes.children = boxes
                self.parents_box.value = ", ".join(str(v) for v in self.parents)
                self.tokens_box.value = ", ".join(self.tokens)
            self.node_buttons.value = self.selected
            for d, box in enumerate(self.choice_boxes.children):
                if self.choices[d] not in box.options:
                    box.options = list(box.options) + [self.choices[d]]
                box.value = self.choices[d]
        finally:
            self._syncing = False

    def _layout(self) -> np.ndarray:
        """(n, 2) drawing coordinates: x = depth + 1, y from the order of the leaves."""
        xy = np.zeros((self.n, 2))
        kids: dict[int, list[int]] = {}
        for i, parent in enumerate(self.parents):
            kids.setdefault(parent, []).append(i)
        next_leaf = [0.0]

        def place(node: int) -> float:
            below = [place(c) for c in kids.get(node, [])]
            y = float(np.mean(below)) if below else next_leaf[0]
            if not below:
                next_leaf[0] += 1.0
            if node >= 0:
                xy[node] = (self.depths[node] + 1, -y)
            return y

        root_y = place(-1)
        self._root_xy = (0.0, -root_y)
        return xy

    def _refresh(self, structure: bool = False) -> None:
        self._sync_controls(structure)
        n, P = self.n, len(self.prefix)
        mask, pos = tree_attention_mask(self.parents, P)
        path, emitted = self._walk()
        hot = set(self.highlighted_nodes)

        # tree
        xy = self._layout()
        segments = [[self._root_xy if par < 0 else xy[par], xy[i]] for i, par in enumerate(self.parents)]
        self._edges.set_segments(segments)
        self._edges.set_color([_KEPT if i in path else "0.65" for i in range(n)])
        self._edges.set_linewidth([3.5 if i in path else 1.5 for i in range(n)])
        self._dots.set_offsets(xy)
        self._dots.set_facecolor([_HOT if i == self.selected else _HOT_PREFIX if i in hot else "white"
                                  for i in range(n)])
        self._dots.set_edgecolor([_KEPT if i in path else "0.3" for i in range(n)])
        self._dots.set_linewidth([3.0 if i in path else 1.0 for i in range(n)])
        for i, label in enumerate(self._labels):
            label.set_visible(i < n)
            if i < n:
                label.set_position(xy[i])
                label.set_text(f"{self.tokens[i]}\n#{i}")
        self._prefix_text.set_position(self._root_xy)
        last = self._root_xy if not path else xy[path[-1]]
        self._extra.set_position((last[0] + 0.3, last[1] - 0.36))
        self._extra.set_text(f"+ {emitted[-1]} (target)")
        width = int(self.depths.max()) + 2
        self.ax_tree.set_xlim(-0.8, width + 0.2)
        self.ax_tree.set_ylim(min(xy[:, 1].min(), self._root_xy[1]) - 0.7, 0.7)

        # mask and position ids
        rgb = np.ones((n, P + n, 3))
        rgb[:, :P][mask[:, :P]] = _PREFIX
        rgb[:, P:][mask[:, P:]] = _NODE
        if self.selected is not None:
            row = rgb[self.selected]
            row[:P][mask[self.selected, :P]] = _HOT_PREFIX
            row[P:][mask[self.selected, P:]] = _HOT
        self._mask_image.set_data(rgb)
        self._mask_image.set_extent((-0.5, P + n - 0.5, n - 0.5, -0.5))
        self.ax_mask.set_xlim(-0.5, P + n - 0.5)
        self.ax_mask.set_ylim(n - 0.5, -0.5)
        self.ax_mask.set_xticks(range(P + n), list(self.prefix) + [f"{t}\n#{i}" for i, t in enumerate(self.tokens)])
        self.ax_mask.set_yticks(range(n), [f"#{i} {t}" for i, t in enumerate(self.tokens)])
        self.ax_mask.set_xticks(np.arange(-0.5, P + n), minor=True)
        self.ax_mask.set_yticks(np.arange(-0.5, n), minor=True)
        self.ax_mask.grid(True, which="minor", color="0.8", lw=0.5)
        self.ax_mask.tick_params(which="minor", length=0)
        self._split.set_xdata([P - 0.5, P - 0.5])
        self._row_box.set_visible(self.selected is not None)
        if self.selected is not None:
            self._row_box.set_bounds(-0.5, self.selected - 0.5, P + n, 1.0)
        for i, text in enumerate(self._pos_texts):
            text.set_visible(i <= n)
            if i == n:
                text.set_position((P + n - 0.2, -0.5 - 0.45 * max(1.0, n / 6)))
                text.set_text("position\nid")
            elif i < n:
                text.set_position((P + n - 0.2, i))
                text.set_text(f"{int(pos[i])}")
        self.ax_mask.set_title("attention mask (rows: nodes; columns: prefix | nodes)", fontsize=10, pad=30,
                               loc="left")

        self.image.value = self.png()
        kept = " → ".join(f"#{i} {self.tokens[i]}" for i in path) or "nothing (no child matches)"
        sel = ("" if self.selected is None else
               f"Node #{self.selected} sees the prefix and nodes {self.highlighted_nodes}; "
               f"position id {int(pos[self.selected])}.<br>")
        self.readout.value = (f"{sel}Greedy walk keeps: <b>{kept}</b>; the round emits "
                              f"<b>{' '.join(emitted)}</b> ({len(emitted)} tokens: {len(path)} kept + 1 from the target).")

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def png(self) -> bytes:
        """The current drawing as PNG bytes."""
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png")
        return buffer.getvalue()


def tree_mask_explorer(**kwargs) -> TreeMaskExplorer:
    """The explorer on the example tree; display `explorer.widget` (a notebook cell ending in
    `explorer.widget` shows it)."""
    return TreeMaskExplorer(**kwargs)
