"""``simple``: Neller's SimpleGinRummyPlayer (EAAI-21 Gin Rummy challenge), faithfully.

Exact policy (everything read from :func:`ginenv.decode` of the observation):

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
hand; the project brief does not ask for that rule and it is not implemented (the engine's
``max_turns_per_hand`` safeguard ends the rare endless exchange).

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

from ginenv.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.encoding import decode
from ginenv.melds import SUIT_MASK, discard_deadwoods

from .base import Observation, legal_actions, register


@njit(cache=True)
def completes_meld(hand_mask: int, card: int) -> bool:
    """Whether ``card`` belongs to some meld of ``hand + card`` (Neller's face-up test; compiled).

    >>> from ginenv.melds import mask_of
    >>> from ginenv.cards import parse_card
    >>> completes_meld(mask_of(["7C", "7D", "KS"]), parse_card("7H"))   # a set
    True
    >>> completes_meld(mask_of(["5H", "6H", "KS"]), parse_card("7H"))   # a run 5-6-7
    True
    >>> completes_meld(mask_of(["5H", "8H", "7S"]), parse_card("7H"))   # a gap, a pair
    False
    """
    rank, suit = card % 13, card // 13
    same_rank = 0
    for other in range(4):
        if other != suit:
            same_rank += hand_mask >> (13 * other + rank) & 1
    if same_rank >= 2:
        return True
    suited = (hand_mask >> 13 * suit & SUIT_MASK) | 1 << rank
    low = high = rank
    while low > 0 and suited >> (low - 1) & 1:
        low -= 1
    while high < 12 and suited >> (high + 1) & 1:
        high += 1
    return high - low >= 2


class SimpleAgent:
    """``simple``: Neller's SimpleGinRummyPlayer (policy in the module docstring).

    Args:
        seed: seeds the generator that breaks ties between equally good discards.
    """

    def __init__(self, seed: Optional[int] = None) -> None:
        self.name = "simple"
        self._rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        legal = legal_actions(observation)
        view = decode(observation)
        hand = 0
        for card in view.hand:
            hand |= 1 << card
        if view.phase in ("offer", "draw"):
            wants = view.top_discard is not None and completes_meld(hand, view.top_discard)
            if wants and TAKE_DISCARD in legal:
                return TAKE_DISCARD
            return PASS if PASS in legal else DRAW_STOCK
        if BIG_GIN in legal:
            return BIG_GIN
        after = discard_deadwoods(hand)
        knocks = [int(a) - KNOCK_BASE for a in legal if KNOCK_BASE <= a < BIG_GIN]
        if knocks:
            return KNOCK_BASE + self._pick_least(knocks, after)
        discards = [int(a) - DISCARD_BASE for a in legal if DISCARD_BASE <= a < KNOCK_BASE]
        return DISCARD_BASE + self._pick_least(discards, after)

    def _pick_least(self, cards: list[int], after: dict[int, int]) -> int:
        """Uniformly random among the cards leaving the least deadwood."""
        least = min(after[c] for c in cards)
        best = [c for c in cards if after[c] == least]
        return best[int(self._rng.integers(len(best)))] if len(best) > 1 else best[0]

    def reset(self) -> None:
        pass


register("simple", SimpleAgent)

__all__ = ["SimpleAgent", "completes_meld"]
