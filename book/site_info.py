"""What every page of the book says about itself: the course's version, the commit and date it was
built from, and where to get the course.

The version is the package's (pyproject.toml); the commit and its date come from git when the
book is built in a checkout (a student bundle has no .git: then only the version and the build
date). The course's repository has no public address known to the book: it is
$COURSE_REPOSITORY_URL, else `[project.urls] Repository` in pyproject.toml. With one, every page's
footer links to it ("Source repository") and so does the start page; without either, no page names a
repository at all (no dead link), and pages link only to the downloads the book carries.

    >>> info = SiteInfo(version="0.1.0", commit="abc1234", date="2026-12-02", repository_url="")
    >>> info.stamp()
    'version 0.1.0 (commit abc1234, 2026-12-02)'
    >>> "downloads/speculative-decoding-course.zip" in info.footer_html(), "repository" in info.footer_html()
    (True, False)
    >>> info = SiteInfo("0.1.0", "abc1234", "2026-12-02", repository_url="https://example.org/course")
    >>> info.repository_link()
    '<a class="course-repository" href="https://example.org/course">Source repository</a>'
"""
from __future__ import annotations

import datetime
import html
import os
import subprocess
import tomllib
from dataclasses import dataclass

from autograder.paths import REPO_ROOT

REPOSITORY_VARIABLE = "COURSE_REPOSITORY_URL"
REPOSITORY_TEXT = "Source repository"

BUNDLE_ZIP = "speculative-decoding-course.zip"     # in the site's downloads/ (book/build.py)
DOWNLOADS = "downloads"


@dataclass(frozen=True)
class SiteInfo:
    version: str
    commit: str          # short hash, or "" outside a git checkout
    date: str            # YYYY-MM-DD: the commit's date, else the build's
    repository_url: str  # "" when none is configured

    def stamp(self) -> str:
        where = f"commit {self.commit}, {self.date}" if self.commit else f"built {self.date}"
        return f"version {self.version} ({where})"

    def footer_html(self, root: str = "") -> str:
        """The line under every page (links relative to the site's root; the theme prefixes nothing,
        so book/build.py rewrites `{root}` per page depth: all pages sit at the root today)."""
        parts = [f"Speculative decoding course, {html.escape(self.stamp())}.",
                 f'<a href="{root}{DOWNLOADS}/{BUNDLE_ZIP}">Download the course (zip)</a>',
                 f'<a href="{root}references.html">References</a>']
        if self.repository_url:
            parts.append(self.repository_link())
        return " · ".join(parts)

    def repository_link(self) -> str:
        """The link to the course's repository, or "" when none is configured."""
        if not self.repository_url:
            return ""
        return f'<a class="course-repository" href="{html.escape(self.repository_url)}">{REPOSITORY_TEXT}</a>'


def repository_url(project: dict, environ=os.environ) -> str:
    """The repository's address: $COURSE_REPOSITORY_URL, else pyproject's `[project.urls] Repository`,
    else "". Only a web address (http or https) can be a link; anything else is refused with the reason.

    >>> repository_url({"urls": {"Repository": "https://example.org/course"}}, environ={})
    'https://example.org/course'
    >>> repository_url({"urls": {"Repository": "https://example.org/a"}}, {REPOSITORY_VARIABLE: "https://example.org/b"})
    'https://example.org/b'
    >>> repository_url({}, environ={})
    ''
    >>> repository_url({}, {REPOSITORY_VARIABLE: "git@example.org:course.git"})
    Traceback (most recent call last):
    ...
    ValueError: COURSE_REPOSITORY_URL is 'git@example.org:course.git': the book links to the repository, so give its web address (https://...)
    """
    from_env = environ.get(REPOSITORY_VARIABLE, "").strip()
    url = from_env or str((project.get("urls") or {}).get("Repository", "")).strip()
    if url and not url.lower().startswith(("https://", "http://")):
        where = REPOSITORY_VARIABLE if from_env else "pyproject.toml's [project.urls] Repository"
        raise ValueError(f"{where} is {url!r}: the book links to the repository, so give its web address (https://...)")
    return url


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def site_info() -> SiteInfo:
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    repository = repository_url(project)
    commit = _git("rev-parse", "--short", "HEAD")
    date = _git("log", "-1", "--format=%cs") if commit else ""
    return SiteInfo(version=project["version"], commit=commit,
                    date=date or datetime.date.today().isoformat(), repository_url=repository)
