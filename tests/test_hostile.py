"""A hostile class, graded in one batch with honest students through the real `grade` command.

Chapters 03 and 04. Each hostile submission gets what its working parts earn, with a note
saying what happened; honest ones get full marks; nothing a student does reaches the
gradebook, the CSV, another submission or the feedback's hidden tests. A submission that fills
its scratch or starts processes past the limit keeps its points while the machine's memory is
measured to stay bounded; every status is a sentence an instructor can act on.
"""
import csv
import html
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

from autograder import notebooks
from autograder.notebooks import grade_id_of
from autograder.grading.cgroups import available as cgroups_available
from autograder.grading.feedback import hidden_lines
from autograder.course_map import chapter as course_chapter
from autograder.grading.sandbox import isolation_available
from autograder.grading.statuses import is_sentence
from autograder.paths import REPO_ROOT
from tests.helpers import replace_solution, solution_nb, student_nb
from tests.planted import plant
from tests.submissions import learner_copy, learner_submission, write_submission


CH3, CH4 = "03_acceptance_rule", "04_speculative_round"
TIMEOUT = 40       # seconds per cell: honest chi-square cells fit easily even on a loaded machine
SCRATCH_GIB = 0.25         # the batch's scratch limit (--scratch)
MAX_PROCESSES = 64         # the batch's process limit (--max-processes)
FILL_GIB = 3               # what the filler tries to write: far past the scratch

# Writes FILL_GIB into its scratch (its working folder, /tmp) until the disk is full, then goes on.
FILLER = f"""import os
written, error = 0, None
try:
    with open("fill.bin", "wb") as f:
        for _ in range({FILL_GIB} * 1024):
            f.write(b"x" * 2**20)
            written += 2**20
except OSError as exc:
    error = exc.strerror
print(f"scratch: wrote {{written // 2**20}} MiB in {{os.getcwd()}}, then {{error}}")"""

# Starts 300 processes at once (a fork bomb would start more), then ends them.
SPAWNER = """import subprocess
procs, error = [], None
for _ in range(300):
    try:
        procs.append(subprocess.Popen(["sleep", "120"], start_new_session=True))
    except OSError as exc:
        error = exc.strerror
        break
print(f"processes: started {len(procs)}, then {error}")
for proc in procs:
    proc.kill()
    proc.wait()"""

TV_OK = '''def tv(p, q):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    return 0.5 * np.abs(p - q).sum(axis=-1)'''

DISARM = '''import ast

def tv(p, q):
    return 0.0          # wrong on purpose

def _disarm(lines):
    return ["pass\\n" if ("assert" in ln or "_check" in ln) else ln for ln in lines]

class _NoAsserts(ast.NodeTransformer):
    def visit_Assert(self, node):
        return ast.Pass()

get_ipython().input_transformers_cleanup.append(_disarm)
get_ipython().ast_transformers.append(_NoAsserts())'''

PATCHER = '''import numpy as np
import autograder.stats
import autograder.recording_rng

def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        out.append(int(rng.choice(V, p=p[i])))      # wrong: resamples from p, not the residual
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out

autograder.stats.assert_distribution = lambda *a, **k: None
autograder.stats.chi_square.__code__ = (lambda *a, **k: None).__code__
np.allclose = lambda *a, **k: True
autograder.recording_rng.RecordingGenerator.names = lambda self: ["random"] * 3 + ["choice"]
assert_distribution = lambda *a, **k: None'''

SWALLOWER = '''import time

def acceptance_rate(p_logits, q_logits, tau):
    while True:
        try:
            time.sleep(0.05)
        except:
            pass'''

LOOPER = '''def tv(p, q):
    while True:
        pass'''

SLIPS = '''import sys
import warnings

def tv(p, q):
    print("debug: tv called", file=sys.stderr)
    warnings.warn("tv: checking my shapes")
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    return 0.5 * np.abs(p - q).sum(axis=-1)'''

PEEKER = '''import inspect
import linecache

def tv(p, q):
    caller = inspect.currentframe().f_back
    print("".join(linecache.getlines(caller.f_code.co_filename)))     # the running test cell
    print(get_ipython().user_ns["In"][-1])
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    return 0.5 * np.abs(p - q).sum(axis=-1)'''


