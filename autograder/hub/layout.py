"""Every path of a hub's state folder, named once.

    >>> h = HubLayout(Path("/srv/hub"))
    >>> h.exchange.as_posix(), h.python.as_posix(), h.private.as_posix()
    ('/srv/hub/exchange', '/srv/hub/python/bin/python', '/srv/hub/private')
    >>> h.course_dir("prof", "specdec").as_posix()
    '/home/prof/specdec'
"""
from __future__ import annotations

import pwd
from dataclasses import dataclass
from pathlib import Path

DEFAULT_STATE = Path("/srv/course-hub")


@dataclass(frozen=True)
class HubLayout:
    root: Path

    # Readable by every user: the students' Python, the course code they import, their settings.
    @property
    def env(self) -> Path:
        return self.root / "python"

    @property
    def python(self) -> Path:
        return self.env / "bin" / "python"

    @property
    def code(self) -> Path:
        """The course code students import: the library and a student copy of the commands."""
        return self.root / "code"

    @property
    def student_config(self) -> Path:
        """The students' nbgrader settings (exchange, course id), first on their JUPYTER_CONFIG_PATH."""
        return self.root / "jupyter" / "student"

    @property
    def instructor_config(self) -> Path:
        return self.root / "jupyter" / "instructor"

    @property
    def exchange(self) -> Path:
        return self.root / "exchange"

    # Root only (mode 700): the hub's config, database, secrets and log.
    @property
    def private(self) -> Path:
        return self.root / "private"

    @property
    def hub_config(self) -> Path:
        return self.private / "jupyterhub_config.py"

    @property
    def passwords(self) -> Path:
        """Each user's login, one line each ("user password"): the instructor hands them out."""
        return self.private / "passwords.txt"

    @property
    def state(self) -> Path:
        """What the hub made (users created, ports, pid), for stop and cleanup."""
        return self.private / "state.json"

    @property
    def log(self) -> Path:
        return self.private / "hub.log"

    @staticmethod
    def home(user: str) -> Path:
        try:
            return Path(pwd.getpwnam(user).pw_dir)
        except KeyError:
            return Path("/home") / user

    def course_dir(self, instructor: str, course: str) -> Path:
        """The instructor's nbgrader course directory (formgrader opens it)."""
        return self.home(instructor) / course
