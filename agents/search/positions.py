"""Positions for search agents: full hands consistent with what a seat knows, stepped and
scored by the engine's own compiled functions, read through named accessors.

A *position* is the compiled state of a whole hand (a :mod:`ginenv.game.core` row, int64) as
:class:`~ginenv.game.hand.HandState` keeps it; search code builds one from an
:class:`~ginenv.game.encoding.ObservationView` with the searcher as seat 0 (:func:`position`),
deals the cards the searcher cannot place into many copies of it (:func:`deal`,
:func:`samples`), and plays them on with :func:`step`, scoring the end with :func:`points`.
The accessors below are compiled, so rollouts call them inside numba; nothing outside
``ginenv`` needs the row layout.

>>> import numpy as np
>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> observation = env.observe(env.agent_selection)
>>> rows = samples(ginenv.decode(observation), np.random.default_rng(0), 4)
>>> rows.shape[0], phase(rows[0]) == OFFER, bit_count(hand(rows[0], OPPONENT))
(4, True, 10)
>>> rules = Rules.of(ginenv.decode(observation).ruleset)
>>> step(rows[0], 1, rules); phase(rows[0]) == DISCARD
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ginenv.game import core
from ginenv.game.actions import TAKE_DISCARD
from ginenv.game.checks import PositionError
from ginenv.game.core import DISCARD, DRAW, OFFER, OVER
from ginenv.game.encoding import ObservationView
from ginenv.game.hand import HandState
from ginenv.game.rules import Ruleset
from ginenv.game.scoring import bit_count, showdown

ME, OPPONENT = 0, 1
"""The seats of a position built by :func:`position`: the searcher is seat 0."""
HAND_SIZE = 10


class Rules(NamedTuple):
    """The ruleset numbers that compiled search code needs (a plain tuple)."""

    big_gin: bool
    max_turns: int
    gin_bonus: int
    big_gin_bonus: int
    undercut_bonus: int

    @classmethod
    def of(cls, ruleset: Ruleset) -> "Rules":
        return cls(bool(ruleset.big_gin), ruleset.max_turns_per_hand, ruleset.gin_bonus, ruleset.big_gin_bonus,
                   ruleset.undercut_bonus)


# ----- named accessors (compiled) --------------------------------------------------------------
@njit(cache=True)
def phase(row: np.ndarray) -> int:
    """``OFFER``, ``DRAW``, ``DISCARD`` or ``OVER``."""
    return row[core.PHASE]


@njit(cache=True)
def to_act(row: np.ndarray) -> int:
    """The seat to act (-1 once the hand is over)."""
    return row[core.CURRENT]


@njit(cache=True)
def hand(row: np.ndarray, seat: int) -> int:
    """The cards ``seat`` holds, as a 52-bit mask."""
    return row[core.HAND + seat]


@njit(cache=True)
def top_discard(row: np.ndarray) -> int:
    """The top card of the discard pile (-1 when it is empty)."""
    return row[core.PILE + row[core.PILE_LEN] - 1] if row[core.PILE_LEN] else -1


@njit(cache=True)
def taken(row: np.ndarray) -> int:
    """The card just taken from the pile, which may not be discarded this turn (-1 if none)."""
    return row[core.TAKEN]


@njit(cache=True)
def may_take(row: np.ndarray) -> bool:
    """Whether the seat to act may take the face-up card (an offer, or a draw not forced)."""
    return row[core.PHASE] == OFFER or row[core.PHASE] == DRAW and not row[core.FORCED]


@njit(cache=True)
def stock_size(row: np.ndarray) -> int:
    """Cards left in the stock."""
    return row[core.STOCK_LEN]


@njit(cache=True)
def knock_limit(row: np.ndarray) -> int:
    """This hand's knock limit."""
    return row[core.KNOCK_LIMIT]


@njit(cache=True)
def step(row: np.ndarray, action: int, rules: Rules) -> None:
    """Play a legal ``action`` (not checked) in ``row``, in place."""
    core.apply(row, action, rules.max_turns)


@njit(cache=True)
def points(row: np.ndarray, rules: Rules, seat: int) -> int:
    """The points of a finished hand from ``seat``'s side: + won, - lost, 0 for a dead or
    truncated hand."""
    if row[core.ENDED] != core.ENDED_SHOWDOWN:
        return 0
    melds = np.empty(17, dtype=np.int64)
    _, winner, won, _, _, _, _ = showdown(row, rules.gin_bonus, rules.big_gin_bonus, rules.undercut_bonus, melds)
    return won if winner == seat else -won


# ----- positions from what a seat knows ------------------------------------------------------
def unknown_count(view: ObservationView) -> int:
    """How many of the opponent's cards the seat does not know (10 minus its known picks)."""
    return HAND_SIZE - len(view.opp_picked)