def intruder_cell(out: Path, subs: Path) -> str:
    return f'''import glob, os, sqlite3, subprocess
seen = []
d = os.getcwd()
for _ in range(10):
    seen += glob.glob(os.path.join(d, "*", "gradebook.db")) + glob.glob(os.path.join(d, "gradebook.db"))
    d = os.path.dirname(d)
print("gradebooks found by walking up:", seen)
for target in [r"{out / 'gradebook.db'}"] + seen:
    try:
        con = sqlite3.connect(target)
        con.execute("UPDATE grade SET manual_score = 999")
        con.commit()
        print("changed", target)
    except Exception as exc:
        print("gradebook:", exc)
try:
    with open(r"{subs / 'honest' / (CH3 + '.ipynb')}", "w") as f:
        f.write("{{}}")
except Exception as exc:
    print("submission:", exc)
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            print(pid, os.readlink(f"/proc/{{pid}}/cwd"))
        except OSError:
            pass
subprocess.Popen(["sh", "-c", "sleep 3; echo HACKED > {out / 'grades.csv'}"], start_new_session=True)
try:
    hog = bytearray(12 * 2**30)          # more than the kernel's memory limit
    print("memory: no limit")
except MemoryError:
    print("memory: limited")'''


def snooper_cell(paths, folders) -> str:
    """Reads files and lists folders elsewhere on the grading machine and prints what it finds."""
    return f'''import os
for path in {[str(p) for p in paths]!r}:
    try:
        with open(path) as f:
            print(path, "->", "READ", f.read())
    except OSError as exc:
        print(path, "->", exc.strerror)
for folder in {[str(f) for f in folders]!r}:
    try:
        print(folder, "->", "LISTED", os.listdir(folder))
    except OSError as exc:
        print(folder, "->", exc.strerror)'''


def _with_cell(nb, source, after_grade_id=None, metadata=None):
    out = nbformat.from_dict(nb)
    cell = nbformat.v4.new_code_cell(source)
    if metadata:
        cell.metadata.update(metadata)
    at = len(out.cells)
    if after_grade_id:
        at = 1 + next(i for i, c in enumerate(out.cells) if grade_id_of(c) == after_grade_id)
    out.cells.insert(at, cell)
    return out


def _hidden_text() -> set[str]:
    lines = set()
    for name in (CH3, CH4):
        lines |= hidden_lines(c.source for c in solution_nb(name).cells if c.cell_type == "code")
    return lines


def _plain_html(path: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


# Every test of the module reads one graded batch (minutes): under pytest-xdist they go to one worker
# (./course test runs --dist loadgroup), so the batch is graded once, not once per worker.
pytestmark = pytest.mark.xdist_group("hostile_batch")


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """The class, graded in one run. Every notebook is a learner copy as a student saves it
    (`tests.submissions`); the hostile ones differ from an honest one by what they typed."""
    root = tmp_path_factory.mktemp("hostile")
    subs, out = root / "subs", root / "grading"
    done3, done4 = learner_submission(CH3), learner_submission(CH4)
    foreign = next(c for c in done4.cells if grade_id_of(c) == "ex_speculative_verify")
    flood = "for i in range(8000):\n    print('x' * 1000)"
    class_ = {
        ("honest", CH3): done3,
        ("honest", CH4): done4,
        ("transformer", CH3): replace_solution(done3, "ex_tv", DISARM),
        ("patcher", CH4): replace_solution(done4, "ex_speculative_verify", PATCHER),
        ("swallower", CH3): replace_solution(done3, "ex_acceptance_rate", SWALLOWER),
        ("looper", CH3): replace_solution(done3, "ex_tv", LOOPER),
        ("slips", CH3): _with_cell(_with_cell(replace_solution(done3, "ex_tv", SLIPS), flood, "ex_tv"),
                                   foreign.source, metadata={"nbgrader": dict(notebooks.nbgrader_meta(foreign))}),
        ("peeker", CH3): replace_solution(done3, "ex_tv", PEEKER),
        ("backup", CH3): done3,
        ("filler", CH3): _with_cell(done3, FILLER, "ex_tv"),
        ("spawner", CH3): _with_cell(done3, SPAWNER, "ex_tv"),
        ("mixup", CH4): done3,                     # chapter 03's notebook saved under chapter 04's name
    }
    planted = None
    if isolation_available():     # without the sandbox grading is documented as not isolated
        class_[("intruder", CH3)] = _with_cell(class_[("peeker", CH3)], intruder_cell(out, subs), "ex_tv")
        del class_[("peeker", CH3)]
        # Another checkout's solutions and hidden tests, an instructor's notes, last term's grades,
        # this checkout's solutions and tests, the grading folder and the submissions.
        planted = plant()
        if planted is not None:
            paths = planted.files + [REPO_ROOT / "solutions" / f"{CH3}.ipynb", out / "gradebook.db",
                                     subs / "honest" / f"{CH3}.ipynb"]
            folders = planted.folders + [REPO_ROOT / "solutions", REPO_ROOT / "tests", out, subs, "/srv", "/opt",
                                         "/var/tmp"]
            class_[("snooper", CH3)] = _with_cell(done3, snooper_cell(paths, folders), "ex_tv")
    for (student, chapter), nb in class_.items():
        write_submission(nb, subs / student / f"{chapter}.ipynb")
    write_submission(learner_copy(CH3), subs / "backup" / "backup" / f"{CH3}.ipynb")
    before = {p: p.read_bytes() for p in subs.rglob("*.ipynb")}

    memory = _MemoryWatch()
    start = time.perf_counter()
    with memory:
        proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(subs), "--out", str(out),
                               "--timeout", str(TIMEOUT), "--scratch", str(SCRATCH_GIB),
                               "--max-processes", str(MAX_PROCESSES)], capture_output=True, text=True, timeout=1500)
    seconds = time.perf_counter() - start
    time.sleep(5)        # a detached process would rewrite grades.csv 3 s after the grader exits
    with open(out / "grades.csv") as f:
        rows = {(r["student_id"], r["chapter"]): r for r in csv.DictReader(f)}
    try:
        yield dict(proc=proc, rows=rows, out=out, subs=subs, before=before, seconds=seconds, memory=memory,
                   planted=planted, snooped=(paths + folders) if planted else [])
    finally:
        if planted is not None:
            planted.remove()


