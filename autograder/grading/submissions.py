"""The submissions of a class: found in a folder, one per student and chapter, made gradable.

    >>> student_id("Ana María")
    'Ana_Mar_a'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..errors import CourseError
from ..notebooks import nbgrader_meta
from ..paths import chapter_names

_ID_OK = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class Submission:
    student: str
    chapter: str
    path: Path
    problem: str | None = None          # why it cannot be graded (e.g. ambiguous files), if so


def student_id(name: str) -> str:
    """nbgrader student ids must be plain; 'Ana María' becomes 'Ana_Mar_a'."""
    cleaned = _ID_OK.sub("_", name).strip("_.")
    if not cleaned:
        raise CourseError(f"cannot make a student id from {name!r}")
    return cleaned


def _notebooks_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and not any(part.startswith(".") for part in
                                                                     p.relative_to(folder).parts))


def find_submissions(folder: Path, chapter: str | None = None) -> list[Submission]:
    """The submissions in `folder`, one per student and chapter. Two notebooks for the same
    student and chapter give one Submission with a `problem` naming both."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CourseError(f"{folder} is not a folder of submissions")
    known = set(chapter_names())
    found: list[Submission] = []
    owners: dict[str, list[str]] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_file() and entry.suffix == ".ipynb":
            if chapter is None:
                if entry.stem in known:
                    raise CourseError(f"{entry} looks like a chapter, not a student: put each student's "
                                     f"notebooks in a folder named after the student")
                raise CourseError(f"{entry}: one file per student needs --chapter")
            sid = student_id(entry.stem)
            owners.setdefault(sid, []).append(entry.name)
            found.append(Submission(sid, chapter, entry))
        elif entry.is_dir():
            sid = student_id(entry.name)
            owners.setdefault(sid, []).append(entry.name + "/")
            notebooks = _notebooks_under(entry)
            by_chapter: dict[str, list[Path]] = {}
            for nb_path in notebooks:
                if nb_path.stem in known:
                    by_chapter.setdefault(nb_path.stem, []).append(nb_path)
            if chapter is not None and chapter not in by_chapter and len(notebooks) == 1:
                by_chapter[chapter] = notebooks          # a single, renamed notebook
            for name, paths in sorted(by_chapter.items()):
                if chapter is not None and name != chapter:
                    continue
                problem = None
                if len(paths) > 1:
                    listed = ", ".join(str(p.relative_to(folder)) for p in paths)
                    problem = (f"error: ambiguous submission, {len(paths)} notebooks for {name}: {listed}; "
                               f"keep exactly one and grade again")
                found.append(Submission(sid, name, paths[0], problem))
    clashes = {sid: names for sid, names in owners.items() if len(names) > 1}
    if clashes:
        lines = "; ".join(f"{' and '.join(repr(n) for n in names)} both become {sid!r}"
                          for sid, names in sorted(clashes.items()))
        raise CourseError(f"student ids collide after cleaning ({lines}): rename one of them")
    if not found:
        raise CourseError(f"no submissions found in {folder}")
    return found


def unreadable_reason(path: Path) -> str | None:
    """None if `path` is a notebook nbgrader can grade, else the reason it is not."""
    try:
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # any damage to the file: report it, grade the rest
        return f"unreadable notebook ({type(exc).__name__}: {str(exc).splitlines()[0][:120]})"
    return None


def sanitize(nb, source) -> tuple[nbformat.NotebookNode, list[str]]:
    """A copy of a submission nbgrader can grade: cells whose `grade_id` the chapter does not have
    (copied from another chapter), or that repeat an id, become ordinary cells. Returns the notes."""
    known = {nbgrader_meta(c).get("grade_id") for c in source.cells} - {None}
    out = nbformat.from_dict(nb)
    notes, seen = [], set()
    for cell in out.cells:
        meta = nbgrader_meta(cell)
        gid = meta.get("grade_id")
        if not meta:
            continue
        if gid not in known or gid in seen:
            why = "is not part of this chapter" if gid not in known else "appears twice"
            notes.append(f"a cell with grade_id {gid!r} {why}; graded as an ordinary cell")
            del cell.metadata["nbgrader"]
            for key in ("deletable", "editable"):
                cell.metadata.pop(key, None)
        else:
            seen.add(gid)
    return out, notes


