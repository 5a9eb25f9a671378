"""A paged KV cache, and how speculation keeps it consistent: reserve, trim, gather.

The cache stores keys and values in a pool of fixed-size blocks, `k` and `v` of shape
(num_blocks, block_size, head_dim). Each sequence owns a *block table*, the list of its
blocks in order, and a *length*, the number of positions holding valid entries; logical
position `pos` lives in block `table[pos // block_size]` at offset `pos % block_size`.
Blocks no sequence owns sit on the *free list*.

A speculative round touches the cache three times:

1. before the target pass, `reserve(cache, seq, gamma + 1)` takes enough blocks from the
   free list for the gamma + 1 entries the pass writes (the last committed token, which
   the target has not read yet, and the gamma drafts);
2. the pass writes those entries (`cache.append`);
3. after J acceptances, `trim(cache, seq, new_length)` drops the rejected entries and
   hands blocks that became empty back to the free list.

`rollback_after_round` does step 3 for the target and the draft together, and
`gather_branch` moves an accepted branch of a token tree into consecutive slots.

    >>> import numpy as np
    >>> cache = PagedKVCache(num_blocks=4, block_size=2, head_dim=3)
    >>> cache.add_sequence("s")
    >>> reserve(cache, "s", 3); cache.tables["s"], cache.free
    ([3, 2], [0, 1])
    >>> for i in range(3):
    ...     cache.append("s", np.full(3, i), np.full(3, i))
    >>> trim(cache, "s", 2); cache.tables["s"], cache.free, cache.lengths["s"]
    ([3], [0, 1, 2], 2)
    >>> cache.read("s")[0][:, 0]
    array([0., 1.])
"""
from __future__ import annotations

from typing import Hashable, Sequence

import numpy as np
from specdec.checks import check_int


