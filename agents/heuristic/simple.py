"""``simple``: Neller's SimpleGinRummyPlayer (EAAI-21 Gin Rummy challenge), faithfully.

Exact policy (everything read from the observation with :func:`agents.tactics.read_seen`;
the rules are the compiled helpers of :mod:`agents.tactics`, shared with ``greedy``):

* **Upcard offer / draw.**  Take the face-up card (the first upcard included) if and only
  if it would belong to some meld made with the cards in hand, i.e. some set (3-4 of the
  rank) or run (3+ consecutive in the suit) of ``hand + card`` contains the card.  Otherwise
  pass on the first offer and draw from the stock on a normal turn.  (A forced stock draw,
  after both passed the first upcard, is the only legal action and is taken.)
* **Big gin**, where the ruleset allows it and it is legal, is taken first.
* **Knock** as soon as the deadwood allows: whenever a knock action is legal, knock,
  discarding (face down) a card that leaves the least deadwood; gin when that is 0.
* **Discard** otherwise uniformly at random (from the agent's own seeded generator) among
  the cards, never the card just taken from the pile, whose removal leaves the least
  deadwood.  Knock discards are chosen the same way (uniformly among the least-deadwood
  knock discards), which is Neller's "discard, then go out if the deadwood is at most the
  limit".

Neller's player also refuses to repeat an identical (drawn card, discard) pair within a
hand; that rule is not implemented (the engine's ``max_turns_per_hand`` safeguard ends the
rare endless exchange).

>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> agent = SimpleAgent(seed=0)
>>> observation = env.observe(env.agent_selection)
>>> int(observation["action_mask"][agent.act(observation)])
1
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from numba import njit

from agents.base import NONE, Observation, checked, checked_batch
from agents.tactics import (
    ALL_CARDS,
    BIG_GIN_BIT,
    DRAW,
    LAYOUT_TUPLE,
    OFFER,
    ObservationLayout,
    Seen,
    cards_of,
    completes_meld,
    least_cards,
    legal_words,
    read_seen,
)
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.checks import checked_seed


@njit(cache=True)
def _least(base: int, hand: int, allowed: int) -> tuple[int, int]:
    """``(base + card, 0)`` when one card of ``allowed`` leaves the least deadwood, else
    ``(base, the mask of those cards)``."""
    cards = least_cards(hand, allowed)
    return (base + cards_of(cards)[0], 0) if cards & (cards - 1) == 0 else (base, cards)


@njit(cache=True)
def choose(seen: Seen, low: int, knocks: int) -> tuple[int, int]:
    """``(action, ties)``: the policy's action when ``ties`` is 0; else ``action`` is the
    knock or discard base and ``ties`` the mask of the cards (two or more) to draw the one
    played from (the legal ones leaving the least deadwood)."""
    if seen.phase == OFFER or seen.phase == DRAW:
        if low >> TAKE_DISCARD & 1 and seen.top_discard != NONE and completes_meld(seen.hand, seen.top_discard):
            return TAKE_DISCARD, 0
        return (PASS if low >> PASS & 1 else DRAW_STOCK), 0
    if knocks >> BIG_GIN_BIT & 1:
        return BIG_GIN, 0
    if knocks & ALL_CARDS:
        return _least(KNOCK_BASE, seen.hand, knocks & ALL_CARDS)
    return _least(DISCARD_BASE, seen.hand, low >> DISCARD_BASE & ALL_CARDS)


@njit(cache=True)
def decide(observation: np.ndarray, mask: np.ndarray, at: tuple) -> tuple[int, int]:
    """:func:`choose` for an observation vector and its action mask (``(NONE, 0)`` when no
    action is legal); ``at``: :data:`agents.tactics.LAYOUT_TUPLE`."""
    low, knocks = legal_words(mask)
    return choose(read_seen(observation, ObservationLayout(*at)), low, knocks) if low | knocks else (NONE, 0)


@njit(cache=True)
def decide_many(observations: np.ndarray, masks: np.ndarray, at: tuple) -> tuple[np.ndarray, np.ndarray]:
    """:func:`decide` for every row of a batch: the actions and the ties."""
    actions = np.empty(observations.shape[0], dtype=np.int64)
    ties = np.empty(observations.shape[0], dtype=np.int64)
    for i in range(observations.shape[0]):
        actions[i], ties[i] = decide(observations[i], masks[i], at)
    return actions, ties


class SimpleAgent:
    """``simple``: Neller's SimpleGinRummyPlayer (policy in the module docstring).

    Args:
        seed: seeds the generator that breaks ties between equally good discards
            (``None`` or an int ``0..2**128 - 1``).
    """

    def __init__(self, seed: Optional[int] = None) -> None:
        self.name = "simple"
        self._rng = np.random.default_rng(checked_seed(seed, "simple: seed"))

    def act(self, observation: Observation) -> int:
        action, ties = decide(np.asarray(observation["observation"]), np.asarray(observation["action_mask"]),
                              LAYOUT_TUPLE)
        return self._break_tie(checked(action), ties) if ties else checked(action)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """:meth:`act` for every row, in one compiled call (the generator breaks the ties
        row after row, as :meth:`act` would)."""
        actions, ties = decide_many(observations, masks, LAYOUT_TUPLE)
        checked_batch(actions)
        for i in np.flatnonzero(ties):
            actions[i] = self._break_tie(int(actions[i]), int(ties[i]))
        return actions

    def _break_tie(self, base: int, ties: int) -> int:
        """``base`` plus a card of the mask ``ties`` drawn uniformly by the agent's generator."""
        cards = cards_of(ties)
        return base + int(cards[self._rng.integers(len(cards))])

    def reset(self) -> None:
        pass



__all__ = ["SimpleAgent", "choose", "decide", "decide_many"]
