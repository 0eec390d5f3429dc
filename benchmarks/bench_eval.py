"""How much batching a neural agent's decisions across games speeds up an evaluation (a script,
not a test): the same ``evaluate(A, B)`` twice in one run, with the policy's positions of games
played side by side batched (as ``ginrummy eval`` plays) and one decision at a time (the way
every evaluation played before), then the ratio and a check that the figures are identical.
With ``--baseline COMMIT`` the whole command ``ginrummy eval A B --games N`` is timed instead, as a
user runs it (interpreter start, imports, workers), with today's code and with the code of that
commit (a temporary git worktree), alternating, each once warmed up (numba's cache compiled).

    python benchmarks/bench_eval.py                           # ppo vs greedy, 200 games
    python benchmarks/bench_eval.py ppo simple --games 2000 --workers 2
    python benchmarks/bench_eval.py ppo greedy --games 2000 --workers 2 --baseline 5d67db7 --repeats 3
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional, Sequence
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_train import ROOT, baseline_tree  # noqa: E402

from agents.neural.policy import NeuralAgent  # noqa: E402
from train.evaluation.evaluate import evaluate  # noqa: E402


def command_seconds(tree: Path, arguments: Sequence[str]) -> float:
    """Wall seconds of ``ginrummy eval ARGUMENTS`` run with the code of the checkout ``tree``."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "train.cli", "eval", *arguments, "--no-progress"], cwd=tree,
                   env={**os.environ, "PYTHONPATH": str(tree)}, check=True, capture_output=True)
    return time.perf_counter() - start


def against_commit(commit: str, arguments: Sequence[str], repeats: int) -> dict[str, float]:
    """Median wall seconds of the command with today's code and with ``commit``'s, alternating."""
    times: dict[str, list[float]] = {"today": [], commit: []}
    with baseline_tree(commit) as tree:
        trees = {"today": ROOT, commit: tree}
        for code in trees.values():  # warm-up: numba's cache, the policy file
            command_seconds(code, [*arguments[:2], "--games", "2", "--episode", "hand", "--workers", "1"])
        for _ in range(repeats):
            for name, code in trees.items():
                times[name].append(command_seconds(code, arguments))
    medians = {name: statistics.median(seconds) for name, seconds in times.items()}
    print(f"ginrummy eval {' '.join(arguments)}: {medians[commit]:.1f} s with {commit}, {medians['today']:.1f} s "
          f"today (medians of {repeats}), speed-up {medians[commit] / medians['today']:.2f}x")
    return {"baseline_s": medians[commit], "today_s": medians["today"], "ratio": medians[commit] / medians["today"]}


def main(argv: Optional[Sequence[str]] = None) -> dict[str, float]:
    """Time both ways; print and return ``{"batched_s", "one_at_a_time_s", "ratio"}`` (with
    ``--baseline``: ``{"baseline_s", "today_s", "ratio"}``)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("a", nargs="?", default="ppo", help="agent spec A (default ppo)")
    parser.add_argument("b", nargs="?", default="greedy", help="agent spec B (default greedy)")
    parser.add_argument("--games", type=int, default=200, help="games (default 200)")
    parser.add_argument("--episode", choices=("game", "hand"), default="game")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", metavar="COMMIT", default=None,
                        help="time the whole ginrummy eval command against this commit's code instead "
                             "(e.g. 5d67db7, the code before issue 26)")
    parser.add_argument("--repeats", type=int, default=1, help="timed runs of each side with --baseline (default 1)")
    args = parser.parse_args(argv)
    if args.baseline is not None:
        return against_commit(args.baseline, [args.a, args.b, "--games", str(args.games), "--episode", args.episode,
                                              "--seed", str(args.seed), "--workers", str(args.workers)], args.repeats)

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
