"""The course book (`./course book`), built and read in Chromium with the network off.

Every chapter page loads from files alone (any request to another host fails the test), its math
is typeset by the bundled MathJax (no raw `$...$` left, no MathJax error), every image the executed
chapter shows is on the page and loaded, each widget appears as a picture of its initial state with
the line saying it is interactive in JupyterLab, and no page holds a line of solution code or of a
hidden test (the whole-line scan of the bundle's leak check). The site comes from
`tests/browser/book_site.py`: built once for this checkout, whichever test process asks first,
reusing the chapters book/executed.py already ran. Layout, accessibility and search:
tests/browser/test_book_layout.py.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import html
import re
from pathlib import Path

import pytest

from autograder import notebooks
from autograder.paths import CHAPTERS_DIR, SOLUTIONS_DIR
from autograder.grading.feedback import MIN_LINE, hidden_lines
from book.pages import WIDGET_STATE, WIDGET_VIEW
from tests.browser.conftest import VIEWPORT
from tests.helpers import CHAPTERS

pytestmark = pytest.mark.slow          # builds the site (and runs the chapters no earlier test ran)

_SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)
RAW_MATH = re.compile(r"\$\$|(?<![\w\\])\$[^$\n]{1,200}\$(?!\w)")

VISIBLE_TEXT_JS = """() => {
  const root = (document.querySelector('article') || document.body).cloneNode(true);
  root.querySelectorAll('pre, code, script, style, mjx-container, .cell_output').forEach(e => e.remove());
  return root.textContent;
}"""
OUTPUT_IMAGES_JS = """() => [...document.querySelectorAll('article .cell_output img')].map(img =>
  ({src: img.getAttribute('src'), loaded: img.complete && img.naturalWidth > 0}))"""
MATHJAX_DONE_JS = """() => window.MathJax && MathJax.startup && MathJax.startup.promise
  ? MathJax.startup.promise.then(() => true) : false"""


@pytest.fixture(scope="module")
def book():
    from tests.browser.book_site import built_book

    return built_book()


@pytest.fixture(scope="module")
def reader(chromium):
    """A page in a browser context that may read files and nothing else (book_site.offline_context):
    every other request is aborted and listed in `reader.refused`, script errors in `reader.errors`."""
    from tests.browser.book_site import offline_context

    context, page = offline_context(chromium, VIEWPORT["width"], VIEWPORT["height"])
    try:
        yield page
    finally:
        context.close()


def _executed(name):
    from book.executed import cached

    run = cached(CHAPTERS_DIR / f"{name}.ipynb")
    assert run is not None, f"{name}: the build did not leave its executed copy in the cache"
    return run.notebook


def _widget_images(nb) -> list[bytes]:
    """The PNGs of the Image widgets in an executed notebook's saved widget state."""
    state = (nb.metadata.get("widgets") or {}).get(WIDGET_STATE, {}).get("state", {})
    return [base64.b64decode(b["data"]) for m in state.values() if m.get("model_name") == "ImageModel"
            for b in m.get("buffers", []) if b.get("path") == ["value"]]


def _shown_code_cells(nb) -> list:
    """Code cells the book shows: MyST-NB leaves out cells tagged `remove-cell` (the Check my work button)."""
    return [c for c in nb.cells if c.cell_type == "code" and "remove-cell" not in c.metadata.get("tags", [])]


def _expected_images(nb) -> int:
    outputs = [o for c in _shown_code_cells(nb) for o in c.get("outputs", [])]
    plain = sum(1 for o in outputs for k in o.get("data", {}) if k in ("image/png", "image/jpeg", "image/svg+xml"))
    return plain + len(_widget_images(nb))


def _widget_views(nb) -> int:
    """Widgets the page shows as pictures (a live anywidget runs in the page instead: book/live_widgets.py)."""
    from book.live_widgets import is_live

    models = (nb.metadata.get("widgets") or {}).get(WIDGET_STATE, {}).get("state", {})
    return sum(1 for c in _shown_code_cells(nb) for o in c.get("outputs", []) if WIDGET_VIEW in o.get("data", {})
               and not is_live(o["data"][WIDGET_VIEW]["model_id"], models))


