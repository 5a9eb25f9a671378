"""Grading a class: `python -m autograder grade SUBMISSIONS --out DIR`. Runs on the instructor's machine.

One submission's path through grading:

1. `submissions.find_submissions` finds one notebook per student and chapter; `sanitize`
   turns cells copied from another chapter into ordinary cells (a note for the notes column)
   and `review.review_notebook` lists suspicious lines of the student's own code.
2. `grade.grade` builds an nbgrader course directory (`coursedir.CourseDir`, folders named in
   `autograder.paths.NbgraderLayout`) and copies the sanitized notebook into `submitted/`.
3. `worker.grade_submission(GradingTask, GradingSettings)` (in this process, or one worker
   process per student, `settings.jobs` at a time) runs nbgrader's autograde: its sanitize pass
   restores the instructor's test cells (hidden tests included), then `pipeline.AUTOGRADE_PREPROCESSORS`
   run: `resilient_execute.ResilientExecute` executes the notebook in a `sandbox` kernel, with
   the test environment repaired before each test cell (`autograder.integrity`), then nbgrader
   saves the scores to the gradebook. Feedback is generated with hidden test code removed
   (`feedback.HideHiddenTests`). The worker returns a `outcome.GradingOutcome`: status, reason,
   incidents (timeouts, dead kernels, repairs), repairs, scores.
4. Once every kernel is gone, `grade._collect` reads the scores back from the gradebook, checks
   each lies in [0, max], and writes `grades.csv` (incidents in the notes column, suspicious
   lines and repairs in the review column) and `grades_by_test.csv`.

`settings.GradingSettings` carries the cell timeout, memory and CPU limits, hidden folders,
isolation and jobs from the command line through the worker to the executor and the sandbox.
The self-check (`autograder.learner.check`) runs `pipeline.SCORE_PREPROCESSORS`, the first part
of the same list.
"""
