"""On a CUDA GPU, the batched verifier runs without the host waiting for the GPU (chapter 11's claim).

`torch.cuda.set_sync_debug_mode("error")` makes every operation that blocks the host on the GPU
(`.item()`, `.tolist()`, a copy to the host, `nonzero`, a boolean-mask index, ...) raise a
RuntimeError. The verifier is called in that mode on a serving-sized batch (256 requests,
gamma 4, a 32,000-token vocabulary), plain and with ragged lengths and greedy requests mixed in;
the first test shows that the mode does catch a host read, so the others can fail. The last
test checks the law of one round on the GPU by chi-square (the GPU's generator draws other
numbers than the CPU's). Every test is skipped without a CUDA device; the file runs in seconds:

    .venv/bin/python -m pytest -p no:cacheprovider tests/test_verify_cuda_sync.py -q
"""
from contextlib import contextmanager

import pytest
import torch

from autograder.stats import assert_distribution
from specdec.engine.batched import batched_verify, exponential_race
from tests.test_batched_verify import P, Q, round_law

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="needs a CUDA GPU: set_sync_debug_mode watches CUDA synchronizations only")


@contextmanager
def host_waits_are_errors():
    torch.cuda.synchronize()                                   # inputs are ready before the watch starts
    before = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("error")
    try:
        yield
    finally:
        torch.cuda.set_sync_debug_mode(before)


def serving_batch(B=256, gamma=4, V=32_000, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    p = torch.softmax(torch.randn(B, gamma + 1, V, device="cuda", generator=g), -1)    # (B, gamma + 1, V)
    q = torch.softmax(torch.randn(B, gamma, V, device="cuda", generator=g), -1)        # (B, gamma, V)
    drafts = torch.multinomial(q.reshape(-1, V), 1, generator=g).reshape(B, gamma)     # (B, gamma)
    lengths = torch.randint(0, gamma + 1, (B,), device="cuda", generator=g)            # (B,)
    greedy = torch.rand(B, device="cuda", generator=g) < 0.3                           # (B,)
    return p, q, drafts, lengths, greedy


def test_the_debug_mode_catches_a_host_read():
    x = torch.ones(3, device="cuda")
    with host_waits_are_errors(), pytest.raises(RuntimeError, match="synchroniz"):
        x.sum().item()


def test_batched_verify_never_waits_for_the_host():
    p, q, drafts, lengths, greedy = serving_batch()
    gen = torch.Generator(device="cuda").manual_seed(1)
    with host_waits_are_errors():
        plain = batched_verify(p, q, drafts, gen)
        mixed = batched_verify(p, q, drafts, gen, lengths=lengths, greedy=greedy)
        race = exponential_race(p[:, 0], gen)
    torch.cuda.synchronize()
    B, gamma = drafts.shape
    for tokens, n in (plain, mixed):
        assert tokens.is_cuda and n.is_cuda and bool((n >= 0).all()) and bool((n <= gamma).all())
        assert bool((tokens[torch.arange(B, device="cuda"), n] >= 0).all())       # every request emitted a token
    assert bool((mixed[1] <= lengths).all()) and race.shape == (B,)


def test_cuda_generator_reproduces_the_output():
    p, q, drafts, lengths, greedy = serving_batch(B=64)
    a = batched_verify(p, q, drafts, torch.Generator(device="cuda").manual_seed(5), lengths=lengths, greedy=greedy)
    b = batched_verify(p, q, drafts, torch.Generator(device="cuda").manual_seed(5), lengths=lengths, greedy=greedy)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_a_round_on_the_gpu_has_the_exact_law():
    n_seq = 200_000
    g = torch.Generator(device="cuda").manual_seed(7)
    p, q = P[:3].cuda(), Q[:2].cuda()
    drafts = torch.multinomial(q, n_seq, replacement=True, generator=g).T.contiguous()    # (n_seq, 2)
    tokens, n = batched_verify(p.expand(n_seq, -1, -1).contiguous(), q.expand(n_seq, -1, -1).contiguous(), drafts, g)
    got = [tuple(row[:k + 1]) for row, k in zip(tokens.tolist(), n.tolist())]
    print(assert_distribution(got, round_law(P[:3], Q[:2]), what="one round on the GPU").summary())
