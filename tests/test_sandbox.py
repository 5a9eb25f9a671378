"""The grading kernel's sandbox: what student code can and cannot reach; the loud fallback."""
import os
import time

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.grading import cgroups, sandbox  # noqa: F401
from autograder.grading.environment import kernel_environment
from autograder.integrity import restore
from autograder.grading.outputs import cap_outputs
from autograder.grading.review import suspicious_lines

needs_bwrap = pytest.mark.skipif(not sandbox.isolation_available(), reason="bubblewrap is not installed")


def _run(cells, hide=(), timeout=30, **limits):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in cells])
    manager = type("M", (sandbox.SandboxedKernelManager,),
                   {"policy": sandbox.SandboxPolicy(hide=list(hide), **limits)})
    with kernel_environment():
        NotebookClient(nb, timeout=timeout, kernel_name="python3", kernel_manager_class=manager,
                       allow_errors=True).execute()
    return ["".join(o.get("text", "") or f"{o.get('ename')}: {o.get('evalue')}" for o in c.outputs) for c in nb.cells]


def test_bwrap_command_hides_folders_and_keeps_the_environment():
    cmd = sandbox.bwrap_command(["python"], "/tmp/w", sandbox.SandboxPolicy(hide=["/etc", os.path.expanduser("~")]),
                                bwrap="bwrap")
    assert cmd[:5] == ["bwrap", "--ro-bind", "/", "/", "--dev"]
    assert cmd[cmd.index("/etc") - 1] == "--tmpfs"
    for flag in ("--unshare-all", "--die-with-parent", "--new-session"):
        assert flag in cmd
    assert cmd[cmd.index("--bind") + 1:cmd.index("--bind") + 3] == ["/tmp/w", "/tmp/w"]
    assert cmd[-2:] == ["--", "python"]


@needs_bwrap
def test_student_code_sees_a_read_only_world_without_the_hidden_folders(tmp_path):
    secret = tmp_path / "grading"
    secret.mkdir()
    (secret / "gradebook.db").write_text("scores")
    outputs = _run([
        f"import os; print(sorted(os.listdir({str(secret)!r})))",
        "open('/usr/evil', 'w')",
        "import socket; print(socket.socket().connect_ex(('1.1.1.1', 80)))",
        "import os; print(len([p for p in os.listdir('/proc') if p.isdigit()]) < 10)",
        "import specdec, numpy; print('library ok')",
        "import subprocess; p = subprocess.Popen(['sleep', '31337'], start_new_session=True); print('spawned')",
    ], hide=[str(secret)])
    assert outputs[0].strip() == "[]"
    assert "Read-only file system" in outputs[1]
    assert outputs[2].strip() != "0"
    assert outputs[3].strip() == "True"
    assert "library ok" in outputs[4]
    assert "spawned" in outputs[5]
    time.sleep(1)
    import psutil
    alive = [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", "31337"]]
    assert not alive, "a detached process outlived its sandbox"


def test_without_bubblewrap_grading_runs_and_says_it_is_not_isolated(monkeypatch, capsys):
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    monkeypatch.setattr(sandbox, "_warned", False)
    outputs = _run(["print(6 * 7)"])
    assert outputs[0].strip() == "42"
    assert "NOT isolated" in sandbox.check_sandbox()
    assert "not available" in capsys.readouterr().err


def test_integrity_restores_what_student_code_patched():
    import numpy as np

    import autograder.recording_rng as recording
    import autograder.stats as stats
    from autograder import integrity

    integrity.install()
    genuine = (np.allclose, stats.assert_distribution, recording.RecordingGenerator.names)
    np.allclose = lambda *a, **k: True
    stats.assert_distribution = lambda *a, **k: None
    recording.RecordingGenerator.names = lambda self: []
    repaired = restore()
    assert (np.allclose, stats.assert_distribution, recording.RecordingGenerator.names) == genuine
    assert len(repaired) == 3 and integrity.genuine(stats) and integrity.genuine(recording)


def test_outputs_are_capped_in_bytes():
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 5_000_000),
                    nbformat.v4.new_output("stream", name="stdout", text="more")]
    cap_outputs(cell, 100_000)
    assert sum(len(o.get("text", "")) for o in cell.outputs) < 110_000
    assert "bytes of output cut" in cell.outputs[0].text


def test_suspicious_lines_are_flagged_and_ordinary_code_is_not():
    assert suspicious_lines("def tv(p, q):\n    return 0.5 * np.abs(p - q).sum(axis=-1)") == []
    flagged = suspicious_lines("import linecache\nsys.modules['autograder.stats'] = x\nwhile 1:\n  try: f()\n  except: pass")
    assert [f.split(":")[0] for f in flagged] == ["line 1", "line 2", "line 5"]


def test_a_course_checked_out_under_tmp_stays_visible_read_only(monkeypatch):
    """CI may clone the course under /tmp; the kernel's private /tmp must not hide it."""
    from autograder.grading import cgroups, sandbox  # noqa: F401
    repo = "/tmp/some-clone"
    monkeypatch.setattr(sandbox, "_must_stay_visible", lambda: [sandbox.Path(repo)])
    cmd = sandbox.bwrap_command(["python"], "/tmp/work", sandbox.SandboxPolicy(hide=[]), bwrap="bwrap")
    tmpfs = [i for i, a in enumerate(cmd) if a == "--tmpfs" and cmd[i + 1] == "/tmp"]
    rebind = [i for i, a in enumerate(cmd) if a == "--ro-bind" and cmd[i + 1] == repo]
    assert tmpfs and rebind and tmpfs[0] < rebind[0], cmd


