"""Wrong answers to the chapter 11 exercise (batched_verify), to prove its tests have power.

Each value replaces the solution cell `ex_batched_verify` of solutions/11_pytorch_verifier.ipynb.
The comment above each entry lists the chi-square statistics it gets in the distribution checks
(fixed seeds of the tests; computed with the asserts disabled, since a test cell stops at its
first failing assert) and the cells that fail:

    F3, S3 = test_batched_distribution, visible: first / second token, gamma = 3, 200,000 sequences (4 dof)
    F1, S1 = test_batched_distribution, hidden: first / second token, gamma = 1, 200,000 sequences (4 dof)
    M      = test_batched_distribution, hidden: first token of the batch's second half (permuted rows), 4 dof
    L      = test_batched_length: |z| of the mean accepted length; H = hidden histogram of n (3 dof)

The real solution gets F3 2.3, S3 4.9, F1 1.7, S1 2.9, M 1.3, z 0.9, H 4.7 (the threshold p = 1e-6
is chi-square 33.4 on 4 dof and 30.7 on 3 dof; p = 1e-12 is 62.4 on 4 dof and 58.7 on 3 dof).
Before the chi-square tests, small cases whose outcome is certain (the diagnose_* helpers of the notebook) name
the usual slips, so most entries now fail first with a message naming their misconception (MESSAGES, at the end,
lists the words each must read); the statistics above and below are those the chi-square checks compute.
A correct verifier with a Python loop over sequences fails test_batched_protocol (the Python lines it runs grow
with B); multinomial_per_sequence below is one.

Right answers the tests must accept are in RIGHT at the end (the extra tokens by the exponential race, which
section 4 teaches as the GPU's answer, and by Gumbel-max); the power test fails if one loses a point.
"""

from tests.wrong_implementations.delegation import delegation_forms

_DEF = "def batched_verify(p, q, drafts, generator=None):"

_HEAD = '''def batched_verify(p, q, drafts, generator=None):
    B, gamma, V = q.shape
    idx = drafts.long().unsqueeze(-1)
    p_x = p[:, :gamma].gather(-1, idx).squeeze(-1)
    q_x = q.gather(-1, idx).squeeze(-1)
'''

_TAIL = '''    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64)
    keep = torch.arange(gamma)[None, :] < n[:, None]
    tokens[:, :gamma] = torch.where(keep, drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n'''

_RESIDUAL = '''    q_pad = torch.cat([q, torch.zeros(B, 1, V, dtype=q.dtype)], dim=1)
    rows = torch.arange(B)
    missing = (p[rows, n] - q_pad[rows, n]).clamp_min(0.0)
    r = missing / missing.sum(dim=-1, keepdim=True)
    extra = torch.multinomial(r, 1, generator=generator).squeeze(-1)
'''

_ACCEPT = '''    u = torch.rand(B, gamma, generator=generator, dtype=p_x.dtype)
    n = (u * q_x < p_x).long().cumprod(dim=1).sum(dim=1)
'''

