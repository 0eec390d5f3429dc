"""The showdown after a knock (R17-R24): arrangements, layoffs and points.

Worked example of RULES.md: a knock with 7 against a defender holding 11 who lays off
a card onto the knocker's run and ends on 5 is an undercut worth 7 - 5 + 10.

>>> from ginenv.melds import mask_of
>>> knocker = [mask_of(["4H", "5H", "6H"]), mask_of(["9C", "9D", "9S"])]
>>> best_defence(mask_of(["3H", "2H", "KD"]), knocker)[2] == mask_of(["3H", "2H"])
True
"""
from __future__ import annotations

from itertools import product

from .cards import NUM_RANKS
from .cards import mask_to_cards
from .melds import all_best_arrangements, mask_best_melds, mask_deadwood

FULL_DECK_MASK = (1 << 52) - 1


def _is_set(meld: int) -> bool:
    """True for a set (all cards of one rank), False for a run."""
    low = (meld & -meld).bit_length() - 1
    column = (1 | 1 << 13 | 1 << 26 | 1 << 39) << (low % NUM_RANKS)
    return meld & ~column == 0


def layoff_options(meld: int, available: int) -> list[int]:
    """Masks of the cards from ``available`` that can be laid off onto one meld.

    A 3-card set takes its 4th card; a run takes chains outward from either end
    (R18: 3H and 7H onto 4H5H6H, then 2H onto the 3H-7H run).  The empty layoff
    is always first.

    >>> from ginenv.melds import mask_of
    >>> len(layoff_options(mask_of(["4H", "5H", "6H"]), mask_of(["3H", "2H", "7H"])))
    6
    """
    if _is_set(meld):
        if meld.bit_count() == 4:
            return [0]
        low = (meld & -meld).bit_length() - 1
        column = (1 | 1 << 13 | 1 << 26 | 1 << 39) << (low % NUM_RANKS)
        fourth = column & ~meld & available
        return [0, fourth] if fourth else [0]
    low = (meld & -meld).bit_length() - 1
    high = meld.bit_length() - 1
    suit_base = low - low % NUM_RANKS
    downs, chain = [0], 0
    for card in range(low - 1, suit_base - 1, -1):
        if not available >> card & 1:
            break
        chain |= 1 << card
        downs.append(chain)
    ups, chain = [0], 0
    for card in range(high + 1, suit_base + NUM_RANKS):
        if not available >> card & 1:
            break
        chain |= 1 << card
        ups.append(chain)
    return [d | u for d in downs for u in ups]


def best_defence(defender: int, knocker_melds: list[int]) -> tuple[int, list[int], int]:
    """Defender's least deadwood with own melds and layoffs chosen jointly (R18-R20).

    Returns ``(deadwood, defender_melds, layoff_mask)``.  Among equal deadwood the
    fewest laid-off cards win, then the first found.
    """
    per_meld = [layoff_options(m, defender) for m in knocker_melds]
    best: tuple[int, int, int] | None = None
    for combo in product(*per_meld):
        laid, overlap = 0, False
        for part in combo:
            if laid & part:
                overlap = True
                break
            laid |= part
        if overlap:
            continue
        value = mask_deadwood(defender & ~laid)
        key = (value, laid.bit_count(), laid)
        if best is None or key[:2] < best[:2]:
            best = key
    value, _, laid = best  # type: ignore[misc]
    melds, _ = mask_best_melds(defender & ~laid)
    return value, melds, laid


def layable_unseen(melds: list[int], unseen: int) -> int:
    """Mask of unseen cards that could be laid off onto these melds (R17).

    >>> from ginenv.melds import mask_of
    >>> bin(layable_unseen([mask_of(["4H", "5H", "6H"])], mask_of(["3H", "2H", "8H"]))).count("1")
    2
    """
    laid = 0
    for meld in melds:
        for option in layoff_options(meld, unseen):
            laid |= option
    return laid


def knocker_arrangement(knocker: int, unseen: int) -> list[int]:
    """The knocker's melds under R17.

    Least deadwood; then fewest unseen cards (not in the knocker's hand, not known
    to the knocker to be in the discard pile) that could be laid off; then the
    fewest melds (a 6-card run is shown whole, not as two 3-card runs: the same
    cards, the same layoffs); then the arrangement whose sorted meld cards compare
    smallest (card ints, lowest first) — a deterministic tie-break using only what
    the knocker knows.

    >>> from ginenv.melds import mask_of
    >>> hand = mask_of(["4H", "5H", "6H", "7H", "8H", "9H", "AC", "2C", "3C", "KS"])
    >>> len(knocker_arrangement(hand, FULL_DECK_MASK & ~hand))
    2
    """
    candidates = all_best_arrangements(knocker)
    return min(candidates,
               key=lambda melds: (layable_unseen(melds, unseen).bit_count(), len(melds),
                                  sorted(mask_to_cards(m) for m in melds)))


def unseen_by_knocker(knocker: int, knock_discard: int, pile: list[int]) -> int:
    """Cards the knocker cannot place: not in hand, not the knock discard, not in the pile."""
    seen = knocker | 1 << knock_discard
    for card in pile:
        seen |= 1 << card
    return FULL_DECK_MASK & ~seen
