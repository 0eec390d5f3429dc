"""Compiled rollouts for search: a hand played to its end inside numba.

The rollout policy (both seats, deterministic), on the true state of a *simulated* hand
(a determinization built by the searching agent, never the env's real state):

* **Face-up card** (upcard offer or draw): take it when it completes a meld with the hand
  (:func:`agents.simple.completes_meld`) *and* taking it lowers the hand's least deadwood
  (the taken card may not be discarded); otherwise pass the offer / draw from the stock.
* **Discard**: big gin when the ruleset has it and all 11 cards meld; else the card (not
  the one just taken) leaving the least deadwood, ties to the higher value then the lower
  card id — knocked face down when the deadwood left is 0 or within the seat's knock
  threshold, else discarded face up.  Seat 1 (the searcher's opponent) knocks as soon as
  the knock limit allows; seat 0 (the searcher) by the schedule of :class:`Settings`
  (``knock_early`` at the deal moving linearly to ``knock_late`` as the stock runs down to
  two cards, as ``greedy`` does; never above the knock limit).

Hands are played with :func:`ginenv.core.apply` and scored with
:func:`ginenv.scoring.showdown`, so a rollout uses the same engine as the env; one costs
about 20 µs.

>>> import numpy as np
>>> from ginenv.hand import HandState
>>> state = HandState.random(np.random.default_rng(0), "pagat")
>>> points = play_out(state.row.copy(), Settings.of(state.ruleset))
>>> isinstance(points, int)
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ginenv import core
from ginenv.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.cards import CARD_VALUES
from ginenv.melds import discard_deadwoods_into, mask_deadwood
from ginenv.rules import Ruleset
from ginenv.scoring import showdown

from .simple import completes_meld

_VALUES = np.array(CARD_VALUES, dtype=np.int64)
INITIAL_STOCK = 31


class Settings(NamedTuple):
    """What a rollout needs: the ruleset's numbers and seat 0's knock schedule (a plain
    tuple, so compiled code can take it)."""

    big_gin: bool
    max_turns: int
    gin_bonus: int
    big_gin_bonus: int
    undercut_bonus: int
    knock_early: float = 10.0
    knock_late: float = 10.0

    @classmethod
    def of(cls, ruleset: Ruleset, knock_early: float = 10.0, knock_late: float = 10.0) -> "Settings":
        return cls(bool(ruleset.big_gin), ruleset.max_turns_per_hand, ruleset.gin_bonus, ruleset.big_gin_bonus,
                   ruleset.undercut_bonus, float(knock_early), float(knock_late))


@njit(cache=True)
def best_discard(hand: int, excluded: int) -> tuple[int, int]:
    """``(card, deadwood left)``: the discard of ``hand`` leaving the least deadwood, among
    its cards not in the mask ``excluded`` (ties to the higher value, then the lower card)."""
    after = np.empty(52, dtype=np.int64)
    discard_deadwoods_into(hand, after)
    best, best_left = -1, 1 << 20
    for card in range(52):
        if not hand >> card & 1 or excluded >> card & 1:
            continue
        left = after[card]
        if left < best_left or left == best_left and _VALUES[card] > _VALUES[best]:
            best, best_left = card, left
    return best, best_left


@njit(cache=True)
def improved(hand: int, drawn: np.ndarray, held: int) -> int:
    """``hand`` after drawing each card of ``drawn`` in turn and discarding, each time, the
    card :func:`best_discard` picks (never one of the mask ``held``): how a deadwood-minded
    player's hand improves over that many turns."""
    for card in drawn:
        hand |= 1 << card
        out, _ = best_discard(hand, held)
        hand &= ~(1 << out)
    return hand


@njit(cache=True)
def kept_deals(orders: np.ndarray, hidden: int, draws: int, known: int, reorders: np.ndarray) -> np.ndarray:
    """Deals (as :func:`deal_samples` takes them) where the opponent has improved its hand
    for ``draws`` turns: it was dealt the first ``hidden`` cards of ``orders[s]`` (beside its
    ``known`` cards, which it keeps) and drew the next ``draws`` (:func:`improved`); the
    cards it does not hold form the stock in the order ``reorders[s]`` (a permutation of the
    stock positions)."""
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
def lowers(hand: int, card: int) -> bool:
    """Whether taking the face-up ``card`` into the 10-card ``hand`` lowers its least
    deadwood (the taken card may not be discarded)."""
    return best_discard(hand | 1 << card, 1 << card)[1] < mask_deadwood(hand)


