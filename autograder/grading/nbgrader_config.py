"""nbgrader configuration for the course.

The course commands (`python -m autograder release|grade`) copy this file into the
nbgrader course directory they build and set `CourseDirectory.root` on the command
line; an instructor who runs nbgrader by hand can copy it into their own course root.
"""
c = get_config()  # noqa: F821  (nbgrader injects get_config)

# The stub a learner sees in place of each solution body. It points at the hints,
# which sit right below every exercise cell.
c.ClearSolutions.code_stub = {
    "python": (
        "# YOUR CODE HERE\n"
        "raise NotImplementedError(\"Replace this line with your solution. Stuck? Open the hints below this cell.\")"
    ),
}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Hidden tests live between these markers in the solution notebooks and are restored at grading.
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"

# Grading must survive any student code: a cell that runs too long is interrupted
# and counted as failed, the kernel is restarted after a crash, and test cells a
# student deleted are put back from the instructor's copy.
# The timeout per cell, the memory and CPU limits and the folders hidden from student code are
# the grading settings (autograder/grading/settings.py; `grade --timeout/--memory` set them).
c.Execute.interrupt_on_timeout = True
c.Execute.allow_errors = True
c.Execute.execute_retries = 1
c.Execute.extra_arguments = ["--IPKernelApp.log_level=ERROR"]   # no transport warning in the log
c.OverwriteCells.add_missing_cells = True

# Student code runs in a sandboxed kernel (bubblewrap; loud fallback without it), the test
# cells are protected from it, and a cell that hangs or kills the kernel costs only its own
# exercise: the grader starts a fresh kernel and grades the rest (autograder/grading/resilient_execute.py).
# The list is declared once (autograder/grading/pipeline.py): the self-check runs its first part.
from autograder.grading.pipeline import AUTOGRADE_PREPROCESSORS  # noqa: E402
from autograder.grading.settings import GradingSettings  # noqa: E402

c.Autograde.autograde_preprocessors = list(AUTOGRADE_PREPROCESSORS)
c.ResilientExecute.settings = GradingSettings()
c.Autograde.create_student = True

# Chapters are self-contained; no header/footer notebooks, no late penalties.
c.IncludeHeaderFooter.header = ""
c.LateSubmissionPlugin.penalty_method = "none"

# Keep feedback readable: cap huge outputs a student's print loop could produce
# (lines here, bytes per cell in ResilientExecute.max_cell_output_bytes).
c.LimitOutput.max_lines = 200
c.LimitOutput.max_traceback = 60

# Feedback shows no hidden test code: test cells keep their visible part, tracebacks keep
# the learner's own frames, and any output quoting a hidden test line is scrubbed.
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import GetGrades  # noqa: E402

from autograder.grading.feedback import HideHiddenTests  # noqa: E402

c.GenerateFeedback.preprocessors = [HideHiddenTests, GetGrades, CSSHTMLHeaderPreprocessor]
