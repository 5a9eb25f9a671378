"""Wrong answers to the chapter 10 exercises (paged-cache reserve/trim, rollback of both caches,
gathering a tree branch), to prove their tests have power.

Each value replaces one solution cell of solutions/10_cache_rollback.ipynb. The tests are
deterministic: every wrong answer is caught by a named case (attention over the cache differs from
a cache rebuilt from scratch, a block both free and in a table, a wrong block count, a wrong
length or return value); the comment above each entry names the test cells that catch it
(RS = test_reserve, TR = test_trim, R = test_reserve_trim_random, L = test_rollback_lengths,
P = test_rollback_loop, G = test_gather_example, GR = test_gather_random).

Exercises 10.2 and 10.3 call `library_trim` (the setup cell after exercise 10.1 imports the
library's reserve and trim under those names), so a wrong 10.1 costs points in 10.1 only; the
wrong answers below for 10.2 and 10.3 use it too.

MESSAGES (at the end) lists, for the wrong answers a learner is likely to write, the words naming
the misconception that some failing test cell must say (the 10.3 tests recognise an unmoved
branch, pool-row or block-axis indexing, a copy in reverse order and keys moved without values by
replaying each mistake on a copy of the cache).
"""
from tests.wrong_implementations.delegation import delegation_forms


RESERVE = '''def reserve(cache, seq, n_new):
    needed_blocks = -(-(cache.lengths[seq] + n_new) // cache.block_size)
    missing = needed_blocks - len(cache.tables[seq])
    if missing > len(cache.free):
        raise RuntimeError("out of blocks")
    for _ in range(max(missing, 0)):
        cache.tables[seq].append(cache.free.pop())
'''
TRIM = '''def trim(cache, seq, new_length):
    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError("bad new_length")
    keep = -(-new_length // cache.block_size)
    table = cache.tables[seq]
    while len(table) > keep:
        cache.free.append(table.pop())
    cache.lengths[seq] = new_length
'''

# Both functions of exercise 10.1 handed to the library, in the three forms.
_r = delegation_forms("def reserve(cache, seq, n_new):", "specdec.paged_cache", "reserve")
_t = delegation_forms("def trim(cache, seq, new_length):", "specdec.paged_cache", "trim")
RESERVE_TRIM_DELEGATION = {form: _r[form] + "\n\n" + _t[form] for form in _r}
# 10.1's trim handed to the step the library's trim is made of (specdec.paged_cache.shorten).
TRIM_VIA_SHORTEN = """from specdec.paged_cache import shorten

def trim(cache, seq, new_length):
    cache.free.extend(shorten(cache, seq, new_length))
"""

