"""The showdown after a knock (R17-R24): arrangements, layoffs and points (compiled).

:func:`showdown` scores a hand that the core (:mod:`ginenv.game.core`) ended with a knock, gin
or big gin, straight from its row; :func:`ginenv.game.result.hand_result` builds a
``HandResult`` from it, and search code can call it inside compiled rollouts.  The
functions on lists below (``layoff_options``, ``best_defence``, ``layable_unseen``,
``knocker_arrangement``) are the same compiled code for Python callers.

A worked example of docs/rules.md: a knock with 7 against a defender holding 11 who lays off
a card onto the knocker's run and ends on 5 is an undercut worth 7 - 5 + 10.

>>> from ginenv.game.melds import mask_of
>>> knocker = [mask_of(["4H", "5H", "6H"]), mask_of(["9C", "9D", "9S"])]
>>> best_defence(mask_of(["3H", "2H", "KD"]), knocker)[2] == mask_of(["3H", "2H"])
True
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ginenv.game import core
from ginenv.game.cards import NUM_RANKS
from ginenv.game.melds import MAX_ARRANGED, MAX_ARRANGEMENTS, best_arrangements_into, mask_best_melds, mask_deadwood

FULL_DECK_MASK = (1 << 52) - 1
RANK_COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39
"""The four cards of the lowest rank; shifted by a rank, that rank's cards."""
MAX_LAYOFF_OPTIONS = 14 * 14
#: Outcome codes of :func:`showdown`.
KNOCK, GIN, BIG_GIN, UNDERCUT = 0, 1, 2, 3
OUTCOMES = ("knock", "gin", "big_gin", "undercut")


@njit(cache=True)
def _lowest(mask: int) -> int:
    card = 0
    while not mask >> card & 1:
        card += 1
    return card


@njit(cache=True)
def _highest(mask: int) -> int:
    card = 51
    while not mask >> card & 1:
        card -= 1
    return card


@njit(cache=True)
def bit_count(mask: int) -> int:
    """Number of cards in a mask (compiled code cannot call ``int.bit_count``)."""
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True)
def layoff_options_into(meld: int, available: int, out: np.ndarray) -> int:
    """Write the layoffs from ``available`` onto ``meld`` into ``out`` (see
    :func:`layoff_options`); returns how many."""
    out[0] = 0
    low = _lowest(meld)
    column = RANK_COLUMN << (low % NUM_RANKS)
    if meld & ~column == 0:  # a set
        fourth = column & ~meld & available
        if bit_count(meld) == 4 or not fourth:
            return 1
        out[1] = fourth
        return 2
    suit_base = low - low % NUM_RANKS
    ups = np.zeros(NUM_RANKS + 1, dtype=np.int64)
    n_ups, chain = 1, 0
    for card in range(_highest(meld) + 1, suit_base + NUM_RANKS):
        if not available >> card & 1:
            break
        chain |= 1 << card
        ups[n_ups] = chain
        n_ups += 1
    count, down, card = 0, 0, low
    while True:
        for j in range(n_ups):
            out[count] = down | ups[j]
            count += 1
        card -= 1
        if card < suit_base or not available >> card & 1:
            return count
        down |= 1 << card


def layoff_options(meld: int, available: int) -> list[int]:
    """Masks of the cards from ``available`` that can be laid off onto one meld.

    A 3-card set takes its 4th card; a run takes chains outward from either end
    (R18: 3H and 7H onto 4H5H6H, then 2H onto the 3H-7H run).  The empty layoff
    is always first.

    >>> from ginenv.game.melds import mask_of
    >>> len(layoff_options(mask_of(["4H", "5H", "6H"]), mask_of(["3H", "2H", "7H"])))
    6
    """
    out = np.empty(MAX_LAYOFF_OPTIONS, dtype=np.int64)
    return out[:layoff_options_into(meld, available, out)].tolist()


