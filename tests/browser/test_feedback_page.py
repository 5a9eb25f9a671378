"""A feedback page opened offline in Chromium, alone in its folder as a student receives it: math typeset by the bundled MathJax, long messages wrapped.

The page is rendered with nbgrader's own feedback template (which loads MathJax from a CDN) and rewritten by `autograder.grading.offline_page`; every request
that is not a local file is refused, as on a machine with no network."""
import re
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

from autograder.grading.offline_page import make_offline

MATHJAX_DONE_JS = """() => window.MathJax && MathJax.startup && MathJax.startup.promise
  ? MathJax.startup.promise.then(() => true) : false"""
LONG = "expected the acceptance rate " + "0.123456789 " * 60 + "got something else"


def _page(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("The ratio $p/q$ decides, and $$\\alpha = \\sum_x \\min(p(x), q(x)).$$"),
        nbformat.v4.new_code_cell("assert False", outputs=[nbformat.v4.new_output(
            "error", ename="AssertionError", evalue=LONG, traceback=[f"AssertionError: {LONG}"])]),
    ])
    import nbgrader.converters.generate_feedback as gf
    templates = Path(gf.__file__).parent.parent / "server_extensions" / "formgrader" / "templates"
    static = (Path(gf.__file__).parent.parent / "server_extensions" / "formgrader" / "static" / "node_modules"
              / "bootstrap" / "dist" / "css")
    exporter = HTMLExporter(template_name="feedback", extra_template_basedirs=[str(templates)],
                            extra_template_paths=[str(static)])
    body, _ = exporter.from_notebook_node(nb, resources={"nbgrader": {
        "score": 0, "max_score": 1, "late_penalty": 0, "notebook": "feedback", "timestamp": None}})
    assert "cdnjs" in body          # what nbgrader's feedback pages load, unchanged
    page = tmp_path / "feedback.html"
    page.write_text(body, encoding="utf-8")
    make_offline(page)
    # What nbgrader release_feedback hands a student: the page alone, in a folder of its own.
    alone = tmp_path / "released" / "feedback.html"
    alone.parent.mkdir()
    alone.write_bytes(page.read_bytes())
    return alone


def test_feedback_math_renders_offline_and_messages_wrap(tmp_path, chromium):
    page_file = _page(tmp_path)
    html = page_file.read_text()
    assert "cdnjs" not in html and list(page_file.parent.iterdir()) == [page_file]
    # It references nothing beside it: no script, stylesheet or image by a relative address.
    assert not re.findall(r'<(?:script|img|link)[^>]+(?:src|href)="(?!data:|https?:|#)[^"]*"', html)
    context = chromium.new_context(viewport={"width": 900, "height": 700})
    refused = []
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                  else (refused.append(route.request.url), route.abort()))
    page = context.new_page()
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(page_file.as_uri())
    page.wait_for_function(MATHJAX_DONE_JS, timeout=30_000)
    assert page.locator("mjx-container").count() == 2 and page.locator("mjx-merror").count() == 0
    assert "$p/q$" not in page.inner_text("body")
    # The long message wraps inside its box: nothing overflows horizontally, all its text is there.
    overflow = page.evaluate("""() => [...document.querySelectorAll('pre')].map(p => p.scrollWidth - p.clientWidth)""")
    assert overflow and max(overflow) <= 1, overflow
    assert "got something else" in page.inner_text("body")
    assert not refused, refused
    assert not [r for r in requested if not r.startswith(page_file.as_uri())], requested
    context.close()
