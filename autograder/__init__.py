"""nbgrader configuration, the course's release/grade/check commands, and grading helpers.

Run `python -m autograder --help` for the commands. Test cells in the notebooks import
`autograder.stats` (chi-square with pooling, total variation, learner-readable
failures) and `autograder.recording_rng` (a generator that records its calls).
"""
