"""What a seat cannot see, as a vector: for training-time critics only, never for a policy.

A privileged critic (PerfectDou's "perfect-training, imperfect-execution") learns its value
from the true state while the policy reads only the observation.  The vector for the seat
to act holds two blocks of 52 numbers, one per card (card ids as in :mod:`ginenv.game.cards`):

* ``opponent_hand``: 1 for each card in the other seat's hand;
* ``stock_order``: for a card in the stock, ``1 - depth / 52`` (the next card drawn has
  depth 0, so 1.0), else 0.

The environments never put these numbers into an observation; only
:meth:`ginenv.envs.batched.BatchedGinEnv.privileged` returns them.

>>> import numpy as np
>>> from ginenv.game.hand import HandState
>>> state = HandState.random(np.random.default_rng(0))
>>> out = np.zeros(PRIVILEGED_SIZE, dtype=np.float32)
>>> write_privileged(state.row, 0, out)
>>> int(out[:52].sum()), int((out[52:] > 0).sum()), float(out[52:].max())
(10, 31, 1.0)
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ginenv.game import core

PRIVILEGED_SIZE = 104
"""Length of the privileged vector: ``opponent_hand`` (52) then ``stock_order`` (52)."""
PRIVILEGED_PIECES = ("opponent_hand", "stock_order")


@njit(cache=True)
def write_privileged(row: np.ndarray, seat: int, out: np.ndarray) -> None:
    """The privileged vector of ``seat`` in the hand ``row`` into ``out`` (``PRIVILEGED_SIZE``)."""
    out[:] = 0.0
    other = core.HAND + 1 - seat
    for card in range(52):
        if row[other] >> card & 1:
            out[card] = 1.0
    length = row[core.STOCK_LEN]
    for j in range(length):  # the top card (drawn next) is the last one
        out[52 + row[core.STOCK + j]] = 1.0 - (length - 1 - j) / 52.0


@njit(cache=True)
def write_privileged_many(rows: np.ndarray, out: np.ndarray) -> None:
    """For every game ``i``: the privileged vector of the seat to act in ``rows[i]`` into ``out[i]``."""
    for i in range(rows.shape[0]):
        seat = rows[i, core.CURRENT]
        if seat < 0:
            out[i, :] = 0.0
        else:
            write_privileged(rows[i], seat, out[i])
