"""The compiled core of a hand: its state as one int64 row, legal actions and transitions.

:class:`ginenv.game.hand.HandState` keeps its state in such a row and calls these functions;
the batched API (:mod:`ginenv.envs.batched`) steps many rows at once with the same functions.
So there is one engine: these transitions (R11-R16, R25 and the safeguard), with the
showdown after a knock (R17-R24) scored by the compiled :func:`ginenv.game.scoring.showdown`
when a row reports ``ENDED_SHOWDOWN``.

Row layout: a header of ``HEADER`` fields (names below), then the stock (``STOCK`` ..,
top card last), the discard pile (``PILE`` .., top card last), the face-up discard history
(``HISTORY`` .., ``seat * 64 + card`` in order) and the event log (from ``row[EVENTS_AT]``,
``player | action << 1 | (card + 1) << 8``).  Hands and the per-seat knowledge are
52-bit card masks.

>>> import numpy as np
>>> row = new_row(history_capacity=4, events_capacity=8)
>>> int(row[PHASE]) == OFFER, PHASE_NAMES[row[PHASE]], row.shape[0] == HEADER + 104 + 4 + 8
(True, 'offer', True)
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from ginenv.game.melds import discard_deadwoods_into, mask_deadwood

# ----- header fields (two-seat fields take two slots) --------------------------------------
HAND, PICKED, DISCARDED, DECLINED = 0, 2, 4, 6
PHASE, CURRENT, DEALER, PASSES, FORCED, TAKEN = 8, 9, 10, 11, 12, 13
KNOCK_LIMIT, DOUBLED, TURNS, STOCK_LEN, PILE_LEN, HISTORY_LEN = 14, 15, 16, 17, 18, 19
EVENTS_LEN, EVENTS_AT, ENDED, KNOCKER, KNOCK_DISCARD = 20, 21, 22, 23, 24
HEADER = 25
STOCK = HEADER
PILE = STOCK + 52
HISTORY = PILE + 52

#: ``row[PHASE]`` codes (``CURRENT`` is -1 once the hand is over): the one representation
#: of a phase inside the package.
OFFER, DRAW, DISCARD, OVER = 0, 1, 2, 3
#: The public name of each phase code (``HandState.phase``, ``ObservationView.phase``).
PHASE_NAMES = ("offer", "draw", "discard", "over")
#: ``row[ENDED]`` codes: how the hand ended (0 while it goes on).
ENDED_NOT, ENDED_DEAD, ENDED_TRUNCATED, ENDED_SHOWDOWN = 0, 1, 2, 3
STOCK_LEFT_AT_DEAD_HAND = 2
#: Bits of the second word of :func:`legal_words`: knock with card c is bit c, big gin bit 52.
BIG_GIN_BIT = 52


def new_row(history_capacity: int, events_capacity: int) -> np.ndarray:
    """A zeroed row with room for that many discards and events, phase ``OFFER``."""
    row = np.zeros(HISTORY + history_capacity + events_capacity, dtype=np.int64)
    row[EVENTS_AT] = HISTORY + history_capacity
    row[TAKEN] = row[KNOCKER] = row[KNOCK_DISCARD] = -1
    return row


def capacities(max_turns: int) -> tuple[int, int]:
    """History and event capacity for a hand of at most ``max_turns`` turns: one discard
    per turn; two passes, a draw and a discard (or knock) per turn."""
    return max_turns, 2 * max_turns + 3


@njit(cache=True)
def legal_words(row: np.ndarray, big_gin: bool) -> tuple[int, int]:
    """The legal actions as two words: bit ``a`` of the first for actions ``a`` < 55 (draws,
    pass, discards), bit ``c`` of the second for knocking with card ``c``, bit 52 big gin."""
    phase = row[PHASE]
    if phase == DRAW:
        if row[FORCED]:
            return 1 << DRAW_STOCK, 0
        return 1 << DRAW_STOCK | 1 << TAKE_DISCARD, 0
    if phase == OFFER:
        return 1 << TAKE_DISCARD | 1 << PASS, 0
    if phase != DISCARD:
        return 0, 0
    hand = row[HAND + row[CURRENT]]
    taken = row[TAKEN]
    allowed = hand & ~(1 << taken) if taken >= 0 else hand
    knocks = 0
    whole = mask_deadwood(hand)
    limit = row[KNOCK_LIMIT]
    if whole <= limit + 10:  # removing one card lowers deadwood by at most 10
        after = np.empty(52, dtype=np.int64)
        discard_deadwoods_into(hand, after)
        for card in range(52):
            if allowed >> card & 1 and after[card] <= limit:
                knocks |= 1 << card
    if whole == 0 and big_gin:
        knocks |= 1 << BIG_GIN_BIT
    return allowed << DISCARD_BASE, knocks


@njit(cache=True)
def write_mask(row: np.ndarray, big_gin: bool, out: np.ndarray) -> None:
    """Fill the int8[108] action mask ``out`` with the legal actions of ``row``."""
    low, knocks = legal_words(row, big_gin)
    for action in range(KNOCK_BASE):
        out[action] = low >> action & 1
    for action in range(KNOCK_BASE, NUM_ACTIONS):
        out[action] = knocks >> (action - KNOCK_BASE) & 1


@njit(cache=True)
def _finish(row: np.ndarray, how: int) -> None:
    row[PHASE], row[CURRENT], row[ENDED] = OVER, -1, how


@njit(cache=True)
def _log(row: np.ndarray, seat: int, action: int, card: int) -> None:
    row[row[EVENTS_AT] + row[EVENTS_LEN]] = seat | action << 1 | (card + 1) << 8
    row[EVENTS_LEN] += 1


@njit(cache=True)
def apply(row: np.ndarray, action: int, max_turns: int) -> int:
    """Apply a legal action (not checked here) to ``row``; returns ``row[ENDED]``.

    A knock or big gin sets ``ENDED_SHOWDOWN``, ``KNOCKER`` and ``KNOCK_DISCARD`` (-1 for
    big gin); scoring it is left to the caller.
    """
    seat = row[CURRENT]
    card = -1
    if action == PASS:
        row[DECLINED + seat] |= 1 << row[PILE + row[PILE_LEN] - 1]
        row[PASSES] += 1
        row[CURRENT] = 1 - seat
        if row[PASSES] == 2:
            row[PHASE], row[FORCED] = DRAW, 1
    elif action == DRAW_STOCK:
        row[STOCK_LEN] -= 1
        card = row[STOCK + row[STOCK_LEN]]
        row[DECLINED + seat] |= 1 << row[PILE + row[PILE_LEN] - 1]
        row[HAND + seat] |= 1 << card
        row[TURNS] += 1
        row[PHASE], row[TAKEN] = DISCARD, -1
    elif action == TAKE_DISCARD:
        row[PILE_LEN] -= 1
        card = row[PILE + row[PILE_LEN]]
        row[HAND + seat] |= 1 << card
        row[PICKED + seat] |= 1 << card
        row[TURNS] += 1
        row[PHASE], row[TAKEN] = DISCARD, card
    _log(row, seat, action, card)
    if action < DISCARD_BASE:
        return ENDED_NOT
    if action == BIG_GIN:
        row[KNOCKER], row[KNOCK_DISCARD] = seat, -1
        _finish(row, ENDED_SHOWDOWN)
        return ENDED_SHOWDOWN
    card = action - (DISCARD_BASE if action < KNOCK_BASE else KNOCK_BASE)
    keep = ~(1 << card)
    row[HAND + seat] &= keep
    row[PICKED + seat] &= keep
    if action >= KNOCK_BASE:  # face down (R14)
        row[KNOCKER], row[KNOCK_DISCARD] = seat, card
        _finish(row, ENDED_SHOWDOWN)
        return ENDED_SHOWDOWN
    row[DISCARDED + seat] |= 1 << card
    row[PILE + row[PILE_LEN]] = card
    row[PILE_LEN] += 1
    row[HISTORY + row[HISTORY_LEN]] = seat * 64 + card
    row[HISTORY_LEN] += 1
    row[TAKEN], row[FORCED] = -1, 0
    if row[STOCK_LEN] <= STOCK_LEFT_AT_DEAD_HAND:  # R25
        _finish(row, ENDED_DEAD)
    elif row[TURNS] >= max_turns:
        _finish(row, ENDED_TRUNCATED)
    else:
        row[CURRENT], row[PHASE] = 1 - seat, DRAW
    return row[ENDED]


@njit(cache=True)
def apply_some(rows: np.ndarray, which: np.ndarray, actions: np.ndarray, max_turns: int, ended: np.ndarray) -> None:
    """:func:`apply` ``actions[k]`` to ``rows[which[k]]`` for every ``k``; ``ended[k]`` gets that
    row's ``ENDED`` code (the other rows are left as they are)."""
    for k in range(which.shape[0]):
        ended[k] = apply(rows[which[k]], actions[k], max_turns)


@njit(cache=True)
def apply_many(rows: np.ndarray, actions: np.ndarray, max_turns: int, ended: np.ndarray) -> None:
    """:func:`apply` ``actions[i]`` to ``rows[i]`` for every game;
    ``ended[i]`` gets the row's ``ENDED`` code."""
    apply_some(rows, np.arange(rows.shape[0]), actions, max_turns, ended)


__all__ = ["new_row", "capacities", "legal_words", "write_mask", "apply", "apply_some", "apply_many"]
