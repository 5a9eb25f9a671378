"""The course's drawing rule: a figure is drawn at the size a reader sees it.

The book's column, and a JupyterLab cell at ease, is about `COLUMN_INCHES` wide. A figure drawn
wider is shrunk to fit, and its labels with it: a 12-inch figure's 10-point text reaches the page
at about 5 points. So every chapter figure is drawn by the rule instead:

* at most `COLUMN_INCHES` wide (a page shows it at its drawn size, a phone scales it down and a
  tap opens it full size);
* at most `MAX_PER_ROW` panels side by side (more rows instead: four panels are a 2 x 2 grid);
* laid out by matplotlib's constrained layout (titles, labels, legends and colour bars kept inside
  the figure and apart);
* no text under `MIN_POINTS` (matplotlib's default sizes, 10 points and up, all pass).

`figure` draws such a figure; `rule_breaks` says what a figure, as drawn, does against the rule (the
course's tests hold every chapter figure to it). Neither changes matplotlib's global settings.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> fig, axes = figure(1, 2, height=3.0)
    >>> _ = axes[0].set(title="tokens per round", xlabel="draft length gamma")
    >>> fig.get_size_inches().tolist(), rule_breaks(fig)
    ([6.5, 3.0], [])
    >>> figure(1, 4)
    Traceback (most recent call last):
    ...
    ValueError: 4 panels in a row: at most 2 fit the 6.5-inch column legibly; draw 2 rows of 2
"""
from __future__ import annotations

COLUMN_INCHES = 6.5     # the book's column (about 650 px at 100 px per inch) and a JupyterLab cell
MAX_PER_ROW = 2         # two panels of 3.25 in each still hold a 9-point axis label
MIN_POINTS = 9.0        # the smallest text, in points, at the drawn size


def figure(nrows: int = 1, ncols: int = 1, *, height: float | None = None, width: float = COLUMN_INCHES,
           **subplots):
    """(fig, axes) as `matplotlib.pyplot.subplots(nrows, ncols, ...)` returns them, drawn by the rule:
    `width` inches wide (the column's, unless narrower), `height` inches tall (default 3.4 per row),
    constrained layout. Other keywords (`sharex`, `sharey`, `height_ratios`, `squeeze`, ...) go to
    `subplots`. Refuses more than `MAX_PER_ROW` panels in a row or a figure wider than the column.

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> fig, (top, bottom) = figure(2, 1, height=5.0, sharex=True)
        >>> fig.get_size_inches().tolist(), type(fig.get_layout_engine()).__name__
        ([6.5, 5.0], 'ConstrainedLayoutEngine')
        >>> figure(width=8)
        Traceback (most recent call last):
        ...
        ValueError: a figure 8 in wide is shrunk on the page: draw it at most 6.5 in wide
    """
    import matplotlib.pyplot as plt

    if ncols > MAX_PER_ROW:
        rows = -(-ncols // MAX_PER_ROW)
        raise ValueError(f"{ncols} panels in a row: at most {MAX_PER_ROW} fit the {COLUMN_INCHES}-inch column "
                         f"legibly; draw {rows * nrows} rows of {MAX_PER_ROW}")
    if width > COLUMN_INCHES:
        raise ValueError(f"a figure {width:g} in wide is shrunk on the page: draw it at most {COLUMN_INCHES} in wide")
    height = 3.4 * nrows if height is None else height
    return plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained", **subplots)


def panels_per_row(fig) -> int:
    """The most panels `fig` has side by side: cells of one grid row that hold an axes (twin axes share
    their panel's cell; colour bars and insets, placed outside the grid, do not count)."""
    rows: dict[tuple[int, int], set[int]] = {}
    for ax in fig.axes:
        spec = ax.get_subplotspec() if ax.get_visible() else None
        if spec is None:
            continue
        for row in spec.rowspan:
            rows.setdefault((id(spec.get_gridspec()), row), set()).add(spec.colspan.start)
    return max((len(cols) for cols in rows.values()), default=0)


def smallest_points(fig) -> float:
    """The font size, in points, of the smallest text `fig` shows (tick labels included); 0 for none."""
    from matplotlib.text import Text

    fig.draw_without_rendering()               # tick labels get their text when the figure is drawn
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes, default=0.0)


def rule_breaks(fig) -> list[str]:
    """What `fig`, as drawn now, does against the rule, in words (empty when it keeps it).

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig, axes = plt.subplots(1, 3, figsize=(10, 3))
        >>> _ = axes[0].plot([0, 1], label="draft"); _ = axes[0].legend(fontsize=7)
        >>> for line in rule_breaks(fig): print(line)
        10 in wide: at most 6.5
        3 panels side by side: at most 2
        not drawn with constrained layout
        text of 7 pt: at least 9
        >>> plt.close(fig)
    """
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    breaks = []
    width = float(fig.get_size_inches()[0])
    if width > COLUMN_INCHES + 1e-6:
        breaks.append(f"{width:g} in wide: at most {COLUMN_INCHES:g}")
    if panels_per_row(fig) > MAX_PER_ROW:
        breaks.append(f"{panels_per_row(fig)} panels side by side: at most {MAX_PER_ROW}")
    if not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        breaks.append("not drawn with constrained layout")
    smallest = smallest_points(fig)
    if 0 < smallest < MIN_POINTS - 1e-6:
        breaks.append(f"text of {smallest:g} pt: at least {MIN_POINTS:g}")
    return breaks
