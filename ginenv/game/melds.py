"""Melds and deadwood (R4-R7): exact minimum-deadwood arrangements, fast.

A hand is handled internally as a 52-bit mask (bit ``c`` for card ``c``), so each
suit is a 13-bit rank mask.  Runs never cross suits, so the least deadwood of a suit
*using runs only* is a 8192-entry table built at import.  Sets cross suits; a hand of
up to 11 cards has at most three ranks held three or four times, and the solver tries
every way of using them (no set, a 4-set, each 3-set), adding the four per-suit table
entries for the cards left.  That is exact (every arrangement is a choice of sets plus
runs in what remains) and, for the three hands in four that hold no triple, it is four
table look-ups.

>>> deadwood(["7H", "8H", "9H", "7S", "7C", "KD"])   # R6: 7H in one meld only
24
>>> best_melds(["7H", "8H", "9H", "7S", "7C", "7D", "KD"])
([['7C', '7D', '7S'], ['7H', '8H', '9H']], ['KD'])
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
from numba import njit

from ginenv.game.cards import (
    CARD_TEXTS,
    CARD_VALUES,
    RANK_VALUES,
    CardLike,
    InvalidCardError,
    mask_to_cards,
    parse_card,
)

SUIT_MASK = (1 << 13) - 1
MAX_CARDS = 11


def _build_run_tables() -> tuple[list[int], list[int]]:
    """Per 13-bit suit mask: least run-only deadwood, and the run that achieves it.

    ``RUN_CHOICE[m]`` is the rank mask of the run containing the lowest card of
    ``m`` in an optimal arrangement, or 0 when that card is deadwood.
    """
    best_dw = [0] * (1 << 13)
    choice = [0] * (1 << 13)
    for mask in range(1, 1 << 13):
        low = (mask & -mask).bit_length() - 1
        best, pick = best_dw[mask & ~(1 << low)] + RANK_VALUES[low], 0
        run, top = 1 << low, low + 1
        while top < 13 and mask >> top & 1:
            run |= 1 << top
            if top - low >= 2 and best_dw[mask & ~run] <= best:  # ties: the longer run (no needless splits)
                best, pick = best_dw[mask & ~run], run
            top += 1
        best_dw[mask], choice[mask] = best, pick
    return best_dw, choice


RUN_DEADWOOD, RUN_CHOICE = _build_run_tables()


def _build_set_options() -> list[list[tuple[int, ...]]]:
    """``SET_OPTIONS[rank][suits]``: 52-bit masks of the sets one may form.

    ``suits`` is the 4-bit mask of suits held at that rank; 0 (no set) is always
    first, then the 4-set, then the 3-sets.
    """
    table = []
    for rank in range(13):
        per_rank = []
        for suits in range(16):
            held = [s for s in range(4) if suits >> s & 1]
            options = [0]
            if len(held) >= 3:
                options.append(sum(1 << (s * 13 + rank) for s in held))
            if len(held) == 4:
                options += [sum(1 << (s * 13 + rank) for s in held if s != skip) for skip in held]
            per_rank.append(tuple(options))
        table.append(per_rank)
    return table


SET_OPTIONS = _build_set_options()

_BIT_OF: dict = {}
_FAST_KINDS = (int, str)
for _c in range(52):
    _BIT_OF[_c] = 1 << _c
    _BIT_OF[CARD_TEXTS[_c]] = 1 << _c

# The same tables as arrays, for the compiled functions below (numba freezes them).
_RUN_DW = np.array(RUN_DEADWOOD, dtype=np.int64)
_SET_COUNT = np.array([[len(SET_OPTIONS[r][s]) for s in range(16)] for r in range(13)], dtype=np.int64)
_SET_MASKS = np.array([[list(SET_OPTIONS[r][s]) + [0] * (6 - len(SET_OPTIONS[r][s])) for s in range(16)]
                       for r in range(13)], dtype=np.int64)
_MAX_CHOICES = 1024
"""Set choices one hand may have (a hand of up to 15 cards has at most 432)."""
NO_CARD = 1 << 20
"""Above any deadwood: what the compiled discard helpers report for a card that cannot go."""
_RANK_COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39
"""The four cards of the lowest rank; shifted by a rank, that rank's cards."""


