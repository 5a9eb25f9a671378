"""Unit tests for specdec.distributions (validation, tempered softmax, residual, alpha, top-p, KL)."""
import numpy as np
import pytest

from specdec.distributions import (acceptance_probability, kl_divergence, nucleus, residual, softmax,
                                   validate_distribution)

P = np.array([0.5, 0.3, 0.2])   # the chapter 03 running example: target
Q = np.array([0.2, 0.6, 0.2])   # draft


# ---------------------------------------------------------------- validate_distribution
def test_validate_accepts_rows_and_returns_float_array():
    out = validate_distribution([[1, 0], [0.25, 0.75]])
    assert out.dtype == float and out.shape == (2, 2)


@pytest.mark.parametrize("bad, message", [
    (np.array(0.5), "scalar"),
    (np.array([0.5, np.nan, 0.5]), "NaN"),
    (np.array([1.2, -0.2]), "negative"),
    (np.array([0.5, 0.4]), "sum to 1"),
    (np.array([[0.5, 0.5], [0.9, 0.2]]), "sum to 1"),
])
def test_validate_rejects_bad_tables(bad, message):
    with pytest.raises(ValueError, match=message):
        validate_distribution(bad)


# ---------------------------------------------------------------- softmax
def test_softmax_rows_sum_to_one_and_keep_shape():
    z = np.random.default_rng(0).normal(size=(2, 3, 7))
    out = softmax(z, tau=0.7)
    assert out.shape == z.shape
    np.testing.assert_allclose(out.sum(axis=-1), 1.0)


def test_softmax_matches_definition_and_temperature():
    z = np.array([1.0, 2.0, -0.5])
    for tau in (0.5, 1.0, 3.0):
        e = np.exp(z / tau)
        np.testing.assert_allclose(softmax(z, tau), e / e.sum())


def test_softmax_is_shift_invariant_and_stable_at_large_logits():
    z = np.array([1000.0, 999.0, 990.0])
    out = softmax(z)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, softmax(z - 1000.0))


def test_softmax_tau_zero_is_one_hot_with_lowest_index_on_ties():
    out = softmax(np.array([[1.0, 5.0, 5.0], [3.0, 3.0, 0.0]]), tau=0)
    np.testing.assert_array_equal(out, [[0, 1, 0], [1, 0, 0]])


def test_softmax_large_tau_tends_to_uniform():
    out = softmax(np.array([4.0, -2.0, 0.0, 1.0]), tau=1e6)
    np.testing.assert_allclose(out, 0.25, atol=1e-5)


@pytest.mark.parametrize("logits, tau", [(np.array(1.0), 1.0), (np.array([1.0, np.inf]), 1.0),
                                         (np.array([1.0, 2.0]), -0.1)])
def test_softmax_rejects_bad_input(logits, tau):
    with pytest.raises(ValueError):
        softmax(logits, tau)


# ---------------------------------------------------------------- residual
def test_residual_running_example_and_sky_example():
    np.testing.assert_allclose(residual(P, Q), [1.0, 0.0, 0.0])
    sky = residual(np.array([0.5, 0.2, 0.3]), np.array([0.3, 0.5, 0.2]))
    np.testing.assert_allclose(sky, [2 / 3, 0.0, 1 / 3])


def test_residual_when_p_equals_q_returns_p_and_works_on_batches():
    batch_p = np.stack([P, P])
    batch_q = np.stack([Q, P])
    out = residual(batch_p, batch_q)
    np.testing.assert_allclose(out, [[1, 0, 0], P])


def test_residual_makes_the_rule_exact():
    rng = np.random.default_rng(1)
    p, q = rng.dirichlet(np.ones(6), size=(2, 50))
    alpha = np.minimum(p, q).sum(axis=-1, keepdims=True)
    out = np.minimum(p, q) + (1 - alpha) * residual(p, q)
    np.testing.assert_allclose(out, p, atol=1e-12)


def test_residual_shape_mismatch():
    with pytest.raises(ValueError, match="same shape"):
        residual(P, Q[:2])


# ---------------------------------------------------------------- acceptance_probability
def test_acceptance_probability_examples():
    assert acceptance_probability(P, Q) == pytest.approx(0.7)
    assert acceptance_probability(P, P) == pytest.approx(1.0)
    assert acceptance_probability(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == 0.0


def test_acceptance_probability_is_one_minus_tv_per_row():
    rng = np.random.default_rng(2)
    p, q = rng.dirichlet(np.ones(5), size=(2, 3, 4))
    got = acceptance_probability(p, q)
    assert got.shape == (3, 4)
    np.testing.assert_allclose(got, 1 - 0.5 * np.abs(p - q).sum(axis=-1))


def test_acceptance_probability_shape_mismatch():
    with pytest.raises(ValueError, match="same shape"):
        acceptance_probability(P, np.stack([Q, Q]))


# ---------------------------------------------------------------- nucleus
def test_nucleus_keeps_smallest_prefix_reaching_top_p():
    np.testing.assert_allclose(nucleus(P, 0.7), [0.625, 0.375, 0.0])
    np.testing.assert_allclose(nucleus(P, 0.8), [0.625, 0.375, 0.0])
    np.testing.assert_allclose(nucleus(P, 0.81), P)
    np.testing.assert_allclose(nucleus(P, 0.5), [1.0, 0.0, 0.0])
    np.testing.assert_allclose(nucleus(P, 1.0), P)


def test_nucleus_ties_and_batches():
    out = nucleus(np.array([[0.4, 0.4, 0.2], [0.2, 0.4, 0.4]]), 0.4)
    np.testing.assert_allclose(out, [[1, 0, 0], [0, 1, 0]])


@pytest.mark.parametrize("top_p", [0.0, -0.5, 1.5])
def test_nucleus_rejects_bad_top_p(top_p):
    with pytest.raises(ValueError, match="top_p"):
        nucleus(P, top_p)


def test_nucleus_rejects_non_distribution():
    with pytest.raises(ValueError):
        nucleus(np.array([0.5, 0.6]), 0.9)


# ---------------------------------------------------------------- kl_divergence
def test_kl_values_zero_and_infinity():
    assert kl_divergence(P, P) == 0.0
    want = 0.5 * np.log(0.5 / 0.2) + 0.3 * np.log(0.3 / 0.6)
    assert kl_divergence(P, Q) == pytest.approx(want)
    assert kl_divergence(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == np.inf
    assert kl_divergence(np.array([1.0, 0.0]), np.array([0.5, 0.5])) == pytest.approx(np.log(2))


def test_kl_rows_nonnegative_and_pinsker():
    rng = np.random.default_rng(3)
    p, q = rng.dirichlet(0.5 * np.ones(8), size=(2, 400))
    kl = kl_divergence(p, q)
    assert kl.shape == (400,)
    assert np.all(kl >= 0)
    tv = 0.5 * np.abs(p - q).sum(axis=-1)
    assert np.all(tv <= np.sqrt(kl / 2) + 1e-12)


def test_kl_checks_input():
    with pytest.raises(ValueError, match="same shape"):
        kl_divergence(P, np.array([0.5, 0.5]))
    with pytest.raises(ValueError):
        kl_divergence(P, np.array([0.5, 0.6, -0.1]))
