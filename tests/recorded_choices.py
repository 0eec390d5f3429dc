"""Recorded agent choices: observations (stored piece by piece, by their ``LAYOUT`` names) and
the actions that agents chose for them, so that a rewrite of an agent can be checked to
play exactly as before (``tests/agents/test_recorded_choices.py``).

The observations are stored by piece name, not as vectors, so the file survives changes of
the layout: a piece the file lacks (added to ``LAYOUT`` later) is taken from a fresh
observation of the same ruleset and episode mode.

Running this module as a script (``python tests/recorded_choices.py``) writes
``tests/data/recorded_choices.npz``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import ginenv
from ginenv.game.encoding import LAYOUT, OBSERVATION_SIZE, SLICES

PATH = Path(__file__).parent / "data" / "recorded_choices.npz"
RULESETS = ("pagat", "classic25", "oklahoma", "eaai")
EPISODES = ("hand", "game")
GREEDY_SPECS = ("greedy", "greedy:knock_early=6,knock_late=0", "greedy:lookahead=false",
                "greedy:take=lower,residual_weight=1,danger_weight=2,knock_early=8,knock_late=3,behind_bonus=5")
"""The ``greedy`` variants recorded on every observation."""
MONTECARLO_EVERY = 16
"""``montecarlo:samples=8`` is recorded on every 16th observation only (seeded by its index)."""


def load(path: Path = PATH) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], list[str], list[str]]:
    """``(observations float32[N, OBSERVATION_SIZE], masks int8[N, 108], actions by spec,
    ruleset names, episode modes)`` of the recorded file, in the current layout."""
    data = np.load(path)
    count = data["mask"].shape[0]
    rulesets = [RULESETS[i] for i in data["ruleset"]]
    episodes = [EPISODES[i] for i in data["episode"]]
    observations = np.empty((count, OBSERVATION_SIZE), dtype=np.float32)
    fresh = {key: _fresh_observation(*key) for key in set(zip(rulesets, episodes))}
    for i, key in enumerate(zip(rulesets, episodes)):
        observations[i] = fresh[key]
    for name, size, kind, scale, *_ in LAYOUT:
        if kind == "bits" and f"bits/{name}" in data:
            observations[:, SLICES[name]] = np.unpackbits(data[f"bits/{name}"], axis=1, count=size)
        elif f"int/{name}" in data:
            observations[:, SLICES[name]] = data[f"int/{name}"] / scale
    actions = {key[len("action/"):]: data[key] for key in data.files if key.startswith("action/")}
    return observations, data["mask"].astype(np.int8), actions, rulesets, episodes


def _fresh_observation(ruleset: str, episode: str) -> np.ndarray:
    env = ginenv.env(ruleset=ruleset, episode=episode)
    env.reset(seed=0)
    return env.observe(env.agent_selection)["observation"]


def _pieces(observations: np.ndarray) -> dict[str, np.ndarray]:
    out = {}
    for name, _, kind, scale, *_ in LAYOUT:
        piece = observations[:, SLICES[name]]
        if kind == "bits":
            out[f"bits/{name}"] = np.packbits(piece > 0.5, axis=1)
        else:
            out[f"int/{name}"] = np.rint(piece * scale).astype(np.int16)
    return out


def _play(ruleset: str, episode: str, specs: tuple[str, str], seed: int) -> list[dict[str, np.ndarray]]:
    """Every observation of a seat to act in one episode of ``specs``."""
    from agents import make_agent
    env = ginenv.env(ruleset=ruleset, episode=episode)
    env.reset(seed=seed)
    players = {f"player_{i}": make_agent(spec, seed=seed + i) for i, spec in enumerate(specs)}
    seen = []
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seen.append({key: value.copy() for key, value in observation.items()})
        env.step(players[name].act(observation))
    return seen


def record(path: Path = PATH) -> None:
    """Play varied episodes and record what the agents choose on every decision."""
    from agents import make_agent
    pairings = (("greedy", "simple"), ("simple", "greedy:knock_early=6,knock_late=0"), ("greedy", "random"))
    observations, rulesets, episodes = [], [], []
    for r, ruleset in enumerate(RULESETS):
        for e, episode in enumerate(EPISODES):
            for k, pair in enumerate(pairings):
                for game in range(6 if episode == "hand" else 1):
                    found = _play(ruleset, episode, pair, 100 * r + 10 * k + game + 1000 * e)
                    observations += found
                    rulesets += [r] * len(found)
                    episodes += [e] * len(found)
    vectors = np.stack([o["observation"] for o in observations])
    masks = np.stack([o["action_mask"] for o in observations])
    out: dict[str, Any] = {"mask": masks.astype(np.uint8), "ruleset": np.array(rulesets, dtype=np.int8),
                           "episode": np.array(episodes, dtype=np.int8), **_pieces(vectors)}
    for spec in GREEDY_SPECS:
        agent = make_agent(spec)
        out[f"action/{spec}"] = np.array([agent.act(o) for o in observations], dtype=np.int8)
    out["action/simple"] = np.array([make_agent("simple", seed=i).act(o) for i, o in enumerate(observations)],
                                    dtype=np.int8)
    out["action/montecarlo:samples=8"] = np.array(
        [make_agent("montecarlo:samples=8", seed=i).act(o) if i % MONTECARLO_EVERY == 0 else -1
         for i, o in enumerate(observations)], dtype=np.int8)
    path.parent.mkdir(exist_ok=True)
    np.savez_compressed(path, **out)


if __name__ == "__main__":
    record()
