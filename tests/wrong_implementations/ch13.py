"""Wrong answers to chapter 13's coding drills (solutions/13_interview_drills.ipynb).

Each value replaces the whole solution cell with that grade_id; every one must lose points
while the reference solutions keep them all. Every drill also has the three ways of handing
the work to the course library (delegation_forms), refused by the hidden assert_own_work
check at the top of each of its test cells.

Sampling drills are graded by Pearson chi-square (autograder.stats.assert_distribution,
fails below p = 1e-6). The comments give each bug's statistic in the first chi-square check
that sees it, with the tests' fixed seeds ("impossible" = an outcome of probability 0 came
out, which fails at once):

    R  = test_drill_residual_sample_distribution, visible: p=(0.1,0.4,0.2,0.3), q=(0.3,0.1,0.1,0.5), 4,000 draws
    RH = test_drill_residual_sample_distribution, hidden: three random pairs of 6 tokens, 3,000 draws each
    V1 = check_speculative_verify (visible, in both verify test cells): first token vs p[0], 4,000 rounds
    V2 = test_drill_verify_distribution, visible: length of the emitted list, 3,000 rounds
    VH = test_drill_verify_distribution, hidden: whole emitted lists, gamma 2 / V 3 (6,000) and gamma 3 / V 3 (8,000)

The reference solutions get R 0 (1 dof), RH 2 / 0 / 0, V1 8 (2 dof, p 0.02), V2 3 (2 dof),
VH 28 (29 dof) and 52 (51 dof). The statistics below were computed with the tests' seeds and
the earlier asserts of the cell disabled (a test cell stops at its first failing assert).
The other drills are deterministic; their comments name the first failing case.

Exercise 13.8 (verify_batch, PyTorch) has two chi-square checks:

    F = check_verify_batch (visible): first emitted token of 4,000 sequences vs p[b, 0], V = 4
    H = test_drill_batch_distribution, hidden: whole emitted lists of three pairs (gamma 3, V 3),
        8,000 sequences each, interleaved in one batch

The reference gets F 1 (3 dof, p 0.70) and H 43 / 70 / 48 (47 / 73 / 57 dof). Bugs that are right
in distribution (the global generator, a generator of its own, a loop over the batch, in-place
writes, dtypes, padding, missing shape checks) are caught by the generator, contract and format
checks named in their comments.

One class of bug cannot be caught by distribution in the sampling drills: '<=' instead of '<' in
the acceptance test changes the outcome only when the uniform equals p/q exactly, an event of
probability 0 (2^-24 per draw for a float32 uniform). Drill 13.2 catches it with scripted
uniforms (RecordingGenerator); drill 13.8 takes a torch.Generator, whose draws cannot be
scripted, so its tests do not claim to.
"""
from tests.wrong_implementations.delegation import delegation_forms

