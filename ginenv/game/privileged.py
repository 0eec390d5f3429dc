"""What a seat cannot see, as a vector: for training-time critics only, never for a policy.

A privileged critic (PerfectDou's "perfect-training, imperfect-execution") learns its value
from the true state while the policy reads only the observation.  The vector for the seat
to act holds two blocks of 52 numbers, one per card (card ids as in :mod:`ginenv.game.cards`),
then three numbers a player would work out from them (deadwood over 100, at most 1):

* ``opponent_hand``: 1 for each card in the other seat's hand;
* ``stock_order``: for a card in the stock, ``1 - depth / 52`` (the next card drawn has
  depth 0, so 1.0), else 0;
* ``deadwoods``: the opponent's least deadwood (of its best 10 cards), the opponent's least
  deadwood with the stock's next card added (the card it draws if the seat to act does not), and
  the seat's own least deadwood of its best 10 cards, with that card added when it holds 10 (an
  empty stock adds nothing).

The environments never put these numbers into an observation; only
:meth:`ginenv.envs.batched.BatchedGinEnv.privileged` returns them.

>>> import numpy as np
>>> from ginenv.game.hand import HandState
>>> state = HandState.random(np.random.default_rng(0))
>>> out = np.zeros(PRIVILEGED_SIZE, dtype=np.float32)
>>> write_privileged(state.row, 0, out)
>>> int(out[:52].sum()), int((out[52:104] > 0).sum()), float(out[52:104].max())
(10, 31, 1.0)
>>> from ginenv.game.melds import deadwood
>>> round(float(out[104]) * 100) == min(deadwood(state.hand_cards(1)), 100)
True
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ginenv.game import core
from ginenv.game.melds import least_discard_deadwood, mask_deadwood
from ginenv.game.scoring import bit_count

PRIVILEGED_SIZE = 107
"""Length of the privileged vector: ``opponent_hand`` (52), ``stock_order`` (52), ``deadwoods`` (3)."""
OPPONENT_HAND = 52
"""Length of its first piece, the opponent's hand."""
PRIVILEGED_CARDS = 104
"""Length of its first two pieces (the cards alone)."""
PRIVILEGED_PIECES = ("opponent_hand", "stock_order", "deadwoods")


@njit(cache=True)
def write_privileged(row: np.ndarray, seat: int, out: np.ndarray) -> None:
    """The privileged vector of ``seat`` in the hand ``row`` into ``out`` (``PRIVILEGED_SIZE``)."""
    out[:] = 0.0
    other = core.HAND + 1 - seat
    for card in range(OPPONENT_HAND):
        if row[other] >> card & 1:
            out[card] = 1.0
    length = row[core.STOCK_LEN]
    for j in range(length):  # the top card (drawn next) is the last one
        out[52 + row[core.STOCK + j]] = 1.0 - (length - 1 - j) / 52.0
    theirs, mine = row[other], row[core.HAND + seat]
    nxt = np.int64(1) << row[core.STOCK + length - 1] if length else np.int64(0)
    out[PRIVILEGED_CARDS] = _best_ten(theirs) / 100.0
    out[PRIVILEGED_CARDS + 1] = _best_ten(theirs | nxt) / 100.0
    out[PRIVILEGED_CARDS + 2] = _best_ten(mine | nxt if bit_count(mine) == 10 else mine) / 100.0


@njit(cache=True)
def _best_ten(mask: np.int64) -> float:
    """The least deadwood of a hand's best 10 cards (of 10 or 11 cards), at most 100."""
    return min(least_discard_deadwood(mask) if bit_count(mask) > 10 else mask_deadwood(mask), 100)


@njit(cache=True)
def write_privileged_many(rows: np.ndarray, out: np.ndarray) -> None:
    """For every game ``i``: the privileged vector of the seat to act in ``rows[i]`` into ``out[i]``."""
    for i in range(rows.shape[0]):
        seat = rows[i, core.CURRENT]
        if seat < 0:
            out[i, :] = 0.0
        else:
            write_privileged(rows[i], seat, out[i])
