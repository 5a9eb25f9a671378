"""The lab's measurement helpers: the timing protocol, interleaving, the model clock, the formula with overhead."""
import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from specdec.engine import measure
from specdec.engine.prefill import cache_length
from specdec.engine.timing import Quietness
from specdec.engine.measure import (model_clock, pass_time_samples, predicted_speedup, robust_time, run_plain,
                                    run_speculative)


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


def test_pass_time_samples_interleaves_k_and_keeps_the_context(monkeypatch):
    model = _model(1)
    order, lengths = [], []
    real_forward = measure.forward

    def spy(m, ids, cache=None):
        order.append(int(ids.numel()))
        lengths.append(cache_length(cache))
        return real_forward(m, ids, cache)

    monkeypatch.setattr(measure, "forward", spy)
    out = pass_time_samples(model, [1, 2, 4], context=8, repeats=3, warmup=1, seed=0)
    assert sorted(out) == [1, 2, 4] and all(len(v) == 3 and min(v) > 0 for v in out.values())
    passes = order                                                       # the prefill goes through prefill()
    rounds = [passes[i:i + 3] for i in range(0, len(passes), 3)]
    assert len(rounds) == 4 and all(sorted(r) == [1, 2, 4] for r in rounds)   # every repeat times every k once
    assert len({tuple(r) for r in rounds}) > 1                           # in a shuffled order, not always the same
    assert set(lengths) == {8}                                       # every pass sees the same context


def test_model_clock_counts_calls_and_leaves_no_hooks():
    target, draft = _model(2), _model(1, seed=1)
    prompts = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
    run = run_speculative(target, draft, prompts, 3, 10, temperature=1.0, seed=0)
    assert run["model_calls"]["target"] == run["stats"].target_calls
    assert 0 < sum(run["model_seconds"].values()) < run["seconds"]
    plain = run_plain(target, prompts, 10, temperature=1.0)
    assert plain["model_calls"]["target"] == 20 and plain["model_seconds"]["target"] < plain["seconds"]
    assert not target._forward_hooks and not target._forward_pre_hooks and not draft._forward_hooks
    with model_clock(t=target) as spent:
        target(input_ids=torch.tensor([[1, 2]]))
    assert spent["t"][1] == 1 and spent["t"][0] > 0


def test_model_clock_times_each_requests_first_pass_apart():
    """The pass over a whole prompt costs several steps: it is counted apart, once per request and model."""
    target, draft = _model(2), _model(1, seed=1)
    prompts = [torch.tensor([1, 2, 3, 4, 5, 6]), torch.tensor([4, 5]), torch.tensor([7, 8, 9])]
    run = run_speculative(target, draft, prompts, 3, 10, temperature=1.0, seed=0)
    assert run["first_calls"] == {"target": 3, "draft": 3}
    assert all(0 < run["first_seconds"][m] < run["model_seconds"][m] for m in ("target", "draft"))
    plain = run_plain(target, prompts, 10, temperature=0.0)
    assert plain["first_calls"] == {"target": 3} and plain["model_calls"]["target"] == 30
    assert 0 < plain["first_seconds"]["target"] < plain["model_seconds"]["target"]


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
    assert sum(run["model_calls"].values()) > 10 and reads["thread_time"] == 2
    assert 0 < run["cpu_seconds"]
    reads["thread_time"] = 0
    plain = run_plain(target, prompts, 10, temperature=1.0)
    assert plain["model_calls"]["target"] == 20 and reads["thread_time"] == 2
    assert set(plain) >= {"seconds", "cpu_seconds", "model_seconds", "model_calls"} and "model_cpu_seconds" not in plain


def test_predicted_speedup_with_overheads_reduces_to_chapter_05():
    assert predicted_speedup(3.0, 4, 0.1, 1.0) == pytest.approx(3.0 / 1.4)
    assert predicted_speedup(3.0, 4, 0.1, 1.2, overhead=0.3, plain_overhead=0.1) == pytest.approx(3.0 * 1.1 / 1.9)


@pytest.mark.parametrize("shares, quiet", [([1.0, 0.95, 0.9], True), ([1.0, 0.899], False), ([0.2], False)])
def test_quietness_flags_a_run_that_lost_a_tenth_of_its_wall_time(shares, quiet):
    q = Quietness.of(shares)
    assert q.quiet is quiet and ("another program took the processor" in q.verdict()) is not quiet
    assert str(q).startswith(f"CPU time / wall time over each timed run: lowest {int(100 * min(shares) + 1e-9)} %")


@pytest.mark.parametrize("bad", [[], [0.9, float("nan")], [float("inf")], [-0.1]])
def test_quietness_refuses_shares_that_are_not_shares(bad):
    with pytest.raises(ValueError):
        Quietness.of(bad)
