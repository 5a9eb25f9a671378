"""Every chapter, opened in the learner's JupyterLab as a learner's unsolved copy and run with one
Run > Run All Cells: every cell runs (a failing exercise test does not stop the run), errors only in
exercise test cells, every figure and widget of the solution notebook shown here too, and a chapter
only opened is not marked modified. Screenshots of each figure and widget go to the run's screenshot
folder."""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder import notebooks
from autograder.paths import solution_notebook
from tests.browser import labui

CHAPTERS = sorted(p.name for p in (Path(__file__).resolve().parents[2] / "chapters").glob("[0-9][0-9]_*.ipynb"))


# Chapters whose widgets the interaction tests drive next: their run (page and kernel) is kept.
KEEP = {"01_cost_model.ipynb", "06_batching.ipynb", "08_token_trees.ipynb"}


@pytest.mark.parametrize("notebook", CHAPTERS)
def test_chapter_runs_and_renders(chapter_runs, shots, notebook):
    run = chapter_runs.get(notebook)
    try:
        _check_chapter(run, shots)
    finally:
        if notebook not in KEEP:
            chapter_runs.release(notebook)


def _check_chapter(run, shots):
    page, state, notebook = run.page, run.state, run.notebook
    sources = [c["source"] if c["type"] == "code" else None for c in state]
    stem = notebook.removesuffix(".ipynb")
    problems = []
    if run.dirty_on_open:
        problems.append("opening the notebook marked it modified (closing it would ask to save)")

    for c in state:
        if c["type"] != "code":
            continue
        errors = labui.error_outputs(c)
        if errors and not c["test"]:
            problems.append(f"cell {c['index']} (not an exercise test) shows {errors}")
    problems += [f"cell {c['index']} never ran" for c in state if c["type"] == "code" and c["count"] is None]

    figure_cells = labui.expected_figure_cells(sources)
    widget_cells = labui.expected_widget_cells(sources)
    # What the solution notebook draws, the unsolved copy draws too (found by the cell's source).
    solution = [c.source if c.cell_type == "code" else None for c in notebooks.read(solution_notebook(stem)).cells]
    by_source = {src: c["index"] for c in state if c["type"] == "code" for src in [c["source"]]}
    for kind, wanted, found in (("figure", labui.expected_figure_cells(solution), figure_cells),
                                ("widget", labui.expected_widget_cells(solution), widget_cells)):
        for j in wanted:
            if solution[j] not in by_source:
                problems.append(f"the solution's {kind} cell {j} is not in the learner's copy: {solution[j][:80]!r}")
            else:
                found.add(by_source[solution[j]])
    for c in state:
        i = c["index"]
        if c["type"] != "code" or not c["outputs"]:
            continue
        mimes = labui.output_mimes(c)
        rendered = labui.wait_for_images(page, i)
        for out in rendered:
            bad = labui.BAD_TEXT.search(out["text"])
            if bad:
                problems.append(f"cell {i} shows {bad.group(0)!r}: {out['text'][:300]!r}")
            if out["images"] != out["images_loaded"]:
                problems.append(f"cell {i}: {out['images'] - out['images_loaded']} image(s) did not load")
        n_png = mimes.count("image/png")
        n_widgets = mimes.count(labui.WIDGET_MIME)
        shown_imgs = sum(o["images_loaded"] for o in rendered if not o["widget"])
        shown_widgets = sum(1 for o in rendered if o["widget"])
        if i in figure_cells and n_png == 0:
            problems.append(f"cell {i} draws a figure (plt.show) but has no image output")
        if shown_imgs < n_png:
            problems.append(f"cell {i}: {n_png} figure(s) in the output, {shown_imgs} shown on the page")
        if i in widget_cells and n_widgets == 0:
            problems.append(f"cell {i} ends in a widget but has no widget output: {mimes}")
        if shown_widgets < n_widgets:
            problems.append(f"cell {i}: {n_widgets} widget(s) in the output, {shown_widgets} rendered")
        for out in rendered:
            if out["widget"] and out["images"] == 0 and "Image" in c["source"]:
                problems.append(f"cell {i}: the widget shows no image")
        if n_png or n_widgets:
            area = labui.cell_node(page, i).locator(".jp-OutputArea").first
            area.scroll_into_view_if_needed()
            page.wait_for_timeout(100)
            area.screenshot(path=str(shots / f"{stem}_cell{i:02d}{'_widget' if n_widgets else ''}.png"))

    problems += [f"uncaught error in the page: {e}" for e in page.page_errors]
    for i in widget_cells | figure_cells:
        if state[i]["count"] is None:
            problems.append(f"cell {i} never ran")
    assert not problems, f"{notebook}:\n  " + "\n  ".join(problems)
    print(f"{notebook}: one Run All in {run.seconds:.0f} s; {len(figure_cells)} figure cells, {len(widget_cells)} "
          f"widget cells, all shown")
