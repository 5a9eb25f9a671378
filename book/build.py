"""`./course book`: the whole course as a static HTML site, readable offline and publishable anywhere.

Pipeline (each step one function):

1. `executed` (book/executed.py): every student notebook of `chapters/`, executed top to bottom as
   a learner's Run All does, taken from the cache of executed notebooks when this version already
   ran (the test suite stores its runs there), else run now and stored.
2. `book_page` (book/pages.py): widgets become static pictures of their initial state, the
   tracebacks of the unsolved test cells one line each.
3. `start_page`: the course map (each chapter, its title and its exercises, as autograder.course_map
   reads them: numbered, named as a learner types them, in the chapter's order); the instructors'
   pages of docs/ as the "For instructors" part (book/instructor_pages.py).
4. Sphinx with MyST-NB and the book theme (book/conf.py) renders the staged sources; MathJax 3 is
   copied into the site from the `sphinx-mathjax-offline` package, so math renders with no network.
5. After Sphinx: `downloads/` gets each chapter's learner notebook and the student bundle as a zip
   (`python -m autograder bundle`); every figure gets its alt text and a link to the full-size image
   (`finish_figures`);
   `_static/course-search-text.js` lets search quote pages offline (book/search_text.py).
6. `external_references`: the build fails if any page would load a script, style sheet, image or
   frame from another host.

The site is `build/book/` (git ignores `build/`); open `build/book/index.html` or copy the folder
to any static host.
"""
from __future__ import annotations

import html
import importlib.metadata
import io
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import notebooks
from autograder.paths import CHAPTERS_DIR, REPO_ROOT

from .executed import executed
from .instructor_pages import instructor_part, stage_instructor_pages
from .pages import book_page
from .references import references_page
from .search_text import write_search_text
from .site_info import BUNDLE_ZIP, DOWNLOADS, site_info
from autograder.course_map import exercise_list, read_chapter

BOOK_DIR = Path(__file__).resolve().parent
SITE_DIR = REPO_ROOT / "build" / "book"
# The parts of the MathJax 3 distribution a tex-chtml page loads (the other combined bundles and the
# SVG output are left out: 9 MB instead of 24).
MATHJAX_PARTS = ("tex-chtml.js", "input", "output/chtml", "a11y", "ui", "adaptors", "sre")
# A page must not load anything from elsewhere: these attributes of these tags are loads.
_LOADS = re.compile(r"<(script|link|img|iframe|source|video|audio)\b[^>]*?\b(src|href)\s*=\s*[\"']"
                    r"((?:https?:)?//[^\"']+)", re.I)


@dataclass
class BookBuild:
    site: Path
    seconds: float                          # the whole build
    sphinx_seconds: float                   # rendering only
    executed: list[str] = field(default_factory=list)    # chapters run during this build
    reused: list[str] = field(default_factory=list)      # chapters taken from the cache


def chapter_paths(chapters_dir: Path = CHAPTERS_DIR) -> list[Path]:
    return sorted(chapters_dir.glob("[0-9][0-9]_*.ipynb"))


def _title(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    raise ValueError("a chapter notebook needs a '# ' title in a markdown cell")


def start_page(chapters: list[tuple[str, nbformat.NotebookNode]], repository_link: str = "") -> str:
    """The start page in MyST markdown: what the book is, the course map, the table of contents.
    `repository_link`: the `<a>` to the course's repository (book/site_info.py), or "" for none.

    >>> nb = notebooks.new_notebook([notebooks.new_markdown("# 01 · Costs")])
    >>> page = start_page([("01_costs", nb)])
    >>> "[01 · Costs](01_costs.ipynb)" in page and "01_costs\\n" in page, "repository" in page
    (True, False)
    >>> link = '<a href="https://example.org/c">Source repository</a>'
    >>> 'its <a href="https://example.org/c">source repository</a>' in start_page([("01_costs", nb)], link)
    True
    """
    rows = []
    for name, nb in chapters:
        # The course map's reader (autograder.course_map), on the page as the book shows it.
        rows.append(f"| [{_title(nb)}]({name}.ipynb) | {exercise_list(read_chapter(name, nb))} |")
    toc = "\n".join([name for name, _ in chapters] + ["references"])
    # The link's text starts a sentence in the footer and sits inside one here.
    source = f" The course's own files are in its {repository_link.replace('>Source repository<', '>source repository<')}." \
        if repository_link else ""
    return f"""# Speculative decoding, an interactive course

A large language model writes one token per pass over its weights. Speculative decoding lets a small
draft model guess several tokens and the large target model check them all in one pass, keeping
exactly the distribution the target alone would produce. This course builds the topic from first
principles: the cost of a decode step, the exact acceptance rule, the speedup, batching, token trees,
drafters, cache rollback, and a lab that measures a real draft/target pair.

This book shows every chapter as it looks after *Run All* in JupyterLab: prose, derivations, code and
its outputs (figures, printed tables, and a picture of each interactive widget in its initial state).
The exercises appear as a learner receives them: the statement, the function to write (a stub that
raises `NotImplementedError`), the visible tests and folded hints; the hidden tests and the solutions
are not part of the book. To run the code, move the widgets and have your answers checked, open the
course in JupyterLab: in its folder, `./course lab` (Python 3.11; the first run installs the pinned
packages, later runs work offline).

<p class="course-get">Get the course: <a href="{DOWNLOADS}/{BUNDLE_ZIP}" download>the whole course (zip)</a>,
unpacked anywhere, then <code>./course lab</code> in its folder; each chapter page also links to its own
notebook.{source} The works the chapters cite are listed, with links, under <a href="references.html">References</a>.</p>

## Course map

| Chapter | Exercises |
|---------|-----------|
{chr(10).join(rows)}

```{{toctree}}
:hidden:
:maxdepth: 1

{toc}
```
"""


def copy_mathjax(site: Path) -> Path:
    """Copy the MathJax 3 parts a page needs from the `sphinx-mathjax-offline` package into the site."""
    dist = importlib.metadata.distribution("sphinx-mathjax-offline")
    source = Path(dist.locate_file("sphinx-mathjax-offline/static/mathjax"))
    if not (source / "tex-chtml.js").is_file():
        raise SystemExit(f"MathJax not found in {source}: reinstall with ./course setup book")
    target = site / "_static" / "mathjax"
    for part in MATHJAX_PARTS:
        src, dst = source / part, target / part
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)
    return target


