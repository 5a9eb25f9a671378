"""nbgrader configuration, the course's release/learn/check/grade/bundle commands, and grading helpers.

Run `python -m autograder --help` for the commands. Test cells in the notebooks import
`autograder.stats` (chi-square with pooling, total variation, learner-readable
failures), `autograder.recording_rng` (a generator that records its calls) and
`autograder.calls` (call learner code with its stderr and warnings captured). Grading
runs student code in a sandbox (`sandbox`), keeps the test cells honest (`integrity`),
survives hangs and crashes (`resilient_execute`) and shows no hidden test code (`feedback`).
"""
