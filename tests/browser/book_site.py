"""The book the browser tests read: built once for this checkout and shared by every test process.

The suite runs on several workers (pytest-xdist), in any order. Each book test asks `built_book()`,
which builds the site (`book.build.build_book`, executing only the chapters book/executed.py has no
run of) into `build/book-test/<key>/site`, under a lock, so that the first worker builds and the
others wait and reuse it. The key hashes what the site is made of: the book's own sources, the
instructors' pages of docs/ and the cache key of every chapter's run (the chapter, the course
library, the pins); a change to any of them builds a new site (sites older than `KEEP_SECONDS` are
removed then; a younger one may still be read by a test process of an earlier run). `COURSE_BOOK_SITE=build/book-test/<key>/site` tests
that site as it is (to rerun the browser tests while the checkout changes under them).

`offline_context` opens the site as the book tests read it: a browser context that may load files
and nothing else.

    >>> len(site_key()) == 16 and site_key() == site_key()
    True
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.paths import REPO_ROOT

ROOT = REPO_ROOT / "build" / "book-test"
KEEP_SECONDS = 2 * 3600
AXE = REPO_ROOT / "build" / "npm" / "node_modules" / "axe-core" / "axe.min.js"


@dataclass(frozen=True)
class BuiltBook:
    site: Path
    seconds: float
    sphinx_seconds: float
    executed: list[str]      # chapters run for this build (empty when every run was cached)
    reused: list[str]        # chapters taken from the cache
    built_now: bool          # False: an earlier test process built it


def site_key() -> str:
    from book.build import BOOK_DIR, chapter_paths
    from book.executed import cache_key
    from book.instructor_pages import DOCS_DIR, INSTRUCTOR_PAGES

    h = hashlib.sha256()
    for path in sorted(BOOK_DIR.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(BOOK_DIR)).encode() + b"\0" + path.read_bytes())
    for chapter in chapter_paths():
        h.update(chapter.name.encode() + cache_key(chapter).encode())
    for name in INSTRUCTOR_PAGES:                                     # the "For instructors" part
        page = DOCS_DIR / f"{name}.md"
        h.update(name.encode() + (page.read_bytes() if page.is_file() else b"\0"))
    return h.hexdigest()[:16]


def built_book() -> BuiltBook:
    """The site for this checkout, built now or by an earlier test process."""
    from book.build import build_book

    if os.environ.get("COURSE_BOOK_SITE"):
        site = Path(os.environ["COURSE_BOOK_SITE"]).resolve()
        info = json.loads((site.parent / "build.json").read_text())
        return BuiltBook(site=site, built_now=False, **info)
    ROOT.mkdir(parents=True, exist_ok=True)
    key = site_key()
    folder = ROOT / key
    record = folder / "build.json"
    with open(ROOT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if record.is_file():
            info = json.loads(record.read_text())
            return BuiltBook(site=folder / "site", built_now=False, **info)
        for old in ROOT.iterdir():
            if old.is_dir() and old.name != key and time.time() - old.stat().st_mtime > KEEP_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)            # a build that was interrupted
        result = build_book(folder / "site", progress=lambda line: None)
        info = {"seconds": result.seconds, "sphinx_seconds": result.sphinx_seconds,
                "executed": result.executed, "reused": result.reused}
        record.write_text(json.dumps(info))
        return BuiltBook(site=result.site, built_now=True, **info)


OFFLINE_LOADS = re.compile(r"^(?!file:|data:|blob:).*")     # what a page read from disk may not load


def offline_context(chromium, width: int = 1400, height: int = 900, mode: str | None = None):
    """(context, page): a browser context `width` x `height` px that may read files and nothing else.
    Every other request is aborted and listed in `page.refused`; `page.errors` lists the page's
    script errors and `page.console_errors` its console errors. `mode` ("light" or "dark") is the
    theme's colour mode, stored where the theme keeps a reader's choice (localStorage); None leaves
    the theme's default. The caller closes the context."""
    context = chromium.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(30_000)
    refused: list[str] = []

    def guard(route):
        refused.append(route.request.url)
        route.abort()

    context.route(OFFLINE_LOADS, guard)
    if mode is not None:
        context.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
    page = context.new_page()
    page.refused, page.errors, page.console_errors = refused, [], []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: page.console_errors.append(msg.text) if msg.type == "error" else None)
    return context, page
