"""The book's page rules, on small notebooks (fast: no Sphinx, no browser; tests/browser/test_book*.py
read the built site).

A widget's picture shows only what a reader of the live widget sees at start; test notes and the
note on checking your work are written for a web reader; plotting cells fold; a figure's alt text
says what it shows; a chapter runs for the book with an empty HOME and progress log, and a run made
with someone's log is never reused for a page.
"""
from __future__ import annotations

import base64
import os
import re
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.learner_cells import CHECK_NOTE, add_learner_cells
from autograder.authoring.execute import Execution
from book import executed as runs
from book.pages import HIDE_INPUT, INTERACTIVE_NOTE, WIDGET_STATE, WIDGET_VIEW, book_page
from book.references import WORKS, link_citations

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 32).decode()


def _model(name, **state):
    return {"model_name": name, "model_module": "@jupyter-widgets/controls", "state": state}


def _widget_notebook(models: dict, root: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("drill_widget()")
    cell.outputs = [nbformat.v4.new_output("display_data", data={WIDGET_VIEW: {"model_id": root}, "text/plain": ""})]
    nb.cells = [cell]
    nb.metadata["widgets"] = {WIDGET_STATE: {"state": models}}
    return nb


def _page_html(nb) -> str:
    return " ".join(o.get("data", {}).get("text/html", "") for c in book_page(nb).cells for o in c.get("outputs", []))


def test_a_widget_picture_leaves_out_hidden_parts_and_empty_fields():
    models = {
        "root": _model("VBoxModel", children=["IPY_MODEL_q", "IPY_MODEL_a1", "IPY_MODEL_a2", "IPY_MODEL_worked"]),
        "q": _model("HTMLModel", value="What is the chance that some child is accepted?", layout="IPY_MODEL_l1"),
        "a1": _model("TextModel", description="one child", value=""),
        "a2": _model("TextModel", description="seed", value="2026"),
        "worked": _model("HTMLModel", value="Worked answer: 0.75", layout="IPY_MODEL_hidden"),
        "l1": _model("LayoutModel"),
        "hidden": _model("LayoutModel", display="none"),
    }
    page = _page_html(_widget_notebook(models, "root"))
    assert INTERACTIVE_NOTE in page and "some child is accepted" in page
    assert "Worked answer" not in page, "a part hidden at start is in the picture"
    assert "one child" not in page, "an empty answer field is in the picture"
    assert "seed = 2026" in page


def test_a_caption_beside_controls_goes_with_them():
    models = {
        "root": _model("VBoxModel", children=["IPY_MODEL_row", "IPY_MODEL_out"]),
        "row": _model("HBoxModel", children=["IPY_MODEL_cap", "IPY_MODEL_d0"]),
        "cap": _model("HTMLModel", value="<b>target writes</b>&nbsp;"),
        "d0": _model("DropdownModel", description="depth 0", _options_labels=["sat", "is"], index=0),
        "out": _model("HTMLModel", value="Greedy walk keeps: #0 sat"),
    }
    page = _page_html(_widget_notebook(models, "root"))
    assert "target writes depth 0 = sat" in page
    assert "course-widget-readout\">Greedy walk" in page and "<b>target writes</b>" not in page


def test_reader_text_is_written_for_the_web():
    nb = nbformat.v4.new_notebook()
    solution = nbformat.v4.new_code_cell("def f():\n    raise NotImplementedError()",
                                         metadata={"nbgrader": {"grade": False, "solution": True, "grade_id": "ex"}})
    tests = []
    for i in range(2):
        cell = nbformat.v4.new_code_cell("assert f() == 1", metadata={"nbgrader": {
            "grade": True, "solution": False, "locked": True, "grade_id": f"t{i}", "points": 1}})
        cell.outputs = [nbformat.v4.new_output("error", ename="NotImplementedError", traceback=["..."],
                                               evalue="Replace this line with your solution. Stuck? Open the hints below this cell.")]
        tests.append(cell)
    nb.cells = [nbformat.v4.new_markdown_cell("# 01 · T\nText."), solution, *tests]
    nb = add_learner_cells(nb, "01_t")
    page = book_page(nb, "01_t")
    text = " ".join(c.source for c in page.cells if c.cell_type == "markdown")
    notes = [o.data["text/html"] for c in page.cells for o in c.get("outputs", []) if "course-test-note" in
             o.get("data", {}).get("text/html", "")]
    assert CHECK_NOTE not in text and "in JupyterLab" in text and "last cell of this notebook" not in text
    assert "downloads/01_t.ipynb" in page.cells[0].source
    assert len(notes) == 2 and len(notes[1]) < len(notes[0]), "the full note is repeated after every test cell"
    assert not any(".;" in n or "hints below" in n for n in notes), notes


def test_plotting_cells_fold_and_figures_are_described():
    nb = nbformat.v4.new_notebook()
    draw = nbformat.v4.new_code_cell("fig, ax = plt.subplots(figsize=(14, 4))\nax.plot(x, y)")
    draw.outputs = [nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": ""},
                                           metadata={"course_alt": "Speedup against $\\gamma$ (x: gamma; y: speedup)"})]
    printing = nbformat.v4.new_code_cell("print(1)")
    printing.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    nb.cells = [nbformat.v4.new_markdown_cell("The speedup peaks:"), draw, printing]
    page = book_page(nb)
    assert HIDE_INPUT in page.cells[1].metadata.get("tags", [])
    assert HIDE_INPUT not in page.cells[2].metadata.get("tags", [])
    (alt,) = page.metadata["course_alt"].values()
    assert alt == "Figure: Speedup against gamma (x: gamma; y: speedup)"


