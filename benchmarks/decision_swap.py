"""Which decisions hold a player back?  Hand one kind of its decisions to another agent and score it.

A turn has two decisions: the **draw** (take the face-up card, pass it, or draw from the stock)
and the **discard** (which card, and whether to knock with it).  This script scores ``agent``
against ``opponent`` four ways on the same deals: as it is, with its draws made by ``helper``,
with its discards made by ``helper``, and ``helper`` itself.  Where the score moves most towards
the helper's own, that kind of decision holds the agent back::

    python benchmarks/decision_swap.py selfplay greedy --helper greedy --games 2000 --seed 24050

``--kinds`` splits the draws further: ``first_draw`` is the decision on the first face-up card of a
hand (where passing is legal), ``later_draw`` every other draw; ``knock`` splits off the discards
where knocking is legal (the helper then decides whether to knock, and with which card).
``--draw-choices`` also counts, at the agent's own draws in its games as it is, what it chose
against what the helper would have chosen, and at the later draws where the helper takes the face-up
card, how often the agent takes it too by how much taking lowers the least deadwood (``now -
after``, the ``deadwood_now`` and ``deadwood_taking`` inputs of :mod:`agents.neural.features`).

It prints one row per way (win rate of games to 100 with its interval, points per hand) and
``--json`` also writes the results.  Every decision of the mixed player is made from the
observation alone, by whichever agent owns that kind of decision.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import make_agent  # noqa: E402
from agents.base import Observation  # noqa: E402
from agents.neural.features import hand_features  # noqa: E402
from agents.registry import register  # noqa: E402
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD  # noqa: E402
from train.evaluation.evaluate import evaluate  # noqa: E402

KINDS = ("draw", "discard", "first_draw", "later_draw", "knock")
DRAW_WORDS = {DRAW_STOCK: "stock", TAKE_DISCARD: "take", PASS: "pass"}
GAIN_BUCKETS = ((-100, 0), (1, 3), (4, 6), (7, 10), (11, 20), (21, 100))
"""Ranges (inclusive) of the deadwood points that taking the face-up card saves, as counted by ``--draw-choices``."""


def is_draw(mask: np.ndarray) -> bool:
    """Whether a decision with this action mask is a draw (draw, take or pass legal), not a discard.

    >>> mask = np.zeros(108, dtype=np.int8); mask[0] = 1
    >>> is_draw(mask), is_draw(np.roll(mask, DISCARD_BASE))
    (True, False)
    """
    return bool(np.asarray(mask)[:DISCARD_BASE].any())


def kind_of(mask: np.ndarray) -> str:
    """The decision's narrowest kind: ``first_draw`` (passing the first face-up card is legal),
    ``later_draw``, ``knock`` (a discard where knocking is legal) or ``discard``.

    >>> mask = np.zeros(108, dtype=np.int8); mask[[1, 2]] = 1
    >>> kind_of(mask), kind_of(np.roll(mask, -1)), kind_of(np.roll(mask, DISCARD_BASE))
    ('first_draw', 'later_draw', 'discard')
    >>> kind_of(np.roll(mask, KNOCK_BASE))
    'knock'
    """
    mask = np.asarray(mask)
    if not is_draw(mask):
        return "knock" if mask[KNOCK_BASE:BIG_GIN].any() else "discard"
    return "first_draw" if mask[PASS] else "later_draw"


def covers(kind: str, mask: np.ndarray) -> bool:
    """Whether a decision with this mask is of ``kind`` (``draw`` covers both kinds of draw, ``discard``
    the discards with and without a chance to knock)."""
    narrow = kind_of(mask)
    broad = "discard" if narrow in ("discard", "knock") else "draw"
    return kind in (narrow, broad)


class SwappedAgent:
    """``agent`` with its decisions of one ``kind`` (one of :data:`KINDS`, see :func:`covers`) made by ``helper``."""

    def __init__(self, agent: Any, helper: Any, kind: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        self.agent, self.helper, self.kind = agent, helper, kind
        self.name = f"{agent.name}+{helper.name}_{kind}s"

    def act(self, observation: Observation) -> int:
        """The helper's action at a decision of the swapped kind, else the agent's."""
        helped = covers(self.kind, observation["action_mask"])
        return (self.helper if helped else self.agent).act(observation)

    def reset(self) -> None:
        self.agent.reset()
        self.helper.reset()


def swapped_spec(agent: str, helper: str, kind: str) -> str:
    """Register a :class:`SwappedAgent` under a new name and return that name (a spec for ``evaluate``)."""
    name = f"swap_{kind}"
    register(name, lambda seed=None: SwappedAgent(make_agent(agent, seed), make_agent(helper, seed), kind))
    return name


def score(agent: str, opponent: str, helper: str, games: int, seed: int, ruleset: str,
          kinds: Sequence[str] = ("draw", "discard")) -> dict[str, dict]:
    """The results of games to 100 against ``opponent``, all on the deals of ``seed``: ``as_is``, then
    ``helper_<kind>s`` for each of ``kinds``, then ``helper`` (one process: the swapped agents are registered here)."""
    line_ups = {"as_is": agent} | {f"helper_{kind}s": swapped_spec(agent, helper, kind) for kind in kinds}
    line_ups["helper"] = helper
    return {label: evaluate(spec, opponent, games, ruleset=ruleset, seed=seed, workers=1, progress=True).results_dict()
            for label, spec in line_ups.items()}


def deadwood_gain(observation: np.ndarray) -> int:
    """Points of least deadwood that taking the face-up card saves (0 when it does not help), from a
    10-card hand's observation vector.

    >>> import ginenv
    >>> env = ginenv.env(); env.reset(seed=0)
    >>> deadwood_gain(env.observe("player_1")["observation"]) >= 0
    True
    """
    now, after = hand_features(np.asarray(observation)[None])[1][0]
    return round(float(now - after) * 100)


def gain_bucket(gain: int) -> str:
    """The :data:`GAIN_BUCKETS` range holding ``gain``, as text.

    >>> gain_bucket(0), gain_bucket(5), gain_bucket(33)
    ('-100..0', '4..6', '21..100')
    """
    low, high = next(bucket for bucket in GAIN_BUCKETS if bucket[0] <= gain <= bucket[1])
    return f"{low}..{high}"


class DrawRecorder:
    """``agent`` as it is, counting at each of its draws its choice beside ``helper``'s, and at the later
    draws where ``helper`` takes, the agent's choice by :func:`gain_bucket`."""

    def __init__(self, agent: Any, helper: Any, counts: Counter, gains: Counter) -> None:
        self.agent, self.helper, self.counts, self.gains = agent, helper, counts, gains
        self.name = agent.name

    def act(self, observation: Observation) -> int:
        """The agent's action; at a draw, also count (kind, agent's choice, helper's choice) and, at a later
        draw where the helper takes, (deadwood gain's bucket, agent's choice)."""
        action = self.agent.act(observation)
        if is_draw(observation["action_mask"]):
            kind = kind_of(observation["action_mask"])
            mine, theirs = DRAW_WORDS[action], DRAW_WORDS[self.helper.act(observation)]
            self.counts[(kind, mine, theirs)] += 1
            if kind == "later_draw" and theirs == "take":
                self.gains[(gain_bucket(deadwood_gain(observation["observation"])), mine)] += 1
        return action

    def reset(self) -> None:
        self.agent.reset()
        self.helper.reset()


