"""The engine's own per-round work, apart from the models' passes, on the course-trained pair.

    python benchmarks/engine_overhead.py              # T = 1, gamma = 3, the lab's 12 prompts x 48 tokens

Every forward of both models is timed (`specdec.engine.clock.model_clock`, inside
`specdec.engine.measure.run_speculative`), so per round

    overhead = (wall time of speculative_generate - time inside the models' forward) / rounds

is what the engine adds: processing logits, sampling, verification, cache crops, bookkeeping.
Median and range over repeats; one thread. `--profile` also prints cProfile's top functions.

    python benchmarks/engine_overhead.py --null-models   # the engine alone, no model work at all

`--null-models` swaps both models for stand-ins that answer every pass instantly with fixed
logits of the pair's vocabulary (and keep a cache that only counts tokens): the whole run time
is then the engine's own work, with no model time to subtract and far less noise.
"""
from __future__ import annotations

import argparse
import statistics

import torch

from specdec.engine.measure import engine_seconds, run_speculative
from specdec.engine.timing import Quietness


class NullLM(torch.nn.Module):
    """Answers every pass at once with fixed logits (V,) per position; its cache counts tokens."""

    class Cache:
        def __init__(self):
            self.length = 0

        def get_seq_length(self):
            return self.length

        def crop(self, n):
            self.length += n if n < 0 else 0

    def __init__(self, logits):
        super().__init__()
        self.logits = logits                                  # (n_positions, V)
        self.weight = torch.nn.Parameter(torch.zeros(1))
        self.config = type("Config", (), {"n_positions": logits.shape[0]})()

    def get_output_embeddings(self):
        return type("Head", (), {"weight": torch.zeros(self.logits.shape[1], 1)})()

    def forward(self, input_ids, use_cache=True, past_key_values=None):
        cache = past_key_values or NullLM.Cache()
        start, n = cache.length, input_ids.shape[1]
        cache.length += n
        return {"logits": self.logits[start:start + n][None], "past_key_values": cache}


def null_pair(vocab, n_positions, seed=0):
    gen = torch.Generator().manual_seed(seed)
    base = torch.randn(n_positions, vocab, generator=gen) * 3
    return NullLM(base), NullLM(base + torch.randn(n_positions, vocab, generator=gen))


def overhead(target, draft, prompts, gamma, n_new, temperature, repeats, seed=0):
    """(overhead ms per round, wall ms per round, CPU share, rounds); lists over repeats.

    A round is a target pass (the clock counts them). CPU share: the thread's CPU time over a run
    (read once at each end) / its wall time (judged by `specdec.engine.timing.Quietness`).
    """
    over, share, wall = [], [], []
    for r in range(repeats + 1):
        run = run_speculative(target, draft, prompts, gamma, n_new, seed=seed + r, temperature=temperature)
        rounds = run["passes"]["target"].calls
        if r:                                              # the first run warms up
            over.append(engine_seconds(run) / rounds * 1e3)
            share.append(run["cpu_seconds"] / run["seconds"])
            wall.append(run["seconds"] / rounds * 1e3)
    return over, wall, share, rounds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gamma", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=48)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--null-models", action="store_true", help="instant stand-in models: the engine's work alone")
    args = ap.parse_args(argv)
    from specdec.lab_prompts import all_prompts
    from specdec.tiny_pair import encode, load_tiny_pair
    torch.set_num_threads(1)
    target, draft = load_tiny_pair()
    if args.null_models:
        target, draft = null_pair(target.config.vocab_size, target.config.n_positions)
    n_pos = target.config.n_positions
    prompts = [encode(text)[-(n_pos - args.tokens - args.gamma - 1):] for _, text in all_prompts()]
    if args.profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.enable()
        overhead(target, draft, prompts, args.gamma, args.tokens, args.temperature, 1)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    over, wall, share, rounds = overhead(target, draft, prompts, args.gamma, args.tokens, args.temperature, args.repeats)
    print(f"gamma {args.gamma}, T = {args.temperature}, {len(prompts)} prompts x {args.tokens} tokens, "
          f"{rounds} rounds per run, {args.repeats} runs")
    print(f"engine overhead per round: median {statistics.median(over):.3f} ms (range {min(over):.3f}-{max(over):.3f})")
    print(f"wall time per round:       median {statistics.median(wall):.3f} ms (range {min(wall):.3f}-{max(wall):.3f})")
    quiet = Quietness.of(share)
    print(f"{quiet}: {quiet.verdict()}")


if __name__ == "__main__":
    main()
