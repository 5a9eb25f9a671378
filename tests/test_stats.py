"""The chi-square helpers: correctness against scipy, pooling, messages, and power.

Power is what makes the sampling exercises' tests worth anything: at the sample sizes
the chapters use, an exact sampler must pass (fail with probability < 1e-6) and a
sampler that is off by a few percent in total variation must fail with p < 1e-12.
"""
import numpy as np
import pytest
from scipy import stats as scipy_stats

from autograder.stats import (P_FAIL, assert_distribution, chi_square, count_outcomes,
                              empirical_tv, total_variation)


def test_matches_scipy_without_pooling():
    observed = {0: 30, 1: 50, 2: 20}
    p = [0.25, 0.5, 0.25]
    r = chi_square(observed, p)
    ref = scipy_stats.chisquare([30, 50, 20], [25, 50, 25])
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.p_value == pytest.approx(ref.pvalue)
    assert r.dof == 2 and r.n == 100


def test_rare_cells_are_pooled_until_the_pool_is_big_enough():
    p = {"a": 0.5, "b": 0.47, "c": 0.01, "d": 0.01, "e": 0.01}
    observed = {"a": 52, "b": 45, "c": 1, "d": 2}          # n = 100: c, d, e expect 1 each
    r = chi_square(observed, p)
    assert set(r.pooled) >= {"c", "d", "e"}
    # Pool of 3 expected counts (< 5) must absorb the smallest remaining cell.
    assert all(cell.expected >= 5 for cell in r.cells)
    assert r.dof == len(r.cells) - 1 == 1


def test_missing_outcomes_count_as_zero_and_impossible_ones_are_reported():
    r = chi_square({0: 100}, [0.5, 0.5])
    assert r.statistic == pytest.approx(100.0) and not r.passed
    r = chi_square({0: 50, 1: 49, 7: 1}, [0.5, 0.5])
    assert r.impossible == (("7", 1),) and not r.passed


@pytest.mark.parametrize("bad", [[0.5, 0.6], [1.2, -0.2], [np.nan, 1.0], [[0.5, 0.5]]])
def test_bad_probability_tables_are_refused(bad):
    with pytest.raises(ValueError):
        chi_square({0: 1, 1: 1}, bad)


def test_count_outcomes_turns_sequences_into_tuples():
    counts = count_outcomes([np.array([1, 2]), [1, 2], (np.int64(1), 2), 3, np.int32(3)])
    assert counts == {(1, 2): 3, 3: 2}


def test_total_variation_rows_and_shape_check():
    p = np.array([[0.5, 0.3, 0.2], [1.0, 0.0, 0.0]])
    q = np.array([[0.2, 0.6, 0.2], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(total_variation(p, q), [0.3, 1.0])
    with pytest.raises(ValueError):
        total_variation(p, q[:, :2])
    assert empirical_tv({0: 5, 1: 5}, [0.5, 0.5]) == 0.0


def test_failure_message_shows_the_worst_cells_and_the_hint():
    with pytest.raises(AssertionError) as err:
        assert_distribution([0] * 900 + [1] * 100, [0.5, 0.5], what="the extra token", hint="check the residual")
    text = str(err.value)
    assert "the extra token does not follow the exact distribution" in text
    assert "observed" in text and "expected" in text and "check the residual" in text
    assert "900" in text and "500.0" in text


def test_impossible_outcome_message():
    with pytest.raises(AssertionError, match="probability 0"):
        assert_distribution([0, 1, 2], [0.5, 0.5, 0.0])


# --- power ---------------------------------------------------------------------------

P6 = np.array([0.30, 0.22, 0.18, 0.15, 0.10, 0.05])


def _biased(p, tv):
    """Move `tv` of mass from the largest to the smallest entry: a bug of size `tv`."""
    out = p.copy()
    out[np.argmax(p)] -= tv
    out[np.argmin(p)] += tv
    return out


@pytest.mark.parametrize("seed", range(20))
def test_exact_sampler_passes(seed):
    rng = np.random.default_rng(seed)
    r = chi_square(count_outcomes(rng.choice(6, size=20_000, p=P6)), P6)
    assert r.p_value > P_FAIL, r.summary()


def test_p_values_of_an_exact_sampler_are_uniform():
    # If the statistic is computed right, P(p < 0.1) = 0.1; 400 runs put the count
    # within 40 ± 6; a bound of [15, 70] fails only for a broken p-value.
    rng = np.random.default_rng(123)
    small = sum(chi_square(count_outcomes(rng.choice(6, size=2_000, p=P6)), P6).p_value < 0.1
                for _ in range(400))
    assert 15 <= small <= 70, small


@pytest.mark.parametrize("tv", [0.02, 0.05])
def test_a_biased_sampler_fails_hard(tv):
    # At n = 20,000, a TV error of 0.02 gives an expected statistic of about 100 on 5 dof.
    rng = np.random.default_rng(7)
    r = chi_square(count_outcomes(rng.choice(6, size=20_000, p=_biased(P6, tv))), P6)
    assert r.p_value < 1e-12, r.summary()