WRONG = {
    "ex_drill_residual_sample": {
        # Samples from p instead of the residual. Fails the first visible assert (residual (1, 0, 0));
        # R: 1,583 draws of probability-0 tokens; RH: 881 / 1,522 / 1,358 impossible draws.
        "sample_from_p": '''def residual_sample(p, q, rng):
    p = np.asarray(p, dtype=float)
    if np.allclose(p, q):
        raise ValueError("p == q")
    return int(rng.choice(len(p), p=p))''',
        # |p - q| normalized: gives mass to tokens the draft over-proposes. Fails the first visible assert;
        # R: 2,017 impossible draws; RH: 1,493 / 1,492 / 1,519.
        "absolute_difference": '''def residual_sample(p, q, rng):
    r = np.abs(np.asarray(p, dtype=float) - np.asarray(q, dtype=float))
    if r.sum() <= 1e-12:
        raise ValueError("p == q")
    return int(rng.choice(len(r), p=r / r.sum()))''',
        # max(0, q - p): the draft's excess instead of the target's. First visible assert gives token 1;
        # R: all 4,000 draws impossible; RH: all 3,000 of each case.
        "q_minus_p": '''def residual_sample(p, q, rng):
    r = np.maximum(np.asarray(q, dtype=float) - np.asarray(p, dtype=float), 0.0)
    if r.sum() <= 1e-12:
        raise ValueError("p == q")
    return int(rng.choice(len(r), p=r / r.sum()))''',
        # Takes the argmax of the residual instead of sampling. R: chi-square 1,333 on 1 dof (p 6e-292);
        # RH: 928 on 2 dof (p 3e-202), 4,253 on 3 dof, 2,497 on 1 dof (p below 1e-300).
        "argmax_of_residual": '''def residual_sample(p, q, rng):
    r = np.maximum(np.asarray(p, dtype=float) - np.asarray(q, dtype=float), 0.0)
    if r.sum() <= 1e-12:
        raise ValueError("p == q")
    return int(np.argmax(r))''',
        # Falls back to p when p == q instead of raising. Same distribution as the reference (R 0, RH 2 / 0 / 0);
        # caught by test_drill_residual_sample_edge_cases (p == q = [0.25, 0.25, 0.5] must raise ValueError).
        "no_value_error": '''def residual_sample(p, q, rng):
    p = np.asarray(p, dtype=float)
    r = np.maximum(p - np.asarray(q, dtype=float), 0.0)
    if r.sum() <= 1e-12:
        return int(rng.choice(len(p), p=p))
    return int(rng.choice(len(r), p=r / r.sum()))''',
        # Draws from np.random instead of the given rng. Right law; the hidden seed test (two generators seeded
        # 5, different global seeds) gets different samples.
        "global_numpy_random": '''def residual_sample(p, q, rng):
    r = np.maximum(np.asarray(p, dtype=float) - np.asarray(q, dtype=float), 0.0)
    if r.sum() <= 1e-12:
        raise ValueError("p == q")
    return int(np.random.choice(len(r), p=r / r.sum()))''',
        # Ignores rng for a generator of its own, seeded 0 inside. Every call gives the same token: RH sees
        # 3,000 copies of one token (chi-square far beyond the threshold); the hidden seed test sees seeds 5 and 6 agree.
        "own_fixed_generator": '''def residual_sample(p, q, rng):
    r = np.maximum(np.asarray(p, dtype=float) - np.asarray(q, dtype=float), 0.0)
    if r.sum() <= 1e-12:
        raise ValueError("p == q")
    return int(np.random.default_rng(0).choice(len(r), p=r / r.sum()))''',
        # Returns rng.choice(..., size=1): an array of one element, not a token id. The tests' int() conversion
        # raises TypeError; the hidden type check names it.
        "returns_array": '''def residual_sample(p, q, rng):
    r = np.maximum(np.asarray(p, dtype=float) - np.asarray(q, dtype=float), 0.0)
    if r.sum() <= 1e-12:
        raise ValueError("p == q")
    return rng.choice(len(r), size=1, p=r / r.sum())''',
        # Tests p == q with np.allclose: raises on a real residual of mass 1e-6 (hidden edge case).
        "allclose_means_equal": '''def residual_sample(p, q, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    if np.allclose(p, q):
        raise ValueError("p == q")
    r = np.maximum(p - q, 0.0)
    return int(rng.choice(len(r), p=r / r.sum()))''',
        # Computes the residual in the caller's array (p -= q). Right law on lists (R 0); the visible edge case
        # passes arrays and finds them changed.
        "residual_in_place": '''def residual_sample(p, q, rng):
    p = np.asarray(p, dtype=float)
    p -= np.asarray(q, dtype=float)
    np.maximum(p, 0.0, out=p)
    if p.sum() <= 1e-12:
        raise ValueError("p == q")
    return int(rng.choice(len(p), p=p / p.sum()))''',
        **delegation_forms("def residual_sample(p, q, rng):", "specdec.distributions", "residual"),
    },
    "ex_drill_speculative_verify": {
        # Resamples from p after a rejection. Visible protocol case: residual (1, 0, 0) expected, p[0] used.
        # V1: 401 on 2 dof (p 9e-88); V2: 3 (lengths unchanged: a speed dashboard sees nothing);
        # VH: 905 and 1,989 impossible lists.
        "resample_from_p": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        out.append(int(rng.choice(V, p=p[i])))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # Keeps the later drafts after a rejection. Visible protocol case: emits [0, 1] instead of [0].
        # V1: 8 (the first token is still right); V2: 2,097 on 2 dof; VH: 918 and 3,527 impossible lists.
        "keep_drafts_after_rejection": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        out.extend(int(t) for t in drafts[i + 1:])
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # Accepts a draft when it is the target's argmax; no uniform drawn. Visible protocol: calls [choice] only.
        # V1: 4,000 on 2 dof; V2: 3,582 on 2 dof; VH: 8,316 on 29 dof and 9,863 on 51 dof (p below 1e-300).
        "accept_on_argmax": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if x == int(np.argmax(p[i])):
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # Compares the uniform with q/p instead of p/q. Visible protocol case (keep probability 0.5 becomes 1).
        # V1: 1,814 on 2 dof; V2: 776 on 2 dof (p 3e-169); VH: 11,780 on 29 dof and 35,167 on 51 dof.
        "ratio_upside_down": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < q[i, x] / p[i, x]:
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # The bonus after a full acceptance comes from p[gamma - 1] (an off-by-one row). The calls are right
        # but the visible check's bonus p differs. V1: 8 and V2: 3 (unchanged); VH: 686 on 29 dof (p 8e-126)
        # and 13,099 on 51 dof.
        "bonus_from_wrong_row": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma - 1])))
    return out''',
        # Keeps when the uniform EQUALS p/q (<= instead of <). Invisible to chi-square (an event of probability
        # 0 for continuous uniforms); the hidden protocol case scripts uniform 0.5 = 0.2 / 0.4 and expects a rejection.
        "non_strict_inequality": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() <= p[i, x] / q[i, x]:
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # Returns a NumPy array instead of a list: hidden type check.
        "returns_array": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return np.array(out)
    out.append(int(rng.choice(V, p=p[gamma])))
    return np.array(out)''',
        # Writes the residual into the caller's p (p[i] -= q[i]). The visible distribution test reuses its p and
        # goes wrong; the hidden check of unchanged inputs names it.
        "residual_in_place": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        p[i] -= q[i]
        np.maximum(p[i], 0.0, out=p[i])
        out.append(int(rng.choice(V, p=p[i] / p[i].sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        **delegation_forms("def speculative_verify(p, q, drafts, rng):", "specdec.speculative", "verify_round"),
    },
    "ex_drill_greedy_speculative_generate": {
        # No speculation: one target call per token. Right text; visible perfect-draft case needs 5 calls, makes 20.
        "placeholder_no_speculation": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = list(prompt)
    n = 0
    while len(tokens) < len(prompt) + n_new:
        tokens.append(int(np.argmax(target_logits(tokens)[-1])))
        n += 1
    return tokens, n''',
        # No bonus token after a fully accepted draft. Visible perfect-draft case: 7 calls instead of 5.
        "no_bonus_token": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = list(prompt)
    end = len(tokens) + n_new
    n = 0
    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        tokens += drafts if (J == k and k > 0) else drafts[:J] + [choices[J]]
    return tokens, n''',
        # Emits the draft's token at the first mismatch. Visible case seed 0, noise 0.5, gamma 3: wrong text.
        "emits_draft_at_mismatch": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = list(prompt)
    end = len(tokens) + n_new
    n = 0
    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J + 1] if J < k else drafts + [choices[k]]
    return tokens, n''',
        # Overshoots: drafts gamma every round and never cuts the output. Visible case n_new=20, gamma=3, noise 0.5: too long.
        "overshoots_n_new": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = list(prompt)
    end = len(tokens) + n_new
    n = 0
    while len(tokens) < end:
        drafts = []
        for _ in range(gamma):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < gamma and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
    return tokens, n''',
        # Returns a made-up count (rounds estimated from the length) instead of counting. Visible: the count differs
        # from the models' own counter (seed 0, noise 0.5, gamma 3).
        "estimated_call_count": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = list(prompt)
    end = len(tokens) + n_new
    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
    return tokens, -(-n_new // (gamma + 1))''',
        # Keeps a draft that merely TIES with the target's best logit (a tie broken the other way). The toy models
        # have no ties; the hidden case with integer logits and a draft that picks the last tied id catches it.
        "accepts_any_argmax": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = list(prompt)
    end = len(tokens) + n_new
    n = 0
    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n += 1
        J = 0
        while J < k and rows[J, drafts[J]] == rows[J].max():
            J += 1
        tokens += drafts[:J] + [int(np.argmax(rows[J]))]
    return tokens, n''',
        # Works in the caller's prompt list (tokens = prompt): the hidden check of the prompt after a call.
        "aliases_prompt": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = prompt
    end = len(tokens) + n_new
    n = 0
    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
    return tokens, n''',
        # plain_greedy is the only library code that writes the text; the thin forms hand the text to it.
        "delegate_same_object": '''from specdec.toy_lm import plain_greedy

def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    write = plain_greedy
    return write(target_logits, list(prompt), n_new), -(-n_new // (gamma + 1))''',
        "delegate_thin_wrapper": '''from specdec.toy_lm import plain_greedy

def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    return plain_greedy(target_logits, list(prompt), n_new), -(-n_new // (gamma + 1))''',
        "delegate_through_module": '''import specdec.toy_lm as toy_lm_lib

def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    return toy_lm_lib.plain_greedy(target_logits, list(prompt), n_new), -(-n_new // (gamma + 1))''',
    },
    "ex_drill_survival_from_acceptance_matrix": {
        # The diagonal entry (A^i)[start, start] instead of the row sum: visible case gives [0.5, 0.27].
        "diagonal_entry": '''def survival_from_acceptance_matrix(A, start, gamma):
    A = np.asarray(A, dtype=float)
    return np.array([np.linalg.matrix_power(A, i)[start, start] for i in range(1, gamma + 1)])''',
        # Column sums (A transposed): visible case gives [0.7, ...] instead of [0.6, 0.4].
        "column_sum": '''def survival_from_acceptance_matrix(A, start, gamma):
    A = np.asarray(A, dtype=float)
    return np.array([np.linalg.matrix_power(A, i)[:, start].sum() for i in range(1, gamma + 1)])''',
        # Off by one: a_0 .. a_{gamma-1} (starts at the identity). Visible case gives [1.0, 0.6].
        "starts_at_identity": '''def survival_from_acceptance_matrix(A, start, gamma):
    A = np.asarray(A, dtype=float)
    return np.array([np.linalg.matrix_power(A, i)[start].sum() for i in range(gamma)])''',
        # The i.i.d. shortcut alpha(start)^i: right in the visible i.i.d. case, wrong in the first (0.36, not 0.4).
        "iid_approximation": '''def survival_from_acceptance_matrix(A, start, gamma):
    A = np.asarray(A, dtype=float)
    return A[start].sum() ** np.arange(1, gamma + 1)''',
        # Returns a list of floats instead of a float array: hidden type check.
        "returns_list": '''def survival_from_acceptance_matrix(A, start, gamma):
    A = np.asarray(A, dtype=float)
    row = np.eye(len(A))[start]
    out = []
    for _ in range(gamma):
        row = row @ A
        out.append(float(row.sum()))
    return out''',
        # matrix_power on an integer A gives an int64 result: hidden case A = identity as integers.
        "integer_powers": '''def survival_from_acceptance_matrix(A, start, gamma):
    A = np.asarray(A)
    return np.array([np.linalg.matrix_power(A, i)[start].sum() for i in range(1, gamma + 1)])''',
        # Accumulates the powers in the caller's A (A[:] = A @ base): right values, A destroyed (hidden check).
        "powers_in_place": '''def survival_from_acceptance_matrix(A, start, gamma):
    A = np.asarray(A, dtype=float)
    base = A.copy()
    out = np.empty(gamma)
    for i in range(gamma):
        out[i] = A[start].sum()
        A[:] = A @ base
    return out''',
        **delegation_forms("def survival_from_acceptance_matrix(A, start, gamma):", "specdec.bigram", "survival_probabilities"),
    },
    "ex_drill_tree_attention_mask": {
        # Node i sees only its parent and itself, not the grandparents: row 5 of the example misses node 0.
        "parent_only": '''def tree_attention_mask(parents, prefix_len):
    n = len(parents)
    mask = np.zeros((n, prefix_len + n), dtype=bool)
    mask[:, :prefix_len] = True
    depth = np.zeros(n, dtype=np.int64)
    for i, parent in enumerate(parents):
        mask[i, prefix_len + i] = True
        if parent >= 0:
            mask[i, prefix_len + parent] = True
            depth[i] = depth[parent] + 1
    return mask, prefix_len + depth''',
        # A plain causal mask over the nodes: siblings and cousins visible (row 1 of the example sees node 0).
        "causal_not_tree": '''def tree_attention_mask(parents, prefix_len):
    n = len(parents)
    mask = np.ones((n, prefix_len + n), dtype=bool)
    mask[:, prefix_len:] = np.tril(np.ones((n, n), dtype=bool))
    depth = np.zeros(n, dtype=np.int64)
    for i, parent in enumerate(parents):
        if parent >= 0:
            depth[i] = depth[parent] + 1
    return mask, prefix_len + depth''',
        # Positions count from the node index instead of the depth: [2, 3, 4, 5, 6, 7] in the example.
        "positions_by_index": '''def tree_attention_mask(parents, prefix_len):
    n = len(parents)
    mask = np.zeros((n, prefix_len + n), dtype=bool)
    mask[:, :prefix_len] = True
    for i, parent in enumerate(parents):
        mask[i, prefix_len + i] = True
        if parent >= 0:
            mask[i, prefix_len:] |= mask[parent, prefix_len:]
    return mask, prefix_len + np.arange(n, dtype=np.int64)''',
        # Forgets the node's own column: row 0 of the example is all False in the node block.
        "no_self": '''def tree_attention_mask(parents, prefix_len):
    n = len(parents)
    mask = np.zeros((n, prefix_len + n), dtype=bool)
    mask[:, :prefix_len] = True
    depth = np.zeros(n, dtype=np.int64)
    for i, parent in enumerate(parents):
        if parent >= 0:
            mask[i, prefix_len:] |= mask[parent, prefix_len:]
            mask[i, prefix_len + parent] = True
            depth[i] = depth[parent] + 1
    return mask, prefix_len + depth''',
        # An int mask (0/1) and float positions: same numbers, wrong dtypes (the visible test checks both).
        "wrong_dtypes": '''def tree_attention_mask(parents, prefix_len):
    n = len(parents)
    mask = np.zeros((n, prefix_len + n), dtype=int)
    mask[:, :prefix_len] = 1
    depth = np.zeros(n)
    for i, parent in enumerate(parents):
        mask[i, prefix_len + i] = 1
        if parent >= 0:
            mask[i, prefix_len:] |= mask[parent, prefix_len:]
            depth[i] = depth[parent] + 1
    return mask, prefix_len + depth''',
        # Builds the positions with np.array([...]) from a list: int64 for a non-empty tree, float64 for the
        # empty one (the boundary case n = 0 in the hidden tests).
        "positions_from_list": '''def tree_attention_mask(parents, prefix_len):
    n = len(parents)
    mask = np.zeros((n, prefix_len + n), dtype=bool)
    mask[:, :prefix_len] = True
    depth = []
    for i, parent in enumerate(parents):
        mask[i, prefix_len + i] = True
        if parent >= 0:
            mask[i, prefix_len:] |= mask[parent, prefix_len:]
        depth.append(0 if parent < 0 else depth[parent] + 1)
    return mask, np.array([prefix_len + d for d in depth])''',
        **delegation_forms("def tree_attention_mask(parents, prefix_len):", "specdec.trees", "tree_attention_mask"),
    },
    "ex_drill_greedy_tree_walk": {
        # Steps to any later node with the right token, whatever its parent. The visible cases happen to walk
        # right; the hidden random trees catch it (a matching node that is not a child of the last kept node).
        "ignores_parents": '''def greedy_tree_walk(tokens, parents, target_next):
    path, node = [], -1
    while True:
        want = target_next[node + 1]
        match = next((c for c in range(node + 1, len(tokens)) if tokens[c] == want), None)
        if match is None:
            return path, [tokens[i] for i in path] + [want]
        path.append(match)
        node = match''',
        # Takes the last matching child: duplicate-sibling case walks [1, 2] instead of [0, 3].
        "last_matching_child": '''def greedy_tree_walk(tokens, parents, target_next):
    path, node = [], -1
    while True:
        want = target_next[node + 1]
        kids = [c for c in range(len(tokens)) if parents[c] == node and tokens[c] == want]
        if not kids:
            return path, [tokens[i] for i in path] + [want]
        path.append(kids[-1])
        node = kids[-1]''',
        # Forgets the target's token at the stopping point: the example emits ['sat', 'on'].
        "no_extra_token": '''def greedy_tree_walk(tokens, parents, target_next):
    path, node = [], -1
    while True:
        want = target_next[node + 1]
        match = next((c for c in range(len(tokens)) if parents[c] == node and tokens[c] == want), None)
        if match is None:
            return path, [tokens[i] for i in path]
        path.append(match)
        node = match''',
        # Reads the target's choice after node v at target_next[v] (off by one): the example stops at once.
        "off_by_one_choice": '''def greedy_tree_walk(tokens, parents, target_next):
    path, node = [], -1
    while True:
        want = target_next[max(node, 0)]
        match = next((c for c in range(len(tokens)) if parents[c] == node and tokens[c] == want), None)
        if match is None:
            return path, [tokens[i] for i in path] + [want]
        path.append(match)
        node = match''',
        **delegation_forms("def greedy_tree_walk(tokens, parents, target_next):", "specdec.trees", "greedy_tree_walk"),
    },
    "ex_drill_trim_block_table": {
        # Floor instead of ceiling: drops a partly used block. Visible: length 9 -> 5 keeps [7] instead of [7, 3].
        "floor_blocks": '''def trim_block_table(table, free, length, new_length, block_size):
    if not 0 <= new_length <= length <= len(table) * block_size:
        raise ValueError("bad lengths")
    keep = new_length // block_size
    return list(table[:keep]), list(free) + list(reversed(table[keep:]))''',
        # Keeps one block too many when new_length is a multiple of the block size: 9 -> 4 keeps [7, 3].
        "keeps_an_empty_block": '''def trim_block_table(table, free, length, new_length, block_size):
    if not 0 <= new_length <= length <= len(table) * block_size:
        raise ValueError("bad lengths")
    keep = min(len(table), new_length // block_size + 1)
    return list(table[:keep]), list(free) + list(reversed(table[keep:]))''',
        # Never returns dropped blocks to the free list (a leak): 9 -> 4 gives free [0, 1].
        "leaks_blocks": '''def trim_block_table(table, free, length, new_length, block_size):
    if not 0 <= new_length <= length <= len(table) * block_size:
        raise ValueError("bad lengths")
    keep = -(-new_length // block_size)
    return list(table[:keep]), list(free)''',
        # Trims in place: right result, but the caller's lists change (visible: input lists modified).
        "mutates_inputs": '''def trim_block_table(table, free, length, new_length, block_size):
    if not 0 <= new_length <= length <= len(table) * block_size:
        raise ValueError("bad lengths")
    keep = -(-new_length // block_size)
    while len(table) > keep:
        free.append(table.pop())
    return table, free''',
        # Frees the dropped blocks first-to-last: 9 -> 4 gives free [0, 1, 3, 5] instead of [0, 1, 5, 3].
        "free_order_reversed": '''def trim_block_table(table, free, length, new_length, block_size):
    if not 0 <= new_length <= length <= len(table) * block_size:
        raise ValueError("bad lengths")
    keep = -(-new_length // block_size)
    return list(table[:keep]), list(free) + list(table[keep:])''',
        # No check of new_length: 9 -> 10 returns the table unchanged instead of raising.
        "no_value_error": '''def trim_block_table(table, free, length, new_length, block_size):
    keep = -(-new_length // block_size)
    return list(table[:keep]), list(free) + list(reversed(table[keep:]))''',
        # Omits 0 <= new_length: new_length -1 trims everything instead of raising (hidden).
        "no_negative_check": '''def trim_block_table(table, free, length, new_length, block_size):
    if not new_length <= length <= len(table) * block_size:
        raise ValueError("bad lengths")
    keep = -(-new_length // block_size)
    return list(table[:keep]), list(free) + list(reversed(table[keep:]))''',
        # Omits length <= len(table) * block_size: length 13 with 12 slots passes silently (hidden).
        "no_capacity_check": '''def trim_block_table(table, free, length, new_length, block_size):
    if not 0 <= new_length <= length:
        raise ValueError("bad lengths")
    keep = -(-new_length // block_size)
    return list(table[:keep]), list(free) + list(reversed(table[keep:]))''',
        # length < capacity instead of <=: raises on a full table, the largest admissible length (hidden).
        "capacity_check_strict": '''def trim_block_table(table, free, length, new_length, block_size):
    if not 0 <= new_length <= length < len(table) * block_size:
        raise ValueError("bad lengths")
    keep = -(-new_length // block_size)
    return list(table[:keep]), list(free) + list(reversed(table[keep:]))''',
        # Returns tuples instead of two new lists (hidden type check).
        "returns_tuples": '''def trim_block_table(table, free, length, new_length, block_size):
    if not 0 <= new_length <= length <= len(table) * block_size:
        raise ValueError("bad lengths")
    keep = -(-new_length // block_size)
    return tuple(table[:keep]), tuple(free) + tuple(reversed(table[keep:]))''',
        **delegation_forms("def trim_block_table(table, free, length, new_length, block_size):", "specdec.paged_cache", "trim"),
    },
    "ex_drill_verify_batch": {
        # n = number of keeps, not of LEADING keeps. Visible case p(x) = 0 at position 0 (later drafts kept);
        # F 897 on 3 dof (p 3e-194); H 73,189 / 39,198 / 75,196 on 47 / 73 / 57 dof.
        "counts_all_keeps": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # Emits a token of p (not the residual) after a rejection. F 202 on 3 dof (p 1e-43);
        # H 1,947 / 953 / 4,010 with 880 / 994 / 1,146 impossible lists.
        "resample_from_p": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = p_n.clone()                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # After a full acceptance subtracts q[gamma - 1] from the bonus row (clamped index, no zero row).
        # F 1 (the first token is right); H 322 on 47 dof (p 1e-42), 1,856 on 73, 308 on 57 (p 5e-36).
        "bonus_against_last_q": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)]   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # n = argmax of the rejection mask: 0 when every draft is kept (the all-kept boundary). Crashes the visible
        # p = q case (empty residual); F 447 on 3 dof; H 1,982 / 3,363 / 2,042.
        "first_rejection_by_argmax": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = (~keep).long().argmax(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # Keeps when u < q/p. Visible case p(x) = 0 keeps; F 1,113 on 3 dof; H 163,772 / 56,926 / 66,790.
        "ratio_upside_down": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * p_x < q_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # torch.rand / torch.multinomial without generator=: the global torch generator. Right law (F 1, H 61 / 82 / 51);
        # the visible seed check and the hidden global-state checks catch it.
        "global_generator": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # A torch.Generator of its own, seeded 0, instead of the given one: reproducible and of the right law
        # in one call (F 6, H 48 / 94 / 51); the hidden checks see the given generator unused.
        "own_fixed_generator": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    generator = torch.Generator().manual_seed(0)
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # Gathers p_{i+1}(x_i) instead of p_i(x_i) (reads the row after the draft). Crashes the visible case;
        # F 1,680 on 3 dof; H 19,618 / 29,305 / 53,557.
        "peeks_at_next_row": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, 1:].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # Pads with 0 instead of -1: visible case p(x) = 0 expects [1, -1, -1, -1]; hidden row format.
        "pads_with_zero": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.zeros((B, gamma + 1), dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # Copies all drafts into tokens, so drafts after the extra token remain: visible and hidden row format.
        "keeps_drafts_after_rejection": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = drafts.long()
    tokens[rows, n] = extra
    return tokens, n''',
        # Returns int32 tensors: visible and hidden dtype checks.
        "int32_outputs": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens.int(), n.int()''',
        # No ValueError on bad shapes: the hidden checks get an IndexError from inside torch instead.
        "no_shape_check": '''def verify_batch(p, q, drafts, generator):
    B, gamma, V = q.shape
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # Checks the number of dimensions only: p with gamma rows passes into an IndexError.
        "checks_only_ndim": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if False:
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # Checks p's shape but not drafts': drafts with 3 columns for gamma = 2 pass into a RuntimeError.
        "checks_only_p": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # Exact, uses the generator, but loops over the sequences in Python: 77 lines run at B = 4,
        # 1,091 at B = 64 (the hidden line count; the reference runs the same number at both).
        "loops_over_batch": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError("bad shapes")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError("bad shapes")
    n = torch.zeros(B, dtype=torch.int64)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64)
    for b in range(B):
        k = 0
        while k < gamma:
            x = int(drafts[b, k])
            u = torch.rand(1, generator=generator, dtype=p.dtype)
            if u * q[b, k, x] < p[b, k, x]:
                tokens[b, k] = x
                k += 1
            else:
                break
        if k < gamma:
            r = (p[b, k] - q[b, k]).clamp_min(0.0)
        else:
            r = p[b, gamma]
        tokens[b, k] = torch.multinomial(r, 1, generator=generator)[0]
        n[b] = k
    return tokens, n''',
        # Writes the residuals into the caller's p (p[:, :gamma].sub_(q)): right output once, p destroyed;
        # the tests that reuse p go wrong and the hidden check of unchanged inputs names it.
        "residual_in_place": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p[:, :gamma].sub_(q).clamp_(min=0.0)
    residual = p[rows, n]
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # Returns the pair in the other order, (n, tokens): the visible test names the swap.
        "returns_n_first": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype, device=p.device)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    residual = torch.where(residual.sum(-1, keepdim=True) > 0, residual, p_n)   # (B, V) p == q up to rounding: no mass left
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return n, tokens''',
        # One uniform per position shared by every sequence (shape (1, gamma)): every sequence decides alike.
        # Caught by the visible one-uniform check (all 4,000 sequences keep the same number of drafts).
        "shared_uniform_rows": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(1, gamma, generator=generator, dtype=p.dtype, device=p.device).expand(B, gamma)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    residual = torch.where(residual.sum(-1, keepdim=True) > 0, residual, p_n)   # (B, V) p == q up to rounding: no mass left
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # One uniform per sequence shared along its positions (shape (B, 1)): all drafts kept or none at p/q = 1/2.
        # Caught by the visible one-uniform check (no sequence stops after one or two kept drafts).
        "shared_uniform_positions": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError(f"expected p (B, gamma+1, V), q (B, gamma, V), drafts (B, gamma); got shapes "
                         f"{tuple(p.shape)}, {tuple(q.shape)}, {tuple(drafts.shape)}")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError(f"for q of shape {tuple(q.shape)}, p must be {(B, gamma + 1, V)} and drafts {(B, gamma)}; "
                         f"got {tuple(p.shape)} and {tuple(drafts.shape)}")
    x = drafts.long().unsqueeze(-1)                                   # (B, gamma, 1)
    p_x = p[:, :gamma].gather(-1, x).squeeze(-1)                      # (B, gamma)
    q_x = q.gather(-1, x).squeeze(-1)                                 # (B, gamma)
    u = torch.rand(B, 1, generator=generator, dtype=p.dtype, device=p.device).expand(B, gamma)
    keep = u * q_x < p_x                                              # (B, gamma): u < p/q without a division
    n = keep.long().cumprod(dim=1).sum(dim=1)                         # (B,) leading keeps only
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]                                                  # (B, V) the row where each sequence stops
    q_n = q[rows, n.clamp(max=gamma - 1)] * (n < gamma).unsqueeze(-1).to(q.dtype)   # (B, V) zero at the bonus
    residual = (p_n - q_n).clamp_min(0.0)                             # (B, V) = p[gamma] when all were kept
    residual = torch.where(residual.sum(-1, keepdim=True) > 0, residual, p_n)   # (B, V) p == q up to rounding: no mass left
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(-1)        # (B,)
    pos = torch.arange(gamma, device=p.device)                        # (gamma,)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64, device=p.device)
    tokens[:, :gamma] = torch.where(pos < n.unsqueeze(-1), drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n''',
        # The library returns (tokens, n), the drill's order: the three forms.
        **delegation_forms("def verify_batch(p, q, drafts, generator):", "specdec.engine.batched", "batched_verify"),
    },
    "ex_drill_prompt_lookup_draft": {
        # The earliest occurrence instead of the most recent: visible 'a b c X a b c Y a b c' gives ['X', 'a'].
        "earliest_match": '''def prompt_lookup_draft(context, n, k):
    if n < 1 or k < 0:
        raise ValueError("n >= 1 and k >= 0")
    L = len(context)
    for m in range(min(n, L - 1), 0, -1):
        suffix = list(context[L - m:])
        for start in range(0, L - m):
            if list(context[start:start + m]) == suffix:
                return list(context[start + m:start + m + k])
    return []''',
        # Only the full length n, no shorter suffix: visible [5, 6, 7, 8, 6], n = 3 gives [].
        "no_fallback": '''def prompt_lookup_draft(context, n, k):
    if n < 1 or k < 0:
        raise ValueError("n >= 1 and k >= 0")
    L = len(context)
    m = min(n, L - 1)
    if m < 1:
        return []
    suffix = list(context[L - m:])
    for start in range(L - m - 1, -1, -1):
        if list(context[start:start + m]) == suffix:
            return list(context[start + m:start + m + k])
    return []''',
        # Lets the suffix match itself (start up to L - m): the proposal is always empty; visible first case.
        "matches_itself": '''def prompt_lookup_draft(context, n, k):
    if n < 1 or k < 0:
        raise ValueError("n >= 1 and k >= 0")
    L = len(context)
    for m in range(min(n, L), 0, -1):
        suffix = list(context[L - m:])
        for start in range(L - m, -1, -1):
            if list(context[start:start + m]) == suffix:
                return list(context[start + m:start + m + k])
    return []''',
        # Returns the matched n-gram and what follows, from the start of the match: visible first case.
        "returns_the_ngram": '''def prompt_lookup_draft(context, n, k):
    if n < 1 or k < 0:
        raise ValueError("n >= 1 and k >= 0")
    L = len(context)
    for m in range(min(n, L - 1), 0, -1):
        suffix = list(context[L - m:])
        for start in range(L - m - 1, -1, -1):
            if list(context[start:start + m]) == suffix:
                return list(context[start:start + k])
    return []''',
        # Ignores k: returns everything after the match; visible k = 3 case.
        "ignores_k": '''def prompt_lookup_draft(context, n, k):
    if n < 1 or k < 0:
        raise ValueError("n >= 1 and k >= 0")
    L = len(context)
    for m in range(min(n, L - 1), 0, -1):
        suffix = list(context[L - m:])
        for start in range(L - m - 1, -1, -1):
            if list(context[start:start + m]) == suffix:
                return list(context[start + m:])
    return []''',
        # No ValueError for n = 0 or k = -1 (hidden).
        "no_value_error": '''def prompt_lookup_draft(context, n, k):
    L = len(context)
    for m in range(min(n, L - 1), 0, -1):
        suffix = list(context[L - m:])
        for start in range(L - m - 1, -1, -1):
            if list(context[start:start + m]) == suffix:
                return list(context[start + m:start + m + max(k, 0)])
    return []''',
        # A tuple instead of a list: the first visible assert.
        "returns_tuple": '''def prompt_lookup_draft(context, n, k):
    if n < 1 or k < 0:
        raise ValueError("n >= 1 and k >= 0")
    L = len(context)
    for m in range(min(n, L - 1), 0, -1):
        suffix = tuple(context[L - m:])
        for start in range(L - m - 1, -1, -1):
            if tuple(context[start:start + m]) == suffix:
                return tuple(context[start + m:start + m + k])
    return ()''',
        **delegation_forms("def prompt_lookup_draft(context, n, k):", "specdec.ngram", "ngram_draft"),
    },
    "ex_drill_verify_node": {
        # Every child tested against p, the last draw from p: too many draft-liked tokens. Visible chi-square
        # on the emitted token (two children, 4,000 nodes).
        "every_child_against_p": '''def verify_node(p, q, children, rng):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    for i, s in enumerate(children):
        if rng.random() < p[int(s)] / q[int(s)]:
            return int(s), i
    excess = np.maximum(p - q, 0.0)
    return int(rng.choice(len(p), p=excess / excess.sum())), -1''',
        # The residual not renormalized: later children kept too rarely. Hidden joint chi-square.
        "unnormalized_residual": '''def verify_node(p, q, children, rng):
    R = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            return s, i
        R = np.maximum(R - q, 0.0)
    return int(rng.choice(len(R), p=R / R.sum())), -1''',
        # After all rejections, draws from p: visible case 2 (p one-hot at 2 gives 2 anyway) passes; the
        # visible chi-square on the emitted token fails.
        "last_draw_from_p": '''def verify_node(p, q, children, rng):
    p = np.asarray(p, dtype=float)
    R = p
    q = np.asarray(q, dtype=float)
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            return s, i
        excess = np.maximum(R - q, 0.0)
        R = excess / excess.sum()
    return int(rng.choice(len(p), p=p)), -1''',
        # '<=' instead of '<': a uniform exactly equal to R/q keeps (hidden scripted uniforms).
        "non_strict": '''def verify_node(p, q, children, rng):
    R = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() <= R[s] / q[s]:
            return s, i
        excess = np.maximum(R - q, 0.0)
        R = excess / excess.sum()
    return int(rng.choice(len(R), p=R)), -1''',
        # Counts the children from 1: the first visible case.
        "index_from_one": '''def verify_node(p, q, children, rng):
    R = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    for i, s in enumerate(children, 1):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            return s, i
        excess = np.maximum(R - q, 0.0)
        R = excess / excess.sum()
    return int(rng.choice(len(R), p=R)), -1''',
        # Updates the residual in p itself: the caller's p changes (hidden).
        "residual_in_place": '''def verify_node(p, q, children, rng):
    q = np.asarray(q, dtype=float)
    R = p
    for i, s in enumerate(children):
        s = int(s)
        if rng.random() < R[s] / q[s]:
            return s, i
        R -= q
        np.maximum(R, 0.0, out=R)
        R /= R.sum()
    return int(rng.choice(len(R), p=R)), -1''',
        **delegation_forms("def verify_node(p, q, children, rng):", "specdec.tree_sampling", "recursive_rejection"),
    },
    "ex_drill_race_sample": {
        # argmax(w * E): another law. Visible chi-square on (1, 2, 3, 4).
        "times_clock": '''def race_sample(rows, generator):
    if rows.ndim != 2:
        raise ValueError("rows must be (B, V)")
    clocks = torch.empty_like(rows).exponential_(generator=generator)
    return (rows * clocks).argmax(dim=-1)''',
        # Uniform clocks: argmax(w / U) is not proportional to w. Visible chi-square.
        "uniform_clock": '''def race_sample(rows, generator):
    if rows.ndim != 2:
        raise ValueError("rows must be (B, V)")
    u = torch.rand(rows.shape, generator=generator, dtype=rows.dtype)
    return (rows / u).argmax(dim=-1)''',
        # One set of clocks for all rows: identical rows draw the same token (visible).
        "shared_clocks": '''def race_sample(rows, generator):
    if rows.ndim != 2:
        raise ValueError("rows must be (B, V)")
    clocks = torch.empty(rows.shape[-1], dtype=rows.dtype).exponential_(generator=generator)
    return (rows / clocks).argmax(dim=-1)''',
        # Clocks from torch's global generator (hidden).
        "global_generator": '''def race_sample(rows, generator):
    if rows.ndim != 2:
        raise ValueError("rows must be (B, V)")
    clocks = torch.empty_like(rows).exponential_()
    return (rows / clocks).argmax(dim=-1)''',
        # torch.multinomial: right in law, but the drill asks for the race (hidden).
        "uses_multinomial": '''def race_sample(rows, generator):
    if rows.ndim != 2:
        raise ValueError("rows must be (B, V)")
    return torch.multinomial(rows, 1, generator=generator).squeeze(-1)''',
        # A Python loop over the rows (hidden line count).
        "loops_over_rows": '''def race_sample(rows, generator):
    if rows.ndim != 2:
        raise ValueError("rows must be (B, V)")
    out = []
    for row in rows:
        clocks = torch.empty_like(row).exponential_(generator=generator)
        out.append(int((row / clocks).argmax()))
    return torch.tensor(out, dtype=torch.int64)''',
        # No shape check (hidden): a 1-D tensor gives a 0-D answer.
        "no_value_error": '''def race_sample(rows, generator):
    clocks = torch.empty_like(rows).exponential_(generator=generator)
    return (rows / clocks).argmax(dim=-1)''',
        **delegation_forms("def race_sample(rows, generator):", "specdec.engine.batched", "exponential_race"),
    },

}

