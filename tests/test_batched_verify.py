"""specdec.engine.batched on a CPU: the exponential race, ragged draft lengths, greedy requests.

Every law is checked by Pearson chi-square against the exact law, enumerated from the rows
(fails below p = 1e-6), and each check's power is shown on a known bug (p < 1e-12). The
statistics below were recorded with the seeds in the tests:

    race, 4 unnormalized rows with zeros, 200,000 draws: correct 6.6 on 10 dof (p 0.77);
        rows * E instead of rows / E: 255.3 (p 4e-49)
    one round, gamma = 2, V = 3, 200,000 rounds (exact law of the emitted tuple):
        correct 38.5 on 30 dof (p 0.14); extra token from p instead of the residual: 19,442 (p 0)
    ragged lengths 0..3 in one batch, 60,000 rounds per length: correct 6.3 / 12.5 / 23.2 / 72.4 on
        2 / 9 / 30 / 93 dof (lengths 0, 1, 2, 3; p 0.04 / 0.19 / 0.81 / 0.94); lengths ignored (every
        request verified over all three slots): 17,089 on 9 dof for length 1 (p 0)
    argmax drafts (one-hot q), gamma = 3, 200,000 rounds: correct 4.9 on 8 dof (p 0.77); extra token from p
        instead of p without the draft: 24,754 (p 0)
    greedy and sampled requests in one batch: greedy rows exact (no randomness); sampled rows
        bit-identical to the same call without `greedy`

The CUDA check that the verifier never waits for the host is tests/test_verify_cuda_sync.py.
"""
from itertools import product

import pytest
import torch

from autograder.stats import assert_distribution, chi_square, count_outcomes
from specdec.engine.batched import accept_and_extra, batched_verify, exponential_race


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


P = torch.tensor([[0.30, 0.50, 0.20], [0.10, 0.30, 0.60], [0.40, 0.40, 0.20], [0.25, 0.25, 0.50]],
                 dtype=torch.float64)                                   # target rows along the text (4, 3)
Q = torch.tensor([[0.60, 0.20, 0.20], [0.30, 0.30, 0.40], [0.10, 0.70, 0.20]], dtype=torch.float64)   # (3, 3)


def round_law(p, q):
    """Exact law of one round's emitted tuple (kept drafts + extra token) for rows p (L+1, V), q (L, V)."""
    L, V = q.shape
    law = {}

    def walk(i, prefix, prob):
        if i == L:                                                      # every draft kept: the bonus row
            for y in range(V):
                law[prefix + (y,)] = law.get(prefix + (y,), 0.0) + prob * float(p[L, y])
            return
        missing = (p[i] - q[i]).clamp_min(0)
        reject = float(missing.sum())
        for x in range(V):
            keep = float(torch.minimum(p[i, x], q[i, x]))               # q(x) * min(1, p(x)/q(x))
            if keep > 0:
                walk(i + 1, prefix + (x,), prob * keep)
        for y in range(V):
            if reject > 0 and missing[y] > 0:
                law[prefix + (y,)] = law.get(prefix + (y,), 0.0) + prob * float(missing[y])
    walk(0, (), 1.0)
    return law


def rounds(verify, p, q, n_seq, seed, **kw):
    """n_seq rounds with drafts drawn from q; returns the emitted tuples."""
    gen = torch.Generator().manual_seed(seed)
    drafts = torch.multinomial(q, n_seq, replacement=True, generator=gen).T.contiguous()   # (n_seq, gamma)
    tokens, n = verify(p.expand(n_seq, -1, -1).contiguous(), q.expand(n_seq, -1, -1).contiguous(), drafts, gen, **kw)
    return [tuple(row[:k + 1]) for row, k in zip(tokens.tolist(), n.tolist())]


