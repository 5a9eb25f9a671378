"""The book as a reader meets it: in Chromium, offline (every request that is not a file refused), on a
phone (390 px) and on a desktop (1280 px), in light and dark mode.

* one header: one search field, and the menu button opens the chapter list (390 px) or collapses
  the sidebar (1280 px); the "Contents" button opens the page's contents on a phone;
* every page fits the screen, and on every chapter page no `pre` block scrolls sideways (but a printed
  table: its rows never wrap, it is scaled down to `MIN_TABLE_SCALE` and then scrolls in its box, which
  a keyboard can reach and a note announces; at 390 and 1280 px), no `pre` block or figure reaches
  past the column, and a formula wider than the column is scaled down to fit (book/static/course.js,
  to `MIN_MATH_SCALE` at least), none is so wide that it still scrolls in its box (a chapter splits
  such a formula), and no formula that fits has a scroll bar;
* figures are legible at 1280 px: shown at no less than `MIN_SCALE` of their drawn size, their smallest
  text at least `MIN_TEXT_PX` tall (its height in the image, `data-text-px`, times the scale the image
  is shown at); each has alt text saying what it shows and links to its full-size image; at 390 px a
  figure is scaled down to the column (the chapters draw them at most 6.5 in wide, specdec/plotting.py)
  and a tap opens it full size;
* axe-core reports no critical and no serious violation on any page, in light and dark mode;
* search works from files: results quote the page, nothing fails to load, math is typeset.

Screenshots of every page at both widths go to the screenshot folder (printed at the end).
axe-core is installed by `./course test` where npm is present (into build/npm/, ignored by git);
without it the accessibility test skips and says how to install it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest

from book.build import BOOK_DIR
from book.instructor_pages import INSTRUCTOR_PAGES
from tests.browser.book_site import AXE, built_book, offline_context
from tests.helpers import CHAPTERS

pytestmark = pytest.mark.slow

WIDTHS = (390, 1280)
MIN_SCALE = 0.6        # a 10-point label drawn at the book's size stays >= about 11 px on screen
MIN_TEXT_PX = 11.0     # a figure's smallest text at 1280 px, in CSS px (9 pt drawn at 100 dpi: 12.5 px)
OTHER_PAGES = ("index", "references", "search")
# A formula wider than the column is scaled down to this share of its size (book/static/course.js);
# what still does not fit would scroll inside its box, and the layout test fails on it.
MIN_MATH_SCALE = float(re.search(r"MIN_MATH_SCALE = ([\d.]+)",
                                 (BOOK_DIR / "static" / "course.js").read_text(encoding="utf-8")).group(1))
# A printed table wider than the column is scaled down to this share of its size first (course.js).
MIN_TABLE_SCALE = float(re.search(r"MIN_TABLE_SCALE = ([\d.]+)",
                                  (BOOK_DIR / "static" / "course.js").read_text(encoding="utf-8")).group(1))

LAYOUT_JS = """(minScale) => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const column = article.getBoundingClientRect();
  const shown = (e) => e.offsetParent !== null && e.getBoundingClientRect().width > 0;
  const pres = [...article.querySelectorAll('pre')].filter(shown);
  const figures = [...article.querySelectorAll('img')].filter(shown);
  const past = (e) => e.getBoundingClientRect().right > column.right + 1;
  return {
    page: document.documentElement.scrollWidth, screen: window.innerWidth, pres: pres.length,
    // a printed table scrolls in its box on purpose (course.js); test_printed_tables_keep_their_rows_... checks it
    scrolling: pres.filter(p => p.scrollWidth > p.clientWidth + 1 && !p.classList.contains('course-table'))
      .map(p => p.textContent.slice(0, 60)),
    wide: [...pres, ...figures].filter(past).map(e => e.tagName + ': ' + (e.alt || e.textContent).slice(0, 60)),
    contents: [...document.querySelectorAll('.bd-sidebar-secondary')].filter(shown)
      .filter(s => s.scrollWidth > s.clientWidth + 1).length,
    // a formula that scrolls in its box: not shrunk (the page script failed), or too wide even at minScale
    math: [...article.querySelectorAll('mjx-container')].filter(shown)
      .filter(m => m.scrollWidth > m.clientWidth + 3)
      .map(m => ({text: (m.getAttribute('aria-label') || m.textContent).slice(0, 60),
                  shrunk: parseFloat(m.dataset.courseScale) <= minScale + 1e-3,
                  display: m.getAttribute('display') === 'true'})),
    // MathJax's hidden copy for screen readers, wider than its formula, gave every formula a scroll bar
    hidden_copies: [...article.querySelectorAll('mjx-container')].filter(shown).filter(m => {
      const copy = m.querySelector('mjx-assistive-mml');
      return copy && copy.getBoundingClientRect().width > m.clientWidth + 1; }).map(m => m.textContent.slice(0, 60)),
  };
}"""
# The contrast of the book's own notes against what is really behind them (axe-core leaves text on
# some nested backgrounds as "incomplete"): WCAG's ratio, >= 4.5 for body text.
NOTE_CONTRAST_JS = """() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const behind = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3); } return [255, 255, 255]; };
  return [...document.querySelectorAll('.course-test-note, .course-widget-note, .course-get')].map(e => {
    const a = lum(rgb(getComputedStyle(e).color).slice(0, 3)), b = lum(behind(e));
    return {text: e.textContent.slice(0, 50), ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)};
  }).filter(n => n.ratio < 4.5);
}"""
AXE_JS = """() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => `${v.id} (${v.impact}): ${v.nodes.length} nodes, e.g. ${v.nodes[0].html.slice(0, 100)}`))"""


@pytest.fixture(scope="module")
def book():
    return built_book()


def _context(chromium, width: int, mode: str = "light"):
    """(context, page) at `width` px, offline (book_site.offline_context), in light or dark mode."""
    return offline_context(chromium, width, mode=mode)


def _open(page, path) -> None:
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.wait_for_function("() => !window.MathJax || !MathJax.startup || !MathJax.startup.promise "
                           "|| MathJax.startup.promise.then(() => true)")


PAGES = CHAPTERS + list(OTHER_PAGES) + list(INSTRUCTOR_PAGES)   # the "For instructors" part too


@dataclass
class Visit:
    """What every page showed at one width and colour mode: `pages[name]` holds each probe's answer
    (`layout`, `figures`, `tables`, `axe`, `note_contrast`, `theme`; `error` if a probe failed there),
    `refused` every request the offline browser refused on the way."""

    width: int
    mode: str
    pages: dict[str, dict] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)

    def probe(self, name: str, key: str):
        got = self.pages[name]
        assert "error" not in got, f"{name} at {self.width} px ({self.mode}): {got['error']}"
        return got[key]


@pytest.fixture(scope="module")
def visits(book, chromium, shots):
    """visits(width, mode) -> the `Visit` of every page at that width and mode. Each page is opened once
    per width and mode and every read-only check's probe runs on that one load (a chapter page takes
    seconds to load and typeset); the tests then read the answers. Interactions (the menu, search) open
    their own pages."""
    done: dict[tuple[int, str], Visit] = {}

    def visit(width: int, mode: str = "light") -> Visit:
        if (width, mode) not in done:
            done[(width, mode)] = _visit(book, chromium, shots, width, mode)
        return done[(width, mode)]
    return visit


def _visit(book, chromium, shots, width: int, mode: str) -> Visit:
    seen = Visit(width, mode)
    context, page = _context(chromium, width, mode)
    try:
        for name in PAGES:
            _open(page, book.site / f"{name}.html")
            try:
                seen.pages[name] = _probe(page, name, width, mode, shots)
            except Exception as exc:          # noqa: BLE001 - one page's failure is reported by the tests reading it
                seen.pages[name] = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        seen.refused = list(page.refused)
    finally:
        context.close()
    return seen


def _probe(page, name: str, width: int, mode: str, shots) -> dict:
    """Every probe of one open page: layout, figures and tables in light mode; axe-core and the notes'
    contrast at 1280 px (both modes); then the screenshots (they scroll the page)."""
    got = {"theme": page.evaluate("document.documentElement.dataset.theme")}
    if mode == "light":
        got["layout"] = page.evaluate(LAYOUT_JS, MIN_MATH_SCALE)
        got["copy_buttons"] = page.locator("button.copybtn").count()
        if name in CHAPTERS:
            got["figures"] = page.evaluate(FIGURES_JS)
            got["tables"] = page.evaluate(TABLES_JS)
    if width == 1280 and AXE.is_file():
        got["note_contrast"] = page.evaluate(NOTE_CONTRAST_JS)
        page.add_script_tag(path=str(AXE))
        got["axe"] = page.evaluate(AXE_JS)
    if mode == "light":
        page.screenshot(path=str(shots / f"book_{name}_{width}.png"))
        figure = page.locator("article .cell_output img").first
        if name in CHAPTERS and figure.count():
            figure.scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"book_{name}_{width}_{'phone_' if width < 992 else ''}figure.png"))
        table = page.locator("article div.cell_output pre.course-wide").first
        if width < 992 and name == "02_greedy_speculation" and table.count():
            table.scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"book_{name}_{width}_table.png"))
    return got


@pytest.mark.parametrize("width", WIDTHS)
def test_one_header_and_the_menu_opens(book, chromium, width):
    context, page = _context(chromium, width)
    try:
        _open(page, book.site / "06_batching.html")
        assert not page.locator("header.bd-header").is_visible(), "the second top bar is back"
        assert page.locator(".search-button-field").count() == 1, "more than one search field"
        menu = page.locator(".bd-header-article .primary-toggle")
        assert menu.count() == 1 and menu.is_visible()
        chapter_link = page.locator("#pst-primary-sidebar a[href='01_cost_model.html'], "
                                    "#pst-primary-sidebar-modal a[href='01_cost_model.html']").first
        if width < 992:
            assert not chapter_link.is_visible(), "the chapter list shows before the menu is opened"
            menu.click()
            page.wait_for_selector("#pst-primary-sidebar-modal[open]")
            assert chapter_link.is_visible(), "the menu opened without the chapter list"
            page.keyboard.press("Escape")
            page.wait_for_selector("#pst-primary-sidebar-modal:not([open])", state="attached")
            contents = page.locator(".bd-header-article .secondary-toggle")
            contents.click()
            page.wait_for_selector("#pst-secondary-sidebar-modal[open]")
            assert page.locator("#pst-secondary-sidebar-modal nav a").first.is_visible()
        else:
            assert chapter_link.is_visible()
            menu.click()
            page.wait_for_function("() => document.getElementById('pst-primary-sidebar')"
                                   ".classList.contains('pst-sidebar-hidden')")
            page.wait_for_timeout(400)                       # the slide-out transition
            assert not chapter_link.is_visible(), "the sidebar did not collapse"
            menu.click()
            page.wait_for_timeout(400)
            assert chapter_link.is_visible(), "the sidebar did not come back"
        assert not page.refused, page.refused
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_the_column(visits, width):
    seen = visits(width)
    problems = []
    for name in PAGES:
        found = seen.probe(name, "layout")
        if found["page"] > found["screen"]:
            problems.append(f"{name}: the page is {found['page']} px wide on a {found['screen']} px screen")
        if name in CHAPTERS:
            assert found["pres"] > 10, f"{name}: the layout check found no code blocks"
            assert seen.probe(name, "copy_buttons") > 0, f"{name}: no copy button on its code"
            problems += [f"{name}: scrolls sideways: {t!r}" for t in found["scrolling"]]
            problems += [f"{name}: wider than the column: {t!r}" for t in found["wide"]]
            problems += [f"{name}: a formula runs past the column at full size (not shrunk): {m['text']!r}"
                         for m in found["math"] if not m["shrunk"]]
            problems += [f"{name}: {'a displayed' if m['display'] else 'an inline'} formula is wider than the column "
                         f"even at {MIN_MATH_SCALE:.0%} and scrolls: split it (docs/AUTHORING.md): {m['text']!r}"
                         for m in found["math"] if m["shrunk"]]
            problems += [f"{name}: a formula's hidden copy is wider than the formula (a scroll bar): {t!r}"
                         for t in found["hidden_copies"][:3]]
            if found["contents"]:
                problems.append(f"{name}: the page's contents run past the screen")
    assert not seen.refused, seen.refused
    assert not problems, "\n".join(problems[:20])


# Each figure of a page: its image file, the size it is drawn and shown at, where a click on it leads,
# and its smallest text in pixels of the image (book/build.py's `data-text-px`).
FIGURES_JS = """() => [...document.querySelectorAll('article .cell_output img')].map(i => ({
  src: i.getAttribute('src'), alt: i.getAttribute('alt') || '', natural: i.naturalWidth,
  shown: i.getBoundingClientRect().width, link: i.closest('a') && i.closest('a').getAttribute('href'),
  text_px: i.dataset.textPx ? parseFloat(i.dataset.textPx) : null}))"""


def test_figures_are_legible_described_and_open_full_size(visits):
    seen, problems, count = visits(1280), [], 0
    for name in CHAPTERS:
        for f in seen.probe(name, "figures"):
            count += 1
            if f["shown"] < MIN_SCALE * f["natural"] and f["shown"] < f["natural"] - 1:
                problems.append(f"{name}: {f['src']} drawn {f['natural']} px wide, shown at {f['shown']:.0f} px")
            if not f["alt"] or "_images/" in f["alt"] or re.fullmatch(r"[0-9a-f]{64}\.\w+", f["alt"]) \
                    or len(f["alt"]) < 15:
                problems.append(f"{name}: alt text {f['alt']!r} does not say what {f['src']} shows")
            if f["link"] != f["src"]:
                problems.append(f"{name}: {f['src']} does not link to its full-size image")
            if f["text_px"] is None:
                problems.append(f"{name}: {f['src']}: the size of its text is not known (not shown as a figure?)")
            elif _shown_text_px(f) < MIN_TEXT_PX:
                problems.append(f"{name}: {f['src']} ({f['alt'][:40]!r}): its smallest text is shown "
                                f"{_shown_text_px(f):.1f} px tall")
    assert count > 20, f"only {count} figures found"
    assert not problems, "\n".join(problems[:20])


def _shown_text_px(f: dict) -> float:
    """The smallest text of figure `f` as shown: its height in the image times the scale it is shown at."""
    return f["text_px"] * min(1.0, f["shown"] / f["natural"])


def test_figures_on_a_phone_scale_to_the_column_and_open_full_size(visits):
    """At 390 px a figure is scaled down into the column (none makes the page scroll sideways:
    `test_every_page_fits_the_column`), and a tap on it opens the image at its drawn size."""
    seen, problems, count = visits(390), [], 0
    for name in CHAPTERS:
        for f in seen.probe(name, "figures"):
            count += 1
            where = f"{name}: {f['src']} ({f['alt'][:40]!r})"
            if f["link"] != f["src"]:
                problems.append(f"{where}: does not link to its full-size image")
            if not f["natural"] or f["shown"] > min(f["natural"], seen.width) + 1:
                problems.append(f"{where}: drawn {f['natural']} px wide, shown at {f['shown']:.0f} px on a "
                                f"{seen.width} px screen")
    assert count > 20, f"only {count} figures found"
    assert not problems, "\n".join(problems[:20])


# Every printed table of a page: a code cell's output with three or more rows, a row being a line of three or
# more columns set apart by two or more spaces (found here, not by the page's script, so that a table the
# script misses fails). For each row, how many lines it is shown on (its text's line boxes, from a DOM
# range); for the table, whether it scrolls sideways, and then whether a keyboard can scroll it and a note
# above it says so.
TABLES_JS = """() => {
  const isRow = (line) => (line.trim().match(/ {2,}(?=\\S)/g) || []).length >= 2;
  const shown = (e) => e.offsetParent !== null && e.getBoundingClientRect().width > 0;
  return [...document.querySelectorAll('article div.cell_output pre')].filter(shown).map(pre => {
    const lines = pre.textContent.split('\\n');
    if (lines.filter(isRow).length < 3) return null;
    const nodes = [], walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    for (let n, at = 0; (n = walker.nextNode()); at += n.length) nodes.push([n, at]);
    const locate = (offset) => { const [n, at] = nodes.filter(([, at]) => at <= offset).pop(); return [n, offset - at]; };
    const rows = [];
    let start = 0;
    for (const line of lines) {
      if (isRow(line)) {
        const range = document.createRange();
        range.setStart(...locate(start));
        range.setEnd(...locate(start + line.length));
        const tops = [...range.getClientRects()].filter(r => r.width > 0).map(r => r.top).sort((a, b) => a - b);
        rows.push({text: line.trim().slice(0, 60), lines: tops.filter((t, i) => i === 0 || t > tops[i - 1] + 4).length});
      }
      start += line.length + 1;
    }
    const box = pre.closest('.output') || pre.parentElement, note = box.previousElementSibling;
    return {first: pre.textContent.trim().slice(0, 60), rows: rows, wide: pre.scrollWidth > pre.clientWidth + 1,
            focusable: pre.tabIndex >= 0, note: !!note && note.classList.contains('course-scroll-note') && shown(note),
            scale: parseFloat(pre.dataset.courseScale || '1')};
  }).filter(t => t);
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_printed_tables_keep_their_rows_on_one_line(visits, width):
    """A printed table's rows are never wrapped (its columns would break apart): one that is wider than the
    column is scaled down to `MIN_TABLE_SCALE` and, if still wider, scrolls sideways in its own box, which a
    keyboard can scroll and a note above it announces."""
    seen = visits(width)
    problems, tables, wide = [], 0, []
    for name in CHAPTERS:
        for t in seen.probe(name, "tables"):
            tables += 1
            problems += [f"{name}: a row of the printed table {t['first']!r} is shown on {r['lines']} lines at "
                         f"{width} px: {r['text']!r}" for r in t["rows"] if r["lines"] != 1]
            if t["wide"]:
                wide.append(f"{name}: {t['first'][:40]!r}")
                if t["scale"] > MIN_TABLE_SCALE + 1e-3:
                    problems.append(f"{name}: the table {t['first']!r} scrolls sideways at {t['scale']:.0%} of its "
                                    f"size, not scaled down to {MIN_TABLE_SCALE:.0%} first")
                if not t["focusable"]:
                    problems.append(f"{name}: the table {t['first']!r} scrolls sideways but a keyboard cannot reach it")
                if not t["note"]:
                    problems.append(f"{name}: the table {t['first']!r} scrolls sideways with no note saying so")
    assert not seen.refused, seen.refused
    print(f"\n{tables} printed tables at {width} px, {len(wide)} scroll sideways: {wide[:5]}")
    assert tables >= 10, f"only {tables} printed tables found: the test no longer finds them"
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("name", PAGES)
def test_no_serious_accessibility_violation_in_light_or_dark_mode(visits, name):
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed at {AXE} (./course test installs it where npm is present: "
                    "npm install --prefix build/npm axe-core@4.14.1)")
    found = {}
    for mode in ("light", "dark"):
        seen = visits(1280, mode)
        assert seen.probe(name, "theme") == mode, f"{name} did not open in {mode} mode"
        violations = seen.probe(name, "axe") + [f"note contrast {n['ratio']:.2f}:1: {n['text']!r}"
                                                for n in seen.probe(name, "note_contrast")]
        if violations:
            found[mode] = violations
    assert not found, f"{name}: {found}"


def test_search_works_offline_with_summaries_and_math(book, chromium):
    context, page = _context(chromium, 1280)
    try:
        page.goto((book.site / "search.html").as_uri() + "?q=acceptance")
        page.wait_for_selector("#search-results li", timeout=30_000)
        page.wait_for_function("() => document.querySelectorAll('#search-results li p.context').length > 3",
                               timeout=30_000)
        hits = page.evaluate("() => [...document.querySelectorAll('#search-results li a')].map(a => a.getAttribute('href'))")
        assert any(h.startswith("03_acceptance_rule.html") for h in hits), hits
        assert page.evaluate("() => !!(window.MathJax && MathJax.typesetPromise)"), "no MathJax on the search page"
        page.wait_for_timeout(500)
        text = page.inner_text("#search-results")
        assert "\\(" not in text, f"raw math in the results: {text[text.find(chr(92) + '('):][:80]}"
        problems = page.errors + page.console_errors
        assert not [p for p in problems if "fetch" in p.lower()], problems
        assert not page.refused, page.refused
    finally:
        context.close()
