"""Every path of the course, of a student bundle and of an nbgrader course directory.

No other module builds a path from a folder name: they ask here. The course repository
has the instructor's notebooks (`solutions/`, visible and hidden tests) and the student
notebooks generated from them (`chapters/`); learners work in `learner/`. A student
bundle (`python -m autograder bundle`) has no `solutions/`: there the student notebooks
in `autograder/reference/` stand in for them (visible tests only), so the chapter list,
the self-check, the drills and the progress summary work the same way.

    >>> chapter_notebook("01_cost_model").relative_to(REPO_ROOT).as_posix()
    'chapters/01_cost_model.ipynb'
    >>> layout = NbgraderLayout(Path("/g"))
    >>> layout.autograded("alice", "01_cost_model").as_posix()
    '/g/autograded/alice/01_cost_model/01_cost_model.ipynb'
    >>> layout.gradebook_url
    'sqlite:////g/gradebook.db?timeout=300'
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from specdec.engine.lab_record import RECORD as LAB12_RECORD

from .errors import CourseError

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
SOLUTIONS_DIR = REPO_ROOT / "solutions"
CHAPTERS_DIR = REPO_ROOT / "chapters"
LEARNER_DIR = REPO_ROOT / "learner"
GIT_DIR = REPO_ROOT / ".git"
# In a student bundle (no solutions/), the self-check's reference: student notebooks, visible tests only.
REFERENCE_DIR = PACKAGE_DIR / "reference"
NBGRADER_CONFIG = PACKAGE_DIR / "grading" / "nbgrader_config.py"
DRILLS_CHAPTER = "13_interview_drills"
CHAPTER_GLOB = "[0-9][0-9]_*.ipynb"
# Top-level folders and files of the course that a student bundle copies (the learner's JupyterLab
# settings and the book builder included; the GPU lab's script, which chapter 12 names, and chapter 12's
# recorded full CPU run, which it prints, too). `LAB12_RECORD` (relative to a course's root) is
# specdec.engine.lab_record's, the module that reads it: the one place its path is built.
BUNDLE_PACKAGES = ("specdec", "widgets", "autograder", "book", "jupyter_config")
BUNDLE_FILES = ("pyproject.toml", "constraints.txt", "environment.yml", "course", ".gitignore",
                "benchmarks/gpu_lab.py", LAB12_RECORD.as_posix())
# The bundle's README.md: written for learners (the course's own README is the instructor's).
BUNDLE_README = PACKAGE_DIR / "authoring" / "bundle_README.md"
# The start page `./course lab` opens in the learner's folder (autograder.learner.start).
START_PAGE_NAME = "START_HERE.ipynb"


def in_bundle() -> bool:
    """True in a student bundle: no instructor solutions, no hidden tests."""
    return not SOLUTIONS_DIR.is_dir() and REFERENCE_DIR.is_dir()


def chapter_names(solutions_dir: Path = SOLUTIONS_DIR) -> list[str]:
    """Assignment names, e.g. ['01_cost_model', '02_greedy_speculation', ...], in order.
    In a student bundle (no `solutions/`), the chapters of the self-check's reference."""
    if solutions_dir == SOLUTIONS_DIR and not SOLUTIONS_DIR.is_dir():
        solutions_dir = REFERENCE_DIR
    return sorted(p.stem for p in Path(solutions_dir).glob(CHAPTER_GLOB))


def solution_notebook(name: str, solutions_dir: Path = SOLUTIONS_DIR) -> Path:
    """The instructor's notebook of chapter `name` (exists only in the course repository)."""
    return Path(solutions_dir) / f"{name}.ipynb"


def chapter_notebook(name: str, chapters_dir: Path = CHAPTERS_DIR) -> Path:
    """The committed student notebook of chapter `name`."""
    return Path(chapters_dir) / f"{name}.ipynb"


def reference_notebook_path(name: str) -> Path:
    """The notebook whose test cells the self-check runs: the instructor's (visible and hidden
    tests) in the course repository, the student version (visible tests) in a bundle."""
    own = solution_notebook(name)
    return own if own.exists() else REFERENCE_DIR / f"{name}.ipynb"