def resample_from_p(p, q, drafts, generator=None, **kw):
    # Known bug: the extra token comes from p at the stopping position, not from max(0, p - q).
    B, gamma, V = q.shape
    idx = drafts.unsqueeze(-1)
    p_x, q_x = p[:, :gamma].gather(-1, idx).squeeze(-1), q.gather(-1, idx).squeeze(-1)
    u = torch.rand(B, gamma, generator=generator, dtype=p.dtype)
    n = (u * q_x < p_x).long().cumprod(1).sum(1)
    extra = exponential_race(p[torch.arange(B), n], generator)
    tokens = torch.where(torch.arange(gamma + 1) < n[:, None], torch.cat([drafts, drafts[:, :1]], 1), -1)
    tokens[torch.arange(B), n] = extra
    return tokens, n


# --- the exponential race --------------------------------------------------------------------------

ROWS = torch.tensor([[0.0, 2.0, 0.0, 1.0, 1.0], [3.0, 0.0, 0.0, 0.0, 1.0], [0.2, 0.2, 0.2, 0.2, 0.2],
                     [0.0, 0.0, 0.0, 0.0, 7.0]], dtype=torch.float64)        # unnormalized, zeros at both ends
ROWS_LAW = {(b, x): float(ROWS[b, x] / ROWS[b].sum()) / len(ROWS) for b in range(len(ROWS)) for x in range(5)}


def race_samples(race, n_per_row, seed):
    draws = race(ROWS.repeat(n_per_row, 1), torch.Generator().manual_seed(seed))   # (4 * n, )
    return [(b % len(ROWS), x) for b, x in enumerate(draws.tolist())]


def test_exponential_race_draws_each_row_by_its_weights():
    result = assert_distribution(race_samples(exponential_race, 50_000, 1), ROWS_LAW, what="exponential race")
    print(result.summary())                                              # recorded: 6.6 on 10 dof


def test_the_race_test_catches_multiplying_by_the_clock():
    def wrong(rows, generator):
        return (rows * torch.empty_like(rows).exponential_(generator=generator)).argmax(-1)
    result = chi_square(count_outcomes(race_samples(wrong, 50_000, 1)), ROWS_LAW)
    print(result.summary())                                              # recorded: 255.3
    assert result.p_value < 1e-12, result.summary()


def test_exponential_race_is_reproducible_from_the_generator():
    a = exponential_race(ROWS.repeat(50, 1), torch.Generator().manual_seed(3))
    torch.manual_seed(99)
    b = exponential_race(ROWS.repeat(50, 1), torch.Generator().manual_seed(3))
    assert torch.equal(a, b)


# --- one round: the exact law of the emitted tuple ---------------------------------------------------

def test_a_round_has_the_exact_law():
    law = round_law(P[:3], Q[:2])
    result = assert_distribution(rounds(batched_verify, P[:3], Q[:2], 200_000, 5), law, what="batched round, gamma 2")
    print(result.summary())                                              # recorded: 38.5 on 30 dof


def test_the_round_test_catches_resampling_from_p():
    law = round_law(P[:3], Q[:2])
    result = chi_square(count_outcomes(rounds(resample_from_p, P[:3], Q[:2], 200_000, 5)), law)
    print(result.summary())                                              # recorded: 19,442
    assert result.p_value < 1e-12, result.summary()


# --- drafts taken by argmax (EAGLE, MTP): a one-hot q, chapter 11 -----------------------------------------

Q_ARGMAX = torch.nn.functional.one_hot(Q.argmax(-1), 3).double()      # (3, 3): point masses on the drafts


def test_argmax_drafts_keep_with_p_and_resample_from_p_without_the_draft():
    # With q one-hot, round_law keeps x with min(p(x), 1) = p(x) and resamples from max(0, p - q): p without x.
    law = round_law(P, Q_ARGMAX)
    result = assert_distribution(rounds(batched_verify, P, Q_ARGMAX, 200_000, 7), law, what="argmax drafts, gamma 3")
    print(result.summary())                                              # recorded: 4.9 on 8 dof


def test_the_argmax_draft_test_catches_resampling_from_p():
    law = round_law(P, Q_ARGMAX)
    result = chi_square(count_outcomes(rounds(resample_from_p, P, Q_ARGMAX, 200_000, 7)), law)
    print(result.summary())                                              # recorded: 24,754
    assert result.p_value < 1e-12, result.summary()


