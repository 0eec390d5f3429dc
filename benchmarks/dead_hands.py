"""Why an agent's hands run dead: knocks it could make and declined, with the stock left.

    python benchmarks/dead_hands.py [--agent ppo] [--opponent random] [--hands 500] [--seed 1000]

Plays ``--hands`` single pagat hands of the agent against the opponent through ``ginenv.env``
(hand i is dealt from ``seed + i``; the agent takes seat 0 in even hands, seat 1 in odd ones;
the agents are seeded from ``seed`` too, so a rerun replays the same hands).
For every hand that runs dead it records each turn where a knock was legal and the agent
discarded instead, with the cards then left in the stock.  Prints the hands won, lost and dead,
how many dead hands had a declined knock, and the stock sizes at those declines.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ginenv  # noqa: E402
from agents import make_agent  # noqa: E402
from ginenv.actions import KNOCK_BASE, NUM_ACTIONS  # noqa: E402


def play_hand(env, agents: dict, me: str, seed: int) -> tuple[str, list[int]]:
    """One hand: its outcome for ``me`` (``"won"``, ``"lost"``, ``"dead"``) and the stock sizes
    at the turns where ``me`` could knock and did not."""
    env.reset(seed=seed)
    for agent in agents.values():
        agent.reset()
    declined: list[int] = []
    outcome = None
    for name in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            if name == me:
                result = info["hand_result"]
                outcome = "dead" if result["winner"] is None else "won" if result["winner"] == me else "lost"
            env.step(None)
            continue
        action = agents[name].act(obs)
        if name == me and obs["action_mask"][KNOCK_BASE:NUM_ACTIONS].any() and action < KNOCK_BASE:
            declined.append(len(env.unwrapped.hand.stock))
        env.step(action)
    return outcome, declined


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="ppo", help="agent spec examined (default ppo, the shipped policy)")
    parser.add_argument("--opponent", default="random", help="opponent spec (default random)")
    parser.add_argument("--hands", type=int, default=500, help="hands played (default 500)")
    parser.add_argument("--seed", type=int, default=1000, help="hand i is dealt from seed + i (default 1000)")
    args = parser.parse_args()
    env = ginenv.env(ruleset="pagat", episode="hand")
    agent, opponent = make_agent(args.agent, seed=args.seed), make_agent(args.opponent, seed=args.seed + 1)
    counts = {"won": 0, "lost": 0, "dead": 0}
    declines = []
    for i in range(args.hands):
        me, other = ("player_0", "player_1") if i % 2 == 0 else ("player_1", "player_0")
        outcome, declined = play_hand(env, {me: agent, other: opponent}, me, args.seed + i)
        counts[outcome] += 1
        if outcome == "dead" and declined:
            declines.append(declined)
    print(f"{args.agent} vs {args.opponent}, {args.hands} pagat hands: won {counts['won']}, lost {counts['lost']}, "
          f"dead {counts['dead']}; dead with a declined knock: {len(declines)}")
    for declined in declines:
        print("  stock left at each declined knock:", ", ".join(map(str, declined)))


if __name__ == "__main__":
    main()
