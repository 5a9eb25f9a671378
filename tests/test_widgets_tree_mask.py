"""Tests for widgets.tree_mask: clicks and choices driven from Python, state checked against
specdec.trees, bad input answered in the widget, and the state synced both ways with the live
view (what Python does reaches the page's traits; what the page sends arrives in Python). The
page itself (tree_mask.js) is driven in tests/browser/; its maths in tests/test_widgets_js_tree_mask.py."""
import numpy as np

from specdec.trees import ancestors, greedy_tree_walk, tree_attention_mask
from widgets.tree_mask import EXAMPLE_PARENTS, EXAMPLE_TOKENS, SYNCED, tree_mask_explorer


def check_consistent(ex):
    mask, pos = tree_attention_mask(ex.parents, 2)
    assert np.array_equal(ex.mask, mask) and np.array_equal(ex.position_ids, pos)
    assert ex.mask.shape == (ex.n, 2 + ex.n)
    assert (ex.kept_branch, ex.emitted) == greedy_tree_walk(ex.tokens, ex.parents, ex.target_next)
    assert ex.parents_box.value == ", ".join(str(v) for v in ex.parents)
    assert ex.node_buttons.options == list(range(ex.n))
    check_synced(ex)


def check_synced(ex):
    """The view's traits (what the page draws) hold the model's state."""
    for name in SYNCED:
        want = ex.error if name == "message_error" else getattr(ex, name)
        want = list(want) if isinstance(want, (list, tuple)) else want
        assert getattr(ex.box, name) == want, f"the view's {name} is {getattr(ex.box, name)!r}, the model's {want!r}"


def test_opens_on_the_example_tree():
    ex = tree_mask_explorer()
    assert ex.parents == EXAMPLE_PARENTS and tuple(ex.tokens) == EXAMPLE_TOKENS and ex.prefix == ("The", "cat")
    assert ex.position_ids.tolist() == [2, 2, 3, 3, 3, 4]
    assert ex.selected is None and ex.highlighted_row is None and ex.message == ""
    assert ex.kept_branch == [0, 2, 5] and ex.emitted == ["sat", "on", "the", "mat"]
    assert "export default" in ex.box._esm and "./tree_mask_math.js" not in ex.box._esm   # the maths inlined
    assert ex.box.data["initial"]["parents"] == list(EXAMPLE_PARENTS)      # what reset returns to, in the page
    assert len(ex.choice_boxes) == 4                     # depths 0..2 plus the extra token's depth
    check_consistent(ex)


def test_clicking_a_node_highlights_its_row_and_ancestors():
    ex = tree_mask_explorer()
    for node in range(6):
        ex.node_buttons.value = node                     # what a click in the browser does
        assert ex.selected == node and ex.highlighted_row == node
        assert ex.highlighted_nodes == sorted(ancestors(ex.parents, node) + [node])
        assert ex.highlighted_nodes == np.flatnonzero(ex.mask[node, 2:]).tolist()
        assert f"position id {ex.position_ids[node]}" in ex.readout
        assert ex.box.selected == node                   # the page draws this row highlighted
    ex.click(None)
    assert ex.highlighted_row is None and ex.highlighted_nodes == []
    ex.click(17)
    assert "no node 17" in ex.message and ex.selected is None


def test_target_choices_move_the_kept_branch():
    ex = tree_mask_explorer()
    ex.choice_boxes[1].value = "down"                   # the target writes "down" after "sat"
    assert ex.kept_branch == [0, 3] and ex.emitted == ["sat", "down", "the"]
    ex.choose(0, "is")
    assert ex.kept_branch == [1] and ex.emitted == ["is", "down"]
    ex.choose(1, "a")
    assert ex.kept_branch == [1, 4] and ex.emitted == ["is", "a", "the"]
    ex.choose(0, "here")                                # nothing matches: the target's token alone
    assert ex.kept_branch == [] and ex.emitted == ["here"]
    assert ex.choice_boxes[0].value == "here" and ex.box.choices[0] == "here"
    check_consistent(ex)


def test_editing_the_tree():
    ex = tree_mask_explorer()
    before = ex.box
    ex.click(4)
    ex.token_box.value = "here"
    ex.add_button.click()                               # a child of the selected node
    assert ex.parents == EXAMPLE_PARENTS + (4,) and ex.tokens[-1] == "here" and ex.selected == 4
    check_consistent(ex)
    ex.click(0)
    ex.remove_button.click()                            # node 0 and its subtree go; others renumbered
    assert ex.parents == (-1, 0, 1) and ex.tokens == ["is", "a", "here"] and ex.selected is None
    check_consistent(ex)
    ex.parents_box.value, ex.tokens_box.value = "-1, 0, 1, 2, 0", "sat on the mat down"
    ex.apply_button.click()
    assert ex.parents == (-1, 0, 1, 2, 0) and ex.tokens == ["sat", "on", "the", "mat", "down"]
    assert len(ex.choice_boxes) == 5
    check_consistent(ex)
    assert ex.box is before and ex.box.parents == [-1, 0, 1, 2, 0]      # the same view, its traits updated


