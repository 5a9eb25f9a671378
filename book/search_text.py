r"""The text of every page, for the search page's summaries when the site is opened from files.

Sphinx's search page quotes a few lines around each hit, read by fetching the hit's page; a browser
refuses that fetch on a `file://` page. `write_search_text` stores each page's article text in
`_static/course-search-text.js` (`window.COURSE_SEARCH_TEXT = {"01_cost_model": "...", ...}`), and
book/static/course.js answers the search page's fetches from it under `file://`.

    >>> article_text('<html><article class="bd-article"><h1>T</h1><p>a &amp; b, \\(p/q\\)</p></article></html>')
    'T a &amp; b, p/q'

Math keeps its TeX without the `\(...\)` delimiters: a summary is cut at any character, and half
a delimited formula would show raw on the search page.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

_ARTICLE = re.compile(r"<article\b[^>]*>(.*?)</article>", re.S)
_DROP = re.compile(r"<(script|style|mjx-container)\b.*?</\1>", re.S)


def article_text(page: str) -> str:
    """The visible text of a page's article, HTML-escaped (the search page parses it as HTML)."""
    m = _ARTICLE.search(page)
    body = _DROP.sub(" ", m.group(1) if m else "")
    text = html.unescape(re.sub(r"<[^>]+>", " ", body))
    text = re.sub(r"\\[()\[\]]", " ", text).replace("$$", " ")
    return html.escape(re.sub(r"\s+", " ", text).strip(), quote=False)


def write_search_text(site: Path) -> Path:
    """Write `_static/course-search-text.js` for every page of `site`; return its path."""
    texts = {p.stem: article_text(p.read_text(encoding="utf-8")) for p in sorted(site.glob("*.html"))
             if p.stem not in ("search", "genindex")}
    out = site / "_static" / "course-search-text.js"
    out.write_text("window.COURSE_SEARCH_TEXT = " + json.dumps(texts, ensure_ascii=False) + ";\n", encoding="utf-8")
    return out