class PagedKVCache:
    """Block pool, free list, one block table and one length per sequence (no policy:
    the functions of this module decide what to reserve, trim and move)."""

    def __init__(self, num_blocks: int, block_size: int, head_dim: int):
        for name, value in (("num_blocks", num_blocks), ("block_size", block_size), ("head_dim", head_dim)):
            check_int(value, name, low=1, must="a positive int")
        self.block_size = int(block_size)
        self.head_dim = int(head_dim)
        self.k = np.full((num_blocks, block_size, head_dim), np.nan)   # (blocks, block_size, d)
        self.v = np.full((num_blocks, block_size, head_dim), np.nan)   # (blocks, block_size, d)
        self.free: list[int] = list(range(num_blocks))                 # pop() takes from the end
        self.tables: dict[Hashable, list[int]] = {}
        self.lengths: dict[Hashable, int] = {}

    @property
    def num_blocks(self) -> int:
        return self.k.shape[0]

    def add_sequence(self, seq: Hashable) -> None:
        if seq in self.tables:
            raise ValueError(f"sequence {seq!r} already exists")
        self.tables[seq], self.lengths[seq] = [], 0

    def capacity(self, seq: Hashable) -> int:
        """Positions the sequence's blocks can hold."""
        return len(self.tables[seq]) * self.block_size

    def slot(self, seq: Hashable, pos: int) -> tuple[int, int]:
        """(block, offset) of logical position `pos` of `seq`."""
        if not 0 <= pos < self.capacity(seq):
            raise ValueError(f"position {pos} of {seq!r} is outside its {len(self.tables[seq])} blocks "
                             f"({self.capacity(seq)} slots); reserve blocks first")
        return self.tables[seq][pos // self.block_size], pos % self.block_size

    def write(self, seq: Hashable, pos: int, k, v) -> None:
        """Store one entry at logical position pos (at most the current length: append or overwrite)."""
        if pos > self.lengths[seq]:
            raise ValueError(f"cannot write position {pos} of {seq!r}: its length is {self.lengths[seq]}")
        k, v = np.asarray(k, float), np.asarray(v, float)             # (d,), (d,)
        if k.shape != (self.head_dim,) or v.shape != (self.head_dim,):
            raise ValueError(f"k and v must have shape ({self.head_dim},), got {k.shape} and {v.shape}")
        block, off = self.slot(seq, pos)
        self.k[block, off], self.v[block, off] = k, v
        self.lengths[seq] = max(self.lengths[seq], pos + 1)

    def append(self, seq: Hashable, k, v) -> None:
        self.write(seq, self.lengths[seq], k, v)

    def read(self, seq: Hashable) -> tuple[np.ndarray, np.ndarray]:
        """The sequence's keys and values in logical order, each of shape (length, d)."""
        n = self.lengths[seq]
        if n > self.capacity(seq):
            raise ValueError(f"{seq!r} has length {n} but only {self.capacity(seq)} slots in its blocks")
        table = np.asarray(self.tables[seq], dtype=int)
        pos = np.arange(n)                                             # (n,)
        blocks, offs = table[pos // self.block_size], pos % self.block_size
        return self.k[blocks, offs], self.v[blocks, offs]              # (n, d), (n, d)


def reserve(cache: PagedKVCache, seq: Hashable, n_new: int) -> None:
    """Make room for n_new more entries after the current length, taking blocks from the
    free list. Raises RuntimeError (and changes nothing) if too few blocks are free.

    >>> cache = PagedKVCache(num_blocks=4, block_size=2, head_dim=1)
    >>> cache.add_sequence("s")
    >>> reserve(cache, "s", 3); cache.tables["s"]          # 3 entries need 2 blocks of 2 slots
    [3, 2]
    >>> reserve(cache, "s", 4); cache.tables["s"]          # 4 fit in the 4 slots it holds: none taken
    [3, 2]
    """
    if n_new < 0:
        raise ValueError(f"n_new must be >= 0, got {n_new}")
    # Only the positions beyond what the table already holds need blocks: the shortfall, in blocks
    # rounded up (a block is taken whole however few of its slots the entries fill).
    shortfall = cache.lengths[seq] + n_new - cache.capacity(seq)
    blocks = -(-shortfall // cache.block_size) if shortfall > 0 else 0
    if blocks > len(cache.free):
        raise RuntimeError(f"{seq!r} needs {blocks} more blocks but only {len(cache.free)} are free")
    cache.tables[seq].extend(cache.free.pop() for _ in range(blocks))


def shorten(cache: PagedKVCache, seq: Hashable, new_length: int) -> list[int]:
    """Keep the first new_length entries of seq and only the ceil(new_length / block_size) blocks
    that hold them; return the blocks that left its table, last first. Who may reuse them is the
    caller's rule: `trim` frees them, `shared_blocks.trim_shared` first drops one reference each."""
    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError(f"new_length must lie in 0..{cache.lengths[seq]} for sequence {seq!r}, got {new_length}")
    keep = -(-new_length // cache.block_size)
    table = cache.tables[seq]
    dropped = [table.pop() for _ in range(len(table) - keep)]
    cache.lengths[seq] = new_length
    return dropped


def trim(cache: PagedKVCache, seq: Hashable, new_length: int) -> None:
    """Keep the first new_length entries of seq; blocks holding none of them go back to
    the free list (so afterwards the table has exactly ceil(new_length / block_size) blocks)."""
    cache.free.extend(shorten(cache, seq, new_length))


def rollback_after_round(target: PagedKVCache, draft: PagedKVCache, seq: Hashable, n_accepted: int,
                         gamma: int) -> int:
    """Roll both caches back after a round that kept n_accepted of gamma drafts.

    Before: the target holds T entries plus gamma + 1 from its pass (the last committed
    token and the drafts); the draft holds one entry fewer (it never reads its last draft).
    After: the target keeps T + 1 + J entries and the draft T + 1 + min(J, gamma - 1).
    Returns how many committed tokens the draft has not read: 1 (the correction or bonus
    token), or 2 after a fully accepted round (its own last draft too).
    """
    if not 0 <= n_accepted <= gamma:
        raise ValueError(f"n_accepted must lie in 0..gamma = {gamma}, got {n_accepted}")
    if draft.lengths[seq] != target.lengths[seq] - 1:
        raise ValueError("after a pass the draft's cache must hold one entry fewer than the target's, got "
                         f"{draft.lengths[seq]} and {target.lengths[seq]}")
    base = target.lengths[seq] - gamma - 1                      # T: entries before the pass
    trim(target, seq, base + 1 + n_accepted)
    trim(draft, seq, base + 1 + min(n_accepted, gamma - 1))
    return 2 if n_accepted == gamma else 1


def gather_branch(cache: PagedKVCache, seq: Hashable, prefix_len: int, branch: Sequence[int]) -> None:
    """After a tree pass (prefix_len entries, then one entry per tree node in node order),
    move the accepted branch's entries (node indices, root first) into the slots right after
    the prefix and drop the rest. Node indices along a branch increase, so copying in order
    never overwrites an entry still to be moved."""
    branch = [int(b) for b in branch]
    n_nodes = cache.lengths[seq] - prefix_len
    if n_nodes < 0 or any(b < 0 or b >= n_nodes for b in branch) or any(
            a >= b for a, b in zip(branch, branch[1:])):
        raise ValueError(f"branch must be increasing node indices in 0..{n_nodes - 1}, got {branch}")
    for i, node in enumerate(branch):
        src, dst = cache.slot(seq, prefix_len + node), cache.slot(seq, prefix_len + i)
        cache.k[dst], cache.v[dst] = cache.k[src], cache.v[src]
    trim(cache, seq, prefix_len + len(branch))


def attend(query, keys, values) -> np.ndarray:
    """Softmax attention of query (d,) or (m, d) over keys and values (T, d)."""
    query, keys, values = (np.asarray(a, float) for a in (query, keys, values))
    scores = query @ keys.T / np.sqrt(keys.shape[-1])               # (m, T) or (T,)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ values  # (m, d) or (d,)


def cache_problems(cache: PagedKVCache) -> list[str]:
    """Inconsistencies of the bookkeeping: a block both free and owned, owned twice, listed
    twice as free, lost (neither), or a table too short for its length. [] when sound."""
    problems, owner = [], {}
    for seq, table in cache.tables.items():
        for b in table:
            if b in owner:
                problems.append(f"block {b} is in the tables of both {owner[b]!r} and {seq!r}")
            owner[b] = seq
    return problems + pool_problems(cache, {b: f"in the table of {seq!r}" for b, seq in owner.items()})


def pool_problems(cache: PagedKVCache, in_use: dict) -> list[str]:
    """What any block pool must satisfy, however blocks are shared: every table has room for its
    length, and every block is either on the free list (once) or in use, never both.

    `in_use` maps each block some table lists to words saying where ("in the table of 'a'").

        >>> c = PagedKVCache(num_blocks=3, block_size=2, head_dim=1)
        >>> c.free = [0, 0]
        >>> pool_problems(c, {})
        ['block 0 is on the free list twice', 'blocks [1, 2] are neither free nor in any table']
    """
    problems = []
    for seq, table in cache.tables.items():
        if cache.lengths[seq] > len(table) * cache.block_size:
            problems.append(f"sequence {seq!r} has length {cache.lengths[seq]} but its table holds only "
                            f"{len(table)} block(s) of {cache.block_size}, room for {len(table) * cache.block_size}")
    seen = set()
    for b in cache.free:
        if b in in_use:
            problems.append(f"block {b} is on the free list but still {in_use[b]}")
        if b in seen:
            problems.append(f"block {b} is on the free list twice")
        seen.add(b)
    lost = set(range(cache.num_blocks)) - seen - set(in_use)
    if lost:
        problems.append(f"blocks {sorted(lost)} are neither free nor in any table")
    return problems
