"""Learner steps per second: the batched ``GymVectorGinEnv`` beside Gymnasium's one-game-per-env vectors.

Each route plays random legal learner actions against the same opponent for ``--seconds`` per
round and counts learner decisions (a Gymnasium next-step reset, where the action is ignored,
is not one); the table gives the median of ``--rounds`` rounds and the ratio to the
``SyncVectorEnv`` route:

* ``GymVectorGinEnv``: ``gymnasium.make_vec(id, num_envs=N)``, every game on one ``BatchedGinEnv``,
  the opponent's moves batched;
* ``SyncVectorEnv``: ``make_vec(..., vectorization_mode="sync")``, one ``SingleAgentGinEnv`` per
  env, stepped in turn in this process;
* ``AsyncVectorEnv``: ``vectorization_mode="async"``, one ``SingleAgentGinEnv`` per process.

    python benchmarks/bench_vector_env.py                      # ~1 minute
    python benchmarks/bench_vector_env.py --num-envs 64 1024 --opponent greedy --rounds 5
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Any, Callable

import gymnasium as gym
import numpy as np

import ginenv  # noqa: F401  (registers the ids)

ENV_ID = "GinRummy-v1"
SINGLE_KWARGS = {"info_lists": False}
"""The one-game envs give fixed-shape infos, which Gymnasium's vectors can stack for many envs."""


def decisions_per_second(envs: Any, masks_of: Callable[[Any, dict], np.ndarray], seconds: float, seed: int) -> float:
    """Learner decisions per second of ``envs`` playing random legal actions for ``seconds``."""
    _, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = masks_of(envs, infos)
        decisions += int(masks.any(axis=1).sum())
        *_, infos = envs.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
    return decisions / (time.perf_counter() - start)


def median_rate(make: Callable[[], Any], masks_of: Callable[[Any, dict], np.ndarray],
                args: argparse.Namespace) -> float:
    """The median over ``args.rounds`` rounds of :func:`decisions_per_second` (one warm-up round first)."""
    envs = make()
    try:
        decisions_per_second(envs, masks_of, min(args.seconds, 0.5), 0)  # compile and warm caches
        return statistics.median(decisions_per_second(envs, masks_of, args.seconds, seed)
                                 for seed in range(1, args.rounds + 1))
    finally:
        envs.close()


def routes(args: argparse.Namespace) -> list[tuple[str, int, Callable[[], Any], Callable[[Any, dict], np.ndarray]]]:
    """(name, num_envs, constructor, masks getter) of every route to measure."""
    batched = lambda envs, infos: envs.action_masks()  # noqa: E731
    from_infos = lambda envs, infos: infos["action_mask"]  # noqa: E731
    found = [("SyncVectorEnv", n, lambda n=n: gym.make_vec(ENV_ID, n, "sync", opponent=args.opponent, **SINGLE_KWARGS),
              from_infos) for n in args.sync_envs]
    found += [("AsyncVectorEnv", n,
               lambda n=n: gym.make_vec(ENV_ID, n, "async", opponent=args.opponent, **SINGLE_KWARGS), from_infos)
              for n in args.async_envs]
    found += [("GymVectorGinEnv", n, lambda n=n: gym.make_vec(ENV_ID, n, opponent=args.opponent), batched)
              for n in args.num_envs]
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[16, 64, 256], help="GymVectorGinEnv sizes")
    parser.add_argument("--sync-envs", type=int, nargs="*", default=[16], help="SyncVectorEnv sizes")
    parser.add_argument("--async-envs", type=int, nargs="*", default=[2], help="AsyncVectorEnv sizes (processes)")
    parser.add_argument("--opponent", default="random", help="agent spec the learners play against")
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per route (the median is shown)")
    args = parser.parse_args(argv)
    rows = [(name, n, median_rate(make, masks_of, args)) for name, n, make, masks_of in routes(args)]
    baseline = next((rate for name, _, rate in rows if name == "SyncVectorEnv"), None)
    print(f"learner decisions/s vs {args.opponent!r}, median of {args.rounds} x {args.seconds:g} s")
    print(f"{'route':<16}{'num_envs':>9}{'steps/s':>12}{'x sync':>9}")
    for name, n, rate in rows:
        ratio = f"{rate / baseline:.1f}" if baseline else "-"
        print(f"{name:<16}{n:>9}{rate:>12,.0f}{ratio:>9}")


if __name__ == "__main__":
    main()
