"""`python -m autograder drill` and `python -m autograder progress`, end to end.

A right and a wrong answer file go through the drill's real tests (read from the chapter
13 notebook, run in a separate process); the results, a numeric drill and a self-check
are written to a progress log in a scratch folder and read back by `progress`.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import progress
from autograder.__main__ import main
from autograder.learner import check
from autograder.paths import CHAPTERS_DIR, REPO_ROOT
from autograder.learner.drill import load_drills

RIGHT = '''def trim_block_table(table, free, length, new_length, block_size):
    if not 0 <= new_length <= length <= len(table) * block_size:
        raise ValueError("need 0 <= new_length <= length <= capacity")
    keep = -(-new_length // block_size)
    return list(table[:keep]), list(free) + list(reversed(table[keep:]))
'''
WRONG = '''def trim_block_table(table, free, length, new_length, block_size):
    keep = new_length // block_size          # drops a partly used block
    return list(table[:keep]), list(free) + list(reversed(table[keep:]))
'''
DELEGATING = '''import specdec.paged_cache as pc

def trim_block_table(table, free, length, new_length, block_size):
    cache = pc.PagedKVCache(num_blocks=max(table + free) + 1, block_size=block_size, head_dim=1)
    cache.free = list(free)
    cache.tables["s"], cache.lengths["s"] = list(table), length
    pc.trim(cache, "s", new_length)
    return cache.tables["s"], cache.free
'''


def _run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_drills_are_read_from_the_notebook():
    drills = load_drills()
    assert {"residual_sample", "speculative_verify", "greedy_speculative_generate", "tree_attention_mask",
            "greedy_tree_walk", "trim_block_table", "survival_from_acceptance_matrix"} <= set(drills)
    for d in drills.values():
        assert d.tests and d.minutes and d.topic and d.chapter.isdigit(), d.name
        assert d.stub.startswith(f"def {d.name}(") and "NotImplementedError" in d.stub
        assert any("BEGIN HIDDEN TESTS" in src for _, _, src in d.tests), f"{d.name}: hidden tests missing"


def test_list_and_show(tmp_path, capsys):
    code, out = _run(capsys, "drill", "--list", "--folder", str(tmp_path))
    assert code == 0 and "trim_block_table" in out and "round" in out
    code, out = _run(capsys, "drill", "trim_block_table", "--folder", str(tmp_path))
    assert code == 0 and "def trim_block_table(table, free, length, new_length, block_size):" in out
    assert "BEGIN HIDDEN" not in out and "Clock started" in out
    events = progress.read_log(tmp_path / progress.LOG_NAME)
    assert [(e["type"], e["drill"]) for e in events] == [("start", "trim_block_table")]


def test_right_and_wrong_answer_files_end_to_end(tmp_path, capsys):
    folder = tmp_path / "work"
    folder.mkdir()
    (tmp_path / "right.py").write_text(RIGHT)
    (tmp_path / "wrong.py").write_text(WRONG)
    (tmp_path / "delegating.py").write_text(DELEGATING)
    (tmp_path / "empty.py").write_text("x = 1\n")
    _run(capsys, "drill", "trim_block_table", "--folder", str(folder))

    code, out = _run(capsys, "drill", "trim_block_table", "--answer", str(tmp_path / "right.py"), "--folder", str(folder))
    assert code == 0, out
    assert "[PASS] test_drill_trim (3/3)" in out and "Result: 3 / 3 - passed" in out and "suggested 8 min" in out
    assert "not timed" not in out                      # the clock started by the first command

    code, out = _run(capsys, "drill", "trim_block_table", "--answer", str(tmp_path / "wrong.py"), "--folder", str(folder))
    assert code == 1 and "[FAIL] test_drill_trim (0/3)" in out and "expected ([7, 3], [0, 1, 5])" in out
    assert "not timed" not in out and "Attempt 2: a retry" in out      # still timed from the start, marked
    assert "_rng" not in out and "PagedKVCache(num_blocks" not in out     # hidden test code is never shown

    code, out = _run(capsys, "drill", "trim_block_table", "--answer", str(tmp_path / "delegating.py"), "--folder", str(folder))
    assert code == 1 and "course library" in out

    code, out = _run(capsys, "drill", "trim_block_table", "--answer", str(tmp_path / "empty.py"), "--folder", str(folder))
    assert code == 1 and "does not define trim_block_table" in out

    events = progress.read_log(folder / progress.LOG_NAME)
    results = [(e["drill"], e["correct"]) for e in events if e["type"] == "drill"]
    assert results == [("trim_block_table", True)] + [("trim_block_table", False)] * 3
    answers = [e for e in events if e["type"] == "drill"]
    assert all(e["seconds"] is not None and e["seconds"] >= 0 for e in answers)
    assert [(e["attempt"], e["retry"]) for e in answers] == [(1, False), (2, True), (3, True), (4, True)]
    assert answers[0]["minutes"] == 8 and answers[0]["within_time"] is True
    # The summary scores the first attempt only: right, with the three retries counted apart.
    (row,) = progress.topic_summary(events)
    assert (row["attempts"], row["correct"], row["retries"], row["over_time"]) == (1, 1, 3, 0)
    assert sorted(p.name for p in folder.iterdir()) == [progress.LOG_NAME]     # nothing else written there


def test_sampling_drill_through_the_cli(tmp_path, capsys):
    answer = tmp_path / "residual.py"
    answer.write_text("import numpy as np\n\ndef residual_sample(p, q, rng):\n"
                      "    r = np.maximum(np.asarray(p, float) - np.asarray(q, float), 0)\n"
                      "    if r.sum() <= 1e-12:\n        raise ValueError('p == q')\n"
                      "    return int(rng.choice(len(r), p=r / r.sum()))\n")
    code, out = _run(capsys, "drill", "residual_sample", "--answer", str(answer), "--folder", str(tmp_path))
    assert code == 0 and out.count("[PASS]") == 2, out
    answer.write_text("import numpy as np\n\ndef residual_sample(p, q, rng):\n"
                      "    return int(rng.choice(len(p), p=np.asarray(p, float)))\n")
    code, out = _run(capsys, "drill", "residual_sample", "--answer", str(answer), "--folder", str(tmp_path))
    assert code == 1 and out.count("[FAIL]") == 2


def test_an_endless_answer_is_stopped(tmp_path, capsys):
    answer = tmp_path / "loop.py"
    answer.write_text("def trim_block_table(table, free, length, new_length, block_size):\n    while True:\n        pass\n")
    code, out = _run(capsys, "drill", "trim_block_table", "--answer", str(answer), "--folder", str(tmp_path),
                     "--timeout", "5")
    assert code == 1 and "did not finish within 5 s" in out


def test_numeric_drill_through_the_cli(tmp_path, capsys):
    from specdec.drills import make_question

    code, out = _run(capsys, "drill", "round", "--seed", "7", "--folder", str(tmp_path))
    q = make_question(7, "round")
    assert code == 0 and q.text in out and "--seed 7 --values" in out
    values = [f"{p.answer:.3f}" for p in q.parts]
    code, out = _run(capsys, "drill", "round", "--seed", "7", "--values", *values, "--folder", str(tmp_path))
    assert code == 0 and "Right." in out and "Worked answer" in out
    code, out = _run(capsys, "drill", "round", "--seed", "7", "--values", "1", "1", "1", "--folder", str(tmp_path))
    assert code == 1 and "Not yet." in out and "wrong (expected" in out
    with pytest.raises(SystemExit):
        main(["drill", "round", "--values", "1", "--folder", str(tmp_path)])
    events = [e for e in progress.read_log(tmp_path / progress.LOG_NAME) if e["type"] == "drill"]
    assert [(e["drill"], e["correct"], e["seed"]) for e in events] == [("numeric:round", True, 7), ("numeric:round", False, 7)]
    assert [e["retry"] for e in events] == [False, True]       # the second answer saw the worked answer


def test_a_pass_after_a_failure_is_timed_and_marked_a_retry(tmp_path, capsys):
    from specdec.drills import make_question

    _run(capsys, "drill", "round", "--seed", "3", "--folder", str(tmp_path))
    q = make_question(3, "round")
    code, out = _run(capsys, "drill", "round", "--seed", "3", "--values", "1", "1", "1", "--folder", str(tmp_path))
    assert code == 1
    right = [f"{p.answer:.3f}" for p in q.parts]
    code, out = _run(capsys, "drill", "round", "--seed", "3", "--values", *right, "--folder", str(tmp_path))
    assert code == 0 and "not timed" not in out and "a retry" in out
    events = progress.read_log(tmp_path / progress.LOG_NAME)
    answers = [e for e in events if e["type"] == "drill"]
    assert [(e["correct"], e["attempt"], e["retry"]) for e in answers] == [(False, 1, False), (True, 2, True)]
    assert all(e["seconds"] is not None for e in answers)
    (row,) = progress.topic_summary(events)
    assert (row["attempts"], row["correct"], row["accuracy"], row["retries"]) == (1, 0, 0.0, 1)
    # A new seed is a new question: its first answer is a first attempt again.
    _run(capsys, "drill", "round", "--seed", "4", "--values", "1", "1", "1", "--folder", str(tmp_path))
    last = [e for e in progress.read_log(tmp_path / progress.LOG_NAME) if e["type"] == "drill"][-1]
    assert (last["seed"], last["attempt"], last["retry"]) == (4, 1, False)


def test_the_test_session_keeps_the_learners_folder_untouched(tmp_path):
    """A drill run from the course's root writes to the log of learner/ by default; inside the test
    session $COURSE_PROGRESS_LOG sends it elsewhere (and conftest.py compares learner/ before and after)."""
    from autograder.paths import LEARNER_DIR

    scratch = os.environ[progress.ENV_VAR]
    assert LEARNER_DIR not in Path(scratch).parents
    before = sorted(LEARNER_DIR.rglob("*")) if LEARNER_DIR.exists() else None
    done = subprocess.run([sys.executable, "-m", "autograder", "drill", "round", "--seed", "5"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (sorted(LEARNER_DIR.rglob("*")) if LEARNER_DIR.exists() else None) == before
    assert any(e.get("seed") == 5 for e in progress.read_log(Path(scratch)))


def test_drill_without_a_name_picks_one_not_done(tmp_path, capsys):
    code, out = _run(capsys, "drill", "--folder", str(tmp_path))
    assert code == 0
    started = progress.read_log(tmp_path / progress.LOG_NAME)[0]["drill"]
    assert started in load_drills() or started.startswith("numeric:")


def test_progress_view_reads_the_log_back(tmp_path, capsys):
    log = tmp_path / progress.LOG_NAME
    outcomes = [check.TestOutcome("test_a", "ex_expected_tokens", 2, 2, ""), check.TestOutcome("test_b", "ex_speedup", 1, 3, "wrong"),
                check.TestOutcome("test_c", "ex_speedup", 0, 2, "wrong")]
    progress.record_check("05_speedup", outcomes, log)
    progress.start_drill("trim_block_table", "cache rollback", "10", path=log, now=0).finish(False, now=60)
    progress.start_drill("numeric:round", "speedup formula", "05", path=log, now=0).finish(True, now=30)
    code, out = _run(capsys, "progress", "--folder", str(tmp_path))
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("05_speedup"))
    assert "1/2 exercises passed" in line and line.rstrip().endswith("1 / 1")
    assert "expected_tokens" in out and "speedup" in out and "1/5" in out
    assert next(ln for ln in out.splitlines() if ln.startswith("10_")).rstrip().endswith("0 / 1")
    assert "not checked yet" in next(ln for ln in out.splitlines() if ln.startswith("01_"))
    assert "Weakest: cache rollback (0% right): reread 10_" in out


def test_progress_names_each_exercise_as_the_learner_types_it(tmp_path, capsys):
    """`progress` lists a checked chapter's exercises by the functions a learner writes, with each
    exercise's number beside it and in the chapter's order, as the start page does (course map), never
    by nbgrader's grade ids ('reserve_trim'); an optional exercise is marked and not counted."""
    from autograder.course_map import chapter

    ch = chapter("10_cache_rollback")
    outcomes = [check.TestOutcome(f"test_{i}", e.grade_id, e.points if i == 0 else 0.0, e.points, "" if i == 0 else "wrong",
                                  e.optional) for i, e in enumerate(ch.exercises)]
    progress.record_check(ch.name, list(reversed(outcomes)), tmp_path / progress.LOG_NAME)   # the log's order is not the chapter's
    code, out = _run(capsys, "progress", "--folder", str(tmp_path))
    assert code == 0
    lines = out.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith(ch.name))
    listed = [ln.strip() for ln in lines[at + 1:at + 1 + len(ch.exercises)]]
    for exercise, line in zip(ch.exercises, listed):
        assert line.startswith(exercise.label(code="", mark_optional=False)), (exercise, listed)
    assert listed[0].startswith("10.1 reserve + trim") and listed[0].endswith("passed"), listed
    assert any(ln.startswith("10.4 ") and "(optional, not counted)" in ln for ln in listed), listed
    assert f"1/{sum(not e.optional for e in ch.exercises)} exercises passed" in lines[at], lines[at]
    ids = [e.grade_id.removeprefix("ex_") for e in ch.exercises if len(e.names) > 1]     # 'reserve_trim'
    assert ids and not any(i in out for i in ids), out


