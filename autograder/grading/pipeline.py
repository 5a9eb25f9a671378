"""The preprocessors a submission goes through, declared once for grading and the self-check.

nbgrader's converters declare their work as lists of preprocessors; so do we. Both
`python -m autograder grade` (nbgrader's `Autograde`, configured in `nbgrader_config.py`)
and `python -m autograder check` run `SCORE_PREPROCESSORS`, with the same configuration,
on a notebook whose test cells are the instructor's; they differ only in where those test
cells come from:

* grading: nbgrader's sanitize pass (`OverwriteCells`) restores every test cell, hidden
  tests included, from the course directory's `source/`;
* self-check: `learner.check.with_instructor_tests` restores them from the reference notebook
  (the instructor's in the course repository, visible tests only in a student bundle).

Grading then records the scores in the gradebook (`RECORD_PREPROCESSORS`, nbgrader's
`SaveAutoGrades` using `nbgrader.utils.determine_grade`); the self-check applies
`determine_grade` to the same cells and prints the result.

    >>> [p.__name__ for p in SCORE_PREPROCESSORS]
    ['ResilientExecute', 'IgnorePattern', 'ClearMetadataPreprocessor', 'LimitOutput']
"""
from __future__ import annotations

from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import AssignLatePenalties, CheckCellMetadata, IgnorePattern, LimitOutput, SaveAutoGrades

from .resilient_execute import ResilientExecute

# Run the notebook in a sandboxed, guarded kernel, drop ignorable stderr, cap long outputs.
SCORE_PREPROCESSORS = [ResilientExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput]
# Grading only: write the scores to the gradebook and check nothing was tampered with.
RECORD_PREPROCESSORS = [SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]
AUTOGRADE_PREPROCESSORS = SCORE_PREPROCESSORS + RECORD_PREPROCESSORS


def load_config(settings=None):
    """The course's nbgrader configuration (`nbgrader_config.py`), with `settings` for the executor."""
    from traitlets.config.loader import PyFileConfigLoader

    from ..paths import NBGRADER_CONFIG

    config = PyFileConfigLoader(NBGRADER_CONFIG.name, path=str(NBGRADER_CONFIG.parent)).load_config()
    if settings is not None:
        config.ResilientExecute.settings = settings
    return config


def run_preprocessors(nb, resources: dict, config, preprocessors=tuple(SCORE_PREPROCESSORS)):
    """Run `preprocessors` on `nb` as nbconvert's exporter would (each configured from `config`,
    skipped if not enabled); return (nb, resources)."""
    for preprocessor in preprocessors:
        nb, resources = preprocessor(config=config)(nb, resources)
    return nb, resources
