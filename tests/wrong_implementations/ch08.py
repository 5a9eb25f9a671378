"""Wrong answers to the chapter 08 exercises, to prove that their tests have power.

Each value replaces the whole solution cell of solutions/08_token_trees.ipynb named by its
key. Every one must fail at least one test cell of its exercise; the reference solutions
pass them all. The comment above each entry says which test cells catch it (checked with
the fast harness, tests/power.py).

Chi-square statistics for recursive rejection (seeds fixed in the tests; an exact sampler
gives about dof ± sqrt(2 dof)). The test cell stops at its first failing assert, so the
hidden statistics were computed with the asserts disabled:

    D  = test_rr_distribution, visible: p = (0.1, 0.2, 0.3, 0.4), q = (0.4, 0.3, 0.2, 0.1), 3 children, 12,000 nodes
    H1 = hidden: p = (0.05, 0.10, 0.15, 0.30, 0.40), q = (0.30, 0.25, 0.20, 0.15, 0.10), 4 children, 12,000 nodes
    H2 = hidden: p = (0.3, 0.3, 0.2, 0.2, 0), q = (0.5, 0, 0.1, 0.1, 0.3), 2 children, 10,000 nodes

The reference solution gets D 9.1 (8 dof), H1 7.9 (11 dof), H2 7.3 (7 dof). "imp" counts outcomes
of probability 0 that occurred (assert_distribution fails on any one of them).
(The chapter's own p, q reach a fixed point, R_2 = R_3, which hides some bugs; the tests use pairs
whose residuals keep changing.)
"""
from tests.wrong_implementations.delegation import delegation_forms


MASK_DEF = "def tree_attention_mask(parents, prefix_len):"
WALK_DEF = "def greedy_tree_walk(tokens, parents, target_next):"
RR_DEF = "def recursive_rejection(p, q, children, rng):"

# A correct front part for the mask bugs: validation, depths and the ancestor block.
_MASK_FRONT = '''def tree_attention_mask(parents, prefix_len):
    par = np.asarray(parents)
    if par.ndim != 1:
        raise ValueError("parents must be one-dimensional")
    n, P = len(par), int(prefix_len)
    for i in range(n):
        if int(par[i]) < -1 or int(par[i]) >= i:
            raise ValueError(f"parents[{i}] = {int(par[i])} is not -1 or an earlier node")
    depth = np.zeros(n, dtype=np.int64)
    block = np.zeros((n, n), dtype=bool)
    for i in range(n):
        depth[i] = 0 if par[i] < 0 else depth[par[i]] + 1
        j = i
        while j != -1:
            block[i, j] = True
            j = int(par[j])
'''


def _mask(tail: str) -> str:
    return _MASK_FRONT + tail


_WALK_FRONT = '''def greedy_tree_walk(tokens, parents, target_next):
    kids = {}
    for i, par in enumerate(parents):
        kids.setdefault(int(par), []).append(i)
    path, node = [], -1
'''

_RR_FRONT = '''def recursive_rejection(p, q, children, rng):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
'''

