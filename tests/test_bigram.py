"""Tests of specdec.bigram: the toy target/draft tables and their exact quantities."""
import itertools

import numpy as np
import pytest

from specdec.bigram import (DEFAULT_GAMMA, BigramPair, acceptance_matrix, exact_joint,
                            make_bigram_pair, survival_probabilities)


def small_pair():
    p = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.3, 0.3, 0.4]])
    q = np.array([[0.2, 0.6, 0.2], [0.3, 0.3, 0.4], [0.3, 0.3, 0.4]])
    return BigramPair(p=p, q=q, start=1)


def test_make_bigram_pair_is_reproducible_and_valid():
    a, b = make_bigram_pair(seed=3), make_bigram_pair(seed=3)
    assert np.array_equal(a.p, b.p) and np.array_equal(a.q, b.q)
    assert not np.array_equal(a.p, make_bigram_pair(seed=4).p)
    assert a.V == 6 and a.start == 0 and a.p.shape == (6, 6)
    np.testing.assert_allclose(a.p.sum(axis=1), 1.0)
    np.testing.assert_allclose(a.q.sum(axis=1), 1.0)
    assert make_bigram_pair(seed=0, V=4).V == 4


def test_noise_controls_the_draft_quality():
    perfect = make_bigram_pair(seed=0, noise=0.0)
    np.testing.assert_allclose(perfect.q, perfect.p)
    alphas = [acceptance_matrix(make_bigram_pair(seed=0, noise=s))[0].sum() for s in (0.0, 0.3, 0.6, 1.2)]
    assert alphas[0] == pytest.approx(1.0)
    assert all(x > y for x, y in zip(alphas, alphas[1:])), alphas


def test_default_pair_is_in_the_course_regime():
    # Chapters 04 and 05 rely on: acceptance ~0.75-0.8, n_bar ~2.9-3.0 at gamma = 3,
    # and every bigram of the first two tokens expected >= 5 times in 3,000 sequences.
    pair = make_bigram_pair()
    a = survival_probabilities(pair, DEFAULT_GAMMA)
    assert DEFAULT_GAMMA == 3
    assert 0.75 <= a[0] <= 0.82
    assert 2.9 <= 1 + a.sum() <= 3.0
    assert exact_joint(pair.p, pair.start, 2).min() * 3000 >= 5


def test_pair_validation():
    good = np.full((3, 3), 1 / 3)
    with pytest.raises(ValueError, match="square"):
        BigramPair(p=np.full((2, 3), 1 / 3), q=np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match="sum to 1"):
        BigramPair(p=np.full((3, 3), 0.3), q=good)
    with pytest.raises(ValueError, match="same shape"):
        BigramPair(p=good, q=np.full((2, 2), 0.5))
    with pytest.raises(ValueError, match="start"):
        BigramPair(p=good, q=good, start=3)
    with pytest.raises(ValueError, match="V"):
        make_bigram_pair(V=1)
    with pytest.raises(ValueError, match="noise"):
        make_bigram_pair(noise=-1.0)


def test_pair_arrays_are_read_only_copies():
    p = np.full((2, 2), 0.5)
    pair = BigramPair(p=p, q=p)
    p[0, 0] = 0.9                       # the caller's array changes, the pair's does not
    assert pair.p[0, 0] == 0.5
    with pytest.raises(ValueError):
        pair.p[0, 0] = 0.1


def test_exact_joint_is_the_chain_rule():
    pair = small_pair()
    for n in (1, 2, 3):
        joint = exact_joint(pair.p, pair.start, n)
        assert joint.shape == (3,) * n
        assert joint.sum() == pytest.approx(1.0)
        for seq in itertools.product(range(3), repeat=n):
            want, prev = 1.0, pair.start
            for x in seq:
                want *= pair.p[prev, x]
                prev = x
            assert joint[seq] == pytest.approx(want)
    with pytest.raises(ValueError, match="n_tokens"):
        exact_joint(pair.p, 0, 0)
    with pytest.raises(ValueError, match="start"):
        exact_joint(pair.p, 5, 2)


def test_acceptance_matrix_rows_are_one_minus_tv():
    pair = small_pair()
    A = acceptance_matrix(pair)
    np.testing.assert_allclose(A, np.minimum(pair.p, pair.q))
    tv = 0.5 * np.abs(pair.p - pair.q).sum(axis=1)
    np.testing.assert_allclose(A.sum(axis=1), 1 - tv)
    with pytest.raises(ValueError, match="BigramPair"):
        acceptance_matrix(pair.p)


def test_survival_probabilities_match_path_enumeration():
    pair = small_pair()
    gamma = 3
    a = survival_probabilities(pair, gamma)
    assert a.shape == (gamma,)
    for i in range(1, gamma + 1):
        total = 0.0
        for path in itertools.product(range(3), repeat=i):   # keep drafts x_1..x_i
            prob, prev = 1.0, pair.start
            for x in path:
                prob *= min(pair.p[prev, x], pair.q[prev, x])
                prev = x
            total += prob
        assert a[i - 1] == pytest.approx(total)
    same = BigramPair(p=pair.p, q=pair.p)
    np.testing.assert_allclose(survival_probabilities(same, 4), 1.0)
    with pytest.raises(ValueError, match="gamma"):
        survival_probabilities(pair, 0)