_IMG = re.compile(r'<img\b(?P<attrs>[^>]*?)\bsrc="(?P<src>_images/(?P<hash>[0-9a-f]{64})\.\w+)"(?P<tail>[^>]*)/?>')
def finish_figures(page: str, alts: dict[str, str], figures: dict[str, dict] | None = None) -> str:
    """Each notebook image of `page` with its alt text (`alts`: SHA-256 of the image -> text) and
    wrapped in a link to itself, so the full-size image is a click (a tap on a phone, where the column
    shows it scaled down) away. `figures` (SHA-256 -> book/pages.py's `text_px`) adds the smallest
    text's height in pixels of the image (`data-text-px`, which the browser tests measure).

    >>> img = '<img alt="_images/' + "a" * 64 + '.png" src="_images/' + "a" * 64 + '.png" />'
    >>> finish_figures(img, {"a" * 64: "Figure: speedup"})[:60]
    '<a class="course-figure" href="_images/aaaaaaaaaaaaaaaaaaaaa'
    >>> page = finish_figures(img, {"a" * 64: "Figure: speedup"}, {"a" * 64: {"text_px": 12.5}})
    >>> 'alt="Figure: speedup"' in page, 'data-text-px="12.5"' in page
    (True, True)
    """
    figures = figures or {}

    def one(m):
        attrs = re.sub(r'\balt="[^"]*"\s*', "", m.group("attrs") + m.group("tail")).strip().rstrip("/").strip()
        alt = html.escape(alts.get(m.group("hash"), "Figure"))
        sizes = figures.get(m.group("hash"), {})
        measured = f' data-text-px="{sizes["text_px"]}"' if "text_px" in sizes else ""
        return (f'<a class="course-figure" href="{m.group("src")}" title="Open the full-size image">'
                f'<img alt="{alt}" src="{m.group("src")}"{measured}{" " + attrs if attrs else ""} /></a>')
    return _IMG.sub(one, page)


# Accessible names that leave out the visible text (axe-core's label-content-name-mismatch): the theme's
# "Search Ctrl+K" button is named "Search", MyST-NB's "Show the plotting code" toggle "Toggle hidden
# content". Without the aria-label the name is the visible text.
_NAME_MISMATCH = re.compile(r'(<(?:button class="btn search-button-field[^"]*"|summary)(?=[ >])[^>]*?) aria-label="[^"]*"')


def finish_page(page: str, alts: dict[str, str], figures: dict[str, dict] | None = None) -> str:
    """A rendered page as the book serves it: figures finished, accessible names matching the text."""
    return _NAME_MISMATCH.sub(r"\1", finish_figures(page, alts, figures))


def write_downloads(site: Path, chapters: list[Path]) -> Path:
    """`downloads/`: each chapter's learner notebook (as `chapters/` holds it) and the student bundle
    (`python -m autograder bundle`: no solutions, no hidden tests) as a zip."""
    import tempfile

    from autograder.authoring.bundle import build_bundle

    folder = site / DOWNLOADS
    folder.mkdir(parents=True, exist_ok=True)
    for path in chapters:
        shutil.copy2(path, folder / path.name)
    with tempfile.TemporaryDirectory(prefix="course-book-bundle-") as tmp:
        bundle = build_bundle(Path(tmp) / "speculative-decoding-course")
        archive = shutil.make_archive(str(Path(tmp) / "course"), "zip", root_dir=bundle.parent, base_dir=bundle.name)
        shutil.move(archive, folder / BUNDLE_ZIP)
    return folder


