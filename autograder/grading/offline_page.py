"""Feedback pages a student can read offline: math typeset by a bundled MathJax, long messages wrapped.

nbgrader renders feedback with nbconvert's classic template, which loads MathJax 2 from a CDN
(offline, `$p/q$` stays raw) and shows outputs in `<pre>` boxes that do not wrap (a long
assertion message is cut off at the box's edge). `make_offline` rewrites a rendered page:

* the CDN script and its MathJax 2 configuration give way to MathJax 3 (`tex-svg.js`, one
  self-contained file from the pinned `sphinx-mathjax-offline` package, also used by the book),
  inlined into the page: `nbgrader release_feedback` hands a student only the `*.html` files,
  so a renderer placed beside the page never arrived (about 2 MB a page; SVG output needs no
  font files, so nothing else is fetched);
* outputs wrap (`white-space: pre-wrap`), breaking a long word only when it must;
* a phone shows the page at its own width: nbgrader's template has no viewport tag, so a phone
  laid it out 980 px or more wide and shrank it to a third (text about 4 px high). With the tag,
  the two columns of a cell (prompt and content) become one below 600 px, the margins shrink, and
  only a code box or a formula wider than the screen scrolls, inside itself (inline math never
  breaks: a script marks each formula that runs past the page once MathJax has drawn it); the page
  never scrolls sideways.

    >>> page = '<head><script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js"> </script></head>'
    >>> out = rewrite(page, mathjax="/* MathJax */")
    >>> "cdnjs" in out, "/* MathJax */" in out, "pre-wrap" in out, "src=" in out, 'name="viewport"' in out
    (False, True, True, False, True)
"""
from __future__ import annotations

import functools
import importlib.metadata
import re
from pathlib import Path

_CDN = re.compile(r'<script[^>]*src="https?://[^"]*mathjax[^"]*"[^>]*>\s*</script>', re.I)
_V2_CONFIG = re.compile(r'<script type="text/x-mathjax-config">.*?</script>', re.S)
_HEAD_END = "</head>"
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'
_HAS_VIEWPORT = re.compile(r'<meta[^>]+name="viewport"', re.I)
HEAD = f"""<script>
window.MathJax = {{
  tex: {{inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']],
        processEscapes: true, processEnvironments: true}},
  options: {{enableMenu: false}},
  svg: {{fontCache: 'global'}},
  // A formula wider than the page (inline math never breaks) would widen a phone's page: it scrolls in its box.
  startup: {{pageReady: () => MathJax.startup.defaultPageReady().then(courseFitMath)}}
}};
function courseFitMath() {{
  const width = document.documentElement.clientWidth;
  for (const m of document.querySelectorAll('mjx-container')) {{
    m.classList.remove('course-wide-math');
    if (m.getBoundingClientRect().right > width + 1) m.classList.add('course-wide-math');
  }}
}}
window.addEventListener('resize', () => {{ if (window.MathJax && MathJax.startup) courseFitMath(); }});
</script>
<script id="course-mathjax">@MATHJAX@</script>
<style>
/* Long messages wrap instead of running off the edge of their box, between words where they can
   (Bootstrap 3 breaks a pre anywhere: "lib|rary"). */
div.output_area pre, div.output_subarea pre, .jp-OutputArea-output pre, div.output_text pre {{
  white-space: pre-wrap; overflow-wrap: anywhere; word-break: normal;
}}
/* A phone: one column per cell, small margins, a wide code box scrolls inside itself. */
@media (max-width: 600px) {{
  body > .container, #notebook-container {{ width: auto; max-width: 100%; padding-left: 6px; padding-right: 6px; }}
  .panel-body {{ padding: 8px 4px; }}
  div.cell, div.input, div.output_area {{ display: block; }}
  div.prompt, .prompt {{ min-width: 0; width: auto; text-align: left; padding: 0 0 2px 0; float: none; }}
  div.inner_cell, div.input_area, div.output_subarea {{ max-width: 100%; min-width: 0; }}
  div.input_area pre, div.highlight pre {{ overflow-x: auto; }}
  div.nbgrader_cell .panel-heading {{ height: auto; display: flow-root; }}   /* holds its floated score */
}}
/* At any width a figure fits the column (chapter 03's widest ran 300 px past a desktop page) and a
   formula wider than it scrolls in its box. */
div.output_subarea img {{ max-width: 100%; height: auto; }}
mjx-container[display="true"] {{ overflow-x: auto; overflow-y: hidden; max-width: 100%; }}
mjx-container.course-wide-math {{ display: inline-block; max-width: 100%; overflow-x: auto; overflow-y: hidden;
  vertical-align: middle; }}
</style>
"""


def mathjax_source() -> Path:
    """The bundled MathJax 3 file (`tex-svg.js`: TeX input, SVG output, no font files to fetch)."""
    dist = importlib.metadata.distribution("sphinx-mathjax-offline")
    return Path(dist.locate_file("sphinx-mathjax-offline/static/mathjax/tex-svg.js"))


@functools.lru_cache(maxsize=1)
def mathjax_script() -> str:
    """The bundled MathJax, safe inside an inline `<script>` (no `</script` can end it early)."""
    return mathjax_source().read_text(encoding="utf-8").replace("</script", "<\\/script")


def rewrite(page: str, mathjax: str | None = None) -> str:
    """The page's HTML with the CDN MathJax replaced by the bundled one (inline) and wrapping
    outputs; `mathjax` is the script to inline (default: the bundled file)."""
    if 'id="course-mathjax"' in page:
        return page
    head = HEAD.replace("@MATHJAX@", mathjax_script() if mathjax is None else mathjax)
    if not _HAS_VIEWPORT.search(page):
        head = VIEWPORT + "\n" + head
    page = _V2_CONFIG.sub("", _CDN.sub("", page))
    return page.replace(_HEAD_END, head + _HEAD_END, 1) if _HEAD_END in page else head + page


def make_offline(html: Path) -> None:
    """Rewrite the feedback page `html` in place: it then typesets its math with nothing beside it."""
    html = Path(html)
    html.write_text(rewrite(html.read_text(encoding="utf-8")), encoding="utf-8")