@functools.lru_cache(maxsize=1)
def _secret_lines() -> frozenset[str]:
    """Lines of solution code and of hidden tests (long enough to matter) that no student notebook shows."""
    secret, visible = set(), set()
    for name in CHAPTERS:
        code = [c.source for c in notebooks.read(SOLUTIONS_DIR / f"{name}.ipynb").cells if c.cell_type == "code"]
        secret |= hidden_lines(code)
        secret |= {ln.strip() for src in code for block in _SOLUTION.findall(src) for ln in block.splitlines()
                   if len(ln.strip()) >= MIN_LINE}
        visible |= {ln.strip() for c in notebooks.read(CHAPTERS_DIR / f"{name}.ipynb").cells for ln in c.source.splitlines()}
    return frozenset(secret - visible)


def _plain(text: str) -> set[str]:
    return {ln.strip() for ln in html.unescape(re.sub(r"<[^>]+>", "", text)).splitlines()}


def _open(page, path: Path) -> None:
    page.goto(path.as_uri())
    page.wait_for_load_state("load")


def test_the_build_reuses_the_executed_chapters_and_loads_nothing_from_elsewhere(book):
    from book.build import external_references

    assert sorted(book.executed + book.reused) == CHAPTERS
    assert not external_references(book.site)
    assert (book.site / "_static" / "mathjax" / "tex-chtml.js").is_file()
    print(f"book: {book.seconds:.0f} s (Sphinx {book.sphinx_seconds:.0f} s), executed {book.executed or 'none'}")


def test_the_built_book_has_the_instructors_part(book):
    """docs/'s instructor pages (book/instructor_pages.py) are pages of the site, in every page's menu."""
    from book.instructor_pages import INSTRUCTOR_PAGES, PART_CAPTION

    assert [n for n in INSTRUCTOR_PAGES if not (book.site / f"{n}.html").is_file()] == []
    menu = (book.site / "01_cost_model.html").read_text(encoding="utf-8")
    assert PART_CAPTION in menu and all(f'href="{n}.html"' in menu for n in INSTRUCTOR_PAGES)


def test_start_page_maps_the_course_and_search_works_offline(book, reader, shots):
    _open(reader, book.site / "index.html")
    links = reader.evaluate("() => [...document.querySelectorAll('article a')].map(a => a.getAttribute('href'))")
    assert [f"{name}.html" for name in CHAPTERS] == [h for h in dict.fromkeys(links) if h and h.endswith(".html")
                                                     and h[:2].isdigit()]
    reader.screenshot(path=str(shots / "book_index.png"))
    # A first visit starts in a colour mode the theme knows (book/conf.py's default_mode), not in ""
    assert not [e for e in reader.console_errors if "theme mode" in e], reader.console_errors
    reader.goto((book.site / "search.html").as_uri() + "?q=acceptance")
    reader.wait_for_selector("#search-results li", timeout=30_000)
    hits = reader.evaluate("() => [...document.querySelectorAll('#search-results li a')].map(a => a.getAttribute('href'))")
    assert any("03_acceptance_rule" in h for h in hits), hits
    assert not reader.refused, reader.refused


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_page(book, reader, shots, name):
    nb = _executed(name)
    page_file = book.site / f"{name}.html"
    reader.goto("about:blank")
    reader.refused.clear()
    reader.errors.clear()
    _open(reader, page_file)
    assert reader.title(), f"{name}: no title"

    # Math: typeset by the bundled MathJax, nothing left raw, no MathJax error.
    has_math = any("$" in c.source for c in nb.cells if c.cell_type == "markdown")
    if has_math:
        assert reader.evaluate(MATHJAX_DONE_JS), f"{name}: MathJax did not load"
        assert reader.locator("mjx-container").count() > 0, f"{name}: no typeset math"
        assert reader.locator("mjx-merror").count() == 0, f"{name}: MathJax errors"
        raw = RAW_MATH.findall(reader.evaluate(VISIBLE_TEXT_JS))
        assert not raw, f"{name}: raw math left in the text: {raw[:5]}"

    # Figures: every image the executed chapter shows (outputs and widget pictures), all loaded.
    images = reader.evaluate(OUTPUT_IMAGES_JS)
    assert all(i["loaded"] for i in images), f"{name}: images that did not load: {[i for i in images if not i['loaded']]}"
    assert len(images) == _expected_images(nb), f"{name}: {len(images)} images on the page, {_expected_images(nb)} in the chapter"
    shown = {hashlib.sha256((page_file.parent / i["src"]).read_bytes()).hexdigest() for i in images}
    for png in _widget_images(nb):
        assert hashlib.sha256(png).hexdigest() in shown, f"{name}: a widget's picture is missing"
    notes = reader.locator(".course-widget-note").all_inner_texts()
    assert len(notes) == _widget_views(nb) and all("Interactive in JupyterLab" in t for t in notes), notes

    # The exercises as a learner sees them: no solution line, no hidden test line.
    text = _plain(page_file.read_text(encoding="utf-8")) | {ln.strip() for ln in reader.inner_text("body").splitlines()}
    secret = _secret_lines()
    assert len(secret) > 50, "the scan has nothing to look for"
    assert not text & secret, f"{name}: {sorted(text & secret)[:3]}"
    stubs = [c for c in nb.cells if c.cell_type == "code" and "raise NotImplementedError" in c.source]
    if stubs:                                  # the scan reads code: the learner's stub lines are there
        assert any("raise NotImplementedError" in ln for ln in text), f"{name}: the exercise stubs are missing"
    if name in ("06_batching", "08_token_trees"):
        reader.screenshot(path=str(shots / f"book_{name}.png"), full_page=False)
    assert not reader.refused, f"{name}: requests to other hosts: {reader.refused}"
    assert not reader.errors, f"{name}: script errors on the page: {reader.errors[:3]}"


