"""Properties of specdec.adaptive: the greedy slot scheduler is optimal for convex step costs and
non-anticipating; trimming a draft by its own token breaks exactness."""
import itertools

import numpy as np
import pytest

from autograder.stats import chi_square, count_outcomes
from specdec.adaptive import (best_prefix_schedule, expected_tokens_per_second, greedy_slot_schedule,
                              is_prefix_schedule, roofline_step_time, sample_trimmed, survival_from_confidence,
                              trimmed_output_distribution)
from specdec.cost_model import StepCost


class RecordingRow:
    """A row of survivals that remembers which entries were read."""

    def __init__(self, values):
        self.values, self.read = list(values), set()

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        if isinstance(i, slice):
            idx = range(*i.indices(len(self.values)))
            self.read.update(idx)
            return [self.values[j] for j in idx]
        if i < 0:
            i += len(self.values)
        if not 0 <= i < len(self.values):
            raise IndexError(i)
        self.read.add(i)
        return self.values[i]


def _random_case(rng, convex=True):
    B = int(rng.integers(1, 4))
    rows = [list(survival_from_confidence(rng.uniform(0.2, 1.0, size=int(rng.integers(0, 4))))) for _ in range(B)]
    if convex:
        cost = StepCost(t_W=float(rng.uniform(0.5, 6)), t_K=float(rng.uniform(0, 0.3)), t_F=float(rng.uniform(0.2, 1.5)),
                        t_0=float(rng.uniform(0, 1)))
        return rows, roofline_step_time(cost, B)
    levels = np.cumsum(rng.uniform(0.0, 3.0, size=20)) + 1.0          # a staircase: not convex
    width = int(rng.integers(2, 5))
    return rows, (lambda n: float(levels[(n - 1) // width]))


def _brute_force(rows, step):
    best, best_rate = None, -1.0
    for lengths in itertools.product(*[range(len(r) + 1) for r in rows]):
        rate = expected_tokens_per_second(rows, list(lengths), step)
        if rate > best_rate * (1 + 1e-12) or (abs(rate - best_rate) <= 1e-12 * best_rate and sum(lengths) < sum(best)):
            best, best_rate = list(lengths), rate
    return best, best_rate


def test_greedy_is_optimal_for_convex_costs():
    rng = np.random.default_rng(0)
    for _ in range(400):
        rows, step = _random_case(rng)
        got = greedy_slot_schedule(rows, step)
        want, rate = _brute_force(rows, step)
        assert is_prefix_schedule(got, rows)
        assert expected_tokens_per_second(rows, got, step) == pytest.approx(rate, rel=1e-12)
        assert sum(got) == sum(want)
        assert best_prefix_schedule(rows, step) == got


def test_try_every_b_is_optimal_for_any_cost_but_greedy_may_stop_early():
    rng = np.random.default_rng(1)
    early = 0
    for _ in range(400):
        rows, step = _random_case(rng, convex=False)
        _, rate = _brute_force(rows, step)
        assert expected_tokens_per_second(rows, best_prefix_schedule(rows, step), step) == pytest.approx(rate, rel=1e-12)
        early += expected_tokens_per_second(rows, greedy_slot_schedule(rows, step), step) < rate * (1 - 1e-9)
    assert early > 0, "a staircase cost should make the greedy rule miss the optimum sometimes"


def test_greedy_reads_no_survival_past_the_first_refused_slot():
    rng = np.random.default_rng(2)
    for convex in (True, False):
        for _ in range(300):
            rows, step = _random_case(rng, convex)
            rec = [RecordingRow(r) for r in rows]
            lengths = greedy_slot_schedule(rec, step)
            for row, l in zip(rec, lengths):
                assert not row.read or max(row.read) <= l
            rec = [RecordingRow(r) for r in rows]
            lengths = best_prefix_schedule(rec, step)
            if any(len(r) > l + 1 for r, l in zip(rows, lengths)):
                assert any(row.read and max(row.read) > l for row, l in zip(rec, lengths)), \
                    "trying every b reads every survival"


def test_loads_of_the_chapter():
    cost = StepCost(t_W=4.794e-3, t_K=2.0e-5, t_F=1.65e-5)
    rng = np.random.default_rng(3)
    a = survival_from_confidence(rng.beta(7, 3, size=(256, 7)))
    lengths = greedy_slot_schedule(a.tolist(), roofline_step_time(cost, 256))
    tokens = 256 + sum(lengths)
    assert abs(tokens * cost.t_F - (cost.t_W + 256 * cost.t_K)) < 2 * cost.t_F, "stops at the ridge"


def test_trimming_breaks_exactness():
    p, q = [0.5, 0.3, 0.2], [0.2, 0.6, 0.2]
    assert np.allclose(trimmed_output_distribution(p, q, [True, False, True]), [0.5, 0.18, 0.32])
    assert np.allclose(trimmed_output_distribution(p, q, [True] * 3), p)
    assert np.allclose(trimmed_output_distribution(p, q, [False] * 3), p)
    rng = np.random.default_rng(4)
    for verify in ([True, False, True], [True, True, True], [False, True, False]):
        samples = sample_trimmed(p, q, verify, 40_000, rng)
        exact = trimmed_output_distribution(p, q, verify)
        assert chi_square(count_outcomes(samples), dict(enumerate(exact))).p_value > 1e-6
    rng = np.random.default_rng(5)
    for _ in range(50):
        p, q = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        assert np.allclose(trimmed_output_distribution(p, q, [True] * 4), p)


def test_validation():
    with pytest.raises(ValueError):
        survival_from_confidence([1.2])
    with pytest.raises(ValueError):
        greedy_slot_schedule([], lambda n: 1.0)
    with pytest.raises(ValueError):
        roofline_step_time(StepCost(1.0, 0.0, 1.0), 2)(1)
