"""The grading kernel's sandbox: what student code can and cannot reach; the loud fallback."""
import json
import os
import re
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.grading.settings import GradingSettings
from nbclient import NotebookClient

from autograder.grading import cgroups, sandbox  # noqa: F401
from autograder.grading.environment import kernel_environment
from autograder.integrity import restore
from autograder.grading.outputs import cap_outputs
from autograder.grading.review import suspicious_lines

needs_bwrap = pytest.mark.skipif(not sandbox.isolation_available(), reason="bubblewrap is not installed")


def _run(cells, hide=(), timeout=30, cgroups_made=None, **limits):
    """The text each cell printed (or its error) in one sandboxed kernel; `cgroups_made` (a list)
    receives the folders of the kernel's cgroups."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in cells])

    def init(self, *args, **kwargs):
        sandbox.SandboxedKernelManager.__init__(self, *args, **kwargs)
        if cgroups_made is not None:
            cgroups_made.extend(self.cgroup.folders)
    manager = type("M", (sandbox.SandboxedKernelManager,),
                   {"policy": GradingSettings(hide=list(hide), **limits), "__init__": init})
    with kernel_environment():
        NotebookClient(nb, timeout=timeout, kernel_name="python3", kernel_manager_class=manager,
                       allow_errors=True).execute()
    return ["".join(o.get("text", "") or f"{o.get('ename')}: {o.get('evalue')}" for o in c.outputs) for c in nb.cells]


def _bound(cmd):
    """(read-only binds, links) of a bwrap command line: the allow-list as the sandbox sees it."""
    binds = [cmd[i + 2] for i, a in enumerate(cmd) if a == "--ro-bind"]
    links = [cmd[i + 2] for i, a in enumerate(cmd) if a == "--symlink"]
    return binds, links


def test_bwrap_command_binds_only_the_allow_list():
    from autograder.paths import REPO_ROOT

    cmd = sandbox.bwrap_command(["python"], "/tmp/w", GradingSettings(), bwrap="bwrap")
    binds, links = _bound(cmd)
    remounts = [cmd[i + 1] for i, a in enumerate(cmd) if a == "--remount-ro"]
    assert "/" not in binds and remounts[-2:] == ["/dev", "/"], remounts
    # Every emptied folder (a tmpfs over part of an allowed tree) is read-only too.
    emptied = [cmd[i + 1] for i, a in enumerate(cmd) if a == "--tmpfs" and cmd[i + 1] not in ("/tmp", "/dev/shm")]
    assert sorted(remounts[:-2]) == sorted(emptied), cmd
    assert all(d in emptied for d in ("/usr/src", "/usr/local/src") if os.path.isdir(d)), emptied
    for flag in ("--unshare-all", "--die-with-parent", "--new-session"):
        assert flag in cmd
    assert cmd[cmd.index("--bind") + 1:cmd.index("--bind") + 3] == ["/tmp/w", "/tmp/w"]
    assert cmd[-2:] == ["--", "python"]
    # The environment, exactly: its own folder, wherever it lives (here: inside the checkout).
    env = os.path.realpath(sys.prefix)
    assert env in binds or any(env.startswith(b + "/") for b in binds), binds
    # The course library, not the checkout: no solutions/, tests/, chapters/, .git or grading code.
    assert {str(REPO_ROOT / "specdec"), str(REPO_ROOT / "widgets"), str(REPO_ROOT / "autograder" / "stats.py")} <= set(binds)
    for b in binds + links:
        assert not (str(REPO_ROOT) + "/").startswith(b + "/"), f"{b} shows the whole checkout"
        for secret in ("solutions", "tests", "chapters", ".git", "autograder/grading", "autograder/hub"):
            assert not b.startswith(str(REPO_ROOT / secret)), b
    for top in ("/home", "/srv", "/opt", "/var", "/mnt", "/media", "/etc", "/root", "/work", "/run"):
        assert top not in binds, top
    # The machine's list of users is not shown: the kernel gets its own two-line passwd.
    assert "/etc/passwd" not in binds and "/etc/shadow" not in binds


def test_an_environment_under_a_home_folder_or_holding_the_course_is_bound_exactly(tmp_path, monkeypatch):
    from autograder.grading import allowlist

    home_env = tmp_path / "home" / "ana" / "miniconda3" / "envs" / "course"
    (home_env / "lib").mkdir(parents=True)
    (tmp_path / "home" / "ana" / "notes.txt").write_text("secret")
    monkeypatch.setattr(allowlist.sys, "prefix", str(home_env))
    monkeypatch.setattr(allowlist.sys, "exec_prefix", str(home_env))
    trees = allowlist.python_trees()
    assert home_env in trees and tmp_path / "home" / "ana" not in trees
    # A course checked out inside its environment's folder: the environment's parts, not the course.
    venv = tmp_path / "venv"
    for part in ("bin", "lib", "pyvenv.cfg"):
        (venv / part).mkdir(parents=True) if part != "pyvenv.cfg" else (venv / part).write_text("home = /usr/bin\n")
    (venv / "course" / "solutions").mkdir(parents=True)
    monkeypatch.setattr(allowlist.sys, "prefix", str(venv))
    monkeypatch.setattr(allowlist.sys, "exec_prefix", str(venv))
    monkeypatch.setattr(allowlist, "REPO_ROOT", venv / "course")
    trees = allowlist.python_trees()
    assert {venv / "bin", venv / "lib", venv / "pyvenv.cfg"} <= set(trees) and venv not in trees, trees


def test_links_on_the_way_are_recreated_and_their_targets_bound(tmp_path):
    from autograder.grading import allowlist

    real = tmp_path / "data" / "ana"
    (real / "env").mkdir(parents=True)
    (tmp_path / "home").symlink_to(tmp_path / "data")
    args = allowlist.mounts([tmp_path / "home" / "ana" / "env"])
    assert args == ["--symlink", str(tmp_path / "data"), str(tmp_path / "home"),
                    "--ro-bind", str(real / "env"), str(real / "env")], args


def test_the_lab12_record_is_the_one_file_of_benchmarks_a_kernel_sees():
    """Chapter 12 prints its recorded full run beside a short run: the sandbox binds that file (where
    `specdec.engine.lab_record` reads it), and nothing else of `benchmarks/`."""
    from autograder.grading import allowlist
    from autograder.paths import REPO_ROOT
    from specdec.engine import lab_record

    record, bench = REPO_ROOT / allowlist.LAB_RECORD, REPO_ROOT / "benchmarks"
    assert lab_record.RECORD_PATH == record.resolve()
    seen = [p for p in allowlist.allowed_paths() if p == bench or bench in p.parents or p in bench.parents]
    assert seen == ([record] if record.is_file() else []), seen
    assert [p for p in allowlist.course_library(Path("/c"), Path("/c/autograder"))
            if "benchmarks" in p.parts] == [Path("/c/benchmarks/results/lab12_cpu.json")]


def test_a_checkout_inside_an_allowed_tree_is_emptied_and_its_library_bound_on_top(tmp_path, monkeypatch):
    """A course kept under /usr/local/src, and another checkout one level below /usr/local, inside an
    allowed /usr (a temp folder stands for it): a tmpfs over each, then the course's library bound
    on top; nothing of either checkout is bound."""
    from autograder.grading import allowlist

    usr = tmp_path / "usr"
    course = usr / "local" / "src" / "course"
    for name in ("specdec", "widgets", "autograder/progress", "solutions", "tests", "benchmarks/results"):
        (course / name).mkdir(parents=True)
    (course / allowlist.LAB_RECORD).write_text("{}")
    other = usr / "local" / "old-course"
    (other / "solutions").mkdir(parents=True)
    grading = usr / "local" / "share" / "grading-2025"
    grading.mkdir(parents=True)
    (grading / "gradebook.db").write_text("")
    (usr / "local" / "lib" / "python3").mkdir(parents=True)
    monkeypatch.setattr(allowlist, "REPO_ROOT", course)
    monkeypatch.setattr(allowlist, "PACKAGE_DIR", course / "autograder")
    monkeypatch.setattr(allowlist, "SYSTEM", (usr,))
    monkeypatch.setattr(allowlist, "ETC", ())
    monkeypatch.setattr(allowlist, "SOURCE_TREES", (usr / "src", usr / "local" / "src"))
    for name in ("python_trees", "model_trees", "gpu_trees"):
        monkeypatch.setattr(allowlist, name, lambda: [])
    masks = allowlist.masked_paths(local=usr / "local")
    assert set(masks) == {usr / "local" / "src", course, other, grading}, masks
    args = allowlist.mounts(allowlist.allowed_paths(masks), masks)
    binds, tmpfs = _bound(["bwrap"] + args)[0], [args[i + 1] for i, a in enumerate(args) if a == "--tmpfs"]
    assert binds[0] == str(usr) and set(tmpfs) == {str(usr / "local" / "src"), str(other), str(grading)}, args
    assert {str(course / "specdec"), str(course / "autograder" / "progress"), str(course / allowlist.LAB_RECORD)} \
        <= set(binds), binds
    assert args.index(str(usr / "local" / "src")) < args.index(str(course / "specdec")), args
    for b in binds[1:]:
        assert b.startswith(str(course) + "/") and not b.startswith((str(course / "solutions"), str(course / "tests")))


def test_every_autograder_module_a_notebook_imports_is_in_the_kernel():
    """The in-kernel part of `autograder` (allowlist.KERNEL_MODULES) holds every module the chapters
    import and everything those import in turn (a new import in a chapter fails here, not in grading)."""
    import re
    import subprocess

    from autograder.grading import allowlist
    from autograder.paths import CHAPTERS_DIR, PACKAGE_DIR, SOLUTIONS_DIR

    names = set()
    for folder in (SOLUTIONS_DIR, CHAPTERS_DIR):
        for path in folder.glob("*.ipynb"):
            names |= set(re.findall(r"(?:from|import)\s+(autograder(?:\.\w+)*)", path.read_text()))
    assert "autograder.stats" in names and "autograder.learner.notebook_check" in names
    names |= {"autograder.integrity", "autograder.graded_output"}       # the grader's guard runs these
    code = ("import importlib, sys\n"
            f"for n in {sorted(names)!r}: importlib.import_module(n)\n"
            "print('\\n'.join(m.__file__ for n, m in list(sys.modules.items()) if n.split('.')[0] == 'autograder'))")
    files = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    allowed = [PACKAGE_DIR / m for m in allowlist.KERNEL_MODULES]
    missing = [f for f in files if not any(sandbox.Path(f) == a or a in sandbox.Path(f).parents for a in allowed)]
    assert not missing, f"modules the kernel imports but cannot see (add them to allowlist.KERNEL_MODULES): {missing}"


@needs_bwrap
def test_student_code_sees_a_read_only_world_without_the_hidden_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_API_TOKEN", "hunter2")          # the grader's shell holds a secret
    monkeypatch.setenv("COURSE_PROGRESS_LOG", str(tmp_path / "graders-own-log.jsonl"))
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
        "import getpass, os; print(getpass.getuser(), os.path.expanduser('~'))",
        "import os; print(os.environ.get('GRADER_API_TOKEN'), os.environ.get('SPECDEC_LAB_PRESET'))",
        "from specdec.engine.lab_record import recorded_full_run; print('record', recorded_full_run() is not None)",
        "open('/usr/local/src/evil', 'w')",
        # A graded copy is no learner's session: no progress log, whatever the grader's shell names.
        "import os; from autograder import progress; print(os.environ.get('COURSE_PROGRESS_LOG')); "
        "_ = progress.start_drill('d', 't', '13').finish_with(lambda: None)",
    ], hide=[str(secret)])
    assert "No such file or directory" in outputs[0]
    assert "Read-only file system" in outputs[1]
    assert outputs[2].strip() != "0"
    assert outputs[3].strip() == "True"
    assert "library ok" in outputs[4]
    assert "spawned" in outputs[5]
    assert outputs[6].split() == ["student", "/tmp"], outputs[6]
    assert outputs[7].split() == ["None", "test"], outputs[7]
    from autograder.grading.allowlist import LAB_RECORD
    from autograder.paths import REPO_ROOT
    if (REPO_ROOT / LAB_RECORD).is_file():         # chapter 12's recorded full run is there when graded
        assert outputs[8].split() == ["record", "True"], outputs[8]
    if os.path.isdir("/usr/local/src"):            # an emptied folder is read-only too
        assert "Read-only file system" in outputs[9], outputs[9]
    assert outputs[10].splitlines() == ["off", "d: passed the visible test in 0 s; not recorded (no progress log in this run)."], outputs[10]
    assert not (tmp_path / "graders-own-log.jsonl").exists()
    time.sleep(1)
    import psutil
    alive = [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", "31337"]]
    assert not alive, "a detached process outlived its sandbox"


# Walks the kernel's whole filesystem (not into /proc, /dev, /tmp or the trees it was given) and prints
# every path that is neither an allowed tree, a link the sandbox made, nor a folder on the way to one.
WALK = """import json, os
allowed, links = json.loads({allowed!r}), set(json.loads({links!r}))
unexpected, seen = [], 0
def inside(p):
    return any(p == a or p.startswith(a.rstrip("/") + "/") for a in allowed)
