"""The measurement toolkit: the timing protocol, interleaving, the forward-call clock, the three runs
(plain, speculative, Hugging Face) timed alike, the costs read from them, the formula with overhead."""
import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from specdec.engine import measure, timing
from specdec.engine.clock import ForwardTime, model_clock
from specdec.engine.prediction import predicted_request_speedup, predicted_steady_speedup
from specdec.engine.prefill import cache_length
from specdec.engine.timing import Quietness, draft_cost_ratio, pass_time_samples, robust_time
from specdec.engine.measure import in_run_costs, like_for_like, run_hf, run_plain, run_speculative


def _model(layers, seed=0):
    torch.manual_seed(seed)
    cfg = GPT2Config(n_layer=layers, n_embd=16, n_head=2, vocab_size=11, n_positions=128, bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(cfg).eval()


def test_robust_time_synchronizes_around_every_timed_call_and_takes_the_median():
    events, ticks = [], iter([0, 1, 10, 12, 20, 120, 200, 203, 300, 301])   # samples 1, 2, 100, 3, 1
    clock = lambda: events.append("clock") or next(ticks)
    med, iqr = robust_time(lambda: events.append("fn"), repeats=5, warmup=2, synchronize=lambda: events.append("sync"),
                           clock=clock)
    assert events[:2] == ["fn", "fn"]
    assert events[2:] == ["sync", "clock", "fn", "sync", "clock"] * 5
    assert (med, iqr) == (2.0, 2.0)                                      # percentiles 25/75 of [1,1,2,3,100]: 1 and 3
    with pytest.raises(ValueError, match="repeats"):
        robust_time(lambda: None, repeats=0)
    with pytest.raises(ValueError, match="warmup"):
        robust_time(lambda: None, repeats=1, warmup=-1)
    with pytest.raises(ValueError, match="repeats"):
        robust_time(lambda: None, repeats=True)                          # True is an int in Python: refused


def test_pass_time_samples_interleaves_k_and_keeps_the_context(monkeypatch):
    model = _model(1)
    order, lengths = [], []
    real_forward = timing.forward

    def spy(m, ids, cache=None):
        order.append(int(ids.numel()))
        lengths.append(cache_length(cache))
        return real_forward(m, ids, cache)

    monkeypatch.setattr(timing, "forward", spy)
    out = pass_time_samples({"m": model}, [1, 2, 4], context=8, repeats=3, warmup=1, seed=0)
    assert sorted(out) == [("m", 1), ("m", 2), ("m", 4)] and all(len(v) == 3 and min(v) > 0 for v in out.values())
    passes = order                                                       # the prefill goes through prefill()
    rounds = [passes[i:i + 3] for i in range(0, len(passes), 3)]
    assert len(rounds) == 4 and all(sorted(r) == [1, 2, 4] for r in rounds)   # every repeat times every k once
    assert len({tuple(r) for r in rounds}) > 1                           # in a shuffled order, not always the same
    assert set(lengths) == {8}                                       # every pass sees the same context


def test_model_clock_counts_calls_and_leaves_no_hooks():
    target, draft = _model(2), _model(1, seed=1)
    prompts = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
    run = run_speculative(target, draft, prompts, 3, 10, temperature=1.0, seed=0)
    assert run["passes"]["target"].calls == run["stats"].target_calls
    assert run["passes"]["draft"].calls == run["stats"].draft_calls
    assert 0 < sum(p.seconds for p in run["passes"].values()) < run["seconds"]
    assert 0 < measure.engine_seconds(run) < run["seconds"]
    plain = run_plain(target, prompts, 10, temperature=1.0)
    assert plain["passes"]["target"].calls == 20 and plain["passes"]["target"].seconds < plain["seconds"]
    assert not target._forward_hooks and not target._forward_pre_hooks and not draft._forward_hooks
    with model_clock(t=target) as spent:
        target(input_ids=torch.tensor([[1, 2]]))
    assert spent["t"].calls == 1 and spent["t"].seconds > 0


def test_model_clock_times_each_requests_first_pass_apart():
    """The pass over a whole prompt costs several steps: it is counted apart, once per request and model."""
    target, draft = _model(2), _model(1, seed=1)
    prompts = [torch.tensor([1, 2, 3, 4, 5, 6]), torch.tensor([4, 5]), torch.tensor([7, 8, 9])]
    run = run_speculative(target, draft, prompts, 3, 10, temperature=1.0, seed=0)
    assert {m: p.first_calls for m, p in run["passes"].items()} == {"target": 3, "draft": 3}
    assert all(0 < p.first_seconds < p.seconds for p in run["passes"].values())
    plain = run_plain(target, prompts, 10, temperature=0.0)
    assert plain["passes"]["target"].first_calls == 3 and plain["passes"]["target"].calls == 30
    assert 0 < plain["passes"]["target"].first_seconds < plain["passes"]["target"].seconds


def test_the_clocks_cost_does_not_grow_with_the_number_of_model_calls(monkeypatch):
    """The hooks around every model call read only perf_counter; the CPU-time clock, which costs about
    0.2 ms a call on some virtual machines, is read twice per run, so it is not charged to the engine
    once per model call (gamma + 1 times a round, against once a token for plain decoding)."""
    import time as _time
    reads = {"thread_time": 0}
    real = _time.thread_time

    def counting():
        reads["thread_time"] += 1
        return real()
    monkeypatch.setattr(measure.time, "thread_time", counting)
    target, draft = _model(2), _model(1, seed=1)
    prompts = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
    run = run_speculative(target, draft, prompts, 3, 10, temperature=1.0, seed=0)
    assert sum(p.calls for p in run["passes"].values()) > 10 and reads["thread_time"] == 2
    assert 0 < run["cpu_seconds"]
    for name, one_run in [("plain", lambda: run_plain(target, prompts, 10, temperature=1.0)),
                          ("hf", lambda: run_hf(target, prompts, 10, assistant=draft,
                                                assistant_settings=like_for_like(3)))]:
        reads["thread_time"] = 0
        done = one_run()
        assert done["passes"]["target"].calls >= 2 and reads["thread_time"] == 2, name
        assert set(done) >= {"seconds", "cpu_seconds", "passes"} and "model_cpu_seconds" not in done, name


def test_hugging_face_runs_the_course_engines_rounds_when_set_like_for_like():
    """Greedy, constant gamma, no early stop: HF's assisted generation makes the course engine's passes and
    tokens; the settings apply to that run only; the clock sees HF's own calls of both models."""
    target, draft = _model(2), _model(1, seed=1)
    for m in (target, draft):
        m.generation_config.eos_token_id = None      # min_new_tokens would mask an end token the course's loop may pick
    prompts = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
    before = draft.generation_config.to_dict()
    hf = run_hf(target, prompts, 12, assistant=draft, assistant_settings=like_for_like(3))
    ours = run_speculative(target, draft, prompts, 3, 12, temperature=0.0)
    assert draft.generation_config.to_dict() == before
    assert hf["tokens"] == ours["tokens"] == run_plain(target, prompts, 12, temperature=0.0)["tokens"]
    assert hf["n_tokens"] == 24 and hf["passes"]["target"].calls == ours["passes"]["target"].calls
    assert hf["passes"]["draft"].calls == ours["passes"]["draft"].calls
    plain_hf = run_hf(target, prompts, 12)
    assert set(plain_hf["passes"]) == {"target"} and plain_hf["passes"]["target"].calls == 24
    sampled = [run_hf(target, prompts, 12, temperature=1.0, seed=s)["tokens"] for s in (3, 3, 4)]
    assert sampled[0] == sampled[1] != sampled[2]                        # seeded through the global generator


def test_in_run_costs_reads_chapter_05s_costs_in_plain_steps():
    plain = dict(seconds=12.0, passes={"target": ForwardTime(10.0, 10, 1.0, 1)})
    spec = dict(seconds=6.0, passes={"target": ForwardTime(4.0, 3, 2.0, 1), "draft": ForwardTime(1.5, 9, 0.5, 1)})
    costs = in_run_costs(plain, spec)
    want = dict(o_plain=0.2, first_plain=1.0, c=0.125, r_gamma=1.0, o_round=0.5 / 3, first_spec=2.5)
    assert costs == pytest.approx(want)
    doubled = {k: dict(v, seconds=2 * v["seconds"], passes={m: ForwardTime(2 * p.seconds, p.calls, 2 * p.first_seconds,
                                                                           p.first_calls) for m, p in v["passes"].items()})
               for k, v in dict(plain=plain, spec=spec).items()}
    assert in_run_costs(doubled["plain"], doubled["spec"]) == pytest.approx(want)   # a slower machine: same units
    with pytest.raises(ValueError, match="first"):
        ForwardTime(1.0, 1, 1.0, 1).step_seconds()


def test_draft_cost_ratio_pairs_the_passes_of_each_round():
    samples = {("target", 1): [1.0, 2.0, 4.0], ("draft", 1): [0.5, 1.0, 2.0]}     # the machine slows, c does not
    c = draft_cost_ratio(samples)
    assert (c.median, c.low, c.high) == (0.5, 0.5, 0.5)


def test_predicted_steady_speedup_with_overheads_reduces_to_chapter_05():
    assert predicted_steady_speedup(3.0, 4, 0.1, 1.0) == pytest.approx(3.0 / 1.4)
    assert predicted_steady_speedup(3.0, 4, 0.1, 1.2, overhead=0.3, plain_overhead=0.1) == pytest.approx(3.0 * 1.1 / 1.9)
    long = predicted_request_speedup(3.0, 4, 0.1, 1.2, 0.3, 0.1, n_new=10**8, first_plain=5.0, first_spec=7.0)
    assert long == pytest.approx(predicted_steady_speedup(3.0, 4, 0.1, 1.2, 0.3, 0.1), rel=1e-6)


@pytest.mark.parametrize("shares, quiet", [([1.0, 0.95, 0.9], True), ([1.0, 0.899], False), ([0.2], False)])
def test_quietness_flags_a_run_that_lost_a_tenth_of_its_wall_time(shares, quiet):
    q = Quietness.of(shares)
    assert q.quiet is quiet and ("another program took the processor" in q.verdict()) is not quiet
    assert str(q).startswith(f"CPU time / wall time over each timed run: lowest {int(100 * min(shares) + 1e-9)} %")


@pytest.mark.parametrize("bad", [[], [0.9, float("nan")], [float("inf")], [-0.1]])
def test_quietness_refuses_shares_that_are_not_shares(bad):
    with pytest.raises(ValueError):
        Quietness.of(bad)


def test_an_unclocked_run_puts_no_hook_on_the_models_and_says_so(monkeypatch):
    """Speedups come from runs without the per-pass hooks (which synchronize a GPU around every pass)."""
    target, draft = _model(2), _model(1, seed=1)
    prompts = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
    seen = []
    real = measure.model_clock
    monkeypatch.setattr(measure, "model_clock", lambda **models: seen.append(models) or real(**models))
    free = run_speculative(target, draft, prompts, 3, 10, temperature=1.0, seed=0, clocked=False)
    plain = run_plain(target, prompts, 10, temperature=1.0, clocked=False)
    assert seen == [] and free["passes"] is None and plain["passes"] is None
    clocked = run_speculative(target, draft, prompts, 3, 10, temperature=1.0, seed=0)
    assert len(seen) == 1 and clocked["tokens"] == free["tokens"]              # same work, same seed, same tokens
    assert free["stats"].target_calls == clocked["passes"]["target"].calls


def test_alternating_runs_warm_up_then_put_plain_first_and_last_in_turn():
    order = []
    runs = {name: (lambda rep, name=name: order.append((name, rep)) or name) for name in ["plain", 1, 2, 3]}
    out = measure.alternating_runs(runs, 4, seed=0)
    assert order[:4] == [("plain", -1), (1, -1), (2, -1), (3, -1)]                 # every setting warmed up once
    reps = [order[4 + 4 * r: 8 + 4 * r] for r in range(4)]
    assert [r[0][0] for r in reps[::2]] == ["plain", "plain"] and [r[-1][0] for r in reps[1::2]] == ["plain", "plain"]
    assert all(sorted(str(n) for n, _ in r) == ["1", "2", "3", "plain"] for r in reps)
    assert len({tuple(n for n, _ in r if n != "plain") for r in reps}) > 1       # the gammas in a fresh shuffle
    assert [set(o) for o in out] == [{"plain", 1, 2, 3}] * 4


def test_speedup_sweep_times_unclocked_runs_and_paired_costs_put_a_plain_run_beside_each_gamma(monkeypatch):
    target, draft = _model(2), _model(1, seed=1)
    prompts = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
    calls = []
    real_plain, real_spec = measure.run_plain, measure.run_speculative
    monkeypatch.setattr(measure, "run_plain", lambda *a, **k: calls.append(("plain", k.get("clocked", True)))
                        or real_plain(*a, **k))
    monkeypatch.setattr(measure, "run_speculative", lambda t, d, p, g, *a, **k: calls.append((g, k.get("clocked", True)))
                        or real_spec(t, d, p, g, *a, **k))
    sweep = measure.speedup_sweep(target, draft, prompts, [1, 3], 8, 2, temperature=1.0)
    assert all(not clocked for _, clocked in calls) and len(calls) == 3 + 2 * 3     # warm-up, then 2 repeats
    assert {g: len(v) for g, v in sweep["speedup"].items()} == {1: 2, 3: 2} and len(sweep["cpu_share"]) == 6
    assert all(s > 0 for v in sweep["speedup"].values() for s in v)
    calls.clear()
    parts = measure.paired_costs(target, draft, prompts, [1, 3], 8, 2, temperature=1.0)
    assert all(clocked for _, clocked in calls) and len(calls) == 8
    pairs = [calls[i:i + 2] for i in range(0, 8, 2)]
    assert all(sorted(str(n) for n, _ in pair)[-1] == "plain" and len({n for n, _ in pair}) == 2 for pair in pairs)
    assert [pair[0][0] for pair in pairs[:2]] == ["plain", "plain"] and [pair[1][0] for pair in pairs[2:]] == ["plain"] * 2
    assert {g: len(v) for g, v in parts.items()} == {1: 2, 3: 2}
    assert set(measure.median_costs(parts[3])) == {"o_plain", "first_plain", "c", "r_gamma", "o_round", "first_spec"}


def test_the_power_of_a_chi_square_check_is_the_noncentral_law_and_the_courses_pooling():
    """engine.power against a simulation of the course's own test, and against its pooling."""
    import numpy as np
    from autograder.stats import chi_square, count_outcomes
    from specdec.engine.power import chi_square_power, draws_for_power, pooled_cells
    p = np.array([0.3, 0.25, 0.2, 0.15, 0.06, 0.04])
    w = np.array([0.27, 0.25, 0.2, 0.15, 0.06, 0.07])
    n, level = 600, 1e-2
    rng = np.random.default_rng(0)
    trials = 1500
    rejected = sum(chi_square(count_outcomes(rng.choice(6, size=n, p=w).tolist()), p.tolist()).p_value < level
                   for _ in range(trials))
    predicted = chi_square_power(p, w, n, level)
    assert abs(rejected / trials - predicted) < 4 * np.sqrt(predicted * (1 - predicted) / trials) + 0.02, (
        rejected / trials, predicted)
    for m in (20, 60, 100, 400):                                    # the same cells as the course's test forms
        pooled = chi_square({i: 0 for i in range(5)} | {5: m}, p.tolist())
        assert len(pooled_cells(p, m)) - 1 == pooled.dof, m
        assert sorted(len(c) for c in pooled_cells(p, m) if len(c) > 1) == ([len(pooled.pooled)] if pooled.pooled else [])
    need = draws_for_power(p, w, power=0.99, level=1e-6)
    assert chi_square_power(p, w, need) >= 0.99 > chi_square_power(p, w, need // 2)
    with pytest.raises(ValueError):
        draws_for_power(p, p)