# --- ragged draft lengths ------------------------------------------------------------------------------

def ragged_batch(n_per_length, seed, gamma=3):
    """Requests with lengths 0..gamma, padding slots filled with ids and rows the verifier must not read."""
    gen = torch.Generator().manual_seed(seed)
    lengths = torch.arange(gamma + 1).repeat_interleave(n_per_length)          # (B,)
    B = len(lengths)
    drafts = torch.multinomial(Q[:gamma], B, replacement=True, generator=gen).T.contiguous()   # (B, gamma)
    p = P[:gamma + 1].expand(B, -1, -1).clone()
    q = Q[:gamma].expand(B, -1, -1).clone()
    pos = torch.arange(gamma + 1)
    pad_p = pos[None, :] > lengths[:, None]                                      # rows after each bonus row
    pad_q = pos[None, :gamma] >= lengths[:, None]                                # draft slots past the length
    p[pad_p] = float("nan")
    q[pad_q] = float("nan")
    drafts[pad_q] = -7                                                           # not a token id at all
    return p, q, drafts, lengths, gen


def test_ragged_lengths_give_each_request_the_law_of_its_own_round():
    p, q, drafts, lengths, gen = ragged_batch(60_000, 7)
    tokens, n = batched_verify(p, q, drafts, gen, lengths=lengths)
    assert (n <= lengths).all()
    for L in range(4):
        mine = (lengths == L).nonzero().flatten()
        got = [tuple(tokens[b, :int(n[b]) + 1].tolist()) for b in mine]
        result = assert_distribution(got, round_law(P[:L + 1], Q[:L]), what=f"requests with {L} drafts")
        print(L, result.summary())                                               # recorded: 6.3, 12.5, 23.2, 72.4


def test_the_ragged_test_catches_a_verifier_that_ignores_lengths():
    p, q, drafts, lengths, gen = ragged_batch(60_000, 7)
    full = P[:4].expand(len(lengths), -1, -1).contiguous()                       # no padding: every slot real
    d = torch.where(drafts < 0, 0, drafts)
    tokens, n = batched_verify(full, Q[:3].expand(len(lengths), -1, -1).contiguous(), d, gen)
    mine = (lengths == 1).nonzero().flatten()
    got = [tuple(tokens[b, :int(n[b]) + 1].tolist()) for b in mine]
    result = chi_square(count_outcomes(got), round_law(P[:2], Q[:1]))
    print(result.summary())                                                      # recorded: 17,089
    assert result.p_value < 1e-12 or result.impossible, result.summary()


def test_full_lengths_change_nothing():
    gen_a, gen_b = torch.Generator().manual_seed(2), torch.Generator().manual_seed(2)
    drafts = torch.multinomial(Q, 500, replacement=True, generator=torch.Generator().manual_seed(1)).T.contiguous()
    p, q = P.expand(500, -1, -1), Q.expand(500, -1, -1)
    a = batched_verify(p, q, drafts, gen_a)
    b = batched_verify(p, q, drafts, gen_b, lengths=torch.full((500,), 3))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_length_zero_is_one_plain_sampling_step():
    p = torch.tensor([[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]], dtype=torch.float64).expand(20, -1, -1)
    q = torch.full((20, 1, 3), 1 / 3, dtype=torch.float64)
    tokens, n = batched_verify(p, q, torch.zeros(20, 1, dtype=torch.long), torch.Generator().manual_seed(0),
                               lengths=torch.zeros(20, dtype=torch.long))
    assert n.tolist() == [0] * 20 and tokens.tolist() == [[1, -1]] * 20      # the bonus row p[b, 0], one-hot on 1


# --- greedy and sampled requests in one batch ----------------------------------------------------------

def greedy_reference(p, drafts, length):
    best = p.argmax(-1).tolist()
    n = next((i for i in range(length) if drafts[i] != best[i]), length)
    return drafts[:n] + [best[n]]


