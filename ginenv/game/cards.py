"""Cards: the public contract's text and integer forms (R1-R3).

A card is an ``int`` in ``0..51``: ``index = suit * 13 + rank`` with suits
C, D, H, S and ranks A=0 .. K=12.  The text form is rank + suit, e.g. ``"7H"``.

>>> parse_card("7H"), card_text(32)
(32, '7H')
>>> parse_card("10♠"), parse_card("ac")
(48, 0)
>>> [card_value(parse_card(t)) for t in ("AC", "9D", "TH", "KS")]
[1, 9, 10, 10]
"""
from __future__ import annotations

import operator
from typing import Any, Iterable, Optional, Sequence, Union

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
NUM_CARDS = 52
NUM_RANKS = 13

CardLike = Union[int, str]


class InvalidCardError(ValueError):
    """A card (or collection of cards) that cannot be parsed or is malformed."""


#: Point value of each rank (R3): ace 1, 2-10 face value, J/Q/K 10.
RANK_VALUES: tuple[int, ...] = tuple(min(rank + 1, 10) for rank in range(NUM_RANKS))
#: Point value of each of the 52 cards, indexed by card int.
CARD_VALUES: tuple[int, ...] = tuple(RANK_VALUES[c % NUM_RANKS] for c in range(NUM_CARDS))
#: Canonical text of each card, indexed by card int.
CARD_TEXTS: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(NUM_CARDS))

#: Upper-cased accepted spellings -> card int (parsing is case-insensitive).
_TEXT_TO_CARD: dict[str, int] = {}
for _c, _t in enumerate(CARD_TEXTS):
    for _rank in (_t[0], "10" if _t[0] == "T" else _t[0]):
        for _suit in (_t[1], SUIT_SYMBOLS[SUITS.index(_t[1])]):
            _TEXT_TO_CARD[_rank + _suit] = _c


def rank_of(card: int) -> int:
    """Rank index 0 (ace) .. 12 (king).

    >>> rank_of(parse_card("QD"))
    11
    """
    return card % NUM_RANKS


def suit_of(card: int) -> int:
    """Suit index 0..3 in the order C, D, H, S.

    >>> suit_of(parse_card("QD"))
    1
    """
    return card // NUM_RANKS


def card_value(card: CardLike) -> int:
    """Deadwood points of a card (R3).

    >>> card_value(parse_card("JS")), card_value("AH")
    (10, 1)
    """
    return CARD_VALUES[parse_card(card)]


def make_card(rank: int, suit: int) -> int:
    """Card int from rank (0..12) and suit (0..3).

    >>> card_text(make_card(9, 2))
    'TH'
    """
    if not (0 <= rank < NUM_RANKS and 0 <= suit < 4):
        raise InvalidCardError(f"rank {rank!r} / suit {suit!r} out of range (0..12 / 0..3)")
    return suit * NUM_RANKS + rank


def plain_int(value: Any) -> Optional[int]:
    """``value`` as a plain ``int`` if it is an integer (numpy ints too, not bools), else None.

    >>> import numpy as np
    >>> plain_int(np.int64(7)), plain_int(True), plain_int(7.0), plain_int(np.array([1, 2]))
    (7, None, None, None)
    """
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def parse_card(card: CardLike) -> int:
    """Parse a card given as text (``"7H"``, ``"10h"``, ``"7♥"``) or int (0..51).

    Text is case-insensitive (``"qh"``, ``"Qh"`` and ``"qH"`` are all ``"QH"``).

    >>> parse_card("KS"), parse_card(13), parse_card("tH")
    (51, 13, 35)
    """
    if isinstance(card, str):
        try:
            return _TEXT_TO_CARD[card.strip().upper()]
        except KeyError:
            raise InvalidCardError(f"not a card: {card!r} (expected e.g. '7H', 'TS', '10♠')") from None
    index = plain_int(card)
    if index is None:
        raise InvalidCardError(f"not a card: {card!r} (expected text or an int 0..51)")
    if not 0 <= index < NUM_CARDS:
        raise InvalidCardError(f"card index {index} out of range 0..51")
    return index


def card_text(card: int) -> str:
    """Canonical two-character text of a card int.

    >>> card_text(0), card_text(51)
    ('AC', 'KS')
    """
    return CARD_TEXTS[parse_card(card)]


def parse_cards(cards: Iterable[CardLike]) -> list[int]:
    """Parse many cards; duplicates are an error.

    >>> parse_cards(["AC", "2C", 1])
    Traceback (most recent call last):
    ...
    ginenv.game.cards.InvalidCardError: duplicate card 2C
    """
    out = [parse_card(c) for c in cards]
    if len(set(out)) != len(out):
        seen: set[int] = set()
        for c in out:
            if c in seen:
                raise InvalidCardError(f"duplicate card {CARD_TEXTS[c]}")
            seen.add(c)
    return out


def cards_to_mask(cards: Iterable[int]) -> int:
    """Bitmask (bit ``c`` set for card ``c``) of card ints.

    >>> cards_to_mask([0, 2])
    5
    """
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def mask_to_cards(mask: int) -> list[int]:
    """Card ints of a bitmask, ascending.

    >>> mask_to_cards(5)
    [0, 2]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def format_cards(cards: Sequence[int]) -> str:
    """Space-separated canonical texts.

    >>> format_cards([0, 51])
    'AC KS'
    """
    return " ".join(CARD_TEXTS[c] for c in cards)
