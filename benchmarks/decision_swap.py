"""Which decisions hold a player back?  Hand one kind of its decisions to another agent and score it.

A turn has two decisions: the **draw** (take the face-up card, pass it, or draw from the stock)
and the **discard** (which card, and whether to knock with it).  This script scores ``agent``
against ``opponent`` four ways on the same deals: as it is, with its draws made by ``helper``,
with its discards made by ``helper``, and ``helper`` itself.  Where the score moves most towards
the helper's own, that kind of decision holds the agent back::

    python benchmarks/decision_swap.py selfplay greedy --helper greedy --games 2000 --seed 24050

It prints one row per way (win rate of games to 100 with its interval, points per hand) and
``--json`` also writes the four results.  Every decision of the mixed player is made from the
observation alone, by whichever agent owns that kind of decision.
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
from ginenv.game.actions import DISCARD_BASE  # noqa: E402
from train.evaluation.evaluate import evaluate  # noqa: E402

KINDS = ("draw", "discard")


def is_draw(mask: np.ndarray) -> bool:
    """Whether a decision with this action mask is a draw (draw, take or pass legal), not a discard.

    >>> mask = np.zeros(108, dtype=np.int8); mask[0] = 1
    >>> is_draw(mask), is_draw(np.roll(mask, DISCARD_BASE))
    (True, False)
    """
    return bool(np.asarray(mask)[:DISCARD_BASE].any())


class SwappedAgent:
    """``agent`` with its decisions of one ``kind`` (``"draw"`` or ``"discard"``) made by ``helper``."""

    def __init__(self, agent: Any, helper: Any, kind: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        self.agent, self.helper, self.kind = agent, helper, kind
        self.name = f"{agent.name}+{helper.name}_{kind}s"

    def act(self, observation: Observation) -> int:
        """The helper's action at a decision of the swapped kind, else the agent's."""
        helped = is_draw(observation["action_mask"]) == (self.kind == "draw")
        return (self.helper if helped else self.agent).act(observation)

    def reset(self) -> None:
        self.agent.reset()
        self.helper.reset()


def swapped_spec(agent: str, helper: str, kind: str) -> str:
    """Register a :class:`SwappedAgent` under a new name and return that name (a spec for ``evaluate``)."""
    name = f"swap_{kind}"
    register(name, lambda seed=None: SwappedAgent(make_agent(agent, seed), make_agent(helper, seed), kind))
    return name


def score(agent: str, opponent: str, helper: str, games: int, seed: int, ruleset: str) -> dict[str, dict]:
    """The four results (``as_is``, ``helper_draws``, ``helper_discards``, ``helper``) of games to 100
    against ``opponent``, all on the deals of ``seed`` (one process: the swapped agents are registered here)."""
    line_ups = {"as_is": agent, "helper_draws": swapped_spec(agent, helper, "draw"),
                "helper_discards": swapped_spec(agent, helper, "discard"), "helper": helper}
    return {label: evaluate(spec, opponent, games, ruleset=ruleset, seed=seed, workers=1, progress=True).results_dict()
            for label, spec in line_ups.items()}


def table(results: dict[str, dict]) -> str:
    """One line per way: win rate, its interval and points per hand."""
    lines = [f"{'who plays':<16} {'wins':>7} {'95% interval':>17} {'points/hand':>12}"]
    for label, r in results.items():
        lines.append(f"{label:<16} {r['win_rate_a']:>7.1%} [{r['ci_low']:.1%}, {r['ci_high']:.1%}]"
                     f" {r['points_per_hand_a']:>+12.2f}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="the player examined (an agent spec, e.g. selfplay)")
    parser.add_argument("opponent", help="who it plays (an agent spec)")
    parser.add_argument("--helper", default="greedy", help="who makes the swapped decisions")
    parser.add_argument("--games", type=int, default=400, help="games to 100 per way")
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed (the same deals for every way)")
    parser.add_argument("--ruleset", default="pagat")
    parser.add_argument("--json", type=Path, help="also write the four results here")
    args = parser.parse_args(argv)
    results = score(args.agent, args.opponent, args.helper, args.games, args.seed, args.ruleset)
    text = table(results)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"settings": vars(args) | {"json": str(args.json)}, "results": results},
                                        indent=1))
    return text


if __name__ == "__main__":
    main()
