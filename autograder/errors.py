"""The one error type the course's commands raise for a problem the user can fix.

Library code raises `CourseError` with a message written for the person at the terminal
(an unknown chapter, a folder that is not a class of submissions, a missing answer
file); only `python -m autograder` (`autograder/__main__.py`) turns it into an exit code
and that message. Code that calls the library catches `CourseError`, never `SystemExit`.

    >>> try:
    ...     raise CourseError("unknown chapter '99'")
    ... except CourseError as err:
    ...     str(err)
    "unknown chapter '99'"
"""
from __future__ import annotations


class CourseError(Exception):
    """A problem with what the user asked for; its message says what to do."""
