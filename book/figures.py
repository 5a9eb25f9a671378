"""Figures drawn for the book's column: a size rule and a description, applied as each figure is shown.

A chapter draws some figures 11-15 inches wide for a wide JupyterLab window; on a page they are
shrunk to the column (about 7.5 inches at 100 px per inch), and their 10-point labels to about 5
pixels. The book runs each chapter with `install()` active in the kernel (book/executed.py writes
`STARTUP`, an IPython startup file, into the run's empty HOME), so every figure the inline backend
shows is first fitted to the column (`fit_to_column`) and described (`describe`). A learner's
JupyterLab never loads this module: what they see is drawn as the chapter says. What an author does
for it: docs/AUTHORING.md, section "Figures, citations and text in the book".

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(14, 4)); _ = ax.set(title="Speedup", xlabel="gamma", ylabel="x")
    >>> fit_to_column(fig); [round(float(v), 2) for v in fig.get_size_inches()], describe(fig)
    ([8.0, 2.29], 'Speedup (x: gamma; y: x)')
    >>> plt.close(fig)
"""
from __future__ import annotations

import warnings

COLUMN_INCHES = 8.0           # the widest figure the book keeps (the column shows ~7.5 in at 100 dpi)
LEGIBLE_INCHES = 10.0         # narrowed no further than this, a figure reads well; wider, regrid first
MIN_POINTS = 9.0              # no text smaller than this after narrowing


def _raise_small_text(fig) -> None:
    for text in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "set_fontsize")):
        try:
            if text.get_fontsize() < MIN_POINTS:
                text.set_fontsize(MIN_POINTS)
        except (TypeError, ValueError):     # artists whose size is not a number of points
            pass


def _relayout(fig) -> None:
    """Lay the figure out again at its new size (a constrained layout does so by itself when drawn)."""
    engine = fig.get_layout_engine()
    if engine is not None and type(engine).__name__ == "ConstrainedLayoutEngine":
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "not compatible with tight_layout": keep the figure as it is
        try:
            fig.tight_layout()
        except Exception:                 # a figure tight_layout cannot handle keeps its own layout
            pass


def _overlap(a, b, slack: float = 1.0) -> bool:
    return a.x0 < b.x1 - slack and b.x0 < a.x1 - slack and a.y0 < b.y1 - slack and b.y0 < a.y1 - slack


def collisions(fig) -> list[tuple[int, int]]:
    """Pairs of panels (axes indices; -1 for the suptitle) whose text runs into each other. Panels
    that overlap by design (twin axes, insets, colour bars drawn over a panel) are not compared."""
    renderer = fig.canvas.get_renderer()
    fig.draw_without_rendering()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    boxes = {i: ax.get_tightbbox(renderer) for i, ax in enumerate(axes)}
    frames = {i: ax.get_window_extent(renderer) for i, ax in enumerate(axes)}
    found = [(i, j) for i in boxes for j in boxes if i < j and boxes[i] is not None and boxes[j] is not None
             and not _overlap(frames[i], frames[j]) and _overlap(boxes[i], boxes[j])]
    title = getattr(fig, "_suptitle", None)
    if title is not None and title.get_text():
        box = title.get_window_extent(renderer)
        found += [(-1, i) for i, ax in enumerate(axes) if boxes[i] is not None and _overlap(box, boxes[i])]
    return found


def _narrow(fig, width: float, height: float, allowed: int, widest: float | None = None) -> bool:
    """Try 8, 9, ... inches up to `widest` (height scaled alike); True when one keeps at most
    `allowed` collisions."""
    target = COLUMN_INCHES
    while target < min(width, widest or width):
        fig.set_size_inches(target, height * target / width)
        _relayout(fig)
        if len(collisions(fig)) <= allowed:
            return True
        target += 1.0
    return False


def _one_row(fig):
    """The panels of a figure that is a single row of plain subplots (no twins, insets or colour
    bars), left to right, or None."""
    axes = [ax for ax in fig.axes if ax.get_visible()]
    specs = [ax.get_subplotspec() for ax in axes]
    if len(axes) < 2 or any(s is None for s in specs):
        return None
    grid = specs[0].get_gridspec()
    if any(s.get_gridspec() is not grid for s in specs) or grid.nrows != 1 or grid.ncols != len(axes):
        return None
    cols = [s.colspan.start for s in specs]
    if sorted(cols) != list(range(len(axes))) or any(len(s.colspan) != 1 for s in specs):
        return None
    return [ax for _, ax in sorted(zip(cols, axes), key=lambda t: t[0])]


def _regrid(fig, panels: list, columns: int, width: float, height: float, allowed: int) -> bool:
    """Lay `panels` out in `columns` columns at the column's width; True when their text stays apart."""
    rows = -(-len(panels) // columns)
    grid = fig.add_gridspec(rows, columns)
    for i, ax in enumerate(panels):
        ax.set_subplotspec(grid[i // columns, i % columns])
    panel_aspect = height / (width / len(panels))          # a panel keeps its shape
    fig.set_size_inches(COLUMN_INCHES, rows * panel_aspect * COLUMN_INCHES / columns)
    _relayout(fig)
    return len(collisions(fig)) <= allowed


def fit_to_column(fig) -> None:
    """Narrow `fig` towards `COLUMN_INCHES` while its panels' text stays apart, and raise any text
    below `MIN_POINTS`.

    Its height is scaled by the same factor (text keeps its point size, so it grows relative to the
    figure) and its layout recomputed: to the narrowest of 8, 9 or 10 inches at which no two panels'
    titles, labels or legends run into each other; failing that, a single row of panels is laid out
    again in two columns (a row of four becomes a 2 x 2 grid), or one; failing that, as narrow as its
    text allows, or as drawn (overlapping text is worse than small text).

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig, axes = plt.subplots(1, 4, figsize=(14, 3))
        >>> for ax in axes: _ = ax.set_title("a title far too long for a quarter of the column")
        >>> fit_to_column(fig); [ax.get_subplotspec().rowspan.start for ax in axes], collisions(fig)
        ([0, 0, 1, 1], [])
        >>> plt.close(fig)
    """
    _raise_small_text(fig)
    width, height = (float(v) for v in fig.get_size_inches())
    if width <= COLUMN_INCHES:
        return
    if _narrow(fig, width, height, 0, widest=LEGIBLE_INCHES + 0.5):
        return
    panels = _one_row(fig)
    if panels is not None:
        original = [ax.get_subplotspec() for ax in panels]
        for columns in (2, 1):
            if columns < len(panels) and _regrid(fig, panels, columns, width, height, 0):
                return
        for ax, spec in zip(panels, original):
            ax.set_subplotspec(spec)
    if _narrow(fig, width, height, 0):   # as narrow as the text allows, if not to the column
        return
    fig.set_size_inches(width, height)
    _relayout(fig)
    before = len(collisions(fig))        # drawn with overlaps already: narrow as long as it adds none
    if before and _narrow(fig, width, height, before):
        return
    fig.set_size_inches(width, height)
    _relayout(fig)


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
    """Apply the rule to every figure the inline backend shows in this kernel: `fit_to_column`, and
    the output's metadata gets `course_alt` (`describe`), which book/pages.py turns into the image's
    alt text."""
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
