"""The live figures on the built book, read offline from file:// (every other request refused): the
page renders the widget from the state saved in the executed chapter, and what it shows after a slider
moves, a hover and a click (chapter 06), or a node is selected and a tree typed (chapter 08), is what
Python's reference (widgets/, on specdec) says for that setting."""
from __future__ import annotations

import re

import pytest

from tests.browser.book_site import offline_context
from tests.browser.conftest import VIEWPORT

pytestmark = pytest.mark.slow          # builds the site (tests/browser/book_site.py), shared with test_book.py


@pytest.fixture(scope="module")
def book():
    from tests.browser.book_site import built_book

    return built_book()


def _offline_page(chromium, width: int):
    """(context, page, refused requests, page errors) of book_site.offline_context at `width` px."""
    context, page = offline_context(chromium, width, VIEWPORT["height"])
    return context, page, page.refused, page.errors


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<br>", " ", re.sub(r"</?b>", "", text))).strip()


@pytest.mark.parametrize("width", [1280, 390])
def test_speedup_curve_is_live_on_the_book_page(book, chromium, shots, width):
    from widgets.batch_speedup import batch_speedup_widget

    context, page, refused, errors = _offline_page(chromium, width)
    try:
        page.goto((book.site / "06_batching.html").as_uri())
        root = page.locator(".course-live-widget[data-mounted=yes] .course-batch-speedup")
        root.wait_for(timeout=30_000)
        root.scroll_into_view_if_needed()
        figure = root.locator("svg").first
        fig_box, column = figure.bounding_box(), page.locator("article").first.bounding_box()
        assert fig_box["width"] <= column["width"] + 1, f"the figure ({fig_box['width']:.0f} px) overflows the column"
        assert fig_box["width"] >= min(300, column["width"] - 40), "the figure does not use the column"

        python = batch_speedup_widget()                     # the chapter's cell builds the default widget
        assert _plain(root.locator("[data-part=readout]").inner_text()) == _plain(python.readout.value)

        # the keyboard moves the context slider to 2^9 = 512 tokens (12 quarter-doublings from 64)
        root.get_by_role("slider", name="context T̄").focus()
        for _ in range(12):
            page.keyboard.press("ArrowRight")
        python.context.value = 512
        assert root.locator("output[data-readout=context]").text_content() == "512"
        assert _plain(root.locator("[data-part=readout]").inner_text()) == _plain(python.readout.value)

        # a dropdown: two GPUs of another kind
        root.get_by_label("GPU", exact=True).select_option("H200")
        root.get_by_label("GPUs", exact=True).select_option("2")
        python.gpu.value, python.n_gpu.value = "H200", 2
        assert _plain(root.locator("[data-part=readout]").inner_text()) == _plain(python.readout.value)

        # hover, then click: the batch under the pointer becomes the reader's
        area = root.locator("[data-part=plot-area]").bounding_box()
        x, y = area["x"] + area["width"] * 0.75, area["y"] + area["height"] * 0.5
        page.mouse.move(x, y)
        hover = root.locator("[data-part=hover-readout]")
        B = int(hover.get_attribute("data-batch"))
        assert f"B = {B}: speedup {python.curve.speedup_at(B):.2f}×" in hover.inner_text()
        page.mouse.click(x, y)
        python.batch.value = B
        assert _plain(root.locator("[data-part=readout]").inner_text()) == _plain(python.readout.value)
        page.screenshot(path=str(shots / f"book_06_live_speedup_{width}.png"), full_page=False)

        # a refusal reads as Python's message: GPT-2 at 4,096 tokens, past its 1,024
        root.get_by_role("slider", name="context T̄").focus()
        for _ in range(12):
            page.keyboard.press("ArrowRight")
        root.get_by_label("model", exact=True).select_option("gpt2")
        python.context.value, python.model.value = 4096, "gpt2"
        assert python.curve is None and python.message.value
        assert root.locator("[data-part=message]").inner_text() == python.message.value
        assert root.locator("[data-part=readout]").inner_text() == ""
    finally:
        context.close()
    assert not refused, f"requests to other hosts: {refused}"
    assert not errors, f"script errors: {errors[:3]}"


