"""Fixtures of the browser tests: the learner's JupyterLab (`./course lab` on a copy of chapters/)
and a folder for screenshots; the browser, Debian's Chromium driven by Playwright for Python, is the
session fixture `chromium` of tests/conftest.py (one per test process, `tests.chromium`).

The tests skip, saying why, only when Chromium or playwright is missing on this machine; CI
installs both (`apt-get install chromium`, `pip install playwright`; Playwright's own browser
downloads are never used). COURSE_CHROMIUM overrides the browser's path.
"""
from __future__ import annotations

import atexit
import itertools
import signal
import time
from pathlib import Path

import pytest

from tests.browser.labserver import REPO_ROOT, start_lab
from tests.chromium import SHOTS
from tests.chromium import missing as _missing

VIEWPORT = {"width": 1400, "height": 900}


def pytest_collection_modifyitems(config, items):
    # The book's tests last: its build then reuses the chapters tests/test_notebooks_run.py executed.
    items.sort(key=lambda item: Path(str(item.fspath)).name == "test_book.py")
    reason = _missing()
    here = Path(__file__).parent
    for item in items:
        uses_browser = {"lab", "page", "chromium", "chapter_runs"} & set(getattr(item, "fixturenames", ()))
        if here in Path(str(item.fspath)).parents and uses_browser:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)          # minutes: `-m "not slow"` leaves them out
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
        if "book" in getattr(item, "fixturenames", ()):
            # Every test of the built site on one worker: a second worker would only wait on the
            # site's lock while the first builds it (minutes), instead of running other tests.
            item.add_marker(pytest.mark.xdist_group("book_site"))


@pytest.fixture(scope="session")
def shots() -> Path:
    """The screenshot folder, emptied once per run at session start (never inside the repository)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    print(f"\nbrowser screenshots: {SHOTS}")
    return SHOTS


@pytest.fixture(scope="session")
def chapter_files() -> list[Path]:
    return sorted((REPO_ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))


@pytest.fixture(scope="session")
def lab(chapter_files, tmp_path_factory):
    """`./course lab` serving a copy of chapters/, shut down (kernels, terminals, process group)
    when the session ends, whatever happened."""
    server = None
    previous = signal.getsignal(signal.SIGTERM)

    def terminate(signum, frame):            # a killed test run still runs this fixture's finally
        raise SystemExit(f"terminated by signal {signum}")

    signal.signal(signal.SIGTERM, terminate)
    try:
        server = start_lab(chapter_files, tmp_path_factory.mktemp("lab"))
        atexit.register(server.stop)         # and an interpreter that exits early stops it too
        yield server
    finally:
        signal.signal(signal.SIGTERM, previous)
        if server is not None:
            server.stop()
            atexit.unregister(server.stop)


_WORKSPACES = itertools.count(1)


def _open_lab(chromium, lab):
    """A new browser context with JupyterLab loaded in a workspace of its own (a shared one would
    reopen the notebooks of earlier tests, each with a kernel); returns (context, page)."""
    context = chromium.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    page = context.new_page()
    problems = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.goto(lab.url(f"lab/workspaces/test-{next(_WORKSPACES)}") + "&reset")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=60_000)
    page.wait_for_selector(".jp-DirListing-item", timeout=60_000)
    page.page_errors = problems
    return context, page


def _kernels_and_terminals(lab) -> set[tuple[str, str]]:
    out = set()
    status, sessions = lab.api("api/sessions")
    out |= {("sessions", s["id"]) for s in (sessions if status == 200 else [])}
    status, kernels = lab.api("api/kernels")
    out |= {("kernels", k["id"]) for k in (kernels if status == 200 else [])}
    status, terminals = lab.api("api/terminals")
    out |= {("terminals", t["name"]) for t in (terminals if status == 200 else [])}
    return out


def _shut_down(lab, items) -> None:
    for kind, name in items:
        lab.api(f"api/{kind}/{name}", method="DELETE")


def _shut_notebook_kernel(lab, path: str) -> None:
    """End the sessions of notebook `path` (which shuts their kernels down)."""
    status, sessions = lab.api("api/sessions")
    for session in sessions if status == 200 else []:
        if session.get("path", "").endswith(path):
            lab.api(f"api/sessions/{session['id']}", method="DELETE")


class ChapterRun:
    """A chapter opened in its own browser context and run with one Run All (failing exercise tests
    do not stop it); `page` stays open on it, its kernel alive, until released. `dirty_on_open`:
    whether JupyterLab marked the notebook modified before anything was done to it."""

    def __init__(self, notebook, context, page, state, seconds, dirty_on_open):
        self.notebook, self.context, self.page = notebook, context, page
        self.state, self.seconds, self.dirty_on_open = state, seconds, dirty_on_open


class ChapterRuns:
    """Runs each chapter once per session: the chapter test and a widget test of the same chapter
    share the run. `release` closes the page and shuts the chapter's kernel down."""

    def __init__(self, chromium, lab):
        self.chromium, self.lab = chromium, lab
        self.runs: dict[str, ChapterRun | BaseException] = {}

    def get(self, notebook: str) -> ChapterRun:
        from tests.browser import labui

        if notebook not in self.runs:
            context = None
            try:
                context, page = _open_lab(self.chromium, self.lab)
                start = time.monotonic()
                labui.open_notebook(page, notebook)
                page.wait_for_timeout(1000)              # the kernel's info arrives: metadata settle
                dirty = labui.is_dirty(page)
                state = labui.run_all(page, timeout=300)
                self.runs[notebook] = ChapterRun(notebook, context, page, state, time.monotonic() - start, dirty)
            except BaseException as exc:
                self.runs[notebook] = exc
                if context is not None:
                    context.close()
                _shut_notebook_kernel(self.lab, notebook)
                raise
        run = self.runs[notebook]
        if isinstance(run, BaseException):
            pytest.fail(f"{notebook} could not be run in JupyterLab: {run}")
        return run

    def release(self, notebook: str) -> None:
        run = self.runs.get(notebook)
        if isinstance(run, ChapterRun):
            run.context.close()
            _shut_notebook_kernel(self.lab, notebook)
            del self.runs[notebook]          # a later test of this chapter runs it again

    def close(self) -> None:
        for notebook in list(self.runs):
            self.release(notebook)


@pytest.fixture(scope="session")
def chapter_runs(chromium, lab):
    runs = ChapterRuns(chromium, lab)
    try:
        yield runs
    finally:
        runs.close()


@pytest.fixture
def page(chromium, lab):
    """A fresh browser context on the lab, loaded; its kernels and terminals are shut down afterwards."""
    before = _kernels_and_terminals(lab)
    context, page = _open_lab(chromium, lab)
    try:
        yield page
    finally:
        context.close()
        _shut_down(lab, _kernels_and_terminals(lab) - before)