WRONG = {
    "ex_batched_verify": {
        # F3 4558, S3 3237, F1 4870, S1 20.7, M 2395; z 0.9 and H 4.7 (the accept rule is unchanged)
        "resample_from_p": _HEAD + _ACCEPT + '''    rows = torch.arange(B)
    extra = torch.multinomial(p[rows, n], 1, generator=generator).squeeze(-1)   # BUG: p, not the residual
''' + _TAIL,
        # F3 14022 (the extra token overwrites a kept draft), S3 5632, M 7085; z 185, H 49475
        "sum_instead_of_cumprod": _HEAD + '''    u = torch.rand(B, gamma, generator=generator, dtype=p_x.dtype)
    n = (u * q_x < p_x).long().sum(dim=1)                                   # BUG: every accept counts
''' + _RESIDUAL + _TAIL,
        # one uniform row for the whole batch, every sequence accepts alike: F3 14588, S3 23839, F1 14857,
        #   M 7369; z -316, H 242541
        "uniforms_shared_by_the_batch": _HEAD + '''    u = torch.rand(1, gamma, generator=generator, dtype=p_x.dtype)      # BUG: (1, gamma)
    n = (u * q_x < p_x).long().cumprod(dim=1).sum(dim=1)
''' + _RESIDUAL + _TAIL,
        # one uniform per sequence for all positions: F3 2.1 (position 1 is still exact), S3 625; z 46, H 7094
        "one_uniform_per_sequence": _HEAD + '''    u = torch.rand(B, 1, generator=generator, dtype=p_x.dtype)          # BUG: shared by the positions
    n = (u * q_x < p_x).long().cumprod(dim=1).sum(dim=1)
''' + _RESIDUAL + _TAIL,
        # no zero row, the bonus comes from max(0, p[gamma] - q[gamma - 1]): S1 141770 (gamma = 1, hidden);
        #   the visible shapes test fails too (sequence 0's bonus must be token 2)
        "bonus_from_the_last_residual": _HEAD + _ACCEPT + '''    rows = torch.arange(B)
    missing = (p[rows, n] - q[rows, n.clamp(max=gamma - 1)]).clamp_min(0.0)   # BUG: no zero row
    mass = missing.sum(dim=-1, keepdim=True)
    r = torch.where(mass > 0, missing / mass.clamp_min(1e-300), p[rows, n])
    extra = torch.multinomial(r, 1, generator=generator).squeeze(-1)
''' + _TAIL,
        # keeps a draft only if it is the target's argmax: F3 466667, S3 300000, z -1433, H 1.1e6
        "accept_on_argmax": _HEAD + '''    n = (drafts == p[:, :gamma].argmax(-1)).long().cumprod(dim=1).sum(dim=1)   # BUG
''' + _RESIDUAL + _TAIL,
        # every sequence uses the rows of sequence 0: M 13200 (hidden); the shapes test fails too
        "rows_of_the_first_sequence": _HEAD + _ACCEPT + '''    q_pad = torch.cat([q, torch.zeros(B, 1, V, dtype=q.dtype)], dim=1)
    rows = torch.arange(B)
    missing = (p[0, n] - q_pad[0, n]).clamp_min(0.0)                        # BUG: sequence 0's rows
    mass = missing.sum(dim=-1, keepdim=True)
    r = torch.where(mass > 0, missing / mass.clamp_min(1e-300), p[0, n])
    extra = torch.multinomial(r, 1, generator=generator).squeeze(-1)
''' + _TAIL,
        # exact (F3 2.4, S3 3.3, z -0.5), but draws from torch's global generator: fails the protocol test (the
        #   global random state changes; same seed, different output)
        "global_random_state": _HEAD + '''    u = torch.rand(B, gamma, dtype=p_x.dtype)                            # BUG: no generator
    n = (u * q_x < p_x).long().cumprod(dim=1).sum(dim=1)
    q_pad = torch.cat([q, torch.zeros(B, 1, V, dtype=q.dtype)], dim=1)
    rows = torch.arange(B)
    missing = (p[rows, n] - q_pad[rows, n]).clamp_min(0.0)
    extra = torch.multinomial(missing / missing.sum(-1, keepdim=True), 1).squeeze(-1)
''' + _TAIL,
        # test_batched_shapes hidden: the zero row is made by writing into the caller's q (and the accepted
        # rows of p are normalised in place), so q and p change under the caller. The law is right on a
        # fresh copy, so only the unchanged-inputs check catches it.
        "zero_row_written_into_q": _HEAD + _ACCEPT + '''    rows = torch.arange(B)
    full = n == gamma
    q[rows[full], gamma - 1] = 0.0                                         # BUG: writes into the argument
    q_n = q[rows, n.clamp_max(gamma - 1)]
    missing = (p[rows, n] - q_n).clamp_min(0.0)
    r = missing / missing.sum(dim=-1, keepdim=True)
    extra = torch.multinomial(r, 1, generator=generator).squeeze(-1)
''' + _TAIL,
        # finds the first rejection with argmax over the reject mask, which is 0 when nothing is rejected: named by
        #   the certain case "two drafts with p > q" (n = 0 instead of 2); F3 241566, S3 100247, z -1150
        "first_reject_by_argmax": _HEAD + '''    u = torch.rand(B, gamma, generator=generator, dtype=p_x.dtype)
    n = (~(u * q_x < p_x)).long().argmax(dim=1)                         # BUG: 0 when there is no rejection
''' + _RESIDUAL + _TAIL,
        # the residual the wrong way round, max(0, q - p): named by the certain case "q = (0.9, 0.1) against
        #   p = (0.5, 0.5)" (always token 0 after a rejection); F3 14588 (the first token then follows q_1), S3 12960,
        #   z 1 (the accept rule is right)
        "residual_q_minus_p": _HEAD + _ACCEPT + '''    q_pad = torch.cat([q, torch.zeros(B, 1, V, dtype=q.dtype)], dim=1)
    rows = torch.arange(B)
    missing = (q_pad[rows, n] - p[rows, n]).clamp_min(0.0)                 # BUG: q - p
    mass = missing.sum(dim=-1, keepdim=True)
    r = torch.where(mass > 0, missing / mass.clamp_min(1e-300), p[rows, n])
    extra = torch.multinomial(r, 1, generator=generator).squeeze(-1)
''' + _TAIL,
        # keeps a draft with probability min(1, q/p): named by the certain case "p = 0.7 > q = 0.5" (some rejected);
        #   F3 14588, S3 13113, z 108
        "reversed_ratio": _HEAD + '''    u = torch.rand(B, gamma, generator=generator, dtype=p_x.dtype)
    n = (u * p_x < q_x).long().cumprod(dim=1).sum(dim=1)                # BUG: u < q/p
''' + _RESIDUAL + _TAIL,
        # leaves the drafts after the stop in place instead of -1: test_batched_shapes ("must hold -1")
        "drafts_left_after_the_stop": _HEAD + _ACCEPT + _RESIDUAL + '''    tokens = torch.cat([drafts.long(), torch.zeros(B, 1, dtype=torch.int64)], dim=1)   # BUG: no -1 padding
    tokens[rows, n] = extra
    return tokens, n''',
        # exact and seeded right, but returns (n_accepted, tokens): the shape check names the swap
        "returns_n_then_tokens": _HEAD + _ACCEPT + _RESIDUAL + _TAIL.replace("return tokens, n", "return n, tokens"),
        # exact, but draws from a generator of its own: the hidden protocol check (different seeds, identical
        #   accept patterns) catches it
        "a_generator_of_its_own": _HEAD + "    own = torch.Generator().manual_seed(0)\n"
        + (_ACCEPT + _RESIDUAL).replace("generator=generator", "generator=own") + _TAIL,
        # exact, but one multinomial call per sequence: the Python lines it runs grow with B (protocol test)
        "multinomial_per_sequence": _HEAD + _ACCEPT + _RESIDUAL.replace(
            "    extra = torch.multinomial(r, 1, generator=generator).squeeze(-1)\n",
            "    extra = torch.stack([torch.multinomial(r[b], 1, generator=generator)[0] for b in range(B)])\n") + _TAIL,
        **delegation_forms(_DEF, "specdec.engine.batched", "batched_verify"),
    },
}