def walk(folder):
    global seen
    for entry in os.scandir(folder):
        seen += 1
        p = entry.path
        if inside(p) or p in links:
            continue
        if entry.is_dir(follow_symlinks=False) and any(a.startswith(p + "/") for a in allowed):
            walk(p)
        else:
            unexpected.append(p)
walk("/")
print("walked", seen, "unexpected", json.dumps(unexpected))"""

PROBE = """import os
for path in {paths!r}:
    try:
        with open(path) as f:
            print(path, "READ", f.read()[:200])
    except OSError as exc:
        print(path, "->", exc.strerror)
for folder in {folders!r}:
    try:
        print(folder, "LISTED", os.listdir(folder))
    except OSError as exc:
        print(folder, "->", exc.strerror)"""


@needs_bwrap
def test_files_elsewhere_on_the_machine_do_not_exist_for_student_code(tmp_path):
    """Another checkout of the course (solutions, hidden tests), an instructor's notes and a grades file
    under /srv, /opt and /var/tmp, and the grader's home: not there for a kernel ("No such file or
    directory"), and a walk of the kernel's whole filesystem finds only the allowed trees."""
    from tests.planted import planted_secrets

    cmd = sandbox.bwrap_command(["python"], "/tmp/w", GradingSettings(), bwrap="bwrap")
    binds, links = _bound(cmd)
    allowed = binds + ["/proc", "/dev", "/tmp", "/etc/passwd", "/etc/group"]
    with planted_secrets() as planted:
        paths = planted.files + [os.path.expanduser("~/.bash_history"), "/etc/shadow", "/etc/hostname"]
        folders = planted.folders + ["/srv", "/opt", "/var", "/mnt", "/home"]   # the home folder: see the walk
        outputs = _run([PROBE.format(paths=[str(p) for p in paths], folders=[str(f) for f in folders]),
                        WALK.format(allowed=json.dumps(allowed), links=json.dumps(links))], timeout=120)
    lines = outputs[0].splitlines()
    assert len(lines) == len(paths) + len(folders), outputs[0]
    assert all(line.endswith("-> No such file or directory") for line in lines), outputs[0]
    walked, unexpected = re.fullmatch(r"walked (\d+) unexpected (.*)\n", outputs[1]).groups()
    assert int(walked) > 10 and json.loads(unexpected) == [], outputs[1]
    # What the walk allowed holds nothing of a course's checkout but its library.
    for b in binds:
        assert not (sandbox.Path(b) / "solutions").exists() and not (sandbox.Path(b) / "tests").exists(), b


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