WRONG = {
    "ex_tree_attention_mask": {
        # test_mask_example: the node block is lower-triangular (node 3 sees node 1 and 2, its rivals)
        "siblings_visible": _mask('''    block = np.tril(np.ones((n, n), dtype=bool))       # BUG: a causal chunk mask
    mask = np.hstack([np.ones((n, P), dtype=bool), block])
    return mask, P + depth'''),
        # test_mask_example: positions [2, 3, 4, 5, 6, 7] instead of [2, 2, 3, 3, 3, 4]
        "positions_by_index": _mask('''    mask = np.hstack([np.ones((n, P), dtype=bool), block])
    return mask, P + np.arange(n, dtype=np.int64)       # BUG: list index, not depth'''),
        # test_mask_example: the first prefix_len columns are False
        "prefix_block_missing": _mask('''    mask = np.hstack([np.zeros((n, P), dtype=bool), block])   # BUG
    return mask, P + depth'''),
        # test_mask_example: node block transposed (row 0 sees its descendants)
        "transposed_mask": _mask('''    mask = np.hstack([np.ones((n, P), dtype=bool), block.T])  # BUG
    return mask, P + depth'''),
        # test_mask_example: row 5 sees node 2 but not its grandparent node 0
        "parent_only_not_ancestors": _mask('''    near = np.eye(n, dtype=bool)
    for i in range(n):
        if par[i] >= 0:
            near[i, par[i]] = True                      # BUG: the parent only
    mask = np.hstack([np.ones((n, P), dtype=bool), near])
    return mask, P + depth'''),
        # test_mask_example: a node does not see itself
        "self_not_visible": _mask('''    block[np.arange(n), np.arange(n)] = False           # BUG
    mask = np.hstack([np.ones((n, P), dtype=bool), block])
    return mask, P + depth'''),
        # test_mask_example: positions start at P + 1
        "depth_counted_from_one": _mask('''    mask = np.hstack([np.ones((n, P), dtype=bool), block])
    return mask, P + depth + 1                          # BUG'''),
        # test_mask_example: dtype check (an int mask is not a boolean mask)
        "int_mask": _mask('''    mask = np.hstack([np.ones((n, P), dtype=bool), block]).astype(np.int64)   # BUG
    return mask, P + depth'''),
        # test_mask_example (hidden): prefix_len = 0 gives a (6, 7) mask
        "prefix_len_zero_adds_a_column": _mask('''    mask = np.hstack([np.ones((n, max(P, 1)), dtype=bool), block])   # BUG: at least one prefix column
    return mask, P + depth'''),
        # test_mask_invalid: no ValueError for a node that is its own parent
        "no_validation": '''def tree_attention_mask(parents, prefix_len):
    par = [int(v) for v in np.asarray(parents).ravel()]
    n, P = len(par), int(prefix_len)
    mask = np.zeros((n, P + n), dtype=bool)
    mask[:, :P] = True
    depth = np.zeros(n, dtype=np.int64)
    for i in range(n):
        mask[i, P + i] = True
        if 0 <= par[i] < n:
            mask[i, P:] |= mask[par[i], P:]
            depth[i] = depth[par[i]] + 1
    return mask, P + depth''',
        # test_mask_invalid (hidden): accepts parents[i] > i (only checks the lower bound)
        "forward_parents_accepted": '''def tree_attention_mask(parents, prefix_len):
    par = np.asarray(parents)
    if par.ndim != 1:
        raise ValueError("parents must be one-dimensional")
    n, P = len(par), int(prefix_len)
    if np.any(par < -1) or np.any(par == np.arange(n)):
        raise ValueError("invalid parent array")
    mask = np.zeros((n, P + n), dtype=bool)
    mask[:, :P] = True
    depth = np.zeros(n, dtype=np.int64)
    for i in range(n):
        mask[i, P + i] = True
        j = int(par[i])
        if 0 <= j < n:                                  # BUG: a later parent is used as is
            mask[i, P:] |= mask[j, P:]
            depth[i] = depth[j] + 1
    return mask, P + depth''',
        **delegation_forms(MASK_DEF, "specdec.trees", "tree_attention_mask"),
        # test_mask_example (hidden): marks children of the prefix with a sentinel n written into the caller's
        # array (par = np.asarray(parents) is no copy for an integer array): the parents passed in come back changed.
        "mutates_parents_array": '''def tree_attention_mask(parents, prefix_len):
    par = np.asarray(parents)
    if par.ndim != 1:
        raise ValueError("parents must be one-dimensional")
    n, P = len(par), int(prefix_len)
    for i in range(n):
        if int(par[i]) < -1 or int(par[i]) >= i:
            raise ValueError(f"parents[{i}] = {int(par[i])} is not -1 or an earlier node")
    par[par == -1] = n                                  # BUG: in place, in the caller's array
    mask = np.zeros((n, P + n), dtype=bool)
    mask[:, :P] = True
    depth = np.zeros(n, dtype=np.int64)
    for i in range(n):
        mask[i, P + i] = True
        if par[i] != n:
            mask[i, P:] |= mask[par[i], P:]
            depth[i] = depth[par[i]] + 1
    return mask, P + depth''',
        # test_mask_example (hidden, empty tree): depths collected in a list and converted with np.array(...):
        # int64 for a real tree, float64 for an empty one.
        "empty_tree_float_positions": '''def tree_attention_mask(parents, prefix_len):
    par = np.asarray(parents)
    if par.ndim != 1:
        raise ValueError("parents must be one-dimensional")
    n, P = len(par), int(prefix_len)
    mask = np.zeros((n, P + n), dtype=bool)
    mask[:, :P] = True
    depth = []
    for i in range(n):
        j = int(par[i])
        if j < -1 or j >= i:
            raise ValueError(f"parents[{i}] = {j} is not -1 or an earlier node")
        mask[i, P + i] = True
        if j >= 0:
            mask[i, P:] |= mask[j, P:]
        depth.append(0 if j < 0 else depth[j] + 1)
    return mask, P + np.array(depth)                   # BUG: float64 when the tree is empty''',
    },
    "ex_greedy_tree_walk": {
        # test_walk_example: emitted has no extra token
        "no_extra_token": _WALK_FRONT + '''    while True:
        want = target_next[node + 1]
        match = next((c for c in kids.get(node, []) if tokens[c] == want), None)
        if match is None:
            return path, [tokens[i] for i in path]      # BUG: the target's own token is dropped
        path.append(match)
        node = match''',
        # test_walk_example: the extra token is read from entry node instead of node + 1
        "extra_token_off_by_one": _WALK_FRONT + '''    while True:
        want = target_next[node + 1]
        match = next((c for c in kids.get(node, []) if tokens[c] == want), None)
        if match is None:
            return path, [tokens[i] for i in path] + [target_next[max(node, 0)]]   # BUG
        path.append(match)
        node = match''',
        # test_walk_example: the choice after node i is read from entry i (one too early)
        "target_index_off_by_one": _WALK_FRONT + '''    while True:
        want = target_next[max(node, 0)]                # BUG: entry node, not node + 1
        match = next((c for c in kids.get(node, []) if tokens[c] == want), None)
        if match is None:
            return path, [tokens[i] for i in path] + [want]
        path.append(match)
        node = match''',
        # test_walk_example (hidden, 'sat' then 'a') and test_walk_random: matches any node one level
        # deeper, cousins included
        "match_by_depth_not_parent": '''def greedy_tree_walk(tokens, parents, target_next):
    n = len(parents)
    depth = []
    for i in range(n):
        depth.append(0 if parents[i] == -1 else depth[parents[i]] + 1)
    path, node, d = [], -1, 0
    while True:
        want = target_next[node + 1]
        match = next((c for c in range(n) if depth[c] == d and tokens[c] == want), None)   # BUG
        if match is None:
            return path, [tokens[i] for i in path] + [want]
        path.append(match)
        node, d = match, d + 1''',
        # test_walk_example (hidden, duplicate siblings): takes the last matching child
        "last_matching_child": _WALK_FRONT + '''    while True:
        want = target_next[node + 1]
        matches = [c for c in kids.get(node, []) if tokens[c] == want]
        if not matches:
            return path, [tokens[i] for i in path] + [want]
        path.append(matches[-1])                        # BUG
        node = matches[-1]''',
        # test_walk_example: only the first child of each position is compared
        "first_child_only": _WALK_FRONT + '''    while True:
        want = target_next[node + 1]
        first = kids.get(node, [])[:1]                  # BUG
        match = first[0] if first and tokens[first[0]] == want else None
        if match is None:
            return path, [tokens[i] for i in path] + [want]
        path.append(match)
        node = match''',
        **delegation_forms(WALK_DEF, "specdec.trees", "greedy_tree_walk"),
        # test_walk_example (hidden): path returned as a tuple. Same values, wrong type.
        "path_as_tuple": _WALK_FRONT + '''    while True:
        want = target_next[node + 1]
        match = next((c for c in kids.get(node, []) if tokens[c] == want), None)
        if match is None:
            return tuple(path), [tokens[i] for i in path] + [want]     # BUG: a tuple, not a list
        path.append(match)
        node = match''',
        # test_walk_example (hidden): appends the extra token to the caller's tokens list.
        "appends_to_tokens": _WALK_FRONT + '''    while True:
        want = target_next[node + 1]
        match = next((c for c in kids.get(node, []) if tokens[c] == want), None)
        if match is None:
            tokens.append(want)                         # BUG: changes the caller's list
            return path, [tokens[i] for i in path] + [tokens[-1]]
        path.append(match)
        node = match''',
    },
    "ex_recursive_rejection": {
        # the required bug: every child judged against p, last resort norm(max(p - q, 0)); test_rr_protocol (R_2 passed, R_3 expected)
        # chi-square: D 1930 (p < 1e-300) +2226 imp, H1 2223 +2824 imp, H2 720 (p 4e-151) +1485 imp
        "residual_not_updated_between_children": _RR_FRONT + '''    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < p[s] / q[s]:                  # BUG: always against p
            return s, i
    missing = np.maximum(p - q, 0.0)
    return int(rng.choice(len(p), p=missing / missing.sum())), -1''',
        # test_rr_protocol (R_2 passed after two rejections)
        # chi-square: D 1193 (p 4e-252) +630 imp, H1 291 (p 9e-56) +759 imp, H2 500 (p 7e-104)
        "residual_updated_once": _RR_FRONT + '''    R = p
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            return s, i
        if i == 0:                                      # BUG: only after the first rejection
            missing = np.maximum(p - q, 0.0)
            R = missing / missing.sum()
    return int(rng.choice(len(p), p=R)), -1''',
        # test_rr_protocol (choice with p)
        # chi-square: D 1020 (p 9e-215) +1728 imp, H1 829 +1429 imp, H2 1469 +1234 imp
        "final_draw_from_p": _RR_FRONT + '''    R = p
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            return s, i
        missing = np.maximum(R - q, 0.0)
        R = missing / missing.sum()
    return int(rng.choice(len(p), p=p)), -1            # BUG''',
        # test_rr_protocol (R_2 passed, R_3 expected)
        # chi-square: D 16.8 (p 3e-02) +205 imp, H1 38.6 (p 6e-05) +310 imp, H2 500 (p 7e-104)
        "final_draw_skips_last_update": _RR_FRONT + '''    R, last = p, p
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            return s, i
        last = R
        missing = np.maximum(R - q, 0.0)
        R = missing / missing.sum()
    return int(rng.choice(len(p), p=last if len(children) else p)), -1   # BUG: R_k, not R_{k+1}''',
        # test_rr_distribution only (the protocol cases pass: same calls, normalized final draw)
        # chi-square: D 658 (p 1e-136), H1 1342 (p 4e-281), H2 1382 (p 4e-294)
        "residual_not_normalized": _RR_FRONT + '''    R = p
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            return s, i
        R = np.maximum(R - q, 0.0)                      # BUG: not renormalized
    return int(rng.choice(len(p), p=R / R.sum())), -1''',
        # test_rr_protocol (a third rng.random() after the kept child)
        # chi-square: D 18772 +2202 imp, H1 11942 +1695 imp, H2 2278 +1461 imp
        "keeps_trying_after_acceptance": _RR_FRONT + '''    R, kept = p, None
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            kept = (s, i)                               # BUG: the last kept child wins
            continue
        missing = np.maximum(R - q, 0.0)
        if missing.sum() > 0:
            R = missing / missing.sum()
    if kept is not None:
        return kept
    return int(rng.choice(len(p), p=R)), -1''',
        # test_rr_protocol (hidden): <= instead of <. Caught first by children (1, 1, 0) with u = 0 against
        # R_2(1) = 0 (0 <= 0 keeps a used-up token), and by u == R_1(1) / q(1) = 0.5 exactly.
        # chi-square: the event u == ratio has probability 0, so the law is exact (passes D, H1, H2).
        "keeps_on_equal_ratio": _RR_FRONT + '''    R = p
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() <= R[s] / q[s]:                 # BUG: not strictly below
            return s, i
        missing = np.maximum(R - q, 0.0)
        R = missing / missing.sum()
    return int(rng.choice(len(p), p=R)), -1''',
        # test_rr_protocol (visible: no rng.random() calls recorded) and test_rr_distribution (hidden: the
        # same seed twice gives different runs). Uniforms from NumPy's global generator, unseeded.
        # chi-square: the law is exact (passes D, H1, H2; the statistic changes from run to run).
        "global_rng_uniforms": _RR_FRONT + '''    R = p
    for i, s in enumerate(children):
        s = int(s)
        if np.random.random() < R[s] / q[s]:            # BUG: not the rng handed in
            return s, i
        missing = np.maximum(R - q, 0.0)
        R = missing / missing.sum()
    return int(rng.choice(len(p), p=R)), -1''',
        # test_rr_protocol (hidden: children (1, 1, 0), the second has R_2(1) = 0 and gets no rng.random()).
        # chi-square: the law is exact (passes D, H1, H2); only the protocol differs.
        "skips_draw_when_R_zero": _RR_FRONT + '''    R = p
    for i, s in enumerate(children):
        s = int(s)
        if R[s] > 0 and rng.random() < R[s] / q[s]:    # BUG: no uniform for a certain rejection
            return s, i
        missing = np.maximum(R - q, 0.0)
        R = missing / missing.sum()
    return int(rng.choice(len(p), p=R)), -1''',
        # test_rr_protocol (hidden: "recursive_rejection changed its inputs"). Residuals written into p in place.
        # chi-square: exact (run_nodes passes copies), passes D, H1, H2.
        "residual_written_into_p": _RR_FRONT + '''    R = p                                            # no copy: R is the caller's p
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            return s, i
        R -= q                                          # BUG: in place
        np.maximum(R, 0.0, out=R)
        R /= R.sum()
    return int(rng.choice(len(p), p=R)), -1''',
        # test_rr_protocol (hidden: children as np.array([3, 1]) -> token np.int64(3), not a Python int).
        # chi-square: exact (passes D, H1, H2).
        "numpy_token_when_kept": _RR_FRONT + '''    R = p
    for i, s in enumerate(children):
        if rng.random() < R[s] / q[s]:
            return s, i                                 # BUG: s is whatever the children hold
        missing = np.maximum(R - q, 0.0)
        R = missing / missing.sum()
    return int(rng.choice(len(p), p=R)), -1''',
        **delegation_forms(RR_DEF, "specdec.tree_sampling", "recursive_rejection"),
    },
}