def test_no_file_of_the_site_holds_solution_or_hidden_test_code(book):
    secret = _secret_lines()
    found = [f"{p.relative_to(book.site)}: {line[:80]}" for p in sorted(book.site.rglob("*"))
             if p.suffix in (".html", ".js", ".txt", ".ipynb", ".json") and "mathjax" not in p.parts
             for line in sorted(_plain(p.read_text(encoding="utf-8", errors="replace")) & secret)]
    assert not found, found[:10]


def test_chapters_06_and_08_show_the_speedup_curve_and_the_tree_mask(book, reader, shots):
    # both figures are live on their pages, not pictures (tests/browser/test_live_widgets.py drives them)
    for name, widget, css in (("06_batching", "widgets.batch_speedup", "course-batch-speedup"),
                              ("08_token_trees", "widgets.tree_mask", "course-tree-mask")):
        nb = _executed(name)
        cell = next(c for c in nb.cells if c.cell_type == "code" and widget in c.source)
        assert any(WIDGET_VIEW in o.get("data", {}) for o in cell.outputs), f"{name}: the {widget} cell shows no widget"
        _open(reader, book.site / f"{name}.html")
        live = reader.locator(f".course-live-widget[data-mounted=yes] .{css} svg").first
        live.wait_for(timeout=30_000)
        live.screenshot(path=str(shots / f"book_{name}_widget.png"))


def _page_text(book, name: str) -> str:
    """The text of a page's article (scripts and styles left out)."""
    from book.search_text import article_text

    return html.unescape(article_text((book.site / f"{name}.html").read_text(encoding="utf-8")))


def test_pages_show_a_new_readers_run_not_the_test_suites(book):
    """Chapter 13 runs for the book with an empty progress log (book/executed.py), whatever log the
    process building it uses (the suite's is /tmp/course-test-progress-...)."""
    text = _page_text(book, "13_interview_drills")
    assert "course-test-progress" not in text
    assert "No drills recorded yet" in text and re.search(r"\b0 drills recorded\b", text), \
        "chapter 13's progress section does not show an empty log"


def test_widget_pictures_show_only_what_the_widget_shows_at_start(book):
    for name in CHAPTERS:
        page = (book.site / f"{name}.html").read_text(encoding="utf-8")
        for note in re.findall(r'<p class="course-widget-note">(.*?)</p>', page, re.S):
            assert not re.search(r"= ;|= \.", html.unescape(note)), f"{name}: an empty field in {note[-200:]}"
        readouts = [html.unescape(re.sub(r"<[^>]+>", "", r)).strip()
                    for r in re.findall(r'<div class="course-widget-readout">(.*?)</div>', page, re.S)]
        assert not any(r.startswith("Worked answer") for r in readouts), f"{name}: a hidden worked answer is shown"
        assert not any(r.rstrip("\xa0 ") == "target writes" for r in readouts), f"{name}: a caption dangles alone"