def test_cells_the_course_put_in_the_learner_copy_are_never_flagged_for_review():
    """Every chapter's learner copy, answered as a student answers it: nothing to review. The Check my
    work cell and demonstrations import `autograder`, yet they are the course's; a line a student adds
    to one makes it theirs."""
    from autograder.authoring.learner_cells import is_learner_cell
    from autograder.grading.review import review_notebook
    from tests.helpers import CHAPTERS, solution_nb
    from tests.submissions import learner_submission

    for name in CHAPTERS:
        nb, reference = learner_submission(name, run=False), solution_nb(name)
        assert sum(is_learner_cell(c) for c in nb.cells) == 3, name        # note, heading, check cell
        assert review_notebook(nb, reference) == [], (name, review_notebook(nb, reference))
    nb, reference = learner_submission("07_adaptive_verification", run=False), solution_nb("07_adaptive_verification")
    last = len(nb.cells) - 1
    nb.cells[last].source += "\nimport ctypes"
    demo = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and not c.metadata.get("nbgrader")
                and "autograder" in c.source and i != last)
    nb.cells[demo].source += "\nimport autograder.grading"
    flagged = [n.split(":")[0] for n in review_notebook(nb, reference)]
    assert flagged[-1] == f"cell {last} line 6" and f"cell {demo} line 1" in flagged, flagged


