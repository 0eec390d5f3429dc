"""The ``ginrummy`` command line.

Sub-commands so far:

* ``simulate`` — play random legal hands through the engine and print how they ended.

Later issues add ``eval``, ``tournament``, ``train`` and ``play``.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from typing import Optional, Sequence

import numpy as np
from tqdm import tqdm

from ginenv.hand import HandState
from ginenv.rules import PRESETS, resolve_ruleset


def simulate(hands: int, ruleset: str, seed: int, progress: bool = True) -> dict:
    """Play ``hands`` uniformly random legal hands; return outcome counts and speed.

    >>> simulate(3, "pagat", 0, progress=False)["hands"]
    3
    """
    rules = resolve_ruleset(ruleset)
    rng = np.random.default_rng(seed)
    outcomes: Counter = Counter()
    decisions = 0
    start = time.perf_counter()
    for _ in tqdm(range(hands), desc="hands", disable=not progress, unit="hand"):
        state = HandState.random(rng, rules)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
        result = state.result
        outcomes["truncated" if result.truncated else result.outcome] += 1  # type: ignore[union-attr]
    elapsed = time.perf_counter() - start
    return {"hands": hands, "ruleset": rules.name, "seed": seed, "outcomes": dict(outcomes),
            "decisions": decisions, "decisions_per_s": decisions / elapsed if elapsed else float("inf")}


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ginrummy", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play random legal hands and print how they ended")
    sim.add_argument("--hands", type=int, default=2000, help="number of hands to play (default 2000)")
    sim.add_argument("--ruleset", choices=sorted(PRESETS), default="pagat", help="rules preset (default pagat)")
    sim.add_argument("--seed", type=int, default=0, help="seed of the shuffles and the random players")
    sim.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``ginrummy`` console script."""
    args = _build_parser().parse_args(argv)
    if args.command == "simulate":
        if args.hands <= 0:
            print("--hands must be positive", file=sys.stderr)
            return 2
        report = simulate(args.hands, args.ruleset, args.seed, progress=not args.no_progress)
        print(f"{report['hands']} random hands under {report['ruleset']} (seed {report['seed']}):")
        for outcome, count in sorted(report["outcomes"].items()):
            print(f"  {outcome:10s} {count:7d}  {count / report['hands']:6.1%}")
        print(f"  {report['decisions']} decisions, {report['decisions_per_s']:,.0f} decisions/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
