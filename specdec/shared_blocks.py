"""Blocks shared by several sequences of a paged cache: reference counts and copy-on-write.

Parallel samples of one prompt, beams, or requests with a common prefix can share the blocks
of their common past instead of holding one copy each. Each block then carries a reference
count, `refs[block]`, the number of block tables that list it, and the rollback of chapter 10
changes in two places:

* `trim_shared` drops a block from one table by taking away one reference; the block goes back
  to the free list only when no table lists it any more;
* `copy_on_write` runs before a sequence writes into a block that others still read: the
  sequence gets a private copy of that block (a fresh block from the free list holding the
  same entries), so that its new entries, and the drafts a rejection later discards, never
  reach the other sequences.

`refs` is a plain dict {block: count} over the blocks in use; free blocks have no entry.

    >>> import numpy as np
    >>> from specdec.paged_cache import PagedKVCache
    >>> cache = PagedKVCache(num_blocks=4, block_size=2, head_dim=1)
    >>> cache.add_sequence("a"); cache.tables["a"] = [cache.free.pop()]
    >>> cache.append("a", [1.0], [1.0])
    >>> refs = {3: 1}
    >>> fork(cache, refs, "a", "b"); refs
    {3: 2}
    >>> copy_on_write(cache, refs, "b"); cache.tables["b"], refs      # b will write at position 1
    ([2], {3: 1, 2: 1})
    >>> trim_shared(cache, refs, "a", 0); cache.tables["a"], refs, sorted(cache.free)
    ([], {2: 1}, [0, 1, 3])
"""
from __future__ import annotations

from collections import Counter
from typing import Hashable

from .paged_cache import PagedKVCache, pool_problems, shorten


def fork(cache: PagedKVCache, refs: dict, parent: Hashable, child: Hashable) -> None:
    """Start `child` as a copy of `parent` that shares every block (one more reference each)."""
    cache.add_sequence(child)
    cache.tables[child] = list(cache.tables[parent])
    cache.lengths[child] = cache.lengths[parent]
    for block in cache.tables[child]:
        refs[block] = refs.get(block, 0) + 1


def trim_shared(cache: PagedKVCache, refs: dict, seq: Hashable, new_length: int) -> None:
    """Keep the first new_length entries of seq; each block leaving its table loses one
    reference, and returns to the free list only when its count reaches zero."""
    for block in shorten(cache, seq, new_length):
        refs[block] -= 1
        if refs[block] == 0:
            del refs[block]
            cache.free.append(block)


def copy_on_write(cache: PagedKVCache, refs: dict, seq: Hashable) -> None:
    """Before seq writes at position lengths[seq]: if that position lies in a block other
    tables also list, replace it in seq's table by a private copy taken from the free list.
    Raises RuntimeError (changing nothing) when a copy is needed and no block is free."""
    pos = cache.lengths[seq]                          # where seq writes next
    if pos >= cache.capacity(seq):
        return                                        # past its blocks: reserve adds a new one, nothing to copy
    shared, _ = cache.slot(seq, pos)
    if refs[shared] == 1:
        return                                        # already private
    if not cache.free:
        raise RuntimeError(f"{seq!r} must copy shared block {shared} but no block is free")
    private = cache.free.pop()
    for pool in (cache.k, cache.v):                   # the whole block: seq's earlier entries in it come along
        pool[private] = pool[shared]                  # (block_size, d)
    cache.tables[seq][pos // cache.block_size] = private
    refs[shared], refs[private] = refs[shared] - 1, 1      # seq's reference moves to its copy


def shared_problems(cache: PagedKVCache, refs: dict) -> list[str]:
    """Inconsistencies between the tables, the counts and the free list; [] when sound."""
    problems = []
    listed = Counter(block for table in cache.tables.values() for block in table)
    for block, count in listed.items():
        if refs.get(block) != count:
            problems.append(f"block {block} is listed by {count} table(s) but its count is {refs.get(block)}")
    for block in refs:
        if block not in listed:
            problems.append(f"block {block} has count {refs[block]} but no table lists it")
    return problems + pool_problems(cache, {block: "listed by a table" for block in listed})