# What each wrong answer must read: words of the message of some failing test cell that name its misconception
# (tests/test_wrong_implementations.py). Most come from the certain cases of the diagnose_* helpers, which run
# before the chi-square tests.
MESSAGES = {
    "ex_batched_verify/resample_from_p": "drawn from p itself, not from the residual",
    "ex_batched_verify/sum_instead_of_cumprod": "counts every accepted position (a sum)",
    "ex_batched_verify/uniforms_shared_by_the_batch": "not one row for the whole batch",
    "ex_batched_verify/one_uniform_per_sequence": "share one uniform",
    "ex_batched_verify/bonus_from_the_last_residual": "Past the last draft q is a zero row",
    "ex_batched_verify/accept_on_argmax": "is the greedy rule",
    "ex_batched_verify/rows_of_the_first_sequence": "each sequence uses its own p[b], q[b]",
    "ex_batched_verify/global_random_state": "torch's global generator",
    "ex_batched_verify/returns_n_then_tokens": "you returned (n_accepted, tokens), the two swapped",
    "ex_batched_verify/a_generator_of_its_own": "not from a generator of your own",
    "ex_batched_verify/multinomial_per_sequence": "a loop over the batch",
    "ex_batched_verify/zero_row_written_into_q": "changed its inputs",
    "ex_batched_verify/first_reject_by_argmax": "is 0 when there is none",
    "ex_batched_verify/residual_q_minus_p": "that is max(0, q - p)",
    "ex_batched_verify/reversed_ratio": "Is your test reversed",
    "ex_batched_verify/drafts_left_after_the_stop": "must hold -1",
}