# The words naming its misconception that each likely wrong answer must meet in some failing test cell
# (tests/test_wrong_implementations.py checks them).
MESSAGES = {f"{exercise}/{bug}": words for exercise, table in {
    "ex_drill_residual_sample": {
        "sample_from_p": "Only tokens with p > q can come out",
        "absolute_difference": "Only tokens with p > q can come out",
        "q_minus_p": "Only tokens with p > q can come out",
        "argmax_of_residual": "do not take its argmax",
        "no_value_error": "the residual is empty; raise ValueError",
        "global_numpy_random": "not from np.random",
        "own_fixed_generator": "must come from the `rng` you are given",
        "returns_array": "must return one token id (an int)",
        "allclose_means_equal": "small but not empty",
        "residual_in_place": "changed its inputs",
    },
    "ex_drill_speculative_verify": {
        "resample_from_p": "must come from the residual",
        "keep_drafts_after_rejection": "nothing follows a rejection",
        "accept_on_argmax": "you never drew a uniform",
        "ratio_upside_down": "is your ratio upside down",
        "bonus_from_wrong_row": "p=p[gamma]",
        "non_strict_inequality": "strictly below p/q",
        "returns_array": "must return a list of ints",
        "residual_in_place": "not in place in p",
    },
    "ex_drill_greedy_speculative_generate": {
        "placeholder_no_speculation": "One call per new token is plain decoding",
        "no_bonus_token": "Did you forget the bonus token?",
        "emits_draft_at_mismatch": "append the target's own choice (its argmax), not the draft",
        "overshoots_n_new": "the last round must draft at most (tokens still needed) - 1",
        "estimated_call_count": "the target counted",
        "accepts_any_argmax": "not if it merely ties with it",
        "aliases_prompt": "work on a copy",
    },
    "ex_drill_survival_from_acceptance_matrix": {
        "diagonal_entry": "sums the whole row start of A^i",
        "column_sum": "sums the whole row start of A^i",
        "starts_at_identity": "which is A^0",
        "iid_approximation": "the i.i.d. formula",
        "returns_list": "expected the float array",
        "integer_powers": "expected the float array",
        "powers_in_place": "compute the powers in new arrays",
    },
    "ex_drill_tree_attention_mask": {
        "parent_only": "not only its parent",
        "causal_not_tree": "a tree mask is not causal",
        "positions_by_index": "(prefix_len + depth)",
        "no_self": "must see itself",
        "wrong_dtypes": "expected a bool mask",
        "positions_from_list": "int64 positions",
    },
    "ex_drill_greedy_tree_walk": {
        "ignores_parents": "the walk must take child",
        "last_matching_child": "take the first listed",
        "no_extra_token": "emitted ends with the target's own choice where the walk stops",
        "off_by_one_choice": "the target's choice after node v is target_next[v + 1]",
    },
    "ex_drill_trim_block_table": {
        "floor_blocks": "a partly used block stays",
        "keeps_an_empty_block": "a block with no kept entry goes",
        "leaks_blocks": "every dropped block goes back to the free list",
        "mutates_inputs": "modified its input lists",
        "free_order_reversed": "the table's last block first",
        "no_value_error": "new_length 10 > length 9: raise ValueError",
        "no_negative_check": "new_length -1 < 0: raise ValueError",
        "no_capacity_check": "length 13 > 3 blocks x 4 = 12 slots",
        "capacity_check_strict": "a full table is allowed",
        "returns_tuples": "return two lists",
    },
    "ex_drill_verify_batch": {
        "counts_all_keeps": "n counts only the LEADING keeps",
        "resample_from_p": "after a rejection draw from the residual, not from p",
        "bonus_against_last_q": "p[gamma] = (0.25, 0.25, 0.25, 0.25) itself (nothing subtracted)",
        "first_rejection_by_argmax": "With no rejection n is gamma",
        "ratio_upside_down": "keep when u < p/q, not q/p",
        "global_generator": "take every random number from `generator`",
        "own_fixed_generator": "did not use the generator",
        "peeks_at_next_row": "position i compares p[:, i] with q[:, i]",
        "pads_with_zero": "pad with -1, not 0",
        "keeps_drafts_after_rejection": "copy only the first n drafts",
        "int32_outputs": "int64",
        "no_shape_check": "check the shapes first and raise ValueError",
        "checks_only_ndim": "check the shapes first and raise ValueError",
        "checks_only_p": "check the shapes first and raise ValueError",
        "loops_over_batch": "a loop over the batch",
        "residual_in_place": "changed p, q or drafts in place",
        "returns_n_first": "you returned (n, tokens)",
        "shared_uniform_rows": "one uniform shared across the rows",
        "shared_uniform_positions": "One uniform shared across the positions",
    },
    "ex_drill_prompt_lookup_draft": {
        "earliest_match": "take the most recent earlier occurrence",
        "no_fallback": "fall back to shorter suffixes",
        "matches_itself": "the suffix must not match itself",
        "returns_the_ngram": "not the tokens after it",
        "ignores_k": "k = 3 caps the proposal",
        "no_value_error": "raise ValueError",
        "returns_tuple": "must return a list",
    },
    "ex_drill_verify_node": {
        "every_child_against_p": "not against p again",
        "unnormalized_residual": "renormalized",
        "last_draw_from_p": "draw from that last residual",
        "non_strict": "strictly below",
        "index_from_one": "expected (1, 0)",
        "residual_in_place": "changed p or q in place",
    },
    "ex_drill_race_sample": {
        "times_clock": "a product w * E or a uniform clock",
        "uniform_clock": "a product w * E or a uniform clock",
        "shared_clocks": "not one set shared by all rows",
        "global_generator": "take every random number from `generator`",
        "uses_multinomial": "called torch.multinomial",
        "loops_over_rows": "a loop over the rows",
        "no_value_error": "raise ValueError",
    },
}.items() for bug, words in table.items()}

