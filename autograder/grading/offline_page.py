"""Feedback pages a student reads where they open them: math as MathML, a summary by exercise, long messages wrapped.

nbgrader renders feedback with nbconvert's classic template, which loads MathJax 2 from a CDN
(offline, `$p/q$` stays raw) and shows outputs in `<pre>` boxes that do not wrap (a long
assertion message is cut off at the box's edge). `make_offline` rewrites a rendered page:

* the math is MathML, written at grading time (`latex2mathml`, pinned in the `grade` extra), which
  browsers draw natively: JupyterLab's HTML viewer shows a page untrusted, with its scripts off,
  so a page that typeset its math with a script showed raw TeX until "Trust HTML" was pressed. The
  CDN script and its configuration go, and no MathJax is inlined (it made every page 2 MB larger:
  2.1 MB of chapter 12's 2.9 MB). A formula latex2mathml cannot read stays as its TeX, in a `<code>`;
* the summary at the top names each exercise (its heading in the chapter) with its points and its
  test cells', in place of nbgrader's list of unnamed "Test cell" lines;
* highlighted code drops the spans its colours never use (names, punctuation, spaces): chapter 12's
  graded page, 2.9 MB before, is 0.7 MB (its five figures 0.3 MB of it);
* outputs wrap (`white-space: pre-wrap`), breaking a long word only when it must;
* a phone shows the page at its own width: nbgrader's template has no viewport tag, so a phone
  laid it out 980 px or more wide and shrank it to a third (text about 4 px high). With the tag,
  the two columns of a cell (prompt and content) become one below 600 px, the margins shrink, and
  only a code box or a formula wider than the screen scrolls, inside itself; the page never
  scrolls sideways.

    >>> page = ('<head><script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js"> </script></head>'
    ...         '<body><p>The ratio $p/q$ and $$\\\\alpha \\\\le 1$$</p><pre>$HOME</pre></body>')
    >>> out = rewrite(page)
    >>> "cdnjs" in out, "<script" in out, "pre-wrap" in out, 'name="viewport"' in out, "$HOME" in out
    (False, False, True, True, True)
    >>> out.count("<math"), 'display="block"' in out, "$p/q$" in out
    (2, True, False)
"""
from __future__ import annotations

import html
import re
from pathlib import Path

_CDN = re.compile(r'<script[^>]*src="https?://[^"]*mathjax[^"]*"[^>]*>\s*</script>', re.I)
_V2_CONFIG = re.compile(r'<script type="text/x-mathjax-config">.*?</script>', re.S)
_HEAD_END = "</head>"
MARK = '<meta name="course-feedback" content="offline">'
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'
_HAS_VIEWPORT = re.compile(r'<meta[^>]+name="viewport"', re.I)
STYLE = """<style>
/* Long messages wrap instead of running off the edge of their box, between words where they can
   (Bootstrap 3 breaks a pre anywhere: "lib|rary"). */
div.output_area pre, div.output_subarea pre, .jp-OutputArea-output pre, div.output_text pre {
  white-space: pre-wrap; overflow-wrap: anywhere; word-break: normal;
}
/* A phone: one column per cell, small margins, a wide code box scrolls inside itself. */
@media (max-width: 600px) {
  body > .container, #notebook-container { width: auto; max-width: 100%; padding-left: 6px; padding-right: 6px; }
  .panel-body { padding: 8px 4px; }
  div.cell, div.input, div.output_area { display: block; }
  div.prompt, .prompt { min-width: 0; width: auto; text-align: left; padding: 0 0 2px 0; float: none; }
  div.inner_cell, div.input_area, div.output_subarea { max-width: 100%; min-width: 0; }
  div.input_area pre, div.highlight pre { overflow-x: auto; }
  div.nbgrader_cell .panel-heading { height: auto; display: flow-root; }   /* holds its floated score */
}
/* At any width a figure fits the column (chapter 03's widest ran 300 px past a desktop page) and a
   formula wider than it scrolls in its box. */
div.output_subarea img { max-width: 100%; height: auto; }
math[display="block"] { display: block math; overflow-x: auto; overflow-y: hidden; max-width: 100%; margin: 0.5em 0; }
math { font-size: 1.1em; max-width: 100%; overflow-x: auto; vertical-align: middle; }
table.course-summary { margin: 0.5em 0; border-collapse: collapse; }
table.course-summary td, table.course-summary th { padding: 2px 10px; border-bottom: 1px solid #ddd; text-align: left; }
table.course-summary td.points { text-align: right; white-space: nowrap; }
table.course-summary tr.test td { color: #666; font-size: 0.9em; padding-left: 2em; }
</style>
"""
# Math in a page's text: $$...$$, \[...\], $...$ and \(...\) (a `$` preceded by a backslash is a dollar).
_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|(?<![\\$])\$(?!\s)([^$]+?)(?<![\s\\])\$(?!\d)|\\\((.+?)\\\)", re.S)
_TAG = re.compile(r"(<[^>]*>)")
_RAW = ("pre", "code", "script", "style", "textarea", "math")
_ENTITY = re.compile(r"&#x([0-9A-Fa-f]+);")
# Pygments wraps every name, punctuation mark and space of highlighted code in a span that its style
# leaves uncoloured (.n, .p, .w): a fifth of a page's bytes, for nothing a reader sees.
_PLAIN_SPAN = re.compile(r'<span class="[npw]">([^<]*)</span>')