def external_references(site: Path) -> list[str]:
    """'page: url' for every script, style sheet, image, frame or media a page would load from
    another host (links a reader may click are fine)."""
    found = []
    for page in sorted(site.rglob("*.html")):
        for match in _LOADS.finditer(page.read_text(encoding="utf-8")):
            found.append(f"{page.relative_to(site)}: {html.unescape(match.group(3))}")
    return found


def _render(src: Path, site: Path, doctrees: Path, log: io.StringIO) -> None:
    from sphinx.application import Sphinx

    app = Sphinx(srcdir=str(src), confdir=str(BOOK_DIR), outdir=str(site), doctreedir=str(doctrees),
                 buildername="html", status=log, warning=log, freshenv=True, verbosity=0)
    app.build()
    if app.statuscode:
        raise SystemExit(f"Sphinx failed:\n{log.getvalue()[-4000:]}")


def build_book(site: Path = SITE_DIR, chapters_dir: Path = CHAPTERS_DIR, progress=print,
               cache_dir: Path | None = None) -> BookBuild:
    """Build the site into `site` (replaced if it is an earlier build); return what was done.
    `cache_dir`: where executed chapters are kept (default build/executed/)."""
    start = time.perf_counter()
    try:
        info = site_info()               # a bad repository address fails here, before any chapter runs
    except ValueError as err:
        raise SystemExit(str(err)) from None
    site = Path(site).resolve()
    if site.exists():
        if not (site / ".buildinfo").exists() and any(site.iterdir()):
            raise SystemExit(f"{site} exists and is not an earlier build of the book; give another folder")
        shutil.rmtree(site)
    work = site.with_name(site.name + "-work")          # staged sources, doctrees; removed after
    src, doctrees = work / "src", work / "doctrees"
    shutil.rmtree(work, ignore_errors=True)
    src.mkdir(parents=True)
    result = BookBuild(site=site, seconds=0.0, sphinx_seconds=0.0)
    chapters, alts, figures = [], {}, {}
    for path in chapter_paths(chapters_dir):
        run, reused = executed(path, cache_dir)
        (result.reused if reused else result.executed).append(path.stem)
        progress(f"  {path.stem:<28} {'reused the executed copy' if reused else f'executed in {run.seconds:.1f} s'}")
        page = book_page(run.notebook, path.stem)
        alts.update(page.metadata.pop("course_alt", {}))
        figures.update(page.metadata.pop("course_figures", {}))
        nbformat.write(page, str(src / path.name))
        chapters.append((path.stem, page))
    if not chapters:
        raise SystemExit(f"no chapter notebooks in {chapters_dir}")
    instructors = stage_instructor_pages(src)          # docs/: the "For instructors" part (none in a bundle)
    (src / "index.md").write_text(start_page(chapters, info.repository_link()) + instructor_part(instructors),
                                  encoding="utf-8")
    markdown = {stem: "\n\n".join(c.source for c in page.cells if c.cell_type == "markdown") for stem, page in chapters}
    (src / "references.md").write_text(references_page(markdown), encoding="utf-8")
    log = io.StringIO()
    rendering = time.perf_counter()
    _render(src, work / "html", doctrees, log)        # MyST-NB writes beside its output folder: keep it in work/
    result.sphinx_seconds = time.perf_counter() - rendering
    shutil.move(work / "html", site)
    shutil.rmtree(work)
    copy_mathjax(site)
    for page in site.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        finished = finish_page(text, alts, figures)
        if finished != text:
            page.write_text(finished, encoding="utf-8")
    write_search_text(site)
    progress("  downloads: the learner notebooks and the course as a zip")
    write_downloads(site, chapter_paths(chapters_dir))
    found = external_references(site)
    if found:
        raise SystemExit("the book would load files from other hosts (it must work offline):\n  "
                         + "\n  ".join(found[:20]))
    result.seconds = time.perf_counter() - start
    return result


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="./course book", description=(
        "Build the whole course as a static website: the chapters executed (reused when the test suite "
        "already ran them), the exercises as learners see them, no solutions or hidden tests, no network needed."))
    parser.add_argument("--out", default=str(SITE_DIR), help=f"the site's folder (default {SITE_DIR.relative_to(REPO_ROOT)})")
    args = parser.parse_args(argv)
    from autograder.grading.preflight import environment_problem
    if problem := environment_problem(extras=("book",)):      # Sphinx and its kin are the `book` extra
        raise SystemExit(f"the book refused to build: {problem}.")
    print("Building the course book (chapters executed once, then reused):")
    result = build_book(Path(args.out))
    print(f"The book is in {result.site} ({len(result.executed)} chapters executed, {len(result.reused)} reused; "
          f"{result.seconds:.0f} s, of which Sphinx {result.sphinx_seconds:.0f} s).\n"
          f"Open {result.site / 'index.html'} in a browser, or copy the folder to any static web host.")
    return 0