def test_citations_link_to_listed_works_only():
    linked = link_citations("Leviathan et al. (2023) and Chen et al. 2023, unlike Nobody (2023).")
    assert linked.count("references.html#ref-") == 2 and "Nobody (2023)" in linked
    assert all(w.link.startswith(("https://arxiv.org/abs/", "https://doi.org/")) for w in WORKS if w.link)


def test_chapters_run_for_the_book_with_an_empty_home(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_PROGRESS_LOG", "/tmp/course-test-progress-x/progress.jsonl")
    seen = {}

    def fake_execute(path):
        seen.update({k: os.environ.get(k) for k in ("HOME", "COURSE_PROGRESS_LOG", "IPYTHONDIR")})
        seen["startup"] = sorted(p.name for p in (
            __import__("pathlib").Path(os.environ["IPYTHONDIR"]) / "profile_default" / "startup").iterdir())
        return Execution(nbformat.v4.new_notebook(), 1.0, [])

    monkeypatch.setattr(runs, "execute", fake_execute)
    chapter = runs.CHAPTERS_DIR / "01_cost_model.ipynb"
    result, reused = runs.executed(chapter, tmp_path)
    assert not reused and seen["COURSE_PROGRESS_LOG"] == "off" and seen["HOME"] != os.environ.get("HOME")
    assert seen["startup"]
    assert os.environ["COURSE_PROGRESS_LOG"] == "/tmp/course-test-progress-x/progress.jsonl"
    assert runs.cached(chapter, tmp_path) is not None


def test_a_run_made_with_someone_elses_log_is_not_reused(tmp_path):
    chapter = runs.CHAPTERS_DIR / "01_cost_model.ipynb"
    runs.store(chapter, Execution(nbformat.v4.new_notebook(), 1.0, []), tmp_path)   # as the test suite stores
    assert runs.cached(chapter, tmp_path) is None


def test_the_repository_address_comes_from_the_environment_or_pyproject(monkeypatch):
    from book.site_info import REPOSITORY_VARIABLE, repository_url, site_info

    project = {"urls": {"Repository": "https://example.org/from-pyproject"}}
    assert repository_url(project, environ={}) == "https://example.org/from-pyproject"
    assert repository_url(project, {REPOSITORY_VARIABLE: "https://example.org/env"}) == "https://example.org/env"
    assert repository_url({"name": "course"}, environ={}) == ""
    with pytest.raises(ValueError, match="web address"):
        repository_url({}, {REPOSITORY_VARIABLE: "git@example.org:course.git"})
    monkeypatch.setenv(REPOSITORY_VARIABLE, "https://example.org/env")
    assert site_info().repository_url == "https://example.org/env"


def _render_start(tmp_path, repository: str | None) -> str:
    """A one-page site rendered with the book's configuration (book/conf.py): its index.html."""
    import io

    from book.build import _render, start_page
    from book.site_info import REPOSITORY_VARIABLE, site_info

    with pytest.MonkeyPatch.context() as mp:
        if repository is None:
            mp.delenv(REPOSITORY_VARIABLE, raising=False)
        else:
            mp.setenv(REPOSITORY_VARIABLE, repository)
        info = site_info()
        if repository is None and info.repository_url:
            pytest.skip(f"pyproject.toml names a repository ({info.repository_url}): no page without one to check")
        chapter = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 01 · Costs")])
        src = tmp_path / "src"
        src.mkdir(parents=True)
        nbformat.write(chapter, str(src / "01_costs.ipynb"))
        (src / "index.md").write_text(start_page([("01_costs", chapter)], info.repository_link()), encoding="utf-8")
        _render(src, tmp_path / "html", tmp_path / "doctrees", io.StringIO())
    return (tmp_path / "html" / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow          # a Sphinx build (seconds)
def test_pages_link_the_repository_only_when_one_is_configured(tmp_path):
    import re

    url = "https://example.org/speculative-decoding"
    page = _render_start(tmp_path / "with", url)
    links = re.findall(rf'<a [^>]*href="{re.escape(url)}"[^>]*>([^<]*)</a>', page)
    footer = page[page.index("version 0."):]
    assert "Source repository" in links and f'href="{url}">Source repository<' in footer, links
    assert "source repository" in links, "the start page does not point to the repository"
    page = _render_start(tmp_path / "without", None)
    assert not re.search(r"(?i)repository", re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)), \
        "a page names a repository although none is configured"


def test_the_book_kernel_records_each_figures_description_and_rule():
    """book/figures.py's `install` registers, through IPython's public formatter API, the metadata the
    page needs (alt text, smallest text) and the drawing rule's verdict (specdec/plotting.py)."""
    import types

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from IPython.core.formatters import DisplayFormatter

    from book.figures import install
    from specdec.plotting import figure

    shell = types.SimpleNamespace(display_formatter=DisplayFormatter())
    install(shell)
    fig, ax = figure(height=3)
    ax.set(title="Speedup against $\\gamma$", xlabel="draft length", ylabel="speedup")
    metadata = shell.display_formatter.format(fig)[1]
    assert metadata["course_alt"] == "Speedup against \\gamma (x: draft length; y: speedup)"
    assert metadata["course_rule"] == [] and metadata["course_text_px"] == pytest.approx(10 / 72 * fig.dpi, abs=0.01)
    wide, _ = plt.subplots(figsize=(10, 3))
    assert "10 in wide: at most 6.5" in shell.display_formatter.format(wide)[1]["course_rule"]
    plt.close("all")


def test_a_page_links_each_figure_to_its_full_size_image():
    import hashlib

    from book.build import finish_figures

    desktop = b"\x89PNG desktop"
    out = nbformat.v4.new_output("display_data", data={"image/png": base64.b64encode(desktop).decode(), "text/plain": ""},
                                 metadata={"course_alt": "Speedup (x: gamma)", "course_text_px": 12.5})
    cell = nbformat.v4.new_code_cell("fig, ax = plt.subplots()")
    cell.outputs = [out]
    page = book_page(nbformat.v4.new_notebook(cells=[cell]))
    key = hashlib.sha256(desktop).hexdigest()
    html_page = finish_figures(f'<img alt="x" src="_images/{key}.png" />', page.metadata["course_alt"],
                               page.metadata["course_figures"])
    assert html_page == (f'<a class="course-figure" href="_images/{key}.png" title="Open the full-size image">'
                         f'<img alt="Figure: Speedup (x: gamma)" src="_images/{key}.png" data-text-px="12.5" /></a>')


def test_every_engine_link_of_a_chapter_is_on_the_references_page():
    """A claim about an engine links to its code or docs in the chapter; the references page lists
    each such link once, under its engine, with the chapters that cite it."""
    from autograder import notebooks
    from book.references import engine_of, references_page

    chapters = {p.stem: "\n\n".join(c.source for c in notebooks.read(p).cells if c.cell_type == "markdown")
                for p in sorted((Path(__file__).resolve().parents[1] / "solutions").glob("[0-9][0-9]_*.ipynb"))}
    page = references_page(chapters)
    links = {url for text in chapters.values() for url in re.findall(r"\]\((https?://[^)\s]+)\)", text)
             if engine_of(url)}
    missing = sorted(url for url in links if f'href="{url}"' not in page.replace("&amp;", "&"))
    assert not missing, f"engine links the references page leaves out: {missing}"
    assert "Engine code and documentation" in page or not links
