"""The book's "For instructors" part (book/instructor_pages.py): the instructor's pages of docs/ are
rendered with the book's own configuration, listed under their caption in the menu, linked from the
start page, and their links to each other resolve. (The whole built site: tests/browser/test_book.py.)"""
from __future__ import annotations

import io
import re

import nbformat
import pytest

from book.instructor_pages import DOCS_DIR, INSTRUCTOR_PAGES, PART_CAPTION, instructor_part, stage_instructor_pages


def test_every_page_of_the_part_is_in_docs():
    assert all((DOCS_DIR / f"{name}.md").is_file() for name in INSTRUCTOR_PAGES), \
        [n for n in INSTRUCTOR_PAGES if not (DOCS_DIR / f"{n}.md").is_file()]


@pytest.mark.slow          # a Sphinx build of a one-chapter site with the part (seconds)
def test_the_part_is_rendered_in_the_menu_and_its_links_resolve(tmp_path):
    from book.build import _render, start_page

    src = tmp_path / "src"
    src.mkdir()
    chapter = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 01 · Costs")])
    nbformat.write(chapter, str(src / "01_costs.ipynb"))
    staged = stage_instructor_pages(src)
    assert staged == list(INSTRUCTOR_PAGES)
    (src / "index.md").write_text(start_page([("01_costs", chapter)]) + instructor_part(staged), encoding="utf-8")
    (src / "references.md").write_text("# References\n", encoding="utf-8")          # the start page's toctree names it
    log = io.StringIO()
    _render(src, tmp_path / "html", tmp_path / "doctrees", log)
    site = tmp_path / "html"
    warnings = [ln for ln in log.getvalue().splitlines() if "WARNING" in ln or "ERROR" in ln]
    assert not [w for w in warnings if any(f"{name}.md" in w for name in INSTRUCTOR_PAGES + ("index",))], warnings
    index = (site / "index.html").read_text(encoding="utf-8")
    assert PART_CAPTION in index, "the menu has no 'For instructors' caption"
    menu = index[index.index('<span class="caption-text">' + PART_CAPTION):]
    assert [n for n in INSTRUCTOR_PAGES if f'href="{n}.html"' not in menu] == [], "a page of the part is not in the menu"
    article = index[index.index("<article"):index.index("</article>")]
    assert 'href="instructors.html"' in article, "the start page does not link the part"
    for name in INSTRUCTOR_PAGES:
        page = (site / f"{name}.html").read_text(encoding="utf-8")
        title = (DOCS_DIR / f"{name}.md").read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        assert title.split(":")[0] in page, f"{name}.html does not carry its title {title!r}"
        # Each link of a page to another page of the part is a link in the book too (not left as text).
        for target in re.findall(r"\]\(([\w-]+)\.md\)", (DOCS_DIR / f"{name}.md").read_text(encoding="utf-8")):
            assert target in INSTRUCTOR_PAGES, f"docs/{name}.md links {target}.md, which the book does not show"
            assert f'href="{target}.html' in page, f"{name}.html: the link to {target} did not resolve"
    threat = (site / "threat-model.html").read_text(encoding="utf-8")
    assert "<table" in threat and "the kernel sees" in threat