# The words each likely wrong answer must read in some failing test cell (its misconception named).
MESSAGES = {
    "ex_tree_attention_mask/siblings_visible": "siblings and cousins must not see each other",
    "ex_tree_attention_mask/transposed_mask": "Rows and columns are swapped",
    "ex_tree_attention_mask/self_not_visible": "must also see itself",
    "ex_tree_attention_mask/parent_only_not_ancestors": "not only its parent",
    "ex_tree_attention_mask/positions_by_index": "Positions by list index",
    "ex_tree_attention_mask/depth_counted_from_one": "have depth 0",
    "ex_tree_attention_mask/prefix_block_missing": "every node must see every prefix position",
    "ex_tree_attention_mask/int_mask": "dtype bool",
    "ex_tree_attention_mask/no_validation": "must raise ValueError",
    "ex_tree_attention_mask/mutates_parents_array": "changed the parents array",
    "ex_greedy_tree_walk/no_extra_token": "then the target's own token",
    "ex_greedy_tree_walk/target_index_off_by_one": "target_next[i + 1] its token after node i",
    "ex_greedy_tree_walk/match_by_depth_not_parent": "must not be kept",
    "ex_greedy_tree_walk/first_child_only": "although a child matches",
    "ex_greedy_tree_walk/appends_to_tokens": "changed its inputs",
    "ex_recursive_rejection/residual_not_updated_between_children": "the residual is not up",
    "ex_recursive_rejection/final_draw_from_p": "must come from R_3",
    "ex_recursive_rejection/keeps_on_equal_ratio": "0 < 0 is false",
    "ex_recursive_rejection/global_rng_uniforms": "draw every random number from the rng argument",
    "ex_recursive_rejection/residual_written_into_p": "build each residual as a new array",
}