@njit(cache=True)
def _suits_deadwood(mask: int) -> int:
    """Run-only deadwood of a 52-bit mask (sum of the four suit tables)."""
    return (_RUN_DW[mask & SUIT_MASK] + _RUN_DW[mask >> 13 & SUIT_MASK]
            + _RUN_DW[mask >> 26 & SUIT_MASK] + _RUN_DW[mask >> 39 & SUIT_MASK])


@njit(cache=True)
def _triple_ranks(mask: int) -> int:
    """13-bit mask of the ranks held three or four times."""
    a, b, c, d = mask & SUIT_MASK, mask >> 13 & SUIT_MASK, mask >> 26 & SUIT_MASK, mask >> 39 & SUIT_MASK
    return (a & b & (c | d)) | (c & d & (a | b))


@njit(cache=True)
def _set_choices_into(mask: int, out: np.ndarray) -> int:
    """Write every set choice of ``mask`` into ``out`` (see :func:`set_choices`); returns how many.

    The first rank held 3+ times varies slowest; per rank: no set, the 4-set, the 3-sets.
    """
    triples = _triple_ranks(mask)
    out[0] = 0
    count = 1
    for rank in range(13):
        if not triples >> rank & 1:
            continue
        suits = ((mask >> rank & 1) | (mask >> (13 + rank) & 1) << 1 | (mask >> (26 + rank) & 1) << 2
                 | (mask >> (39 + rank) & 1) << 3)
        options = _SET_COUNT[rank, suits]
        if count * options > _MAX_CHOICES:
            raise ValueError("too many cards for the meld solver")
        for i in range(count - 1, -1, -1):
            base = out[i]
            for j in range(options - 1, -1, -1):
                out[i * options + j] = base | _SET_MASKS[rank, suits, j]
        count *= options
    return count


@njit(cache=True)
def _suits_at(mask: int, rank: int) -> int:
    """4-bit mask of the suits held at ``rank``."""
    return ((mask >> rank & 1) | (mask >> (13 + rank) & 1) << 1 | (mask >> (26 + rank) & 1) << 2
            | (mask >> (39 + rank) & 1) << 3)


@njit(cache=True)
def _set_choice_count(mask: int, triples: int) -> int:
    """How many set choices ``mask`` has (``triples``: :func:`_triple_ranks` of it); raises
    beyond ``_MAX_CHOICES``, as :func:`_set_choices_into` does."""
    count = 1
    for rank in range(13):
        if triples >> rank & 1:
            count *= _SET_COUNT[rank, _suits_at(mask, rank)]
            if count > _MAX_CHOICES:
                raise ValueError("too many cards for the meld solver")
    return count


@njit(cache=True)
def _set_choice(mask: int, triples: int, index: int) -> int:
    """Set choice number ``index`` (below :func:`_set_choice_count`) of ``mask``, counting in
    mixed radix over the ranks of ``triples``: the same choices as :func:`_set_choices_into`
    in another order, without allocating."""
    sets = 0
    for rank in range(13):
        if triples >> rank & 1:
            suits = _suits_at(mask, rank)
            options = _SET_COUNT[rank, suits]
            sets |= _SET_MASKS[rank, suits, index % options]
            index //= options
    return sets


def set_choices(mask: int) -> list[int]:
    """Every way to pick sets from a hand mask, as 52-bit masks of the set cards.

    >>> len(set_choices(mask_of(["7C", "7D", "7H", "7S"])))   # none, 4-set, four 3-sets
    6
    """
    out = np.empty(_MAX_CHOICES, dtype=np.int64)
    return out[:_set_choices_into(mask, out)].tolist()


