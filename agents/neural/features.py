"""Rule-derived inputs of the neural policy, computed from the observation alone.

A network can learn what the meld rules imply, but slowly; these features hand it the
numbers a player computes at a glance, from the seat's own cards only (no hidden
information enters):

* per card, ``discard_deadwood``: the least deadwood left after discarding it (for a hand
  of 11 cards, the discard decision; 0 otherwise), over 100;
* per card, ``run_pairs`` and ``set_mates``: how many pairs of my cards make a run with it
  (same suit, neighbouring ranks), and how many cards of its rank I hold (over 3);
* per card of an 11-card hand, ``danger`` (the chance that discarding it completes a meld
  of the opponent's, :func:`agents.tactics.danger`) and ``prospect`` (the mean least
  deadwood after discarding it and drawing one unseen card, over 100,
  :func:`agents.tactics.prospect`): the terms of ``greedy``'s discard rule;
* per row, ``deadwood_now`` (the least deadwood of my 10 cards, or of my best 10 of 11) and
  ``deadwood_taking`` (of my 10 cards with the face-up card taken and the best other card
  discarded; the current deadwood when there is no face-up card or it does not help), over 100.

>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> obs = env.observe("player_1")["observation"][None]
>>> cards, rows = hand_features(obs)
>>> cards.shape, rows.shape, round(float(rows[0, 0]) * 100) == ginenv.deadwood(ginenv.decode(obs[0]).hand)
((1, 5, 52), (1, 2), True)
"""
from __future__ import annotations

import numpy as np
from numba import njit

from agents.tactics import ALL_CARDS, LAYOUT_TUPLE, ObservationLayout, danger, holding_odds, prospect, read_seen
from ginenv.game.encoding import SLICES
from ginenv.game.melds import discard_deadwoods_into, least_discard_deadwood, mask_deadwood
from ginenv.game.scoring import bit_count

CARD_FEATURES = 5
ROW_FEATURES = 2
_BITS = np.left_shift(np.int64(1), np.arange(52, dtype=np.int64))
_HAND, _TOP = SLICES["hand"], SLICES["top_discard"]


@njit(cache=True)
def _deadwoods(hands: np.ndarray, tops: np.ndarray, cards: np.ndarray, rows: np.ndarray) -> None:
    after = np.empty(52, dtype=np.int64)
    for i in range(hands.shape[0]):
        hand = hands[i]
        count = bit_count(hand)
        if count == 11:
            discard_deadwoods_into(hand, after)
            best = 1000
            for card in range(52):
                if hand >> card & 1:
                    cards[i, 0, card] = after[card] / 100.0
                    best = min(best, after[card])
            rows[i, 0] = rows[i, 1] = best / 100.0
        else:
            now = mask_deadwood(hand)
            rows[i, 0] = rows[i, 1] = now / 100.0
            top = tops[i]
            if count == 10 and top >= 0 and not hand >> top & 1:
                rows[i, 1] = min(now, least_discard_deadwood(hand | (1 << top))) / 100.0


@njit(cache=True)
def _discard_terms(obs: np.ndarray, at: tuple, cards: np.ndarray) -> None:
    layout = ObservationLayout(*at)
    for i in range(obs.shape[0]):
        seen = read_seen(obs[i], layout)
        if bit_count(seen.hand) != 11:
            continue
        odds = holding_odds(seen)
        unseen = ALL_CARDS & ~(seen.hand | seen.pile) & ~seen.opp_picked
        for card in range(52):
            if seen.hand >> card & 1:
                cards[i, 3, card] = danger(card, odds)
                cards[i, 4, card] = prospect(seen.hand & ~(1 << card), unseen) / 100.0


@njit(cache=True)
def _least_deadwoods(hands: np.ndarray, out: np.ndarray) -> None:
    for i in range(hands.shape[0]):
        out[i] = least_discard_deadwood(hands[i]) if bit_count(hands[i]) == 11 else mask_deadwood(hands[i])


def hand_masks(obs: np.ndarray) -> np.ndarray:
    """My cards in each row of observations ``[B, OBS]``, as 52-bit masks (int64 ``[B]``)."""
    return ((np.asarray(obs)[:, _HAND] > 0.5) * _BITS).sum(axis=1)


def hand_deadwood(obs: np.ndarray) -> np.ndarray:
    """Least deadwood of each row's hand: its 10 cards, or its best 10 of 11 (int64 ``[B]``).

    >>> import ginenv
    >>> env = ginenv.env(); env.reset(seed=0)
    >>> int(hand_deadwood(env.observe("player_0")["observation"][None])[0]) == ginenv.deadwood(
    ...     ginenv.decode(env.observe("player_0")).hand)
    True
    """
    out = np.empty(len(obs), dtype=np.int64)
    _least_deadwoods(hand_masks(obs), out)
    return out


def _shift(grid: np.ndarray, by: int) -> np.ndarray:
    """``grid [B, 4, 13]`` moved along the ranks (``out[..., r] = grid[..., r + by]``, 0 off the edge)."""
    out = np.zeros_like(grid)
    if by > 0:
        out[..., :-by] = grid[..., by:]
    else:
        out[..., -by:] = grid[..., :by]
    return out


def hand_features(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(cards [B, CARD_FEATURES, 52], rows [B, ROW_FEATURES])`` float32 for observations ``[B, OBS]``."""
    obs = np.asarray(obs, dtype=np.float32)
    hands = hand_masks(obs)
    top_bits = obs[:, _TOP] > 0.5
    tops = np.where(top_bits.any(axis=1), top_bits.argmax(axis=1), -1).astype(np.int64)
    cards = np.zeros((len(obs), CARD_FEATURES, 52), dtype=np.float32)
    rows = np.zeros((len(obs), ROW_FEATURES), dtype=np.float32)
    _deadwoods(hands, tops, cards, rows)
    _discard_terms(obs, LAYOUT_TUPLE, cards)
    grid = (obs[:, _HAND] > 0.5).reshape(-1, 4, 13).astype(np.float32)
    left1, left2, right1, right2 = _shift(grid, -1), _shift(grid, -2), _shift(grid, 1), _shift(grid, 2)
    cards[:, 1] = (left2 * left1 + left1 * right1 + right1 * right2).reshape(-1, 52)
    cards[:, 2] = ((grid.sum(axis=1, keepdims=True) - grid) / 3.0).reshape(-1, 52)
    return cards, rows
