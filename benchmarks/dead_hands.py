"""Why an agent's hands run dead: knocks it could make and declined, with the stock left.

    python benchmarks/dead_hands.py [--agent ppo] [--opponent random] [--hands 500] [--seed 1000]

Plays ``--hands`` single pagat hands of the agent against the opponent with
:func:`train.evaluation.evaluate.play_episode` (hand i is dealt from ``seed + i``; the agent takes seat 0
in even hands, seat 1 in odd ones; the agents are seeded from ``seed`` too, so a rerun replays
the same hands).  For every hand that runs dead it records each turn where a knock was legal
and the agent discarded instead, with the cards then left in the stock.  Prints the hands won,
lost and dead, how many dead hands had a declined knock, and the stock sizes at those declines.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ginenv  # noqa: E402
from agents import make_agent  # noqa: E402
from agents.base import Agent, Observation  # noqa: E402
from ginenv.game.actions import KNOCK_BASE, NUM_ACTIONS  # noqa: E402
from train.evaluation.evaluate import play_episode  # noqa: E402


class KnockWatcher:
    """Plays as ``agent`` and notes the stock size whenever it could knock and did not.

    >>> watcher = KnockWatcher(make_agent("random", seed=0))
    >>> watcher.declined
    []
    """

    def __init__(self, agent: Agent) -> None:
        self.agent, self.name, self.declined = agent, agent.name, []

    def act(self, observation: Observation) -> int:
        action = self.agent.act(observation)
        if observation["action_mask"][KNOCK_BASE:NUM_ACTIONS].any() and action < KNOCK_BASE:
            self.declined.append(ginenv.decode(observation).stock_size)
        return action

    def reset(self) -> None:
        self.agent.reset()
        self.declined = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="ppo", help="agent spec examined (default ppo, the shipped policy)")
    parser.add_argument("--opponent", default="random", help="opponent spec (default random)")
    parser.add_argument("--hands", type=int, default=500, help="hands played (default 500)")
    parser.add_argument("--seed", type=int, default=1000, help="hand i is dealt from seed + i (default 1000)")
    args = parser.parse_args()
    env = ginenv.env(ruleset="pagat", episode="hand")
    watcher = KnockWatcher(make_agent(args.agent, seed=args.seed))
    opponent = make_agent(args.opponent, seed=args.seed + 1)
    outcomes: Counter = Counter()
    declines = []
    for i in range(args.hands):
        seat = i % 2
        players = [watcher, opponent] if seat == 0 else [opponent, watcher]
        winner = play_episode(env, players, args.seed + i, Counter(), [0.0, 0.0])
        outcome = "dead" if winner is None else "won" if winner == seat else "lost"
        outcomes[outcome] += 1
        if outcome == "dead" and watcher.declined:
            declines.append(watcher.declined)
    print(f"{args.agent} vs {args.opponent}, {args.hands} pagat hands: won {outcomes['won']}, lost {outcomes['lost']}, "
          f"dead {outcomes['dead']}; dead with a declined knock: {len(declines)}")
    for declined in declines:
        print("  stock left at each declined knock:", ", ".join(map(str, declined)))


if __name__ == "__main__":
    main()
