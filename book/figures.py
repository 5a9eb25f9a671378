"""Figures drawn for the book's column: a size rule and a description, applied as each figure is shown.

A chapter draws some figures 11-15 inches wide for a wide JupyterLab window; on a page they are
shrunk to the column (about 7.5 inches at 100 px per inch), and their 10-point labels to about 5
pixels. The book runs each chapter with `install()` active in the kernel (book/executed.py writes
`STARTUP`, an IPython startup file, into the run's empty HOME), so every figure the inline backend
shows is first fitted to the column (`fit_to_column`) and described (`describe`). A phone shows the
column at about 358 px, where an 8-inch figure's 9-point text is 5 px tall: each figure wider than
`PHONE_INCHES` also gets a phone rendition (`phone_rendition`: a copy laid out by `fit_to_phone`, its
panels stacked in one column, 4.5 inches wide), which travels in the output's metadata and which the
page serves to narrow screens (book/build.py). A learner's JupyterLab never loads this module: what
they see is drawn as the chapter says. What an author does for it: docs/AUTHORING.md, section
"Figures, citations and text in the book".

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

import matplotlib
import numpy as np

from book.figure_text import cross, cut_formulas, legend_trouble, text_extent, text_overlaps, tick_labels

COLUMN_INCHES = 8.0           # the widest figure the book keeps (the column shows ~7.5 in at 100 dpi)
LEGIBLE_INCHES = 10.0         # narrowed no further than this, a figure reads well; wider, regrid first
MIN_POINTS = 9.0              # no text smaller than this after narrowing
# A phone's column is about 358 px: a 4.5-inch figure is shown at 358 / 4.5 = 80 px per inch, so
# 9-point text is 9 / 72 * 80 = 10 px tall. Figures no wider keep their one rendition.
PHONE_INCHES = 4.5
PHONE_PANEL_ASPECT = (0.45, 0.7)  # a stacked panel's height / width, at least and at most
PHONE_WIDEST = 5.0                # a figure whose text collides at 4.5 in may widen this far (9 px text)


def _raise_small_text(fig) -> None:
    for text in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "set_fontsize")):
        try:
            if text.get_fontsize() < MIN_POINTS:
                text.set_fontsize(MIN_POINTS)
        except (TypeError, ValueError):     # artists whose size is not a number of points
            pass


def _relayout(fig) -> None:
    """Lay the figure out again at its new size (a constrained layout does so by itself when drawn).
    Twice: a wrapped title's or label's lines depend on where its panel sits, so the first pass,
    measured with the panels where they were, can leave a title running into the panel above (and a
    legend under a panel, `_legends_below`, is placed again under its x label as now wrapped)."""
    engine = fig.get_layout_engine()
    if engine is not None and type(engine).__name__ == "ConstrainedLayoutEngine":
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "not compatible with tight_layout": keep the figure as it is
        try:
            for _ in range(2):
                fig.tight_layout()
                _anchor_below(fig)
        except Exception:                 # a figure tight_layout cannot handle keeps its own layout
            pass


def collisions(fig) -> list[tuple[int, int]]:
    """Pairs of panels (axes indices; -1 for the suptitle) whose text runs into each other. Panels
    that overlap by design (twin axes, insets, colour bars drawn over a panel) are not compared."""
    renderer = fig.canvas.get_renderer()
    fig.draw_without_rendering()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    boxes = {i: ax.get_tightbbox(renderer) for i, ax in enumerate(axes)}
    frames = {i: ax.get_window_extent(renderer) for i, ax in enumerate(axes)}
    found = [(i, j) for i in boxes for j in boxes if i < j and boxes[i] is not None and boxes[j] is not None
             and not cross(frames[i], frames[j]) and cross(boxes[i], boxes[j])]
    title = getattr(fig, "_suptitle", None)
    if title is not None and title.get_text():
        box = title.get_window_extent(renderer)
        found += [(-1, i) for i, ax in enumerate(axes) if boxes[i] is not None and cross(box, boxes[i])]
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


def _grid_panels(fig):
    """The panels of a figure that is a grid of plain subplots (one gridspec, one cell each; no twins,
    insets or colour bars), row by row, or None."""
    axes = [ax for ax in fig.axes if ax.get_visible()]
    specs = [ax.get_subplotspec() for ax in axes]
    if len(axes) < 2 or any(s is None for s in specs):
        return None
    grid = specs[0].get_gridspec()
    if any(s.get_gridspec() is not grid or len(s.rowspan) != 1 or len(s.colspan) != 1 for s in specs):
        return None
    cells = [(s.rowspan.start, s.colspan.start) for s in specs]
    if len(set(cells)) != len(cells):
        return None
    return [ax for _, ax in sorted(zip(cells, axes), key=lambda t: t[0])]


def _stack(fig, panels: list, width: float, height: float, taller: float = 1.0) -> None:
    """`panels` one under another at `PHONE_INCHES`, each keeping its shape (`taller` times as tall)
    within `PHONE_PANEL_ASPECT`."""
    rows = len({ax.get_subplotspec().rowspan.start for ax in panels})
    columns = -(-len(panels) // rows)
    low, high = PHONE_PANEL_ASPECT
    aspect = min(max(taller * (height / rows) / (width / columns), low), high)
    grid = fig.add_gridspec(len(panels), 1)
    for i, ax in enumerate(panels):
        ax.set_subplotspec(grid[i, 0])
        if len(ax.get_shared_y_axes().get_siblings(ax)) > 1:   # sharey hid the inner panels' values
            ax.tick_params(axis="y", labelleft=True)
        if len(ax.get_shared_x_axes().get_siblings(ax)) > 1:
            ax.tick_params(axis="x", labelbottom=True)
    fig.set_size_inches(PHONE_INCHES, len(panels) * aspect * PHONE_INCHES)
    title = getattr(fig, "_suptitle", None)
    if title is not None:   # the same gap above it as drawn: placed at 98 % of a tall figure, it sat on a panel
        # but inside the figure: drawn above its top edge (y > 1), it left a gap the layout could not close
        title.set_y(min(1.0, 1 - (1 - title.get_position()[1]) * height / fig.get_size_inches()[1]))


def fit_to_phone(fig) -> bool:
    """Lay `fig` (already fitted to the column) out for a phone's column; False, and `fig` untouched,
    when it is no wider than `PHONE_INCHES`.

    Text keeps at least `MIN_POINTS`. A grid of plain panels is stacked in one column at
    `PHONE_INCHES`, each panel keeping its shape (height 0.45-0.7 of its width), when their text stays
    apart; any other figure is narrowed to `PHONE_INCHES` (to `PHONE_WIDEST` at most, if its text
    collides), its height scaled alike but kept at 0.6 of its width or its own height, whichever is less.
    A legend wider than its panel, or covering more data or text than as drawn, then goes under the
    panel (`_legends_below`), the figure growing by its height; stacked panels whose text still runs
    together are tried again a quarter and a half taller. Crowded tick labels are thinned, wrapped titles
    written in lines (`_settle`), and a panel narrowed whole keeps its drawn shape (`_keep_panel_shape`);
    it widens, to `PHONE_WIDEST` at most, while more texts cross than as drawn (`figure_text`).

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig, axes = plt.subplots(2, 2, figsize=(8, 5))
        >>> for ax in axes.flat: _ = ax.set(title="throughput", xlabel="batch size", ylabel="tokens / s")
        >>> fit_to_phone(fig), [round(float(v), 2) for v in fig.get_size_inches()]
        (True, [4.5, 11.25])
        >>> [ax.get_subplotspec().rowspan.start for ax in axes.flat], collisions(fig)
        ([0, 1, 2, 3], [])
        >>> plt.close(fig)
    """
    width, height = (float(v) for v in fig.get_size_inches())
    if width <= PHONE_INCHES + 0.01:
        return False
    _raise_small_text(fig)
    # as drawn: the phone's copy may make no more text collide, and no legend cover more
    # (`phone_rendition` reports against these)
    drawn_overlaps = fig._course_drawn_overlaps = len(text_overlaps(fig))
    fig._course_legend_trouble = legend_trouble(fig)
    renderer = fig.canvas.get_renderer()
    frames = {id(ax): ax.get_window_extent(renderer) for ax in fig.axes}
    drawn_shape = {key: frame.height / max(frame.width, 1) for key, frame in frames.items()}
    _wrap_long_text(fig)
    before = len(collisions(fig))
    for ax in list(fig.axes):  # a grid's unused cell (axis off, nothing drawn) would be a blank panel
        if not ax.axison and not ax.has_data() and not ax.texts and not ax.get_title():
            fig.delaxes(ax)
    panels = _grid_panels(fig)
    if panels is not None:
        original = [ax.get_subplotspec() for ax in panels]
        title = getattr(fig, "_suptitle", None)
        title_y = title.get_position()[1] if title is not None else None
        # a panel shorter than its y label (a long label on a flat panel) runs into the next: a little taller
        for taller in (1.0, 1.25, 1.5):
            if title is not None:
                title.set_y(title_y)
            _stack(fig, panels, width, height, taller)
            _relayout(fig)
            _settle(fig)
            _with_legends_below(fig)
            if len(collisions(fig)) <= before:
                _trim_overflow(fig)
                return True
        for ax, spec in zip(panels, original):
            ax.set_subplotspec(spec)
        if title is not None:
            title.set_y(title_y)
        _restore_legends(fig)          # laid out side by side again, a legend is as wide as it was drawn
    target = PHONE_INCHES
    while True:
        _restore_legends(fig)
        fig.set_size_inches(target, max(height * target / width, min(height, 0.6 * target)))
        _relayout(fig)
        _keep_panel_shape(fig, drawn_shape)
        _settle(fig)
        _with_legends_below(fig)
        if target >= PHONE_WIDEST or (len(collisions(fig)) <= before and len(text_overlaps(fig)) <= drawn_overlaps):
            _trim_overflow(fig)
            return True
        target += 0.25


def _settle(fig) -> None:
    """The phone's layout, finished: wrapped texts written in lines, a y label longer than its panel is
    tall wrapped, an axis whose tick labels run together thinned, a title that touches its panel's top
    tick label raised; laid out again after each step that changed something."""
    if _break_wrapped_lines(fig) | _wrap_ylabels(fig) | _thin_ticks(fig):
        _relayout(fig)
    if _lift_titles(fig):
        _relayout(fig)


def _lift_titles(fig) -> bool:
    """Raise each panel title that touches its panel's top tick label (a title wrapped to the phone's
    width spans the labels' column, where one line drawn over the middle did not); True when one rose."""
    renderer = fig.canvas.get_renderer()
    fig.draw_without_rendering()
    lifted = False
    for ax in fig.axes:
        if not (ax.get_visible() and ax.title.get_visible() and ax.title.get_text().strip()):
            continue
        title = text_extent(ax.title, renderer)
        if any(cross(title, text_extent(t, renderer)) for t in tick_labels(ax.yaxis)):
            ax._set_title_offset_trans(2 * float(matplotlib.rcParams["axes.titlepad"]))
            lifted = True
    return lifted