@needs_bwrap
def test_a_course_kept_under_usr_local_src_shows_its_library_and_record_only(monkeypatch):
    """The course itself under /usr/local/src (inside the allowed /usr): a kernel reads its library and
    chapter 12's record, and finds neither its solutions nor its tests."""
    import shutil
    import uuid

    from autograder.grading import allowlist

    try:
        root = Path("/usr/local/src") / f"course-test-{uuid.uuid4().hex[:12]}"
        root.mkdir(parents=True)
    except OSError:
        pytest.skip("cannot write under /usr/local/src here (run as root)")
    try:
        course = root / "course"
        for name in ("specdec", "widgets", "autograder/progress", "solutions", "tests", "benchmarks/results"):
            (course / name).mkdir(parents=True)
        (course / "specdec" / "lib.py").write_text("LIBRARY = 1")
        (course / allowlist.LAB_RECORD).write_text('{"seconds": 455}')
        (course / "solutions" / "01_cost_model.ipynb").write_text("{}")
        (course / "tests" / "test_hidden.py").write_text("")
        monkeypatch.setattr(allowlist, "REPO_ROOT", course)
        monkeypatch.setattr(allowlist, "PACKAGE_DIR", course / "autograder")
        paths = [course / "specdec" / "lib.py", course / allowlist.LAB_RECORD,
                 course / "solutions" / "01_cost_model.ipynb", course / "tests" / "test_hidden.py"]
        out = _run([PROBE.format(paths=[str(p) for p in paths], folders=[str(course / "solutions"), str(root)])])[0]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    lines = out.splitlines()
    assert lines[0].endswith("READ LIBRARY = 1") and lines[1].endswith('READ {"seconds": 455}'), out
    assert all(line.endswith("-> No such file or directory") for line in lines[2:5]), out
    assert lines[5] == f"{root} LISTED ['course']", out