WRONG = {
    "ex_reserve_trim": {
        # The trim tests of 10.1: trim through the library's shorten earns nothing there (the delegation
        # message; the reserve test still scores, as reserve is the learner's own).
        "trim_through_shorten": RESERVE + "\n\n" + TRIM_VIA_SHORTEN,
        # TR visible: the rejected entry at position 12 survives; attention differs from the rebuilt cache.
        "trim_keeps_one_more": RESERVE + '''

def trim(cache, seq, new_length):
    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError("bad new_length")
    new_length = min(new_length + 1, cache.lengths[seq])     # BUG: rollback off by one
    keep = -(-new_length // cache.block_size)
    table = cache.tables[seq]
    while len(table) > keep:
        cache.free.append(table.pop())
    cache.lengths[seq] = new_length
''',
        # TR visible: blocks go on the free list but stay in the table ("block 4 is on the free list but
        # still in the table"); in R another sequence then overwrites them.
        "freed_block_still_referenced": RESERVE + '''

def trim(cache, seq, new_length):
    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError("bad new_length")
    keep = -(-new_length // cache.block_size)
    for block in cache.tables[seq][keep:]:
        cache.free.append(block)                               # BUG: not removed from the table
    cache.lengths[seq] = new_length
''',
        # TR hidden (trim to 3 of blocks of 2 frees the half-full block) and R visible: a block holding
        # a kept entry is freed, then reused by another sequence.
        "frees_partly_used_block": RESERVE + '''

def trim(cache, seq, new_length):
    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError("bad new_length")
    keep = new_length // cache.block_size                      # BUG: floor, drops a partly used block
    table = cache.tables[seq]
    while len(table) > keep:
        cache.free.append(table.pop())
    cache.lengths[seq] = new_length
''',
        # TR visible: the table keeps 4 blocks for 12 entries (one holds no valid entry).
        "never_frees": RESERVE + '''

def trim(cache, seq, new_length):
    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError("bad new_length")
    cache.lengths[seq] = new_length                            # BUG: blocks never return to the pool
''',
        # RS hidden: an empty sequence reserving 7 positions in blocks of 2 gets 3 blocks; R: the pass cannot
        # write its last entry.
        "reserve_off_by_one": '''def reserve(cache, seq, n_new):
    needed_blocks = -(-(cache.lengths[seq] + n_new - 1) // cache.block_size)   # BUG: one slot short
    missing = needed_blocks - len(cache.tables[seq])
    if missing > len(cache.free):
        raise RuntimeError("out of blocks")
    for _ in range(max(missing, 0)):
        cache.tables[seq].append(cache.free.pop())
''' + "\n\n" + TRIM,
        # RS hidden: a reservation that needs nothing still takes blocks.
        "reserve_ignores_owned_blocks": '''def reserve(cache, seq, n_new):
    for _ in range(-(-n_new // cache.block_size)):             # BUG: ignores the capacity already owned
        if not cache.free:
            raise RuntimeError("out of blocks")
        cache.tables[seq].append(cache.free.pop())
''' + "\n\n" + TRIM,
        # RS hidden: a failed reservation leaves the blocks it took in the table.
        "reserve_not_atomic": '''def reserve(cache, seq, n_new):
    needed_blocks = -(-(cache.lengths[seq] + n_new) // cache.block_size)
    while len(cache.tables[seq]) < needed_blocks:
        if not cache.free:
            raise RuntimeError("out of blocks")               # BUG: after taking some blocks
        cache.tables[seq].append(cache.free.pop())
''' + "\n\n" + TRIM,
        # TR hidden: trim beyond the length is accepted silently.
        "trim_no_check": RESERVE + '''

def trim(cache, seq, new_length):
    keep = -(-max(new_length, 0) // cache.block_size)          # BUG: no ValueError for a bad length
    table = cache.tables[seq]
    while len(table) > keep:
        cache.free.append(table.pop())
    cache.lengths[seq] = max(new_length, 0)
''',
        # RS hidden: taking exactly the last free blocks is refused (>= where > is right).
        "reserve_refuses_exact_fit": '''def reserve(cache, seq, n_new):
    needed_blocks = -(-(cache.lengths[seq] + n_new) // cache.block_size)
    missing = needed_blocks - len(cache.tables[seq])
    if missing > 0 and missing >= len(cache.free):             # BUG: the last free block is never handed out
        raise RuntimeError("out of blocks")
    for _ in range(max(missing, 0)):
        cache.tables[seq].append(cache.free.pop())
''' + "\n\n" + TRIM,
        # RS visible: the new block is put in the table but left on the free list too.
        "reserve_leaves_block_on_free_list": '''def reserve(cache, seq, n_new):
    needed_blocks = -(-(cache.lengths[seq] + n_new) // cache.block_size)
    missing = needed_blocks - len(cache.tables[seq])
    if missing > len(cache.free):
        raise RuntimeError("out of blocks")
    for i in range(max(missing, 0)):
        cache.tables[seq].append(cache.free[-1 - i])           # BUG: never removed from the free list
''' + "\n\n" + TRIM,
        # RS visible: the new block goes in front of the owned ones (positions now map to the wrong blocks).
        "reserve_prepends": '''def reserve(cache, seq, n_new):
    needed_blocks = -(-(cache.lengths[seq] + n_new) // cache.block_size)
    missing = needed_blocks - len(cache.tables[seq])
    if missing > len(cache.free):
        raise RuntimeError("out of blocks")
    for _ in range(max(missing, 0)):
        cache.tables[seq].insert(0, cache.free.pop())          # BUG: the table's order is the positions' order
''' + "\n\n" + TRIM,
        **RESERVE_TRIM_DELEGATION,
    },
    "ex_rollback_after_round": {
        # L visible (J = 1: draft length 8 instead of 7) and P visible: the draft attends to rejected drafts.
        "draft_cache_not_rolled_back": '''def rollback_after_round(target, draft, seq, n_accepted, gamma):
    T = target.lengths[seq] - gamma - 1
    library_trim(target, seq, T + 1 + n_accepted)                   # BUG: the draft's cache is left as it was
    return 2 if n_accepted == gamma else 1''',
        # L visible: the target drops the entry of the last committed token (T + J instead of T + 1 + J).
        "target_off_by_one": '''def rollback_after_round(target, draft, seq, n_accepted, gamma):
    T = target.lengths[seq] - gamma - 1
    library_trim(target, seq, T + n_accepted)                       # BUG: off by one
    library_trim(draft, seq, T + min(n_accepted, gamma - 1))
    return 2 if n_accepted == gamma else 1''',
        # L visible (J = gamma = 3): trimming the draft to T + 1 + gamma exceeds its length (ValueError).
        "draft_same_as_target": '''def rollback_after_round(target, draft, seq, n_accepted, gamma):
    T = target.lengths[seq] - gamma - 1
    library_trim(target, seq, T + 1 + n_accepted)
    library_trim(draft, seq, min(T + 1 + n_accepted, draft.lengths[seq]))   # BUG: forgets the draft never read x_gamma
    return 1''',
        # L visible (J = gamma): returns 1 although the draft has two unread tokens.
        "unread_always_one": '''def rollback_after_round(target, draft, seq, n_accepted, gamma):
    T = target.lengths[seq] - gamma - 1
    library_trim(target, seq, T + 1 + n_accepted)
    library_trim(draft, seq, T + 1 + min(n_accepted, gamma - 1))
    return 1                                                # BUG: ignores the fully accepted case''',
        # L visible (J = gamma = 3): the draft is trimmed to the target's length, more than it holds (ValueError
        # from library_trim, reported with the case and why).
        "draft_trimmed_like_target": '''def rollback_after_round(target, draft, seq, n_accepted, gamma):
    T = target.lengths[seq] - gamma - 1
    library_trim(target, seq, T + 1 + n_accepted)
    library_trim(draft, seq, T + 1 + n_accepted)            # BUG: the draft never read x_gamma
    return 2 if n_accepted == gamma else 1''',
        # L visible: T recovered from the draft's length, one shorter than the target's, so both caches lose one.
        "T_from_the_draft": '''def rollback_after_round(target, draft, seq, n_accepted, gamma):
    T = draft.lengths[seq] - gamma - 1                      # BUG: the draft holds T + gamma, not T + gamma + 1
    library_trim(target, seq, T + 1 + n_accepted)
    library_trim(draft, seq, T + 1 + min(n_accepted, gamma - 1))
    return 2 if n_accepted == gamma else 1''',
        **delegation_forms("def rollback_after_round(target, draft, seq, n_accepted, gamma):", "specdec.paged_cache",
                 "rollback_after_round"),
    },
    "ex_gather_branch": {
        # G visible: the entries of nodes 0, 1, 2 (siblings) stay in place of the branch's.
        "trim_without_moving": '''def gather_branch(cache, seq, prefix_len, branch):
    library_trim(cache, seq, prefix_len + len(branch))              # BUG: the branch is never gathered''',
        # G hidden (branch [1, 2] of parents (-1, -1, 1)) and GR: copying from the far end overwrites
        # a source that still has to move.
        "copy_in_reverse_order": '''def gather_branch(cache, seq, prefix_len, branch):
    for i in reversed(range(len(branch))):                  # BUG: wrong order
        src = cache.slot(seq, prefix_len + branch[i])
        dst = cache.slot(seq, prefix_len + i)
        cache.k[dst] = cache.k[src]
        cache.v[dst] = cache.v[src]
    library_trim(cache, seq, prefix_len + len(branch))''',
        # G visible: positions indexed as if the sequence's blocks were contiguous in the pool.
        "ignores_block_table": '''def gather_branch(cache, seq, prefix_len, branch):
    K = cache.k.reshape(-1, cache.k.shape[-1])              # BUG: logical position used as a pool index
    V = cache.v.reshape(-1, cache.v.shape[-1])
    for i, node in enumerate(branch):
        K[prefix_len + i] = K[prefix_len + node]
        V[prefix_len + i] = V[prefix_len + node]
    library_trim(cache, seq, prefix_len + len(branch))''',
        # G visible: the values are not moved, only the keys.
        "keys_only": '''def gather_branch(cache, seq, prefix_len, branch):
    for i, node in enumerate(branch):
        cache.k[cache.slot(seq, prefix_len + i)] = cache.k[cache.slot(seq, prefix_len + node)]   # BUG: no values
    library_trim(cache, seq, prefix_len + len(branch))''',
        # G visible: the branch lands one slot too far; the length covers a stale entry.
        "destination_off_by_one": '''def gather_branch(cache, seq, prefix_len, branch):
    for i, node in enumerate(branch):
        src = cache.slot(seq, prefix_len + node)
        dst = cache.slot(seq, min(prefix_len + i + 1, cache.lengths[seq] - 1))   # BUG: off by one
        cache.k[dst] = cache.k[src]
        cache.v[dst] = cache.v[src]
    library_trim(cache, seq, prefix_len + len(branch))''',
        # G visible: the rejected siblings' blocks stay in the table (length right, blocks not freed).
        "no_trim_of_blocks": '''def gather_branch(cache, seq, prefix_len, branch):
    for i, node in enumerate(branch):
        src = cache.slot(seq, prefix_len + node)
        dst = cache.slot(seq, prefix_len + i)
        cache.k[dst] = cache.k[src]
        cache.v[dst] = cache.v[src]
    cache.lengths[seq] = prefix_len + len(branch)           # BUG: empty blocks not returned''',
        # G visible: cache.k's first axis (blocks) indexed with logical positions: an IndexError or another
        # sequence's block overwritten.
        "block_axis_indexing": '''def gather_branch(cache, seq, prefix_len, branch):
    for i, node in enumerate(branch):
        cache.k[prefix_len + i] = cache.k[prefix_len + node]  # BUG: a position used as a block index
        cache.v[prefix_len + i] = cache.v[prefix_len + node]
    library_trim(cache, seq, prefix_len + len(branch))''',
        # G visible: the branch is moved but nothing after it is dropped.
        "moves_without_trim": '''def gather_branch(cache, seq, prefix_len, branch):
    for i, node in enumerate(branch):
        src, dst = cache.slot(seq, prefix_len + node), cache.slot(seq, prefix_len + i)
        cache.k[dst], cache.v[dst] = cache.k[src], cache.v[src]   # BUG: no trim afterwards''',
        **delegation_forms("def gather_branch(cache, seq, prefix_len, branch):", "specdec.paged_cache", "gather_branch"),
    },
}

