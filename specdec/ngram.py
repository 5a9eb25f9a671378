"""Drafting from the context itself: prompt lookup (n-gram) drafting and its acceptance.

When the output copies its input (editing code, summarizing, answering from retrieved text),
the context is a free draft. The drafter takes the last `n` tokens of the context (the
suffix), finds their most recent *earlier* occurrence, one that starts before the suffix
starts, and proposes up to `k` tokens that followed it. If the suffix never occurred
earlier it tries the last n - 1 tokens, and so on down to 1; with no match it proposes
nothing.

    >>> ngram_draft("a b c X a b c Y a b c".split(), n=3, k=2)
    ['Y', 'a']
    >>> tok("def f(x):\\n    return x ** 2")
    ['def', 'f', '(', 'x', ')', ':', '\\n', 'return', 'x', '**', '2']
    >>> stats = lookup_acceptance(tok("x = 1\\ny = 2\\n"), tok("x = 1\\ny = 3\\n"), n=2, k=4)
    >>> stats["target_passes"], stats["drafted"], stats["accepted"]
    (4, 9, 4)

`lookup_acceptance` replays a greedy target that writes a known text: each round drafts
from the context (prompt plus what is written so far), keeps the drafts that equal the
text's next tokens, and adds one token of the target's own.

Which earlier occurrence to copy from is a choice (`match`): "recent" (the course's
convention, the largest start), "earliest" (the smallest start, what prompt lookup in
Saxena's reference code, Hugging Face's `PromptLookupCandidateGenerator` and vLLM's n-gram
proposer pick among matches of one length), or "continue" (keep copying from the place the
last draft came from as long as the text keeps agreeing with it, else look up afresh as
"recent" does).

    >>> PromptLookup("a b c X a b c Y a b c".split(), n=3, match="earliest").draft(2)
    ['X', 'a']
"""
from __future__ import annotations

import re
from typing import Hashable, Sequence
from specdec.checks import check_int

_TOKEN = re.compile(r"""
    [A-Za-z_][A-Za-z_0-9]*          # identifiers and keywords
  | \d+(?:\.\d+)?                   # numbers
  | \*\*=?|//=?|->|==|!=|<=|>=|:=|<<|>>|[-+*/%&|^@]=   # multi-character operators
  | \n                              # line breaks (indentation is dropped)
  | [^\sA-Za-z_0-9]                 # any other single character: brackets, quotes, dots
""", re.VERBOSE)


def tok(text: str) -> list[str]:
    """Split code-like text into tokens: identifiers, numbers, operators, punctuation and
    line breaks. Spaces and indentation are dropped, so two texts that differ only in
    spacing tokenize the same.

    >>> tok("if a<=b: print('hi')")
    ['if', 'a', '<=', 'b', ':', 'print', '(', "'", 'hi', "'", ')']
    """
    if not isinstance(text, str):
        raise ValueError(f"tok splits a string, got {type(text).__name__}")
    return _TOKEN.findall(text)


def _check_nk(n, k) -> None:
    check_int(n, "n (the longest suffix to look up)", low=1, must="an int >= 1")
    check_int(k, "k (the most tokens to propose)", low=0, must="an int >= 0")


def ngram_draft(context: Sequence[Hashable], n: int, k: int, match: str = "recent") -> list:
    """Prompt-lookup draft: up to k tokens that followed an earlier occurrence of the longest
    suffix of length <= n that occurred earlier; [] if none did. `match` picks the occurrence:
    "recent" the largest start (the default), "earliest" the smallest.

    >>> ngram_draft([1, 2, 3, 1, 2], n=2, k=3)
    [3, 1, 2]
    >>> ngram_draft("q a Z x y a".split(), n=3, k=2)      # only the last token occurred earlier
    ['Z', 'x']
    >>> ngram_draft("a b c X a b c Y a b c".split(), n=3, k=2, match="earliest")
    ['X', 'a']
    >>> ngram_draft(["a", "b"], n=2, k=3)
    []
    """
    _check_nk(n, k)
    if match not in ("recent", "earliest"):     # "continue" needs state: PromptLookup has it
        raise ValueError(f"match must be 'recent' or 'earliest', got {match!r}")
    context = list(context)
    L = len(context)
    if k == 0:
        return []
    # Score every place a draft could be copied from: `end` is the index of the first proposed token,
    # and the score is how many tokens just before `end` equal the context's last ones (at most n).
    # end < L keeps each occurrence's start below the suffix's. The best score is the longest suffix
    # that occurred earlier; among ends that reach it, "recent" keeps the last and "earliest" the first.
    best, best_end = 0, None
    for end in range(1, L):
        m = 0
        while m < min(n, end) and context[end - 1 - m] == context[L - 1 - m]:
            m += 1
        if m and (m > best or (m == best and match == "recent")):
            best, best_end = m, end
    return [] if best_end is None else context[best_end:best_end + k]


