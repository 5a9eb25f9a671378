"""specdec.wrong_verifiers: each broken rule differs from the correct one exactly where it says.

The same scripted uniforms drive the correct verifier and each broken one; the recorded calls and
outputs show the one changed line, and chapter 04's measured verdicts (exact or not) hold by
distribution."""
import numpy as np

from autograder.recording_rng import RecordingGenerator
from autograder.stats import assert_distribution, chi_square, count_outcomes
from specdec.bigram import exact_joint, make_bigram_pair
from specdec.speculative import sample_sequences, verify_round
from specdec.wrong_verifiers import verify_argmax, verify_keep_drafts, verify_no_bonus, verify_resample_p

P = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3], [0.1, 0.1, 0.8]])   # (gamma + 1, V), gamma = 2
Q = np.array([[0.4, 0.3, 0.3], [0.2, 0.5, 0.3]])                    # (gamma, V)


def _run(verify, uniforms, drafts=(0, 1)):
    rng = RecordingGenerator(3, uniforms=uniforms)
    out = verify(P, Q, list(drafts), rng)
    return out, rng


def test_resample_p_draws_the_replacement_from_p():
    out, rng = _run(verify_resample_p, [0.99])
    assert rng.names() == ["random", "choice"] and np.allclose(rng.calls[-1].kwargs["p"], P[0])
    right, rng_right = _run(verify_round, [0.99])
    assert not np.allclose(rng_right.calls[-1].kwargs["p"], P[0])


def test_keep_drafts_emits_the_stale_drafts_after_a_rejection():
    out, rng = _run(verify_keep_drafts, [0.99])
    assert len(out) == 2 and out[1] == 1 and rng.names() == ["random", "choice"]


def test_argmax_draws_no_uniform():
    out, rng = _run(verify_argmax, [], drafts=(1, 0))     # 1 and 0 are the argmax of rows 0 and 1
    assert out[:2] == [1, 0] and rng.names() == ["choice"] and np.allclose(rng.calls[-1].kwargs["p"], P[2])


def test_no_bonus_stops_after_the_kept_drafts_and_stays_exact():
    out, rng = _run(verify_no_bonus, [0.0, 0.0])
    assert out == [0, 1] and rng.names() == ["random", "random"]
    pair = make_bigram_pair(seed=0)
    joint = exact_joint(pair.p, pair.start, 2)
    expected = {(a, b): joint[a, b] for a in range(pair.V) for b in range(pair.V)}
    tokens, _ = sample_sequences(pair, 3000, 2, 3, np.random.default_rng(7), verify=verify_no_bonus)
    assert_distribution([tuple(t) for t in tokens], expected, what="no-bonus rounds, 3,000 sequences")
    for broken in (verify_resample_p, verify_keep_drafts, verify_argmax):
        tokens, _ = sample_sequences(pair, 3000, 2, 3, np.random.default_rng(7), verify=broken)
        result = chi_square(count_outcomes([tuple(t) for t in tokens]), expected)
        assert result.p_value < 1e-6, f"{broken.__name__} should be detectably wrong, got {result.summary()}"
