"""The course's grading and tooling package, laid out by where each module runs.

In the learner's kernel (imported by the notebooks' setup and test cells; keep these paths):
    `stats` (chi-square with pooling, total variation, learner-readable failures),
    `recording_rng` (a generator that records its calls), `calls` (call learner code with its
    stderr and warnings captured), `delegation` (no points for handing an exercise to the
    library), `integrity` (the grader's repairs of the test environment), `progress` (the
    learner's progress log, used by the drills and the progress widget).
Shared by every command: `paths` (every path of the course, a bundle and a grading folder),
    `errors` (`CourseError`), `notebooks` (the notebook file format).
`authoring/`  authors and instructors: cell builders, `release`, `bundle`, `execute`.
`learner/`    the learner's terminal commands: `learn`, `check` (self-check), `drill`, `progress`.
`grading/`    grading a class: settings, sandbox, executor, worker, outcome, gradebook, CSVs.
`__main__`    the command line (`python -m autograder --help`).
"""