def student_notebook_path(name: str) -> Path:
    """A fresh student notebook of chapter `name` to copy: `chapters/`, else the bundle's reference."""
    own = chapter_notebook(name)
    return own if own.exists() else REFERENCE_DIR / f"{name}.ipynb"


def student_chapter_names() -> list[str]:
    """Every chapter a learner can copy (from chapters/, or the bundle's reference copies)."""
    return sorted({p.stem for d in (CHAPTERS_DIR, REFERENCE_DIR) for p in Path(d).glob(CHAPTER_GLOB)})


def drills_notebook() -> Path:
    """The notebook the coding drills are read from (the reference copy in a bundle)."""
    return reference_notebook_path(DRILLS_CHAPTER)


def working_folder(cwd: Path) -> Path:
    """A learner's working folder seen from `cwd`: its `learner/` when `cwd` is the root of a course
    or of a student bundle (it has `chapters/` and `autograder/`), else `cwd` itself."""
    if (cwd / CHAPTERS_DIR.name).is_dir() and (cwd / PACKAGE_DIR.name).is_dir():
        return cwd / LEARNER_DIR.name
    return cwd


def hidden_from_student_code() -> list[Path]:
    """Course folders no student code needs: the instructor's solutions and the git history (in a
    git worktree `.git` is a file naming the history elsewhere; a file cannot be hidden by a tmpfs)."""
    return [SOLUTIONS_DIR] + ([GIT_DIR] if GIT_DIR.is_dir() or not GIT_DIR.exists() else [])


def resolve_chapter(name: str, solutions_dir: Path = SOLUTIONS_DIR) -> str:
    """Accept '01', '1', '01_cost_model' or a path to a chapter notebook; return the full name."""
    stem = Path(name).stem
    names = chapter_names(solutions_dir)
    if stem in names:
        return stem
    prefix = stem.zfill(2) if stem.isdigit() else stem
    matches = [n for n in names if n.split("_", 1)[0] == prefix]
    if len(matches) == 1:
        return matches[0]
    raise CourseError(f"unknown chapter {name!r}; chapters are: {', '.join(names)}")


@dataclass(frozen=True)
class NbgraderLayout:
    """The folders of an nbgrader course directory rooted at `root` (one assignment per chapter,
    named after its notebook)."""

    root: Path

    @property
    def config_file(self) -> Path:
        return self.root / "nbgrader_config.py"

    @property
    def gradebook_url(self) -> str:
        # Parallel graders share the gradebook: wait for its lock instead of failing.
        return f"sqlite:///{self.root / 'gradebook.db'}?timeout=300"

    def source(self, chapter: str) -> Path:
        return self.root / "source" / chapter / f"{chapter}.ipynb"

    def release(self, chapter: str) -> Path:
        return self.root / "release" / chapter / f"{chapter}.ipynb"

    def submitted_dir(self, student: str, chapter: str) -> Path:
        return self.root / "submitted" / student / chapter

    def submitted(self, student: str, chapter: str) -> Path:
        return self.submitted_dir(student, chapter) / f"{chapter}.ipynb"

    def autograded(self, student: str, chapter: str) -> Path:
        return self.root / "autograded" / student / chapter / f"{chapter}.ipynb"

    @property
    def feedback_dir(self) -> Path:
        return self.root / "feedback"


@dataclass(frozen=True)
class BundleLayout:
    """The folders of a student bundle written to `root` (the same layout as the course, with the
    student notebooks in `chapters/` and again, as the self-check's reference, in the package)."""

    root: Path

    @property
    def chapters_dir(self) -> Path:
        return self.root / CHAPTERS_DIR.relative_to(REPO_ROOT)

    @property
    def reference_dir(self) -> Path:
        return self.root / REFERENCE_DIR.relative_to(REPO_ROOT)

    def chapter(self, name: str) -> Path:
        return chapter_notebook(name, self.chapters_dir)


# Files a grading run writes next to the nbgrader course directory.
GRADES_CSV = "grades.csv"
GRADES_BY_TEST_CSV = "grades_by_test.csv"
NBGRADER_GRADES_CSV = "nbgrader_grades.csv"