def draw_choices(agent: str, opponent: str, helper: str, games: int, seed: int,
                 ruleset: str) -> tuple[dict[str, int], dict[str, int]]:
    """How the agent's draws in its games against ``opponent`` (as it is, deals of ``seed``) split by kind,
    its choice and ``helper``'s choice, as ``{"first_draw take/pass": count, ...}`` (agent's word first); and
    its choices at the later draws where ``helper`` takes, by deadwood gain, as ``{"4..6 stock": count, ...}``."""
    counts: Counter = Counter()
    gains: Counter = Counter()
    register("draw_recorder", lambda seed=None: DrawRecorder(make_agent(agent, seed), make_agent(helper, seed),
                                                             counts, gains))
    evaluate("draw_recorder", opponent, games, ruleset=ruleset, seed=seed, workers=1, progress=True)
    order = [f"{low}..{high}" for low, high in GAIN_BUCKETS]
    return ({f"{kind} {mine}/{theirs}": n for (kind, mine, theirs), n in sorted(counts.items())},
            {f"{bucket} {mine}": n for (bucket, mine), n in sorted(gains.items(), key=lambda item: (
                order.index(item[0][0]), item[0][1]))})


def table(results: dict[str, dict]) -> str:
    """One line per way: win rate, its interval and points per hand."""
    lines = [f"{'who plays':<16} {'wins':>7} {'95% interval':>17} {'points/hand':>12}"]
    for label, r in results.items():
        lines.append(f"{label:<16} {r['win_rate_a']:>7.1%} [{r['ci_low']:.1%}, {r['ci_high']:.1%}]"
                     f" {r['points_per_hand_a']:>+12.2f}")
    return "\n".join(lines)


def choices_table(counts: dict[str, int], helper: str) -> str:
    """One line per (kind, agent's choice / helper's choice) with its share of the agent's draws."""
    total = sum(counts.values())
    lines = [f"{'draw (agent/' + helper + ')':<28} {'count':>7} {'share':>7}"]
    lines += [f"{key:<28} {n:>7} {n / total:>7.1%}" for key, n in counts.items()]
    return "\n".join(lines)


def gains_table(gains: dict[str, int], helper: str) -> str:
    """One line per deadwood-gain bucket of the later draws where ``helper`` takes: how often the agent takes too."""
    buckets = dict.fromkeys(key.split()[0] for key in gains)
    lines = [f"later draws where {helper} takes, by deadwood saved: the agent takes"]
    for bucket in buckets:
        took, total = gains.get(f"{bucket} take", 0), sum(n for key, n in gains.items() if key.split()[0] == bucket)
        lines.append(f"  {bucket:>8} points: {took:>6} of {total:>6} ({took / total:.0%})")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="the player examined (an agent spec, e.g. selfplay)")
    parser.add_argument("opponent", help="who it plays (an agent spec)")
    parser.add_argument("--helper", default="greedy", help="who makes the swapped decisions")
    parser.add_argument("--games", type=int, default=400, help="games to 100 per way")
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed (the same deals for every way)")
    parser.add_argument("--ruleset", default="pagat")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=["draw", "discard"],
                        help="the kinds of decision swapped, one way each (default: draw discard)")
    parser.add_argument("--draw-choices", action="store_true",
                        help="also count the agent's draw choices beside the helper's (games as it is)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    results = score(args.agent, args.opponent, args.helper, args.games, args.seed, args.ruleset, args.kinds)
    text = table(results)
    report: dict[str, Any] = {"settings": vars(args) | {"json": str(args.json)}, "results": results}
    if args.draw_choices:
        report["draw_choices"], report["take_by_gain"] = draw_choices(args.agent, args.opponent, args.helper,
                                                                      args.games, args.seed, args.ruleset)
        text += "\n\n" + choices_table(report["draw_choices"], args.helper)
        text += "\n\n" + gains_table(report["take_by_gain"], args.helper)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return text


if __name__ == "__main__":
    main()