def test_check_and_progress_agree_on_the_log_wherever_the_notebook_is(tmp_path, monkeypatch, capsys):
    """`check` of a notebook kept outside the learner's folder records in the log that `progress`
    (run from anywhere, without --folder) reads, and says where it wrote."""
    from autograder.paths import LEARNER_DIR

    monkeypatch.delenv(progress.ENV_VAR, raising=False)
    lab = tmp_path / "lab"                                   # stands for learner/ (never touched by tests)
    monkeypatch.setenv(progress.log.LAB_DIR_VAR, str(lab))
    elsewhere = tmp_path / "my_notes"
    elsewhere.mkdir()
    nb = elsewhere / "05_speedup.ipynb"
    shutil.copyfile(CHAPTERS_DIR / "05_speedup.ipynb", nb)
    said = check._record(nb, [check.TestOutcome("t1", "ex_speedup", 2, 2, "")])
    assert said == f"Recorded in your progress log: {lab / progress.LOG_NAME} (`python -m autograder progress` shows it)."
    assert not (elsewhere / progress.LOG_NAME).exists()
    (event,) = progress.read_log(lab / progress.LOG_NAME)
    assert event["type"] == "check" and event["chapter"] == "05_speedup" and event["exercises"] == {"ex_speedup": [2, 2]}
    for cwd in (elsewhere, REPO_ROOT, tmp_path):
        monkeypatch.chdir(cwd)
        code, out = _run(capsys, "progress")
        assert code == 0 and f"Progress log: {lab / progress.LOG_NAME}" in out
        assert "1/1 exercises passed" in next(ln for ln in out.splitlines() if ln.startswith("05_speedup"))
    monkeypatch.delenv(progress.log.LAB_DIR_VAR)
    assert progress.log_path() == LEARNER_DIR / progress.LOG_NAME     # without the variable: the course's learner/
    monkeypatch.setenv(progress.ENV_VAR, "off")
    assert "Not recorded: this run keeps no progress log" in check._record(nb, [])


