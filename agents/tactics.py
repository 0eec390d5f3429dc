"""Compiled rule helpers for heuristic players and search rollouts, and a compiled reader
of what a seat knows.

One definition of each rule that the heuristic agents (``simple``, ``greedy``) and the
rollouts of ``montecarlo`` share: the face-up take rule (:func:`takes`), the discard leaving
the least deadwood (:func:`best_discard`, also the knock card), the knock threshold
schedule (:func:`knock_threshold`), the opponent's holding odds and the danger of a
discard (:func:`holding_odds`, :func:`danger`), and greedy's discard order
(:func:`rank_discards`).  Hands and card sets are 52-bit masks (bit ``c`` for card ``c``);
everything here is compiled with numba, so agents call it per decision or over a batch.

:class:`Seen` is what one seat knows, read from its observation vector by
:func:`read_seen` (about 1 µs) instead of :func:`ginenv.decode` (about 50 µs).

>>> from ginenv.game.melds import mask_of
>>> from ginenv.game.cards import parse_card
>>> hand = mask_of(["5H", "6H", "KS", "QD", "JC", "9C", "4D", "8S", "2C", "TD"])
>>> bool(takes(hand, parse_card("7H"), True)), bool(takes(hand, parse_card("7S"), True))
(True, False)
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ginenv.game.actions import KNOCK_BASE, NUM_ACTIONS
from ginenv.game.cards import CARD_VALUES, NUM_RANKS
from ginenv.game.core import BIG_GIN_BIT, DISCARD, DRAW, OFFER, STOCK_LEFT_AT_DEAD_HAND
from ginenv.game.encoding import LAYOUT, RULE_POINTS, SLICES
from ginenv.game.melds import NO_CARD, SUIT_MASK, discard_deadwoods_into, draw_discard_total, mask_deadwood
from ginenv.game.scoring import bit_count

ALL_CARDS = (1 << 52) - 1
NONE = -1
"""A card or phase that is not there (no top discard, not my turn, ...)."""
INITIAL_STOCK = 31
_VALUES = np.array(CARD_VALUES, dtype=np.int64)


class Seen(NamedTuple):
    """What one seat knows that the heuristics use; card sets are 52-bit masks.

    ``phase`` is ``OFFER``, ``DRAW``, ``DISCARD`` (the :mod:`ginenv.game.core` codes) or ``NONE``
    when it is not this seat's turn; ``pile`` holds every card of the discard pile, the top
    included; ``target`` is 0 in hand mode.
    """

    phase: int
    hand: int
    top_discard: int
    pile: int
    opp_picked: int
    opp_discards: int
    opp_declined: int
    no_discard: int
    stock_size: int
    knock_limit: int
    my_score: int
    opp_score: int
    target: int


class ObservationLayout(NamedTuple):
    """Where :func:`read_seen` finds each piece in the observation vector, and the scales of
    the numbers (built from :mod:`ginenv.game.encoding` by :meth:`current`; passed to compiled
    code as an argument, so its cache never holds stale offsets)."""

    hand: int
    top_discard: int
    pile_rest: int
    opp_picked: int
    opp_discards: int
    opp_declined: int
    no_discard: int
    phase: int
    knock_limit: int
    game_mode: int
    stock_size: int
    scores: int
    target: int
    stock_scale: float
    score_scale: float
    target_scale: float

    @classmethod
    def current(cls) -> "ObservationLayout":
        """The layout of :data:`ginenv.game.encoding.LAYOUT`."""
        start = {name: s.start for name, s in SLICES.items()}
        scale = {piece[0]: float(piece[3]) for piece in LAYOUT}
        return cls(*(start[name] for name in cls._fields[:12]),
                   start["rule_points"] + RULE_POINTS.index("target"),
                   scale["stock_size"], scale["scores"], scale["rule_points"])


OBSERVATION_LAYOUT = ObservationLayout.current()
LAYOUT_TUPLE = tuple(OBSERVATION_LAYOUT)
"""The same as a plain tuple: numba takes a plain tuple from Python a few µs faster than a
named one, so per-decision entry points take this and rebuild the layout inside
(``ObservationLayout(*at)``)."""


@njit(cache=True)
def _cards_at(obs: np.ndarray, start: int) -> int:
    mask = 0
    for card in range(52):
        if obs[start + card] > 0.5:
            mask |= 1 << card
    return mask


@njit(cache=True)
def _first_at(obs: np.ndarray, start: int, size: int) -> int:
    for i in range(size):
        if obs[start + i] > 0.5:
            return i
    return NONE


@njit(cache=True)
def _number_at(obs: np.ndarray, at: int, scale: float) -> int:
    return int(np.rint(np.float64(obs[at]) * scale))


@njit(cache=True)
def read_seen(obs: np.ndarray, at: ObservationLayout) -> Seen:
    """What the observing seat knows, from its observation vector (as :func:`ginenv.decode`
    reads it).

    >>> import ginenv
    >>> env = ginenv.env(); env.reset(seed=0)
    >>> observation = env.observe(env.agent_selection)["observation"]
    >>> seen = read_seen(observation, OBSERVATION_LAYOUT)
    >>> seen.phase == OFFER, seen.stock_size, seen.hand.bit_count()
    (True, 31, 10)
    """
    top = _first_at(obs, at.top_discard, 52)
    pile = _cards_at(obs, at.pile_rest) | (1 << top if top >= 0 else 0)
    limit = _first_at(obs, at.knock_limit, 11)
    game = obs[at.game_mode] > 0.5
    return Seen(_first_at(obs, at.phase, 3), _cards_at(obs, at.hand), top, pile, _cards_at(obs, at.opp_picked),
                _cards_at(obs, at.opp_discards), _cards_at(obs, at.opp_declined), _first_at(obs, at.no_discard, 52),
                _number_at(obs, at.stock_size, at.stock_scale), max(limit, 0),
                _number_at(obs, at.scores, at.score_scale), _number_at(obs, at.scores + 1, at.score_scale),
                _number_at(obs, at.target, at.target_scale) if game else 0)


@njit(cache=True)
def legal_words(mask: np.ndarray) -> tuple[int, int]:
    """An int8[108] action mask as two words, as :func:`ginenv.game.core.legal_words` gives them:
    bit ``a`` of the first for the actions ``a`` < 55, bit ``c`` of the second for knocking
    with card ``c``, bit 52 for big gin."""
    low, knocks = 0, 0
    for action in range(KNOCK_BASE):
        if mask[action]:
            low |= 1 << action
    for action in range(KNOCK_BASE, NUM_ACTIONS):
        if mask[action]:
            knocks |= 1 << (action - KNOCK_BASE)
    return low, knocks


@njit(cache=True)
def cards_of(mask: int) -> np.ndarray:
    """The cards of a mask, ascending.

    >>> cards_of(0b1010).tolist()
    [1, 3]
    """
    out = np.empty(52, dtype=np.int64)
    count = 0
    for card in range(52):
        if mask >> card & 1:
            out[count] = card
            count += 1
    return out[:count]


# ----- the take rule ---------------------------------------------------------------------------
@njit(cache=True)
def completes_meld(hand: int, card: int) -> bool:
    """Whether ``card`` belongs to some meld of ``hand + card`` (Neller's face-up test).

    >>> from ginenv.game.melds import mask_of
    >>> from ginenv.game.cards import parse_card
    >>> completes_meld(mask_of(["7C", "7D", "KS"]), parse_card("7H"))   # a set
    True
    >>> completes_meld(mask_of(["5H", "6H", "KS"]), parse_card("7H"))   # a run 5-6-7
    True
    >>> completes_meld(mask_of(["5H", "8H", "7S"]), parse_card("7H"))   # a gap, a pair
    False
    """
    rank, suit = card % NUM_RANKS, card // NUM_RANKS
    same_rank = 0
    for other in range(4):
        if other != suit:
            same_rank += hand >> (NUM_RANKS * other + rank) & 1
    if same_rank >= 2:
        return True
    suited = (hand >> NUM_RANKS * suit & SUIT_MASK) | 1 << rank
    low = high = rank
    while low > 0 and suited >> (low - 1) & 1:
        low -= 1
    while high < NUM_RANKS - 1 and suited >> (high + 1) & 1:
        high += 1
    return high - low >= 2


@njit(cache=True)
def best_discard(hand: int, excluded: int) -> tuple[int, int]:
    """``(card, deadwood left)``: the discard of ``hand`` leaving the least deadwood, among
    its cards not in the mask ``excluded`` (ties to the higher value, then the lower card;
    ``(NONE, NO_CARD)`` when no card may go).

    >>> from ginenv.game.melds import mask_of
    >>> from ginenv.game.cards import card_text
    >>> card, left = best_discard(mask_of(["AC", "2C", "3C", "KH", "QS"]), 0)
    >>> card_text(card), left
    ('KH', 10)
    """
    after = np.empty(52, dtype=np.int64)
    discard_deadwoods_into(hand, after)
    best, best_left = NONE, NO_CARD
    for card in range(52):
        if not hand >> card & 1 or excluded >> card & 1:
            continue
        left = after[card]
        if left < best_left or left == best_left and _VALUES[card] > _VALUES[best]:
            best, best_left = card, left
    return best, best_left


@njit(cache=True)
def least_cards(hand: int, allowed: int) -> int:
    """The mask of the cards of ``allowed`` (cards of ``hand``) whose discard leaves the least
    deadwood.

    >>> from ginenv.game.melds import mask_of
    >>> hand = mask_of(["AC", "2C", "3C", "KH", "KS"])
    >>> least_cards(hand, hand) == mask_of(["KH", "KS"])
    True
    """
    after = np.empty(52, dtype=np.int64)
    discard_deadwoods_into(hand, after)
    least, cards = NO_CARD, 0
    for card in range(52):
        if allowed >> card & 1:
            if after[card] < least:
                least, cards = after[card], 0
            if after[card] == least:
                cards |= 1 << card
    return cards


@njit(cache=True)
def lowers(hand: int, card: int) -> bool:
    """Whether taking the face-up ``card`` into the 10-card ``hand`` lowers its least
    deadwood (the taken card may not be discarded, R12)."""
    return best_discard(hand | 1 << card, 1 << card)[1] < mask_deadwood(hand)


@njit(cache=True)
def takes(hand: int, card: int, meld_only: bool) -> bool:
    """The take rule: take the face-up ``card`` into the 10-card ``hand`` when it lowers the
    least deadwood and, with ``meld_only``, belongs to a meld of ``hand + card``."""
    return lowers(hand, card) and (not meld_only or completes_meld(hand, card))


# ----- the knock threshold -------------------------------------------------------------------
@njit(cache=True)
def knock_threshold(stock_size: int, knock_limit: int, early: float, late: float, bonus: float) -> float:
    """The deadwood one knocks with: ``early`` at the deal moving linearly to ``late`` when the
    stock is down to the dead-hand point, plus ``bonus``, never above ``knock_limit``.

    >>> knock_threshold(31, 10, 4.0, 8.0, 0.0), knock_threshold(2, 10, 4.0, 8.0, 0.0)
    (4.0, 8.0)
    >>> knock_threshold(31, 10, 4.0, 8.0, 10.0), knock_threshold(31, 3, 10.0, 10.0, 0.0)
    (10.0, 3.0)
    """
    progress = (INITIAL_STOCK - stock_size) / (INITIAL_STOCK - STOCK_LEFT_AT_DEAD_HAND)
    progress = min(1.0, max(0.0, progress))
    return min(early + (late - early) * progress + bonus, knock_limit)


@njit(cache=True)
def behind(seen: Seen, zone: float, gap: float) -> bool:
    """Game mode, the opponent within ``zone`` points of the target and I at least ``gap``
    points below them."""
    return seen.target > 0 and seen.opp_score >= seen.target - zone and seen.my_score <= seen.opp_score - gap


# ----- danger ----------------------------------------------------------------------------------
@njit(cache=True)
def meld_pairs(card: int) -> np.ndarray:
    """The pairs of cards that make a 3-card meld with ``card``: the three same-rank pairs,
    then the run pairs below, around and above it.

    >>> from ginenv.game.cards import card_text
    >>> [(card_text(a), card_text(b)) for a, b in meld_pairs(1).tolist()]   # 2C
    [('2D', '2H'), ('2D', '2S'), ('2H', '2S'), ('AC', '3C'), ('3C', '4C')]
    """
    rank, suit = card % NUM_RANKS, card // NUM_RANKS
    same = np.empty(3, dtype=np.int64)
    count = 0
    for other in range(4):
        if other != suit:
            same[count] = other * NUM_RANKS + rank
            count += 1
    pairs = np.empty((6, 2), dtype=np.int64)
    count = 0
    for i in range(3):
        for j in range(i + 1, 3):
            pairs[count, 0], pairs[count, 1] = same[i], same[j]
            count += 1
    for first, second in ((-2, -1), (-1, 1), (1, 2)):
        if 0 <= rank + first and rank + second < NUM_RANKS:
            pairs[count, 0], pairs[count, 1] = card + first, card + second
            count += 1
    return pairs[:count]


@njit(cache=True)
def _halve(odds: np.ndarray, card: int) -> None:
    if 0 < odds[card] < 1:
        odds[card] *= 0.5


@njit(cache=True)
def holding_odds(seen: Seen) -> np.ndarray:
    """Per card, the estimated chance that the opponent holds it: 1 for the cards they took
    from the pile and hold, 0 for my hand and the pile, else their unknown cards over the
    unseen ones, halved for each card of the same rank, or of the same suit one rank away,
    that they discarded or declined (such a discard counts against their holding it)."""
    unseen = ALL_CARDS & ~(seen.hand | seen.pile) & ~seen.opp_picked
    base = max(0, 10 - bit_count(seen.opp_picked)) / max(1, bit_count(unseen))
    odds = np.zeros(52)
    for card in range(52):
        if seen.opp_picked >> card & 1:
            odds[card] = 1.0
        elif unseen >> card & 1:
            odds[card] = base
    for gone in np.concatenate((cards_of(seen.opp_discards), cards_of(seen.opp_declined))):
        rank, suit = gone % NUM_RANKS, gone // NUM_RANKS
        for other in range(4):
            _halve(odds, other * NUM_RANKS + rank)
        for near in (rank - 1, rank + 1):
            if 0 <= near < NUM_RANKS:
                _halve(odds, suit * NUM_RANKS + near)
    return odds


@njit(cache=True)
def danger(card: int, odds: np.ndarray) -> float:
    """The chance that discarding ``card`` completes a meld in the opponent's hand, given the
    :func:`holding_odds`: ``1 - prod(1 - p(a) p(b))`` over its :func:`meld_pairs`."""
    spare = 1.0
    for pair in meld_pairs(card):
        spare *= 1.0 - odds[pair[0]] * odds[pair[1]]
    return 1.0 - spare


@njit(cache=True)
def potential(card: int, hand: int) -> int:
    """My other cards of ``card``'s rank, or of its suit within two ranks."""
    rank, suit = card % NUM_RANKS, card // NUM_RANKS
    count = 0
    for other in range(4):
        if other != suit:
            count += hand >> (NUM_RANKS * other + rank) & 1
    for near in range(max(0, rank - 2), min(NUM_RANKS - 1, rank + 2) + 1):
        if near != rank:
            count += hand >> (NUM_RANKS * suit + near) & 1
    return count


@njit(cache=True)
def prospect(kept: int, unseen: int) -> float:
    """The mean, over the cards of ``unseen``, of the least deadwood after drawing that card
    into the 10-card ``kept`` and discarding optimally (the drawn card may be the discard)."""
    count = bit_count(unseen)
    return draw_discard_total(kept, unseen) / count if count else float(mask_deadwood(kept))


# ----- greedy's discard order -----------------------------------------------------------------
@njit(cache=True)
def rank_discards(seen: Seen, allowed: int, lookahead: bool, residual_weight: float,
                  danger_weight: float) -> np.ndarray:
    """The cards of ``allowed`` in greedy's discard order (the first is discarded): by the key
    ``(score, danger, -value, -potential, card)`` where ``score`` is, with ``lookahead``,
    ``prospect + residual_weight * residual + danger_weight * danger`` (the one-draw
    :func:`prospect` of the 10 cards kept, over the cards the opponent may not hold for sure),
    else the residual deadwood of the 10 cards kept."""
    after = np.empty(52, dtype=np.int64)
    discard_deadwoods_into(seen.hand, after)
    odds = holding_odds(seen)
    unseen = ALL_CARDS & ~(seen.hand | seen.pile) & ~seen.opp_picked
    cards = cards_of(allowed)
    score, risk = np.empty(len(cards)), np.empty(len(cards))
    for i, card in enumerate(cards):
        risk[i] = danger(card, odds)
        if lookahead:
            score[i] = (prospect(seen.hand & ~(1 << card), unseen) + residual_weight * after[card]
                        + danger_weight * risk[i])
        else:
            score[i] = after[card]
    order = np.arange(len(cards))
    for i in range(1, len(cards)):  # insertion sort by the key
        j = i
        while j > 0 and _discards_before(order[j], order[j - 1], cards, score, risk, seen.hand):
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1
    return cards[order]


@njit(cache=True)
def _discards_before(i: int, j: int, cards: np.ndarray, score: np.ndarray, risk: np.ndarray, hand: int) -> bool:
    if score[i] != score[j]:
        return score[i] < score[j]
    if risk[i] != risk[j]:
        return risk[i] < risk[j]
    a, b = cards[i], cards[j]
    if _VALUES[a] != _VALUES[b]:
        return _VALUES[a] > _VALUES[b]
    if potential(a, hand) != potential(b, hand):
        return potential(a, hand) > potential(b, hand)
    return a < b


__all__ = ["ALL_CARDS", "NONE", "Seen", "ObservationLayout", "OBSERVATION_LAYOUT", "LAYOUT_TUPLE", "read_seen",
           "legal_words", "cards_of", "completes_meld", "best_discard", "least_cards", "lowers", "takes",
           "knock_threshold", "behind", "meld_pairs", "holding_odds", "danger", "potential", "prospect",
           "rank_discards", "BIG_GIN_BIT", "OFFER", "DRAW", "DISCARD"]
