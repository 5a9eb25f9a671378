"""Unit tests for specdec.speedup_model: tokens per round, round cost, speedup, best gamma, inversion."""
import itertools
import math

import numpy as np
import pytest

import specdec.speedup_model as sm


def _n_bar_by_enumeration(alpha_per_position):
    """E[J+1] by listing every keep/reject pattern (independent of the library's formulas)."""
    g = len(alpha_per_position)
    total = 0.0
    for pattern in itertools.product([True, False], repeat=g):
        prob = math.prod(a if kept else 1 - a for a, kept in zip(alpha_per_position, pattern))
        j = next((i for i, kept in enumerate(pattern) if not kept), g)
        total += prob * (j + 1)
    return total


def test_survival_curve_scalar_and_array():
    assert np.allclose(sm.survival_curve(0.5, 3), [0.5, 0.25, 0.125])
    assert np.allclose(sm.survival_curve(np.array([0.9, 0.5, 0.2, 1.0]), 3), [0.9, 0.45, 0.09])
    assert sm.survival_curve(0.7, 0).shape == (0,)


@pytest.mark.parametrize("bad, gamma", [(1.2, 2), (-0.1, 2), (np.array([0.5, 0.5]), 3),
                                        (np.array([0.5, 1.5]), 2), (np.ones((2, 2)), 2), (0.5, -1), (0.5, 2.0)])
def test_survival_curve_rejects_bad_input(bad, gamma):
    with pytest.raises(ValueError):
        sm.survival_curve(bad, gamma)


def test_accepted_length_pmf_is_capped_geometric():
    for a, g in [(0.8, 4), (0.3, 1), (1.0, 3), (0.0, 2)]:
        pmf = sm.accepted_length_pmf(a, g)
        want = [a ** j * (1 - a) for j in range(g)] + [a ** g]
        assert np.allclose(pmf, want) and math.isclose(pmf.sum(), 1.0)


@pytest.mark.parametrize("alphas", [[0.8, 0.8], [0.9, 0.6, 0.3], [0.2, 0.95, 1.0, 0.5], [1.0, 0.0, 0.7]])
def test_survival_form_matches_enumeration(alphas):
    got = sm.tokens_per_round(np.array(alphas), len(alphas))
    assert math.isclose(got, _n_bar_by_enumeration(alphas), rel_tol=1e-12)


def test_iid_closed_form_matches_sum_and_edges():
    for a in (0.0, 0.1, 0.5, 0.8, 0.999):
        for g in range(0, 12):
            assert math.isclose(sm.expected_tokens_iid(a, g), sum(a ** i for i in range(g + 1)), rel_tol=1e-9)
    assert sm.expected_tokens_iid(1.0, 4) == 5.0
    assert math.isclose(sm.expected_tokens_iid(0.8, 2), 2.44)
    assert round(sm.expected_tokens_iid(0.8, 4), 2) == 3.36


def test_expected_tokens_from_survival_checks_input():
    assert math.isclose(sm.expected_tokens_from_survival([0.8, 0.64]), 2.44)
    with pytest.raises(ValueError):
        sm.expected_tokens_from_survival([0.5, 0.7])       # survivals cannot increase
    with pytest.raises(ValueError):
        sm.expected_tokens_from_survival([[0.5]])


def test_round_cost():
    assert math.isclose(sm.round_cost(4, 0.05), 1.2)
    assert math.isclose(sm.round_cost(4, 0.05, parallel=True), 1.05)
    assert math.isclose(sm.round_cost(4, 0.05, v=0.1), 1.6)
    assert math.isclose(sm.round_cost(4, 0.05, parallel=True, v=0.1), 1.45)
    with pytest.raises(ValueError):
        sm.round_cost(4, -0.1)


def test_textbook_speedups():
    assert round(sm.predicted_speedup(0.8, 4, 0.05), 2) == 2.80
    assert sm.optimal_gamma(0.8, 0.05, 30)[0] == 8 and round(sm.optimal_gamma(0.8, 0.05, 30)[1], 2) == 3.09
    assert sm.optimal_gamma(0.8, 0.2, 30)[0] == 4 and round(sm.optimal_gamma(0.8, 0.2, 30)[1], 2) == 1.87
    assert sm.optimal_gamma(0.6, 0.05, 30)[0] == 4 and round(sm.optimal_gamma(0.6, 0.05, 30)[1], 2) == 1.92
    assert round(sm.predicted_speedup(0.75, 7, 0.02), 2) == 3.16


def test_gamma_one_wins_iff_alpha_exceeds_c():
    for a in np.linspace(0, 1, 21):
        for c in np.linspace(0, 1, 21):
            assert (sm.predicted_speedup(a, 1, c) > 1 + 1e-12) == (a > c + 1e-12)


def test_optimal_gamma_ties_go_to_smallest():
    assert sm.optimal_gamma(1.0, 1.0, 10)[0] == 1                       # S = 1 for every gamma
    assert sm.optimal_gamma(np.array([0.5, 0.0, 0.9]), 0.0, 3)[0] == 1  # S = 1.5 for every gamma
    assert sm.optimal_gamma(1.0, 0.0, 7)[0] == 7
    with pytest.raises(ValueError):
        sm.optimal_gamma(0.8, 0.05, 0)


def test_ceiling_and_flop_factor():
    assert math.isclose(sm.free_draft_ceiling(0.8), 5.0)
    assert sm.free_draft_ceiling(1.0) == math.inf
    assert round(sm.flop_factor(0.8, 4, 0.05), 2) == 1.55
    assert round(sm.flop_factor(0.8, 8, 0.05), 2) == 2.17
    assert sm.flop_factor(1.0, 4, 0.0) == 1.0                           # nothing wasted


def test_alpha_from_speedup_inverts_and_reproduces_chinchilla():
    for a in (0.1, 0.5, 0.8, 0.97):
        s = sm.predicted_speedup(a, 4, 0.1)
        assert math.isclose(sm.alpha_from_speedup(s, 4, 0.1), a, abs_tol=1e-9)
    c = 1.8 / 14.1
    got = [round(sm.alpha_from_speedup(s, 4, c), 2) for s in (1.92, 2.01, 2.46)]
    assert got == [0.72, 0.75, 0.85]
    with pytest.raises(ValueError):
        sm.alpha_from_speedup(10.0, 4, 0.1)                             # above what alpha = 1 gives
