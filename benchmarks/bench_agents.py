"""Strength of one agent against another: mirrored pairs of whole games or single hands (a
script, not a test).

    python benchmarks/bench_agents.py greedy simple --pairs 100 --ruleset eaai
    python benchmarks/bench_agents.py "greedy:knock_late=6" simple --pairs 500 --ruleset pagat --workers 2
    python benchmarks/bench_agents.py montecarlo greedy --pairs 300 --ruleset pagat --episode hand --seed 10000

Pair ``i`` plays two games in ``episode="game"`` mode (or two single hands with
``--episode hand``), both from an env seeded with
``seed + i`` (so the same shuffles, as far as play lets the two games run alike): in the
first, agent A sits as ``player_0`` and B as ``player_1``; in the second, the seats are
swapped.  Agents are built with :func:`agents.make_agent` (seeded with ``seed + i``) and
``reset()`` at the start of every hand.

Printed: A's game wins out of ``2 * pairs``, the win rate with a Wilson 95% interval over
games, and a second 95% interval over pairs (normal approximation on each pair's score
0, 1/2 or 1, which accounts for the two games of a pair sharing their deals), plus the mean
final-score margin (A minus B, bonuses included; in hand mode the hand's points) with a
95% interval over pairs, and the run time.  In hand mode a dead hand is won by neither.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ginenv  # noqa: E402
from agents import make_agent  # noqa: E402


def play_game(spec_0: str, spec_1: str, seed: int, ruleset: str, episode: str = "game") -> tuple[int, list[int], int]:
    """One game to the target (or one hand): ``(winner seat or -1, final scores or hand
    points by seat, hands played)``."""
    env = ginenv.env(ruleset=ruleset, episode=episode)
    env.reset(seed=seed)
    players = {"player_0": make_agent(spec_0, seed=seed), "player_1": make_agent(spec_1, seed=seed)}
    for agent in players.values():
        agent.reset()
    hands = 0
    for name in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(players[name].act(observation))
        infos = env.unwrapped.infos
        if "hand_result" in infos[name]:
            hands += 1
            if episode == "hand":
                hand = infos[name]["hand_result"]
                winner = -1 if hand["winner"] is None else int(hand["winner"][-1])
                return winner, [hand["points"] if winner == seat else 0 for seat in (0, 1)], hands
            if "game_result" in infos[name]:
                game = infos[name]["game_result"]
                winner = 0 if game["winner"] == "player_0" else 1
                return winner, list(game["final_scores"]), hands
            for agent in players.values():
                agent.reset()
    raise RuntimeError("the game ended without a game_result")


def play_pair(args: tuple[str, str, int, str, str]) -> tuple[int, float, int]:
    """Both games of a pair: ``(A's wins 0..2, A's score margin summed, hands)``."""
    spec_a, spec_b, seed, ruleset, episode = args
    w1, s1, h1 = play_game(spec_a, spec_b, seed, ruleset, episode)
    w2, s2, h2 = play_game(spec_b, spec_a, seed, ruleset, episode)
    wins = (w1 == 0) + (w2 == 1)
    margin = (s1[0] - s1[1]) + (s2[1] - s2[0])
    return wins, margin, h1 + h2


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run(spec_a: str, spec_b: str, pairs: int, ruleset: str, seed: int, workers: int,
        episode: str = "game") -> dict[str, Any]:
    """Play the pairs (in ``workers`` processes) and return the figures."""
    jobs = [(spec_a, spec_b, seed + i, ruleset, episode) for i in range(pairs)]
    start = time.perf_counter()
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(play_pair, jobs, chunksize=max(1, pairs // (4 * workers))))
    else:
        results = [play_pair(job) for job in jobs]
    elapsed = time.perf_counter() - start
    games = 2 * pairs
    wins = sum(r[0] for r in results)
    pair_scores = [r[0] / 2 for r in results]
    mean = sum(pair_scores) / pairs
    var = sum((x - mean) ** 2 for x in pair_scores) / max(1, pairs - 1)
    half = 1.96 * math.sqrt(var / pairs)
    margins = [r[1] / 2 for r in results]
    margin = sum(margins) / pairs
    margin_half = 1.96 * math.sqrt(sum((x - margin) ** 2 for x in margins) / max(1, pairs - 1) / pairs)
    return {"a": spec_a, "b": spec_b, "ruleset": ruleset, "games": games, "wins": wins,
            "rate": wins / games, "wilson": wilson(wins, games), "pair_ci": (mean - half, mean + half),
            "margin": margin, "margin_half": margin_half, "episode": episode, "hands": sum(r[2] for r in results) / games,
            "seconds": elapsed}


def main(argv: Optional[Sequence[str]] = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="agent spec A, e.g. greedy or 'greedy:knock_late=6'")
    parser.add_argument("b", help="agent spec B, e.g. simple")
    parser.add_argument("--pairs", type=int, default=100, help="mirrored pairs (2 games each)")
    parser.add_argument("--ruleset", default="eaai", help="ruleset preset name")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first pair")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--episode", choices=("game", "hand"), default="game", help="whole games or single hands")
    args = parser.parse_args(argv)
    out = run(args.a, args.b, args.pairs, args.ruleset, args.seed, args.workers, args.episode)
    lo, hi = out["wilson"]
    plo, phi = out["pair_ci"]
    unit = "games" if args.episode == "game" else "hands"
    print(f"{out['a']} vs {out['b']} | ruleset {out['ruleset']} | {out['games']} {unit} ({args.pairs} mirrored pairs, "
          f"seeds {args.seed}..{args.seed + args.pairs - 1})")
    print(f"  A wins {out['wins']}/{out['games']} = {out['rate']:.1%}  Wilson 95% [{lo:.1%}, {hi:.1%}]"
          f"  pair 95% [{plo:.1%}, {phi:.1%}]")
    what = "final-score margin" if args.episode == "game" else "points per hand"
    print(f"  mean {what} A-B {out['margin']:+.2f} ± {out['margin_half']:.2f} (95%, pairs), "
          f"{out['hands']:.1f} hands/{args.episode}, {out['seconds']:.1f} s")
    return out


if __name__ == "__main__":
    main()