@njit(cache=True)
def mask_deadwood(mask: int) -> int:
    """Least deadwood of a hand given as a 52-bit mask (compiled).

    >>> mask_deadwood(mask_of(["AC", "2C", "3C", "KH"]))
    10
    """
    triples = _triple_ranks(mask)
    if not triples:
        return _suits_deadwood(mask)
    best = NO_CARD
    for i in range(_set_choice_count(mask, triples)):
        best = min(best, _suits_deadwood(mask & ~_set_choice(mask, triples, i)))
    return best


def _card_list(cards: Any) -> list[Any]:
    """``cards`` (any iterable of cards) as a list; one string or anything not iterable is a
    ``TypeError`` naming ``cards``.

    >>> _card_list(None)
    Traceback (most recent call last):
    ...
    TypeError: cards must be an iterable of cards (text or ints 0..51), got None
    """
    try:
        iterator = None if isinstance(cards, (str, bytes)) else iter(cards)
    except TypeError:
        iterator = None
    if iterator is None:
        raise TypeError(f"cards must be an iterable of cards (text or ints 0..51), got {cards!r:.80}")
    return list(iterator)


def mask_of(cards: Iterable[CardLike]) -> int:
    """52-bit mask of cards given as text or ints; rejects duplicates and bad cards.

    >>> mask_of(["AC", 1])
    3
    """
    cards = _card_list(cards)
    mask = 0
    for card in cards:
        mask |= 1 << parse_card(card)
    if mask.bit_count() != len(cards):
        raise InvalidCardError(f"duplicate card in {cards!r}")
    return mask


def deadwood(cards: Iterable[CardLike]) -> int:
    """Deadwood count of 0-11 cards (text or ints) under the best arrangement (R7).

    The common case (canonical text or plain ints in a list or tuple) is a few table
    look-ups; anything else goes through :func:`mask_of` with full validation (so
    ``1.0`` or ``True`` is refused as :func:`~ginenv.game.cards.parse_card` refuses it).

    >>> deadwood(["AS", "2S", "3S", "4S", "5S", "6D", "7D", "8D", "9D", "TD"])  # R15: two 5-runs
    0
    >>> deadwood([])
    0
    >>> deadwood(c for c in ["7H", "8H", "9H", "KS"])   # any iterable, even a generator
    10
    """
    if not isinstance(cards, (list, tuple)):
        cards = _card_list(cards)  # a one-shot iterator must not be consumed twice
    mask = 0
    try:
        for card in cards:
            if card.__class__ not in _FAST_KINDS:
                raise TypeError  # numpy ints and anything odd: the validating path
            mask |= _BIT_OF[card]
        count = len(cards)  # type: ignore[arg-type]
    except (KeyError, TypeError):
        mask = mask_of(cards)
        count = mask.bit_count()
    if mask.bit_count() != count or count > MAX_CARDS:
        if count > MAX_CARDS:
            raise ValueError(f"deadwood() takes at most {MAX_CARDS} cards, got {count}")
        mask_of(cards)  # raises, naming the duplicate
    return mask_deadwood(mask)


def _runs_of_suit(suit_mask: int, suit: int) -> list[int]:
    """52-bit masks of the runs of an optimal run-only arrangement of one suit."""
    runs = []
    while suit_mask:
        run = RUN_CHOICE[suit_mask]
        if run:
            runs.append(run << (13 * suit))
            suit_mask &= ~run
        else:
            suit_mask &= suit_mask - 1
    return runs


def mask_best_melds(mask: int) -> tuple[list[int], int]:
    """Melds (52-bit masks) and deadwood mask of a best arrangement.

    Among equal-deadwood arrangements the first set choice of :func:`set_choices`
    wins (fewest sets), then the table's runs.

    >>> melds, dead = mask_best_melds(mask_of(["AC", "2C", "3C", "KH"]))
    >>> [bin(m).count("1") for m in melds], dead == mask_of(["KH"])
    ([3], True)
    """
    best_sets = min(set_choices(mask), key=lambda sets: _suits_deadwood(mask & ~sets))
    rest = mask & ~best_sets
    melds = _split_sets(best_sets)
    for suit in range(4):
        melds += _runs_of_suit(rest >> (13 * suit) & SUIT_MASK, suit)
    dead = mask
    for meld in melds:
        dead &= ~meld
    return melds, dead


