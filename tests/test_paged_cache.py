"""Paged KV cache: reserve, trim, rollback of both caches and branch gathering keep the cache
equal to one rebuilt from scratch, and never leave a freed block referenced."""
import numpy as np
import pytest

from specdec.paged_cache import (PagedKVCache, attend, cache_problems, gather_branch, reserve,
                                 rollback_after_round, trim)

D = 4


def kv(context):
    """The key and value a model would compute for the last token of `context`."""
    rng = np.random.default_rng(abs(hash(tuple(context))) % 2**32)
    return rng.normal(size=D), rng.normal(size=D)


def rebuilt(tokens):
    ks, vs = zip(*(kv(tokens[:i + 1]) for i in range(len(tokens)))) if tokens else ((), ())
    return np.array(ks).reshape(-1, D), np.array(vs).reshape(-1, D)


def same_attention(cache, seq, tokens, rng):
    K, V = cache.read(seq)
    K0, V0 = rebuilt(tokens)
    if len(tokens) == 0:
        return K.shape[0] == 0
    query = rng.normal(size=(3, D))
    return K.shape == K0.shape and np.allclose(attend(query, K, V), attend(query, K0, V0))


def test_rounds_on_shared_pool_match_a_rebuilt_cache():
    rng = np.random.default_rng(0)
    cache = PagedKVCache(num_blocks=150, block_size=3, head_dim=D)
    seqs = {s: [int(rng.integers(9))] for s in range(4)}
    for s in seqs:
        cache.add_sequence(s)
    for _ in range(60):
        s = int(rng.integers(4))
        gamma = int(rng.integers(1, 6))
        toks = seqs[s]
        start = cache.lengths[s]                          # all committed tokens but the last are cached
        assert start == len(toks) - 1
        reserve(cache, s, gamma + 1)
        assert cache.capacity(s) >= start + gamma + 1
        drafts = rng.integers(9, size=gamma).tolist()
        for i, t in enumerate([toks[-1]] + drafts):
            cache.append(s, *kv(toks + drafts[:i]))
        J = int(rng.integers(gamma + 1))
        trim(cache, s, start + 1 + J)
        toks += drafts[:J] + [int(rng.integers(9))]       # kept drafts, then the target's token
        assert len(cache.tables[s]) == -(-cache.lengths[s] // cache.block_size)
        assert cache_problems(cache) == []
        for t in seqs:
            assert same_attention(cache, t, seqs[t][:-1], rng)


def test_reserve_fails_atomically_and_trim_checks():
    cache = PagedKVCache(num_blocks=2, block_size=2, head_dim=D)
    cache.add_sequence("a")
    with pytest.raises(RuntimeError):
        reserve(cache, "a", 5)
    assert cache.tables["a"] == [] and len(cache.free) == 2
    reserve(cache, "a", 3)
    for _ in range(3):
        cache.append("a", np.zeros(D), np.zeros(D))
    with pytest.raises(ValueError, match=r"0\.\.3 for sequence 'a', got 4"):
        trim(cache, "a", 4)
    trim(cache, "a", 0)
    assert cache.tables["a"] == [] and sorted(cache.free) == [0, 1]


def test_rollback_after_round_lengths():
    for gamma in (1, 2, 4):
        for J in range(gamma + 1):
            tgt = PagedKVCache(20, 2, D)
            drf = PagedKVCache(20, 2, D)
            tgt.add_sequence(0)
            drf.add_sequence(0)
            T = 5
            reserve(tgt, 0, T + gamma + 1)
            reserve(drf, 0, T + gamma)
            for _ in range(T + gamma + 1):
                tgt.append(0, np.zeros(D), np.zeros(D))
            for _ in range(T + gamma):
                drf.append(0, np.zeros(D), np.zeros(D))
            unread = rollback_after_round(tgt, drf, 0, J, gamma)
            assert tgt.lengths[0] == T + 1 + J
            assert drf.lengths[0] == T + 1 + min(J, gamma - 1)
            # committed tokens: T + 1 + J + 1; the draft has read all but `unread` of them
            assert unread == T + J + 2 - drf.lengths[0]
            assert cache_problems(tgt) == [] and cache_problems(drf) == []


def test_gather_branch_matches_rebuilt_cache():
    rng = np.random.default_rng(3)
    for trial in range(40):
        cache = PagedKVCache(30, int(rng.integers(1, 5)), D)
        cache.add_sequence("x")
        cache.add_sequence("y")                               # interleave to scatter blocks
        prefix = rng.integers(9, size=int(rng.integers(1, 8))).tolist()
        n = int(rng.integers(1, 8))
        parents = [-1] + [int(rng.integers(-1, i)) for i in range(1, n)]
        tokens = rng.integers(9, size=n).tolist()

        def path(i):
            return path(parents[i]) + [i] if i >= 0 else []
        for t in range(len(prefix)):
            reserve(cache, "x", 1)
            cache.append("x", *kv(prefix[:t + 1]))
            reserve(cache, "y", 1)
            cache.append("y", np.zeros(D), np.zeros(D))
        reserve(cache, "x", n)
        for i in range(n):
            cache.append("x", *kv(prefix + [tokens[j] for j in path(i)]))
        branch = path(int(rng.integers(n)))
        gather_branch(cache, "x", len(prefix), branch)
        assert same_attention(cache, "x", prefix + [tokens[j] for j in branch], rng)
        assert cache_problems(cache) == []
        assert len(cache.tables["x"]) == -(-cache.lengths["x"] // cache.block_size)


def test_cache_problems_sees_a_freed_block_still_in_use():
    cache = PagedKVCache(3, 2, D)
    cache.add_sequence(0)
    reserve(cache, 0, 4)
    cache.free.append(cache.tables[0][-1])
    assert any("still in the table" in p for p in cache_problems(cache))


def test_attend_is_softmax_attention():
    rng = np.random.default_rng(4)
    K, V = rng.normal(size=(5, D)), rng.normal(size=(5, D))
    out = attend(np.zeros(D), K, V)
    assert np.allclose(out, V.mean(axis=0))                  # zero query: uniform weights


# ---- shared blocks: reference counts and copy-on-write (specdec.shared_blocks) ----
from specdec.shared_blocks import copy_on_write, fork, shared_problems, trim_shared


def _entry(tokens, d=3):
    rng = np.random.default_rng(hash(tuple(tokens)) % 2**32)
    return rng.normal(size=d), rng.normal(size=d)


def _expected_keys(tokens, d=3):
    return np.array([_entry(tokens[:i + 1], d)[0] for i in range(len(tokens))]).reshape(-1, d)


def test_shared_blocks_random_forks_trims_and_writes():
    """Sequences forked from one prompt write, speculate and roll back; after every step each
    sequence reads exactly its own text's entries and the counts match the tables."""
    rng = np.random.default_rng(7)
    for trial in range(30):
        bs = int(rng.integers(1, 5))
        cache = PagedKVCache(num_blocks=200, block_size=bs, head_dim=3)
        cache.add_sequence(0)
        prompt = rng.integers(10, size=int(rng.integers(1, 12))).tolist()
        reserve(cache, 0, len(prompt))
        refs = {b: 1 for b in cache.tables[0]}
        for i in range(len(prompt)):
            cache.append(0, *_entry(prompt[:i + 1]))
        texts = {0: list(prompt)}
        for child in (1, 2):
            fork(cache, refs, 0, child)
            texts[child] = list(prompt)
        for step in range(20):
            s = int(rng.integers(3))
            if s not in cache.tables:
                continue
            gamma = int(rng.integers(1, 5))
            drafts = rng.integers(10, size=gamma).tolist()
            copy_on_write(cache, refs, s)
            before = list(cache.tables[s])
            reserve(cache, s, gamma)
            for b in cache.tables[s][len(before):]:
                refs[b] = 1
            for i in range(gamma):
                cache.append(s, *_entry(texts[s] + drafts[:i + 1]))
            J = int(rng.integers(gamma + 1))
            trim_shared(cache, refs, s, len(texts[s]) + J)
            texts[s] += drafts[:J]
            if rng.random() < 0.1:                                   # a finished sequence lets go of everything
                trim_shared(cache, refs, s, 0)
                del cache.tables[s], cache.lengths[s], texts[s]
            assert shared_problems(cache, refs) == []
            for t, text in texts.items():
                K, _ = cache.read(t)
                assert np.allclose(K, _expected_keys(text)), (trial, step, t)


def test_trim_shared_frees_a_block_only_at_count_zero_and_checks_its_length():
    cache = PagedKVCache(num_blocks=6, block_size=2, head_dim=3)
    cache.add_sequence("a")
    reserve(cache, "a", 3)
    refs = {b: 1 for b in cache.tables["a"]}
    for i in range(3):
        cache.append("a", *_entry([i]))
    fork(cache, refs, "a", "b")
    trim_shared(cache, refs, "a", 0)
    assert cache.tables["a"] == [] and sorted(cache.free) == [0, 1, 2, 3] and shared_problems(cache, refs) == []
    trim_shared(cache, refs, "b", 1)
    assert refs == {cache.tables["b"][0]: 1} and len(cache.free) == 5
    with pytest.raises(ValueError, match=r"0\.\.1 for sequence 'b', got 2"):
        trim_shared(cache, refs, "b", 2)


def test_copy_on_write_only_when_shared_and_atomic_when_out_of_blocks():
    cache = PagedKVCache(num_blocks=2, block_size=2, head_dim=3)
    cache.add_sequence("a")
    reserve(cache, "a", 2)
    refs = {cache.tables["a"][0]: 1}
    cache.append("a", *_entry([1]))
    copy_on_write(cache, refs, "a")                                  # private: nothing to do
    assert cache.tables["a"] == [1] and cache.free == [0]
    fork(cache, refs, "a", "b")
    copy_on_write(cache, refs, "b")
    assert cache.tables["b"] == [0] and refs == {1: 1, 0: 1} and np.allclose(cache.k[0, 0], cache.k[1, 0])
    fork(cache, refs, "a", "c")
    with pytest.raises(RuntimeError):
        copy_on_write(cache, refs, "c")
    assert cache.tables["c"] == [1] and refs == {1: 2, 0: 1}
