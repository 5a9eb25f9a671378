"""A feedback page as a student receives it: math drawn by the browser from MathML written at grading time, long
messages wrapped, on a phone laid out at the phone's width (nbgrader's template alone has no viewport tag: a phone drew it
980 px wide, shrunk to a third), and read in JupyterLab's HTML viewer without pressing "Trust HTML".

The page is rendered with nbgrader's own feedback template (which loads MathJax from a CDN) and rewritten by
`autograder.grading.offline_page`; every request that is not a local file is refused, as on a machine with no network."""
import re
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

from autograder.grading.offline_page import make_offline

#: The page's formulas as the browser lays them out: MathML drawn natively has display "math" (or "block math").
MATH_JS = """() => [...document.querySelectorAll('math')].map(m => [getComputedStyle(m).display, m.getBoundingClientRect().width])"""
INLINE = ("Per token: $\\min(1, p/q) = (\\min(1, 2.5), \\min(1, 0.5), \\min(1, 1), \\min(1, 0.25)) "
          "= (1, 0.5, 1, 0.25)$, the acceptance probabilities.")
LONG = "expected the acceptance rate " + "0.123456789 " * 60 + "got something else"
# A test cell as nbgrader's feedback shows it: a long grade id (its score no longer fits beside it on a
# phone), a code line wider than a phone, and a message of ordinary words.
GRADE_ID = "test_reserve_trim_random_rounds"
WIDE_LINE = "assert c.capacity(s) >= T + gamma + 1, f'seed {seed}, round {rnd}: capacity {c.capacity(s)} positions'"
WORDS = ("trim calls the course library's shorten (specdec.paged_cache); write the trim yourself. This exercise "
         "earns no points while it hands the work to shorten.")


def _wide_png() -> str:
    """A figure 1,600 px wide (base64 PNG), as chapter 03's widest: wider than a desktop page."""
    import base64
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(16, 1.5), dpi=100)
    fig.text(0.5, 0.5, "a wide figure", ha="center")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def _page(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("The ratio $p/q$ decides, and $$\\alpha = \\sum_x \\min(p(x), q(x)).$$"),
        # Inline math never breaks: on a phone this one is wider than the page (chapter 03 has it).
        nbformat.v4.new_markdown_cell(INLINE),
        nbformat.v4.new_code_cell("plt.show()", outputs=[nbformat.v4.new_output(
            "display_data", data={"image/png": _wide_png(), "text/plain": "<Figure>"})]),
        nbformat.v4.new_code_cell("assert False", outputs=[nbformat.v4.new_output(
            "error", ename="AssertionError", evalue=LONG, traceback=[f"AssertionError: {LONG}"])]),
        nbformat.v4.new_code_cell(WIDE_LINE, metadata={"nbgrader": {
            "grade": True, "solution": False, "locked": True, "grade_id": GRADE_ID, "points": 2, "score": 0}},
            outputs=[nbformat.v4.new_output("error", ename="AssertionError", evalue=WORDS,
                                            traceback=[f"AssertionError: {WORDS}"])]),
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
    math = page.evaluate(MATH_JS)
    assert len(math) == 3 and all(d in ("math", "block math") and w > 5 for d, w in math), math
    assert "$p/q$" not in page.inner_text("body") and "mathjax" not in re.sub("<!--.*?-->", "", html, flags=re.S).lower()
    assert len(html) < 400_000, f"{len(html)} bytes"         # no MathJax inlined (it was 2 MB of every page)
    # The long message wraps inside its box: nothing overflows horizontally, all its text is there.
    overflow = page.evaluate("""() => [...document.querySelectorAll('div.output_area pre')].map(p => p.scrollWidth - p.clientWidth)""")
    assert overflow and max(overflow) <= 1, overflow
    assert "got something else" in page.inner_text("body")
    # A figure wider than the page is scaled to the column: the page does not scroll sideways.
    widths = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth, document.querySelector('img').naturalWidth]")
    assert widths[2] >= 1600 and widths[0] <= widths[1], f"page, window, figure widths: {widths}"
    assert not refused, refused
    assert not [r for r in requested if not r.startswith(page_file.as_uri())], requested
    context.close()


