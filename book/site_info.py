"""What every page of the book says about itself: the course's version, the commit and date it was
built from, and where to get the course.

The version is the package's (pyproject.toml); the commit and its date come from git when the
book is built in a checkout (a student bundle has no .git: then only the version and the build
date). The repository link is `[project.urls] Repository` in pyproject.toml, or
$COURSE_REPOSITORY_URL; without either, pages link only to the downloads the book carries.

    >>> info = SiteInfo(version="0.1.0", commit="abc1234", date="2026-12-02", repository_url="")
    >>> info.stamp()
    'version 0.1.0 (commit abc1234, 2026-12-02)'
    >>> "downloads/speculative-decoding-course.zip" in info.footer_html()
    True
"""
from __future__ import annotations

import datetime
import html
import os
import subprocess
import tomllib
from dataclasses import dataclass

from autograder.paths import REPO_ROOT

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
            parts.append(f'<a href="{html.escape(self.repository_url)}">Repository</a>')
        return " · ".join(parts)


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def site_info() -> SiteInfo:
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    repository = os.environ.get("COURSE_REPOSITORY_URL") or project.get("urls", {}).get("Repository", "")
    commit = _git("rev-parse", "--short", "HEAD")
    date = _git("log", "-1", "--format=%cs") if commit else ""
    return SiteInfo(version=project["version"], commit=commit,
                    date=date or datetime.date.today().isoformat(), repository_url=repository)
