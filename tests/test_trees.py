"""Properties of specdec.trees and specdec.tree_sampling: the mask sees exactly the branch,
positions follow depth, the greedy walk emits the target's own greedy text, and recursive
rejection (with or without replacement) emits exactly p."""
import numpy as np
import pytest

from autograder.recording_rng import RecordingGenerator
from autograder.stats import assert_distribution, chi_square, count_outcomes
from specdec.tree_sampling import (node_residuals, recursive_acceptance, recursive_rejection,
                                   recursive_rejection_law, sample_without_replacement,
                                   without_replacement_acceptance)
from specdec.trees import (ancestors, children, depths, greedy_tree_walk, tree_attention_mask,
                           validate_parents)

P_EX = np.array([0.40, 0.25, 0.20, 0.10, 0.05])
Q_EX = np.array([0.10, 0.50, 0.05, 0.20, 0.15])


def random_parents(rng, n):
    return [-1] + [int(rng.integers(-1, i)) for i in range(1, n)]


def test_example_tree():
    mask, pos = tree_attention_mask([-1, -1, 0, 0, 1, 2], 2)
    block = np.array([[1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0],
                      [1, 0, 0, 1, 0, 0], [0, 1, 0, 0, 1, 0], [1, 0, 1, 0, 0, 1]], dtype=bool)
    assert mask.dtype == bool and mask.shape == (6, 8) and pos.dtype == np.int64
    assert np.array_equal(mask[:, 2:], block) and mask[:, :2].all()
    assert pos.tolist() == [2, 2, 3, 3, 3, 4]
    assert depths([-1, -1, 0, 0, 1, 2]).tolist() == [0, 0, 1, 1, 1, 2]
    assert children([-1, -1, 0, 0, 1, 2], -1) == [0, 1] and children([-1, -1, 0, 0, 1, 2], 0) == [2, 3]


@pytest.mark.parametrize("P", [0, 1, 5])
def test_chain_is_causal(P):
    n = 7
    mask, pos = tree_attention_mask(list(range(-1, n - 1)), P)
    assert np.array_equal(mask, np.tril(np.ones((n, P + n), dtype=bool), k=P))
    assert pos.tolist() == list(range(P, P + n))


def test_star_sees_only_itself():
    mask, pos = tree_attention_mask([-1] * 5, 3)
    assert np.array_equal(mask[:, 3:], np.eye(5, dtype=bool)) and (pos == 3).all()


def test_random_trees_mask_is_the_branch():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n, P = int(rng.integers(1, 15)), int(rng.integers(0, 6))
        parents = random_parents(rng, n)
        mask, pos = tree_attention_mask(parents, P)
        d = depths(parents)
        for i in range(n):
            branch = set(ancestors(parents, i)) | {i}
            assert set(np.flatnonzero(mask[i, P:]).tolist()) == branch
            assert pos[i] == P + len(branch) - 1 == P + d[i]
        # a node never sees a later node, nor anything that is not its ancestor (siblings included)
        assert not np.triu(mask[:, P:], k=1).any()


def test_mask_makes_tree_attention_equal_branch_attention():
    """Attention of node i under the tree mask equals attention of its branch run as a chain."""
    rng = np.random.default_rng(1)
    parents = random_parents(rng, 9)
    P, dim = 3, 4
    keys = rng.normal(size=(P + 9, dim))                   # (P + n, dim)
    values = rng.normal(size=(P + 9, dim))
    queries = rng.normal(size=(9, dim))
    mask, _ = tree_attention_mask(parents, P)
    scores = np.where(mask, queries @ keys.T, -np.inf)     # (n, P + n)
    weights = np.exp(scores - scores.max(1, keepdims=True))
    out_tree = (weights / weights.sum(1, keepdims=True)) @ values
    for i in range(9):
        branch = list(range(P)) + [P + j for j in sorted(ancestors(parents, i) + [i])]
        s = keys[branch] @ queries[i]
        w = np.exp(s - s.max())
        assert np.allclose(out_tree[i], (w / w.sum()) @ values[branch])


@pytest.mark.parametrize("bad", [[0], [-1, 1], [-1, 2, 0], [-1, -2], [[-1, 0]], [-1, 0.5], [True, False]])
def test_invalid_parents_raise(bad):
    with pytest.raises(ValueError):
        tree_attention_mask(bad, 2)
    with pytest.raises(ValueError):
        validate_parents(bad)


def test_bad_prefix_len_and_empty_tree():
    with pytest.raises(ValueError):
        tree_attention_mask([-1], -1)
    mask, pos = tree_attention_mask([], 3)
    assert mask.shape == (0, 3) and pos.shape == (0,)


