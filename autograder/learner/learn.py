"""`python -m autograder learn 03`: copy a fresh chapter into `learner/` to work on it.

`learn all` copies every chapter not yet there (what `./course lab` does before it opens
JupyterLab on `learner/`).

`learner/` is ignored by git, so updating the course (`git pull`), regenerating the
chapters or running the test suite never touches a learner's work. The copy is never
overwritten: if `learner/NN_slug.ipynb` exists, the command says so and leaves it.
The self-check works on these copies as on any notebook:
`python -m autograder check learner/03_acceptance_rule.ipynb`.

The copy carries the language information the course's kernel reports (`kernel_metadata`):
JupyterLab writes the kernel's `language_info` into a notebook's metadata when the kernel starts,
and a notebook whose metadata changes that way is marked modified, so a chapter that was only
read would ask to be saved on close. The committed chapters cannot carry it (the Python version
is the learner's machine's), so it is added here, by the Python that runs the kernels.
"""
from __future__ import annotations

import json
import platform
from pathlib import Path

import nbformat

from ..paths import LEARNER_DIR, resolve_chapter, student_chapter_names, student_notebook_path


def kernel_metadata() -> dict:
    """The `language_info` the course's Python kernel (ipykernel, this interpreter) reports."""
    try:
        from ipykernel.ipkernel import IPythonKernel

        return json.loads(json.dumps(IPythonKernel.language_info))
    except ImportError:          # pragma: no cover - ipykernel is a course requirement
        return {"name": "python", "version": platform.python_version()}


def with_kernel_metadata(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(nb)
    nb.metadata["language_info"] = nbformat.from_dict(kernel_metadata())
    return nb


def write_for_learner(nb: nbformat.NotebookNode, dest: Path) -> None:
    """Write `nb` (normalized) with the kernel's language information, as JupyterLab would save it."""
    from ..notebooks import normalize

    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    Path(dest).write_text(nbformat.writes(with_kernel_metadata(normalize(nb)), version=4) + "\n", encoding="utf-8")


def copy_for_learner(source: Path, dest: Path) -> None:
    """Copy the student notebook `source` to `dest`, ready to open in JupyterLab."""
    from ..notebooks import read

    write_for_learner(read(source), dest)


def learn(chapter: str, dest_dir: Path = LEARNER_DIR) -> tuple[Path, bool]:
    """Copy the student notebook of `chapter` into `dest_dir`; return (path, copied?)."""
    name = resolve_chapter(chapter)
    source = student_notebook_path(name)
    dest = Path(dest_dir) / f"{name}.ipynb"
    if dest.exists():
        return dest, False
    copy_for_learner(source, dest)
    return dest, True


def all_chapters() -> list[str]:
    """Every chapter a learner can copy (from chapters/, or the bundle's reference copies)."""
    return student_chapter_names()


def main(args) -> int:
    dest_dir = Path(args.dest) if args.dest else LEARNER_DIR
    chapters = all_chapters() if args.chapters == ["all"] else args.chapters
    for chapter in chapters:
        path, copied = learn(chapter, dest_dir)
        if args.chapters == ["all"]:
            if copied:
                print(f"copied a fresh {path.name} to {path.parent}")
            continue
        if copied:
            print(f"copied a fresh {path.name} to {path}; open it in JupyterLab and check it with\n"
                  f"    python -m autograder check {path}")
        else:
            print(f"{path} already exists and holds your work; it was left as it is. For a fresh copy "
                  f"as well, rename yours first (e.g. to {path.stem}_mine.ipynb).")
    if getattr(args, "start_page", False):
        from .start import write_start_page

        print(f"start page: {write_start_page(dest_dir)}")
    return 0