def position(view: ObservationView, forced_draw: bool = False) -> HandState:
    """One full hand that shows seat 0 exactly ``view`` (its own observation): the same
    hand, pile, phase, card it may not discard, the opponent's known picks, discards and
    declines, history, knock limit, doubling and ruleset.  Seat 0's own picks (which the
    opponent saw it take) are the cards of its hand that were discarded before, as far as the
    observed history reaches, and the card it has just taken; a first upcard taken at the deal
    is not among them once discarded over (nothing in the observation shows it).  The cards seat 0 cannot place
    are dealt, ascending, to the opponent's unknown cards and then the stock (top first).
    ``forced_draw``: both passed the first upcard (the action mask shows it: a draw where
    taking is not legal).  An observation no position fits is a
    :class:`~ginenv.game.checks.PositionError`."""
    pile = list(view.pile_rest) + ([view.top_discard] if view.top_discard is not None else [])
    placed = set(view.hand) | set(pile) | set(view.opp_picked)
    unknown = [c for c in range(52) if c not in placed]
    hidden = unknown_count(view)
    if hidden < 0 or len(unknown) != hidden + view.stock_size:
        raise PositionError(f"position: the observation is inconsistent ({len(unknown)} unknown cards for "
                            f"{hidden} hidden and a stock of {view.stock_size})")
    mine = list(view.hand)
    was_face_up = {card for _, card in view.history} | ({view.no_discard} if view.no_discard is not None else set())
    my_picks = tuple(card for card in mine if card in was_face_up)
    state = HandState.from_position(
        dealer=ME if view.is_dealer else OPPONENT, hands=[mine, list(view.opp_picked) + unknown[:hidden]],
        stock=unknown[hidden:], pile=pile, current_player=ME, phase=view.phase, ruleset=view.ruleset,
        first_upcard=pile[0] if pile else (view.no_discard if view.no_discard is not None else mine[0]),
        taken=view.no_discard, forced_draw=forced_draw, passes=1 if view.phase == "offer" and view.is_dealer else 0,
        picked=[my_picks, view.opp_picked], discarded=[view.my_discards, view.opp_discards],
        declined=[(), view.opp_declined],
        history=[(OPPONENT if by_opp else ME, card) for by_opp, card in reversed(view.history)])
    state.knock_limit = view.knock_limit
    state.doubled = view.hand_doubled
    return state


def forced(view: ObservationView, mask: np.ndarray) -> bool:
    """Whether the draw ``view`` shows is forced (both passed the first upcard): taking the
    face-up card is not legal in the action ``mask``."""
    return view.phase == "draw" and not mask[TAKE_DISCARD]


@njit(cache=True)
def unknown_cards(row: np.ndarray, known: int) -> np.ndarray:
    """The cards of a :func:`position` that seat 0 cannot place: the opponent's cards not in
    the mask ``known`` (ascending), then the stock from the bottom."""
    out = np.empty(52, dtype=np.int64)
    count = 0
    for card in range(52):
        if row[core.HAND + OPPONENT] >> card & 1 and not known >> card & 1:
            out[count] = card
            count += 1
    for i in range(row[core.STOCK_LEN]):
        out[count] = row[core.STOCK + i]
        count += 1
    return out[:count]


@njit(cache=True)
def deal(template: np.ndarray, known: int, orders: np.ndarray, hidden: int) -> np.ndarray:
    """Copies of the position ``template``, one per row of ``orders``: in copy ``s`` the
    opponent holds its ``known`` cards plus ``orders[s, :hidden]`` and the stock is
    ``orders[s, hidden:]``, top first (each row of ``orders`` orders the cards seat 0 cannot
    place, e.g. a shuffle of :func:`unknown_cards`)."""
    stock = orders.shape[1] - hidden
    rows = np.empty((orders.shape[0], template.shape[0]), dtype=np.int64)
    for s in range(orders.shape[0]):
        rows[s] = template
        held = known
        for i in range(hidden):
            held |= 1 << orders[s, i]
        rows[s, core.HAND + OPPONENT] = held
        for i in range(stock):
            rows[s, core.STOCK + stock - 1 - i] = orders[s, hidden + i]
        rows[s, core.STOCK_LEN] = stock
    return rows


def known_mask(view: ObservationView) -> int:
    """The opponent's cards the seat knows (taken from the pile, still held), as a mask."""
    return sum(1 << c for c in view.opp_picked)


def shuffles(cards: np.ndarray, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` independent uniform shuffles of ``cards``, one per row."""
    return rng.permuted(np.tile(cards, (count, 1)), axis=1)


def weighted_orders(logits: np.ndarray, unknown: np.ndarray, hidden: int, rng: np.random.Generator,
                    count: int) -> np.ndarray:
    """``count`` orders of the ``unknown`` cards (``[count, len(unknown)]``): the first ``hidden`` of
    each are the opponent's, drawn without replacement with weights ``exp(logits[card])`` (Gumbel
    top-k), the rest a uniform shuffle (the stock, top first).

    >>> rng = np.random.default_rng(0)
    >>> logits = np.full(52, -20.0); logits[[3, 7]] = 20.0
    >>> orders = weighted_orders(logits, np.array([1, 3, 5, 7, 9]), 2, rng, 4)
    >>> sorted(orders[0, :2].tolist()), orders.shape
    ([3, 7], (4, 5))
    """
    keys = logits[unknown][None, :] + rng.gumbel(size=(count, len(unknown)))
    order = unknown[np.argsort(-keys, axis=1, kind="stable")]
    stock = rng.permuted(order[:, hidden:], axis=1)
    return np.concatenate([order[:, :hidden], stock], axis=1)


def samples(view: ObservationView, rng: np.random.Generator, count: int, forced_draw: bool = False) -> np.ndarray:
    """``count`` positions consistent with ``view`` (seat 0 the observer), the cards it cannot
    place dealt uniformly at random by ``rng``."""
    template = position(view, forced_draw).row
    known = known_mask(view)
    return deal(template, known, shuffles(unknown_cards(template, known), rng, count), unknown_count(view))


__all__ = ["ME", "OPPONENT", "OFFER", "DRAW", "DISCARD", "OVER", "Rules", "phase", "to_act", "hand", "top_discard",
           "taken", "may_take", "stock_size", "knock_limit", "step", "points", "bit_count", "unknown_count",
           "position", "forced", "unknown_cards", "deal", "known_mask", "shuffles", "weighted_orders",
           "samples"]
