"""`python -m autograder learn 03`: copy a fresh chapter into `learner/` to work on it.

`learn all` copies every chapter not yet there (what `./course lab` does before it opens
JupyterLab on `learner/`).

`learner/` is ignored by git, so updating the course (`git pull`), regenerating the
chapters or running the test suite never touches a learner's work. The copy is never
overwritten: if `learner/NN_slug.ipynb` exists, the command says so and leaves it.
The self-check works on these copies as on any notebook:
`python -m autograder check learner/03_acceptance_rule.ipynb`.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from ..paths import LEARNER_DIR, resolve_chapter, student_chapter_names, student_notebook_path


def learn(chapter: str, dest_dir: Path = LEARNER_DIR) -> tuple[Path, bool]:
    """Copy the student notebook of `chapter` into `dest_dir`; return (path, copied?)."""
    name = resolve_chapter(chapter)
    source = student_notebook_path(name)
    dest = Path(dest_dir) / f"{name}.ipynb"
    if dest.exists():
        return dest, False
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, dest)
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
    return 0
