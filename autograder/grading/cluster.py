"""Grade a class on a Dask cluster: `python -m autograder grade SUBS --scheduler tcp://HOST:8786`.

A class larger than one machine is graded by the workers of a `dask.distributed` cluster
the instructor already runs (plain `dask worker tcp://HOST:8786` on each machine, or Slurm
and Kubernetes through dask-jobqueue and dask-kubernetes). Each worker needs what the grader
needs: this course (its `solutions/` and `autograder/`), its virtual environment and
bubblewrap. Nothing else is shared: no file system, no database.

* The coordinator (the machine running `grade`) sends each submission as data: the chapter,
  the student id and the sanitized notebook, with the `GradingSettings`.
* A worker grades it with the plain per-submission function, `worker.grade_submission`, in a
  private nbgrader course directory of its own (same sandbox, same limits, same pipeline),
  and returns the `GradingOutcome` and the executed, autograded notebook.
* The coordinator writes that notebook into its course directory, records its scores in the
  one gradebook with nbgrader's own recorders (`pipeline.RECORD_PREPROCESSORS`), and renders
  the feedback, exactly as local grading does after execution. So scores, CSVs and feedback
  are the same as a local run's (tests/test_cluster.py checks it on a LocalCluster).
"""
from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

import nbformat

from .outcome import FAILED, GRADED, GradingOutcome, GradingTask
from .settings import GradingSettings


def grade_remotely(chapter: str, student: str, notebook: str, settings_json: str) -> dict:
    """On a worker: grade one submission (`notebook`, as JSON text); return the outcome and the
    autograded notebook (JSON text, or None when grading failed before it was written)."""
    from .worker import grade_submission

    settings = GradingSettings.from_json(settings_json)
    course = _worker_course(settings_json, chapter)
    submitted = course.layout.submitted(student, chapter)
    for folder in (submitted.parent, course.layout.autograded(student, chapter).parent):
        shutil.rmtree(folder, ignore_errors=True)
    submitted.parent.mkdir(parents=True)
    submitted.write_text(notebook, encoding="utf-8")
    outcome = grade_submission(GradingTask(str(course.root), chapter, student), settings)
    graded = course.layout.autograded(student, chapter)
    text = graded.read_text(encoding="utf-8") if graded.exists() else None
    for folder in (submitted.parent, graded.parent, course.layout.feedback_dir / student):
        shutil.rmtree(folder, ignore_errors=True)          # a worker keeps no student's work
    return {"outcome": outcome.to_dict(), "autograded": text}


_GENERATED: set[tuple[str, str]] = set()


@functools.lru_cache(maxsize=4)
def _worker_root(settings_json: str) -> Path:
    """This worker process's course folder, removed when the process exits: multiprocessing's exit
    finalizers run in a Dask worker (forked or spawned by its nanny) and, through atexit, anywhere else."""
    from multiprocessing.util import Finalize

    root = Path(tempfile.mkdtemp(prefix="course-dask-worker-"))
    Finalize(None, shutil.rmtree, args=(str(root),), kwargs={"ignore_errors": True}, exitpriority=10)
    return root


def _worker_course(settings_json: str, chapter: str):
    """This worker process's private course directory, with `chapter` generated once."""
    from .coursedir import CourseDir
    from .worker import _course

    root = _worker_root(settings_json)
    if (settings_json, chapter) not in _GENERATED:
        CourseDir.create(root, [chapter])
        _course(str(root), GradingSettings.from_json(settings_json)).generate(chapter)
        _GENERATED.add((settings_json, chapter))
    return _course(str(root), GradingSettings.from_json(settings_json))


def record(course, task: GradingTask, autograded: str) -> None:
    """On the coordinator: put a worker's autograded notebook into `course` and its scores into the
    gradebook, as nbgrader's autograde does after execution."""
    from nbgrader.api import Gradebook

    from .pipeline import RECORD_PREPROCESSORS, load_config, run_preprocessors

    with Gradebook(course.layout.gradebook_url) as gb:
        gb.update_or_create_student(task.student)
        gb.update_or_create_submission(task.chapter, task.student)
    nb = nbformat.reads(autograded, as_version=4)
    resources = {"unique_key": task.chapter, "output_files_dir": f"{task.chapter}_files",
                 "nbgrader": {"student": task.student, "assignment": task.chapter, "notebook": task.chapter,
                              "db_url": course.layout.gradebook_url}}
    nb, _ = run_preprocessors(nb, resources, load_config(course.settings), RECORD_PREPROCESSORS)
    dest = course.layout.autograded(task.student, task.chapter)
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(dest))


def grade_on_cluster(tasks: list[GradingTask], settings: GradingSettings) -> list[GradingOutcome]:
    """Grade `tasks` on the Dask cluster at `settings.scheduler`; record each result here as it arrives."""
    from .preflight import preflight
    preflight("grading on a Dask cluster", config=None, extras=("grade", "cluster"))   # `distributed` is an extra
    from distributed import Client, as_completed

    from .coursedir import CourseDir
    from .worker import prepare_process

    prepare_process()
    if not tasks:
        return []
    course = CourseDir(Path(tasks[0].root), settings)
    remote = settings.to_json()
    outcomes: dict[GradingTask, GradingOutcome] = {}
    with Client(settings.scheduler, timeout="60s") as client:
        futures = {}
        for t in tasks:
            text = course.layout.submitted(t.student, t.chapter).read_text(encoding="utf-8")
            futures[client.submit(grade_remotely, t.chapter, t.student, text, remote, pure=False,
                                  key=f"grade-{t.chapter}-{t.student}")] = t
        for future in as_completed(futures):
            t = futures[future]
            try:
                answer = future.result()
            except Exception as exc:      # a lost worker, or a failure on it: this student only
                outcomes[t] = GradingOutcome.failed(t, f"Dask: the cluster did not grade it ({type(exc).__name__}: "
                                                       f"{str(exc)[:150]})")
                continue
            outcome = GradingOutcome.from_dict(answer["outcome"])
            outcome = GradingOutcome(t.chapter, t.student, outcome.status, outcome.reason, outcome.incidents,
                                     outcome.repairs, outcome.scores)
            if outcome.status == GRADED and answer["autograded"]:
                record(course, t, answer["autograded"])
                course.generate_feedback(t.chapter, t.student)
            elif outcome.status == GRADED:
                outcome = GradingOutcome(t.chapter, t.student, FAILED, "grading produced no scores",
                                         outcome.incidents, outcome.repairs)
            outcomes[t] = outcome
    return [outcomes[t] for t in tasks]
