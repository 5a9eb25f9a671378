"""A new gradebook is stamped with nbgrader's schema head without starting an `alembic` process."""
import sqlite3
import subprocess
import sys

import pytest

from autograder.grading.coursedir import CourseDir
from autograder.grading.environment import nbgrader_env
from autograder.grading.gradebook_schema import schema_head


def test_the_head_read_in_process_is_what_the_alembic_command_prints(tmp_path):
    # nbgrader's own way (the `alembic heads` command), in a new process where nothing replaced it.
    env = nbgrader_env()
    out = subprocess.run([sys.executable, "-c", "from nbgrader.api import get_alembic_version as g; print(g())"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == schema_head()


def test_a_course_directory_creates_its_gradebook_with_no_alembic_process(tmp_path, monkeypatch):
    course = CourseDir.create(tmp_path / "course", ["01_cost_model"])
    started = []
    real_check_output = subprocess.check_output

    def watch(args, *a, **k):
        started.append(args)
        return real_check_output(args, *a, **k)

    monkeypatch.setattr(subprocess, "check_output", watch)
    course.api                                   # stamps in process
    with course.gradebook():
        pass
    assert not [a for a in started if "alembic" in " ".join(map(str, a))], started
    db = sqlite3.connect(course.root / "gradebook.db")
    assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(schema_head(),)]
