"""How much better beliefs could give the ``rollout`` search: a diagnostic, not an agent.

``rollout`` samples the opponent's unseen cards by a prior (``kept`` or ``uniform``); if the search
fails to improve on its policy because those samples are unlike the opponent's real hand, a search
that knows the hand should gain clearly.  This script plays single ``pagat`` hands, mirrored on the
same deals, between the policy alone and one of two searchers that roll the same policy out:

* ``--beliefs prior``: the ``rollout`` agent as shipped (its ``prior``);
* ``--beliefs model --belief FILE``: ``rollout:belief=FILE``, the unseen cards dealt by an opponent
  model (``ginrummy belief``);
* ``--beliefs oracle``: the same search, but every sample deals the opponent its **true** hidden
  cards (only the stock order is sampled).  It reads ``raw_env.hand``, which no agent may do, so it
  is an upper bound on what an opponent model could give the search, never a player.

It prints the searcher's share of hands won with a 95% interval on pair means and its points per
hand.  Example (about 5 minutes on one core)::

    python benchmarks/search_oracle.py --beliefs oracle --pairs 200 --seed 25316
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ginenv  # noqa: E402
from agents.neural.policy import NeuralAgent  # noqa: E402
from agents.search.positions import deal, forced, known_mask, position, shuffles, unknown_cards  # noqa: E402
from agents.search.rollout import RolloutAgent  # noqa: E402
from ginenv.game import core  # noqa: E402
from ginenv.game.encoding import ObservationView  # noqa: E402


class OracleRollout(RolloutAgent):
    """``rollout`` whose samples give the opponent its true hidden cards (``truth``, set before each act)."""

    truth: int = 0
    """The opponent's true hand as a 52-bit mask."""

    def samples_of(self, view: ObservationView, mask: np.ndarray, obs: np.ndarray) -> np.ndarray:
        template = position(view, forced(view, mask)).row
        known = known_mask(view)
        unknown = unknown_cards(template, known)
        held = np.array([c for c in unknown if self.truth >> int(c) & 1], dtype=np.int64)
        rest = np.array([c for c in unknown if not self.truth >> int(c) & 1], dtype=np.int64)
        stock_orders = shuffles(rest, self._rng, self.samples)
        orders = np.concatenate([np.tile(held, (self.samples, 1)), stock_orders], axis=1)
        return deal(template, known, orders, len(held))


def play_hand(env, seat_agents: list, seed: int) -> tuple[float, int]:
    """One hand from ``seed``; returns (seat 0's points, winner seat or -1 when dead)."""
    env.reset(seed=seed)
    points = 0.0
    for name in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        seat = int(name[-1])
        if terminated or truncated:
            points = float(reward) if seat == 0 else points
            action = None
        else:
            agent = seat_agents[seat]
            if isinstance(agent, OracleRollout):
                agent.truth = int(env.unwrapped.hand.row[core.HAND + 1 - seat])
            action = int(agent.act(observation))
        env.step(action)
    return points, 0 if points > 0 else 1 if points < 0 else -1


def main(argv: Optional[Sequence[str]] = None) -> dict:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--beliefs", choices=("prior", "model", "oracle"), default="oracle")
    parser.add_argument("--belief", default=None, help="the opponent model's file (with --beliefs model)")
    parser.add_argument("--prior", default="kept", help="the searcher's prior (rollout's: kept or uniform)")
    parser.add_argument("--policy", default=None, help="policy file (default: the shipped pagat policy)")
    parser.add_argument("--samples", type=int, default=32)
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=25316)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    env = ginenv.env(ruleset="pagat", episode="hand", reward_mode="points", reward_scale=1.0)
    if (args.beliefs == "model") != (args.belief is not None):
        parser.error("--belief FILE goes with --beliefs model, and only with it")
    kind = OracleRollout if args.beliefs == "oracle" else RolloutAgent
    searcher = kind(args.seed, path=args.policy, samples=args.samples, belief=args.belief, prior=args.prior)
    policy = NeuralAgent(None, path=args.policy)
    deals = np.random.default_rng(args.seed).integers(2**31, size=args.pairs)
    pair_points, wins, hands, started = [], 0, 0, time.perf_counter()
    for deal_seed in tqdm(deals, desc="pairs", unit="pair"):
        first, winner_first = play_hand(env, [searcher, policy], int(deal_seed))
        second, winner_second = play_hand(env, [policy, searcher], int(deal_seed))
        pair_points.append((first - second) / 2)
        wins += (winner_first == 0) + (winner_second == 1)
        hands += 2
    points = np.array(pair_points)
    error = 1.96 * points.std(ddof=1) / np.sqrt(len(points))
    report = {"beliefs": args.beliefs, "belief": args.belief, "prior": args.prior, "samples": args.samples,
              "seed": args.seed, "hands": hands, "hands_won": wins / hands, "points_per_hand": float(points.mean()),
              "points_interval": [float(points.mean() - error), float(points.mean() + error)],
              "seconds": time.perf_counter() - started}
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