def _compact(mathml: str) -> str:
    """latex2mathml's output, smaller: HTML needs no namespace, and a character is shorter than its entity."""
    mathml = mathml.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")
    return _ENTITY.sub(lambda m: html.escape(chr(int(m.group(1), 16)), quote=False), mathml)


def tex_to_mathml(tex: str, display: bool) -> str:
    """One formula as MathML, or as its TeX in a `<code>` when latex2mathml cannot read it.

    >>> tex_to_mathml("p/q", False)
    '<math display="inline"><mrow><mi>p</mi><mo>/</mo><mi>q</mi></mrow></math>'
    """
    from latex2mathml.converter import convert

    try:
        return _compact(convert(tex.strip(), display="block" if display else "inline"))
    except Exception:           # latex2mathml raises its own errors and plain ones on what it cannot read
        return f'<code class="course-tex">{html.escape(tex)}</code>'


def _text_math(text: str) -> str:
    """An HTML text node with its formulas as MathML (the text is HTML-escaped; TeX is not)."""
    def one(m):
        display = m.group(1) is not None or m.group(2) is not None
        tex = next(g for g in m.groups() if g is not None)
        return tex_to_mathml(html.unescape(tex), display)
    return _MATH.sub(one, text)


def typeset(body: str) -> str:
    """`body` with the math of its text as MathML; code, preformatted text and scripts are left alone."""
    out, raw = [], []
    for part in _TAG.split(body):
        if part.startswith("<"):
            name = re.match(r"</?\s*([A-Za-z0-9]+)", part)
            tag = name.group(1).lower() if name else ""
            if tag in _RAW and not part.endswith("/>"):
                if part.startswith("</"):
                    if tag in raw:
                        del raw[len(raw) - 1 - raw[::-1].index(tag)]
                else:
                    raw.append(tag)
            out.append(part)
        elif raw or "$" not in part and "\\" not in part:
            out.append(part)
        else:
            out.append(_text_math(part))
    return "".join(out)


_TOC = re.compile(r'<div id="toc">.*?</div>', re.S)
_HEADING = re.compile(r"<h([1-6])[^>]*>(.*?)</h\1>", re.S)
_ANCHOR = re.compile(r'<a name="(comment-)?([^"]+)"></a>')
_SCORE = re.compile(r"Score:\s*([0-9.]+)\s*/\s*([0-9.]+)")
_EXERCISE = re.compile(r"\bExercise\b", re.I)


def _plain(fragment: str) -> str:
    text = re.sub(r"<a[^>]*class=\"anchor-link\"[^>]*>.*?</a>", "", fragment, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", text)).replace("¶", "").strip()


def summary(page: str) -> str | None:
    """A table of the page's exercises in order: each one's heading in the chapter, its points, and
    its test cells' (None when the page has no graded cell). A test cell belongs to the exercise whose
    answer cell comes last before it."""
    events = [(m.start(), "heading", _plain(m.group(2))) for m in _HEADING.finditer(page)
              if _EXERCISE.search(_plain(m.group(2)))]
    events += [(m.start(), "answer" if m.group(1) else "grade", m.group(2)) for m in _ANCHOR.finditer(page)
               if m.group(2) != "top"]
    exercises, heading = [], None
    for position, kind, value in sorted(events):
        if kind == "heading":
            heading = value
        elif kind == "answer":
            exercises.append({"title": heading or value, "tests": []})
            heading = None
        else:
            score = _SCORE.search(page, position, position + 3000)
            if score is None:
                continue
            if not exercises:
                exercises.append({"title": "Checks before the first exercise", "tests": []})
            exercises[-1]["tests"].append((value, float(score.group(1)), float(score.group(2))))
    exercises = [e for e in exercises if e["tests"]]
    if not exercises:
        return None
    rows = []
    for e in exercises:
        got, of = sum(t[1] for t in e["tests"]), sum(t[2] for t in e["tests"])
        rows.append(f'<tr class="exercise"><td><a href="#{html.escape(e["tests"][0][0])}">{html.escape(e["title"])}</a>'
                    f'</td><td class="points">{got:g} / {of:g}</td></tr>')
        rows += [f'<tr class="test"><td><a href="#{html.escape(t)}">{html.escape(t)}</a></td>'
                 f'<td class="points">{s:g} / {m:g}</td></tr>' for t, s, m in e["tests"]]
    return ('<div id="toc"><table class="course-summary"><tr><th>Exercise (and its test cells)</th>'
            '<th>Points</th></tr>' + "".join(rows) + "</table></div>")


def rewrite(page: str) -> str:
    """The page's HTML with its math as MathML, no MathJax, a summary by exercise and wrapping outputs."""
    if MARK in page:
        return page
    head = MARK + "\n" + STYLE
    if not _HAS_VIEWPORT.search(page):
        head = VIEWPORT + "\n" + head
    page = _V2_CONFIG.sub("", _CDN.sub("", page))
    table = summary(page)
    if table is not None:
        page = _TOC.sub(lambda m: table, page, count=1)
    split = page.find("<body")
    if split >= 0:
        page = page[:split] + _PLAIN_SPAN.sub(r"\1", typeset(page[split:]))
    return page.replace(_HEAD_END, head + _HEAD_END, 1) if _HEAD_END in page else head + page


def make_offline(html_file: Path) -> None:
    """Rewrite the feedback page `html_file` in place: it then reads with nothing beside it and no script."""
    html_file = Path(html_file)
    html_file.write_text(rewrite(html_file.read_text(encoding="utf-8")), encoding="utf-8")
