"""Who is in the class: a small TOML file.

    course = "specdec"            # nbgrader's course id (letters, digits, - and _)
    instructor = "prof"
    students = ["ann", "ben"]

Names are Unix user names; an existing user is reused, a missing one is created.

    >>> r = Roster.parse('instructor = "prof"\\nstudents = ["ann", "ben"]')
    >>> r.course, r.instructor, r.students
    ('specdec', 'prof', ('ann', 'ben'))
    >>> Roster.parse('instructor = "prof"\\nstudents = ["Ann!"]')
    Traceback (most recent call last):
    ...
    autograder.errors.CourseError: roster: 'Ann!' is not a Unix user name (lower-case letters, digits, - and _, starting with a letter or _, at most 32)
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import CourseError

_USER = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
_COURSE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Roster:
    instructor: str
    students: tuple[str, ...]
    course: str = "specdec"

    @property
    def users(self) -> tuple[str, ...]:
        return (self.instructor,) + self.students

    @classmethod
    def parse(cls, text: str, where: str = "roster") -> "Roster":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise CourseError(f"{where}: not a TOML file ({err})") from None
        unknown = set(data) - {"course", "instructor", "students"}
        if unknown:
            raise CourseError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; "
                              f"a roster has course, instructor and students")
        instructor, students = data.get("instructor"), data.get("students")
        course = data.get("course", "specdec")
        if not isinstance(instructor, str):
            raise CourseError(f'{where}: needs instructor = "name"')
        if not isinstance(students, list) or not students or not all(isinstance(s, str) for s in students):
            raise CourseError(f'{where}: needs students = ["name", ...] (at least one)')
        if not isinstance(course, str) or not _COURSE.match(course):
            raise CourseError(f"{where}: course {course!r} must be letters, digits, - and _")
        for name in [instructor] + students:
            if not _USER.match(name) or name == "root":
                raise CourseError(f"{where}: {name!r} is not a Unix user name (lower-case letters, digits, "
                                  f"- and _, starting with a letter or _, at most 32)")
        dupes = sorted({s for s in students if students.count(s) > 1} | ({instructor} & set(students)))
        if dupes:
            raise CourseError(f"{where}: {', '.join(dupes)} listed twice (the instructor is not a student)")
        return cls(instructor, tuple(students), course)

    @classmethod
    def load(cls, path: Path) -> "Roster":
        path = Path(path)
        if not path.is_file():
            raise CourseError(f"no roster at {path} (a TOML file: instructor = \"name\", students = [...])")
        return cls.parse(path.read_text(encoding="utf-8"), str(path))