MATCH_RULES = ("recent", "earliest", "continue")


class PromptLookup:
    """Incremental prompt lookup: with match="recent", the same proposals as `ngram_draft`,
    in O(n) per step.

    It indexes every m-gram (m = 1..n) by its most recent and by its earliest start, keeping
    the index one token behind the context so that the suffix never matches itself. With
    match="continue" it also keeps a cursor on the token the last draft's source predicts
    next; while appended tokens agree with the source, the next draft copies on from there.

    >>> pl = PromptLookup("a b c X a b c Y a b".split(), n=3)
    >>> pl.append("c"); pl.draft(2)
    ['Y', 'a']
    """

    def __init__(self, context: Sequence[Hashable] = (), n: int = 3, match: str = "recent"):
        _check_nk(n, 0)
        if match not in MATCH_RULES:
            raise ValueError(f"match must be one of {MATCH_RULES}, got {match!r}")
        self.n = n
        self.match = match
        self.tokens: list = []
        self._last: dict[tuple, int] = {}      # m-gram -> most recent start indexed so far
        self._first: dict[tuple, int] = {}     # m-gram -> earliest start
        self._cursor: int | None = None        # "continue": index of the source's next token
        for t in context:
            self.append(t)

    def append(self, token: Hashable) -> None:
        """Add one token; index the m-grams that end just before it (they are now 'earlier')."""
        if self._cursor is not None:           # does the text still follow the copied source?
            agrees = self._cursor < len(self.tokens) and self.tokens[self._cursor] == token
            self._cursor = self._cursor + 1 if agrees else None
        self.tokens.append(token)
        end = len(self.tokens) - 1               # grams ending at `end` (exclusive) start before any suffix
        for m in range(1, self.n + 1):
            start = end - m
            if start >= 0:
                gram = tuple(self.tokens[start:end])
                self._last[gram] = start
                self._first.setdefault(gram, start)

    def draft(self, k: int) -> list:
        """Up to k proposed tokens (match="recent": exactly `ngram_draft(self.tokens, self.n, k)`)."""
        _check_nk(self.n, k)
        L = len(self.tokens)
        if k == 0:
            return []
        if self.match == "continue" and self._cursor is not None and self._cursor < L:
            return self.tokens[self._cursor:self._cursor + k]
        index = self._first if self.match == "earliest" else self._last
        for m in range(min(self.n, L - 1), 0, -1):
            start = index.get(tuple(self.tokens[L - m:]))
            if start is not None:
                if self.match == "continue":
                    self._cursor = start + m
                return self.tokens[start + m:start + m + k]
        self._cursor = None
        return []


def lookup_acceptance(prompt: Sequence[Hashable], text: Sequence[Hashable], n: int, k: int,
                      match: str = "recent") -> dict:
    """Replay a greedy target that writes `text` after `prompt`, drafting by prompt lookup
    (`match` chooses the earlier occurrence to copy from; see `PromptLookup`).

    Each round proposes up to k tokens from the context, keeps the longest prefix equal to
    the text's next tokens, and emits one more token of the target's (a correction, or a
    bonus after a fully kept draft). Returns counts: target_passes, drafted, accepted,
    rounds_with_draft, tokens (= len(text)); and the rates acceptance (accepted / drafted)
    and tokens_per_pass.
    """
    _check_nk(n, k)
    text = list(text)
    lookup = PromptLookup(prompt, n, match)
    passes = drafted = accepted = with_draft = 0
    i = 0
    while i < len(text):
        proposal = lookup.draft(min(k, len(text) - i - 1)) if len(text) - i > 1 else []
        j = 0
        while j < len(proposal) and proposal[j] == text[i + j]:
            j += 1
        passes += 1
        drafted += len(proposal)
        accepted += j
        with_draft += bool(proposal)
        for t in text[i:i + j + 1]:               # the kept drafts and the target's own token
            lookup.append(t)
        i += j + 1
    return {"target_passes": passes, "drafted": drafted, "accepted": accepted,
            "rounds_with_draft": with_draft, "tokens": len(text),
            "acceptance": accepted / drafted if drafted else 0.0,
            "tokens_per_pass": len(text) / passes if passes else 0.0}