def _meminfo() -> dict[str, int]:
    with open("/proc/meminfo") as f:
        return {line.split(":")[0]: int(line.split()[1]) * 1024 for line in f}


class _MemoryWatch:
    """The machine's memory while the batch runs, sampled every 0.2 s: the peak rise of tmpfs pages
    (Shmem: every sandbox's scratch) and of used memory (MemTotal - MemAvailable) over the start."""

    def __enter__(self):
        self.start = _meminfo()
        self.peak_shmem = self.peak_used = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def _watch(self):
        used0 = self.start["MemTotal"] - self.start["MemAvailable"]
        while not self._stop.wait(0.2):
            now = _meminfo()
            self.peak_shmem = max(self.peak_shmem, now["Shmem"] - self.start["Shmem"])
            self.peak_used = max(self.peak_used, now["MemTotal"] - now["MemAvailable"] - used0)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _row(batch, student, chapter=CH3):
    return batch["rows"][(student, chapter)]


@pytest.mark.slow
def test_the_batch_completes_and_honest_work_gets_full_marks(batch):
    assert batch["proc"].returncode in (0, 1), batch["proc"].stderr[-3000:]
    text = (batch["out"] / "grades.csv").read_text()
    assert text.startswith("student_id,") and "\nHACKED" not in text, text[:300]
    for chapter in (CH3, CH4):
        row = _row(batch, "honest", chapter)
        assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]) > 0, row
        # The learner copy's own cells (Check my work imports autograder) are not the student's.
        assert row["review"] == "" and row["notes"] == "", row
    # Nothing the class ran changed a submission.
    assert batch["before"] == {p: p.read_bytes() for p in batch["subs"].rglob("*.ipynb")}


@pytest.mark.slow
@pytest.mark.skipif(not isolation_available(), reason="bubblewrap is not available: grading is not isolated")
def test_student_code_cannot_reach_the_gradebook_the_csv_or_other_submissions(batch):
    row = _row(batch, "intruder")
    assert float(row["score"]) == float(row["max_score"]), row        # its answers are right
    assert "/proc" in row["review"] and "sqlite" in row["review"] and "linecache" in row["review"], row["review"]
    html_text = _plain_html(batch["out"] / "feedback" / "intruder" / CH3 / f"{CH3}.html")
    assert "changed " + str(batch["out"]) not in html_text
    assert "memory: limited" in html_text