def test_a_course_checked_out_under_tmp_stays_visible_read_only(tmp_path, monkeypatch):
    """CI may clone the course under /tmp; its library is bound on top of the kernel's private /tmp."""
    from autograder.grading import allowlist

    clone = tmp_path / "some-clone"
    for name in ("specdec", "widgets", "autograder/progress", "solutions"):
        (clone / name).mkdir(parents=True)
    monkeypatch.setattr(allowlist, "REPO_ROOT", clone)
    monkeypatch.setattr(allowlist, "PACKAGE_DIR", clone / "autograder")
    cmd = sandbox.bwrap_command(["python"], "/tmp/work", GradingSettings(hide=[]), bwrap="bwrap")
    tmpfs = [i for i, a in enumerate(cmd) if a == "--tmpfs" and cmd[i + 1] == "/tmp"]
    rebind = [i for i, a in enumerate(cmd) if a == "--ro-bind" and cmd[i + 1] == str(clone / "specdec")]
    assert tmpfs and rebind and tmpfs[0] < rebind[0], cmd
    assert str(clone / "solutions") not in cmd and str(clone) not in _bound(cmd)[0]


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
    made = []
    out = _run([SPAWN, "print('still alive')"], max_processes=40, cgroups_made=made)
    started, error = out[0].split()
    assert int(started) < 40 and error == "BlockingIOError", out[0]
    assert "still alive" in out[1]
    assert "processes per kernel limited" in sandbox.check_sandbox()
    # (Only this kernel's: other tests' kernels may be running beside it.)
    assert made and not [f for f in made if f.exists()], "a kernel's cgroup was left behind"


