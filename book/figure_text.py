"""What a figure's text runs into, measured as drawn: the yardstick book/figures.py lays a phone's copy
out against (a phone's copy must not make text collide that did not as drawn).

A figure narrowed for a phone keeps its text's point size, so everything written on it grows relative
to its panels: tick labels run together, an annotation lands on its neighbour, a legend that sat in
an empty corner now covers the curves. `text_overlaps` lists the pairs of texts whose boxes cross (a
legend counts as one box), and `legend_trouble` counts, for each panel's legend, the data points under
it and the texts it crosses.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(3, 2))
    >>> _ = ax.plot(range(10), range(10), "o", label="tokens")
    >>> _ = ax.annotate("first", (0, 0)); _ = ax.annotate("first, again", (0, 0))
    >>> text_overlaps(fig)
    [('first', 'first, again')]
    >>> _ = ax.legend(loc="center"); list(legend_trouble(fig).values())[0] > 0    # it covers the middle points
    True
    >>> plt.close(fig)
"""
from __future__ import annotations

import numpy as np


def text_extent(text, renderer):
    """`text`'s box as drawn: a wrapping text (`set_wrap`) is measured as wrapped, which its own
    `get_window_extent` does not do, and an annotation without its arrow (a long diagonal arrow's
    box would cross every text near it)."""
    from matplotlib.text import Text

    if text.get_wrap():
        with text._cm_set(text=text._get_wrapped_text()):
            return Text.get_window_extent(text, renderer)
    return Text.get_window_extent(text, renderer)


def _shown(text) -> bool:
    return text is not None and text.get_visible() and bool(text.get_text().strip())


def tick_labels(axis) -> list:
    """The tick labels `axis` draws (those of ticks inside the view), none for an axis switched off."""
    if not axis.axes.axison or not axis.get_visible():
        return []
    return [label for tick in axis._update_ticks() if tick.get_visible()
            for label in (tick.label1, tick.label2) if _shown(label)]


def text_boxes(fig) -> list[tuple[str, object]]:
    """(what it says, its box in pixels) for every text `fig` draws: tick labels, axis labels, titles,
    annotations, figure texts; each legend as one box."""
    renderer = fig.canvas.get_renderer()
    fig.draw_without_rendering()
    texts, legends = [], [*fig.legends]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis in (ax.xaxis, ax.yaxis):
            texts += tick_labels(axis)
            if ax.axison:
                texts += [axis.label, axis.offsetText]
        texts += [ax.title, ax._left_title, ax._right_title, *ax.texts]
        legends.append(ax.get_legend())
    texts += [fig._suptitle, *fig.texts]
    boxes = {id(t): (t.get_text(), text_extent(t, renderer)) for t in texts if _shown(t)}
    boxes.update({id(lg): ("legend", lg.get_window_extent(renderer)) for lg in legends
                  if lg is not None and lg.get_visible()})
    return list(boxes.values())


def cross(a, b, slack: float = 1.0) -> bool:
    """Whether boxes `a` and `b` (pixels) overlap by more than `slack` pixels each way."""
    return a.x0 < b.x1 - slack and b.x0 < a.x1 - slack and a.y0 < b.y1 - slack and b.y0 < a.y1 - slack


def text_overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of texts of `fig` (their words; "legend" for a legend) whose boxes cross by more than a pixel."""
    boxes = text_boxes(fig)
    return [(boxes[i][0], boxes[j][0]) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
            if cross(boxes[i][1], boxes[j][1])]


def _data_points(ax, renderer) -> np.ndarray:
    """Where `ax` draws data, in pixels: its lines' vertices, its scatters' points, the top edge of
    its bars; only those inside the panel."""
    points = [np.empty((0, 2))]
    for line in ax.get_lines():
        xy = np.asarray(line.get_xydata(), dtype=float)
        if line.get_visible() and xy.size:
            points.append(line.get_transform().transform(xy))
    for collection in ax.collections:
        offsets = np.asarray(collection.get_offsets(), dtype=float)
        if collection.get_visible() and offsets.size and offsets.ndim == 2:
            points.append(collection.get_offset_transform().transform(offsets))
    for patch in ax.patches:
        if patch.get_visible():
            box = patch.get_window_extent(renderer)
            points.append(np.array([[box.x0, box.y1], [(box.x0 + box.x1) / 2, box.y1], [box.x1, box.y1]]))
    xy = np.concatenate(points)                                           # shape (n, 2)
    frame = ax.get_window_extent(renderer)
    inside = (xy[:, 0] >= frame.x0) & (xy[:, 0] <= frame.x1) & (xy[:, 1] >= frame.y0) & (xy[:, 1] <= frame.y1)
    return xy[np.isfinite(xy).all(axis=1) & inside]


def legend_trouble(fig) -> dict[int, int]:
    """For each panel's shown legend (keyed by `id(legend)`): the data points under it plus the texts
    its box crosses."""
    renderer = fig.canvas.get_renderer()
    fig.draw_without_rendering()
    boxes = [box for words, box in text_boxes(fig) if words != "legend"]
    trouble = {}
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible() or not ax.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        xy = _data_points(ax, renderer)
        under = int(((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)).sum())
        trouble[id(legend)] = under + sum(bool(cross(box, other)) for other in boxes)
    return trouble


def cut_formulas(fig) -> int:
    """How many texts of `fig` have a line with an odd number of `$`: a formula cut across lines,
    which matplotlib draws as raw TeX.

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig, ax = plt.subplots(); _ = ax.set_title("rate $\\alpha$"); _ = ax.set_xlabel("cost $c\\n= 1$")
        >>> cut_formulas(fig)
        1
        >>> plt.close(fig)
    """
    from matplotlib.text import Text

    return sum(any(line.count("$") % 2 for line in t.get_text().split("\n"))
               for t in fig.findobj(Text) if t.get_visible())