def test_greedy_walk_emits_the_targets_greedy_text():
    rng = np.random.default_rng(2)
    V = 4
    table = rng.integers(0, V, size=(V, V))              # a deterministic target: next = table[prev2, prev1]

    def target(context):
        return int(table[context[-2], context[-1]])

    for _ in range(300):
        n = int(rng.integers(1, 12))
        parents = random_parents(rng, n)
        tokens = [int(t) for t in rng.integers(0, V, size=n)]
        prefix = [int(t) for t in rng.integers(0, V, size=2)]
        branch = lambda i: [tokens[j] for j in sorted(ancestors(parents, i) + [i])]  # noqa: E731
        target_next = [target(prefix)] + [target(prefix + branch(i)) for i in range(n)]
        path, emitted = greedy_tree_walk(tokens, parents, target_next)
        want, context = [], list(prefix)
        for _ in range(len(emitted)):
            want.append(target(context))
            context.append(want[-1])
        assert emitted == want                               # exactly the target's own greedy text
        assert [tokens[i] for i in path] == emitted[:-1]
        assert all(parents[b] == a for a, b in zip([-1] + path, path))
        last = path[-1] if path else -1
        assert all(tokens[c] != emitted[-1] for c in children(parents, last))   # the walk stopped for a reason


def test_greedy_walk_first_matching_child_and_checks():
    assert greedy_tree_walk(["a", "a"], [-1, -1], ["a", "x", "y"]) == ([0], ["a", "x"])
    assert greedy_tree_walk([], [], ["z"]) == ([], ["z"])
    with pytest.raises(ValueError):
        greedy_tree_walk(["a"], [-1], ["a"])


def test_recursive_law_marginal_is_p_and_acceptance_matches():
    rng = np.random.default_rng(3)
    for _ in range(100):
        V = int(rng.integers(2, 7))
        p, q = rng.dirichlet(np.ones(V) * 0.6), rng.dirichlet(np.ones(V) * 0.6)
        for k in (0, 1, 2, 5):
            law = recursive_rejection_law(p, q, k)
            marginal = np.zeros(V)
            for (_, x), pr in law.items():
                marginal[x] += pr
            assert np.allclose(marginal, p, atol=1e-12)
            kept = sum(pr for (i, _), pr in law.items() if i >= 0)
            assert kept == pytest.approx(recursive_acceptance(p, q, k), abs=1e-12)


def test_example_numbers():
    got = [recursive_acceptance(P_EX, Q_EX, k) for k in (1, 2, 4, 8)]
    assert round(got[0], 2) == 0.55 and round(got[-1], 2) == 0.86 and np.all(np.diff(got) > 0)
    R, a = node_residuals(P_EX, Q_EX, 3)
    assert np.allclose(R.sum(1), 1) and a[0] == pytest.approx(0.55)
    assert without_replacement_acceptance(P_EX, Q_EX, 2) > recursive_acceptance(P_EX, Q_EX, 2)


def test_recursive_rejection_distribution_and_protocol():
    rng = np.random.default_rng(4)
    k, samples = 3, []
    for _ in range(20_000):
        kids = rng.choice(5, size=k, p=Q_EX)
        token, which = recursive_rejection(P_EX, Q_EX, kids, rng)
        samples.append((which, token))
    assert_distribution(samples, recursive_rejection_law(P_EX, Q_EX, k))
    rec = RecordingGenerator(0, uniforms=[0.99, 0.99])
    token, which = recursive_rejection(P_EX, Q_EX, [1, 1], rec)
    assert rec.names() == ["random", "random", "choice"] and which == -1
    R, _ = node_residuals(P_EX, Q_EX, 2)
    assert np.allclose(rec.calls[-1].kwargs["p"], R[2])


def test_without_replacement_is_exact():
    rng = np.random.default_rng(5)
    for k in (2, 4):
        out = [sample_without_replacement(P_EX, Q_EX, k, rng) for _ in range(20_000)]
        assert_distribution([t for t, _, _ in out], P_EX)
        kept = sum(w >= 0 for _, w, _ in out)
        want = without_replacement_acceptance(P_EX, Q_EX, k)
        r = chi_square({1: kept, 0: len(out) - kept}, {1: want, 0: 1 - want}) if 0 < want < 1 else None
        assert r is None and kept == len(out) or r.passed
        assert all(len(set(d)) == len(d) for _, _, d in out)    # never the same token twice


@pytest.mark.parametrize("replacement", [True, False])
def test_vectorized_node_simulation_matches_the_formulas(replacement):
    from specdec.tree_sampling import simulate_node
    rng = np.random.default_rng(6)
    for k in (1, 3, 8):
        tokens, kept = simulate_node(P_EX, Q_EX, k, 40_000, rng, replacement=replacement)
        assert_distribution(dict(enumerate(np.bincount(tokens, minlength=5).tolist())), P_EX)
        want = (recursive_acceptance if replacement else without_replacement_acceptance)(P_EX, Q_EX, k)
        assert abs(kept.mean() - want) < 6 * np.sqrt(want * (1 - want) / 40_000) + 1e-12