# Exercise 11.2 (optional): ragged_verify. Hidden chi-square test, 40,000 rounds per length (lengths 0 / 1 / 2 / 3,
# 2 / 9 / 30 / 93 dof after pooling): the solution gets 0.3 / 8.6 / 17.9 / 74.5. All three entries fail the visible
# certain cases first; the statistics are those of the hidden test with the asserts disabled.
_RDEF = "def ragged_verify(p, q, drafts, lengths, generator=None):"

_RHEAD = _RDEF + '''
    B, gamma, V = q.shape
    real = torch.arange(gamma)[None, :] < lengths[:, None]
    ids = torch.where(real, drafts.long(), 0)
'''

_RGATHER = '''    p_x = p[:, :gamma].gather(-1, ids[..., None]).squeeze(-1)
    q_x = q.gather(-1, ids[..., None]).squeeze(-1)
    u = torch.rand(B, gamma, generator=generator, dtype=p_x.dtype)
'''


_RACCEPT = '''    n = ((u * q_x < p_x) & real).long().cumprod(dim=1).sum(dim=1)
'''


def _rtail(end):
    return f'''    rows = torch.arange(B)
    q_n = q[rows, n.clamp_max(gamma - 1)]
    q_n = torch.where((n < {end})[:, None], q_n, 0.0)
    missing = (p[rows, n] - q_n).clamp_min(0.0)
    mass = missing.sum(dim=-1, keepdim=True)
    r = torch.where(mass > 0, missing / mass.clamp_min(1e-300), p[rows, n])
    extra = torch.multinomial(r, 1, generator=generator).squeeze(-1)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64)
    keep = torch.arange(gamma)[None, :] < n[:, None]
    tokens[:, :gamma] = torch.where(keep, drafts.long(), tokens[:, :gamma])
    tokens[rows, n] = extra
    return tokens, n'''


WRONG["ex_ragged_verify"] = {
    # 11.1's rule on the padded batch (padded ids read as 0): padded slots are verified like drafts;
    #   20000 / 11399 / 22401 (and outcomes of probability 0) for lengths 0 / 1 / 2; length 3 unchanged (74.5)
    "verifies_the_padding": _RHEAD + _RGATHER + '''    n = (u * q_x < p_x).long().cumprod(dim=1).sum(dim=1)              # BUG: padding verified too
''' + _rtail("gamma"),
    # lengths cap n, but the zero row stays at gamma: a request that keeps all its drafts subtracts a padded q row;
    #   40000 / 18778 / 33211 for lengths 0 / 1 / 2
    "bonus_row_at_gamma": _RHEAD + _RGATHER + '''    n = ((u * q_x < p_x) & real).long().cumprod(dim=1).sum(dim=1)
''' + _rtail("gamma"),                                                    # BUG: zero row at gamma
    # gathers with the raw ids: the padded id -7 reaches gather (an IndexError / RuntimeError, explained)
    "padding_ids_gathered": _RHEAD.replace("ids = torch.where(real, drafts.long(), 0)", "ids = drafts.long()  # BUG")
    + _RGATHER + '''    n = ((u * q_x < p_x) & real).long().cumprod(dim=1).sum(dim=1)
''' + _rtail("lengths"),
    # exact, but every random number from torch's global generator: the visible generator check
    "global_random_state": (_RHEAD + _RGATHER + _RACCEPT + _rtail("lengths")).replace(
        "generator=generator", "generator=None"),
    # exact, but returns (n_accepted, tokens)
    "returns_n_then_tokens": _RHEAD + _RGATHER + _RACCEPT + _rtail("lengths").replace("return tokens, n", "return n, tokens"),
    # exact, but a fresh generator of its own at every call: the hidden check (different seeds, identical tokens)
    "a_generator_of_its_own": (_RHEAD + "    own = torch.Generator().manual_seed(0)\n" + _RGATHER + _RACCEPT
                               + _rtail("lengths")).replace("generator=generator", "generator=own"),
    "delegate_same_object": "from specdec.engine.batched import batched_verify as ragged_verify",
    "delegate_thin_wrapper": '''from specdec.engine.batched import batched_verify as library_batched_verify


def ragged_verify(p, q, drafts, lengths, generator=None):
    return library_batched_verify(p, q, drafts, generator, lengths=lengths)''',
    "delegate_through_module": '''import specdec.engine.batched as batched_lib


def ragged_verify(p, q, drafts, lengths, generator=None):
    return batched_lib.batched_verify(p, q, drafts, generator, lengths=lengths)''',
}

