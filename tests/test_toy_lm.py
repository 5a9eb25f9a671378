"""Unit tests for specdec.toy_lm: the toy target/draft pair, plain greedy decoding, the trace checker."""
import numpy as np
import pytest

from specdec.greedy_protocol import protocol_violations, split_rounds
from specdec.toy_lm import make_models, plain_greedy, validate_request


def _speculate(target_logits, draft_next, prompt, n_new, gamma):
    # A straightforward greedy speculative loop, used only to exercise the trace checker.
    toks = list(prompt)
    end = len(toks) + n_new
    while len(toks) < end:
        drafts = []
        for _ in range(min(gamma, end - len(toks) - 1)):
            drafts.append(int(np.argmax(draft_next(toks + drafts))))
        rows = target_logits(toks + drafts)[len(toks) - 1:]
        choices = np.argmax(rows, axis=1)
        j = 0
        while j < len(drafts) and drafts[j] == choices[j]:
            j += 1
        toks += drafts[:j] + [int(choices[j])]
    return toks[:end]


def test_rows_score_the_token_after_each_prefix_and_are_batch_invariant():
    target_logits, _, _ = make_models(seed=0, noise=0.0, V=16)
    tokens = [3, 1, 4, 1, 5, 9, 2, 6]
    rows = target_logits(tokens)
    assert rows.shape == (8, 16)
    for i in range(len(tokens)):
        assert np.array_equal(rows[i], target_logits(tokens[:i + 1])[-1])


def test_same_seed_same_models_and_different_seeds_differ():
    t1, d1, _ = make_models(seed=4, noise=1.0)
    t2, d2, _ = make_models(seed=4, noise=1.0)
    t3, _, _ = make_models(seed=5, noise=1.0)
    assert np.array_equal(t1([1, 2, 3]), t2([1, 2, 3]))
    assert np.array_equal(d1([1, 2, 3]), d2([1, 2, 3]))
    assert not np.array_equal(t1([1, 2, 3]), t3([1, 2, 3]))


def test_target_depends_on_the_last_two_tokens_and_the_position():
    target_logits, _, _ = make_models(seed=1, noise=0.0)
    base = target_logits([7, 8, 9])[-1]
    assert not np.array_equal(base, target_logits([7, 5, 9])[-1])      # token before the last
    assert not np.array_equal(base, target_logits([7, 8, 4])[-1])      # last token
    assert not np.array_equal(base, target_logits([0, 7, 8, 9])[-1])   # same last two, one position later
    assert np.array_equal(base, target_logits([0, 8, 9])[-1])          # older tokens are not read


def test_greedy_decoding_does_not_fall_into_a_short_loop():
    target_logits, _, _ = make_models(seed=0, noise=0.0)
    out = plain_greedy(target_logits, [1], 200)
    tail = out[-60:]
    assert all(tail != out[-60 - p:-p] for p in range(1, 60))
    assert len(set(out)) > 20


def test_noise_zero_is_a_perfect_draft_and_noise_degrades_it():
    rates = []
    for noise in (0.0, 0.3, 3.0):
        target_logits, draft_next, _ = make_models(seed=2, noise=noise)
        path = plain_greedy(target_logits, [5], 300)
        agree = [int(np.argmax(draft_next(path[:i]))) == path[i] for i in range(1, len(path))]
        rates.append(np.mean(agree))
        if noise == 0.0:
            assert np.array_equal(draft_next(path[:10]), target_logits(path[:10])[-1])
    assert rates[0] == 1.0
    assert 1.0 > rates[1] > rates[2]
    assert rates[2] < 0.5


def test_calls_are_counted_and_traced():
    target_logits, draft_next, calls = make_models(seed=0, noise=0.5, V=8)
    target_logits([1, 2, 3])
    draft_next([1])
    target_logits(np.array([4, 5]))
    assert calls["target"] == 2 and calls["draft"] == 1
    assert calls["target_positions"] == 5
    assert calls["trace"] == [("target", (1, 2, 3)), ("draft", (1,)), ("target", (4, 5))]
    assert all(type(t) is int for t in calls["trace"][2][1])


@pytest.mark.parametrize("bad", [[], [0, 8], [-1], [1.0, 2.0], [[1, 2]]])
def test_models_reject_bad_token_lists(bad):
    target_logits, draft_next, _ = make_models(seed=0, noise=0.5, V=8)
    with pytest.raises(ValueError):
        target_logits(bad)
    with pytest.raises(ValueError):
        draft_next(bad)


