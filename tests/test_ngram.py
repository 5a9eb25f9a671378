"""Prompt-lookup drafting: the text's example, the definition as properties, the fast index."""
import numpy as np
import pytest

from specdec.ngram import PromptLookup, lookup_acceptance, ngram_draft, tok


def test_text_example():
    assert ngram_draft("a b c X a b c Y a b c".split(), 3, 2) == ["Y", "a"]


def test_falls_back_to_shorter_suffixes_and_to_nothing():
    assert ngram_draft("q a Z x y a".split(), 3, 2) == ["Z", "x"]      # only 'a' occurred earlier
    assert ngram_draft("a b c d".split(), 3, 2) == []
    assert ngram_draft([], 3, 2) == [] and ngram_draft([1], 3, 2) == []
    assert ngram_draft([1, 2, 1, 2], 2, 0) == []


def test_continuation_may_run_into_the_suffix():
    assert ngram_draft(list("aaaa"), 1, 5) == ["a"]          # most recent earlier 'a' is at index 2
    assert ngram_draft(list("abab"), 2, 5) == ["a", "b"]


def _properties(context, n, k, got):
    L = len(context)
    for m in range(min(n, L - 1), 0, -1):
        starts = [s for s in range(L - m) if context[s:s + m] == context[L - m:]]
        if starts:
            s = max(starts)
            assert got == context[s + m:s + m + k]
            return
    assert got == []


def test_definition_on_random_contexts():
    rng = np.random.default_rng(0)
    for _ in range(400):
        ctx = rng.integers(0, int(rng.integers(2, 5)), size=int(rng.integers(0, 25))).tolist()
        n, k = int(rng.integers(1, 5)), int(rng.integers(0, 5))
        got = ngram_draft(ctx, n, k)
        _properties(ctx, n, k, got)
        pl = PromptLookup(ctx, n)
        assert pl.draft(k) == got


def test_bad_arguments():
    for n, k in ((0, 1), (1, -1), (1.5, 2), (True, 2)):
        with pytest.raises(ValueError):
            ngram_draft([1, 2], n, k)
    with pytest.raises(ValueError):
        tok(["not", "a", "string"])


def test_tok_splits_code():
    assert tok("x+=1  # c\n") == ["x", "+=", "1", "#", "c", "\n"]
    assert tok("a  =   b") == tok("a = b")


def test_lookup_acceptance_counts():
    rng = np.random.default_rng(1)
    for _ in range(50):
        prompt = rng.integers(0, 4, size=30).tolist()
        text = rng.integers(0, 4, size=40).tolist()
        s = lookup_acceptance(prompt, text, 2, 4)
        # every pass emits its kept drafts plus one token of the target's
        assert s["tokens"] == s["target_passes"] + s["accepted"] == 40
        assert s["accepted"] <= s["drafted"] <= 4 * s["target_passes"]
    copy = tok("def f(x):\n    return x * 2\n" * 5)
    s = lookup_acceptance(copy, copy, 3, 8)
    assert s["acceptance"] > 0.9 and s["tokens_per_pass"] > 5


def _earliest(context, n, k):
    L = len(context)
    for m in range(min(n, L - 1), 0, -1):
        starts = [s for s in range(L - m) if context[s:s + m] == context[L - m:]]
        if starts:
            return context[min(starts) + m:min(starts) + m + k]
    return []


def test_earliest_rule_takes_the_smallest_start_of_the_longest_suffix():
    assert PromptLookup("a b c X a b c Y a b c".split(), 3, match="earliest").draft(2) == ["X", "a"]
    rng = np.random.default_rng(2)
    for _ in range(300):
        ctx = rng.integers(0, int(rng.integers(2, 5)), size=int(rng.integers(0, 25))).tolist()
        n, k = int(rng.integers(1, 5)), int(rng.integers(0, 5))
        assert PromptLookup(ctx, n, match="earliest").draft(k) == _earliest(ctx, n, k), (ctx, n, k)


def test_continue_rule_copies_on_while_the_text_agrees_and_looks_up_afresh_otherwise():
    src = list("abcdefgh")
    pl = PromptLookup(src + list("xab"), n=2, match="continue")
    assert pl.draft(3) == list("cde")                # fresh lookup of 'a b' (the only occurrence)
    for t in "cdef":                                 # all three kept, and the target's token agrees
        pl.append(t)
    assert pl.draft(2) == list("gh")                 # copies on from the source, no lookup
    pl.append("Z")                                   # the text leaves the source
    fresh = PromptLookup(pl.tokens, n=2, match="recent").draft(2)
    assert pl.draft(2) == fresh                      # back to a fresh (most recent) lookup


def test_match_rules_on_a_replay_keep_the_token_count():
    rng = np.random.default_rng(3)
    for match in ("recent", "earliest", "continue"):
        for _ in range(20):
            prompt = rng.integers(0, 3, size=30).tolist()
            text = rng.integers(0, 3, size=40).tolist()
            s = lookup_acceptance(prompt, text, 2, 4, match=match)
            assert s["tokens"] == s["target_passes"] + s["accepted"] == 40


def test_bad_match_rule():
    with pytest.raises(ValueError, match="match must be one of"):
        PromptLookup([1, 2], 2, match="latest")
    with pytest.raises(ValueError):
        lookup_acceptance([1], [1, 2], 2, 2, match="first")


def test_earliest_rule_matches_its_definition_and_the_index():
    assert ngram_draft("a b c X a b c Y a b c".split(), 3, 2, match="earliest") == ["X", "a"]
    assert ngram_draft("q a Z x y a".split(), 3, 2, match="earliest") == ["Z", "x"]
    rng = np.random.default_rng(2)
    for _ in range(400):
        ctx = rng.integers(0, int(rng.integers(2, 5)), size=int(rng.integers(0, 25))).tolist()
        n, k = int(rng.integers(1, 5)), int(rng.integers(0, 5))
        got = ngram_draft(ctx, n, k, match="earliest")
        L, want = len(ctx), []
        for m in range(min(n, L - 1), 0, -1):
            starts = [s for s in range(L - m) if ctx[s:s + m] == ctx[L - m:]]
            if starts:
                want = ctx[min(starts) + m:min(starts) + m + k]
                break
        assert got == want
        assert PromptLookup(ctx, n, match="earliest").draft(k) == got
    with pytest.raises(ValueError):
        ngram_draft([1, 2, 1], 2, 1, match="continue")