# Exercise 10.4 (optional): trim_shared and copy_on_write. ST = test_shared_trim, CW = test_copy_on_write,
# SR = test_shared_random.
TRIM_SHARED = """def trim_shared(cache, refs, seq, new_length):
    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError("bad new_length")
    keep = -(-new_length // cache.block_size)
    table = cache.tables[seq]
    while len(table) > keep:
        block = table.pop()
        refs[block] -= 1
        if refs[block] == 0:
            del refs[block]
            cache.free.append(block)
    cache.lengths[seq] = new_length
"""
COPY_ON_WRITE = """def copy_on_write(cache, refs, seq):
    index = cache.lengths[seq] // cache.block_size
    table = cache.tables[seq]
    if index >= len(table) or refs[table[index]] == 1:
        return
    if not cache.free:
        raise RuntimeError("no free block")
    old, new = table[index], cache.free.pop()
    cache.k[new] = cache.k[old]
    cache.v[new] = cache.v[old]
    table[index] = new
    refs[old] -= 1
    refs[new] = 1
"""
_ts = delegation_forms("def trim_shared(cache, refs, seq, new_length):", "specdec.shared_blocks", "trim_shared")
_cw = delegation_forms("def copy_on_write(cache, refs, seq):", "specdec.shared_blocks", "copy_on_write")

