"""Numeric interview drills (specdec.drills) and the progress log (autograder.progress).

The drills' answers are checked against the formulas written out here from their
definitions, for many seeds, and the grading against right, rough and wrong numbers.
"""
import json
import math

import numpy as np
import pytest

from autograder import progress
from specdec import drills
from specdec import speedup_model as sm

SEEDS = range(150)


def _n_bar(alpha, gamma):
    return sum(alpha ** i for i in range(gamma + 1))


@pytest.mark.parametrize("seed", SEEDS)
def test_round_answers_follow_the_formulas(seed):
    q = drills.make_question(seed, "round")
    a, g, c = q.params["alpha"], q.params["gamma"], q.params["c"]
    n_bar, s, best = q.parts
    assert math.isclose(n_bar.answer, _n_bar(a, g), rel_tol=1e-12)
    assert math.isclose(s.answer, _n_bar(a, g) / (g * c + 1), rel_tol=1e-12)
    speedups = {k: _n_bar(a, k) / (k * c + 1) for k in range(1, drills.BEST_GAMMA_MAX + 1)}
    top = max(speedups.values())
    assert best.answer == max(speedups, key=speedups.get) == sm.optimal_gamma(a, c, drills.BEST_GAMMA_MAX)[0]
    assert best.accepted == (best.answer,)                       # an integer answer is checked exactly
    assert not best.ok(best.answer + 1) and not best.ok(best.answer - 1) and best.ok(best.answer)


@pytest.mark.parametrize("seed", SEEDS)
def test_break_even_alpha_gives_speedup_one(seed):
    q = drills.make_question(seed, "break_even")
    g, c = q.params["gamma"], q.params["c"]
    alpha = q.parts[0].answer
    assert math.isclose(_n_bar(alpha, g), g * c + 1, rel_tol=1e-9)
    if g == 1:
        assert math.isclose(alpha, c, abs_tol=1e-9)       # one draft wins iff alpha > c


@pytest.mark.parametrize("seed", SEEDS)
def test_survival_answers(seed):
    q = drills.make_question(seed, "survival")
    alphas = q.params["alphas"]
    survivals = np.cumprod(alphas)
    assert math.isclose(q.parts[0].answer, survivals[-1], rel_tol=1e-12)
    assert math.isclose(q.parts[1].answer, 1 + survivals.sum(), rel_tol=1e-12)
    assert all(x >= y for x, y in zip(alphas, alphas[1:])), "confidences listed from the likeliest"


