"""Generalised advantage estimation over interleaved two-seat decision streams.

A rollout is stored per env step: ``[T, N]`` arrays, entry ``(t, i)`` the decision taken in
game ``i`` at step ``t`` (``valid``) by seat ``seat[t, i]``.  The two seats of a game take
turns, so each column holds two *streams*, one per seat, and GAE chains each decision to
the next decision **of the same seat**.  ``rewards[t, i]`` is everything credited to that
decision (the trainer credits a seat's reward to its last decision, since a hand often ends
on the other seat's move); ``dones[t, i]`` marks the last decision of an episode.

A stream's last decision in the rollout that does not end an episode has no successor yet:
it only provides the bootstrap value for the decision before it and is left out of training
(``trainable`` is False there).

Optional potential-based shaping (Ng et al. 1999) adds ``gamma * phi(next) - phi(this)``
to each reward, with ``phi`` = 0 after an episode ends, so the optimal policy is unchanged.

>>> import numpy as np
>>> r = np.array([[0.0], [0.0], [1.0]]); v = np.zeros((3, 1)); d = np.array([[0], [0], [1]], bool)
>>> seat = np.zeros((3, 1), int); valid = np.ones((3, 1), bool)
>>> adv, ret, ok = gae(r, v, d, seat, valid, gamma=0.5, lam=1.0)
>>> adv[:, 0].tolist(), ok[:, 0].tolist()
([0.25, 0.5, 1.0], [True, True, True])
"""
from __future__ import annotations

from typing import Optional

import numpy as np


def gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, seat: np.ndarray, valid: np.ndarray,
        gamma: float, lam: float, potentials: Optional[np.ndarray] = None,
        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advantages, returns (``advantages + values``) and the ``trainable`` mask, all ``[T, N]``.

    Entries where ``valid`` is False are ignored (their outputs are 0 / False).
    """
    steps, games = rewards.shape
    phi = np.zeros_like(values) if potentials is None else potentials
    advantages = np.zeros((steps, games), dtype=np.float32)
    trainable = np.zeros((steps, games), dtype=bool)
    next_value = np.zeros((games, 2), dtype=np.float64)
    next_phi = np.zeros((games, 2), dtype=np.float64)
    next_adv = np.zeros((games, 2), dtype=np.float64)
    has_next = np.zeros((games, 2), dtype=bool)
    for t in range(steps - 1, -1, -1):
        cols = np.flatnonzero(valid[t])
        s = seat[t, cols]
        done = dones[t, cols].astype(bool)
        follow = has_next[cols, s] & ~done
        ok = done | follow
        keep = (1.0 - done) * follow
        reward = rewards[t, cols] + gamma * next_phi[cols, s] * keep - phi[t, cols]
        delta = reward + gamma * next_value[cols, s] * keep - values[t, cols]
        adv = delta + gamma * lam * keep * next_adv[cols, s]
        advantages[t, cols] = np.where(ok, adv, 0.0)
        trainable[t, cols] = ok
        next_value[cols, s] = values[t, cols]
        next_phi[cols, s] = phi[t, cols]
        next_adv[cols, s] = np.where(ok, adv, 0.0)
        has_next[cols, s] = True
    returns = np.where(trainable, advantages + values, 0.0).astype(np.float32)
    return advantages, returns, trainable
