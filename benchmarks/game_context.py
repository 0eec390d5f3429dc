"""Does a policy use the game's context?  Score it as it is and shown every position as a single hand.

In a game to 100 the observation carries ``game_mode`` (1), the running ``scores`` and the ``hands_won``;
in a single hand they are 0.  A policy trained on single hands (the from-scratch recipe) never saw them,
so in games they reach its network as inputs it never learned from.  This script plays ``agent``
against ``opponent`` on the same deals twice: as it is, and with those observation columns zeroed
(the agent then plays each hand of the game as if it were the only one)::

    python benchmarks/game_context.py selfplay greedy --games 20000 --seed 24961

It prints one row per way (win rate of games to 100 with its interval, points per hand) and
``--json`` also writes the results.  Level rows mean the context neither helps nor hurts the policy.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import make_agent  # noqa: E402
from agents.base import Observation  # noqa: E402
from agents.registry import register  # noqa: E402
from ginenv.game.encoding import SLICES  # noqa: E402
from train.evaluation.evaluate import evaluate  # noqa: E402
from train.evaluation.lockstep import batch_key  # noqa: E402

GAME_CONTEXT = np.concatenate([np.arange(SLICES[name].start, SLICES[name].stop)
                               for name in ("game_mode", "scores", "hands_won")])
"""The observation columns that differ between a hand of a game and a single hand."""


def as_single_hands(observations: np.ndarray) -> np.ndarray:
    """A copy of ``observations [N, OBS]`` with the game's context zeroed (:data:`GAME_CONTEXT`).

    >>> import ginenv
    >>> env = ginenv.env(episode="game"); env.reset(seed=0)
    >>> obs = env.observe("player_1")["observation"]
    >>> bool(obs[GAME_CONTEXT].any()), bool(as_single_hands(obs[None])[0, GAME_CONTEXT].any())
    (True, False)
    """
    out = np.array(observations, dtype=np.float32)
    out[:, GAME_CONTEXT] = 0.0
    return out


class HandViewAgent:
    """``agent`` shown each position without the game's context (:func:`as_single_hands`)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = f"{agent.name}_hand_view"

    def act(self, observation: Observation) -> int:
        return self.agent.act({**observation, "observation": as_single_hands(observation["observation"][None])[0]})

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The agent's batched choices on the context-free observations."""
        return self.agent.act_batch(as_single_hands(observations), masks)

    def batch_key(self) -> Optional[Any]:
        """Batched as the agent is (None when it is not), apart from the agent as it is."""
        inner = batch_key(self.agent)
        return None if inner is None else ("hand_view", inner)

    def reset(self) -> None:
        self.agent.reset()


def score(agent: str, opponent: str, games: int, seed: int, ruleset: str) -> dict[str, dict]:
    """Games to 100 against ``opponent``, the agent as it is and in hand view, on the deals of ``seed``."""
    register("hand_view", lambda seed=None: HandViewAgent(make_agent(agent, seed)))
    return {way: evaluate(spec, opponent, games, ruleset=ruleset, seed=seed, workers=1, progress=True).results_dict()
            for way, spec in (("as_is", agent), ("hand_view", "hand_view"))}


def table(results: dict[str, dict]) -> str:
    """One markdown row per way."""
    rows = ["| the agent | win rate [95%] | points per hand |", "|---|---|---|"]
    for way, r in results.items():
        rows.append(f"| {way} | {r['win_rate_a']:.1%} [{r['ci_low']:.1%}, {r['ci_high']:.1%}] | "
                    f"{r['points_per_hand_a']:+.2f} |")
    return "\n".join(rows)


def main(argv: Optional[Sequence[str]] = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="the player examined (an agent spec, e.g. selfplay)")
    parser.add_argument("opponent", help="who it plays (an agent spec)")
    parser.add_argument("--games", type=int, default=400, help="games to 100 per way")
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed (the same deals for both ways)")
    parser.add_argument("--ruleset", default="pagat")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    results = score(args.agent, args.opponent, args.games, args.seed, args.ruleset)
    text = table(results)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"settings": vars(args) | {"json": str(args.json)}, "results": results},
                                        indent=1))
    return text


if __name__ == "__main__":
    main()
