"""Game equity: the chance of winning a game to the target from a running score, so that a
search can value a hand by the game it leaves rather than by its points
(``montecarlo:value=game``).

Model: hands are independent and alike.  The signed points of one hand (the winner's
points, 0 for a dead hand) follow :func:`hand_points`: ``hands`` fresh deals of the
ruleset played to their end by the compiled rollout policy of :mod:`agents.search.playout` for
both seats, counted from both sides (so the two seats are equally strong).  The game is
won by the first seat at or over the target (R26); bonuses decide nothing.
:func:`win_table` solves ``W[mine, theirs]`` (scores below the target) by recursion from
the target down; :func:`game_values` maps hand points after a position to ``W`` of the
scores they leave.

>>> table = win_table(Ruleset())                 # pagat, to 100
>>> round(float(table[0, 0]), 6)                 # level at the start
0.5
>>> bool(table[90, 0] > 0.9 > 0.1 > table[0, 90])
True
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from agents.search.playout import Settings, play_out
from ginenv.game.hand import HandState
from ginenv.game.rules import Ruleset

HANDS = 20_000
"""Simulated hands behind :func:`hand_points`."""


@lru_cache(maxsize=16)
def hand_points(ruleset: Ruleset, hands: int = HANDS, seed: int = 0) -> np.ndarray:
    """Chance of each hand result from one seat's side: ``p[x]`` for a hand won with ``x``
    points (``x >= 1``), ``p[0]`` for a dead hand; losing ``x`` has the chance of winning
    ``x`` (both sides are counted).  Seeded, so the same ruleset gives the same table.

    >>> p = hand_points(Ruleset(), hands=200)
    >>> bool(abs(p[0] + 2 * p[1:].sum() - 1) < 1e-9)
    True
    """
    rng = np.random.default_rng(seed)
    settings = Settings.of(ruleset)
    won = np.array([play_out(HandState.random(rng, ruleset).row.copy(), settings) for _ in range(hands)])
    counts = np.bincount(np.abs(won), minlength=2).astype(np.float64)
    counts[1:] /= 2
    chances = counts / hands
    chances.setflags(write=False)             # cached: shared by every caller
    return chances


@lru_cache(maxsize=16)
def win_table(ruleset: Ruleset) -> np.ndarray:
    """``W[mine, theirs]``: the chance of reaching ``ruleset.target`` first from running
    scores ``mine`` and ``theirs`` (both below the target), hands drawn from
    :func:`hand_points`.  Read-only, shape ``(target, target)``.

    >>> table = win_table(Ruleset(target=10))
    >>> bool(np.allclose(table + table.T, 1))    # symmetric model: W[a, b] + W[b, a] = 1
    True
    """
    p = hand_points(ruleset)
    target, most = ruleset.target, len(p) - 1
    decided = p[1:] / (1.0 - p[0])             # one hand that is not dead, from my side
    padded = np.zeros((target + most + 1, target + most + 1))   # 0: the opponent reached the target first
    padded[target:, :] = 1.0                   # I reached the target first
    for mine in range(target - 1, -1, -1):
        for theirs in range(target - 1, -1, -1):
            padded[mine, theirs] = (decided @ padded[mine + 1:mine + 1 + most, theirs]
                                    + decided @ padded[mine, theirs + 1:theirs + 1 + most])
    table = padded[:target, :target].copy()
    table.setflags(write=False)
    return table


def game_values(table: np.ndarray, scores: tuple[int, int], points: np.ndarray) -> np.ndarray:
    """The chance of winning the game after each hand result in ``points`` (signed, from
    my side) from running ``scores`` (mine, the opponent's), under ``table``
    (:func:`win_table`).

    >>> table = win_table(Ruleset(target=100))
    >>> game_values(table, (95, 0), np.array([5, 0, -20])).round(3).tolist()[:1]
    [1.0]
    """
    target = table.shape[0]
    mine, theirs = scores
    points = np.asarray(points, dtype=np.int64)
    after_mine = mine + np.maximum(points, 0)
    after_theirs = theirs + np.maximum(-points, 0)
    inside = (after_mine < target) & (after_theirs < target)
    values = np.where(after_mine >= target, 1.0, 0.0)
    values[inside] = table[after_mine[inside], after_theirs[inside]]
    return values


__all__ = ["HANDS", "game_values", "hand_points", "win_table"]