def test_reader_text_fits_a_web_page(book):
    for name in CHAPTERS:
        text = _page_text(book, name)
        assert "in the last cell of this notebook" not in text, f"{name}: points at a button the page does not have"
        notes = [html.unescape(re.sub(r"<[^>]+>", "", n)) for n in re.findall(
            r'<p class="course-test-note">(.*?)</p>', (book.site / f"{name}.html").read_text(encoding="utf-8"), re.S)]
        # (an assertion's own message may quote the stub's; the note's words must not add to it)
        assert not any(".;" in n for n in notes), f"{name}: {notes[:2]}"
        assert not any("NotImplementedError" in n and "hints below" in n and "AssertionError" not in n
                       for n in notes), f"{name}: {notes[:2]}"
        if notes:                             # the full note once per exercise, a short line after it
            assert len(notes[1:]) == 0 or min(map(len, notes)) < len(notes[0]), f"{name}: {notes[:3]}"


def test_readers_can_get_the_course_and_see_its_version(book):
    from autograder.paths import REPO_ROOT
    import tomllib
    import zipfile

    version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
    for name in CHAPTERS + ["index", "references"]:
        page = (book.site / f"{name}.html").read_text(encoding="utf-8")
        assert f"version {version} (" in page and re.search(r"\d{4}-\d\d-\d\d\)", page), f"{name}: no version and date"
        assert 'href="downloads/speculative-decoding-course.zip"' in page, f"{name}: no link to the course"
        assert "genindex" not in page, f"{name}: links the (empty) index"
        assert '_static/copybutton.js' in page, f"{name}: no copy buttons on its code"
        if name in CHAPTERS:
            assert f'href="downloads/{name}.ipynb"' in page, f"{name}: no link to its notebook"
            assert (book.site / "downloads" / f"{name}.ipynb").read_bytes() == (CHAPTERS_DIR / f"{name}.ipynb").read_bytes()
    assert (book.site / "_static" / "copybutton.js").is_file()
    with zipfile.ZipFile(book.site / "downloads" / "speculative-decoding-course.zip") as z:
        names = z.namelist()
    assert all(any(n.endswith(f"chapters/{c}.ipynb") for n in names) for c in CHAPTERS), names[:20]
    assert not any("/solutions/" in n for n in names), "the course zip holds solutions"


def test_citations_link_to_the_references_page(book):
    refs = (book.site / "references.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="(ref-[\w-]+)"', refs))
    assert len(re.findall(r'href="https://(?:arxiv\.org/abs|doi\.org)/', refs)) >= 20
    cited = [(name, a) for name in CHAPTERS for a in re.findall(r'href="references\.html#(ref-[\w-]+)"',
                                                               (book.site / f"{name}.html").read_text(encoding="utf-8"))]
    assert len({name for name, _ in cited}) >= 10, "most chapters link no citation"
    assert not [c for c in cited if c[1] not in anchors], [c for c in cited if c[1] not in anchors][:5]


def test_chapter_12_shows_the_recorded_sweep_over_gamma(book):
    """The book runs chapter 12 with the short preset (one gamma); its first cell shows the recorded
    full run's sweep, as a table and as a figure, which the prose describes."""
    from specdec.engine.lab_record import recorded_full_run

    record = recorded_full_run()
    assert record is not None and len(record["per_gamma"]) >= 3
    page = (book.site / "12_gpt2_lab.html").read_text(encoding="utf-8")
    assert re.search(r'<img alt="Figure: Recorded full CPU run[^"]*against gamma', page), \
        "12_gpt2_lab: no figure of the recorded sweep over gamma"
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    for r in record["per_gamma"]:
        assert re.search(rf"^\s*{r['gamma']}\s+{r['n_bar']:.2f}\s+{r['n_bar_predicted']:.2f}\s+{r['speedup_median']:.2f}",
                         text, re.M), f"12_gpt2_lab: the recorded row for gamma = {r['gamma']} is not on the page"
    assert "preset: 'test'" in text, "the book's chapter 12 is expected to run the short preset"
