"""`./course test` runs the suite with pytest-xdist's `--dist loadgroup`: the tests of one
`xdist_group` (a module sharing one expensive fixture: the hostile batch, the hub, the bundle)
must all run on one worker, or each worker builds that fixture again."""
import subprocess
import sys
import textwrap


def test_a_group_runs_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(textwrap.dedent('''
        import os, pytest
        pytestmark = pytest.mark.xdist_group("shared")

        @pytest.mark.parametrize("i", range(8))
        def test_in_group(i):
            with open(os.environ["PIDS"], "a") as f:
                f.write(f"{os.getpid()}\\n")
    '''))
    (tmp_path / "test_loose.py").write_text("import pytest\n\n@pytest.mark.parametrize('i', range(8))\n"
                                            "def test_loose(i):\n    pass\n")
    # The course's conftest.py, which repairs grouping under pytest 9, beside the two modules.
    from autograder.paths import REPO_ROOT
    (tmp_path / "conftest.py").write_text((REPO_ROOT / "conftest.py").read_text())
    pids = tmp_path / "pids.txt"
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q", "-p", "no:cacheprovider",
                           str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "PIDS": str(pids)})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    workers = set(pids.read_text().split())
    assert len(pids.read_text().split()) == 8 and len(workers) == 1, f"the group ran on {len(workers)} workers"
