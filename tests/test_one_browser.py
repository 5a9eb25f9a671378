"""One browser per test process, whatever the order of the tests on a worker.

A second `sync_playwright()` started while the session's `chromium` fixture runs one fails at setup
("It looks like you are using Playwright Sync API inside the asyncio loop"): the hub test did that
and failed on any worker that had run a browser test before it. Two checks: no test module starts
Playwright but tests/chromium.py, and, in a pytest of its own, a test that reaches the browser as
the hub's module fixture does runs after a browser test (and before one) without error.
"""
from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.chromium import missing

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent


def starts_playwright(path: Path) -> list[int]:
    """Lines of `path` that call sync_playwright() or async_playwright()."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")) in {"sync_playwright", "async_playwright"}]


def test_only_tests_chromium_starts_playwright():
    found = {str(p.relative_to(REPO)): lines for p in sorted(TESTS.rglob("*.py"))
             if p.name != "chromium.py" and (lines := starts_playwright(p))}
    assert not found, (f"these start a Playwright of their own: {found}; take the session fixture "
                       "`chromium` instead (tests/chromium.py says why)")


ORDERED = '''
import pytest
from tests.conftest import chromium  # noqa: F401 (the session fixture, as every test module gets it)


def test_a_browser_test_first(chromium):
    page = chromium.new_page()
    page.set_content("<p id=x>one</p>")
    assert page.inner_text("#x") == "one"
    page.close()


@pytest.fixture(scope="module")
def like_the_hub(request):
    # The hub's module fixture asks for the browser only when it needs one.
    return request.getfixturevalue("chromium")


def test_then_a_hub_like_test(like_the_hub):
    page = like_the_hub.new_page()
    page.set_content("<p id=x>two</p>")
    assert page.inner_text("#x") == "two"
    page.close()


def test_and_a_browser_test_after(chromium):
    assert chromium.is_connected()
'''


@pytest.mark.slow
@pytest.mark.skipif(missing() is not None, reason=str(missing()))
def test_a_hub_like_test_after_a_browser_test_in_one_process(tmp_path):
    test_file = tmp_path / "test_ordered.py"
    test_file.write_text(textwrap.dedent(ORDERED), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q",
                          "--rootdir", str(tmp_path), "-o", "addopts=", str(test_file)],
                         cwd=REPO, capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    assert run.returncode == 0 and "3 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
