"""Environment throughput: random legal games with the observation and mask encoded at
every decision, through (a) our PettingZoo AEC API, (b) our batched API, (c) OpenSpiel's
``gin_rummy`` with ``observation_tensor()`` at every decision — all in one run.

    python benchmarks/bench_env.py [--hands 300] [--rounds 5] [--num-envs 256] [--workers 2] [--json out.json]

Every hand is freshly shuffled (seeded), so no cache replays earlier games.  Rates are
medians over the rounds; ratios are ours / OpenSpiel from the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_engine import machine_info, play_openspiel, print_table, pyspiel, run_rounds  # noqa: E402

import ginenv  # noqa: E402
from ginenv.envs.batched import BatchedGinEnv  # noqa: E402


def play_aec(env: Any, n_hands: int, pick: random.Random) -> tuple[int, float]:
    """``n_hands`` random hands through ``env()``: last() (observation + mask) then step()."""
    decisions = 0
    start = time.perf_counter()
    for _ in range(n_hands):
        env.reset()
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = observation["action_mask"].nonzero()[0]
            env.step(int(legal[pick.randrange(len(legal))]))
            decisions += 1
    return decisions, time.perf_counter() - start


def play_batched(venv: BatchedGinEnv, min_decisions: int, rng: np.random.Generator) -> tuple[int, float]:
    """Step all games with uniformly random legal actions until ``min_decisions`` were made."""
    decisions = 0
    start = time.perf_counter()
    _, masks, _ = venv.reset()
    while decisions < min_decisions:
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        _, masks, _, _, _, _, _ = venv.step(actions)
        decisions += venv.num_envs
    return decisions, time.perf_counter() - start


def main(argv: Optional[Sequence[str]] = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=300, help="hands per AEC/OpenSpiel round (default 300)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds; medians are reported (default 5)")
    parser.add_argument("--num-envs", type=int, default=256, help="games stepped together in the batched API")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="worker processes for the second batched row (default: CPU count)")
    parser.add_argument("--no-copy", action="store_true", help="batched API returns views instead of copies")
    parser.add_argument("--ruleset", default="pagat", help="our ruleset (default pagat)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    info = machine_info()
    print(" | ".join(f"{k} {v}" for k, v in info.items()))
    env = ginenv.env(ruleset=args.ruleset)
    env.reset(seed=args.seed)
    pick = random.Random(args.seed)
    aec = run_rounds(lambda n: play_aec(env, n, pick), args.hands, args.rounds)
    per_hand = aec["decisions_per_hand"]
    batched = {}
    for workers in sorted({1, args.workers}):
        with BatchedGinEnv(args.num_envs, ruleset=args.ruleset, seed=args.seed, num_workers=workers,
                          copy=not args.no_copy) as venv:
            rng = np.random.default_rng(args.seed)
            batched[workers] = run_rounds(lambda n: play_batched(venv, int(n * per_hand), rng), args.hands,
                                          args.rounds)
    openspiel = None
    if pyspiel is not None:
        game = pyspiel.load_game("gin_rummy")
        os_pick = random.Random(args.seed)
        openspiel = run_rounds(lambda n: play_openspiel(game, n, os_pick.random, observe=True), args.hands,
                               args.rounds)
    else:
        print("pyspiel is not importable: OpenSpiel comparison skipped (pip install open-spiel)")
    theirs = openspiel["decisions_per_s"] if openspiel else None
    rows = [
        ("(a) AEC env(): decisions/s with observation + mask", aec["decisions_per_s"], theirs,
         aec["decisions_per_s"] / theirs if theirs else None),
    ] + [(f"(b) batched BatchedGinEnv({args.num_envs}, num_workers={w}): decisions/s", b["decisions_per_s"], theirs,
          b["decisions_per_s"] / theirs if theirs else None) for w, b in batched.items()]
    print(f"rounds {args.rounds}, {args.hands} fresh hands per round, ruleset {args.ruleset}, seed {args.seed}\n")
    print_table(rows)
    print("\nOpenSpiel column: gin_rummy via pyspiel, random legal play, observation_tensor() at every decision;"
          "\nratio: ours / OpenSpiel (targets: AEC >= 1.5x, batched >= 10x).")
    report = {"machine": info, "aec": aec, "batched": {str(w): b for w, b in batched.items()}, "openspiel": openspiel,
              "args": vars(args)}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
