"""A feedback page after `offline_page.rewrite`, without a browser: the summary names each exercise with its points,
every formula of every chapter is MathML (none left as TeX), and nothing a reader sees of the code is lost.

The browser side (math drawn, in JupyterLab untrusted, on a phone) is tests/browser/test_feedback_page.py."""
import html
import re
from pathlib import Path

import nbformat
import pytest

from autograder.grading.offline_page import rewrite

CODE = "def f(x):\n    return x + 1    # why"


def _render(nb) -> str:
    """`nb` through nbgrader's feedback template, as `nbgrader generate_feedback` renders it."""
    import nbgrader.converters.generate_feedback as gf
    from nbconvert import HTMLExporter

    base = Path(gf.__file__).parent.parent / "server_extensions" / "formgrader"
    exporter = HTMLExporter(template_name="feedback", extra_template_basedirs=[str(base / "templates")],
                            extra_template_paths=[str(base / "static" / "node_modules" / "bootstrap" / "dist" / "css")])
    body, _ = exporter.from_notebook_node(nb, resources={"nbgrader": {
        "score": 3, "max_score": 5, "late_penalty": 0, "notebook": "feedback", "timestamp": None}})
    return body


def _grade(source, grade_id, points, score):
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "grade_id": grade_id, "points": points, "score": score}})


def _chapter_like():
    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 01 · A chapter\n\nThe ratio $p/q$ and $$\\alpha = \\sum_x \\min(p(x), q(x)).$$"),
        nbformat.v4.new_markdown_cell("## 2 · Exercise 1.1 (core): `f`\n\nWrite `f`."),
        nbformat.v4.new_code_cell(CODE, metadata={"nbgrader": {
            "grade": False, "solution": True, "locked": False, "grade_id": "ex_f"}}),
        _grade("assert f(1) == 2", "test_f_small", 2, 2),
        _grade("assert f(10) == 11", "test_f_large", 1, 1),
        nbformat.v4.new_markdown_cell("## 3 · Exercise 1.2 (interview, optional): `g`"),
        nbformat.v4.new_code_cell("def g():\n    pass", metadata={"nbgrader": {
            "grade": False, "solution": True, "locked": False, "grade_id": "ex_g"}}),
        _grade("assert g() == 1", "test_g", 2, 0),
    ])


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_the_summary_names_each_exercise_with_its_points_and_its_test_cells():
    page = rewrite(_render(_chapter_like()))
    toc = re.search(r'<div id="toc">.*?</div>', page, re.S).group(0)
    rows = [[_text(td).strip() for td in re.findall(r"<td[^>]*>.*?</td>", tr, re.S)]
            for tr in re.findall(r"<tr[^>]*>.*?</tr>", toc, re.S)][1:]
    assert rows == [["2 · Exercise 1.1 (core): f", "3 / 3"], ["test_f_small", "2 / 2"], ["test_f_large", "1 / 1"],
                    ["3 · Exercise 1.2 (interview, optional): g", "0 / 2"], ["test_g", "0 / 2"]], rows
    assert "Test cell" not in toc


def test_math_is_mathml_and_the_code_reads_as_before():
    before = _render(_chapter_like())
    page = rewrite(before)
    assert page.count("<math") == 2 and 'display="block"' in page and "$p/q$" not in page
    assert "mathjax" not in re.sub("<!--.*?-->", "", page, flags=re.S).lower()
    code = lambda p: [_text(m) for m in re.findall(r'<div class="highlight[^"]*">.*?</div>', p, re.S)]
    assert code(page) == code(before) and len(code(page)) == 5
    assert rewrite(page) == page


@pytest.mark.parametrize("chapter", sorted(p.stem for p in (Path(__file__).parents[1] / "solutions").glob("[0-9][0-9]_*.ipynb")))
def test_every_formula_of_every_chapter_becomes_mathml(chapter):
    """latex2mathml reads each formula of the chapter's Markdown (a formula it cannot read would stay as TeX in a
    `<code class="course-tex">`), and no `$...$` is left in the page's text."""
    from tests.helpers import solution_nb

    nb = solution_nb(chapter)
    nb.cells = [c for c in nb.cells if c.cell_type == "markdown"]
    page = rewrite(_render(nb))
    assert "course-tex" not in page, re.findall(r'<code class="course-tex">(.*?)</code>', page)[:5]
    text = _text(re.sub(r"<(pre|code|script|style)[^>]*>.*?</\1>", "", page.split("<body")[1], flags=re.S))
    assert not re.findall(r"(?<![\\$])\$[^$\s][^$]{0,80}?(?<![\s\\])\$(?!\d)", text)
    assert page.count("<math") > 20
