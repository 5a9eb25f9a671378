"""What the book records about each figure a chapter shows: its description and its drawing rule.

Chapters draw their figures by the course's drawing rule (specdec/plotting.py): at most the column's
width, two panels a row, constrained layout, text of 9 points and up; the book shows them as drawn.
When the book runs a chapter (book/executed.py writes `STARTUP`, an IPython startup file, into the
run's empty HOME), `install` adds to every figure output's metadata what the page and the tests need:
`course_alt`, the figure's description (`describe`), which book/pages.py makes the image's alt text;
`course_text_px`, its smallest text in pixels of the image, which the page passes on to the browser
tests; and `course_rule`, what the figure does against the drawing rule (`rule_breaks`; the tests hold
every chapter figure to an empty list). A learner's JupyterLab never loads this module.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
    >>> _ = ax.set(title="Speedup", xlabel="$\\\\gamma$", ylabel="x")
    >>> describe(fig), figure_metadata(fig)[1]["course_rule"]
    ('Speedup (x: \\\\gamma; y: x)', [])
    >>> plt.close(fig)
"""
from __future__ import annotations

from specdec.plotting import rule_breaks, smallest_points


def describe(fig) -> str:
    """What `fig` shows, in words: its title(s), then each panel's title and axis labels."""
    title = fig.get_suptitle()
    parts = [title] if title else []
    for ax in fig.axes:
        panel = ax.get_title() or ax.get_title("left") or ax.get_title("right")
        labels = [f"{k}: {v}" for k, v in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())) if v]
        if panel or labels:
            parts.append(panel + (f" ({'; '.join(labels)})" if labels else ""))
    text = "; ".join(p.strip() for p in dict.fromkeys(parts) if p.strip())
    return text.replace("$", "")


def figure_metadata(fig) -> tuple[dict, dict]:
    """IPython's mime-bundle answer for `fig`: no data of its own (the inline backend draws the PNG)
    and the metadata the book keeps with the figure's output."""
    return {}, {"course_alt": describe(fig), "course_text_px": round(smallest_points(fig) * fig.dpi / 72, 2),
                "course_rule": rule_breaks(fig)}


def install(shell=None) -> None:
    """Have IPython's display machinery (`shell`, default the running one) attach `figure_metadata` to
    every matplotlib figure it shows: a mime-bundle formatter registered for the Figure type, which
    IPython merges with the inline backend's PNG (IPython's documented formatter API)."""
    from IPython import get_ipython

    shell = shell or get_ipython()
    shell.display_formatter.mimebundle_formatter.for_type_by_name("matplotlib.figure", "Figure", figure_metadata)


STARTUP = "from book.figures import install as _course_book_figures\n_course_book_figures()\ndel _course_book_figures\n"