@njit(cache=True)
def takes(hand: int, card: int) -> bool:
    """Whether the rollout policy takes the face-up ``card`` into the 10-card ``hand``."""
    return completes_meld(hand, card) and lowers(hand, card)


@njit(cache=True)
def knock_threshold(row: np.ndarray, settings: Settings) -> float:
    """The deadwood the seat to act knocks with (see the module docstring)."""
    limit = row[core.KNOCK_LIMIT]
    if row[core.CURRENT] == 1:
        return limit
    progress = (INITIAL_STOCK - row[core.STOCK_LEN]) / (INITIAL_STOCK - core.STOCK_LEFT_AT_DEAD_HAND)
    progress = min(1.0, max(0.0, progress))
    return min(settings.knock_early + (settings.knock_late - settings.knock_early) * progress, limit)


@njit(cache=True)
def choose(row: np.ndarray, settings: Settings) -> int:
    """The rollout policy's action for the seat to act in ``row`` (see the module docstring)."""
    phase, seat = row[core.PHASE], row[core.CURRENT]
    hand = row[core.HAND + seat]
    if phase == core.DISCARD:
        if settings.big_gin and mask_deadwood(hand) == 0:
            return BIG_GIN
        taken = row[core.TAKEN]
        card, left = best_discard(hand, 1 << taken if taken >= 0 else 0)
        knocks = left == 0 or left <= knock_threshold(row, settings)
        return (KNOCK_BASE if knocks else DISCARD_BASE) + card
    may_take = phase == core.OFFER or not row[core.FORCED]
    if may_take and takes(hand, row[core.PILE + row[core.PILE_LEN] - 1]):
        return TAKE_DISCARD
    return PASS if phase == core.OFFER else DRAW_STOCK


@njit(cache=True)
def play_out(row: np.ndarray, settings: Settings) -> int:
    """Play ``row`` to its end with :func:`choose` for both seats (in place); the points
    from seat 0's side (+ won, - lost, 0 for a dead or truncated hand)."""
    while row[core.PHASE] != core.OVER:
        core.apply(row, choose(row, settings), settings.max_turns)
    if row[core.ENDED] != core.ENDED_SHOWDOWN:
        return 0
    melds = np.empty(17, dtype=np.int64)
    _, winner, points, _, _, _, _ = showdown(row, settings.gin_bonus, settings.big_gin_bonus,
                                             settings.undercut_bonus, melds)
    return points if winner == 0 else -points


@njit(cache=True)
def evaluate(samples: np.ndarray, actions: np.ndarray, settings: Settings) -> np.ndarray:
    """``values[a, s]``: the rollout points (seat 0's side) of playing ``actions[a]`` in the
    row ``samples[s]`` and then :func:`play_out`.  The actions must be legal in every sample
    (the same decision seen through different determinizations); the samples are not changed."""
    values = np.empty((actions.shape[0], samples.shape[0]), dtype=np.int64)
    for s in range(samples.shape[0]):
        for a in range(actions.shape[0]):
            row = samples[s].copy()
            core.apply(row, actions[a], settings.max_turns)
            values[a, s] = play_out(row, settings)
    return values


@njit(cache=True)
def deal_samples(template: np.ndarray, known: int, dealt: np.ndarray, hidden: int) -> np.ndarray:
    """Determinizations of one position, one row per row of ``dealt``.

    Row ``s`` is ``template`` (any full state of the position, seat 1 the opponent) with
    seat 1's hand replaced by its ``known`` cards plus ``dealt[s, :hidden]`` and the stock
    by ``dealt[s, hidden:]``, top first.  ``dealt[s]`` orders the cards the searcher cannot
    place.
    """
    stock = dealt.shape[1] - hidden
    rows = np.empty((dealt.shape[0], template.shape[0]), dtype=np.int64)
    for s in range(dealt.shape[0]):
        rows[s] = template
        hand = known
        for i in range(hidden):
            hand |= 1 << dealt[s, i]
        rows[s, core.HAND + 1] = hand
        for i in range(stock):
            rows[s, core.STOCK + stock - 1 - i] = dealt[s, hidden + i]
        rows[s, core.STOCK_LEN] = stock
    return rows


__all__ = ["Settings", "best_discard", "improved", "kept_deals", "lowers", "takes", "knock_threshold", "choose", "play_out", "evaluate", "deal_samples"]