WRONG["ex_shared_blocks"] = {
    # ST visible: finishing A frees blocks B still lists (the plain trim of exercise 10.1).
    "trim_frees_shared_blocks": """def trim_shared(cache, refs, seq, new_length):
    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError("bad new_length")
    keep = -(-new_length // cache.block_size)
    table = cache.tables[seq]
    while len(table) > keep:
        block = table.pop()
        refs[block] = refs.get(block, 1) - 1
        cache.free.append(block)                               # BUG: freed whatever its count
        if refs[block] <= 0:
            del refs[block]
    cache.lengths[seq] = new_length
""" + "\n" + COPY_ON_WRITE,
    # ST visible: counts fall to zero but the blocks never return to the free list (they are lost).
    "trim_never_frees": """def trim_shared(cache, refs, seq, new_length):
    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError("bad new_length")
    keep = -(-new_length // cache.block_size)
    table = cache.tables[seq]
    while len(table) > keep:
        refs[table.pop()] -= 1                                 # BUG: a block at count 0 is never freed
    cache.lengths[seq] = new_length
""" + "\n" + COPY_ON_WRITE,
    # ST hidden: the partly used block of the kept entries is dropped (floor instead of ceil).
    "trim_drops_partial_block": TRIM_SHARED.replace("keep = -(-new_length // cache.block_size)",
                                                    "keep = new_length // cache.block_size          # BUG: floor") + "\n" + COPY_ON_WRITE,
    # ST hidden: no ValueError for a length beyond the sequence.
    "trim_no_check": TRIM_SHARED.replace("""    if not 0 <= new_length <= cache.lengths[seq]:
        raise ValueError("bad new_length")
""", "") + "\n" + COPY_ON_WRITE,
    # CW visible: B writes into the block A and P read (no copy at all).
    "no_copy": TRIM_SHARED + """
def copy_on_write(cache, refs, seq):
    return None                                                # BUG: shared blocks are written in place
""",
    # CW hidden: a private block is copied too (a block taken for nothing).
    "copies_private_blocks": TRIM_SHARED + "\n" + COPY_ON_WRITE.replace(
        "if index >= len(table) or refs[table[index]] == 1:", "if index >= len(table):                 # BUG: copies private blocks too"),
    # CW hidden: the values are not copied into the private block.
    "copies_keys_only": TRIM_SHARED + "\n" + COPY_ON_WRITE.replace("    cache.v[new] = cache.v[old]\n", ""),
    # CW visible: the shared block keeps its old count (it is now listed by one table fewer).
    "forgets_old_reference": TRIM_SHARED + "\n" + COPY_ON_WRITE.replace("    refs[old] -= 1\n", ""),
    # CW hidden: looks at the block of the last written position, so it copies a full block when the
    # next write starts a new one.
    "copies_block_of_last_entry": TRIM_SHARED + "\n" + COPY_ON_WRITE.replace(
        "index = cache.lengths[seq] // cache.block_size", "index = max(cache.lengths[seq] - 1, 0) // cache.block_size   # BUG"),
    # CW hidden: with no free block it raises IndexError from pop() instead of RuntimeError.
    "wrong_error_when_full": TRIM_SHARED + "\n" + COPY_ON_WRITE.replace("""    if not cache.free:
        raise RuntimeError("no free block")
""", ""),
    **{form: _ts[form] + "\n\n" + _cw[form] for form in _ts},
    # The trim_shared tests of 10.4: the shortening handed to specdec.paged_cache.shorten, the step the
    # library's own trim and trim_shared share, earns nothing there (the delegation message).
    "trim_shared_through_shorten": """from specdec.paged_cache import shorten

def trim_shared(cache, refs, seq, new_length):
    for block in shorten(cache, seq, new_length):
        refs[block] -= 1
        if refs[block] == 0:
            del refs[block]
            cache.free.append(block)
""" + "\n" + COPY_ON_WRITE,
}


