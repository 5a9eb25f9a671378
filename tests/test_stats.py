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


# --- the promise: an exact sampler fails with probability below P_FAIL, whatever the table -----

from autograder.stats import _tail_table  # noqa: E402  (the bound's table, to judge every outcome at once)


def _fails(statistics, expected):
    """For each statistic of a table, whether `chi_square` would fail it (vectorised `tail_bound`)."""
    h, tail = _tail_table(tuple(round(float(e), 9) for e in expected))
    index = np.minimum(np.ceil(np.asarray(statistics) / h), len(tail) - 1).astype(int)
    return tail[index] < P_FAIL


def _exact_failure_rate(n, probs, decide):
    """The exact probability that a table of n draws from `probs` (2 or 3 cells) fails `decide`."""
    probs = np.asarray(probs, float)
    e = n * probs
    if len(probs) == 2:
        counts = np.stack([np.arange(n + 1), n - np.arange(n + 1)], -1)
    else:
        a, b = np.triu_indices(n + 1)            # a <= b: counts (a, b - a, n - b)
        counts = np.stack([a, b - a, n - b], -1)
    pmf = scipy_stats.multinomial.pmf(counts, n, probs)
    statistics = ((counts - e) ** 2 / e).sum(-1)
    return float(pmf[decide(statistics, e)].sum())


# The shapes where the chi-square approximation breaks its promise most (a rare cell expecting
# 5 to 20 outcomes), in tables of 200 to 20,000 draws, and the balanced extreme.
SMALL_TABLES = [(200, [5, 195]), (200, [8, 192]), (200, [12, 188]), (200, [20, 180]), (2000, [5, 1995]),
                (20_000, [14.25, 19_985.75]), (20_000, [10_000, 10_000]), (200, [5, 6, 189]),
                (200, [10, 20, 170]), (150, [50, 50, 50])]


@pytest.mark.parametrize("n, expected", SMALL_TABLES)
def test_an_exact_sampler_fails_below_the_promise_on_small_tables(n, expected):
    probs = np.array(expected) / n
    rate = _exact_failure_rate(n, probs, _fails)
    assert rate < P_FAIL, f"{n} draws, expected counts {expected}: an exact sampler fails with probability {rate:.2e}"


def test_the_chi_square_approximation_alone_breaks_the_promise():
    # What the bound repairs: failing on the textbook p-value fails an exact sampler 51 times too often.
    textbook = lambda s, e: scipy_stats.chi2.sf(s, len(e) - 1) < P_FAIL
    rate = _exact_failure_rate(200, [5 / 200, 195 / 200], textbook)
    assert rate > 50 * P_FAIL, rate


def _chapter_like_law(cells, seed):
    """A law shaped like a round's emitted lists: a few likely outcomes, a long tail of rare ones."""
    rng = np.random.default_rng(seed)
    law = rng.dirichlet(np.full(cells, 0.3))
    return np.sort(law)[::-1]


@pytest.mark.slow
@pytest.mark.parametrize("n, cells, level", [(6_000, 31, 1e-3), (8_000, 250, 1e-3), (3_000, 60, 3e-4)])
def test_the_bound_is_conservative_on_chapter_sized_tables(n, cells, level):
    # Tables as the chapters draw them (thousands of rounds, tens to hundreds of outcomes, rare ones
    # pooled): too large to enumerate, so Monte Carlo at a level it can resolve. The bound must not
    # fail an exact sampler more often than its level (observed rate below level + 4 standard errors).
    law = _chapter_like_law(cells, seed=cells)
    rng = np.random.default_rng(0)
    draws, chunk = int(200 / level), 50_000             # about 200 failures at the level itself
    failed = 0
    for _ in range(draws // chunk):
        counts = rng.multinomial(n, law, size=chunk)
        results = [chi_square(dict(enumerate(row)), law) for row in counts[:1]]      # the pooled table
        keep = [int(label) for cell in results[0].cells for label in [cell.label] if label.isdigit()]
        pooled = [i for i in range(cells) if i not in keep]
        table = np.column_stack([counts[:, keep], counts[:, pooled].sum(1)]) if pooled else counts[:, keep]
        e = np.append(n * law[keep], n * law[pooled].sum()) if pooled else n * law[keep]
        statistic = ((table - e) ** 2 / e).sum(1)
        h, tail = _tail_table(tuple(round(float(v), 9) for v in e))
        bound = tail[np.minimum(np.ceil(statistic / h), len(tail) - 1).astype(int)]
        failed += int((bound < level).sum())
    rate = failed / draws
    print(f"{cells} outcomes, {n} draws: failure rate {rate:.2e} at level {level}")
    assert rate <= level + 4 * np.sqrt(level / draws), f"{cells} outcomes, {n} draws: rate {rate:.2e} at level {level}"