def test_invalid_trees_get_a_message_not_a_traceback():
    ex = tree_mask_explorer()
    for parents, tokens in [("-1, 3", None), ("0", None), ("-1, x", None), ("-1, -2", None),
                            ("", None), (", ".join(["-1"] * 13), None)]:
        ex.parents_box.value, ex.tokens_box.value = parents, tokens or ""
        ex.apply_button.click()
        assert ex.message.startswith("Invalid tree"), (parents, ex.message)
        assert ex.error and ex.box.message_error and ex.box.message == ex.message   # shown as an error
        assert ex.parents == EXAMPLE_PARENTS                 # the last valid tree stays
    ex.remove_button.click()                                 # nothing selected
    assert "Select a node" in ex.message
    ex.set_tree("-1 0 0")                                    # typed without tokens: placeholders fill in
    assert ex.message == "" and ex.tokens == ["sat", "is", "on"]


def test_a_typed_tree_keeps_the_selection_it_still_has_and_says_when_it_cannot():
    ex = tree_mask_explorer()
    ex.click(4)
    ex.parents_box.value, ex.tokens_box.value = "-1, 0, 0, 1, 1", ""
    assert ex.apply_button.click() and ex.selected == 4 and ex.box.selected == 4 and ex.message == ""
    assert ex.highlighted_nodes == [0, 1, 4] and "Node #4 sees" in ex.readout
    ex.parents_box.value, ex.tokens_box.value = "-1, 0, 1", ""
    assert ex.apply_button.click() and ex.selected is None and ex.box.selected is None and not ex.error
    assert ex.message == "Node #4 is not in the new tree (nodes 0..2): nothing is selected.", ex.message
    check_synced(ex)


def test_two_states_reach_the_view():
    """(The browser tests take the screenshots: the page draws, Python does not.)"""
    ex = tree_mask_explorer()
    ex.click(5)
    check_synced(ex)
    assert ex.box.selected == 5 and ex.box.parents == list(EXAMPLE_PARENTS)
    ex.choose(0, "is")
    ex.add_child(4, "here")
    ex.click(6)
    check_synced(ex)
    assert ex.box.tokens[-1] == "here" and ex.box.selected == 6 and ex.kept_branch == [1]


def test_what_the_page_sends_arrives_in_python():
    """The page's own actions (tree_mask_math.js) send their result as one state message; Python
    adopts it (ipywidgets' set_state is what an incoming message calls)."""
    ex = tree_mask_explorer()
    ex.box.set_state({"selected": 3, "message": ""})                    # a click on node 3 in the page
    assert ex.selected == 3 and ex.highlighted_nodes == [0, 3] and "Node #3 sees" in ex.readout
    ex.box.set_state({"parents": [-1, 0], "tokens": ["is", "a"], "selected": None, "parents_text": "-1, 0",
                      "tokens_text": "is, a", "message": "Removed node 0 (sat) and ...", "message_error": False})
    assert ex.parents == (-1, 0) and ex.tokens == ["is", "a"] and ex.selected is None
    assert ex.message.startswith("Removed node 0") and not ex.error
    ex.box.set_state({"choices": ["is"] + ex.choices[1:]})                 # a dropdown
    assert ex.kept_branch == [0] and ex.emitted == ["is", "on"]
    ex.box.set_state({"parents_text": "-1, 0, 0"})                         # typing, then apply from Python
    assert ex.apply_button.click() and ex.parents == (-1, 0, 0) and ex.tokens == ["is", "a", "w2"]
    check_synced(ex)
    # a tree the model cannot hold (only possible by writing the traits by hand) is sent back
    ex.box.set_state({"parents": [-1, 5], "tokens": ["x", "y"]})
    assert ex.parents == (-1, 0, 0) and ex.error and "cannot hold" in ex.message
    check_synced(ex)
    ex.box.set_state({"selected": 9})
    assert ex.selected is None and ex.error
    check_synced(ex)


def test_the_chapter_try_it_chain_works_with_the_tokens_box_as_it_is():
    """Chapter 08's try-it: type the chain -1, 0, 1, 2 while the tokens box still holds six tokens."""
    ex = tree_mask_explorer()
    ex.parents_box.value = "-1, 0, 1, 2"                       # the tokens box keeps sat, is, on, down, a, the
    ex.apply_button.click()
    assert ex.parents == (-1, 0, 1, 2) and ex.tokens == ["sat", "is", "on", "down"]
    assert "6 tokens for 4 nodes" in ex.message and "dropped a, the" in ex.message
    assert not ex.error and not ex.box.message_error, "a note, not an error"
    assert ex.tokens_box.value == "sat, is, on, down"
    block = ex.mask[:, len(ex.prefix):]
    assert np.array_equal(block, np.tril(np.ones((4, 4), dtype=bool))) and ex.position_ids.tolist() == [2, 3, 4, 5]
    check_consistent(ex)


def test_remove_says_it_takes_the_subtree_and_reset_restores_the_example():
    ex = tree_mask_explorer()
    assert "subtree" in ex.remove_button.description
    ex.click(0)
    assert ex.remove_node(0)
    assert ex.parents == (-1, 0) and ex.tokens == ["is", "a"]
    assert "and the 3 nodes below it: 2 (on), 3 (down), 5 (the)" in ex.message and "renumbered" in ex.message
    ex.choose(0, "here")
    ex.click(0)
    assert not ex.remove_node(0) and "every node" in ex.message and ex.parents == (-1, 0)
    ex.reset_button.click()
    assert ex.parents == EXAMPLE_PARENTS and tuple(ex.tokens) == EXAMPLE_TOKENS and ex.selected is None
    assert ex.choices[0] == "sat" and ex.kept_branch == [0, 2, 5] and "Reset" in ex.message
    check_consistent(ex)
