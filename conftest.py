# nbgrader executes its config file with `get_config` injected; it is not importable on its own.
collect_ignore = ["autograder/grading/nbgrader_config.py"]


import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and modification time (nanoseconds)."""
    if not folder.is_dir():
        return {}
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session", autouse=True)
def learners_folder_is_never_touched():
    """The test suite never writes into the learner's folder (`learner/`, the README promises it):
    progress events of every process the tests start go to a scratch log ($COURSE_PROGRESS_LOG,
    inherited by subprocesses and kernels), and learner/ is compared before and after the session."""
    from autograder.paths import LEARNER_DIR

    before = _snapshot(LEARNER_DIR)
    existed = LEARNER_DIR.exists()
    previous = os.environ.get("COURSE_PROGRESS_LOG")
    scratch = tempfile.mkdtemp(prefix="course-test-progress-")
    os.environ["COURSE_PROGRESS_LOG"] = os.path.join(scratch, "progress.jsonl")
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("COURSE_PROGRESS_LOG", None)
        else:
            os.environ["COURSE_PROGRESS_LOG"] = previous
        shutil.rmtree(scratch, ignore_errors=True)
    after = _snapshot(LEARNER_DIR)
    assert LEARNER_DIR.exists() == existed and after == before, (
        f"the test session changed {LEARNER_DIR}: "
        f"{sorted(set(after.items()) ^ set(before.items()))[:10]}")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Keep each `xdist_group` on one worker under `--dist loadgroup` (what `./course test` runs).

    pytest-xdist 3.8 marks a grouped test by appending `@group` to `item._nodeid`, which pytest 9 no
    longer reads (a node's id lives in `item._id`): every group was split across workers, so the
    hostile batch and the hub were each built twice. This does the same through `_id`."""
    if not getattr(config.option, "loadgroup", False):
        return
    from _pytest.nodeid import NodeId

    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        if names and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(names)}")


# `COURSE_TEST_TIMELINE=FILE ./course test`: each worker appends one line per test (its worker, node id
# with its xdist group, start and end in seconds since the epoch, setup and teardown included), so
# `benchmarks/suite_timeline.py FILE` can show how busy each worker was and what the run waited on.
TIMELINE_VAR = "COURSE_TEST_TIMELINE"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = time.time()
    yield
    path = os.environ.get(TIMELINE_VAR)
    if path:
        line = json.dumps({"worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "test": item.nodeid,
                           "start": start, "end": time.time()})
        with open(path, "a", encoding="utf-8") as f:       # one short append per test: whole lines
            f.write(line + "\n")
