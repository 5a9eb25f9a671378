"""Checking a trace of greedy speculative decoding against the protocol (chapters 02 and 13).

The toy models of `specdec.toy_lm` record every call as `("draft", tokens)` or `("target", tokens)`
in order. A correct loop alternates rounds: up to `gamma` draft calls, each reading the committed
text plus the drafts before it, then one target call on the committed text followed by exactly
those drafts, committing between 1 and n_drafts + 1 tokens. `protocol_violations` says in words
which of these rules a trace breaks, so a learner's failing loop is told what it did, not only
that its output differs.

    >>> protocol_violations([("draft", (1,)), ("target", (1, 2))], [1], [1, 2, 5], gamma=1)
    []
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Round:
    """One round read back from a trace: the draft calls' inputs, then the target call's."""

    draft_inputs: tuple[tuple[int, ...], ...]
    target_input: tuple[int, ...]

    @property
    def committed(self) -> int:
        """Length of the committed text when the round began."""
        return len(self.draft_inputs[0]) if self.draft_inputs else len(self.target_input)

    @property
    def n_drafts(self) -> int:
        return len(self.target_input) - self.committed


def split_rounds(trace) -> tuple[list[Round], int]:
    """Group a trace into rounds (draft calls, then one target call).

    Returns the rounds and the number of draft calls left over after the last target call.

    >>> rounds, left = split_rounds([("draft", (1,)), ("draft", (1, 2)), ("target", (1, 2, 3))])
    >>> [(r.committed, r.n_drafts) for r in rounds], left
    ([(1, 2)], 0)
    """
    rounds, pending = [], []
    for kind, inp in trace:
        if kind == "draft":
            pending.append(tuple(inp))
        else:
            rounds.append(Round(tuple(pending), tuple(inp)))
            pending = []
    return rounds, len(pending)


def protocol_violations(trace, prompt, tokens, gamma: int) -> list[str]:
    """Ways in which a trace breaks the greedy-speculation protocol (empty list: none).

    Each round must draft at most gamma tokens (draft call j reads the committed text
    plus the first j drafts), call the target once on the committed text followed by
    exactly those drafts, and commit between 1 and n_drafts + 1 tokens that agree with
    the returned `tokens`. The first round starts from the prompt; nothing is drafted
    after the last target call.

    >>> protocol_violations([("draft", (1,)), ("target", (1, 2))], [1], [1, 2, 5], gamma=1)
    []
    >>> protocol_violations([("target", (1,)), ("target", (1,))], [1], [1, 2], gamma=1)[0]
    'round 2 starts from 1 committed tokens, but round 1 started from 1 and must commit at least 1 token'
    """
    rounds, left = split_rounds(trace)
    tokens = tuple(int(t) for t in tokens)
    problems = []
    if left:
        problems.append(f"{left} draft call(s) came after the last target call and were never verified")
    start = len(prompt)
    prev = None
    for k, r in enumerate(rounds, 1):
        c, d = r.committed, r.n_drafts
        if prev is None and c != start:
            problems.append(f"round 1 starts from {c} tokens, but the prompt has {start}")
        if prev is not None and not (prev.committed + 1 <= c <= prev.committed + prev.n_drafts + 1):
            problems.append(f"round {k} starts from {c} committed tokens, but round {k - 1} started from "
                            f"{prev.committed} and must commit at least 1 token"
                            + (f" and at most {prev.n_drafts + 1}" if c > prev.committed else ""))
        if not 0 <= d <= gamma:
            problems.append(f"round {k} verifies {d} drafted tokens; it may draft at most gamma = {gamma}")
        for j, inp in enumerate(r.draft_inputs):
            if inp != r.target_input[:c + j]:
                problems.append(f"round {k}: draft call {j + 1} did not read the committed text followed by "
                                f"the {j} token(s) drafted before it")
                break
        if r.target_input[:c] != tokens[:c]:
            problems.append(f"round {k}: the target read {list(r.target_input[:c])} as committed text, "
                            f"but the returned tokens begin {list(tokens[:c])}")
        prev = r
    if rounds and not (prev.committed + 1 <= len(tokens) <= prev.committed + prev.n_drafts + 1):
        problems.append(f"the last round started from {prev.committed} tokens with {prev.n_drafts} drafts, "
                        f"so it can end with {prev.committed + 1}..{prev.committed + prev.n_drafts + 1} "
                        f"tokens, but {len(tokens)} were returned")
    return problems
