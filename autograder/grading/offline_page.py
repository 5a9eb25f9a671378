"""Feedback pages a student can read offline: math typeset by a bundled MathJax, long messages wrapped.

nbgrader renders feedback with nbconvert's classic template, which loads MathJax 2 from a CDN
(offline, `$p/q$` stays raw) and shows outputs in `<pre>` boxes that do not wrap (a long
assertion message is cut off at the box's edge). `make_offline` rewrites a rendered page:

* the CDN script and its MathJax 2 configuration give way to MathJax 3 (`tex-svg.js`, one
  self-contained file from the pinned `sphinx-mathjax-offline` package, also used by the book),
  placed beside the page (a hard link where possible), so the feedback folder a student
  receives carries its own renderer;
* outputs wrap (`white-space: pre-wrap`), breaking a long word only when it must.

    >>> page = '<head><script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js"> </script></head>'
    >>> out = rewrite(page)
    >>> "cdnjs" in out, MATHJAX_FILE in out, "pre-wrap" in out
    (False, True, True)
"""
from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
from pathlib import Path

MATHJAX_FILE = "mathjax-tex-svg.js"
_CDN = re.compile(r'<script[^>]*src="https?://[^"]*mathjax[^"]*"[^>]*>\s*</script>', re.I)
_V2_CONFIG = re.compile(r'<script type="text/x-mathjax-config">.*?</script>', re.S)
_HEAD_END = "</head>"
HEAD = f"""<script>
window.MathJax = {{
  tex: {{inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']],
        processEscapes: true, processEnvironments: true}},
  options: {{enableMenu: false}},
  svg: {{fontCache: 'global'}}
}};
</script>
<script defer src="{MATHJAX_FILE}"></script>
<style>
/* Long messages wrap instead of running off the edge of their box. */
div.output_area pre, div.output_subarea pre, .jp-OutputArea-output pre, div.output_text pre {{
  white-space: pre-wrap; overflow-wrap: anywhere;
}}
</style>
"""


def mathjax_source() -> Path:
    """The bundled MathJax 3 file (`tex-svg.js`: TeX input, SVG output, no font files to fetch)."""
    dist = importlib.metadata.distribution("sphinx-mathjax-offline")
    return Path(dist.locate_file("sphinx-mathjax-offline/static/mathjax/tex-svg.js"))


def rewrite(page: str) -> str:
    """The page's HTML with the CDN MathJax replaced by the bundled one and wrapping outputs."""
    page = _V2_CONFIG.sub("", _CDN.sub("", page))
    if HEAD in page:
        return page
    return page.replace(_HEAD_END, HEAD + _HEAD_END, 1) if _HEAD_END in page else HEAD + page


def make_offline(html: Path) -> None:
    """Rewrite the feedback page `html` in place and put MathJax beside it."""
    html = Path(html)
    html.write_text(rewrite(html.read_text(encoding="utf-8")), encoding="utf-8")
    dest = html.parent / MATHJAX_FILE
    if not dest.exists():
        try:
            os.link(mathjax_source(), dest)
        except OSError:
            shutil.copyfile(mathjax_source(), dest)