@pytest.mark.parametrize("kwargs", [dict(V=1), dict(V=2.5), dict(noise=-0.1), dict(noise=float("nan"))])
def test_make_models_rejects_bad_arguments(kwargs):
    args = dict(seed=0, noise=0.5) | kwargs
    with pytest.raises(ValueError):
        make_models(**args)


def test_plain_greedy_appends_argmaxes_and_copies_the_prompt():
    target_logits, _, calls = make_models(seed=3, noise=0.0)
    prompt = [4, 2]
    out = plain_greedy(target_logits, prompt, 6)
    assert prompt == [4, 2] and out[:2] == [4, 2] and len(out) == 8
    for i in range(2, 8):
        assert out[i] == int(np.argmax(target_logits(out[:i])[-1]))
    assert calls["target"] == 6 + 6
    assert plain_greedy(target_logits, prompt, 0) == [4, 2]


@pytest.mark.parametrize("prompt,n_new", [([], 3), ("ab", 3), ([1, 2.5], 3), ([True], 3), ([1], -1), ([1], 1.5)])
def test_plain_greedy_rejects_bad_requests(prompt, n_new):
    target_logits, _, _ = make_models(seed=0, noise=0.0)
    with pytest.raises(ValueError):
        plain_greedy(target_logits, prompt, n_new)


def test_plain_greedy_rejects_out_of_range_prompt_through_the_model():
    target_logits, _, _ = make_models(seed=0, noise=0.0, V=8)
    with pytest.raises(ValueError, match="0..7"):
        plain_greedy(target_logits, [9], 2)


def test_validate_request():
    assert validate_request(np.array([1, 2]), 0, gamma=1, V=4) == [1, 2]
    for gamma in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="gamma"):
            validate_request([1], 2, gamma=gamma)
    with pytest.raises(ValueError, match="0..3"):
        validate_request([4], 2, V=4)


def test_split_rounds_groups_draft_calls_before_each_target_call():
    trace = [("draft", (1,)), ("target", (1, 2)), ("target", (1, 2, 3)), ("draft", (1, 2, 3, 4))]
    rounds, left = split_rounds(trace)
    assert [(r.committed, r.n_drafts) for r in rounds] == [(1, 1), (3, 0)]
    assert left == 1


@pytest.mark.parametrize("seed,noise,gamma,n_new", [(0, 0.0, 3, 17), (1, 0.5, 2, 25), (2, 5.0, 4, 9), (3, 0.2, 1, 1)])
def test_a_correct_speculative_loop_has_no_violations(seed, noise, gamma, n_new):
    target_logits, draft_next, calls = make_models(seed, noise)
    out = _speculate(target_logits, draft_next, [1, 2], n_new, gamma)
    ref, _, _ = make_models(seed, noise)
    assert out == plain_greedy(ref, [1, 2], n_new)
    assert protocol_violations(calls["trace"], [1, 2], out, gamma) == []
    if noise == 0.0:
        assert calls["target"] == -(-n_new // (gamma + 1))


def test_protocol_violations_name_each_broken_rule():
    ok = [("draft", (1,)), ("draft", (1, 2)), ("target", (1, 2, 3))]
    assert protocol_violations(ok, [1], [1, 2, 3], gamma=2) == []
    assert protocol_violations(ok, [1], [1, 2, 3, 4], gamma=2) == []           # accepted both, plus a bonus
    assert "at most gamma" in protocol_violations(ok, [1], [1, 2, 3], gamma=1)[0]
    assert "never verified" in protocol_violations(ok + [("draft", (1, 2, 3))], [1], [1, 2, 3], gamma=2)[0]
    assert "prompt has 2" in protocol_violations(ok, [1, 2], [1, 2, 3], gamma=2)[0]
    skipped = [("draft", (1,)), ("draft", (1, 9)), ("target", (1, 2, 3))]
    assert "draft call 2" in protocol_violations(skipped, [1], [1, 2, 3], gamma=2)[0]
    again = ok + [("target", (1, 2, 3))]                                       # second call, same round
    assert protocol_violations(again, [1], [1, 2, 3, 4], gamma=2) == []         # legal: a round with no drafts
    stuck = [("target", (1,)), ("target", (1,))]
    assert "at least 1" in protocol_violations(stuck, [1], [1, 5], gamma=1)[0]
    assert "returned" in protocol_violations(ok, [1], [1, 2, 3, 4, 5], gamma=2)[0]
    wrong_text = [("target", (1, 7))]
    assert "begin" in protocol_violations(wrong_text, [1, 7], [1, 2, 3], gamma=1)[0]