def _break_wrapped_lines(fig) -> bool:
    """Write each text marked to wrap (`_wrap_long_text`) in lines that fit between it and the figure's
    edges, math kept whole; True when there was one. Left to matplotlib, the wrapping happens only as the
    text is drawn: the layout measured it as one line (a wrapped title's second line hung onto the
    panel's top tick label), a formula could be cut in two (drawn as raw `$...$`), and a suptitle
    placed above the figure's top edge came out one word per line."""
    from matplotlib.text import Text

    renderer = fig.canvas.get_renderer()
    left, right = fig.bbox.x0, fig.bbox.x1
    broke = False
    for text in fig.findobj(lambda a: isinstance(a, Text) and a.get_wrap()):
        text.set_wrap(False)            # a change to the layout even where the words stay on one line
        broke = True
        x = text.get_transform().transform(text.get_position())[0]
        room = {"left": right - x, "right": x - left}.get(text.get_horizontalalignment(),
                                                          2 * min(x - left, right - x))
        room = 0.98 * max(room, 0.5 * fig.bbox.width)
        if text_extent(text, renderer).width > room:
            _wrap_balanced(text, room, renderer)
    return broke


def _wrap_balanced(text, width: float, renderer) -> None:
    """Break `text` into as few lines as fit `width` pixels (`_wrap_to`), then into lines as even as
    that number allows: "p = (0.5, 0.3, 0.2), q = (0.2, 0.6, 0.2)" over two lines breaks between p and q,
    not before the last number."""
    words = text.get_text()
    _wrap_to(text, width, renderer)
    lines, best = text.get_text().count("\n"), text.get_text()
    for _ in range(30):
        width *= 0.96
        text.set_text(words)
        _wrap_to(text, width, renderer)
        if text.get_text().count("\n") > lines:
            break
        best = text.get_text()
    text.set_text(best)


