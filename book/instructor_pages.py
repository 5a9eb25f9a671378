"""The book's "For instructors" part: the instructor's pages of `docs/`, rendered beside the chapters.

The README links these pages and the book shows them, so they have one source: `docs/NAME.md`,
staged as `NAME.md` next to the chapters (MyST resolves the pages' links to each other, `hub.md`,
there as on GitHub). A student bundle has no `docs/`: its book has no such part.

    >>> import tempfile, pathlib
    >>> docs, src = (pathlib.Path(tempfile.mkdtemp()) for _ in range(2))
    >>> _ = (docs / "hub.md").write_text("# A class on JupyterHub\\n")
    >>> stage_instructor_pages(src, docs)
    ['hub']
    >>> print(instructor_part(["hub"]).strip())          # the menu's part; the start page links "instructors"
    ```{toctree}
    :hidden:
    :caption: For instructors
    :maxdepth: 1
    <BLANKLINE>
    hub
    ```
    >>> instructor_part([])
    ''
"""
from __future__ import annotations

import shutil
from pathlib import Path

from autograder.paths import REPO_ROOT

DOCS_DIR = REPO_ROOT / "docs"
# In the part's order. docs/AUTHORING.md, docs/EXERCISES.md and docs/ARCHITECTURE.md are for the
# course's authors and stay in the repository.
INSTRUCTOR_PAGES = ("instructors", "hub", "cluster", "threat-model", "publishing", "benchmarks")
PART_CAPTION = "For instructors"


def stage_instructor_pages(src: Path, docs: Path = DOCS_DIR) -> list[str]:
    """Copy each page of `INSTRUCTOR_PAGES` that `docs` holds into `src`; return the names staged."""
    staged = []
    for name in INSTRUCTOR_PAGES:
        page = Path(docs) / f"{name}.md"
        if page.is_file():
            shutil.copy2(page, Path(src) / page.name)
            staged.append(name)
    return staged


def instructor_part(names: list[str]) -> str:
    """The start page's second table of contents: the part's pages under their caption in the menu."""
    if not names:
        return ""
    intro = (f"\n**{PART_CAPTION}**: releasing the chapters to a class, grading them in a sandbox, JupyterHub "
             f"and Dask, publishing this book, the course's measurements; start at [Teaching a class](instructors.md) "
             f"(the menu lists the part's pages).\n") if "instructors" in names else ""
    return intro + "\n```{toctree}\n:hidden:\n:caption: " + PART_CAPTION + "\n:maxdepth: 1\n\n" + "\n".join(names) + "\n```\n"
