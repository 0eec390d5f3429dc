"""Compiled rollouts for search: a hand played to its end inside numba.

The rollout policy (both seats, deterministic), on a *simulated* hand (a position of
:mod:`agents.search.positions` built by the searching agent, never the env's real state), made of the
rules of :mod:`agents.tactics` that ``greedy`` uses too:

* **Face-up card** (upcard offer or draw): take it when it completes a meld with the hand
  *and* taking it lowers the hand's least deadwood (:func:`agents.tactics.takes`,
  greedy's default take rule); otherwise pass the offer / draw from the stock.
* **Discard**: big gin when the ruleset has it and all 11 cards meld; else the card (not
  the one just taken) leaving the least deadwood, ties to the higher value then the lower
  card id (:func:`agents.tactics.best_discard`, greedy's knock card) — knocked face down
  when the deadwood left is 0 or within the seat's knock threshold, else discarded face
  up.  Seat 1 (the searcher's opponent) knocks as soon as the knock limit allows; seat 0
  (the searcher) by the schedule of :class:`Settings` (``knock_early`` at the deal moving
  linearly to ``knock_late`` as the stock runs down to two cards, greedy's
  :func:`agents.tactics.knock_threshold`; never above the knock limit).

Hands are stepped with :func:`agents.search.positions.step` and scored with
:func:`agents.search.positions.points` (the engine's own transitions and showdown); one costs about
20 µs.

>>> import numpy as np
>>> from ginenv.game.hand import HandState
>>> state = HandState.random(np.random.default_rng(0), "pagat")
>>> points = play_out(state.row.copy(), Settings.of(state.ruleset))
>>> isinstance(points, int)
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from agents.search import positions as search
from agents.search.positions import DISCARD, ME, OFFER, OVER, Rules
from agents.tactics import best_discard, knock_threshold, takes
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.checks import checked_float
from ginenv.game.melds import mask_deadwood
from ginenv.game.rules import Ruleset


class Settings(NamedTuple):
    """What a rollout needs: the ruleset's numbers and seat 0's knock schedule (a plain
    tuple, so compiled code can take it)."""

    rules: Rules
    knock_early: float = 10.0
    knock_late: float = 10.0

    @classmethod
    def of(cls, ruleset: Ruleset, knock_early: float = 10.0, knock_late: float = 10.0) -> "Settings":
        """The settings for ``ruleset``; ``knock_early`` and ``knock_late`` are finite and ``>= 0``."""
        return cls(Rules.of(ruleset), checked_float("knock_early", knock_early, 0.0, closed=True),
                   checked_float("knock_late", knock_late, 0.0, closed=True))


@njit(cache=True)
def improved(hand: int, drawn: np.ndarray, held: int) -> int:
    """``hand`` after drawing each card of ``drawn`` in turn and discarding, each time, the
    card :func:`agents.tactics.best_discard` picks (never one of the mask ``held``): how
    a deadwood-minded player's hand improves over that many turns."""
    for card in drawn:
        hand |= 1 << card
        out, _ = best_discard(hand, held)
        hand &= ~(1 << out)
    return hand


@njit(cache=True)
def kept_deals(orders: np.ndarray, hidden: int, draws: int, known: int, reorders: np.ndarray) -> np.ndarray:
    """Orders of the unknown cards (as :func:`agents.search.positions.deal` takes them) where the
    opponent has improved its hand for ``draws`` turns: it was dealt the first ``hidden``
    cards of ``orders[s]`` (beside its ``known`` cards, which it keeps) and drew the next
    ``draws`` (:func:`improved`); the cards it does not hold form the stock in the order
    ``reorders[s]`` (a permutation of the stock positions)."""
    count, width = orders.shape
    draws = min(draws, width - hidden)
    out = np.empty_like(orders)
    rest = np.empty(width - hidden, dtype=np.int64)
    for s in range(count):
        hand = known
        for i in range(hidden):
            hand |= 1 << orders[s, i]
        hand = improved(hand, orders[s, hidden:hidden + draws], known)
        placed, left = 0, 0
        for i in range(width):
            card = orders[s, i]
            if hand >> card & 1:
                out[s, placed] = card
                placed += 1
            else:
                rest[left] = card
                left += 1
        for i in range(width - hidden):
            out[s, hidden + i] = rest[reorders[s, i]]
    return out


@njit(cache=True)
def threshold(row: np.ndarray, settings: Settings) -> float:
    """The deadwood the seat to act knocks with (see the module docstring)."""
    limit = search.knock_limit(row)
    if search.to_act(row) != ME:
        return limit
    return knock_threshold(search.stock_size(row), limit, settings.knock_early, settings.knock_late, 0.0)


@njit(cache=True)
def choose(row: np.ndarray, settings: Settings) -> int:
    """The rollout policy's action for the seat to act in ``row`` (see the module docstring)."""
    phase = search.phase(row)
    hand = search.hand(row, search.to_act(row))
    if phase == DISCARD:
        if settings.rules.big_gin and mask_deadwood(hand) == 0:
            return BIG_GIN
        taken = search.taken(row)
        card, left = best_discard(hand, 1 << taken if taken >= 0 else 0)
        knocks = left == 0 or left <= threshold(row, settings)
        return (KNOCK_BASE if knocks else DISCARD_BASE) + card
    if search.may_take(row) and takes(hand, search.top_discard(row), True):
        return TAKE_DISCARD
    return PASS if phase == OFFER else DRAW_STOCK


@njit(cache=True)
def play_out(row: np.ndarray, settings: Settings) -> int:
    """Play ``row`` to its end with :func:`choose` for both seats (in place); the points
    from seat 0's side (+ won, - lost, 0 for a dead or truncated hand)."""
    while search.phase(row) != OVER:
        search.step(row, choose(row, settings), settings.rules)
    return search.points(row, settings.rules, ME)


@njit(cache=True)
def evaluate(samples: np.ndarray, actions: np.ndarray, settings: Settings) -> np.ndarray:
    """``values[a, s]``: the rollout points (seat 0's side) of playing ``actions[a]`` in the
    row ``samples[s]`` and then :func:`play_out`.  The actions must be legal in every sample
    (the same decision seen through different determinizations); the samples are not changed."""
    values = np.empty((actions.shape[0], samples.shape[0]), dtype=np.int64)
    for s in range(samples.shape[0]):
        for a in range(actions.shape[0]):
            row = samples[s].copy()
            search.step(row, actions[a], settings.rules)
            values[a, s] = play_out(row, settings)
    return values


__all__ = ["Settings", "improved", "kept_deals", "threshold", "choose", "play_out", "evaluate"]
