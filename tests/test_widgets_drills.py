"""The numeric drill form: new questions per seed, grading, worked answer after an attempt, logging."""
from autograder import progress
from widgets.drills import numeric_drill_widget


def test_form_flow(tmp_path):
    log = tmp_path / "log.jsonl"
    w = numeric_drill_widget(seed=1, kind="acceptance", log=log)
    assert w.question.kind == "acceptance" and w.worked.layout.display == "none"
    visible = [b for b in w.boxes if b.layout.display != "none"]
    assert len(visible) == len(w.question.parts) == 3
    first = w.question
    w.seed_box.value = 2
    assert w.question != first and w.worked.layout.display == "none"
    for box, part in zip(w.boxes, w.question.parts):
        box.value = f"{part.answer:.4f}"
    w.button.click()
    assert w.last_grade.correct and w.worked.layout.display is None and "All right" in w.verdict.value
    w.kind_menu.value = "cost"
    assert w.question.kind == "cost" and len([b for b in w.boxes if b.layout.display != "none"]) == 3
    w.check([0, 0, 0])
    assert not w.last_grade.correct and "Not yet" in w.verdict.value
    events = [e for e in progress.read_log(log) if e["type"] == "drill"]
    assert [e["correct"] for e in events] == [True, False]
    assert events[0]["drill"] == "numeric:acceptance" and events[1]["topic"] == "cost of a pass"
    assert [e["retry"] for e in events] == [False, False]


def test_a_second_answer_to_the_same_question_is_a_retry(tmp_path):
    log = tmp_path / "log.jsonl"
    w = numeric_drill_widget(seed=4, kind="round", log=log)
    w.check([1, 1, 1])                                   # wrong: the worked answer is now shown
    w.check([p.answer for p in w.question.parts])        # copied from the worked answer
    events = [e for e in progress.read_log(log) if e["type"] == "drill"]
    assert [(e["correct"], e["attempt"], e["retry"]) for e in events] == [(False, 1, False), (True, 2, True)]
    assert events[1]["seconds"] >= events[0]["seconds"]  # timed from the question's start, not from the retry
    (row,) = progress.topic_summary(progress.read_log(log))
    assert (row["attempts"], row["correct"], row["retries"]) == (1, 0, 1)


def test_bad_input_shows_a_message_not_a_traceback(tmp_path):
    w = numeric_drill_widget(seed=0, kind="round", log=tmp_path / "log.jsonl")
    assert w.check(["two point five", 1, 1]) is None
    assert "not a number" in w.message and "not a number" in w.verdict.value
    assert w.worked.layout.display == "none"


def test_kind_menu_opens_on_any_and_switches_back(tmp_path):
    w = numeric_drill_widget(seed=5, log=tmp_path / "log.jsonl")
    assert w.kind_menu.index == 0 and w.kind_menu.label == "any", "the kind menu must not open empty"
    seeded = w.question.kind
    w.kind_menu.value = "tree"
    assert w.question.kind == "tree"
    w.kind_menu.value = "any"
    assert w.question.kind == seeded


def test_unknown_kind_shows_a_message(tmp_path):
    w = numeric_drill_widget(seed=5, kind="speedup", log=tmp_path / "log.jsonl")
    assert w.kind_menu.label == "any" and "unknown kind" in w.message and "unknown kind" in w.verdict.value


def test_the_same_seed_again_is_a_retry_by_every_route_back(tmp_path):
    """After the worked answer of seed 4 was shown, coming back to seed 4 (a new form, as re-running the
    cell makes, or typing the seed again) never records a first attempt."""
    log = tmp_path / "log.jsonl"
    w = numeric_drill_widget(seed=4, kind="round", log=log)
    w.check([1, 1, 1])                                   # wrong; the worked answer is shown and logged
    assert any(e["type"] == "seen" and e["what"] == progress.WORKED and e["seed"] == 4 for e in progress.read_log(log))
    again = numeric_drill_widget(seed=4, kind="round", log=log)       # the cell run again: a restarted clock
    again.check([p.answer for p in again.question.parts])
    assert (again.last_event["attempt"], again.last_event["retry"]) == (2, True)
    assert again.last_event["seconds"] < 5              # timed from the restart, but not scored
    again.seed_box.value = 5
    again.check([p.answer for p in again.question.parts])
    assert (again.last_event["attempt"], again.last_event["retry"]) == (1, False)    # a new seed: a new question
    again.seed_box.value = 4
    again.check([p.answer for p in again.question.parts])
    assert (again.last_event["attempt"], again.last_event["retry"]) == (3, True)
    (row,) = progress.topic_summary(progress.read_log(log))
    assert (row["attempts"], row["correct"], row["retries"]) == (2, 1, 2)


def test_a_likely_slip_is_named_in_the_form(tmp_path):
    # The form names the mistake behind a wrong answer, as `python -m autograder drill` does: an n_bar
    # that leaves out the bonus token is "you forgot the bonus token", not only "not within the tolerance".
    w = numeric_drill_widget(seed=1, kind="round", log=tmp_path / "log.jsonl")   # alpha^gamma = 0.55
    alpha, gamma = w.question.params["alpha"], w.question.params["gamma"]
    no_bonus = sum(alpha ** i for i in range(gamma))
    w.check([no_bonus, 0, 0])
    assert "forgot the bonus token" in w.verdict.value, w.verdict.value