PHONE_JS = """([gradeId, words]) => {
  const box = (e) => e.getBoundingClientRect();
  const heading = document.querySelector(`a[name="${gradeId}"]`).nextElementSibling;   // the cell's panel-heading
  const score = heading.querySelector('.pull-right');
  const message = [...document.querySelectorAll('pre')].find(p => p.textContent.includes(words));
  // A word drawn on two lines has two boxes: list the words that were cut.
  const cut = [];
  const node = [...message.querySelectorAll('*'), message].flatMap(e => [...e.childNodes]).find(n => n.nodeType === 3
      && n.textContent.includes(words));
  for (const m of node.textContent.matchAll(/[A-Za-z']{4,}/g)) {
    const r = document.createRange(); r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
    const lines = new Set([...r.getClientRects()].map(b => Math.round(b.top)));
    if (lines.size > 1) cut.push(m[0]);
  }
  const code = [...document.querySelectorAll('.input_area pre, div.highlight pre')].find(p => p.textContent.includes('capacity'));
  return {width: innerWidth, page: document.documentElement.scrollWidth,
          fontPx: parseFloat(getComputedStyle(document.querySelector('.rendered_html p')).fontSize),
          scoreInside: box(score).bottom <= box(heading).bottom + 0.5, cut: cut,
          codeRight: box(code).right, codeScrolls: code.scrollWidth > code.clientWidth};
}"""


def test_feedback_page_reads_on_a_phone(tmp_path, chromium, shots):
    """At 390 px on a phone (mobile emulation: a page with no viewport tag is laid out 980 px wide and
    shrunk), the page is as wide as the screen, its text is full size, nothing scrolls sideways but a
    code box too wide for the screen (inside itself), a test cell's score stays in its heading, and a
    message breaks between words."""
    page_file = _page(tmp_path)
    context = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                   device_scale_factor=2)
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    page = context.new_page()
    page.goto(page_file.as_uri())
    got = page.evaluate(PHONE_JS, [GRADE_ID, WORDS])
    page.screenshot(path=str(shots / "feedback_390.png"), full_page=True)
    context.close()
    assert got["width"] == 390, f"the page is laid out {got['width']} px wide on a 390 px phone (no viewport tag?)"
    assert got["page"] <= 390, f"the page scrolls sideways: {got['page']} px wide"
    assert got["fontPx"] >= 13, f"body text {got['fontPx']} px"
    assert got["codeRight"] <= 390 and got["codeScrolls"], got
    assert got["scoreInside"], "a test cell's score spills out of its heading onto the code"
    assert not got["cut"], f"words cut across two lines: {got['cut']}"


def test_feedback_page_reads_in_jupyterlab_untrusted(tmp_path, chromium, shots):
    """Opened in JupyterLab's HTML viewer, where a page is untrusted and its scripts do not run, the formulas are
    typeset (MathML the browser draws) and the summary names the exercise with its points; nobody pressed Trust."""
    from tests.browser.labserver import start_lab

    page_file = _page(tmp_path)
    server = start_lab([], tmp_path / "lab")
    try:
        (server.root / "feedback.html").write_bytes(page_file.read_bytes())
        context = chromium.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(server.url("lab/tree/feedback.html"))
        page.wait_for_selector(".jp-HTMLViewer iframe", timeout=90_000)
        frame = page.frame_locator(".jp-HTMLViewer iframe")
        frame.locator("math").first.wait_for(timeout=30_000)
        sandbox = page.locator(".jp-HTMLViewer iframe").get_attribute("sandbox") or ""
        math = frame.locator("body").evaluate(f"b => ({MATH_JS})()")
        text = frame.locator("body").inner_text()
        page.screenshot(path=str(shots / "feedback_in_lab.png"))
        context.close()
    finally:
        server.stop()
    assert "allow-scripts" not in sandbox, f"the page was trusted (sandbox {sandbox!r})"
    assert len(math) == 3 and all(d in ("math", "block math") and w > 5 for d, w in math), math
    assert "$p/q$" not in text and "\\sum" not in text, text[:500]
    assert GRADE_ID in text and "0 / 2" in text, text[:800]