def test_greedy_requests_follow_the_argmax_and_leave_the_sampled_ones_alone():
    g = torch.Generator().manual_seed(4)
    B, gamma, V = 400, 3, 4
    p = torch.softmax(2 * torch.randn(B, gamma + 1, V, generator=g, dtype=torch.float64), -1)
    q = torch.softmax(torch.randn(B, gamma, V, generator=g, dtype=torch.float64), -1)
    best = p.argmax(-1)
    drafts = torch.where(torch.rand(B, gamma, generator=g) < 0.7, best[:, :gamma], torch.randint(V, (B, gamma), generator=g))
    greedy = torch.arange(B) % 3 == 0
    lengths = torch.randint(0, gamma + 1, (B,), generator=g)
    q_greedy = torch.where(greedy[:, None, None], float("nan"), q)          # a greedy request's q is never read
    mixed = batched_verify(p, q_greedy, drafts, torch.Generator().manual_seed(9), lengths=lengths, greedy=greedy)
    alone = batched_verify(p, q, drafts, torch.Generator().manual_seed(9), lengths=lengths)
    for b in range(B):
        got = mixed[0][b, :int(mixed[1][b]) + 1].tolist()
        if greedy[b]:
            assert got == greedy_reference(p[b], drafts[b].tolist(), int(lengths[b])), b
        else:
            assert torch.equal(mixed[0][b], alone[0][b]), b
    assert 0 < int(mixed[1][greedy].sum()) and (mixed[1][greedy] < lengths[greedy]).any()   # both branches hit


def test_one_hot_rows_verify_greedily_without_the_flag():
    # Temperature 0 as processed rows (one-hot p and q) gives the same tokens as the greedy flag.
    g = torch.Generator().manual_seed(5)
    p = torch.softmax(torch.randn(300, 3, 5, generator=g, dtype=torch.float64), -1)
    one_hot = torch.nn.functional.one_hot(p.argmax(-1), 5).double()                # (300, 3, 5)
    drafts = torch.where(torch.rand(300, 2, generator=g) < 0.6, p.argmax(-1)[:, :2], 0)
    flag = batched_verify(p, one_hot[:, :2], drafts, torch.Generator().manual_seed(1), greedy=torch.ones(300, dtype=torch.bool))
    rows = batched_verify(one_hot, torch.nn.functional.one_hot(drafts, 5).double(), drafts, torch.Generator().manual_seed(1))
    assert torch.equal(flag[0], rows[0]) and torch.equal(flag[1], rows[1])


# --- bad input -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw, match", [
    ({"lengths": torch.tensor([0, 4])}, r"lengths must lie in 0\.\.3"),
    ({"lengths": torch.tensor([1.0, 2.0])}, "lengths must be a tensor of shape"),
    ({"lengths": torch.tensor([1, 2, 3])}, r"shape \(2,\)"),
    ({"greedy": torch.tensor([1, 0])}, "greedy must be a tensor"),
])
def test_bad_per_request_arguments_are_refused(kw, match):
    p, q = P.expand(2, -1, -1), Q.expand(2, -1, -1)
    with pytest.raises(ValueError, match=match):
        batched_verify(p, q, torch.zeros(2, 3, dtype=torch.long), **kw)


def test_ids_are_checked_only_where_a_request_drafted():
    p, q = P.expand(2, -1, -1), Q.expand(2, -1, -1)
    drafts = torch.tensor([[0, 9, 9], [1, 1, 1]])
    batched_verify(p, q, drafts, lengths=torch.tensor([1, 3]))                # slot 1.. of request 0 is padding
    with pytest.raises(ValueError, match=r"ids must lie in 0\.\.2"):
        batched_verify(p, q, drafts)


def test_accept_and_extra_keeps_its_batch_one_signature():
    # verify_block (the engine's batch-1 loop) calls it with a draw and no per-request arguments.
    n, extra = accept_and_extra(P[None], Q[None], torch.tensor([[0, 1, 2]]), torch.Generator().manual_seed(0))
    assert n.shape == (1,) and extra.shape == (1,) and 0 <= int(n) <= 3
