"""Every chapter figure keeps the course's drawing rule (specdec/plotting.py) at the size it is drawn:
at most 6.5 inches wide, at most two panels side by side, constrained layout, no text under 9 points.

The chapters are not run again for this: the book's run of each learner's copy (book/executed.py,
the same stored run tests/test_notebooks_run.py makes and checks) records, for every figure it shows,
what the figure does against the rule (book/figures.py, `course_rule`), and its PNG carries the
figure's dots per inch, so its drawn width is read from the image itself.
"""
from __future__ import annotations

import base64
import io

import pytest

from specdec.plotting import COLUMN_INCHES, MAX_PER_ROW, MIN_POINTS, figure, rule_breaks
from tests.helpers import CHAPTERS

# The inline backend saves a figure cropped to what it draws plus 0.1 in of margin on each side.
MARGIN_INCHES = 0.2


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def test_a_figure_drawn_by_the_style_keeps_the_rule():
    plt = _plt()
    fig, axes = figure(2, 2, height=5.0, sharey=True)
    for ax in axes.flat:
        ax.plot([1, 2, 3], [3, 1, 2], label="tokens per round")
        ax.set(title="acceptance by position", xlabel="draft length gamma", ylabel="tokens")
        ax.legend()
    fig.colorbar(axes[0, 1].imshow([[0, 1], [1, 0]]), ax=axes[0, 1])     # beside the grid: not a panel
    axes[1, 0].twinx().set_ylabel("seconds")                             # on its panel: not a panel
    fig.suptitle("A 2 x 2 grid")
    assert fig.get_size_inches()[0] == COLUMN_INCHES and rule_breaks(fig) == []
    plt.close(fig)


@pytest.mark.parametrize("kind", ["10 in wide", "three in a row", "tight layout", "8-point legend"])
def test_a_figure_that_breaks_the_rule_is_named(kind):
    """The check can fail: each way of breaking the rule is found on a figure drawn that way."""
    plt = _plt()
    if kind == "10 in wide":
        fig, ax = plt.subplots(figsize=(10, 3), layout="constrained")
        expected = "10 in wide: at most 6.5"
    elif kind == "three in a row":
        fig, axes = plt.subplots(1, 3, figsize=(6.5, 2.5), layout="constrained")
        expected = f"3 panels side by side: at most {MAX_PER_ROW}"
    elif kind == "tight layout":
        fig, ax = plt.subplots(figsize=(6, 3))
        fig.tight_layout()
        expected = "not drawn with constrained layout"
    else:
        fig, ax = figure(height=3)
        ax.plot([0, 1], label="draft")
        ax.legend(fontsize=8)
        expected = f"text of 8 pt: at least {MIN_POINTS:g}"
    assert rule_breaks(fig) == [expected]
    plt.close(fig)


def test_the_style_refuses_a_figure_it_cannot_draw_legibly():
    with pytest.raises(ValueError, match="3 panels in a row"):
        figure(1, 3)
    with pytest.raises(ValueError, match="at most 6.5 in wide"):
        figure(width=8)


@pytest.mark.slow
@pytest.mark.parametrize("name", CHAPTERS)
def test_every_figure_of_the_chapter_keeps_the_drawing_rule(name, monkeypatch):
    from PIL import Image

    from autograder.paths import CHAPTERS_DIR
    from book import executed as runs

    monkeypatch.setenv("SPECDEC_LAB_PRESET", "test")          # as tests/test_notebooks_run.py runs it
    result, _ = runs.executed(CHAPTERS_DIR / f"{name}.ipynb")
    problems, figures = [], 0
    for i, cell in enumerate(result.notebook.cells):
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if not png:
                continue
            figures += 1
            metadata = output.get("metadata", {})
            if "course_rule" not in metadata:
                problems.append(f"cell {i}: an image not shown as a matplotlib figure (book/figures.py did not see it)")
                continue
            problems += [f"cell {i}: {line}" for line in metadata["course_rule"]]
            image = Image.open(io.BytesIO(base64.b64decode(png)))
            dpi = image.info.get("dpi", (0, 0))[0]
            if not dpi or image.width / dpi > COLUMN_INCHES + MARGIN_INCHES + 0.01:
                problems.append(f"cell {i}: the image is {image.width} px wide at {dpi:.0f} dpi "
                                f"(text drawn past the figure's {COLUMN_INCHES}-in width?)")
    assert not problems, f"{name} ({figures} figures):\n" + "\n".join(problems)
