"""The live figures on the built book, read offline from file:// (every other request refused): the
page renders the widget from the state saved in the executed chapter, and what it shows after a slider
moves, a hover and a click is what Python's reference (widgets/, on specdec) says for that setting."""
from __future__ import annotations

import re

import pytest

from tests.browser.conftest import VIEWPORT

pytestmark = pytest.mark.slow          # builds the site (tests/browser/book_site.py), shared with test_book.py


@pytest.fixture(scope="module")
def book():
    from tests.browser.book_site import built_book

    return built_book()


def _offline_page(chromium, width: int):
    context = chromium.new_context(viewport={"width": width, "height": VIEWPORT["height"]})
    context.set_default_timeout(30_000)
    refused, errors = [], []

    def route(r):
        if r.request.url.startswith(("file://", "blob:", "data:")):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, refused, errors


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