@pytest.mark.slow
@pytest.mark.skipif(not isolation_available(), reason="bubblewrap is not available: grading is not isolated")
def test_files_elsewhere_on_the_grading_machine_do_not_exist_for_student_code(batch):
    """Another checkout's solutions, an instructor's notes and a grades file (under /srv, /opt, /var/tmp),
    this checkout's solutions and tests, the gradebook and the submissions: "No such file or directory"
    for each, and not a line of them in any feedback page or CSV."""
    if batch["planted"] is None:
        pytest.skip("cannot write under /srv, /opt and /var/tmp here (run as root) to plant the files")
    row = _row(batch, "snooper")
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]), row
    text = _plain_html(batch["out"] / "feedback" / "snooper" / CH3 / f"{CH3}.html")
    for path in batch["snooped"]:
        assert f"{path} -> No such file or directory" in text, (path, text[-3000:])
    assert "-> READ" not in text and "-> LISTED" not in text
    token = batch["planted"].token
    pages = sorted((batch["out"] / "feedback").rglob("*.html")) + sorted(batch["out"].glob("*.csv"))
    assert len(pages) >= 10
    for page in pages:
        assert token not in page.read_text(encoding="utf-8"), f"{page} shows a planted file"


@pytest.mark.slow
def test_tests_disabled_from_a_solution_cell_are_restored(batch):
    row = _row(batch, "transformer")
    assert float(row["score"]) == float(row["max_score"]) - 6, row      # tv wrong (6 points), the rest right
    assert "undid changes" in row["notes"] and "transformer" in row["notes"], row["notes"]
    assert "get_ipython" in row["review"]
    row = _row(batch, "patcher", CH4)
    assert float(row["score"]) <= float(row["max_score"]) - 3, row       # the distribution test still fails
    assert "undid changes" in row["notes"] and "allclose" in row["notes"], row["notes"]


@pytest.mark.slow
def test_hangs_cost_only_their_own_exercise_and_are_reported_as_timeouts(batch):
    row = _row(batch, "swallower")        # ignores interrupts: its kernel is replaced
    hang = next(e.points for e in course_chapter(CH3).exercises if e.grade_id == "ex_acceptance_rate")
    assert row["status"].startswith("graded; a cell ran past the time limit"), row
    assert float(row["score"]) == float(row["max_score"]) - hang > 0, row      # only the hanging exercise is lost
    assert "TimeoutError" in row["notes"] and "new kernel" in row["notes"], row["notes"]
    row = _row(batch, "looper")           # later tests of the same exercise fail at once
    assert float(row["score"]) == float(row["max_score"]) - 6, row
    assert "TimeoutError" in row["notes"] and "without waiting" in row["notes"], row["notes"]
    assert "KeyboardInterrupt" not in row["notes"]


@pytest.mark.slow
def test_honest_slips_are_not_punished_and_output_is_capped(batch):
    row = _row(batch, "slips")            # stderr print and warning, 8 MB of output, a cell from chapter 04
    assert float(row["score"]) == float(row["max_score"]), row
    assert "ex_speculative_verify" in row["notes"] and "ordinary cell" in row["notes"], row["notes"]
    feedback = batch["out"] / "feedback" / "slips" / CH3 / f"{CH3}.html"
    honest = batch["out"] / "feedback" / "honest" / CH3 / f"{CH3}.html"       # the same page, bundled MathJax
    assert feedback.stat().st_size - honest.stat().st_size < 1_000_000, (feedback.stat().st_size,
                                                                         honest.stat().st_size)


@pytest.mark.slow
def test_a_backup_copy_beside_the_notebook_is_noted_and_the_top_level_one_graded(batch):
    row = _row(batch, "backup")
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]), row
    assert f"backup/backup/{CH3}.ipynb" in row["notes"] and "not graded" in row["notes"], row["notes"]


def test_two_copies_at_the_same_level_are_an_error_naming_both(tmp_path):
    from autograder.grading.grade import find_submissions
    for folder in ("a", "b"):
        (tmp_path / "ana" / folder).mkdir(parents=True)
        notebooks.write(student_nb(CH3), tmp_path / "ana" / folder / f"{CH3}.ipynb")
    (sub,) = find_submissions(tmp_path)
    assert sub.problem.startswith("error: ambiguous") and "ana/a/" in sub.problem and "ana/b/" in sub.problem
    assert "keep exactly one" in sub.problem and is_sentence(sub.problem)


