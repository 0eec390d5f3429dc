"""Is holding on for gin worth it?  Score a player that may knock only at a low deadwood.

The heuristics and the from-scratch policy knock at their first chance; the `ppo` policy holds on
at low counts and makes gins and undercuts far more often.  This script scores ``agent`` against
``opponent`` on the same deals once per threshold ``T``: the agent plays as it is, except that it
may knock only when its least deadwood is at most ``T`` (so ``T = 0`` knocks only for gin; a
decision where knocking is ruled out is made by the agent among the other legal actions)::

    python benchmarks/knock_threshold.py selfplay greedy --thresholds 10 6 3 0 --games 2000 --seed 24926

``T = 10`` (the ``pagat`` limit) is the agent as it is.  It prints one row per threshold (win rate
of games to 100 with its interval, points per hand, gins and undercuts) and ``--json`` also writes
the results.  A rule this crude is no policy; it shows whether a plan of holding on pays against
that opponent, which a training lever would then have to find.
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
from agents.neural.features import hand_deadwood  # noqa: E402
from agents.registry import register  # noqa: E402
from ginenv.game.actions import BIG_GIN, KNOCK_BASE  # noqa: E402
from train.evaluation.evaluate import evaluate  # noqa: E402
from train.evaluation.lockstep import batch_key  # noqa: E402
from train.training.collect import without_knocks  # noqa: E402


def without_high_knocks(observations: np.ndarray, masks: np.ndarray, threshold: int) -> np.ndarray:
    """``masks [N, 108]`` with each row's knocks made illegal where the row's least deadwood is above
    ``threshold`` and another action is legal (the input is not changed).

    >>> import ginenv
    >>> env = ginenv.env(); env.reset(seed=0)
    >>> obs = env.observe("player_1")
    >>> bool((without_high_knocks(obs["observation"][None], obs["action_mask"][None], 0) == obs["action_mask"]).all())
    True
    """
    masks = np.asarray(masks)
    high = masks[:, KNOCK_BASE:BIG_GIN].any(axis=1)  # the deadwood matters only where knocking is legal
    if high.any():
        high[high] = hand_deadwood(np.asarray(observations)[high]) > threshold
    return without_knocks(masks, high)


class ThresholdAgent:
    """``agent`` that may knock only when its least deadwood is at most ``threshold``."""

    def __init__(self, agent: Any, threshold: int) -> None:
        self.agent, self.threshold = agent, threshold
        self.name = f"{agent.name}_knock_at_most_{threshold}"

    def act(self, observation: Observation) -> int:
        mask = without_high_knocks(observation["observation"][None], observation["action_mask"][None],
                                   self.threshold)[0]
        return self.agent.act({**observation, "action_mask": mask})

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The agent's batched choices under the thresholded masks."""
        return self.agent.act_batch(observations, without_high_knocks(observations, masks, self.threshold))

    def batch_key(self) -> Optional[Any]:
        """Batched as the agent is (None when it is not), apart from other thresholds."""
        inner = batch_key(self.agent)
        return None if inner is None else ("knock_at_most", self.threshold, inner)

    def reset(self) -> None:
        self.agent.reset()


def score(agent: str, opponent: str, thresholds: Sequence[int], games: int, seed: int,
          ruleset: str) -> dict[str, dict]:
    """The results of games to 100 against ``opponent`` for each threshold, all on the deals of ``seed``."""
    results = {}
    for threshold in thresholds:
        name = f"knock_at_most_{threshold}"
        register(name, lambda seed=None, t=threshold: ThresholdAgent(make_agent(agent, seed), t))
        results[name] = evaluate(name, opponent, games, ruleset=ruleset, seed=seed, workers=1,
                                 progress=True).results_dict()
    return results


def table(results: dict[str, dict]) -> str:
    """One markdown row per threshold."""
    rows = ["| knocks at deadwood | win rate [95%] | points per hand | gins | undercuts made |",
            "|---|---|---|---|---|"]
    for name, r in results.items():
        rows.append(f"| <= {name.rsplit('_', 1)[1]} | {r['win_rate_a']:.1%} [{r['ci_low']:.1%}, {r['ci_high']:.1%}] | "
                    f"{r['points_per_hand_a']:+.2f} | {r['gin_rate_a']:.1%} | {r['undercut_rate_a']:.1%} |")
    return "\n".join(rows)


def main(argv: Optional[Sequence[str]] = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="the player examined (an agent spec, e.g. selfplay)")
    parser.add_argument("opponent", help="who it plays (an agent spec)")
    parser.add_argument("--thresholds", type=int, nargs="+", default=[10, 6, 3, 0],
                        help="the highest deadwood it may knock with, one way each (default: 10 6 3 0)")
    parser.add_argument("--games", type=int, default=400, help="games to 100 per way")
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed (the same deals for every way)")
    parser.add_argument("--ruleset", default="pagat")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    if any(t < 0 for t in args.thresholds):
        parser.error("--thresholds: each must be 0 or more")
    results = score(args.agent, args.opponent, args.thresholds, args.games, args.seed, args.ruleset)
    text = table(results)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"settings": vars(args) | {"json": str(args.json)}, "results": results},
                                        indent=1))
    return text


if __name__ == "__main__":
    main()
