"""What every example shares: scoring a trained policy against ``random``.

A *policy* here is a batched function ``(observations float32[N, 2150], action_masks
bool[N, 108]) -> int[N]`` (the ``"observation"`` and ``"action_mask"`` of the AEC env's
observation dict, stacked); each example builds one from its library's trained model.
:func:`report` plays ``games`` one-hand games of it against the ``random`` agent at once, on a
:class:`ginenv.envs.gym_vector.GymVectorGinEnv` (seats drawn at random), and returns the line every
example prints last.  (``train.evaluation.evaluate`` does the same with mirrored pairs and confidence
intervals, one decision per call: far slower for a neural policy.)
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ginenv.envs.gym_vector import GymVectorGinEnv

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


def play_vs_random(policy: Policy, games: int = 200, seed: int = 0) -> np.ndarray:
    """The points of ``policy``'s first hand in each of ``games`` games against ``random``."""
    envs = GymVectorGinEnv(games, "random", reward_mode="points")
    obs, infos = envs.reset(seed=seed)
    points = np.zeros(games, dtype=np.float32)
    playing = np.ones(games, dtype=bool)
    while playing.any():
        obs, rewards, terminated, truncated, infos = envs.step(policy(obs, infos["action_mask"]))
        points[playing] = rewards[playing]
        playing &= ~(terminated | truncated)
    envs.close()
    return points


def report(library: str, policy: Policy, steps: int, games: int = 200, seed: int = 0) -> str:
    """The summary line: ``policy``'s win rate (a dead hand counts 1/2) and points per hand
    against ``random`` over ``games`` hands."""
    points = play_vs_random(policy, games, seed)
    win_rate = float(np.mean(np.sign(points) + 1) / 2)
    return (f"{library}: {steps} training steps; vs random over {games} hands: "
            f"win rate {win_rate:.3f}, points/hand {points.mean():+.2f}")


def agilerl_policy(agent: Any) -> Policy:
    """An AgileRL multi-agent algorithm (MADDPG, IPPO) as a :data:`Policy` of the ``player_0`` seat,
    the mask given as AgileRL reads it (in the infos)."""
    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, *_ = agent.get_action({"player_0": observations}, infos={"player_0": {"action_mask": masks}})
        return actions["player_0"]
    return policy
