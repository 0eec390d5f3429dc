"""Action ids of the public contract (Discrete(108), the same in every ruleset).

>>> action_text(0), action_text(KNOCK_BASE + 32), action_text(DISCARD_BASE + 51)
('draw stock', 'knock 7H', 'discard KS')
"""
from __future__ import annotations

from ginenv.game.cards import CARD_TEXTS, CardLike, parse_card

DRAW_STOCK = 0
TAKE_DISCARD = 1
PASS = 2
DISCARD_BASE = 3
KNOCK_BASE = 55
BIG_GIN = 107
NUM_ACTIONS = 108


class IllegalActionError(ValueError):
    """An action that is not legal in the current state (the state is unchanged)."""


def discard_action(card: CardLike) -> int:
    """Action id discarding ``card`` face up.

    >>> discard_action("AC")
    3
    """
    return DISCARD_BASE + parse_card(card)


def knock_action(card: CardLike) -> int:
    """Action id knocking with ``card`` discarded face down.

    >>> knock_action("KS")
    106
    """
    return KNOCK_BASE + parse_card(card)


def action_text(action: int) -> str:
    """Readable name of an action id.

    >>> action_text(BIG_GIN)
    'big gin'
    """
    if action == DRAW_STOCK:
        return "draw stock"
    if action == TAKE_DISCARD:
        return "take discard"
    if action == PASS:
        return "pass"
    if DISCARD_BASE <= action < KNOCK_BASE:
        return "discard " + CARD_TEXTS[action - DISCARD_BASE]
    if KNOCK_BASE <= action < BIG_GIN:
        return "knock " + CARD_TEXTS[action - KNOCK_BASE]
    if action == BIG_GIN:
        return "big gin"
    raise IllegalActionError(f"action {action!r} is not an action id (0..{NUM_ACTIONS - 1})")
