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
from tests.helpers import CHAPTERS

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


@pytest.mark.parametrize("width, expected", [(14, 8.0), (6, 6.0)])
def test_figures_are_narrowed_to_the_column(width, expected):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from book.figures import MIN_POINTS, fit_to_column

    fig, ax = plt.subplots(figsize=(width, 3))
    ax.set_xlabel("k", fontsize=6)
    fit_to_column(fig)
    assert fig.get_size_inches()[0] == pytest.approx(expected)
    assert ax.xaxis.label.get_fontsize() >= MIN_POINTS
    plt.close(fig)


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


def _figure(kind: str):
    """A wide figure as the chapters draw them, already fitted to the column as the book's kernel does."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from book.figures import fit_to_column

    shape = {"row of four": (1, 4), "grid of six": (2, 3), "one panel": (1, 1), "twin axes": (1, 1),
             "long title": (1, 1)}[kind]
    fig, axes = plt.subplots(*shape, figsize=(15, 4 * shape[0]), sharey=kind == "row of four", squeeze=False)
    for i, ax in enumerate(axes.flat):
        ax.plot(range(10), [v * (i + 1) for v in range(10)], label="accepted tokens")
        ax.set(title=f"acceptance rate {i}", xlabel="draft length gamma", ylabel="tokens per round")
        ax.legend(fontsize=6)
    if kind == "twin axes":
        axes[0, 0].twinx().set_ylabel("seconds per token")
    if kind == "long title":      # wider than a phone's figure: it wraps instead of widening the image
        axes[0, 0].set_title("Gathering branch [0, 2, 5] of the tree [-1, -1, 0, 0, 1, 2] (blue: prefix, "
                             "green: accepted nodes, grey: dropped)")
        axes[0, 0].legend(["draft kept", "never checked", "target row computed, unused"], ncols=3)
    fig.suptitle("Speculative decoding at a glance")
    fit_to_column(fig)
    return fig


@pytest.mark.parametrize("kind", ["row of four", "grid of six", "one panel", "twin axes", "long title"])
def test_a_phone_rendition_stacks_panels_at_a_phone_width_with_legible_apart_text(kind):
    import base64
    import io

    import matplotlib.pyplot as plt
    from PIL import Image

    from book.figures import (MIN_POINTS, PHONE_INCHES, PHONE_WIDEST, collisions, fit_to_phone,
                              phone_rendition, smallest_text_pixels)

    fig = _figure(kind)
    size, specs, figures = fig.get_size_inches().tolist(), [a.get_subplotspec() for a in fig.axes], plt.get_fignums()
    phone = phone_rendition(fig)
    assert phone is not None, f"a {size[0]}-inch figure got no phone rendition"
    assert fig.get_size_inches().tolist() == size and [a.get_subplotspec() for a in fig.axes] == specs, \
        "drawing the phone rendition changed the figure the desktop page shows"
    assert plt.get_fignums() == figures, \
        "the phone's copy was put among pyplot's figures (the inline backend would show it)"
    image = Image.open(io.BytesIO(base64.b64decode(phone["image/png"])))
    assert image.width <= (PHONE_WIDEST + 0.3) * fig.dpi, f"phone rendition {image.width} px wide at {fig.dpi} dpi"
    assert phone["text_px"] >= MIN_POINTS / 72 * fig.dpi - 0.01
    # the same layout, to look at: one column, at the phone's width, text apart and no smaller than MIN_POINTS
    fit_to_phone(fig)
    assert PHONE_INCHES <= fig.get_size_inches()[0] <= PHONE_WIDEST
    assert smallest_text_pixels(fig, dpi=72) >= MIN_POINTS - 1e-6
    assert collisions(fig) == []
    panels = [a for a in fig.axes if a.get_subplotspec() is not None and a.get_label() != "<colorbar>"]
    if kind in ("row of four", "grid of six"):
        assert {a.get_subplotspec().colspan.start for a in panels} == {0}, "the panels are not in one column"
        assert len({a.get_subplotspec().rowspan.start for a in panels}) == len(panels)
        # each stacked panel shows its values (sharey had hidden those of the inner panels)
        assert all(any(t.get_visible() and t.get_text() for t in a.get_yticklabels()) for a in panels)
    plt.close("all")


def _crowded_figure(kind: str):
    """A figure as a chapter draws it, fitted to the column, whose text is apart as drawn and ran
    together in the phone's copy before book/figures.py checked for it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from book.figures import fit_to_column

    if kind == "thirty ticks":          # chapter 05's speedup against gamma = 1..20, and more
        fig, ax = plt.subplots(figsize=(8, 3))
        ax.plot(range(1, 31), [1 + 2 * (1 - 0.8 ** g) for g in range(1, 31)], marker="o")
        ax.set_xticks(range(1, 31))
        ax.set(title="Speedup against draft length", xlabel="draft length gamma", ylabel="speedup")
    elif kind == "legend over curves":  # a legend in an empty corner of a wide panel
        fig, ax = plt.subplots(figsize=(8, 3))
        x = np.linspace(1, 7, 50)
        for i in range(5):
            ax.plot(x, (0.95 - 0.05 * i) / (1 + np.exp(3 * (x - 4.5))), marker=".", label=f"request {i}, measured")
        ax.set_ylim(0, 1)
        ax.legend(loc="upper right")
        ax.set(title="Survival curves from a confidence head", xlabel="draft position i", ylabel="survival")
    else:                               # "long y label": chapter 04's chi-square against speed
        fig, ax = plt.subplots(figsize=(8.2, 4.8))
        ax.scatter([1.4, 2.4, 3.0, 3.5], [5e3, 35, 40, 200])
        ax.set_yscale("log")
        ax.set(title="Speed cannot tell a broken sampler from a correct one",
               xlabel="tokens per round (what a throughput dashboard sees)",
               ylabel="chi-square of the first two tokens, 35 dof\n(what a distribution test sees)")
    fig.tight_layout()
    fit_to_column(fig)
    return fig


