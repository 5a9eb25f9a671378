"""The learner's commands, run in a terminal on the learner's own machine.

* `learn`  - `python -m autograder learn 03`: a fresh chapter to work on, in `learner/`;
* `check`  - `python -m autograder check NOTEBOOK`: the self-check, scored by the grading pipeline;
* `drill`  - `python -m autograder drill` and `progress`: timed drills and the progress summary.

The progress log itself (`autograder.progress`) sits at the top level: notebooks import it.
"""
