"""Debian's Chromium, driven by Playwright for Python: one browser per test process.

Playwright's sync API runs an event loop of its own in the thread that starts it, and refuses a
second `sync_playwright()` while one runs ("It looks like you are using Playwright Sync API inside
the asyncio loop"). So every test that drives a browser, in tests/browser/ or elsewhere (the hub
test), takes the session fixture `chromium` (tests/conftest.py), never a browser of its own: under
pytest-xdist, which tests share a worker is decided at random.

COURSE_CHROMIUM overrides the browser's path; Playwright's own browser downloads are never used.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
# Where the browser tests save their screenshots (never inside the repository); tests/conftest.py
# empties it when a run starts and prints it at the end.
SHOTS = Path(tempfile.gettempdir()) / "course-screenshots" / "browser"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]   # the last: small /dev/shm in containers


def missing() -> str | None:
    """Why no browser can be driven here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; CI installs it)"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"Chromium not found at {CHROMIUM} (apt-get install chromium; CI installs it)"
    return None


def browsers():
    """Start Playwright and Chromium, yield the browser, close both (the body of the fixture)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()