@njit(cache=True)
def best_defence_of(defender: int, melds: np.ndarray, count: int) -> tuple[int, int]:
    """``(deadwood, layoff mask)`` of the defender's best defence against the first ``count``
    of ``melds`` (see :func:`best_defence`)."""
    options = np.empty((max(count, 1), MAX_LAYOFF_OPTIONS), dtype=np.int64)
    sizes = np.empty(max(count, 1), dtype=np.int64)
    for j in range(count):
        sizes[j] = layoff_options_into(melds[j], defender, options[j])
    pick = np.zeros(max(count, 1), dtype=np.int64)
    best_value, best_count, best_laid = 1 << 20, 1 << 20, 0
    while True:  # every combination of one option per meld, the last meld's varying fastest
        laid, overlap = 0, False
        for j in range(count):
            part = options[j, pick[j]]
            if laid & part:
                overlap = True
                break
            laid |= part
        if not overlap:
            value = mask_deadwood(defender & ~laid)
            laid_count = bit_count(laid)
            if value < best_value or value == best_value and laid_count < best_count:
                best_value, best_count, best_laid = value, laid_count, laid
        j = count - 1
        while j >= 0:
            pick[j] += 1
            if pick[j] < sizes[j]:
                break
            pick[j] = 0
            j -= 1
        if j < 0:
            return best_value, best_laid


def best_defence(defender: int, knocker_melds: list[int]) -> tuple[int, list[int], int]:
    """Defender's least deadwood with own melds and layoffs chosen jointly (R18-R20).

    Returns ``(deadwood, defender_melds, layoff_mask)``.  Among equal deadwood the
    fewest laid-off cards win, then the first found.
    """
    value, laid = best_defence_of(defender, np.array(knocker_melds, dtype=np.int64), len(knocker_melds))
    melds, _ = mask_best_melds(defender & ~laid)
    return value, melds, laid


@njit(cache=True)
def layable_unseen_of(melds: np.ndarray, count: int, unseen: int) -> int:
    """Mask of the ``unseen`` cards that could be laid off onto the first ``count`` melds."""
    options = np.empty(MAX_LAYOFF_OPTIONS, dtype=np.int64)
    laid = 0
    for j in range(count):
        for i in range(layoff_options_into(melds[j], unseen, options)):
            laid |= options[i]
    return laid


def layable_unseen(melds: list[int], unseen: int) -> int:
    """Mask of unseen cards that could be laid off onto these melds (R17).

    >>> from ginenv.game.melds import mask_of
    >>> bin(layable_unseen([mask_of(["4H", "5H", "6H"])], mask_of(["3H", "2H", "8H"]))).count("1")
    2
    """
    return layable_unseen_of(np.array(melds, dtype=np.int64), len(melds), unseen)


@njit(cache=True)
def _compare_cards(a: int, b: int) -> int:
    """-1, 0 or 1 as the ascending card list of mask ``a`` sorts before, with or after ``b``'s."""
    while a and b:
        low_a, low_b = _lowest(a), _lowest(b)
        if low_a != low_b:
            return -1 if low_a < low_b else 1
        a &= a - 1
        b &= b - 1
    return 0 if a == b else (-1 if not a else 1)


@njit(cache=True)
def _sorted_melds(melds: np.ndarray, count: int) -> np.ndarray:
    """The first ``count`` melds ordered by their ascending card lists (insertion sort)."""
    out = melds[:count].copy()
    for i in range(1, count):
        j = i
        while j > 0 and _compare_cards(out[j], out[j - 1]) < 0:
            out[j], out[j - 1] = out[j - 1], out[j]
            j -= 1
    return out


