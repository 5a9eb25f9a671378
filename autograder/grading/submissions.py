"""The submissions of a class: found in a folder, one per student and chapter, made gradable.

    >>> student_id("Ana María")
    'Ana_Mar_a'
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..errors import CourseError
from ..notebooks import nbgrader_meta
from ..paths import chapter_names, solution_notebook
from .statuses import unreadable_status, wrong_chapter_status
from ..notebooks import grade_id_of, is_solution

_ID_OK = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class Submission:
    student: str
    chapter: str
    path: Path
    problem: str | None = None          # why it cannot be graded (e.g. ambiguous files), if so
    notes: list[str] = field(default_factory=list)      # e.g. an extra copy that was not graded

    @property
    def timestamp_file(self) -> Path | None:
        """nbgrader's `timestamp.txt` beside the notebook (what `collect` and the exchange keep), if any."""
        found = Path(self.path).parent / "timestamp.txt"
        return found if found.is_file() else None

    @property
    def submitted_at(self) -> str:
        """When the student submitted, as nbgrader wrote it ('2026-12-06 17:35:38.123456 UTC'), or ''."""
        found = self.timestamp_file
        return found.read_text(errors="replace").strip()[:64] if found else ""


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
                found.append(_choose(sid, name, entry, paths, folder))
    clashes = {sid: names for sid, names in owners.items() if len(names) > 1}
    if clashes:
        lines = "; ".join(f"{' and '.join(repr(n) for n in names)} both become {sid!r}"
                          for sid, names in sorted(clashes.items()))
        raise CourseError(f"student ids collide after cleaning ({lines}): rename one of them")
    if not found:
        raise CourseError(f"no submissions found in {folder}")
    return found


def _choose(sid: str, name: str, student_dir: Path, paths: list[Path], folder: Path) -> Submission:
    """The submission among `paths` (one student's notebooks for chapter `name`): the one at the top
    of the student's folder (`alice/NN.ipynb`, or nbgrader's `alice/NN/NN.ipynb`), with a note naming
    the extra copies; an error naming them all when no single one is at the top."""
    if len(paths) == 1:
        return Submission(sid, name, paths[0])
    top = [p for p in paths if p.parent == student_dir or p.parent == student_dir / name]
    listed = ", ".join(str(p.relative_to(folder)) for p in paths)
    if len(top) == 1:
        extra = ", ".join(str(p.relative_to(folder)) for p in paths if p != top[0])
        return Submission(sid, name, top[0], notes=[f"graded {top[0].relative_to(folder)}; another copy was "
                                                    f"found and not graded: {extra}"])
    return Submission(sid, name, paths[0],
                      f"error: ambiguous submission, {len(paths)} notebooks for {name}: {listed}; "
                      f"keep exactly one (at the top of the student's folder) and grade again")


def unreadable_reason(path: Path) -> str | None:
    """None if `path` is a notebook nbgrader can grade, else the reason it is not (a sentence)."""
    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception as exc:  # any damage to the file: report it, grade the rest
        what = "it is not valid notebook JSON, perhaps cut short" if "JSON" in type(exc).__name__ or \
            isinstance(exc, ValueError) else "it could not be opened"
        return unreadable_status(what)
    try:
        nbformat.validate(nb)
    except Exception:
        return unreadable_status("it does not follow the Jupyter notebook format")
    return None


@functools.lru_cache(maxsize=None)
def _solution_ids(chapter: str) -> frozenset:
    nb = nbformat.read(str(solution_notebook(chapter)), as_version=4)
    return frozenset(grade_id_of(c) for c in nb.cells if is_solution(c))


def wrong_chapter_reason(nb, chapter: str) -> str | None:
    """A status naming the chapter whose exercises `nb` holds when it holds none of `chapter`'s, else None."""
    ids = {grade_id_of(c) for c in nb.cells} - {None}
    if ids & _solution_ids(chapter):
        return None
    holds = max(chapter_names(), key=lambda other: len(ids & _solution_ids(other)))
    if not ids & _solution_ids(holds):
        return None          # no exercise cells at all (pasted into a fresh notebook): graded as it is
    return wrong_chapter_status(chapter, holds)


def sanitize(nb, source) -> tuple[nbformat.NotebookNode, list[str]]:
    """A copy of a submission nbgrader can grade: cells whose `grade_id` the chapter does not have
    (copied from another chapter), or that repeat an id, become ordinary cells. Returns the notes."""
    known = {grade_id_of(c) for c in source.cells} - {None}
    out = nbformat.from_dict(nb)
    notes, seen = [], set()
    for cell in out.cells:
        meta = nbgrader_meta(cell)
        gid = grade_id_of(cell)
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