FILL = """import os
written, error = 0, None
try:
    with open(os.path.join(os.getcwd(), "fill.bin"), "wb") as f:
        block = b"x" * 2**20
        for _ in range(1024):
            f.write(block)
            f.flush()
            written += len(block)
except OSError as exc:
    error = exc
print(os.getcwd(), written // 2**20, "MiB", error)"""


@needs_bwrap
def test_scratch_is_bounded_and_full_scratch_is_an_error_inside_the_kernel():
    out = _run([FILL, "print('still alive')"], scratch_bytes=64 * 2**20)
    where, mib, _, *error = out[0].split()
    assert where == "/tmp" and int(mib) <= 64 and "No space left" in " ".join(error), out[0]
    assert "still alive" in out[1]


SPAWN = """import subprocess
procs, error = [], None
for _ in range(200):
    try:
        procs.append(subprocess.Popen(["sleep", "60"]))
    except OSError as exc:
        error = exc
        break
for p in procs:
    p.kill()
    p.wait()
print(len(procs), type(error).__name__)"""


@pytest.mark.skipif("pids" not in sandbox.cgroups_available(), reason="no cgroup can be created here: the "
                    "process limit is not enforced (check_sandbox says so)")
def test_processes_are_bounded_by_a_cgroup():
    out = _run([SPAWN, "print('still alive')"], max_processes=40)
    started, error = out[0].split()
    assert int(started) < 40 and error == "BlockingIOError", out[0]
    assert "still alive" in out[1]
    assert "processes per kernel limited" in sandbox.check_sandbox()
    assert not [p for p in cgroups.ROOT.glob("pids/**/course-kernel-*")], "a kernel's cgroup was left behind"


def test_without_cgroups_the_header_says_the_process_limit_is_not_enforced(monkeypatch):
    monkeypatch.setattr(sandbox, "cgroups_available", lambda: frozenset())
    assert "number of processes per kernel is NOT limited" in sandbox.check_sandbox()


def test_the_scratch_size_reaches_bubblewrap():
    cmd = sandbox.bwrap_command(["python"], "/tmp/w", sandbox.SandboxPolicy(scratch_bytes=12345), bwrap="bwrap")
    i = cmd.index("/tmp")
    assert cmd[i - 3:i] == ["--size", "12345", "--tmpfs"], cmd
    assert cmd[cmd.index("HOME") + 1] == "/tmp" and cmd[cmd.index("--chdir") + 1] == "/tmp"


@needs_bwrap
def test_a_file_in_the_connection_folder_is_capped_at_the_scratch_size():
    big = """import os
path = os.path.join(os.environ["IPYTHONDIR"], "..", "big.bin")
written, error = 0, None
try:
    with open(path, "wb") as f:
        for _ in range(64):
            f.write(b"x" * 2**20)
            f.flush()
            written += 2**20
except OSError as exc:
    error = exc.strerror
print(written // 2**20, error)"""
    out = _run([big], scratch_bytes=8 * 2**20)
    mib, error = out[0].split(maxsplit=1)
    assert int(mib) <= 9 and error.strip() == "File too large", out[0]


@pytest.mark.skipif("memory" not in sandbox.cgroups_available() or not (cgroups.ROOT / "memory").is_dir(),
                    reason="no cgroup v1 memory controller to create a cgroup in here")
def test_a_kernel_s_memory_cgroup_counts_its_memory_and_its_scratch():
    policy = sandbox.SandboxPolicy(memory_bytes=3 * 2**30, scratch_bytes=2**30, max_processes=99)
    manager = type("M", (sandbox.SandboxedKernelManager,), {"policy": policy})(kernel_name="python3")
    try:
        folders = list(manager.cgroup.folders)
        # cgroup v1: /sys/fs/cgroup/<controller>/...
        limits = {f.parts[4]: cgroups._limit_file(f, f.parts[4]).read_text().strip() for f in folders}
        assert limits == {"memory": str(4 * 2**30), "pids": "99"}, limits
        assert manager.cgroup.enter_command(["x"])[-1] == "x"
    finally:
        manager.cgroup.remove()
        sandbox.shutil.rmtree(manager.work, ignore_errors=True)
    assert not any(f.exists() for f in folders)


def test_a_cells_stdout_comes_back_as_one_output_however_the_kernel_flushed_it(tmp_path):
    # The kernel sends stdout when its buffer or a timer says so; left alone, a print, a pause and
    # a print come back as two outputs in one grading and one in the next, so feedback pages of
    # the same notebook differed between local and cluster grading. Text never moves across a
    # rich output (a figure), which flushes what was printed before it.
    from autograder.grading.pipeline import load_config, run_preprocessors

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import sys, time\nprint('a', flush=True)\ntime.sleep(0.5)\nprint('b', flush=True)\n"
        "print('e', file=sys.stderr, flush=True)\ntime.sleep(0.5)\nprint('c')\n"
        "from IPython.display import HTML, display\ndisplay(HTML('<b>x</b>'))\nprint('d')")])
    nb, _ = run_preprocessors(nb, {"metadata": {"path": str(tmp_path)}}, load_config())
    got = [(o.output_type, o.get("name"), o.get("text")) for o in nb.cells[0].outputs]
    assert got == [("stream", "stdout", "a\nb\nc\n"), ("stream", "stderr", "e\n"),
                   ("display_data", None, None), ("stream", "stdout", "d\n")], got