@pytest.mark.parametrize("seed", SEEDS)
def test_acceptance_answers(seed):
    q = drills.make_question(seed, "acceptance")
    p, qq = np.array(q.params["p"]), np.array(q.params["q"])
    assert math.isclose(p.sum(), 1) and math.isclose(qq.sum(), 1) and p.min() > 0 and qq.min() > 0
    alpha = np.minimum(p, qq).sum()
    assert math.isclose(q.parts[0].answer, alpha, rel_tol=1e-12)
    assert math.isclose(alpha, 1 - 0.5 * np.abs(p - qq).sum(), rel_tol=1e-9)     # alpha = 1 - TV
    over = int(q.parts[1].label.split()[-1])
    assert qq[over] > p[over] and math.isclose(q.parts[1].answer, p[over] / qq[over], rel_tol=1e-12)
    under = int(q.parts[2].label.split()[-1])
    assert math.isclose(q.parts[2].answer, max(p[under] - qq[under], 0) / (1 - alpha), rel_tol=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_cost_answers(seed):
    q = drills.make_question(seed, "cost")
    n, beta, pi = q.params["n_params_billion"] * 1e9, q.params["bandwidth_TBps"] * 1e12, q.params["flops_TFLOPs"] * 1e12
    t_w, t_f, k = (part.answer for part in q.parts)
    assert math.isclose(t_w, 2 * n / beta * 1e3, rel_tol=1e-12)
    assert math.isclose(t_f, 2 * n / pi * 1e6, rel_tol=1e-12)
    assert abs(k - math.floor(pi / beta)) <= 1                   # the ridge point, up to rounding at the edge
    assert (k * t_f / 1e3 <= t_w * (1 + 1e-12)) and ((k + 1) * t_f / 1e3 > t_w * (1 - 1e-12))
    assert q.parts[2].accepted == (k,) and not q.parts[2].ok(k + 1) and not q.parts[2].ok(k - 1)


def test_best_gamma_eight_is_wrong_where_the_answer_is_seven():
    """The reported case: a near-tie neighbour of the best gamma used to count as right."""
    for seed in range(400):
        q = drills.make_question(seed, "round")
        best = q.parts[2]
        if best.answer == 7:
            assert not drills.grade(q, [q.parts[0].answer, q.parts[1].answer, 8]).correct
            assert drills.grade(q, [q.parts[0].answer, q.parts[1].answer, 7]).correct
            return
    pytest.fail("no round question with best gamma 7 in 400 seeds")


def _recursive(p, q, k):
    r, miss = np.array(p, float), 1.0
    for _ in range(k):
        a = np.minimum(r, q).sum()
        miss *= 1 - a
        if a >= 1 - 1e-12:
            break
        r = np.maximum(r - q, 0)
        r = r / r.sum()
    return 1 - miss


@pytest.mark.parametrize("seed", SEEDS)
def test_tree_answers(seed):
    q = drills.make_question(seed, "tree")
    p, qq, k = np.array(q.params["p"]), np.array(q.params["q"]), q.params["k"]
    assert math.isclose(q.parts[0].answer, np.minimum(p, qq).sum(), rel_tol=1e-12)
    assert math.isclose(q.parts[1].answer, _recursive(p, qq, k), rel_tol=1e-9)
    assert q.parts[1].answer >= q.parts[0].answer


def test_tree_answer_matches_a_simulation():
    q = drills.make_question(5, "tree")
    p, qq, k = np.array(q.params["p"]), np.array(q.params["q"]), q.params["k"]
    rng = np.random.default_rng(0)
    kept, n = 0, 20_000
    for _ in range(n):
        r = p.copy()
        for _ in range(k):
            x = rng.choice(3, p=qq)
            if rng.random() < min(1, r[x] / qq[x]):
                kept += 1
                break
            r = np.maximum(r - qq, 0)
            r /= r.sum()
    assert abs(kept / n - q.parts[1].answer) < 5 * math.sqrt(0.25 / n)


@pytest.mark.parametrize("kind", list(drills.KINDS))
def test_grading_accepts_right_and_rough_answers_and_refuses_wrong_ones(kind):
    for seed in range(40):
        q = drills.make_question(seed, kind)
        right = [p.answer for p in q.parts]
        assert drills.grade(q, right).correct
        rough = [round(x, 3) if not p.accepted else x for p, x in zip(q.parts, right)]
        assert drills.grade(q, rough).correct, f"{kind} seed {seed}: three decimals must be within the tolerance"
        off = [x * 1.2 + 0.05 if not p.accepted else max(p.accepted) + 5 for p, x in zip(q.parts, right)]
        g = drills.grade(q, off)
        assert not g.correct and not any(r.ok for r in g.results)
        assert not drills.grade(q, right[:-1]).correct          # a missing part is wrong
        assert not drills.grade(q, ["x"] + right[1:]).correct
        assert not drills.grade(q, [float("nan")] + right[1:]).correct


def test_questions_are_reproducible_and_vary_with_the_seed():
    assert drills.make_question(11, "round") == drills.make_question(11, "round")
    params = {json.dumps(drills.make_question(s, "round").params, sort_keys=True) for s in range(50)}
    assert len(params) > 40
    kinds = {drills.make_question(s).kind for s in range(60)}
    assert kinds == set(drills.KINDS)
    assert [q.kind for q in drills.drill_set(3)] == list(drills.KINDS)


def test_bad_input_raises_value_error():
    for seed in (-1, 1.5, True):
        with pytest.raises(ValueError):
            drills.make_question(seed)
    with pytest.raises(ValueError, match="unknown drill kind"):
        drills.make_question(0, "nope")


def test_every_question_has_text_and_a_worked_answer_with_its_numbers():
    for kind in drills.KINDS:
        q = drills.make_question(8, kind)
        assert q.text and q.worked and q.chapter.isdigit()
        first = q.parts[0].answer
        assert f"{first:.3f}" in q.worked or f"{first:.2f}" in q.worked or f"{first:.4f}" in q.worked, (kind, q.worked)


# ---------------------------------------------------------------- the progress log
def test_clock_and_log_round_trip(tmp_path):
    log = tmp_path / "log.jsonl"
    clock = progress.start_drill("a", topic="trees", chapter="08", path=log, now=10.0)
    assert progress.open_clock(progress.read_log(log), "a")["time"] == 10.0
    event = clock.finish(False, now=70.5)
    assert event["seconds"] == 60.5 and event["correct"] is False
    assert progress.open_clock(progress.read_log(log), "a") is None
    progress.start_drill("b", topic="speedup formula", chapter="05", path=log, now=100.0).finish(True, now=110.0)
    with open(log, "a") as f:
        f.write("not json\n{\"no\": \"type\"}\n")
    events = progress.read_log(log)
    assert [e["type"] for e in events] == ["start", "drill", "start", "drill"]
    rows = progress.topic_summary(events)
    assert [r["topic"] for r in rows] == ["trees", "speedup formula"]
    assert rows[0]["accuracy"] == 0.0 and rows[1]["mean_seconds"] == 10.0
    text = progress.format_summary(events, ["05_speedup", "08_token_trees"])
    assert "reread 08_token_trees" in text and "speedup formula" in text


def test_finish_with_records_pass_fail_and_ignores_unattempted(tmp_path, capsys):
    log = tmp_path / "log.jsonl"

    def check(fn):
        assert fn(2) == 4, "double it"

    def stub(x):
        raise NotImplementedError

    assert progress.start_drill("d", "t", "02", path=log).finish_with(check, stub) is None
    assert progress.start_drill("d", "t", "02", path=log).finish_with(check, lambda x: x) is False
    assert progress.start_drill("d", "t", "02", path=log).finish_with(check, lambda x: 2 * x) is True
    results = [e["correct"] for e in progress.read_log(log) if e["type"] == "drill"]
    assert results == [False, True]
    said = capsys.readouterr().out
    # With a log (a learner's JupyterLab): the clock of an untouched drill keeps running for their answer.
    assert "d: not attempted yet; nothing recorded (the clock keeps running)." in said, said
    assert "In your own JupyterLab" not in said, said
    assert progress.describe_for_reader(log) == str(log)


def test_log_location_is_one_rule(tmp_path, monkeypatch):
    """$COURSE_PROGRESS_LOG, else the folder given, else the course's learner folder (learner/, or the
    folder ./course lab serves): the same file wherever the notebook or the terminal is."""
    from autograder.paths import LEARNER_DIR

    monkeypatch.delenv(progress.ENV_VAR, raising=False)
    monkeypatch.delenv(progress.log.LAB_DIR_VAR, raising=False)
    monkeypatch.chdir(tmp_path)
    assert progress.log_path() == LEARNER_DIR / progress.LOG_NAME       # not the current folder
    monkeypatch.setenv(progress.log.LAB_DIR_VAR, str(tmp_path / "lab"))
    assert progress.log_path() == tmp_path / "lab" / progress.LOG_NAME
    assert progress.log_path(tmp_path / "x") == tmp_path / "x" / progress.LOG_NAME
    monkeypatch.setenv(progress.ENV_VAR, str(tmp_path / "elsewhere.jsonl"))
    assert progress.log_path() == tmp_path / "elsewhere.jsonl"
    assert progress.log_path(tmp_path) == tmp_path / progress.LOG_NAME   # an explicit folder wins
    assert progress.read_log(tmp_path / "missing.jsonl") == []
    with pytest.raises(ValueError):
        progress.append({"no": "type"}, tmp_path / "x.jsonl")


def test_off_means_no_log_read_or_written(tmp_path, monkeypatch, capsys):
    """A book build or a test run sets COURSE_PROGRESS_LOG=off: nothing is read (no one's history shows)
    and nothing is written."""
    monkeypatch.setenv(progress.ENV_VAR, "off")
    monkeypatch.chdir(tmp_path)
    assert progress.log_path() is None and progress.read_log() == []
    clock = progress.start_drill("d", "t", "02")
    assert clock.finish_with(lambda: None) is True
    assert clock.finish(False)["attempt"] == 2            # counted in memory when there is no log
    assert "not recorded (no progress log in this run)" in capsys.readouterr().out

    def stub():
        raise NotImplementedError

    # The course's web pages show chapter 13 run this way: its reader is told what the page does not do
    # and what their own JupyterLab keeps, not how the page was built or that a clock is running.
    assert clock.finish_with(stub) is None
    said = capsys.readouterr().out
    assert said.startswith("d: not attempted in this copy") and "nothing here is recorded" in said, said
    assert "In your own JupyterLab" in said and "clock keeps running" not in said, said
    for_reader = progress.describe_for_reader(progress.log_path())
    assert for_reader.startswith("none: ") and "nothing on it is recorded" in for_reader, for_reader
    assert "In your own JupyterLab" in for_reader and progress.LOG_NAME in for_reader, for_reader
    assert progress.ENV_VAR not in for_reader and "book build" not in for_reader, for_reader
    assert list(tmp_path.iterdir()) == []
    assert "COURSE_PROGRESS_LOG=off" in progress.describe(progress.log_path())   # a command's printout says why


def _answer(drill, topic, chapter, correct, seconds=30.0, **extra):
    return {"type": "drill", "drill": drill, "topic": topic, "chapter": chapter, "correct": correct,
            "seconds": seconds, "attempt": 1, "retry": False, **extra}


def test_advice_fits_the_evidence_and_the_kind_of_drill():
    assert "No drills recorded" in progress.format_summary([])
    # One coding drill, right: too little evidence, and no "new seeds" (a coding drill has none).
    one = progress.format_summary([_answer("trim_block_table", "cache rollback", "10", True)], ["10_cache_rollback"])
    assert "too few" in one and "seeds" not in one and "Every first attempt was right" not in one
    # A wrong coding drill: reread, then write it again later (a retry), not "new seeds".
    wrong = progress.format_summary([_answer("trim_block_table", "cache rollback", "10", False)],
                                    ["10_cache_rollback"])
    assert "reread 10_cache_rollback, then write the function again" in wrong and "seeds" not in wrong
    # A wrong numeric drill: new seeds make sense there.
    numeric = progress.format_summary([_answer("numeric:round", "speedup formula", "05", False)], ["05_speedup"])
    assert "reread 05_speedup, then try the same kind of question with new seeds" in numeric
    # Right but slow: advice about speed, for that topic, by its kind.
    slow = [_answer("numeric:cost", "cost of a pass", "01", True, 400.0, minutes=5, within_time=False),
            _answer("numeric:cost", "cost of a pass", "01", True, 100.0, minutes=5, within_time=True),
            _answer("residual_sample", "acceptance rule", "03", True, 60.0, minutes=5, within_time=True)]
    text = progress.format_summary(slow, ["01_cost_model"])
    assert "over the suggested time in 1 of 2: cost of a pass; to get faster, try the same kind" in text
    assert "too few" not in text and "Every first attempt was right" not in text
    # Enough first attempts, all right and in time.
    good = [_answer("numeric:round", "speedup formula", "05", True, minutes=5, within_time=True, seed=s)
            for s in range(3)]
    assert "Every first attempt was right and within the suggested time (3 drills)" in progress.format_summary(good)
    assert "repeat its drills with new seeds" not in progress.format_summary(good)


# ---------------------------------------------------------------- chapter 13's coding drills and serving answers
def _chapter13_markdown() -> str:
    from tests.helpers import solution_nb
    nb = solution_nb("13_interview_drills")
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_chapter_13_tells_a_reader_of_the_book_what_its_page_records(tmp_path, monkeypatch, capsys):
    """The book shows chapter 13 run without a log: its cells that name the log then say that nothing on
    the page is recorded and what the reader's own JupyterLab keeps; with a log they name the file."""
    from tests.helpers import solution_nb
    cells = [c.source for c in solution_nb("13_interview_drills").cells
             if c.cell_type == "code" and "print(" in c.source and "log_path()" in c.source]
    assert len(cells) == 2, "the top cell and section 4's summary name the progress log"
    names = {name: getattr(progress, name) for name in progress.__all__}
    monkeypatch.setenv(progress.ENV_VAR, "off")
    for source in cells:
        exec(source, dict(names))
    said = capsys.readouterr().out
    assert said.count("nothing on it is recorded") == 2 and said.count("In your own JupyterLab") == 2, said
    assert progress.ENV_VAR not in said and "a book build" not in said, said
    log = tmp_path / progress.LOG_NAME
    monkeypatch.setenv(progress.ENV_VAR, str(log))
    for source in cells:
        exec(source, dict(names))
    said = capsys.readouterr().out
    assert f"progress log of this notebook: {log}" in said and f"0 drills recorded; progress log: {log}" in said, said
    assert "JupyterLab" not in said, said


def test_the_batched_verification_drill_is_listed_and_timed():
    from autograder.learner.drill import load_drills
    drills_13 = load_drills()
    d = drills_13["verify_batch"]
    assert d.minutes == 20 and d.chapter == "11" and d.topic == "batched verification"
    assert [t[0] for t in d.tests] == ["test_drill_batch_distribution", "test_drill_batch_generator",
                                       "test_drill_batch_contract"]
    assert all("### BEGIN HIDDEN TESTS" in src and "assert_own_work" in src for _, _, src in d.tests)
    assert d.stub.startswith("def verify_batch(p, q, drafts, generator):")


def test_every_drill_test_cell_refuses_delegation_and_hides_tests():
    from autograder.learner.drill import load_drills
    for name, d in load_drills().items():
        for gid, points, src in d.tests:
            assert points > 0, f"{name}/{gid} carries no points"
            assert src.lstrip().startswith("### BEGIN HIDDEN TESTS") and "assert_own_work(" in src.split(
                "### END HIDDEN TESTS")[0], f"{name}/{gid}: the delegation check must open the cell (hidden)"


def test_serving_answers_quote_the_numbers_the_library_computes():
    from specdec.hardware import GPUS
    from specdec.model_specs import MODELS
    from specdec.moe import experts_touched, verification_expert_ratio
    text = _chapter13_markdown()
    # 2.12: DeepSeek-V3, 256 routed experts, 8 per token
    assert f"reads about {experts_touched(256, 8, 4):.1f}" in text
    assert f"grow about {verification_expert_ratio(256, 8, 1, 3):.1f}×" in text
    assert f"only about {round((verification_expert_ratio(256, 8, 64, 3) - 1) * 100)} % of expert reads" in text
    # 2.17: Llama 3.1 8B drafting for Llama 3.1 70B
    t, d = MODELS["llama-3.1-70b"], MODELS["llama-3.1-8b"]
    assert f"adds {d.kv_bytes_per_token // 1024} KiB per token to the target's {t.kv_bytes_per_token // 1024} KiB" in text
    extra = d.kv_bytes_per_token / t.kv_bytes_per_token
    assert f"{extra:.0%} more cache per token".replace("%", " %") in text
    assert f"\\approx {1 / (1 + extra):.0%}".replace("%", "\\,\\%") in text
    assert f"draft's {d.weight_bytes / 1e9:.0f} GB of weights" in text
    budget, context = 8 * GPUS["H100"].memory * 0.9, 8192
    alone = int((budget - t.weight_bytes) // (t.kv_bytes_per_token * context))
    both = int((budget - t.weight_bytes - d.weight_bytes) // ((t.kv_bytes_per_token + d.kv_bytes_per_token) * context))
    assert f"{alone} requests fit without the draft and {both} with it" in text
    assert f"about 1/{t.n_layers} of the 70B target's" in text


def test_the_text_promises_hidden_tests_only_where_they_run():
    text = _chapter13_markdown()
    assert "the student bundle a class receives contains no hidden tests" in text
    assert "A class's student bundle contains no hidden tests: there the same commands run the visible tests only" in text
    for missing in ("solutions/", "tests/", "../shared", "reference text"):
        assert missing not in text, f"chapter 13 points at {missing!r}, which a learner does not have"


@pytest.mark.slow
def test_running_chapter_13_from_the_top_records_no_result(tmp_path, monkeypatch):
    """Demonstrations never log: Run All of the unsolved chapter 13 starts clocks (start events) but
    records no answer (the worked numeric example is graded with `grade`, not logged)."""
    from autograder.authoring.execute import execute
    from autograder.paths import CHAPTERS_DIR

    log = tmp_path / "log.jsonl"
    monkeypatch.setenv(progress.ENV_VAR, str(log))
    execute(CHAPTERS_DIR / "13_interview_drills.ipynb", allow_errors=True)
    events = progress.read_log(log)
    assert events and all(e["type"] == "start" for e in events), [e for e in events if e["type"] != "start"]
    assert all(e.get("minutes") for e in events if not e["drill"].startswith("numeric:"))


# ---------------------------------------------------------------- retries over the whole log
def test_a_restarted_clock_is_no_new_first_attempt(tmp_path):
    """The notebook cell's path: the clock cell run again (or Run All) after an answer, then the
    check cell: the second answer is a retry, timed from the restart (reproduces issue 27: fail at
    600 s, restart, pass at 5 s used to read attempt 1, within time)."""
    log = tmp_path / "log.jsonl"
    first = progress.start_drill("residual_sample", "acceptance rule", "03", path=log, now=0.0, minutes=5)
    event = first.finish(False, now=600.0)
    assert (event["attempt"], event["retry"], event["within_time"]) == (1, False, False)
    again = progress.start_drill("residual_sample", "acceptance rule", "03", path=log, now=1000.0, minutes=5)
    event = again.finish(True, now=1005.0)
    assert (event["attempt"], event["retry"], event["seconds"]) == (2, True, 5.0)
    (row,) = progress.topic_summary(progress.read_log(log))
    assert (row["attempts"], row["correct"], row["over_time"], row["retries"], row["mean_seconds"]) == (1, 0, 1, 1, 600.0)
    # Another drill, and the same drill in another log, are unaffected.
    other = progress.start_drill("trim_block_table", "cache rollback", "10", path=log, now=0.0).finish(True, now=9.0)
    assert (other["attempt"], other["retry"]) == (1, False)


def test_finish_with_after_a_restart_is_a_retry(tmp_path, capsys):
    log = tmp_path / "log.jsonl"

    def check(fn):
        assert fn(2) == 4, "double it"

    progress.start_drill("d", "t", "02", path=log).finish_with(check, lambda x: x)
    progress.start_drill("d", "t", "02", path=log).finish_with(check, lambda x: 2 * x)
    answers = [e for e in progress.read_log(log) if e["type"] == "drill"]
    assert [(e["correct"], e["attempt"], e["retry"]) for e in answers] == [(False, 1, False), (True, 2, True)]
    assert "attempt 2: a retry" in capsys.readouterr().out


def test_numeric_attempts_count_per_seed_and_after_the_worked_answer(tmp_path):
    """The notebook's `answer(...)` path: resume_drill, finish, and the worked answer shown."""
    log = tmp_path / "log.jsonl"
    clock = progress.resume_drill("numeric:round", "speedup formula", "05", path=log, seed=7)
    clock.finish(False, kind="round", seed=7)
    progress.record_seen("numeric:round", progress.WORKED, path=log, seed=7)
    progress.start_drill("numeric:round", "speedup formula", "05", path=log, seed=7)      # restarted
    again = progress.resume_drill("numeric:round", "speedup formula", "05", path=log, seed=7).finish(True, seed=7)
    assert (again["attempt"], again["retry"], again["seen"]) == (2, True, [progress.WORKED])
    fresh = progress.resume_drill("numeric:round", "speedup formula", "05", path=log, seed=8).finish(True, seed=8)
    assert (fresh["attempt"], fresh["retry"]) == (1, False)
    # The worked answer of a seed seen before any answer (nothing else logs it first, but the log says so).
    progress.record_seen("numeric:round", progress.WORKED, path=log, seed=9)
    seen_first = progress.resume_drill("numeric:round", "speedup formula", "05", path=log, seed=9).finish(True, seed=9)
    assert (seen_first["attempt"], seen_first["retry"]) == (1, True)
    rows = progress.topic_summary(progress.read_log(log))
    assert [(r["attempts"], r["correct"], r["retries"]) for r in rows] == [(2, 1, 2)]


def test_an_answer_after_the_hints_is_a_retry(tmp_path):
    log = tmp_path / "log.jsonl"
    progress.record_seen("trim_block_table", progress.HINTS, path=log)
    event = progress.start_drill("trim_block_table", "cache rollback", "10", path=log).finish(True)
    assert (event["attempt"], event["retry"], event["seen"]) == (1, True, [progress.HINTS])
    assert "after hints" in progress.attempt_note(event)
    assert progress.topic_summary(progress.read_log(log)) == []        # no first attempt to score


@pytest.mark.slow
def test_chapter_13_run_twice_logs_the_second_answers_as_retries(tmp_path, monkeypatch):
    """The notebook path end to end: Run All of the solved chapter, then Run All again (every clock
    restarted): every drill's second answer is a retry."""
    from autograder.authoring.execute import execute
    from autograder.paths import SOLUTIONS_DIR

    log = tmp_path / "log.jsonl"
    monkeypatch.setenv(progress.ENV_VAR, str(log))
    for _ in range(2):
        execute(SOLUTIONS_DIR / "13_interview_drills.ipynb", allow_errors=False)
    answers = [e for e in progress.read_log(log) if e["type"] == "drill"]
    names = sorted({e["drill"] for e in answers})
    assert len(names) == 11 and len(answers) == 22, [e["drill"] for e in answers]
    for name in names:
        mine = [(e["attempt"], e["retry"]) for e in answers if e["drill"] == name]
        assert mine == [(1, False), (2, True)], (name, mine)


def test_chapter_13_names_only_what_exists():
    """What the chapter tells a learner to use, and the numbers it states, hold."""
    import torch

    from autograder.learner.drill import add_drill_parser
    text = _chapter13_markdown()
    assert "clock_residual.saw_hints()" in text and hasattr(progress.DrillClock, "saw_hints")
    assert "drill residual_sample --hints" in text
    import argparse
    parser = argparse.ArgumentParser().add_subparsers(dest="command")
    add_drill_parser(parser)
    assert parser.choices["drill"].parse_args(["residual_sample", "--hints"]).hints is True
    assert "COURSE_PROGRESS_LOG=off" in text and progress.OFF == "off"
    # 2.11: bf16 keeps 7 mantissa bits (8 significant): the gap above 1 is 2**-7 = 1/128.
    assert "7 stored mantissa bits" in text and "1 part in 128" in text
    assert torch.finfo(torch.bfloat16).eps == 2 ** -7


def test_saw_hints_makes_the_next_answer_a_retry(tmp_path):
    log = tmp_path / "log.jsonl"
    clock = progress.start_drill("tree_attention_mask", "token trees", "08", path=log, minutes=10)
    clock.saw_hints()
    event = clock.finish(True)
    assert (event["attempt"], event["retry"], event["seen"]) == (1, True, [progress.HINTS])


def test_an_unwritable_log_warns_once_and_the_drill_goes_on(tmp_path, capsys):
    """A learner whose course folder is read-only (a shared server) or whose disk is full still runs
    every drill cell: the clock says the answer was not recorded and a warning says why, once.
    (A file where the log's folder should be fails to write even for root, unlike a chmod.)"""
    (tmp_path / "not-a-folder").write_text("")
    log = tmp_path / "not-a-folder" / progress.LOG_NAME
    with pytest.warns(progress.log.ProgressNotRecorded, match="could not be recorded") as caught:
        clock = progress.start_drill("d", "t", "02", path=log)
        assert clock.finish_with(lambda: None) is True
        assert clock.finish_with(lambda: 1 / 0) is False
    assert len(caught) == 1, [str(w.message) for w in caught]
    said = capsys.readouterr().out
    assert said.count("could not be written") == 2 and " recorded." not in said, said
    assert progress.append({"type": "check"}, log)[progress.log.RECORDED] is False
    assert progress.read_log(log) == []


# ---------------------------------------------------------------- issue 36 and 39: named slips, one GPU, new drills
def test_the_forgotten_bonus_token_is_named():
    """5.886 where 6.356 is right (alpha 0.91, gamma 8) is exactly the round without its bonus token."""
    q = drills.make_question(7, "round")
    assert (q.params["alpha"], q.params["gamma"]) == (0.91, 8)
    text = drills.grade(q, [5.886, q.parts[1].answer, q.parts[2].answer]).summary()
    assert "wrong (expected 6.356): that is 1 + alpha + ... + alpha^(gamma-1): you forgot the bonus token" in text, text
    text = drills.grade(q, [q.parts[0].answer - 1, 0.0, q.parts[2].answer]).summary()
    assert "counts only the kept drafts" in text and "speedup S: you gave 0, wrong (expected 2.372)\n" in text + "\n", text


@pytest.mark.parametrize("kind", list(drills.KINDS))
def test_a_slip_is_named_only_for_a_wrong_answer(kind):
    named = 0
    for seed in range(60):
        q = drills.make_question(seed, kind)
        for part in q.parts:
            assert part.diagnose(part.answer) == "", (kind, seed, part.label)
            for value, why in part.slips:
                if part.ok(value):
                    assert part.diagnose(value) == ""
                else:
                    assert part.diagnose(value) != "", (kind, seed, part.label, value)
                    named += 1
    assert named > 0, f"no slip of {kind} was ever named"


@pytest.mark.parametrize("seed", SEEDS)
def test_the_cost_drill_uses_one_gpus_numbers(seed):
    from specdec.hardware import GPUS
    q = drills.make_question(seed, "cost")
    gpu = GPUS[q.params["gpu"]]
    assert math.isclose(q.params["bandwidth_TBps"] * 1e12, gpu.bandwidth, rel_tol=1e-3)
    assert math.isclose(q.params["flops_TFLOPs"] * 1e12, gpu.flops_bf16, rel_tol=1e-3)
    assert f"one {gpu.name} (" in q.text


def test_the_new_coding_drills_are_listed_and_timed():
    from autograder.learner.drill import load_drills
    found = load_drills()
    for name, minutes, chapter in [("prompt_lookup_draft", 10, "09"), ("verify_node", 12, "08"), ("race_sample", 10, "11")]:
        assert name in found, sorted(found)
        assert (found[name].minutes, found[name].chapter) == (minutes, chapter)
        assert len(found[name].hints) == 2 and found[name].tests


def _solution_source(name):
    import re
    from tests.helpers import solution_nb
    for cell in solution_nb("13_interview_drills").cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == f"ex_drill_{name}":
            head = cell.source.split("### BEGIN SOLUTION")[0].rstrip(" ")
            body = re.search(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", cell.source, re.S).group(1)
            return head + body
    raise AssertionError(name)


@pytest.mark.slow
def test_verify_batch_accepts_the_race_and_names_the_swapped_pair(tmp_path):
    """One order, (tokens, n), as chapter 11 and the engine; the exponential race passes like multinomial."""
    from autograder.learner.coding_drills import load_drills, run_answer
    d = load_drills()["verify_batch"]
    source = "import torch\n" + _solution_source("verify_batch")
    race = source.replace("extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)",
                          "extra = (residual / torch.empty_like(residual).exponential_(generator=generator)).argmax(-1)")
    assert race != source
    (tmp_path / "race.py").write_text(race)
    results = run_answer(d, tmp_path / "race.py")
    assert all(r["ok"] for r in results), results
    swapped = source.replace("    return tokens, n", "    return n, tokens")
    (tmp_path / "swapped.py").write_text(swapped)
    results = run_answer(d, tmp_path / "swapped.py")
    assert not any(r["ok"] for r in results) and all("you returned (n, tokens)" in r["message"] for r in results), results


def _minutes(heading):
    import re
    word = re.search(r"\((?:under )?(\w+) minutes?\)", heading).group(1)
    return {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}[word]


def test_every_whiteboard_answer_fits_its_stated_time():
    """Spoken at about 130 words a minute, a model answer fits the time its question states; one question
    per cell, and no Markdown cell of the chapter over 600 words."""
    import re
    from tests.helpers import solution_nb
    questions = 0
    for cell in solution_nb("13_interview_drills").cells:
        if cell.cell_type != "markdown":
            continue
        assert len(cell.source.split()) <= 600, cell.source[:80]
        headings = re.findall(r"^### 2\.\d+ .*$", cell.source, re.M)
        assert len(headings) <= 1, headings
        if headings:
            questions += 1
            answer = re.search(r"<summary><b>Model answer</b>[^<]*</summary>(.*?)</details>", cell.source, re.S).group(1)
            words = len(re.sub(r"\]\([^)]*\)", "]", answer).split())
            assert words <= 130 * _minutes(headings[0]), (headings[0], words)
    assert questions == 22


def test_the_terminal_names_the_slip_of_a_numeric_answer(tmp_path, capsys):
    from autograder.__main__ import main
    code = main(["drill", "round", "--seed", "7", "--values", "5.886", "2.372", "7", "--folder", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and "wrong (expected 6.356): that is 1 + alpha + ... + alpha^(gamma-1): you forgot the bonus token" in out, out
