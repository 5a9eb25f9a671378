"""A loop detector for generated text: the share of n-grams that already occurred earlier in it.

A model stuck in a loop ("the the the ...", a run of spaces) repeats the same n-grams, so the
share approaches 1; ordinary text repeats few 8-byte sequences within 64 bytes (code somewhat more,
through indentation). Compare a model's output with real text of the same kind and length.

    >>> repeated_ngram_fraction(list(b"the the the the the "), n=4)
    0.7647058823529411
    >>> repeated_ngram_fraction(list(b"abcdefgh"), n=4)
    0.0
"""
from __future__ import annotations


def repeated_ngram_fraction(ids, n: int = 8) -> float:
    """Fraction of the len(ids) - n + 1 n-grams of `ids` that occurred at an earlier position."""
    ids = [int(i) for i in ids]
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    total = len(ids) - n + 1
    if total <= 0:
        return 0.0
    seen, repeats = set(), 0
    for i in range(total):
        gram = tuple(ids[i:i + n])
        repeats += gram in seen
        seen.add(gram)
    return repeats / total
