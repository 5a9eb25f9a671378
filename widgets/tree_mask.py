"""The tree-mask explorer: a token tree, its attention mask and position ids, and the greedy walk,
as a live widget that computes and draws in the browser (JupyterLab and the book alike).

The state and its actions are `widgets.tree_mask_model.TreeModel` (plain Python on
`specdec.trees`, the reference). This module adds the display: `TreeMaskView`, an anywidget whose
front end (`tree_mask.js`, maths in `tree_mask_math.js`, a port tested against the model) draws the
tree and the mask in SVG and performs the same actions in the page: select a node (click it, or
Enter/Space on it) to highlight its mask row and its ancestors, pick what the target writes at each
depth, add a child, remove a node with its subtree, type a tree, reset. The widget's state is synced
both ways: what the learner does in the page arrives in Python (`selected`, `parents`, `tokens`,
`choices`, `message`, ...), and every action done from Python (`click`, `choose`, the control
handles) redraws the page.

    >>> ex = tree_mask_explorer()
    >>> ex.click(5); ex.box.selected, ex.highlighted_nodes
    (5, [0, 2, 5])
    >>> ex.node_buttons.value = 3; ex.box.selected
    3
    >>> ex.parents_box.value = "-1, 0, 9"; ex.apply_button.click()
    False
    >>> ex.box.message == ex.message and ex.box.message_error
    True
"""
from __future__ import annotations

import anywidget
import traitlets

from specdec.trees import validate_parents
from widgets.live import Action, Control, es_module
from widgets.tree_mask_model import (EXAMPLE_CHOICES, EXAMPLE_PARENTS, EXAMPLE_PREFIX, EXAMPLE_TOKENS,  # noqa: F401
                                     MAX_NODES, VOCAB, TreeModel)

# The view's traits that carry the model's fields (same names on both sides, and in the JS state).
SYNCED = ("prefix", "parents", "tokens", "choices", "selected", "message", "message_error",
          "parents_text", "tokens_text", "new_token")


class TreeMaskView(anywidget.AnyWidget):
    """The synced state of the explorer; `widgets/tree_mask.js` draws it and acts on it in the page."""

    _esm = es_module("tree_mask.js")
    data = traitlets.Dict().tag(sync=True)               # vocabulary, node limit, the tree reset returns to
    prefix = traitlets.List(traitlets.Unicode()).tag(sync=True)
    parents = traitlets.List(traitlets.Int()).tag(sync=True)
    tokens = traitlets.List(traitlets.Unicode()).tag(sync=True)
    choices = traitlets.List(traitlets.Unicode()).tag(sync=True)
    selected = traitlets.Int(None, allow_none=True).tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)
    message_error = traitlets.Bool(False).tag(sync=True)
    parents_text = traitlets.Unicode("").tag(sync=True)
    tokens_text = traitlets.Unicode("").tag(sync=True)
    new_token = traitlets.Unicode("mat").tag(sync=True)


class Handle:
    """A control whose `.value =` performs an action (a node button, a depth's dropdown), as
    clicking it in the page does.

    >>> picked = []
    >>> h = Handle("node", get=lambda: None, act=picked.append)
    >>> h.value = 3; picked
    [3]
    """

    def __init__(self, description: str, get, act, options=None):
        self.description, self._get, self._act, self._options = description, get, act, options

    @property
    def value(self):
        return self._get()

    @value.setter
    def value(self, new) -> None:
        self._act(new)

    @property
    def options(self):
        return self._options() if callable(self._options) else self._options


class TreeMaskExplorer(TreeModel):
    """The model with its live view: `.box` (also `.widget`) is the anywidget to display; the
    control handles (`node_buttons`, `choice_boxes`, `token_box`, `parents_box`, `tokens_box`,
    `add_button`, `remove_button`, `reset_button`, `apply_button`) do what the page's controls do."""

    def __init__(self, parents=EXAMPLE_PARENTS, tokens=EXAMPLE_TOKENS, prefix=EXAMPLE_PREFIX,
                 choices=EXAMPLE_CHOICES):
        self._ready, self._pushing = False, False         # the model fills the view once it is built
        self.box = self.widget = TreeMaskView(data={
            "vocab": list(VOCAB), "max_nodes": MAX_NODES,
            "initial": {"parents": list(parents), "tokens": list(tokens), "choices": list(choices)}})
        super().__init__(parents, tokens, prefix, choices)
        view = self.box
        self.node_buttons = Handle("node", lambda: self.selected, self.click, options=lambda: list(range(self.n)))
        self.token_box = Control(view, "new_token", "new token")
        self.parents_box = Control(view, "parents_text", "parents")
        self.tokens_box = Control(view, "tokens_text", "tokens")
        self.add_button = Action("add child to selected", lambda: self.add_child(self.selected, self.new_token),
                                 tooltip="adds a node under the selected one (under the prefix if none is selected)")
        self.remove_button = Action("remove selected + subtree", lambda: self.remove_node(self.selected),
                                    tooltip="removes the selected node and every node below it")
        self.reset_button = Action("reset", self.reset,
                                   tooltip="back to the example tree and the default target choices")
        self.apply_button = Action("apply", self.apply, tooltip="builds the tree typed in the parents and tokens boxes")
        view.observe(self._pull, names=list(SYNCED))
        self._ready = True
        self._changed()

    @property
    def choice_boxes(self) -> list[Handle]:
        """One dropdown per depth that matters (the tree's depths and the extra token's)."""
        return [Handle(f"depth {d}", lambda d=d: self.choices[d], lambda token, d=d: self.choose(d, token),
                       options=lambda: self.choice_options) for d in range(self.levels)]

    # --- sync: Python -> page after every action; page -> Python after every change there ------
    def _changed(self) -> None:
        if not self._ready:
            return                                        # still building: the first push comes at the end
        view, self._pushing = self.box, True
        try:
            with view.hold_sync():
                for name in SYNCED:
                    setattr(view, name, self._field(name))
        finally:
            self._pushing = False

    def _field(self, name: str):
        if name == "message_error":
            return self.error
        value = getattr(self, name)
        return list(value) if isinstance(value, (list, tuple)) else value

    def _pull(self, _change=None) -> None:
        """Adopt what the page sent (its own port of the same actions computed it). A tree the model
        would not hold (possible only when the view's traits are written by hand) is sent back."""
        if self._pushing:
            return
        view = self.box
        try:
            parents = [int(v) for v in validate_parents(view.parents)]
            ok = 1 <= len(parents) <= MAX_NODES and len(view.tokens) == len(parents) \
                and len(view.choices) == len(self.choices) \
                and (view.selected is None or 0 <= view.selected < len(parents))
        except ValueError:
            ok = False
        if not ok:
            self._say("Invalid tree: the page sent a tree the explorer cannot hold. The tree shown is unchanged.",
                      error=True)
            return
        self.parents, self.tokens, self.choices = tuple(parents), list(view.tokens), list(view.choices)
        self.selected, self.message, self.error = view.selected, view.message, view.message_error
        self.parents_text, self.tokens_text, self.new_token = view.parents_text, view.tokens_text, view.new_token

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)


def tree_mask_explorer(**kwargs) -> TreeMaskExplorer:
    """The explorer on the example tree; a notebook cell ending in `explorer` (or `explorer.box`) shows it."""
    return TreeMaskExplorer(**kwargs)