# Correct answers written another natural way, which must keep full marks (run through the power harness
# beside WRONG; each also passes its drill's visible check): np.clip or a loop for the residual (13.1 with an
# inverse-CDF draw, its protocol being free); a while loop or a recursion for the round; chapter 02's loop with
# full gamma drafts then a cut, or committing token by token; matrix powers, or A^i 1 built from the right; the
# mask by walking up the ancestors or by recursion; the walk by recursion or a scan of the parent array; the
# trim by popping from a copy or a reversed slice; verify_batch with a loop over the gamma positions (not the
# batch), or with the exponential race for the extra tokens; prompt lookup by collecting starts or by sliding
# windows; recursive rejection with an unnormalised residual or as a recursion; Gumbel-max or an inverse CDF
# (torch.searchsorted) for the race, which the statement leaves open to any exact method.
RIGHT = {
    "ex_drill_residual_sample": {
        "clip_and_inverse_cdf": '''def residual_sample(p, q, rng):
    r = np.clip(np.array(p, dtype=float) - np.array(q, dtype=float), 0.0, None)
    if not r.sum() > 0:
        raise ValueError("p equals q: no residual")
    cdf = np.cumsum(r / r.sum())
    return min(int(np.searchsorted(cdf, rng.random(), side="right")), len(r) - 1)
''',
        "loop_then_choice": '''def residual_sample(p, q, rng):
    weights = []
    for a, b in zip(p, q):
        weights.append(a - b if a > b else 0.0)
    total = sum(weights)
    if total == 0:
        raise ValueError("the residual is empty when p == q")
    return int(rng.choice(len(weights), p=[x / total for x in weights]))
''',
    },
    "ex_drill_speculative_verify": {
        "while_loop_clip": '''def speculative_verify(p, q, drafts, rng):
    gamma, V = len(drafts), len(p[0])
    out, i = [], 0
    while i < gamma:
        x = int(drafts[i])
        if rng.random() < p[i][x] / q[i][x]:
            out.append(x)
            i += 1
            continue
        r = np.clip(np.asarray(p[i], dtype=float) - np.asarray(q[i], dtype=float), 0, None)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out
''',
        "recursion": '''def speculative_verify(p, q, drafts, rng):
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    V = p.shape[1]

    def from_position(i):
        if i == len(drafts):
            return [int(rng.choice(V, p=p[i]))]
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            return [x] + from_position(i + 1)
        gap = np.maximum(p[i] - q[i], 0)
        return [int(rng.choice(V, p=gap / gap.sum()))]

    return from_position(0)
''',
    },
    "ex_drill_greedy_speculative_generate": {
        "full_gamma_vectorised_then_cut": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = list(prompt)
    end = len(prompt) + n_new
    calls = 0
    while len(tokens) < end:
        drafts = []
        for _ in range(gamma):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        choices = np.argmax(target_logits(tokens + drafts), axis=-1)[len(tokens) - 1:]
        calls += 1
        agree = np.asarray(drafts) == choices[:gamma]
        J = gamma if agree.all() else int(np.argmin(agree))
        tokens = tokens + drafts[:J] + [int(choices[J])]
    return tokens[:end], calls
''',
        "commit_token_by_token": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = prompt[:]
    target_calls = 0
    remaining = n_new
    while remaining > 0:
        guesses = []
        context = tokens[:]
        for _ in range(min(gamma, remaining - 1)):
            nxt = int(np.argmax(draft_next(context)))
            guesses.append(nxt)
            context.append(nxt)
        logits = target_logits(context)
        target_calls += 1
        for i in range(len(guesses) + 1):
            best = int(np.argmax(logits[len(tokens) - 1]))
            tokens.append(best)
            remaining -= 1
            if i == len(guesses) or guesses[i] != best:
                break
    return tokens, target_calls
''',
    },
    "ex_drill_survival_from_acceptance_matrix": {
        "matrix_power": '''def survival_from_acceptance_matrix(A, start, gamma):
    A = np.asarray(A, dtype=float)
    return np.array([np.linalg.matrix_power(A, i)[start].sum() for i in range(1, gamma + 1)])
''',
        "column_from_the_right": '''def survival_from_acceptance_matrix(A, start, gamma):
    A = np.array(A, dtype=float)
    col = np.ones(len(A))                    # A^i 1, built from the right
    out = []
    for _ in range(gamma):
        col = A @ col
        out.append(col[start])
    return np.array(out, dtype=float)
''',
    },
    "ex_drill_tree_attention_mask": {
        "walk_up_ancestors": '''def tree_attention_mask(parents, prefix_len):
    n = len(parents)
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
    par = [int(x) for x in parents]

    def ancestors(i):
        return [i] if par[i] == -1 else [i] + ancestors(par[i])

    n = len(par)
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
    "ex_drill_greedy_tree_walk": {
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
    return path, [tokens[i] for i in path] + [target_next[current + 1]]
''',
    },
    "ex_drill_trim_block_table": {
        "pop_from_a_copy": '''def trim_block_table(table, free, length, new_length, block_size):
    if new_length < 0 or new_length > length or length > len(table) * block_size:
        raise ValueError("need 0 <= new_length <= length <= len(table) * block_size")
    new_table, new_free = list(table), list(free)
    keep = math.ceil(new_length / block_size)
    while len(new_table) > keep:
        new_free.append(new_table.pop())
    return new_table, new_free
''',
        "reversed_slice": '''def trim_block_table(table, free, length, new_length, block_size):
    if not (0 <= new_length and new_length <= length and length <= block_size * len(table)):
        raise ValueError("bad lengths")
    keep = (new_length + block_size - 1) // block_size
    return table[:keep], free + table[keep:][::-1]
''',
    },
    "ex_drill_verify_batch": {
        "loop_over_positions": '''def verify_batch(p, q, drafts, generator):
    if p.dim() != 3 or q.dim() != 3 or drafts.dim() != 2:
        raise ValueError("p, q must be 3-D and drafts 2-D")
    B, gamma, V = q.shape
    if p.shape != (B, gamma + 1, V) or drafts.shape != (B, gamma):
        raise ValueError("shapes do not fit")
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype)
    alive = torch.ones(B, dtype=torch.bool)
    n = torch.zeros(B, dtype=torch.int64)
    rows = torch.arange(B)
    for i in range(gamma):
        x = drafts[:, i]
        keep = u[:, i] * q[rows, i, x] < p[rows, i, x]
        alive = alive & keep
        n += alive.long()
    stop_p = p[rows, n]
    stop_q = torch.zeros_like(stop_p)
    stopped = n < gamma
    stop_q[stopped] = q[rows[stopped], n[stopped]]
    w = torch.clamp(stop_p - stop_q, min=0)
    w = torch.where(w.sum(dim=1, keepdim=True) > 0, w, stop_p)
    extra = torch.multinomial(w, 1, generator=generator)[:, 0]
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64)
    for i in range(gamma):
        tokens[:, i] = torch.where(i < n, drafts[:, i], tokens[:, i])
    tokens[rows, n] = extra
    return tokens, n
''',
        "exponential_race": '''def verify_batch(p, q, drafts, generator):
    if p.ndim != 3 or q.ndim != 3 or drafts.ndim != 2:
        raise ValueError("bad dimensions")
    B, gamma, V = q.shape
    if tuple(p.shape) != (B, gamma + 1, V) or tuple(drafts.shape) != (B, gamma):
        raise ValueError("shapes do not fit together")
    x = drafts.long()[..., None]
    ratio_ok = torch.rand(B, gamma, generator=generator, dtype=p.dtype) * q.gather(2, x)[..., 0] < p[:, :gamma].gather(2, x)[..., 0]
    n = ratio_ok.long().cumprod(dim=1).sum(dim=1)
    b = torch.arange(B)
    q_pad = torch.cat([q, torch.zeros(B, 1, V, dtype=q.dtype)], dim=1)     # a zero row after the last draft
    w = (p[b, n] - q_pad[b, n]).clamp(min=0)
    w = torch.where(w.sum(-1, keepdim=True) > 0, w, p[b, n])
    clocks = torch.empty_like(w).exponential_(generator=generator)
    extra = torch.where(w > 0, w / clocks, torch.full_like(w, -1.0)).argmax(dim=-1)
    tokens = torch.where(torch.arange(gamma + 1)[None, :] < n[:, None],
                         torch.cat([drafts.long(), torch.zeros(B, 1, dtype=torch.int64)], dim=1), -1)
    tokens[b, n] = extra
    return tokens, n
''',
    },
    "ex_drill_prompt_lookup_draft": {
        "collect_starts_then_recurse": '''def prompt_lookup_draft(context, n, k):
    if n < 1 or k < 0:
        raise ValueError("need n >= 1 and k >= 0")
    m = min(n, len(context) - 1)
    if m < 1:
        return []
    suffix = list(context[-m:])
    starts = [s for s in range(len(context) - m) if list(context[s:s + m]) == suffix]
    if not starts:
        return prompt_lookup_draft(context, m - 1, k) if m > 1 else []
    s = max(starts)
    return list(context[s + m:s + m + k])
''',
        "sliding_windows": '''from numpy.lib.stride_tricks import sliding_window_view


def prompt_lookup_draft(context, n, k):
    if n < 1 or k < 0:
        raise ValueError("n must be >= 1 and k >= 0")
    L = len(context)
    if L < 2:
        return []
    arr = np.empty(L, dtype=object)
    arr[:] = list(context)
    for m in range(min(n, L - 1), 0, -1):
        hits = np.flatnonzero((sliding_window_view(arr, m)[:L - m] == arr[L - m:]).all(axis=1))
        if hits.size:
            s = int(hits[-1])
            return arr[s + m:s + m + k].tolist()
    return []
''',
    },
    "ex_drill_verify_node": {
        "unnormalised_residual": '''def verify_node(p, q, children, rng):
    M = np.array(p, dtype=float)
    q = np.asarray(q, dtype=float)
    for i in range(len(children)):
        s = int(children[i])
        if rng.random() < M[s] / (M.sum() * q[s]):
            return s, i
        M = np.clip(M / M.sum() - q, 0.0, None)
    return int(rng.choice(len(M), p=M / M.sum())), -1
''',
        "recursion_over_children": '''def verify_node(p, q, children, rng):
    q = np.asarray(q, dtype=float)

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
    "ex_drill_race_sample": {
        "gumbel_max": '''def race_sample(rows, generator):
    if rows.dim() != 2:
        raise ValueError("rows must be two-dimensional")
    u = torch.rand(rows.shape, generator=generator, dtype=torch.float64).clamp_min(1e-300)
    gumbel = -torch.log(-torch.log(u))
    return (torch.log(rows.double()) + gumbel).argmax(dim=1)
''',
        "inverse_cdf": '''def race_sample(rows, generator):
    if len(rows.shape) != 2:
        raise ValueError("expected a (B, V) tensor")
    cdf = rows.double().cumsum(dim=1)
    u = torch.rand(rows.shape[0], 1, generator=generator, dtype=torch.float64) * cdf[:, -1:]
    idx = torch.searchsorted(cdf, u, right=True)[:, 0]
    return idx.clamp(max=rows.shape[1] - 1).long()
''',
    },
}
