"""Tests of specdec.block_verification: exact, never worse than token-by-token on average, and sampled right."""
import numpy as np
import pytest

from autograder.recording_rng import RecordingGenerator
from autograder.stats import assert_distribution
from specdec.bigram import exact_joint, make_bigram_pair
from specdec.block_verification import block_round_law, block_verify, expected_kept
from specdec.speculative import sample_sequences


def _stream_joint(pair, gamma, n_tokens):
    """Exact joint of the first n_tokens of rounds of block verification on a bigram pair."""
    V, cache = pair.V, {}

    def one_round(s):
        if s not in cache:
            law = {}
            for block in np.ndindex(*(V,) * gamma):
                context = [s, *block]
                weight = np.prod([pair.q[context[i], block[i]] for i in range(gamma)])
                if weight == 0:
                    continue
                for out, prob in block_round_law(pair.p[context], pair.q[context[:-1]], list(block)).items():
                    law[out] = law.get(out, 0.0) + weight * prob
            cache[s] = law
        return cache[s]

    def joint_after(s, n):
        joint = np.zeros((V,) * n)
        for out, prob in one_round(s).items():
            if len(out) >= n:
                joint[out[:n]] += prob
            else:
                joint[out] += prob * joint_after(out[-1], n - len(out))
        return joint

    return joint_after(pair.start, n_tokens)


def _mean_kept(pair, gamma, rule):
    """E[kept drafts] of a round after pair.start, averaged over draft blocks sampled from q."""
    total = 0.0
    for block in np.ndindex(*(pair.V,) * gamma):
        context = [pair.start, *block]
        weight = np.prod([pair.q[context[i], block[i]] for i in range(gamma)])
        if weight > 0:
            total += weight * expected_kept(pair.p[context], pair.q[context[:-1]], list(block), rule=rule)
    return total


@pytest.mark.parametrize("seed, gamma", [(0, 2), (0, 3), (3, 3)])
def test_the_stream_is_exactly_the_target(seed, gamma):
    pair = make_bigram_pair(seed=seed, noise=1.0)
    for n in (1, 2):
        gap = np.abs(_stream_joint(pair, gamma, n) - exact_joint(pair.p, pair.start, n)).max()
        assert gap < 1e-12, f"seed {seed}, gamma {gamma}, first {n} tokens: off the target by {gap:.1e}"


def test_gamma_one_is_the_token_rule():
    p = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]])
    q = np.array([[0.2, 0.6, 0.2]])
    law = block_round_law(p, q, [1])
    keep = 0.3 / 0.6
    assert law[(1, 1)] == pytest.approx(keep * 0.6)                # kept, then the bonus row
    assert law[(0,)] == pytest.approx(1 - keep)                     # the residual is all on token 0


def test_never_worse_than_token_by_token_on_average():
    gains = []
    for seed in range(4):
        pair = make_bigram_pair(seed=seed, noise=1.0)
        block, token = _mean_kept(pair, 3, "block"), _mean_kept(pair, 3, "token")
        assert block >= token - 1e-12, f"seed {seed}: block {block:.4f} kept drafts < token-by-token {token:.4f}"
        gains.append(block - token)
    assert max(gains) > 0.05, f"block verification should gain somewhere, gains {gains}"


def test_samples_follow_the_target():
    pair = make_bigram_pair(seed=0, noise=1.0)
    tokens, _ = sample_sequences(pair, 4000, 2, 3, np.random.default_rng(7), verify=block_verify)
    joint = exact_joint(pair.p, pair.start, 2)
    assert_distribution([tuple(t) for t in tokens], {(a, b): joint[a, b] for a, b in np.ndindex(joint.shape)},
                        what="block verification, first two tokens of 4,000 bigram sequences")


def test_a_token_residual_breaks_it(monkeypatch):
    """The exact check has power: block acceptance with the token rule's residual is off the target."""
    import specdec.block_verification as bv

    original = bv._block_residual
    monkeypatch.setattr(bv, "_block_residual", lambda p, q, w, tau: original(p, q, np.ones_like(w), tau))
    pair = make_bigram_pair(seed=0, noise=1.0)
    gap = np.abs(_stream_joint(pair, 3, 2) - exact_joint(pair.p, pair.start, 2)).max()
    assert gap > 1e-3, f"the broken residual should move the joint, moved it by {gap:.1e}"


def test_protocol_and_bad_input():
    P = np.array([[0.6, 0.4], [0.2, 0.8], [0.5, 0.5]])
    Q = np.array([[0.4, 0.6], [0.5, 0.5]])
    rng = RecordingGenerator(0, uniforms=[0.99, 0.0])              # prefix 1 fails, prefix 2 passes (h_2 = 1)
    out = block_verify(P, Q, [1, 1], rng)
    assert out[:2] == [1, 1] and rng.names() == ["random", "random", "choice"]
    with pytest.raises(ValueError):
        block_verify(P, Q[:1], [1, 1], np.random.default_rng(0))


def test_the_proofs_steps_hold():
    """Chapter 04's proof: given a drafted prefix x of length i < gamma, the round keeps exactly i drafts
    with probability rho_i and at least i with probability w_i."""
    pair, gamma = make_bigram_pair(seed=1, noise=1.0, V=4), 3
    for i in range(gamma):
        for prefix in np.ndindex(*(pair.V,) * i):
            context = [pair.start, *prefix]
            if np.prod([pair.q[context[k], prefix[k]] for k in range(i)]) == 0:
                continue
            w = 1.0
            for k in range(i):
                w = min(1.0, w * pair.p[context[k], prefix[k]] / pair.q[context[k], prefix[k]])
            rho = np.maximum(w * pair.p[context[-1]] - pair.q[context[-1]], 0.0).sum()
            exactly = at_least = 0.0
            for rest in np.ndindex(*(pair.V,) * (gamma - i)):
                block = [*prefix, *rest]
                full = [pair.start, *block]
                weight = np.prod([pair.q[full[k], block[k]] for k in range(i, gamma)])
                if weight == 0:
                    continue
                law = block_round_law(pair.p[full], pair.q[full[:-1]], block)
                exactly += weight * sum(v for key, v in law.items() if len(key) == i + 1)
                at_least += weight * sum(v for key, v in law.items() if len(key) >= i + 1)
            assert exactly == pytest.approx(rho, abs=1e-12), (prefix, exactly, rho)
            assert at_least == pytest.approx(w, abs=1e-12), (prefix, at_least, w)
