"""Token trees: parent arrays, depths, the tree attention mask and the greedy walk.

A token tree of `n` drafted nodes is a parent array `parents` of length n with
`parents[i]` in {-1, 0, ..., i - 1}: -1 means node i follows the last committed token
directly, and parents are listed before their children. The depth of a node is its
number of ancestors, so children of the prefix have depth 0. Verifying the tree is one
target pass over the n nodes appended to `prefix_len` cached tokens, with

* a boolean mask of shape (n, prefix_len + n): node i sees every prefix position, itself
  and its ancestors, never a sibling or a cousin;
* int64 position ids `prefix_len + depth(i)`: every node sits where it would sit in its
  own branch.

The example tree of chapter 08: nodes 0 and 1 are two guesses after the prefix, 2 and 3
continue node 0, 4 continues node 1, and 5 continues node 2.

    >>> parents = [-1, -1, 0, 0, 1, 2]
    >>> depths(parents).tolist()
    [0, 0, 1, 1, 1, 2]
    >>> mask, pos = tree_attention_mask(parents, prefix_len=2)
    >>> mask.astype(int)[:, 2:]
    array([[1, 0, 0, 0, 0, 0],
           [0, 1, 0, 0, 0, 0],
           [1, 0, 1, 0, 0, 0],
           [1, 0, 0, 1, 0, 0],
           [0, 1, 0, 0, 1, 0],
           [1, 0, 1, 0, 0, 1]])
    >>> pos.tolist()
    [2, 2, 3, 3, 3, 4]

Greedy verification is a walk from the prefix down the children that match the target:

    >>> tokens = ["sat", "is", "on", "down", "a", "the"]
    >>> target_next = ["sat", "on", "-", "up", "-", "-", "-"]   # after the prefix, then after node i
    >>> greedy_tree_walk(tokens, parents, target_next)
    ([0, 2], ['sat', 'on', 'up'])
"""
from __future__ import annotations

import numpy as np
from specdec.checks import check_int


def validate_parents(parents) -> np.ndarray:
    """`parents` as a 1-D int64 array, after checking it describes a token tree.

    Raises ValueError unless it is 1-D, holds integers, and every entry satisfies
    -1 <= parents[i] < i (a parent is listed before its child; no node is its own parent).

    >>> validate_parents([-1, 0, 0]).tolist()
    [-1, 0, 0]
    >>> validate_parents([-1, 2, 0])
    Traceback (most recent call last):
    ...
    ValueError: parents[1] = 2 is not a node listed before node 1: every entry must be -1 (the prefix) or an index in 0..0
    """
    arr = np.asarray(parents)
    if arr.ndim != 1:
        raise ValueError(f"parents must be a 1-D sequence of integers, got an array of shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr)))):
        raise ValueError(f"parents must hold integers (-1 for the prefix), got {arr.tolist()!r}")
    arr = arr.astype(np.int64)
    for i, parent in enumerate(arr.tolist()):
        if parent < -1 or parent >= i:
            allowed = "-1 (the prefix)" if i == 0 else f"-1 (the prefix) or an index in 0..{i - 1}"
            raise ValueError(f"parents[{i}] = {parent} is not a node listed before node {i}: "
                             f"every entry must be {allowed}")
    return arr


def _check_prefix_len(prefix_len) -> int:
    check_int(prefix_len, "prefix_len", low=0)
    return int(prefix_len)


def depths(parents) -> np.ndarray:
    """Number of ancestors of every node, int64 of shape (n,); children of the prefix have depth 0."""
    par = validate_parents(parents)
    out = np.zeros(len(par), dtype=np.int64)            # (n,)
    for i, parent in enumerate(par):
        out[i] = 0 if parent < 0 else out[parent] + 1    # parents come first, so out[parent] is final
    return out


def ancestors(parents, node: int) -> list[int]:
    """The ancestors of `node`, nearest first (its parent, grandparent, ...).

    >>> ancestors([-1, -1, 0, 0, 1, 2], 5)
    [2, 0]
    """
    par = validate_parents(parents)
    if not 0 <= node < len(par):
        raise ValueError(f"node must be in 0..{len(par) - 1}, got {node}")
    out, j = [], int(par[node])
    while j >= 0:
        out.append(j)
        j = int(par[j])
    return out


def children(parents, node: int) -> list[int]:
    """The children of `node` in listed order; node = -1 gives the children of the prefix."""
    par = validate_parents(parents)
    return [i for i, parent in enumerate(par.tolist()) if parent == node]


def tree_attention_mask(parents, prefix_len: int) -> tuple[np.ndarray, np.ndarray]:
    """The attention mask and position ids of one verification pass over a token tree.

    Returns `mask`, bool of shape (n, prefix_len + n), where row i is True on every prefix
    column, on column prefix_len + i, and on the columns of i's ancestors; and `pos`, int64
    of shape (n,), equal to prefix_len + depth(i). A chain (parents[i] = i - 1) gives the
    ordinary causal mask aligned to the bottom-right corner.

    >>> m, pos = tree_attention_mask([-1, 0, 1], prefix_len=1)
    >>> m.astype(int)
    array([[1, 1, 0, 0],
           [1, 1, 1, 0],
           [1, 1, 1, 1]])
    >>> pos.tolist()
    [1, 2, 3]
    """
    par = validate_parents(parents)
    P = _check_prefix_len(prefix_len)
    n = len(par)
    # lineage[i, j]: node j is node i or one of its ancestors. Parents are listed first, so when row i
    # is filled its parent's row is complete: i's lineage is its parent's plus i itself.
    lineage = np.eye(n, dtype=bool)                      # (n, n)
    for i in np.flatnonzero(par >= 0):
        lineage[i] |= lineage[par[i]]
    depth = lineage.sum(axis=1, dtype=np.int64) - 1      # (n,) ancestors, not counting the node
    prefix = np.ones((n, P), dtype=bool)                 # (n, P): every node sees the whole prefix
    return np.hstack([prefix, lineage]), P + depth


def greedy_tree_walk(tokens, parents, target_next) -> tuple[list[int], list]:
    """Verify a token tree against a greedy target by walking it from the prefix.

    tokens      : the n nodes' tokens (any comparable values).
    parents     : the parent array.
    target_next : n + 1 entries, the target's greedy choice after the prefix (entry 0)
                  and after node i (entry i + 1), each computed along that node's branch.

    From the prefix, move to the first listed child whose token equals the target's choice
    there, and repeat from that child; stop at a node without such a child. Returns
    `(path, emitted)`: the kept nodes in order, and their tokens followed by the target's
    choice at the stopping point (the extra token), so a round emits len(path) + 1 tokens.
    """
    par = validate_parents(parents)
    n = len(par)
    if len(tokens) != n:
        raise ValueError(f"tokens has {len(tokens)} entries, parents has {n}")
    if len(target_next) != n + 1:
        raise ValueError(f"target_next needs n + 1 = {n + 1} entries (after the prefix and after "
                         f"each node), got {len(target_next)}")
    kids: dict[int, list[int]] = {}
    for i, parent in enumerate(par.tolist()):
        kids.setdefault(parent, []).append(i)
    path, node = [], -1
    while True:
        want = target_next[node + 1]                     # the target's choice after `node`
        match = next((c for c in kids.get(node, []) if tokens[c] == want), None)
        if match is None:
            return path, [tokens[i] for i in path] + [want]
        path.append(match)
        node = match
