"""A grading worker: `python -m autograder._grade_worker SPEC_JSON` autogrades some submissions
of an existing grading folder (one student's chapters) and prints `RESULT {json}` on its last
line: {"chapter<TAB>student": null or the reason it could not be graded}.

`grade.grade` starts one such process per student, `jobs` at a time, so the class is graded
in parallel (each kernel in its own sandbox) without multiprocessing's re-import of the
caller's main module.
"""
from __future__ import annotations

import json
import sys


def main() -> int:
    spec = json.loads(sys.argv[1])
    from .grade import _grade_one, _worker_init

    _worker_init(spec["root"], spec["timeout"], spec["hide"], spec["require"], spec.get("memory"))
    out = {}
    for chapter, student in spec["tasks"]:
        try:
            out[f"{chapter}\t{student}"] = _grade_one(chapter, student)
        except Exception as exc:  # one submission's crash must not lose the others' grades
            out[f"{chapter}\t{student}"] = f"grading failed: {type(exc).__name__}: {str(exc)[:200]}"
    print("RESULT " + json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