# The words each likely wrong answer must read in some failing test cell (its misconception named).
MESSAGES = {
    "ex_reserve_trim/trim_keeps_one_more": "entries after the last valid one must be dropped",
    "ex_reserve_trim/freed_block_still_referenced": "is on the free list but still in the table",
    "ex_reserve_trim/frees_partly_used_block": "but its table holds only",
    "ex_reserve_trim/never_frees": "blocks that hold no valid entry must go back to the free list",
    "ex_reserve_trim/reserve_not_atomic": "a reservation that fails must change nothing",
    "ex_reserve_trim/reserve_refuses_exact_fit": "so the reservation fits",
    "ex_reserve_trim/reserve_leaves_block_on_free_list": "the blocks taken must leave the free list",
    "ex_reserve_trim/reserve_prepends": "in order, and append after them",
    "ex_rollback_after_round/draft_cache_not_rolled_back": "the draft still holds rejected drafts",
    "ex_rollback_after_round/target_off_by_one": "the target dropped a committed token it has read",
    "ex_rollback_after_round/draft_same_as_target": "has read neither its last draft x_gamma nor the bonus",
    "ex_rollback_after_round/unread_always_one": "has read neither its last draft x_gamma nor the bonus",
    "ex_rollback_after_round/draft_trimmed_like_target": "The draft never read its last draft x_gamma",
    "ex_rollback_after_round/T_from_the_draft": "was T computed from the draft's length",
    "ex_gather_branch/trim_without_moving": "the branch was not moved",
    "ex_gather_branch/copy_in_reverse_order": "copy in increasing i",
    "ex_gather_branch/ignores_block_table": "index through the block table, not the pool",
    "ex_gather_branch/block_axis_indexing": "index through the block table, not the pool",
    "ex_gather_branch/keys_only": "the values must move with the keys",
    "ex_gather_branch/destination_off_by_one": "holds the entry that belongs at logical position",
    "ex_gather_branch/no_trim_of_blocks": "blocks that hold no valid entry must go back to the free list",
    "ex_gather_branch/moves_without_trim": "entries after the last valid one must be dropped",
    "ex_shared_blocks/wrong_error_when_full": "must raise RuntimeError (out of blocks)",
    "ex_shared_blocks/copies_keys_only": "has the right key but a wrong value",
    "ex_shared_blocks/no_copy": "must be replaced by a fresh private copy",
    "ex_shared_blocks/trim_frees_shared_blocks": "let go of blocks B still lists",
    "ex_shared_blocks/trim_shared_through_shorten": "course library",
    "ex_reserve_trim/trim_through_shorten": "course library",
}