@pytest.mark.parametrize("width", [1280, 390])
def test_tree_mask_explorer_is_live_on_the_book_page(book, chromium, shots, width):
    """Chapter 08's explorer on the page: a node clicked and one reached by keyboard highlight the
    mask row specdec computes; a typed tree, a bad one, a removal and a reset say what Python says."""
    from specdec.trees import tree_attention_mask
    from widgets.tree_mask import tree_mask_explorer

    context, page, refused, errors = _offline_page(chromium, width)
    try:
        page.goto((book.site / "08_token_trees.html").as_uri())
        root = page.locator(".course-live-widget[data-mounted=yes] .course-tree-mask")
        root.wait_for(timeout=30_000)
        root.scroll_into_view_if_needed()
        column = page.locator("article").first.bounding_box()
        for part in ("tree", "mask"):
            figure = root.locator(f"svg[data-part={part}]")
            box = figure.bounding_box()
            assert box["width"] <= column["width"] + 1, f"the {part} ({box['width']:.0f} px) overflows the column"
            scale = figure.evaluate("svg => svg.getBoundingClientRect().width / svg.viewBox.baseVal.width")
            assert 12 * scale >= 11, f"the {part}'s 12-unit text shows at {12 * scale:.1f} px"

        python = tree_mask_explorer()
        python.click(5)                                     # what the chapter's cell does before showing it

        def same(what):
            readout = _plain(root.locator("[data-part=readout]").inner_text())
            assert readout == _plain(python.readout), f"{what}: the page says {readout!r}, Python {python.readout!r}"
            message = root.locator("[data-part=message]")
            assert message.inner_text().strip() == python.message, f"{what}: the messages differ"
            assert (message.get_attribute("data-kind") == "error") == python.error, f"{what}: error or not"
            assert root.locator("[data-node]").count() == python.n
            row = root.locator("[data-row][data-highlighted=true] rect").evaluate_all("rs => rs.map(r => r.dataset.seen)")
            want = [] if python.selected is None else [
                "1" if v else "0" for v in tree_attention_mask(python.parents, len(python.prefix))[0][python.selected]]
            assert row == want, f"{what}: the page highlights {row}, specdec's mask row is {want}"

        same("as the chapter leaves it")
        root.locator("[data-node='3']").click()
        python.click(3)
        same("node 3 clicked")
        page.keyboard.press("Tab")                          # the next node, 4, by keyboard
        page.keyboard.press("Enter")
        python.click(4)
        same("node 4 selected by keyboard")
        title = root.locator("[data-node='4'] > title").text_content()
        assert f"position id {int(python.position_ids[4])}" in title, f"hovering node 4 reads {title!r}"
        page.screenshot(path=str(shots / f"book_08_live_tree_mask_{width}.png"), full_page=False)

        parents = root.get_by_label("parents", exact=True)
        parents.fill("-1, 0, 1, 2")                         # the chapter's try-it: a chain
        parents.press("Enter")
        python.parents_box.value = "-1, 0, 1, 2"
        python.apply_button.click()
        same("the chain typed")
        parents.fill("-1, x")
        root.get_by_role("button", name="apply", exact=True).click()
        python.parents_box.value = "-1, x"
        python.apply_button.click()
        assert python.error and "whole numbers" in python.message
        same("a parent array that is not numbers")
        root.locator("[data-node='1']").click()
        root.get_by_role("button", name="remove selected + subtree").click()
        python.click(1)
        python.remove_button.click()
        same("node 1 removed with its subtree")
        root.get_by_role("button", name="reset", exact=True).click()
        python.reset_button.click()
        same("reset")
    finally:
        context.close()
    assert not refused, f"requests to other hosts: {refused}"
    assert not errors, f"script errors: {errors[:3]}"