@pytest.mark.parametrize("kind", ["thirty ticks", "legend over curves", "long y label"])
def test_a_phone_rendition_makes_no_text_collide_that_was_apart_as_drawn(kind):
    import matplotlib.pyplot as plt

    from book.figure_text import legend_trouble, text_overlaps
    from book.figures import PHONE_PANEL_ASPECT, fit_to_phone, phone_rendition

    fig = _crowded_figure(kind)
    assert text_overlaps(fig) == [] and set(legend_trouble(fig).values()) <= {0}, "the test's figure collides as drawn"
    checks = phone_rendition(fig)["overlaps"]
    assert checks == {"drawn": 0, "phone": [], "legends_worse": 0, "formulas_cut": 0}, f"the phone's copy: {checks}"
    fit_to_phone(fig)                   # the same layout, to look at
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    if kind == "thirty ticks":
        shown = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        assert 3 <= len(shown) < 30, f"the phone shows ticks {shown}"
    if kind == "legend over curves":    # moved under the panel, below its x label
        assert ax.get_legend().get_window_extent(renderer).y1 < ax.xaxis.label.get_window_extent(renderer).y0
    if kind == "long y label":          # the panel is not squeezed flat under its two-line title
        assert frame.height >= PHONE_PANEL_ASPECT[0] * frame.width, (frame.width, frame.height)
        assert ax.yaxis.label.get_window_extent(renderer).height <= frame.height + 1
    plt.close("all")