@pytest.mark.slow
def test_a_full_scratch_keeps_the_points_and_the_machine_s_memory_stays_bounded(batch):
    row = _row(batch, "filler")
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]), row
    text = _plain_html(batch["out"] / "feedback" / "filler" / CH3 / f"{CH3}.html")
    written = int(re.search(r"scratch: wrote (\d+) MiB in /tmp, then No space left on device", text).group(1))
    assert written <= SCRATCH_GIB * 1024, written
    memory = batch["memory"]
    print(f"peak rise while grading: tmpfs {memory.peak_shmem / 2**20:.0f} MiB, used {memory.peak_used / 2**20:.0f} MiB "
          f"(the filler tried {FILL_GIB} GiB; scratch {SCRATCH_GIB} GiB per kernel, 2 kernels at once)")
    assert memory.peak_shmem < 1 * 2**30, memory.peak_shmem        # unbounded, it would be >= 3 GiB


@pytest.mark.slow
@pytest.mark.skipif("pids" not in cgroups_available(), reason="no cgroup can be created here, so the process "
                    "limit is not enforced (the grade command's header says so)")
def test_processes_past_the_limit_fail_inside_the_kernel_and_the_points_stay(batch):
    row = _row(batch, "spawner")
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]), row
    text = _plain_html(batch["out"] / "feedback" / "spawner" / CH3 / f"{CH3}.html")
    started = int(re.search(r"processes: started (\d+), then Resource temporarily unavailable", text).group(1))
    assert started < MAX_PROCESSES, started


@pytest.mark.slow
def test_a_notebook_from_another_chapter_is_named_in_the_status(batch):
    row = _row(batch, "mixup", CH4)
    assert row["status"].startswith("error: this notebook holds chapter 03's exercises, not chapter 04's"), row
    assert float(row["score"]) == 0


@pytest.mark.slow
def test_every_status_is_a_sentence(batch):
    statuses = {key: row["status"] for key, row in batch["rows"].items()}
    assert len(statuses) >= 12
    assert all(is_sentence(s) for s in statuses.values()), statuses
    assert not any(re.search(r"\b\w+Error\b|Traceback|KeyError", s) for s in statuses.values()), statuses


@pytest.mark.slow
def test_no_feedback_page_shows_hidden_test_code(batch):
    hidden = _hidden_text()
    assert len(hidden) > 20
    pages = sorted((batch["out"] / "feedback").rglob("*.html"))
    assert len(pages) >= 8
    for page in pages:
        text = _plain_html(page)
        leaked = [line for line in hidden if line in text]
        assert not leaked, f"{page}: {leaked[:3]}"
        assert "HIDDEN TESTS" not in text, f"{page}: a hidden-tests marker"
        assert "cdnjs" not in page.read_text(encoding="utf-8"), f"{page}: loads MathJax from a CDN"


@pytest.mark.slow
def test_a_score_outside_the_range_is_an_error(batch):
    from autograder.grading.coursedir import CourseDir
    from autograder.grading.grade import Submission, _collect

    course = CourseDir(batch["out"])
    with course.gradebook() as gb:
        grade = gb.find_submission(CH3, "honest").notebooks[0].grades[0]
        grade.manual_score = 999
        gb.db.commit()
    (result,) = _collect(course, [Submission("honest", CH3, Path("x"))], {}, {})
    assert result.status.startswith("error: score outside") and result.score == 0, result


def test_colliding_student_ids_are_an_error(tmp_path):
    from autograder.errors import CourseError
    from autograder.grading.grade import find_submissions
    for name in ("ana maria", "ana_maria"):
        (tmp_path / name).mkdir()
        notebooks.write(student_nb(CH3), tmp_path / name / f"{CH3}.ipynb")
    with pytest.raises(CourseError, match="collide"):
        find_submissions(tmp_path)


@pytest.mark.slow
def test_self_check_of_a_hang_shows_no_hidden_code(tmp_path):
    from autograder.learner.check import format_report, run_check
    path = tmp_path / f"{CH3}.ipynb"
    write_submission(replace_solution(learner_submission(CH3), "ex_acceptance_rate", SWALLOWER), path)
    outcomes, elapsed = run_check(path, timeout=8)
    report = format_report(outcomes, elapsed, path.name)
    assert "TimeoutError" in report and "KeyboardInterrupt" not in report, report
    # Every exercise but the hanging one keeps its points (the course map: chapter 03's other exercises).
    others = sum(e.points for e in course_chapter(CH3).exercises if e.grade_id != "ex_acceptance_rate" and "optional" not in e.kinds)
    assert others > 0 and sum(o.points for o in outcomes) == others, report
    leaked = [line for line in _hidden_text() if line in report]
    assert not leaked, leaked[:3]