@njit(cache=True)
def knocker_arrangement_into(knocker: int, unseen: int, out: np.ndarray) -> int:
    """Write the knocker's melds under R17 into ``out`` (see :func:`knocker_arrangement`);
    returns how many."""
    arrangements = np.empty((MAX_ARRANGEMENTS, MAX_ARRANGED), dtype=np.int64)
    sizes = np.empty(MAX_ARRANGEMENTS, dtype=np.int64)
    found = best_arrangements_into(knocker, arrangements, sizes)
    best = 0
    best_layable = bit_count(layable_unseen_of(arrangements[0], sizes[0], unseen))
    best_sorted = _sorted_melds(arrangements[0], sizes[0])
    for a in range(1, found):
        layable = bit_count(layable_unseen_of(arrangements[a], sizes[a], unseen))
        if layable > best_layable or layable == best_layable and sizes[a] > sizes[best]:
            continue
        ordered = _sorted_melds(arrangements[a], sizes[a])
        if layable == best_layable and sizes[a] == sizes[best]:
            order = 0
            for j in range(sizes[a]):
                order = _compare_cards(ordered[j], best_sorted[j])
                if order:
                    break
            if order >= 0:
                continue
        best, best_layable, best_sorted = a, layable, ordered
    out[:sizes[best]] = arrangements[best, :sizes[best]]
    return sizes[best]


def knocker_arrangement(knocker: int, unseen: int) -> list[int]:
    """The knocker's melds under R17.

    Least deadwood; then fewest unseen cards (not in the knocker's hand, not known
    to the knocker to be in the discard pile) that could be laid off; then the
    fewest melds (a 6-card run is shown whole, not as two 3-card runs: the same
    cards, the same layoffs); then the arrangement whose sorted meld cards compare
    smallest (card ints, lowest first) — a deterministic tie-break using only what
    the knocker knows.

    >>> from ginenv.game.melds import mask_of
    >>> hand = mask_of(["4H", "5H", "6H", "7H", "8H", "9H", "AC", "2C", "3C", "KS"])
    >>> len(knocker_arrangement(hand, FULL_DECK_MASK & ~hand))
    2
    """
    out = np.empty(MAX_ARRANGED, dtype=np.int64)
    return out[:knocker_arrangement_into(knocker, unseen, out)].tolist()


@njit(cache=True)
def showdown(row: np.ndarray, gin_bonus: int, big_gin_bonus: int, undercut_bonus: int,
             melds_out: np.ndarray) -> tuple[int, int, int, int, int, int, int]:
    """Score the knock, gin or big gin that ended ``row`` (``row[ENDED] == ENDED_SHOWDOWN``).

    Returns ``(outcome, winner, points, knocker_deadwood, defender_deadwood, layoffs,
    melds)``: an ``OUTCOMES`` index, the winning seat, the points (Oklahoma doubling
    included), the defender's deadwood after layoffs (none after gin), the layoff mask,
    and how many knocker melds were written to ``melds_out`` (the R17 arrangement; 0
    after gin, whose arrangement does not matter).
    """
    knocker = row[core.KNOCKER]
    hand, other = row[core.HAND + knocker], row[core.HAND + 1 - knocker]
    knock_discard = row[core.KNOCK_DISCARD]
    knocker_deadwood = mask_deadwood(hand)
    laid, melds = 0, 0
    if knocker_deadwood == 0:
        outcome = GIN if knock_discard >= 0 else BIG_GIN
        defender_deadwood = mask_deadwood(other)
        winner = knocker
        points = (gin_bonus if outcome == GIN else big_gin_bonus) + defender_deadwood
    else:
        seen = hand | 1 << knock_discard
        for i in range(row[core.PILE_LEN]):
            seen |= 1 << row[core.PILE + i]
        melds = knocker_arrangement_into(hand, FULL_DECK_MASK & ~seen, melds_out)
        defender_deadwood, laid = best_defence_of(other, melds_out, melds)
        if knocker_deadwood < defender_deadwood:
            outcome, winner, points = KNOCK, knocker, defender_deadwood - knocker_deadwood
        else:
            outcome, winner = UNDERCUT, 1 - knocker
            points = knocker_deadwood - defender_deadwood + undercut_bonus
    if row[core.DOUBLED]:
        points *= 2
    return outcome, winner, points, knocker_deadwood, defender_deadwood, laid, melds


__all__ = ["showdown", "layoff_options", "best_defence", "layable_unseen", "knocker_arrangement", "OUTCOMES",
           "FULL_DECK_MASK"]
