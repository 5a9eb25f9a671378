"""Wrong answers to the chapter 04 exercise, to prove that its tests have power.

Each value replaces the whole solution cell `ex_speculative_verify` of
solutions/04_speculative_round.ipynb. Every one of them must lose points; the real
solution must get full marks. Checked by executing the solution notebook with each entry
in place (nbclient): every entry fails all four test cells (test_verify_protocol,
test_verify_edge_cases, test_verify_distribution, test_verify_bigram), except
accept_when_u_equals_ratio, which fails the first two, and keep_with_probability_p, which
passes the protocol test. MESSAGES (at the end) lists the words naming its misconception that
each likely wrong answer must read in some failing test cell. The comment above each entry gives
the chi-square statistics it gets in the six distribution checks (seeds fixed in the
tests; an exact sampler gives about dof ± sqrt(2 dof)):

    E1 = test_verify_edge_cases, hidden: one-hot draft rows, gamma=2, V=3, 3,000 rounds
    E2 = test_verify_edge_cases, hidden: gamma=1, V=3, 3,000 rounds
    W  = test_verify_distribution, visible: gamma=2, V=3, 6,000 rounds (31 outcomes, 30 dof; nothing is pooled:
         the rarest outcome expects 12)
    WH = test_verify_distribution, hidden: gamma=3, V=4, 8,000 rounds (294 outcomes; the 88 expected fewer than
         5 times are pooled into one cell, 206 dof)
    B  = test_verify_bigram, visible: bigram pair (seed 0), gamma=3, 4,000 sequences (35 dof)
    BH = test_verify_bigram, hidden: bigram pair (seed 5, noise 1.0), gamma=1, 3,000 sequences (34 dof)

For reference the real solution gets E1 6.1, E2 11.2, W 24.1, WH 193.7, B 47.6, BH 41.0.
"imp" counts outcomes of probability 0 that occurred (assert_distribution fails on any).
Every bug that changes the distribution of the emitted list gets p < 1e-12 in W by the chi-square
law, and fails the protocol test. The weakest, one_uniform_for_all_positions, gets 132 on 30 dof in W:
p = 9e-15 by the law, p_bound = 1.4e-12 by the exact upper bound assert_distribution now judges; it
gets p_bound < 1e-12 in E1 (554), WH (1483) and B (270).
Statistics are what the test would compute with the tests' fixed seeds; a test cell stops at
its first failing assert, so the hidden statistics were computed with the asserts disabled.
"""

from tests.wrong_implementations.delegation import delegation_forms

_DEF = "def speculative_verify(p, q, drafts, rng):"

# The library's verify_round has the exercise's signature and random-number protocol, so the three
# delegation forms (same object, thin wrapper, call through the module) pass every visible test; the
# hidden assert_own_work check of every test cell refuses them ("... calls the course library's
# verify_round ..."). A fourth form writes the loop but takes the residual from the library.
_RESIDUAL_ONLY = f"""from specdec.distributions import residual

{_DEF}
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        out.append(int(rng.choice(V, p=residual(p[i], q[i]))))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out
"""

