"""Grading a class: `python -m autograder grade SUBMISSIONS --out DIR`. Runs on the instructor's machine.

One submission goes through `submissions` (found, sanitized, its suspicious lines listed by
`review`), `grade` (an nbgrader course directory, `coursedir`), `worker.grade_submission`
(nbgrader's autograde with `pipeline.AUTOGRADE_PREPROCESSORS`: `resilient_execute` in a `sandbox`
kernel, the test environment repaired by `autograder.integrity`) and, once every kernel is gone,
`grade._collect` (scores read back from the gradebook, the CSVs). `settings.GradingSettings`
carries the command line's limits through all of them; the self-check runs
`pipeline.SCORE_PREPROCESSORS`, the first part of the same list. Step by step, in
docs/ARCHITECTURE.md, section "Grading"; what holds against a hostile class, in
docs/threat-model.md.
"""
