"""Tests of specdec.speculative: the reference round and the bigram simulations."""
import itertools

import numpy as np
import pytest

from autograder.recording_rng import RecordingGenerator
from autograder.stats import assert_distribution
from specdec.bigram import BigramPair, exact_joint, make_bigram_pair, survival_probabilities
from specdec.distributions import residual
from specdec.speculative import sample_round_bigram, sample_sequences, verify_round

P = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3], [0.1, 0.1, 0.8]])   # (gamma + 1, V), gamma = 2
Q = np.array([[0.4, 0.3, 0.3], [0.2, 0.5, 0.3]])                    # (gamma, V)
DRAFTS = [0, 1]          # keep ratios p/q = 0.5 and 0.2


def exact_round(p, q):
    """Probability of every emitted list for drafts sampled from q and verified exactly."""
    gamma, V = q.shape
    out = {}
    for drafts in itertools.product(range(V), repeat=gamma):
        reach = float(np.prod([q[i, x] for i, x in enumerate(drafts)]))   # P(these drafts)
        for i, x in enumerate(drafts):
            keep = min(1.0, p[i, x] / q[i, x])
            r = residual(p[i], q[i])
            for y in range(V):
                key = tuple(drafts[:i]) + (y,)
                out[key] = out.get(key, 0.0) + reach * (1 - keep) * r[y]
            reach *= keep
        for y in range(V):
            key = tuple(drafts) + (y,)
            out[key] = out.get(key, 0.0) + reach * p[gamma, y]
    return out


@pytest.mark.parametrize("reject_at", [0, 1, None])
def test_verify_round_protocol(reject_at):
    uniforms = [0.0, 0.0] if reject_at is None else [0.0] * reject_at + [0.99]
    rng = RecordingGenerator(0, uniforms=uniforms)
    out = verify_round(P, Q, DRAFTS, rng)
    n_random = 2 if reject_at is None else reject_at + 1
    assert rng.names() == ["random"] * n_random + ["choice"]
    want_p = P[2] if reject_at is None else residual(P[reject_at], Q[reject_at])
    np.testing.assert_allclose(rng.calls[-1].kwargs["p"], want_p)
    kept = DRAFTS if reject_at is None else DRAFTS[:reject_at]
    assert out == kept + [int(rng.calls[-1].result)]
    assert all(type(t) is int for t in out)


def test_verify_round_accepts_strictly_below_the_ratio():
    p = np.array([[0.2, 0.8], [0.5, 0.5]])
    q = np.array([[0.4, 0.6]])                # ratio 0.5 for draft 0
    assert len(verify_round(p, q, [0], RecordingGenerator(0, uniforms=[0.4999]))) == 2
    out = verify_round(p, q, [0], RecordingGenerator(0, uniforms=[0.5]))
    assert out == [1]                          # rejected; the residual is all on token 1


def test_verify_round_output_distribution():
    rng = np.random.default_rng(11)
    samples = []
    for _ in range(6000):
        drafts = [int(rng.choice(3, p=Q[0])), int(rng.choice(3, p=Q[1]))]
        samples.append(tuple(verify_round(P, Q, drafts, rng)))
    assert_distribution(samples, exact_round(P, Q), what="verify_round's emitted lists")


def test_exact_round_marginal_is_p():
    # The theorem for the first emitted token: whatever happens, it is distributed as p[0].
    first = np.zeros(3)
    for key, prob in exact_round(P, Q).items():
        first[key[0]] += prob
    np.testing.assert_allclose(first, P[0])


def test_verify_round_validation():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="gamma \\+ 1"):
        verify_round(P[:2], Q, DRAFTS, rng)
    with pytest.raises(ValueError, match="drafts"):
        verify_round(P, Q, [0], rng)
    with pytest.raises(ValueError, match="0..2"):
        verify_round(P, Q, [0, 3], rng)
    with pytest.raises(ValueError, match="probability 0"):
        verify_round(P, np.array([[1.0, 0, 0], [0.2, 0.5, 0.3]]), [1, 1], rng)
    with pytest.raises(ValueError, match="sum to 1"):
        verify_round(P, Q * 2, DRAFTS, rng)
    with pytest.raises(ValueError, match="at least 1"):
        verify_round(P[:1], Q[:0], [], rng)


def test_sample_sequences_joint_is_exact():
    pair = make_bigram_pair(seed=0)
    tokens, n_bar = sample_sequences(pair, 3000, 2, 3, np.random.default_rng(5))
    assert tokens.shape == (3000, 2) and tokens.dtype == np.int64
    joint = exact_joint(pair.p, pair.start, 2)
    assert_distribution([tuple(t) for t in tokens], {(a, b): joint[a, b] for a in range(6) for b in range(6)},
                        what="sample_sequences' first two tokens")
    assert 2.7 < n_bar < 3.2


def test_round_length_matches_survival():
    pair = make_bigram_pair(seed=0)
    rng = np.random.default_rng(2)
    lengths = np.array([len(sample_round_bigram(pair, pair.start, 3, rng)) for _ in range(4000)])
    n_bar = 1 + survival_probabilities(pair, 3).sum()
    assert abs(lengths.mean() - n_bar) < 5 * lengths.std() / np.sqrt(len(lengths))
    assert lengths.min() >= 1 and lengths.max() <= 4


def test_custom_verifier_sees_consistent_rows():
    pair = make_bigram_pair(seed=1)
    seen = []

    def spy(p, q, drafts, rng):
        seen.append((p, q, list(drafts)))
        return verify_round(p, q, drafts, rng)

    sample_round_bigram(pair, 2, 3, np.random.default_rng(0), verify=spy)
    p, q, drafts = seen[0]
    context = [2] + drafts
    assert p.shape == (4, 6) and q.shape == (3, 6) and len(drafts) == 3
    np.testing.assert_array_equal(p, pair.p[context])
    np.testing.assert_array_equal(q, pair.q[context[:-1]])


def test_simulation_rejects_bad_verifiers_and_arguments():
    pair = make_bigram_pair(seed=0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="between 1 and"):
        sample_sequences(pair, 2, 2, 3, rng, verify=lambda p, q, d, r: [])
    with pytest.raises(ValueError, match="outside"):
        sample_round_bigram(pair, 0, 2, rng, verify=lambda p, q, d, r: [7])
    with pytest.raises(ValueError, match="gamma"):
        sample_sequences(pair, 2, 2, 0, rng)
    with pytest.raises(ValueError, match="prev_token"):
        sample_round_bigram(pair, 6, 2, rng)
    with pytest.raises(ValueError, match="n_sequences"):
        sample_sequences(pair, 0, 2, 3, rng)


def test_perfect_draft_keeps_everything():
    pair = BigramPair(p=make_bigram_pair(seed=2).p, q=make_bigram_pair(seed=2).p)
    tokens, n_bar = sample_sequences(pair, 50, 3, 4, np.random.default_rng(0))
    assert n_bar == 5.0