def test_without_cgroups_the_header_says_the_process_limit_is_not_enforced(monkeypatch):
    monkeypatch.setattr(sandbox, "cgroups_available", lambda: frozenset())
    assert "number of processes per kernel is NOT limited" in sandbox.check_sandbox()


def test_the_scratch_size_reaches_bubblewrap():
    cmd = sandbox.bwrap_command(["python"], "/tmp/w", GradingSettings(scratch_bytes=12345), bwrap="bwrap")
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
    policy = GradingSettings(memory_bytes=3 * 2**30, scratch_bytes=2**30, max_processes=99)
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


_PRINT_IN_SANDBOX = ("from tests.test_sandbox import _run; import sys; "
                     "print('OUT:', _run(['import sys; print(sys.prefix)'])[0].strip())")


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("how", ["relative path", "linked environment"])
def test_a_kernel_starts_however_python_is_called(how, tmp_path):
    """`cd learner && ../.venv/bin/python -m autograder check ...` and a `.venv` that is a link to an
    environment elsewhere: the kernel spec names this Python as it was called, a path the sandbox
    (which binds real folders) did not show, and the kernel died before replying to kernel_info."""
    repo = Path(__file__).resolve().parents[1]
    exe = Path(sys.executable)
    env_dir = exe.parent.parent
    if how == "relative path":
        cwd = tmp_path / "learner"
        cwd.mkdir()
        python = os.path.relpath(exe, cwd)
    else:
        cwd = tmp_path
        (tmp_path / "venv-link").symlink_to(env_dir, target_is_directory=True)
        python = str(tmp_path / "venv-link" / exe.relative_to(env_dir))
    run = __import__("subprocess").run([python, "-c", _PRINT_IN_SANDBOX], cwd=cwd, capture_output=True, text=True,
                                       timeout=120, env={**os.environ, "PYTHONPATH": str(repo)})
    assert run.returncode == 0 and "OUT:" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]
    assert os.path.realpath(run.stdout.split("OUT:")[1].strip()) == os.path.realpath(sys.prefix), run.stdout


def test_a_kernel_whose_python_the_sandbox_does_not_show_gets_one_sentence(tmp_path):
    from autograder.errors import CourseError

    with pytest.raises(CourseError, match="cannot start in the sandbox: its Python, .*nowhere.*lies in a folder"):
        sandbox.bwrap_command([str(tmp_path / "nowhere" / "python"), "-c", "pass"], str(tmp_path),
                              GradingSettings(), "bwrap")
