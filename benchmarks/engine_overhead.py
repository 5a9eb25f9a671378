"""The engine's own per-round work, apart from the models' passes, on the course-trained pair.

    python benchmarks/engine_overhead.py              # T = 1, gamma = 3, the lab's 12 prompts x 48 tokens

Every forward of both models is wrapped and timed, so per round

    overhead = (wall time of speculative_generate - time inside the models' forward) / rounds

is what the engine adds: processing logits, sampling, verification, cache crops, bookkeeping.
Median and range over repeats; one thread. `--profile` also prints cProfile's top functions.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from specdec.engine.generate import speculative_generate  # noqa: E402
from specdec.engine.stats import RoundStats  # noqa: E402


class Timed:
    """Wraps model.forward; adds the wall and CPU seconds spent inside it to `seconds` and `cpu`."""

    def __init__(self, *models):
        self.seconds = self.cpu = 0.0
        for m in models:
            inner = m.forward

            def timed(*a, __inner=inner, **k):
                t0, c0 = time.perf_counter(), time.thread_time()
                try:
                    return __inner(*a, **k)
                finally:
                    self.seconds += time.perf_counter() - t0
                    self.cpu += time.thread_time() - c0
            m.forward = timed


def overhead(target, draft, prompts, gamma, n_new, temperature, repeats, seed=0):
    """(overhead ms per round, its CPU-time version, wall ms per round, rounds); lists over repeats.

    The CPU-time version (thread time, inside and outside the models) is what a busy machine
    disturbs least: time the thread spent waiting for a core counts in neither.
    """
    clock = Timed(target, draft)
    over, over_cpu, wall = [], [], []
    for r in range(repeats + 1):
        gen = torch.Generator().manual_seed(seed + r)
        stats = RoundStats(gamma)
        clock.seconds = clock.cpu = 0.0
        t0, c0 = time.perf_counter(), time.thread_time()
        for ids in prompts:
            speculative_generate(target, draft, ids, gamma=gamma, max_new_tokens=n_new, temperature=temperature,
                                 generator=gen, stats=stats)
        total, total_cpu = time.perf_counter() - t0, time.thread_time() - c0
        rounds = stats.rounds + stats.short_rounds
        if r:                                              # the first run warms up
            over.append((total - clock.seconds) / rounds * 1e3)
            over_cpu.append((total_cpu - clock.cpu) / rounds * 1e3)
            wall.append(total / rounds * 1e3)
    return over, over_cpu, wall, rounds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gamma", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=48)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    from specdec.lab_prompts import all_prompts
    from specdec.tiny_pair import encode, load_tiny_pair
    torch.set_num_threads(1)
    target, draft = load_tiny_pair()
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
    over, over_cpu, wall, rounds = overhead(target, draft, prompts, args.gamma, args.tokens, args.temperature, args.repeats)
    print(f"gamma {args.gamma}, T = {args.temperature}, {len(prompts)} prompts x {args.tokens} tokens, "
          f"{rounds} rounds per run, {args.repeats} runs")
    print(f"engine overhead per round: median {statistics.median(over):.3f} ms (range {min(over):.3f}-{max(over):.3f})")
    print(f"  the same in CPU time:    median {statistics.median(over_cpu):.3f} ms "
          f"(range {min(over_cpu):.3f}-{max(over_cpu):.3f})")
    print(f"wall time per round:       median {statistics.median(wall):.3f} ms (range {min(wall):.3f}-{max(wall):.3f})")


if __name__ == "__main__":
    main()