# Correct answers written another natural way, which must keep full marks (run through the power harness
# beside WRONG): the mask by walking up each node's ancestors, or by a recursion on the parent (checks
# first); the walk by recursion, or by scanning the parent array for the first matching child at each step;
# recursive rejection with an unnormalised residual (the ratio divided by its total), or as a recursion
# over the children.
RIGHT = {
    "ex_tree_attention_mask": {
        "walk_up_ancestors": '''def tree_attention_mask(parents, prefix_len):
    parents = np.asarray(parents)
    if parents.ndim != 1:
        raise ValueError("parents must be a 1-D array")
    n = parents.shape[0]
    for i in range(n):
        if parents[i] < -1:
            raise ValueError(f"parents[{i}] is below -1")
        if parents[i] >= i:
            raise ValueError(f"parents[{i}] is not an earlier node")
    mask = np.zeros((n, prefix_len + n), dtype=bool)
    pos = np.full(n, prefix_len, dtype=np.int64)
    for i in range(n):
        mask[i, :prefix_len] = True
        j = i
        while j != -1:
            mask[i, prefix_len + j] = True
            if j != i:
                pos[i] += 1
            j = int(parents[j])
    return mask, pos
''',
        "recursive_depth": '''def tree_attention_mask(parents, prefix_len):
    par = [int(x) for x in np.asarray(parents).reshape(-1)] if np.ndim(parents) == 1 else None
    if par is None:
        raise ValueError("parents must be one-dimensional")
    for i, j in enumerate(par):
        if not -1 <= j < i:
            raise ValueError(f"parents[{i}] = {j} must be -1 or an earlier node")
    n = len(par)

    def ancestors(i):                    # i itself and everything above it
        return [i] if par[i] == -1 else [i] + ancestors(par[i])

    mask = np.zeros((n, prefix_len + n), dtype=bool)
    mask[:, :prefix_len] = True
    pos = np.zeros(n, dtype=np.int64)
    for i in range(n):
        up = ancestors(i)
        mask[i, [prefix_len + a for a in up]] = True
        pos[i] = prefix_len + len(up) - 1
    return mask, pos
''',
    },
    "ex_greedy_tree_walk": {
        "recursion": '''def greedy_tree_walk(tokens, parents, target_next):
    def walk(node):
        want = target_next[node + 1]
        for child in range(len(parents)):
            if parents[child] == node and tokens[child] == want:
                path, emitted = walk(child)
                return [child] + path, [tokens[child]] + emitted
        return [], [want]
    return walk(-1)
''',
        "scan_parent_array": '''def greedy_tree_walk(tokens, parents, target_next):
    path = []
    current = -1
    while True:
        choice = target_next[current + 1]
        nxt = next((i for i in range(len(tokens)) if parents[i] == current and tokens[i] == choice), None)
        if nxt is None:
            break
        path.append(nxt)
        current = nxt
    emitted = [tokens[i] for i in path]
    emitted.append(target_next[current + 1])
    return path, emitted
''',
    },
    "ex_recursive_rejection": {
        "unnormalised_residual": '''def recursive_rejection(p, q, children, rng):
    M = np.array(p, dtype=float)               # R_i up to a constant
    for i in range(len(children)):
        s = int(children[i])
        if rng.random() < M[s] / (M.sum() * q[s]):
            return s, i
        M = np.clip(M / M.sum() - q, 0.0, None)
    return int(rng.choice(len(M), p=M / M.sum())), -1
''',
        "recursion_over_children": '''def recursive_rejection(p, q, children, rng):
    def node(R, i):
        if i == len(children):
            return int(rng.choice(len(R), p=R)), -1
        s = int(children[i])
        if rng.random() < R[s] / q[s]:
            return s, i
        gap = np.maximum(R - q, 0)
        return node(gap / gap.sum(), i + 1)
    return node(np.asarray(p, dtype=float), 0)
''',
    },
}
