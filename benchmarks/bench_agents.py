"""One agent against another in mirrored pairs, for quick development runs (a script, not a
test): a thin front end of train.evaluation.evaluate.evaluate, counted in pairs.

    python benchmarks/bench_agents.py greedy simple --pairs 100 --ruleset eaai
    python benchmarks/bench_agents.py "greedy:knock_late=6" simple --pairs 500 --ruleset pagat --workers 2
    python benchmarks/bench_agents.py montecarlo greedy --pairs 300 --ruleset pagat --episode hand --seed 10000

``--pairs N`` plays ``2 N`` games (or single hands with ``--episode hand``) exactly as
``ginrummy eval A B --games 2N`` does: deals and agent seeds derive from ``(seed, pair)``
(and the side, so A and B never share a seed), results are the same for any worker count,
and the report is :func:`train.evaluation.evaluate.format_report`'s (win rate with a pair-cluster
interval, sign test, points per hand, gin / undercut / dead rates, decisions/s).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train.evaluation.evaluate import EvalResult, evaluate, format_report  # noqa: E402


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("a", help="agent spec A, e.g. greedy or 'greedy:knock_late=6'")
    parser.add_argument("b", help="agent spec B, e.g. simple")
    parser.add_argument("--pairs", type=int, default=100, help="mirrored pairs (2 games each)")
    parser.add_argument("--ruleset", default="eaai", help="ruleset preset name")
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--episode", choices=("game", "hand"), default="game", help="whole games or single hands")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> EvalResult:
    """Run the evaluation the command line asks for and print its report."""
    args = parse_args(argv)
    result = evaluate(args.a, args.b, games=2 * args.pairs, ruleset=args.ruleset, episode=args.episode,
                      seed=args.seed, workers=args.workers)
    print(format_report(result))
    return result


if __name__ == "__main__":
    main()
