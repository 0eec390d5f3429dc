"""When does an agent knock?  Its share of knocks at the decisions where it may knock, by deadwood.

A player may knock once its best 10 cards leave little deadwood (at most 10 under ``pagat``); whether
it then knocks at once or holds on for gin or a lower count is much of the difference between the
heuristics (which knock at once) and a searching player.  This script plays single hands of each
agent against one opponent (the agent in both seats in turn, the same deals for every agent) and
counts, for each least deadwood the agent could knock with, how often it did::

    python benchmarks/knock_profile.py selfplay ppo greedy --hands 600 --seed 24040

It prints one row per deadwood (``knocked/may`` per agent; for a network, also the mean probability
its policy puts on knocking there, which the most likely action hides) and each agent's gin rate;
``--json`` also writes the counts.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ginenv  # noqa: E402
from agents import make_agent  # noqa: E402
from agents.neural.features import hand_deadwood  # noqa: E402
from ginenv.game.actions import BIG_GIN, KNOCK_BASE  # noqa: E402

MAX_DEADWOOD = 10
"""The knock limit of every preset but Oklahoma's first card (the table's last row)."""


def profile(spec: str, opponent: str, hands: int, seed: int, ruleset: str) -> dict:
    """``{"may": [...], "knocked": [...], "probability": [...], "gins": g, "hands": n}``: per least
    deadwood 0..10, the agent's decisions where it may knock, those where it did and (for a network,
    else None) the summed probability of its knocks; hand ``h`` is dealt with ``seed + h`` and the
    agent sits in seat ``h % 2``."""
    agent, other = make_agent(spec, seed=seed), make_agent(opponent, seed=seed + 1)
    may, knocked, gins = np.zeros(MAX_DEADWOOD + 1, int), np.zeros(MAX_DEADWOOD + 1, int), 0
    probability = np.zeros(MAX_DEADWOOD + 1) if hasattr(agent, "distribution") else None
    env = ginenv.env(ruleset=ruleset)
    for h in tqdm(range(hands), desc=spec, leave=False):
        env.reset(seed=seed + h)
        me = env.possible_agents[h % 2]
        for name in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                result = info.get("hand_result") or {}
                gins += name == me and result.get("outcome") in ("gin", "big_gin") and result.get("winner") == me
                env.step(None)
                continue
            action = (agent if name == me else other).act(obs)
            if name == me and obs["action_mask"][KNOCK_BASE:BIG_GIN].any():
                deadwood = min(int(hand_deadwood(obs["observation"][None])[0]), MAX_DEADWOOD)
                may[deadwood] += 1
                knocked[deadwood] += KNOCK_BASE <= action < BIG_GIN
                if probability is not None:
                    probs = agent.distribution(obs["observation"][None], obs["action_mask"][None]).probs
                    probability[deadwood] += float(probs[0, KNOCK_BASE:BIG_GIN].sum())
            env.step(action)
    return {"may": may.tolist(), "knocked": knocked.tolist(),
            "probability": None if probability is None else probability.tolist(), "gins": int(gins), "hands": hands}


def table(profiles: dict[str, dict]) -> str:
    """Markdown: a row per deadwood, ``knocked/may (share; p mean knock probability)`` per agent (``p``
    for networks only), then the gin rates."""
    names = list(profiles)
    lines = ["| deadwood | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for d in range(MAX_DEADWOOD + 1):
        cells = []
        for name in names:
            may, knocked = profiles[name]["may"][d], profiles[name]["knocked"][d]
            summed = profiles[name]["probability"]
            chance = f"; p {summed[d] / may:.3f}" if may and summed is not None else ""
            cells.append(f"{knocked}/{may} ({knocked / may:.0%}{chance})" if may else "–")
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    lines.append("| gins per hand | " + " | ".join(f"{p['gins'] / p['hands']:.1%}" for p in profiles.values()) + " |")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> str:
    """Profile the agents named on the command line, print the table and return it."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("agents", nargs="+", help="agent specs to profile")
    parser.add_argument("--opponent", default="simple", help="the opponent of every agent (default simple)")
    parser.add_argument("--hands", type=int, default=600, help="hands per agent")
    parser.add_argument("--seed", type=int, default=0, help="hand h is dealt with seed + h")
    parser.add_argument("--ruleset", default="pagat")
    parser.add_argument("--json", type=Path, help="also write the counts here")
    args = parser.parse_args(argv)
    profiles = {spec: profile(spec, args.opponent, args.hands, args.seed, args.ruleset) for spec in args.agents}
    text = table(profiles)
    print(f"knocks at the decisions where each agent may knock, by its least deadwood "
          f"({args.hands} {args.ruleset} hands against {args.opponent}, seed {args.seed})")
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"settings": vars(args) | {"json": str(args.json)}, "profiles": profiles},
                                        indent=1))
    return text


if __name__ == "__main__":
    main()
