"""How much batching a neural agent's decisions across games speeds up an evaluation (a script,
not a test): the same ``evaluate(A, B)`` twice in one run, with the policy's positions of games
played side by side batched (as ``ginrummy eval`` plays) and one decision at a time (the way
every evaluation played before), then the ratio and a check that the figures are identical.

    python benchmarks/bench_eval.py                           # ppo vs greedy, 200 games
    python benchmarks/bench_eval.py ppo simple --games 2000 --workers 2
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Optional, Sequence
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.neural.policy import NeuralAgent  # noqa: E402
from train.evaluation.evaluate import evaluate  # noqa: E402


def main(argv: Optional[Sequence[str]] = None) -> dict[str, float]:
    """Time both ways; print and return ``{"batched_s", "one_at_a_time_s", "ratio"}``."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("a", nargs="?", default="ppo", help="agent spec A (default ppo)")
    parser.add_argument("b", nargs="?", default="greedy", help="agent spec B (default greedy)")
    parser.add_argument("--games", type=int, default=200, help="games (default 200)")
    parser.add_argument("--episode", choices=("game", "hand"), default="game")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    def timed() -> tuple[float, dict]:
        start = time.perf_counter()
        result = evaluate(args.a, args.b, games=args.games, episode=args.episode, seed=args.seed,
                          workers=args.workers)
        return time.perf_counter() - start, result.results_dict()

    evaluate(args.a, args.b, games=2, episode="hand", seed=args.seed, workers=1)  # compile and load once
    batched, figures = timed()
    with mock.patch.object(NeuralAgent, "batch_key", lambda self: None):
        alone, same = timed()
    print(f"{args.a} vs {args.b}, {args.games} {args.episode}s, {args.workers} worker(s): batched {batched:.1f} s, "
          f"one decision at a time {alone:.1f} s, ratio {alone / batched:.2f}x; identical figures: {figures == same}")
    return {"batched_s": batched, "one_at_a_time_s": alone, "ratio": alone / batched}


if __name__ == "__main__":
    main()