def _wrap_ylabels(fig) -> bool:
    """Wrap each y label longer than its panel's height (it ran into the title above); True when one was."""
    renderer = fig.canvas.get_renderer()
    changed = False
    for ax in fig.axes:
        label = ax.yaxis.label
        if not (ax.get_visible() and ax.axison and label.get_visible() and label.get_text().strip()):
            continue
        room = ax.get_window_extent(renderer).height
        if label.get_window_extent(renderer).height > room + 1:
            _wrap_to(label, room, renderer, along="height")
            changed = True
    return changed


def _crowded(labels, renderer, along: str) -> bool:
    """Whether two neighbouring tick labels come closer than 2 pixels along the axis."""
    boxes = sorted((text_extent(t, renderer) for t in labels), key=lambda b: getattr(b, f"{along}0"))
    return any(getattr(b, f"{along}0") < getattr(a, f"{along}1") + 2 for a, b in zip(boxes, boxes[1:]))


def _thin_ticks(fig) -> bool:
    """Fewer ticks on each axis whose tick labels run into each other (narrowed, a row of 20 integers
    does): every second, third, ... of fixed ticks, their labels alike; fewer bins of a locator that
    chooses its own. True when an axis was thinned.

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig, ax = plt.subplots(figsize=(3, 2)); _ = ax.plot(range(1, 21)); _ = ax.set_xticks(range(1, 21))
        >>> _thin_ticks(fig), [t.get_text() for t in tick_labels(ax.xaxis)][:4]
        (True, ['1', '3', '5', '7'])
        >>> plt.close(fig)
    """
    from matplotlib.ticker import FixedFormatter, FixedLocator, LogLocator, MaxNLocator

    renderer = fig.canvas.get_renderer()
    thinned = False
    for ax in fig.axes:
        for axis, along in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            locator, formatter = axis.get_major_locator(), axis.get_major_formatter()
            fixed = np.asarray(locator.locs) if isinstance(locator, FixedLocator) else None
            words = list(formatter.seq) if isinstance(formatter, FixedFormatter) else None
            for step in range(2, 9):
                labels = tick_labels(axis)
                if len(labels) < 3 or not _crowded(labels, renderer, along):
                    break
                if fixed is not None:
                    axis.set_major_locator(FixedLocator(fixed[::step]))
                    if words is not None and len(words) == len(fixed):
                        axis.set_major_formatter(FixedFormatter(words[::step]))
                elif isinstance(locator, LogLocator):
                    locator.set_params(numticks=max(2, len(labels) // 2))
                elif isinstance(locator, MaxNLocator):
                    locator.set_params(nbins=max(1, len(labels) // 2))
                else:
                    break
                thinned = True
    return thinned


def _keep_panel_shape(fig, drawn: dict[int, float]) -> None:
    """Make the figure taller until no panel is flatter than it was drawn (its height / width in
    `drawn`, by `id`), to 0.7 at most: narrowed with its height scaled alike, a panel loses the height
    its title and labels take, and a single panel under a two-line title was left a strip."""
    renderer = fig.canvas.get_renderer()
    high = PHONE_PANEL_ASPECT[1]
    for _ in range(3):
        short = 0.0
        for ax in fig.axes:
            if ax.get_visible() and id(ax) in drawn:
                frame = ax.get_window_extent(renderer)
                short = max(short, min(drawn[id(ax)], high) * frame.width - frame.height)
        if short <= 1:
            return
        width, height = (float(v) for v in fig.get_size_inches())
        fig.set_size_inches(width, height + short / fig.dpi)
        _relayout(fig)


def _wrap_long_text(fig) -> None:
    """Titles and x labels wrap at the figure's edge (a title longer than 4.5 inches widened the saved
    image past the figure, and so shrank all its text on the page), and a legend wider than the phone's
    figure is laid out in one column."""
    texts = [getattr(fig, "_suptitle", None), *fig.texts]
    for ax in fig.axes:
        texts += [ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None), ax.xaxis.label]
    for text in texts:
        if text is not None and text.get_text():
            text.set_wrap(True)
    renderer = fig.canvas.get_renderer()
    for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]:
        if legend is not None and getattr(legend, "_ncols", 1) > 1 \
                and legend.get_window_extent(renderer).width > 0.9 * PHONE_INCHES * fig.dpi:
            legend.set_ncols(1)


def _legends_below(fig) -> bool:
    """Move each legend that is wider than its panel, or that covers more data points or text than as
    drawn (`figure_text.legend_trouble`, measured by `fit_to_phone`), of a panel alone in its row, under
    the panel, below its x label, in one column, its labels wrapped to the figure's width; True when
    one moved.

    Drawn inside a panel a legend that is wider than the panel covers the neighbouring text, and the
    layout, which makes room for it, squeezes the whole column of panels (and with it their text) to
    its width. Panels are measured as laid out without their legends, so that one wide legend does
    not make every other legend look too wide.

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig, (top, bottom) = plt.subplots(2, 1, figsize=(4.5, 5))
        >>> _ = top.plot([0, 1], label="short"); _ = top.legend()
        >>> _ = bottom.plot([0, 1], label="a label far too long for this panel: " * 3); _ = bottom.legend()
        >>> _legends_below(fig), top.get_legend().get_texts()[0].get_text()
        (True, 'short')
        >>> legend = bottom.get_legend(); renderer = fig.canvas.get_renderer(); _relayout(fig)
        >>> bool(legend.get_window_extent(renderer).y1 < bottom.get_window_extent(renderer).y0)
        True
        >>> bool(legend.get_window_extent(renderer).width <= fig.bbox.width), collisions(fig)
        (True, [])
        >>> plt.close(fig)
    """
    done = {id(legend) for _, legend in getattr(fig, "_course_legends_below", [])}
    legends = [(ax, ax.get_legend()) for ax in fig.axes if ax.get_legend() is not None
               and ax.get_legend().get_visible() and id(ax.get_legend()) not in done]
    if not legends:
        return False
    renderer = fig.canvas.get_renderer()

    frames = [ax.get_window_extent(renderer) for ax in fig.axes if ax.get_visible()]

    def alone_in_its_row(ax) -> bool:     # beside another panel, a legend under it would be as wide as ever
        frame = ax.get_window_extent(renderer)
        return not any(f.y0 < frame.y1 and frame.y0 < f.y1 and not cross(f, frame) for f in frames)

    legends = [(ax, legend) for ax, legend in legends if alone_in_its_row(ax)]

    def wider():
        return [(ax, legend) for ax, legend in legends
                if legend.get_window_extent(renderer).width > ax.get_window_extent(renderer).width + 1]

    drawn = getattr(fig, "_course_legend_trouble", None)       # set by `fit_to_phone`, as drawn
    troubled = []
    if drawn is not None:
        now = legend_trouble(fig)
        troubled = [(ax, legend) for ax, legend in legends if now.get(id(legend), 0) > drawn.get(id(legend), 0)]
    if not wider() and not troubled:
        return False
    for _, legend in legends:
        legend.set_in_layout(False)
    _relayout(fig)
    wide = wider()
    for _, legend in legends:
        legend.set_in_layout(True)
    wide += [pair for pair in troubled if pair not in wide]
    if not wide:
        _relayout(fig)
        return False
    fig._course_legends_below = getattr(fig, "_course_legends_below", []) + wide
    for _, legend in wide:           # as drawn, for `_restore_legends`
        legend._course_drawn = (legend._loc, legend._bbox_to_anchor, legend._ncols,
                                [t.get_text() for t in legend.get_texts()])
    _anchor_below(fig)
    for _, legend in wide:
        legend.set_ncols(1)
        room = fig.bbox.width * 0.95 - (legend.get_window_extent(renderer).width
                                        - max(t.get_window_extent(renderer).width for t in legend.get_texts()))
        for text in legend.get_texts():
            _wrap_to(text, room, renderer)
    return True


def _with_legends_below(fig) -> None:
    """Apply `_legends_below` to `fig` as now laid out; the figure, at its size for the phone, grows by
    the height of every legend under a panel, so that its panels keep theirs."""
    moved = getattr(fig, "_course_legends_below", [])
    if not _legends_below(fig) and not moved:
        return
    renderer = fig.canvas.get_renderer()
    extra = sum(legend.get_window_extent(renderer).height + 6 / 72 * fig.dpi
                for _, legend in fig._course_legends_below) / fig.dpi
    width, height = (float(v) for v in fig.get_size_inches())
    fig.set_size_inches(width, height + extra)
    _relayout(fig)


def _restore_legends(fig) -> None:
    """Put every legend `_legends_below` moved back where the figure drew it."""
    for _, legend in getattr(fig, "_course_legends_below", []):
        loc, anchor, ncols, texts = legend._course_drawn
        legend.set_loc(loc)
        legend.set_bbox_to_anchor(anchor)
        legend.set_ncols(ncols)
        for text, label in zip(legend.get_texts(), texts):
            text.set_text(label)
    fig._course_legends_below = []


def _anchor_below(fig) -> None:
    """Place each legend `_legends_below` moved just under its panel's x label, as laid out now."""
    from matplotlib.transforms import offset_copy

    moved = getattr(fig, "_course_legends_below", [])
    if not moved:
        return
    renderer = fig.canvas.get_renderer()
    for ax, legend in moved:
        legend.set_visible(False)             # the panel's own text under its frame, without the legend
        below = ax.get_window_extent(renderer).y0 - ax.get_tightbbox(renderer).y0
        legend.set_visible(True)
        legend.set_loc("upper center")
        # in points under the frame: the panel's height changes when the figure is laid out again
        legend.set_bbox_to_anchor((0.5, 0.0), transform=offset_copy(
            ax.transAxes, fig=fig, y=-(below * 72 / fig.dpi + 4), units="points"))


def _wrap_to(text, width: float, renderer, along: str = "width") -> None:
    """Break `text` into lines no longer than `width` pixels (measured `along` "width", or "height" for
    a text turned upright, a y label), at spaces outside $...$ (math stays whole), outside short
    brackets (a tuple such as (0.5, 0.3, 0.2) stays on one line) and not beside an `=` or `≈`.

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig = plt.figure(); text = fig.suptitle("Example: p = (0.5, 0.3, 0.2), q = (0.2, 0.6, 0.2)")
        >>> _wrap_to(text, 200, fig.canvas.get_renderer()); text.get_text().split("\\n")
        ['Example:', 'p = (0.5, 0.3, 0.2),', 'q = (0.2, 0.6, 0.2)']
        >>> plt.close(fig)
    """
    import re

    words = re.findall(r"(?:\$[^$]*\$|\([^()$]{0,24}\)|[^\s$])+", text.get_text())
    for i in range(len(words) - 2, 0, -1):         # "p = (0.5, 0.3, 0.2)" is one piece: never "p =" alone
        if words[i] in ("=", "≈") and i + 1 < len(words):
            words[i - 1:i + 2] = [" ".join(words[i - 1:i + 2])]
    lines: list[str] = []
    for word in words:
        text.set_text(f"{lines[-1]} {word}" if lines else word)
        if lines and getattr(text.get_window_extent(renderer), along) <= width:
            lines[-1] = text.get_text()
        else:
            lines.append(word)
    text.set_text("\n".join(lines))


def _trim_overflow(fig) -> None:
    """Narrow the figure by what its text reaches past its edges (the saved image is cropped to its
    text, `bbox_inches="tight"`), so that the image is as wide as the figure was meant to be; no
    narrower than half of `PHONE_INCHES`."""
    goal = float(fig.get_size_inches()[0])
    for _ in range(3):
        drawn = fig.get_tightbbox(fig.canvas.get_renderer()).width
        width, height = (float(v) for v in fig.get_size_inches())
        over = drawn - goal
        if over <= 0.05 or width - over < 0.5 * PHONE_INCHES:
            return
        fig.set_size_inches(width - over, height)
        _relayout(fig)


def smallest_text_pixels(fig, dpi: float | None = None) -> float:
    """The height, in pixels of `fig` drawn at `dpi` (default its own), of its smallest shown text
    (font size in points x dpi / 72); 0 for a figure with no text.

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig, ax = plt.subplots(dpi=100); _ = ax.set_xlabel("gamma", fontsize=9); _ = ax.set_xticks([])
        >>> _ = ax.set_yticks([]); round(smallest_text_pixels(fig), 2)
        12.5
        >>> plt.close(fig)
    """
    from matplotlib.text import Text

    fig.draw_without_rendering()          # tick labels get their text when drawn
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) * (dpi or fig.dpi) / 72 if sizes else 0.0


def phone_rendition(fig) -> dict | None:
    """The phone's copy of `fig` (`fit_to_phone`) as a PNG, base64, with its smallest text in pixels
    (`text_px`) and what its text runs into (`overlaps`: how many pairs of texts crossed as drawn, the
    pairs that cross on the phone, how many legends cover more than as drawn, how many more formulas
    are cut across lines; book tests hold each chapter's figures to no worse than drawn), or None when
    `fig` is narrow enough as it is. `fig` itself is not changed: the copy is
    a deep copy (functions such as a tick formatter's are shared, not copied), detached from pyplot so
    that the inline backend never shows it.

        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig, axes = plt.subplots(1, 2, figsize=(8, 3))
        >>> phone = phone_rendition(fig)
        >>> sorted(phone), phone["text_px"] >= MIN_POINTS / 72 * fig.dpi, fig.get_size_inches().tolist()
        (['image/png', 'overlaps', 'text_px'], True, [8.0, 3.0])
        >>> phone["overlaps"]
        {'drawn': 0, 'phone': [], 'legends_worse': 0, 'formulas_cut': 0}
        >>> phone_rendition(plt.subplots(figsize=(4, 3))[0]) is None      # a narrow figure keeps one rendition
        True
        >>> plt.close("all")
    """
    import base64
    import copy as copying
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas
    manager = canvas.manager
    try:
        canvas.manager = None          # copied without it, the copy is not put into pyplot's figures
        copy = copying.deepcopy(fig)
    except Exception:                  # an artist that cannot be copied: the figure keeps one rendition
        return None
    finally:
        canvas.manager = manager
    FigureCanvasAgg(copy)              # a copied figure has a bare canvas, which cannot measure text
    drawn_cut = cut_formulas(copy)
    if not fit_to_phone(copy):
        return None
    buffer = io.BytesIO()
    copy.savefig(buffer, format="png", dpi=copy.dpi, bbox_inches="tight",
                 facecolor=copy.get_facecolor(), edgecolor=copy.get_edgecolor())
    drawn_trouble, trouble = copy._course_legend_trouble, legend_trouble(copy)
    return {"image/png": base64.b64encode(buffer.getvalue()).decode("ascii"),
            "text_px": round(smallest_text_pixels(copy), 2),
            "overlaps": {"drawn": copy._course_drawn_overlaps, "phone": text_overlaps(copy),
                         "legends_worse": sum(n > drawn_trouble.get(key, 0) for key, n in trouble.items()),
                         "formulas_cut": cut_formulas(copy) - drawn_cut}}


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
    alt text, `course_text_px` (`smallest_text_pixels`) and, for a figure wider than a phone's column,
    `course_phone` (`phone_rendition`), which book/build.py serves to narrow screens."""
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
        try:
            metadata["course_text_px"] = round(smallest_text_pixels(fig), 2)
            phone = phone_rendition(fig)
        except Exception:          # the page then shows the figure alone: never lose it over its copy
            phone = None
        if phone is not None:
            metadata["course_phone"] = phone
        return metadata

    fetch.course_book = True
    inline._fetch_figure_metadata = fetch


STARTUP = "from book.figures import install as _course_book_figures\n_course_book_figures()\ndel _course_book_figures\n"
