"""Figures drawn for the book's column: a size rule and a description, applied as each figure is shown.

A chapter draws some figures 11-15 inches wide for a wide JupyterLab window; on a page they are
shrunk to the column (about 7.5 inches at 100 px per inch), and their 10-point labels to about 5
pixels. The book runs each chapter with `install()` active in the kernel (book/executed.py writes
an IPython startup file into the run's empty HOME), so every figure the inline backend shows is
first

* narrowed to at most `COLUMN_INCHES` wide, its height scaled by the same factor (text keeps its
  point size, so it grows relative to the figure), its tight layout recomputed;
* given text no smaller than `MIN_POINTS`;
* described: the output's metadata gets `course_alt`, built from the figure's titles and axis
  labels, which book/pages.py turns into the image's alt text.

A learner's JupyterLab never loads this module: what they see is drawn as the chapter says.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(14, 4)); _ = ax.set(title="Speedup", xlabel="gamma", ylabel="x")
    >>> fit_to_column(fig); [round(float(v), 2) for v in fig.get_size_inches()]
    [8.0, 2.29]
    >>> describe(fig)
    'Speedup (x: gamma; y: x)'
    >>> plt.close(fig)
"""
from __future__ import annotations

COLUMN_INCHES = 8.0           # the widest figure the book keeps (the column shows ~7.5 in at 100 dpi)
MIN_POINTS = 9.0              # no text smaller than this after narrowing


def fit_to_column(fig) -> None:
    """Narrow `fig` to `COLUMN_INCHES` (aspect kept) and raise any text below `MIN_POINTS`."""
    width, height = fig.get_size_inches()
    if width > COLUMN_INCHES:
        fig.set_size_inches(COLUMN_INCHES, height * COLUMN_INCHES / width)
    for text in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "set_fontsize")):
        try:
            if text.get_fontsize() < MIN_POINTS:
                text.set_fontsize(MIN_POINTS)
        except (TypeError, ValueError):     # artists whose size is not a number of points
            pass
    engine = fig.get_layout_engine()
    if engine is not None and type(engine).__name__ == "TightLayoutEngine":
        fig.tight_layout()            # a layout computed at the old size would overlap at the new one


def describe(fig) -> str:
    """What `fig` shows, in words: its title(s), then each panel's title and axis labels."""
    parts = []
    if getattr(fig, "_suptitle", None) is not None and fig._suptitle.get_text():
        parts.append(fig._suptitle.get_text())
    for ax in fig.axes:
        title = ax.get_title() or ax.get_title("left") or ax.get_title("right")
        labels = [f"{k}: {v}" for k, v in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())) if v]
        if title or labels:
            parts.append(title + (f" ({'; '.join(labels)})" if labels else ""))
    text = "; ".join(p.strip() for p in dict.fromkeys(parts) if p.strip())
    return text.replace("$", "")


def install() -> None:
    """Apply the rule to every figure the inline backend shows in this kernel."""
    import matplotlib_inline.backend_inline as inline

    original = inline._fetch_figure_metadata
    if getattr(original, "course_book", False):
        return

    def fetch(fig):
        fit_to_column(fig)
        metadata = dict(original(fig) or {})
        description = describe(fig)
        if description:
            metadata["course_alt"] = description
        return metadata or None

    fetch.course_book = True
    inline._fetch_figure_metadata = fetch


STARTUP = "from book.figures import install as _course_book_figures\n_course_book_figures()\ndel _course_book_figures\n"