def _split_sets(sets: int) -> list[int]:
    """Split a mask made of whole sets into one mask per rank."""
    melds = []
    for rank in range(13):
        column = sets & (1 | 1 << 13 | 1 << 26 | 1 << 39) << rank
        if column:
            melds.append(column)
    return melds


def meld_sort_key(meld: int) -> tuple[int, int]:
    """Order melds by their lowest card's rank then suit (sets before runs on ties)."""
    cards = mask_to_cards(meld)
    return (cards[0] % 13, cards[0] // 13 * 2 + (len({c % 13 for c in cards}) > 1))


def ordered_cards(mask: int) -> list[int]:
    """Cards of a mask ordered for display: by rank, then suit.

    >>> [CARD_TEXTS[c] for c in ordered_cards(mask_of(["7S", "7C", "2H"]))]
    ['2H', '7C', '7S']
    """
    return sorted(mask_to_cards(mask), key=lambda c: (c % 13, c // 13))


def best_melds(cards: Iterable[CardLike]) -> tuple[list[list[CardLike]], list[CardLike]]:
    """Best arrangement of 0-11 cards: ``(melds, deadwood_cards)``.

    Cards come back in the form given (text in, text out; ints in, ints out).

    >>> best_melds([0, 1, 2, 25])
    ([[0, 1, 2]], [25])
    """
    cards = _card_list(cards)
    mask = mask_of(cards)
    if len(cards) > MAX_CARDS:
        raise ValueError(f"best_melds() takes at most {MAX_CARDS} cards, got {len(cards)}")
    as_text = bool(cards) and isinstance(cards[0], str)
    melds, dead = mask_best_melds(mask)
    form = (lambda c: CARD_TEXTS[c]) if as_text else (lambda c: c)
    melds.sort(key=meld_sort_key)
    return ([[form(c) for c in ordered_cards(m)] for m in melds],
            [form(c) for c in ordered_cards(dead)])


@njit(cache=True)
def discard_deadwoods_into(mask: int, out: np.ndarray) -> None:
    """``out[c]``: the deadwood left after discarding card ``c`` of the hand (compiled;
    entries of cards not in the hand are left as they were).

    For each set choice the per-suit table values are summed once; discarding a card
    changes only its own suit's entry.
    """
    for card in range(52):
        if mask >> card & 1:
            out[card] = NO_CARD
    triples = _triple_ranks(mask)
    for i in range(_set_choice_count(mask, triples)):
        rest = mask & ~_set_choice(mask, triples, i)
        base = _suits_deadwood(rest)
        for suit in range(4):
            suit_mask = rest >> (13 * suit) & SUIT_MASK
            for rank in range(13):
                if suit_mask >> rank & 1:
                    value = base - _RUN_DW[suit_mask] + _RUN_DW[suit_mask & ~(1 << rank)]
                    if value < out[13 * suit + rank]:
                        out[13 * suit + rank] = value


def discard_deadwoods(mask: int) -> dict[int, int]:
    """Deadwood left after discarding each card of a hand, ``{card: deadwood}`` ascending.

    >>> hand = mask_of(["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "KS", "QS"])
    >>> after = discard_deadwoods(hand)
    >>> after[parse_card("KS")], after[parse_card("AC")]
    (10, 25)
    """
    out = np.zeros(52, dtype=np.int64)
    discard_deadwoods_into(mask, out)
    values = out.tolist()
    return {card: values[card] for card in mask_to_cards(mask)}


def _build_drop_table() -> np.ndarray:
    """Per 13-bit suit mask: the most its run-only deadwood can fall by discarding one of
    its cards (a value <= 0; ``NO_CARD`` for the empty mask)."""
    drop = np.full(1 << 13, NO_CARD, dtype=np.int64)
    for mask in range(1, 1 << 13):
        drop[mask] = min(RUN_DEADWOOD[mask & ~(1 << r)] for r in range(13) if mask >> r & 1) - RUN_DEADWOOD[mask]
    return drop


_RUN_DROP = _build_drop_table()


@njit(cache=True)
def _least_drop_deadwood(mask: int) -> int:
    """Least deadwood after one discard, runs only (``NO_CARD`` for an empty mask)."""
    drop = NO_CARD
    for suit in range(4):
        drop = min(drop, _RUN_DROP[mask >> (13 * suit) & SUIT_MASK])
    return _suits_deadwood(mask) + drop if drop < NO_CARD else NO_CARD


@njit(cache=True)
def least_discard_deadwood(mask: int) -> int:
    """The least deadwood left after discarding any one card of ``mask`` (compiled): the
    minimum of :func:`discard_deadwoods`, a few table look-ups for an 11-card hand.

    >>> least_discard_deadwood(mask_of(["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "KS", "QS"]))
    10
    """
    triples = _triple_ranks(mask)
    best = NO_CARD
    for i in range(_set_choice_count(mask, triples)):
        best = min(best, _least_drop_deadwood(mask & ~_set_choice(mask, triples, i)))
    return best


@njit(cache=True)
def _pair_ranks(mask: int) -> int:
    """13-bit mask of the ranks held at least twice."""
    a, b, c, d = mask & SUIT_MASK, mask >> 13 & SUIT_MASK, mask >> 26 & SUIT_MASK, mask >> 39 & SUIT_MASK
    return (a & (b | c | d)) | (b & (c | d)) | (c & d)


@njit(cache=True)
def draw_discard_total(kept: int, cards: int) -> int:
    """The sum, over the cards ``c`` of the mask ``cards``, of
    ``least_discard_deadwood(kept | c)``: what drawing each card and discarding the best card
    leaves (compiled).  A drawn card keeps the set choices of ``kept`` (and, when ``kept``
    holds two of its rank, adds the new 3-set to each), so per choice only the drawn card's
    suit is looked up again; a fourth card of a rank ``kept`` holds three times takes
    :func:`least_discard_deadwood`.

    >>> kept = mask_of(["AC", "2C", "4D", "5D", "6D", "7H", "8H", "9H", "KS", "QS"])
    >>> draw_discard_total(kept, mask_of(["3C", "KD"]))   # 3C: 10 (KS goes); KD: 23 (a king goes)
    33
    """
    triples = _triple_ranks(kept)
    choices = _set_choice_count(kept, triples)
    rests = np.empty(choices, dtype=np.int64)            # per choice: the cards left out of sets,
    suits = np.empty((choices, 4), dtype=np.int64)       # as suit masks,
    others = np.empty((choices, 4), dtype=np.int64)      # the best one-card drop in the other suits,
    whole = np.empty(choices, dtype=np.int64)            # and their run-only deadwood
    for i in range(choices):
        rests[i] = kept & ~_set_choice(kept, triples, i)
        whole[i] = _suits_deadwood(rests[i])
        for suit in range(4):
            suits[i, suit] = rests[i] >> (13 * suit) & SUIT_MASK
        for suit in range(4):
            others[i, suit] = NO_CARD
            for other in range(4):
                if other != suit:
                    others[i, suit] = min(others[i, suit], _RUN_DROP[suits[i, other]])
    pairs = _pair_ranks(kept) & ~triples
    total = 0
    for card in range(52):
        if not cards >> card & 1:
            continue
        rank, suit = card % 13, card // 13
        if triples >> rank & 1:
            total += least_discard_deadwood(kept | 1 << card)
            continue
        pair = kept & _RANK_COLUMN << rank if pairs >> rank & 1 else 0
        best = NO_CARD
        for i in range(choices):
            grown = suits[i, suit] | 1 << rank
            drop = min(others[i, suit], _RUN_DROP[grown])
            best = min(best, whole[i] - _RUN_DW[suits[i, suit]] + _RUN_DW[grown] + drop)
            if pair:
                best = min(best, _least_drop_deadwood(rests[i] & ~pair))
        total += best
    return total


_MAX_MELDS = 512
"""Melds one mask may contain (a full deck has 329)."""
MAX_ARRANGEMENTS, MAX_ARRANGED = 512, 17
"""Limits of :func:`best_arrangements_into`: arrangements of one mask, melds in one arrangement."""
_CARD_VALUE_ARRAY = np.array(CARD_VALUES, dtype=np.int64)


@njit(cache=True)
def mask_value(mask: int) -> int:
    """Sum of the card values in a mask (compiled).

    >>> mask_value(mask_of(["KS", "AC", "7H"]))
    18
    """
    total = 0
    for card in range(52):
        if mask >> card & 1:
            total += _CARD_VALUE_ARRAY[card]
    return total


@njit(cache=True)
def all_melds_into(mask: int, out: np.ndarray) -> int:
    """Write every meld of ``mask`` into ``out`` (see :func:`all_melds`); returns how many."""
    count = 0
    for suit in range(4):
        ranks = mask >> (13 * suit) & SUIT_MASK
        for low in range(11):
            run = 0
            for top in range(low, 13):
                if not ranks >> top & 1:
                    break
                run |= 1 << top
                if top - low >= 2:
                    out[count] = run << (13 * suit)
                    count += 1
    for rank in range(13):
        suits = ((mask >> rank & 1) | (mask >> (13 + rank) & 1) << 1 | (mask >> (26 + rank) & 1) << 2
                 | (mask >> (39 + rank) & 1) << 3)
        for j in range(1, _SET_COUNT[rank, suits]):  # option 0 is "no set"
            out[count] = _SET_MASKS[rank, suits, j]
            count += 1
    return count


def all_melds(mask: int) -> list[int]:
    """Every meld (set of 3-4, run of 3+) contained in a hand mask: runs by suit and
    lowest rank, then sets by rank.

    >>> len(all_melds(mask_of(["4H", "5H", "6H", "7H"])))  # 4-5-6, 5-6-7, 4-5-6-7
    3
    """
    out = np.empty(_MAX_MELDS, dtype=np.int64)
    return out[:all_melds_into(mask, out)].tolist()


@njit(cache=True)
def best_arrangements_into(mask: int, out: np.ndarray, sizes: np.ndarray) -> int:
    """Write every least-deadwood arrangement of ``mask`` into ``out`` (row ``i``: its
    ``sizes[i]`` meld masks); returns how many.  Depth-first over :func:`all_melds` in
    order, each arrangement before its extensions."""
    target = mask_deadwood(mask)
    melds = np.empty(_MAX_MELDS, dtype=np.int64)
    count = all_melds_into(mask, melds)
    chosen = np.empty(MAX_ARRANGED, dtype=np.int64)
    following = np.empty(MAX_ARRANGED + 1, dtype=np.int64)
    used = np.empty(MAX_ARRANGED + 1, dtype=np.int64)
    found = 0
    if mask_value(mask) == target:
        sizes[0] = 0
        found = 1
    depth, following[0], used[0] = 0, 0, 0
    while depth >= 0:
        i = following[depth]
        while i < count and melds[i] & used[depth]:
            i += 1
        if i >= count:
            depth -= 1
            continue
        following[depth] = i + 1
        chosen[depth] = melds[i]
        taken = used[depth] | melds[i]
        if mask_value(mask & ~taken) == target:
            if found == out.shape[0]:
                raise ValueError("too many best arrangements")
            out[found, :depth + 1] = chosen[:depth + 1]
            sizes[found] = depth + 1
            found += 1
        depth += 1
        following[depth], used[depth] = i + 1, taken
    return found


def all_best_arrangements(mask: int) -> list[list[int]]:
    """Every arrangement (list of meld masks) reaching the least deadwood.

    A long run may also appear split into shorter runs (same cards melded).

    >>> len(all_best_arrangements(mask_of(["7C", "7D", "7H", "8H", "9H", "KS"])))
    1
    """
    out = np.empty((MAX_ARRANGEMENTS, MAX_ARRANGED), dtype=np.int64)
    sizes = np.empty(MAX_ARRANGEMENTS, dtype=np.int64)
    count = best_arrangements_into(mask, out, sizes)
    return [out[i, :sizes[i]].tolist() for i in range(count)]