# Correct answers written another natural way, which must keep full marks (run through the power harness
# beside WRONG): reserve and trim with slices of the lists (or a while loop on the covered positions);
# the rollback from each cache's own length, or as two branches; the gather through fancy indexing (all
# sources read before any write), or by copying the branch's entries out first; the shared trim with a
# slice and a loop over the dropped blocks, copy-on-write with an explicit copy.
RIGHT = {
    "ex_reserve_trim": {
        "slices": '''import math


def reserve(cache, seq, n_new):
    table = cache.tables[seq]
    missing = max(0, math.ceil((cache.lengths[seq] + n_new) / cache.block_size) - len(table))
    if missing > len(cache.free):
        raise RuntimeError("not enough free blocks")
    if missing:
        taken = cache.free[-missing:]
        del cache.free[-missing:]
        table.extend(taken)


def trim(cache, seq, new_length):
    if new_length < 0 or new_length > cache.lengths[seq]:
        raise ValueError("new_length out of range")
    keep = math.ceil(new_length / cache.block_size)
    table = cache.tables[seq]
    cache.free.extend(table[keep:])
    del table[keep:]
    cache.lengths[seq] = new_length
''',
        "while_covered": '''def reserve(cache, seq, n_new):
    target = cache.lengths[seq] + n_new
    table = cache.tables[seq]
    need = 0
    while (len(table) + need) * cache.block_size < target:
        need += 1
    if need > len(cache.free):
        raise RuntimeError(f"need {need} blocks, {len(cache.free)} free")
    for _ in range(need):
        table.append(cache.free.pop(0))


def trim(cache, seq, new_length):
    if not (0 <= new_length <= cache.lengths[seq]):
        raise ValueError("bad new_length")
    table = cache.tables[seq]
    while table and (len(table) - 1) * cache.block_size >= new_length:
        cache.free.append(table.pop())
    cache.lengths[seq] = new_length
''',
    },
    "ex_rollback_after_round": {
        "from_each_length": '''def rollback_after_round(target, draft, seq, n_accepted, gamma):
    rejected = gamma - n_accepted                                # drafts the target read in vain
    library_trim(target, seq, target.lengths[seq] - rejected)
    draft_rejected = max(gamma - 1 - n_accepted, 0)              # the draft read gamma - 1 drafts
    library_trim(draft, seq, draft.lengths[seq] - draft_rejected)
    return 1 + int(n_accepted == gamma)
''',
        "two_branches": '''def rollback_after_round(target, draft, seq, n_accepted, gamma):
    committed = target.lengths[seq] - gamma + n_accepted
    library_trim(target, seq, committed)
    if n_accepted == gamma:
        library_trim(draft, seq, committed - 1)
        return 2
    library_trim(draft, seq, committed)
    return 1
''',
    },
    "ex_gather_branch": {
        "fancy_indexing": '''def gather_branch(cache, seq, prefix_len, branch):
    if len(branch):
        src = np.array([cache.slot(seq, prefix_len + j) for j in branch])
        dst = np.array([cache.slot(seq, prefix_len + i) for i in range(len(branch))])
        cache.k[dst[:, 0], dst[:, 1]] = cache.k[src[:, 0], src[:, 1]]
        cache.v[dst[:, 0], dst[:, 1]] = cache.v[src[:, 0], src[:, 1]]
    library_trim(cache, seq, prefix_len + len(branch))
''',
        "copy_out_first": '''def gather_branch(cache, seq, prefix_len, branch):
    saved = []
    for node in branch:
        b, o = cache.slot(seq, prefix_len + node)
        saved.append((cache.k[b, o].copy(), cache.v[b, o].copy()))
    for i, (key, value) in enumerate(saved):
        b, o = cache.slot(seq, prefix_len + i)
        cache.k[b, o] = key
        cache.v[b, o] = value
    library_trim(cache, seq, prefix_len + len(saved))
''',
    },
    "ex_shared_blocks": {
        "slice_and_copy": '''import math


def trim_shared(cache, refs, seq, new_length):
    if new_length < 0 or new_length > cache.lengths[seq]:
        raise ValueError("new_length out of range")
    keep = math.ceil(new_length / cache.block_size)
    dropped = cache.tables[seq][keep:]
    cache.tables[seq] = cache.tables[seq][:keep]
    for block in dropped:
        refs[block] -= 1
        if refs[block] == 0:
            del refs[block]
            cache.free.append(block)
    cache.lengths[seq] = new_length


def copy_on_write(cache, refs, seq):
    table = cache.tables[seq]
    i = cache.lengths[seq] // cache.block_size
    if i < len(table) and refs[table[i]] > 1:
        if len(cache.free) == 0:
            raise RuntimeError("no free block for the copy")
        shared = table[i]
        private = cache.free.pop()
        cache.k[private] = cache.k[shared].copy()
        cache.v[private] = cache.v[shared].copy()
        refs[shared] -= 1
        refs[private] = 1
        table[i] = private
''',
    },
}
