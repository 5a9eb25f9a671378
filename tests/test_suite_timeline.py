"""The suite's timeline (COURSE_TEST_TIMELINE, conftest.py) and its summary (benchmarks/suite_timeline.py)."""
import doctest
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

from autograder.paths import REPO_ROOT


def _module():
    spec = importlib.util.spec_from_file_location("suite_timeline", REPO_ROOT / "benchmarks" / "suite_timeline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_test_of_a_parallel_run_is_one_timeline_line(tmp_path):
    (tmp_path / "test_some.py").write_text(textwrap.dedent('''
        import time, pytest

        @pytest.mark.xdist_group("pair")
        @pytest.mark.parametrize("i", range(2))
        def test_grouped(i):
            time.sleep(0.3)

        @pytest.mark.parametrize("i", range(6))
        def test_loose(i):
            time.sleep(0.1)
    '''))
    (tmp_path / "conftest.py").write_text((REPO_ROOT / "conftest.py").read_text())   # the hook under test
    timeline = tmp_path / "timeline.jsonl"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2", "--dist",
                           "loadgroup", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COURSE_TEST_TIMELINE": str(timeline)})
    assert proc.returncode == 0, proc.stdout[-2000:]
    rows = [json.loads(line) for line in timeline.read_text().splitlines()]
    assert len(rows) == 8 and {r["worker"] for r in rows} <= {"gw0", "gw1"}, rows
    assert all(r["end"] - r["start"] >= (0.3 if "grouped" in r["test"] else 0.1) for r in rows), rows
    summary = _module().summarize(rows)
    assert {g: n for g, _, n in summary["groups"]} == {"pair": 2, "test_some.py": 6}, summary["groups"]
    busy = sum(w["busy"] for w in summary["workers"].values())
    assert abs(busy - sum(r["end"] - r["start"] for r in rows)) < 1e-6
    assert all(w["idle_at_end"] >= 0 and w["idle_between"] >= -1e-6 for w in summary["workers"].values())


def test_the_summary_s_worked_example():
    assert doctest.testmod(_module()).failed == 0