MESSAGES.update({
    "ex_ragged_verify/verifies_the_padding": "Combine the accept mask with arange(gamma) < lengths",
    "ex_ragged_verify/bonus_row_at_gamma": "The zero row belongs at",
    "ex_ragged_verify/padding_ids_gathered": "A padded draft id (-7 here) reached an index",
})

MESSAGES.update({
    "ex_ragged_verify/global_random_state": "torch's global generator",
    "ex_ragged_verify/returns_n_then_tokens": "you returned (n_accepted, tokens), the two swapped",
    "ex_ragged_verify/a_generator_of_its_own": "not from a generator of your own",
})


# Right answers the tests must accept: the extra tokens drawn by the exponential race (section 4: the argmax of the
# unnormalized residual divided by exponential noise) or by Gumbel-max (the same race in logarithms), instead of
# torch.multinomial.
_ROWS = '''    rows = torch.arange(B)
    q_n = torch.where((n < gamma)[:, None], q[rows, n.clamp_max(gamma - 1)], 0.0)
    missing = (p[rows, n] - q_n).clamp_min(0.0)
'''

RIGHT = {
    "ex_batched_verify": {
        "exponential_race": _HEAD + _ACCEPT + _ROWS + '''    clocks = torch.empty_like(missing).exponential_(generator=generator)
    extra = torch.where(missing > 0, missing / clocks, -1.0).argmax(dim=-1)
''' + _TAIL,
        "gumbel_max": _HEAD + _ACCEPT + _ROWS + '''    u2 = torch.rand(missing.shape, generator=generator, dtype=missing.dtype).clamp_min(1e-300)
    extra = (missing.log() - (-u2.log()).log()).argmax(dim=-1)
''' + _TAIL,
    },
}


# Right answers to 11.2 the tests must accept: a loop over the requests (uniforms drawn first, one
# multinomial for all the extra tokens, as the statement asks), and the vectorised rule with the extra
# tokens drawn by the exponential race.
RIGHT["ex_ragged_verify"] = {
    "loop_over_requests": '''def ragged_verify(p, q, drafts, lengths, generator=None):
    B, gamma, V = q.shape
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype)
    tokens = torch.full((B, gamma + 1), -1, dtype=torch.int64)
    n_accepted = torch.zeros(B, dtype=torch.int64)
    rows = []
    for b in range(B):
        L = int(lengths[b])
        n = 0
        while n < L:
            x = int(drafts[b, n])
            if u[b, n] * q[b, n, x] < p[b, n, x]:
                tokens[b, n] = x
                n += 1
            else:
                break
        n_accepted[b] = n
        target = p[b, n]
        residual = (target - q[b, n]).clamp(min=0) if n < L else target
        rows.append(residual / residual.sum() if residual.sum() > 0 else target)
    extra = torch.multinomial(torch.stack(rows), 1, generator=generator)[:, 0]
    tokens[torch.arange(B), n_accepted] = extra
    return tokens, n_accepted
''',
    "exponential_race": '''def ragged_verify(p, q, drafts, lengths, generator=None):
    B, gamma, V = q.shape
    slot = torch.arange(gamma).expand(B, gamma)
    drafted = slot < lengths[:, None]
    x = torch.where(drafted, drafts, torch.zeros_like(drafts)).long()
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype)
    ok = (u * torch.gather(q, 2, x[..., None])[..., 0] < torch.gather(p[:, :gamma], 2, x[..., None])[..., 0]) & drafted
    n = torch.cumprod(ok.long(), dim=1).sum(dim=1)
    b = torch.arange(B)
    subtract = torch.where((n < lengths)[:, None], q[b, torch.clamp(n, max=gamma - 1)], torch.zeros(B, V, dtype=q.dtype))
    missing = torch.clamp(p[b, n] - subtract, min=0)
    weights = torch.where(missing.sum(dim=1, keepdim=True) > 0, missing, p[b, n])
    clocks = torch.empty_like(weights).exponential_(generator=generator)
    extra = torch.where(weights > 0, weights / clocks, torch.full_like(weights, -1.0)).argmax(dim=1)
    tokens = torch.where(slot < n[:, None], drafts.long(), torch.full_like(drafts, -1, dtype=torch.int64))
    tokens = torch.cat([tokens, torch.full((B, 1), -1, dtype=torch.int64)], dim=1)
    tokens[b, n] = extra
    return tokens, n
''',
}