def test_cli_answers_after_a_restart_or_the_hints_are_retries(tmp_path, capsys):
    """The command line's path: `drill NAME` again restarts the clock, never the attempt count; a
    numeric seed after its worked answer likewise; an answer after `--hints` is a retry."""
    (tmp_path / "right.py").write_text(RIGHT)
    (tmp_path / "wrong.py").write_text(WRONG)
    folder = ["--folder", str(tmp_path)]
    _run(capsys, "drill", "trim_block_table", *folder)
    _run(capsys, "drill", "trim_block_table", "--answer", str(tmp_path / "wrong.py"), *folder)
    _run(capsys, "drill", "trim_block_table", *folder)                          # the clock restarted
    code, out = _run(capsys, "drill", "trim_block_table", "--answer", str(tmp_path / "right.py"), *folder)
    assert code == 0 and "Attempt 2: a retry" in out
    from specdec.drills import make_question
    q = make_question(11, "survival")
    _run(capsys, "drill", "survival", "--seed", "11", *folder)
    _run(capsys, "drill", "survival", "--seed", "11", "--values", "0", "0", *folder)
    _run(capsys, "drill", "survival", "--seed", "11", *folder)                  # the same numbers again
    code, out = _run(capsys, "drill", "survival", "--seed", "11", "--values", *[str(p.answer) for p in q.parts], *folder)
    assert code == 0 and "Attempt 2: a retry" in out
    with pytest.raises(SystemExit):
        main(["drill", "survival", "--hints", *folder])          # numeric drills have no hints: a clear error
    code, out = _run(capsys, "drill", "residual_sample", "--hints", *folder)
    assert code == 0 and "Hint 1:" in out and "Hint 2:" in out and "<details>" not in out and "$" not in out
    answer = tmp_path / "residual.py"
    answer.write_text("import numpy as np\n\ndef residual_sample(p, q, rng):\n"
                      "    r = np.maximum(np.asarray(p, float) - np.asarray(q, float), 0)\n"
                      "    if r.sum() <= 1e-12:\n        raise ValueError('p == q')\n"
                      "    return int(rng.choice(len(r), p=r / r.sum()))\n")
    _run(capsys, "drill", "residual_sample", *folder)
    code, out = _run(capsys, "drill", "residual_sample", "--answer", str(answer), *folder)
    assert code == 0 and "Attempt 1: a retry (you have seen its hints)" in out
    answers = [e for e in progress.read_log(tmp_path / progress.LOG_NAME) if e["type"] == "drill"]
    assert [(e["drill"], e["correct"], e["attempt"], e["retry"]) for e in answers] == [
        ("trim_block_table", False, 1, False), ("trim_block_table", True, 2, True),
        ("numeric:survival", False, 1, False), ("numeric:survival", True, 2, True),
        ("residual_sample", True, 1, True)]
    rows = {r["topic"]: r for r in progress.topic_summary(progress.read_log(tmp_path / progress.LOG_NAME))}
    assert set(rows) == {"cache rollback", "tokens per round"}                 # the hinted answer scores nothing
    assert all(r["correct"] == 0 and r["retries"] == 1 for r in rows.values())


def test_the_command_line_entry_point(tmp_path):
    done = subprocess.run([sys.executable, "-m", "autograder", "progress", "--folder", str(tmp_path)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "No drills recorded yet" in done.stdout, done.stderr
    assert not (tmp_path / progress.LOG_NAME).exists()          # reading never creates the log


def test_drill_statements_print_math_as_readable_text(tmp_path, capsys):
    import re

    for name, drill in load_drills().items():
        code, out = _run(capsys, "drill", name, "--folder", str(tmp_path))
        assert code == 0
        statement = out.split("Start from:")[0]
        raw = re.findall(r"[^ ]*\\[A-Za-z]+[^ ]*", statement)
        assert not raw, f"{name}: raw LaTeX {raw[:5]}"
        assert "$" not in statement, name
