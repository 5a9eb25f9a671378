"""Wrong answers to the chapter 09 exercise (`ngram_draft` with its two occurrence rules), to prove
its tests have power.

Each value replaces the solution cell `ex_ngram_draft` of solutions/09_drafters.ipynb.
The tests are deterministic (no sampling), so each entry is caught by a named failing case;
the comment above each entry says which test cell catches it first (E = test_ngram_example,
A = test_ngram_earliest, D = test_ngram_edges, R = test_ngram_random; "visible" or "hidden" part).
The older entries take no `match` argument, so they also fail A and R's earliest half (TypeError);
the comment names the cell that catches their own mistake.
"""
from tests.wrong_implementations.delegation import delegation_forms


_HEAD = "def ngram_draft(context, n, k):\n"
_HEAD_M = 'def ngram_draft(context, n, k, match="recent"):\n'

WRONG = {
    "ex_ngram_draft": {
        # E visible: the suffix matches itself at the end, nothing follows it -> [] instead of ['Y', 'a'].
        "suffix_matches_itself": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        for s in range(L - m, -1, -1):             # BUG: starts at the suffix itself
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # E visible: the earliest occurrence (index 0) proposes ['X', 'a'] whatever the rule asks.
        "first_occurrence": _HEAD_M + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        for s in range(0, L - m):                   # BUG: oldest occurrence first, match ignored
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # A visible: match ignored, always the most recent occurrence -> ['Y', 'a'] for match='earliest'.
        "match_ignored_always_recent": _HEAD_M + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        for s in range(L - m - 1, -1, -1):          # BUG: the rule is never consulted
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # A visible: the earliest scan runs up to the suffix itself; 'q a Z x y a' then finds 'x y a' at its
        # own place (nothing follows) instead of falling back to 'a'.
        "earliest_reaches_the_suffix": _HEAD_M + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        starts = range(L - m - 1, -1, -1) if match == "recent" else range(L - m + 1)   # BUG: includes L - m
        for s in starts:
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # A hidden: Saxena's variant, the earliest occurrence with k tokens after it; 'a a a a' (n=1, k=5)
        # then finds none and proposes [].
        "earliest_needs_k_tokens": _HEAD_M + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        if match == "recent":
            starts = range(L - m - 1, -1, -1)
        else:
            starts = [s for s in range(L - m) if s + m + k <= L]     # BUG: only full-length proposals
        for s in starts:
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # R hidden: the earliest rule taken over every suffix length at once (smallest start of any matching
        # suffix), so a short suffix that occurred early beats the longest one.
        "earliest_over_all_lengths": _HEAD_M + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    if match == "recent":
        for m in range(min(n, L - 1), 0, -1):
            for s in range(L - m - 1, -1, -1):
                if context[s:s + m] == context[L - m:]:
                    return context[s + m:s + m + k]
        return []
    for s in range(L):                              # BUG: earliest start first, any suffix length
        for m in range(min(n, L - 1), 0, -1):
            if s < L - m and context[s:s + m] == context[L - m:]:
                return context[s + m:s + m + k]
    return []''',
        # D visible: a misspelt rule is accepted (treated as 'recent') instead of raising ValueError.
        "unknown_match_accepted": _HEAD_M + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        starts = range(L - m) if match == "earliest" else range(L - m - 1, -1, -1)   # BUG: no check of match
        for s in starts:
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # E visible: 'q a Z x y a' needs the fallback to a one-token suffix.
        "no_fallback": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0 or n > L - 1:
        return []
    suffix = context[L - n:]                        # BUG: only the full n-token suffix
    for s in range(L - n - 1, -1, -1):
        if context[s:s + n] == suffix:
            return context[s + n:s + n + k]
    return []''',
        # E visible ('q a Z x y a' needs two steps down) and E hidden.
        "fallback_one_step_only": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    top = min(n, L - 1)
    for m in range(top, max(top - 2, 0), -1):       # BUG: tries n and n - 1 only
        suffix = context[L - m:]
        for s in range(L - m - 1, -1, -1):
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # E hidden: '1 2 3 9 2 3 8 1 2 3' takes the one-token suffix '3' (index 5) -> ['9', '2', ...] wrong.
        "shortest_suffix_first": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(1, min(n, L - 1) + 1):           # BUG: shortest suffix first
        suffix = context[L - m:]
        for s in range(L - m - 1, -1, -1):
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # E visible: proposes ['c', 'Y'] (includes the last matched token).
        "continuation_off_by_one": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        for s in range(L - m - 1, -1, -1):
            if context[s:s + m] == suffix:
                return context[s + m - 1:s + m - 1 + k]     # BUG: starts one token early
    return []''',
        # E visible: proposes k + 1 tokens ['Y', 'a', 'b'].
        "k_plus_one_tokens": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        for s in range(L - m - 1, -1, -1):
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k + 1]         # BUG: one token too many
    return []''',
        # D visible: 'a a a a' with n=1 needs the overlapping occurrence at index 2.
        "no_overlap_allowed": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        for s in range(L - 2 * m, -1, -1):          # BUG: the occurrence must end before the suffix
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # D visible: 'a a a a', k=5: skips occurrences followed by fewer than k tokens -> ['a'] expected.
        "requires_k_tokens": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        for s in range(L - m - 1, -1, -1):
            if context[s:s + m] == suffix and s + m + k <= L:   # BUG: only full-length proposals
                return context[s + m:s + m + k]
    return []''',
        # D hidden: ['ab', 'c', 'a', 'bc'] matches 'bc' inside the joined string.
        "joined_string_search": _HEAD + '''    context = [str(t) for t in context]
    L = len(context)
    if k <= 0:
        return []
    text = " ".join(context)
    for m in range(min(n, L - 1), 0, -1):
        suffix = "".join(context[L - m:])
        joined = "".join(context)
        pos = joined.rfind(suffix, 0, len(joined) - len(suffix))   # BUG: character search, not tokens
        if pos >= 0:
            # map the character position back to a token index
            acc, idx = 0, 0
            while idx < L and acc + len(context[idx]) <= pos:
                acc += len(context[idx]); idx += 1
            return context[idx + m:idx + m + k]
    return []''',
        # D visible: int tokens come back as strings, and 'a a a a' ... ; R visible too.
        "returns_strings": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        for s in range(L - m - 1, -1, -1):
            if context[s:s + m] == suffix:
                return [str(t) for t in context[s + m:s + m + k]]   # BUG: changes the tokens' type
    return []''',
        # D hidden: the largest admissible suffix (length len(context) - 1) is never tried; on longer
        # contexts a shorter suffix gives the same proposal, but [4, 4] with n=1 then proposes [].
        "skips_largest_suffix": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return []
    for m in range(min(n, L - 2), 0, -1):           # BUG: one short of the longest possible suffix
        suffix = context[L - m:]
        for s in range(L - m - 1, -1, -1):
            if context[s:s + m] == suffix:
                return context[s + m:s + m + k]
    return []''',
        # D hidden: a tuple is not a list.
        "returns_tuple": _HEAD + '''    context = list(context)
    L = len(context)
    if k <= 0:
        return ()
    for m in range(min(n, L - 1), 0, -1):
        suffix = context[L - m:]
        for s in range(L - m - 1, -1, -1):
            if context[s:s + m] == suffix:
                return tuple(context[s + m:s + m + k])  # BUG: the wrong type
    return ()''',
        **delegation_forms('def ngram_draft(context, n, k, match="recent"):', "specdec.ngram", "ngram_draft"),
    },
}

# The words each likely wrong answer must read in some failing test cell (its misconception named).
MESSAGES = {f"ex_ngram_draft/{bug}": words for bug, words in {
    "suffix_matches_itself": "matched itself at the end",
    "first_occurrence": "follows the earliest occurrence",
    "match_ignored_always_recent": "That follows the most recent occurrence",
    "earliest_reaches_the_suffix": "must start before the suffix",
    "earliest_needs_k_tokens": "fewer than k tokens after it are fine",
    "earliest_over_all_lengths": "the longest suffix with an earlier occurrence",
    "unknown_match_accepted": "must raise ValueError",
    "no_fallback": "from n down to 1",
    "fallback_one_step_only": "from n down to 1",
    "shortest_suffix_first": "longest suffix that occurred earlier wins",
    "continuation_off_by_one": "starts right after the matched tokens",
    "k_plus_one_tokens": "at most k tokens",
    "no_overlap_allowed": "matches at start 0",
    "requires_k_tokens": "fewer than k tokens",
    "returns_strings": "not as strings",
    "returns_tuple": "Return a list",
}.items()}

# Correct answers written another natural way, which must keep full marks (run through the power harness
# beside WRONG): every earlier start collected, then max or min, with a recursion to the next shorter
# suffix; or one vectorised comparison of the sliding windows with the suffix.
RIGHT = {
    "ex_ngram_draft": {
        "collect_starts_then_recurse": '''def ngram_draft(context, n, k, match="recent"):
    if match != "recent" and match != "earliest":
        raise ValueError("unknown match rule")
    n = min(n, len(context) - 1)
    if n < 1 or k == 0:
        return []
    suffix = context[-n:]
    starts = [s for s in range(len(context) - n) if context[s:s + n] == suffix]
    if not starts:
        return ngram_draft(context, n - 1, k, match)
    s = max(starts) if match == "recent" else min(starts)
    return list(context[s + n:s + n + k])
''',
        "sliding_windows": '''from numpy.lib.stride_tricks import sliding_window_view


def ngram_draft(context, n, k, match="recent"):
    if match not in {"recent", "earliest"}:
        raise ValueError(match)
    L = len(context)
    if k == 0 or L < 2:
        return []
    arr = np.empty(L, dtype=object)
    arr[:] = list(context)
    for m in range(min(n, L - 1), 0, -1):
        windows = sliding_window_view(arr, m)[:L - m]          # starts before the suffix's own
        hits = np.flatnonzero((windows == arr[L - m:]).all(axis=1))
        if hits.size:
            s = int(hits[-1] if match == "recent" else hits[0])
            return arr[s + m:s + m + k].tolist()
    return []
''',
    },
}