def test_a_phone_rendition_breaks_long_titles_between_words_and_formulas():
    """Titles too wide for the phone are written in lines (the layout then makes room for them): never
    inside a formula (a cut `$...$` is drawn as raw text), and a suptitle placed above the figure's top
    edge (as chapter 03 draws its running example) is not cut into a word per line."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from book.figures import fit_to_column, fit_to_phone

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    left.set_title(r"best speedup over $\gamma \leq 30$ (thick line: $S = 1$), every draft cost $c$ and rate $\alpha$")
    right.set(title="best draft length", xlabel="draft cost c (target steps per draft step)")
    fig.suptitle("Running example: p = (0.5, 0.3, 0.2), q = (0.2, 0.6, 0.2), and the rule's three steps", y=1.03)
    fig.tight_layout()
    fit_to_column(fig)
    fit_to_phone(fig)
    texts = [fig._suptitle, left.title, right.title, right.xaxis.label]
    for text in texts:
        for line in text.get_text().split("\n"):
            assert line.count("$") % 2 == 0, f"a formula cut across lines: {text.get_text()!r}"
    assert "\n" in left.title.get_text(), "the long title was not broken into lines"
    assert 2 <= len(fig._suptitle.get_text().split("\n")) <= 3, f"suptitle: {fig._suptitle.get_text()!r}"
    renderer = fig.canvas.get_renderer()
    fig.draw_without_rendering()
    gap = fig._suptitle.get_window_extent(renderer).y0 - max(ax.get_tightbbox(renderer).y1 for ax in fig.axes)
    assert 0 <= gap <= 0.5 * fig.dpi, f"{gap:.0f} px of blank between the suptitle and the top panel"
    plt.close(fig)


@pytest.mark.slow
@pytest.mark.parametrize("name", CHAPTERS)
def test_a_chapters_phone_figures_collide_no_more_than_as_drawn(name, monkeypatch):
    """Every phone rendition of the chapter's figures, as the book shows it (the book's own run of the
    learner's copy, book/executed.py, shared with tests/test_notebooks_run.py): no more pairs of texts
    crossing than in the figure as drawn, no legend covering more data or text, no formula cut."""
    from autograder.paths import CHAPTERS_DIR

    monkeypatch.setenv("SPECDEC_LAB_PRESET", "test")          # as tests/test_notebooks_run.py runs it
    result, _ = runs.executed(CHAPTERS_DIR / f"{name}.ipynb")
    worse, phones = [], 0
    for i, cell in enumerate(result.notebook.cells):
        for output in cell.get("outputs", []):
            phone = output.get("metadata", {}).get("course_phone")
            if not phone:
                continue
            phones += 1
            checks = phone.get("overlaps")
            if checks is None:
                worse.append(f"cell {i}: a phone rendition without its text checks (book/figures.py)")
            elif len(checks["phone"]) > checks["drawn"] or checks["legends_worse"] or checks["formulas_cut"]:
                worse.append(f"cell {i}: {checks['drawn']} pairs of texts cross as drawn; on the phone "
                             f"{checks['phone']}, {checks['legends_worse']} legend(s) cover more, "
                             f"{checks['formulas_cut']} more formula(s) cut across lines")
    assert not worse, f"{name} ({phones} phone renditions):\n" + "\n".join(worse)


def test_a_figure_as_narrow_as_a_phone_keeps_one_rendition():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from book.figures import PHONE_INCHES, fit_to_phone, phone_rendition

    fig, ax = plt.subplots(figsize=(PHONE_INCHES - 0.5, 3))
    ax.set(title="one panel", xlabel="x")
    assert phone_rendition(fig) is None and not fit_to_phone(fig)
    assert fig.get_size_inches()[0] == pytest.approx(PHONE_INCHES - 0.5)
    plt.close(fig)


def test_the_book_kernel_sends_the_phone_rendition_in_the_outputs_metadata(monkeypatch):
    import matplotlib_inline.backend_inline as inline

    from book.figures import install

    monkeypatch.setattr(inline, "_fetch_figure_metadata", inline._fetch_figure_metadata)   # undone after the test
    install()
    fig = _figure("row of four")
    metadata = inline._fetch_figure_metadata(fig)
    assert set(metadata) >= {"course_alt", "course_text_px", "course_phone"}
    assert metadata["course_phone"]["text_px"] > 0 and metadata["course_phone"]["image/png"].startswith("iVBOR")
    assert metadata["course_text_px"] == pytest.approx(9 / 72 * fig.dpi, rel=0.01)   # the legends' 6 pt raised to 9
    import matplotlib.pyplot as plt
    plt.close("all")


def test_the_page_serves_the_phone_rendition_to_narrow_screens_and_the_figure_to_others(tmp_path):
    import hashlib
    import re

    from book.build import PHONE_MEDIA, finish_figures, write_phone_images

    desktop, phone = b"\x89PNG desktop", b"\x89PNG phone"
    encoded = {"image/png": base64.b64encode(desktop).decode(), "text/plain": ""}
    out = nbformat.v4.new_output("display_data", data=encoded, metadata={
        "course_alt": "Speedup (x: gamma)", "course_text_px": 12.5,
        "course_phone": {"image/png": base64.b64encode(phone).decode(), "text_px": 13.75}})
    cell = nbformat.v4.new_code_cell("fig, ax = plt.subplots()")
    cell.outputs = [out]
    nb = nbformat.v4.new_notebook(cells=[cell])
    page = book_page(nb)
    assert "course_phone" not in page.cells[0].outputs[0].metadata, "the page's notebook still carries the phone PNG"
    key = hashlib.sha256(desktop).hexdigest()
    figures = write_phone_images(tmp_path, page.metadata["course_figures"])
    assert (tmp_path / figures[key]["phone"]).read_bytes() == phone
    html_page = finish_figures(f'<img alt="x" src="_images/{key}.png" />', page.metadata["course_alt"], figures)
    source = re.search(r'<source media="([^"]+)" srcset="([^"]+)"', html_page)
    assert source and source.groups() == (PHONE_MEDIA, figures[key]["phone"])
    assert re.search(rf'<a class="course-figure" href="_images/{key}.png"[^>]*><picture><source [^>]+>'
                     rf'<img alt="Figure: Speedup \(x: gamma\)" src="_images/{key}.png"', html_page), html_page


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
