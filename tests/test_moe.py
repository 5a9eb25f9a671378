"""Properties of specdec.moe: the expected number of experts a pass touches."""
import numpy as np
import pytest

from specdec.moe import experts_touched, simulate_experts_touched, verification_expert_ratio


def test_limits_and_monotonicity():
    n = np.arange(0, 500)
    t = experts_touched(256, 8, n)
    assert t[0] == 0 and t[1] == pytest.approx(8) and np.all(np.diff(t) > 0) and t[-1] < 256
    assert experts_touched(256, 8, 10_000) == pytest.approx(256)
    assert np.all(t <= np.minimum(256, 8 * n) + 1e-9)


def test_exact_for_small_cases_by_enumeration():
    # E = 4, k = 2, n = 2: each token picks one of 6 pairs; count distinct experts over all 36 choices
    import itertools
    pairs = list(itertools.combinations(range(4), 2))
    mean = np.mean([len(set(a) | set(b)) for a in pairs for b in pairs])
    assert experts_touched(4, 2, 2) == pytest.approx(mean)


def test_simulation_agrees():
    rng = np.random.default_rng(1)
    for n in (1, 4, 64):
        counts = simulate_experts_touched(256, 8, n, 400, rng)
        se = counts.std(ddof=1) / np.sqrt(len(counts)) + 1e-9
        assert abs(counts.mean() - experts_touched(256, 8, n)) < 5 * se + 1e-9


def test_ratio_falls_with_batch():
    r = verification_expert_ratio(256, 8, np.array([1, 4, 16, 64, 256]), 3)
    assert np.all(np.diff(r) < 0) and r[0] == pytest.approx(30.52 / 8, rel=1e-3) and r[-1] < 1.01


def test_validation():
    with pytest.raises(ValueError):
        experts_touched(8, 9, 1)
    with pytest.raises(ValueError):
        experts_touched(8, 2, -1)
