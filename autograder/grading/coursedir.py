"""An nbgrader course directory built from the course's notebooks, and nbgrader driven through it.

nbgrader wants a course directory (`source/<assignment>/<notebook>.ipynb`, a gradebook,
`nbgrader_config.py`). Our single source is one solution notebook per chapter, so each
chapter is an nbgrader assignment named after its file stem. `CourseDir.create` builds
such a directory (its folders are named in `autograder.paths.NbgraderLayout`); its
methods run nbgrader's API in this process, with the environment's `bin/` on PATH
and the `GradingSettings` handed to the executor.
"""
from __future__ import annotations

import contextlib
import functools
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import NBGRADER_CONFIG, SOLUTIONS_DIR, NbgraderLayout, chapter_names, solution_notebook
from .environment import nbgrader_env
from .settings import GradingSettings


def _no_exchange_list():
    """An nbgrader exchange lister (`ExchangeFactory.list`, nbgrader's documented plugin point) for a
    course directory without an exchange: listing says so with ExchangeError, which NbGraderAPI takes
    as "no exchange" (`exchange_missing`), and logs nothing."""
    from nbgrader.exchange import ExchangeError, ExchangeList

    class NoExchangeList(ExchangeList):
        def start(self):
            raise ExchangeError("this course directory grades locally: it has no exchange")

    return NoExchangeList


@dataclass
class CourseDir:
    """An nbgrader course directory whose `source/` mirrors the solution notebooks.

    nbgrader runs in this process through its Python API (`NbGraderAPI`): importing
    nbgrader takes seconds, and one import serves every chapter and student.
    """

    root: Path
    settings: GradingSettings = field(default_factory=GradingSettings)

    def __post_init__(self):
        self.root = Path(self.root)
        self.layout = NbgraderLayout(self.root)

    @classmethod
    def create(cls, root: Path, chapters: list[str] | None = None, solutions_dir: Path = SOLUTIONS_DIR,
               settings: GradingSettings | None = None) -> "CourseDir":
        root = Path(root).resolve()
        root.mkdir(parents=True, exist_ok=True)
        layout = NbgraderLayout(root)
        shutil.copyfile(NBGRADER_CONFIG, layout.config_file)
        for name in chapters or chapter_names(solutions_dir):
            dest = layout.source(name)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(solution_notebook(name, solutions_dir), dest)
        return cls(root, settings or GradingSettings())

    @functools.cached_property
    def api(self):
        from nbgrader.apps import NbGraderAPI
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config.loader import PyFileConfigLoader

        from .gradebook_schema import stamp_in_process

        # nbgrader would start an `alembic` process for each new gradebook (gradebook_schema.py says
        # why not); PATH keeps the environment's bin/ first for anything else nbgrader runs.
        stamp_in_process()
        os.environ["PATH"] = nbgrader_env()["PATH"]
        config = PyFileConfigLoader(self.layout.config_file.name, path=str(self.root)).load_config()
        config.CourseDirectory.root = str(self.root)
        config.NbGraderAPI.log_level = "ERROR"
        # A course directory grades locally and has no exchange. NbGraderAPI lists the exchange when it
        # starts, and the default one (/usr/local/share/nbgrader/exchange) is missing on most machines:
        # nbgrader's lister would log CRITICAL "Unwritable directory, please contact your instructor".
        config.ExchangeFactory.list = _no_exchange_list()
        # Student code never sees the grading output (gradebook, other submissions) or the submissions.
        config.ResilientExecute.settings = self.settings.hiding(self.root)
        config.CourseDirectory.db_url = self.layout.gradebook_url
        return NbGraderAPI(CourseDirectory(config=config), config=config)

    @contextlib.contextmanager
    def gradebook(self):
        """nbgrader's gradebook of this course directory, opened and closed around the block."""
        from nbgrader.api import Gradebook

        with Gradebook(self.layout.gradebook_url) as gb:
            yield gb

    def _check(self, result: dict, what: str) -> dict:
        if not result.get("success"):
            raise RuntimeError(f"nbgrader {what} failed:\n{result.get('log', '')[-3000:]}\n"
                               f"{result.get('error', '')[-6000:]}")
        return result

    def release_path(self, name: str) -> Path:
        return self.layout.release(name)

    def generate(self, name: str) -> Path:
        """Run nbgrader's generate_assignment for one chapter; return the student notebook."""
        self._check(self.api.generate_assignment(name, force=True, create=True), f"generate_assignment {name}")
        return self.release_path(name)

    def autograde(self, name: str, student: str) -> dict:
        """Autograde one student's submission; returns nbgrader's result (success, log, error)."""
        return self.api.autograde(name, student, force=True, create=True)

    def generate_feedback(self, name: str, student: str | None = None) -> dict:
        """nbgrader's feedback pages, made readable offline (`offline_page`)."""
        from .offline_page import make_offline

        result = self.api.generate_feedback(name, student, force=True)
        for page in self.layout.feedback_dir.glob(f"{student or '*'}/{name}/*.html"):
            make_offline(page)
        return result

    def scores(self, name: str, student: str) -> list[tuple[str, float, float]] | None:
        """(grade_id, score, max_score) of each graded test of a submission, from the gradebook;
        None if the gradebook has no such submission."""
        from nbgrader.api import MissingEntry

        with self.gradebook() as gb:
            try:
                sub = gb.find_submission(name, student)
            except MissingEntry:
                return None
            return sorted((g.name, float(g.score), float(g.max_score)) for nb in sub.notebooks for g in nb.grades)