WRONG = {
    "ex_speculative_verify": {
        **delegation_forms(_DEF, "specdec.speculative", "verify_round"),
        "delegate_library_residual": _RESIDUAL_ONLY,
        # chi-square: E1 303 (p 2e-62) +2 impossible, E2 198 (p 7e-38) +2 impossible, W 676 (p 4e-123) +8 impossible,
        #   WH 1172 +46 impossible, B 697 (p 5e-124), BH 472 (p 1e-78)
        "resample_from_p": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        out.append(int(rng.choice(V, p=p[i])))       # BUG: p instead of the residual
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: E1 2103 +2 impossible, E2 11 (p 3e-01), W 1287 +2 impossible,
        #   WH 7857 +20 impossible, B 241 (p 1e-32), BH 41 (p 2e-01)
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
        out.extend(int(t) for t in drafts[i + 1:])   # BUG: stale drafts kept
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: E1 1286, E2 2450, W 11926, WH 17770, B 7155, BH 1658
        "accept_on_argmax": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if x == int(np.argmax(p[i])):                # BUG: agreement with the target's argmax
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: E1 262 (p 1e-53), E2 7283, W 26500, WH 9234, B 48 (p 7e-02), BH 4518
        "bonus_from_last_residual": '''def speculative_verify(p, q, drafts, rng):
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
    r = np.maximum(p[gamma - 1] - q[gamma - 1], 0.0)  # BUG: bonus from the last position's residual
    if r.sum() == 0:
        r = p[gamma - 1].copy()
    out.append(int(rng.choice(V, p=r / r.sum())))
    return out''',
        # chi-square: E1 181 (p 2e-36), E2 3119, W 8149, WH 3163, B 48 (p 7e-02), BH 4101
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
    out.append(int(rng.choice(V, p=p[gamma - 1])))   # BUG: off by one, p[gamma - 1] instead of p[gamma]
    return out''',
        # chi-square: E1 547 (p 6e-115) +1 impossible, E2 2071 +2 impossible, W 3368 +6 impossible,
        #   WH 7185 +32 impossible, B 36 (p 4e-01), BH 26 (p 8e-01)
        "no_bonus_token": '''def speculative_verify(p, q, drafts, rng):
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
    return out                                        # BUG: the free bonus token is never sampled''',
        # chi-square: E1 13669, E2 5695, W 15534, WH 9994, B 2123, BH 1434
        "ratio_inverted": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < q[i, x] / p[i, x]:          # BUG: q/p instead of p/q
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: E1 554 (p 2e-116), E2 11 (p 3e-01), W 132 (p 9e-15),
        #   WH 1483, B 270 (p 5e-38), BH 41 (p 2e-01)
        "one_uniform_for_all_positions": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    u = rng.random()                                  # BUG: one uniform shared by every position
    for i in range(gamma):
        x = int(drafts[i])
        if u <= p[i, x] / q[i, x]:
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: none, rng.choice raises ValueError (probabilities do not sum to 1) in every test cell
        "residual_not_normalized": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        out.append(int(rng.choice(V, p=np.maximum(p[i] - q[i], 0.0))))   # BUG: not divided by its sum
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: E1 2462 +2 impossible, E2 1211 +1 impossible, W 3139 +4 impossible,
        #   WH 4572 +41 impossible, B 2250, BH 1528
        "residual_wrong_sign": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        r = np.maximum(q[i] - p[i], 0.0)              # BUG: q - p, the tokens the draft over-proposed
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: identical to the solution (u == ratio has probability 0); caught deterministically by
        # test_verify_protocol (u = 0.5 = ratio must reject) and test_verify_edge_cases (p(x) = 0, u = 0)
        "accept_when_u_equals_ratio": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() <= p[i, x] / q[i, x]:         # BUG: <= keeps a draft the target gives probability 0 when u = 0
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: E1 540 (p 2e-113) +2 impossible, E2 776 (p 3e-161) +2 impossible, W 2541 +8 impossible,
        #   WH 3054 +44 impossible, B 647 (p 9e-114), BH 822 (p 1e-150)
        "extra_token_from_bonus_row_after_rejection": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            continue
        out.append(int(rng.choice(V, p=p[gamma])))    # BUG: after a rejection, samples from the bonus row
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: E1 2463 +12 impossible, E2 3578, W 6800 +2 impossible, WH 18462 +14 impossible,
        #   B 135 (p 1e-13), BH 981 (p 6e-184); the protocol test names it (two rng.choice calls)
        "break_then_bonus": '''def speculative_verify(p, q, drafts, rng):
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
        break                                         # BUG: break, not return: the bonus is drawn after a rejection too
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
        # chi-square: E1 6 (p 4e-01: one-hot q, so p(x) is the right ratio there), E2 1511, W 9137, WH 15919,
        #   B 9259, BH 1917; the protocol test passes (its ratios are such that u = 0 and 0.99 decide alike);
        #   the p == q edge case names it (an all-zero residual)
        "keep_with_probability_p": '''def speculative_verify(p, q, drafts, rng):
    p = np.asarray(p, dtype=float); q = np.asarray(q, dtype=float)
    gamma, V = q.shape
    out = []
    for i in range(gamma):
        x = int(drafts[i])
        if rng.random() < p[i, x]:                    # BUG: keeps with probability p(x), not min(1, p(x)/q(x))
            out.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        out.append(int(rng.choice(V, p=r / r.sum())))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
    },
}

# The words each likely wrong answer must read in some failing test cell (its misconception named).
MESSAGES = {f"ex_speculative_verify/{bug}": words for bug, words in {
    "resample_from_p": "instead of the residual",
    "keep_drafts_after_rejection": "you kept the drafts after the rejected one",
    "accept_on_argmax": "you never drew a uniform",
    "bonus_from_last_residual": "not from a residual",
    "bonus_from_wrong_row": "not p[gamma - 1]",
    "no_bonus_token": "you drew no extra token",
    "ratio_inverted": "upside down",
    "one_uniform_for_all_positions": "one uniform for the whole round",
    "residual_not_normalized": "divide the residual",
    "residual_wrong_sign": "sign reversed",
    "accept_when_u_equals_ratio": "accept only when u < ratio",
    "extra_token_from_bonus_row_after_rejection": "not the bonus row",
    "break_then_bonus": "exactly one extra token",
    "keep_with_probability_p": "wrong keep ratio",
}.items()}

# Correct answers written another natural way, which must keep full marks (run through the power harness
# beside WRONG): a while loop that indexes the rows as lists and clips the residual instead of np.maximum.
RIGHT = {
    "ex_speculative_verify": {
        "while_loop_clip": '''def speculative_verify(p, q, drafts, rng):
    gamma, V = len(drafts), p.shape[1]
    out, i = [], 0
    while i < gamma:
        x = drafts[i]
        if rng.random() < p[i][x] / q[i][x]:
            out.append(int(x))
            i += 1
            continue
        r = np.clip(p[i] - q[i], 0, None)
        out.append(int(rng.choice(V, p=r / np.sum(r))))
        return out
    out.append(int(rng.choice(V, p=p[gamma])))
    return out''',
    },
}
