"""``greedy``: a strong, deterministic one-ply heuristic player.

Everything is read from the observation (:func:`agents.tactics.read_seen`); "deadwood" is
always the least deadwood over all meld arrangements (R7).  Each rule is one compiled
function of :mod:`agents.tactics`, shared with the ``montecarlo`` rollouts.  Cards *out of
the opponent's reach* are my hand and the discard pile; *unseen* cards are the others, minus
the cards the opponent is known to hold (taken from the pile, still held).

**Danger** of discarding card ``c`` estimates the chance that ``c`` completes a meld in the
opponent's hand.  Each card gets a probability ``p`` of being in that hand: 1 for the cards
they are known to hold, 0 for cards out of their reach, else ``hidden / unseen`` (their
cards not known to me over the unseen count), halved for each card of the same rank or of
the same suit one rank away that they discarded or declined.  ``danger(c) = 1 - prod(1 -
p(a) p(b))`` over the pairs ``{a, b}`` that make a 3-card meld with ``c`` (the three
same-rank pairs and up to three run pairs); a *dead* card (no possible meld) has danger 0.

Exact policy:

* **Big gin**, where the ruleset allows it and it is legal, is taken first.
* **Upcard offer / draw.**  Let ``now`` be the deadwood of the 10 cards in hand and
  ``after`` the least deadwood of ``hand + face-up card`` minus one other card (the taken
  card may not be discarded, R12).  Take the face-up card only if it strictly lowers the
  best deadwood (``after < now``) and, by ``take``:
  ``"meld"`` (default) it belongs to some meld of ``hand + card``;
  ``"lower"`` nothing more.
  Otherwise pass (first offer) or draw from the stock.
* **Discard** the legal card with the smallest key
  ``(score, danger, -value, -potential, card id)`` where

  - with ``lookahead=True`` (default), ``score = prospect + residual_weight * residual +
    danger_weight * danger``: *prospect* is the mean, over the unseen cards, of the least
    deadwood after drawing that card and discarding optimally (one stock draw ahead);
    *residual* is the deadwood of the 10 cards kept;
  - with ``lookahead=False``, ``score = residual`` (least residual deadwood, then least
    danger, then highest value);
  - *potential*: my other cards of the same rank or of the same suit within two ranks
    (keep the card with more of them); the card id makes the order total (deterministic).
* **Knock** when a knock action is legal and the least deadwood a knock discard leaves is
  0 (gin: always) or at most the threshold ``T``; the knock discard is the legal one
  leaving the least deadwood (then the higher value, then the lower id).  ``T`` is::

      progress = clip((31 - stock_size) / 29, 0, 1)     # 0 at the deal, 1 at the dead-hand point
      T = knock_early + (knock_late - knock_early) * progress
      if game mode and opponent_score >= target - behind_zone
             and my_score <= opponent_score - behind_gap:
          T += behind_bonus                           # far behind near the end: knock readily
      T = min(T, knock_limit of the hand)

Defaults: ``take="meld"``, ``lookahead=True``, ``residual_weight=0``, ``danger_weight=5``,
``knock_early=10``, ``knock_late=10``, ``behind_zone=25``, ``behind_gap=25``,
``behind_bonus=10``: the threshold is the hand's knock limit whatever the stock and score
(knock as soon as allowed), under every ruleset; pass another schedule by spec where
undercuts cost more.  Every number is a constructor parameter, settable by spec, e.g.
``make_agent("greedy:knock_early=6,knock_late=0,danger_weight=0")``.  The runs behind
these defaults are in ``docs/experiments/baselines.md``.

>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> agent = GreedyAgent()
>>> observation = env.observe(env.agent_selection)
>>> int(observation["action_mask"][agent.act(observation)])
1
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np
from numba import njit

from agents.base import NONE, Observation, checked, checked_batch
from agents.tactics import (
    ALL_CARDS,
    BIG_GIN_BIT,
    DRAW,
    LAYOUT_TUPLE,
    OFFER,
    ObservationLayout,
    Seen,
    behind,
    best_discard,
    knock_threshold,
    legal_words,
    rank_discards,
    read_seen,
    takes,
)
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.checks import checked_flag, checked_float, checked_seed

TAKE_RULES = ("meld", "lower")


class Policy(NamedTuple):
    """greedy's parameters as compiled code takes them (see :class:`GreedyAgent`)."""

    meld_only: bool
    lookahead: bool
    residual_weight: float
    danger_weight: float
    knock_early: float
    knock_late: float
    behind_zone: float
    behind_gap: float
    behind_bonus: float


@njit(cache=True)
def threshold(seen: Seen, policy: Policy) -> float:
    """The knock threshold ``T`` of the module docstring."""
    bonus = policy.behind_bonus if behind(seen, policy.behind_zone, policy.behind_gap) else 0.0
    return knock_threshold(seen.stock_size, seen.knock_limit, policy.knock_early, policy.knock_late, bonus)


@njit(cache=True)
def choose(seen: Seen, low: int, knocks: int, policy: Policy) -> int:
    """The policy's action for what a seat knows and its legal actions (as the two words of
    :func:`agents.tactics.legal_words`)."""
    if seen.phase == OFFER or seen.phase == DRAW:
        if low >> TAKE_DISCARD & 1 and seen.top_discard != NONE and takes(seen.hand, seen.top_discard,
                                                                          policy.meld_only):
            return TAKE_DISCARD
        return PASS if low >> PASS & 1 else DRAW_STOCK
    if knocks >> BIG_GIN_BIT & 1:
        return BIG_GIN
    knock_cards = knocks & ALL_CARDS
    if knock_cards:
        card, left = best_discard(seen.hand, ~knock_cards)
        if left == 0 or left <= threshold(seen, policy):
            return KNOCK_BASE + card
    discards = low >> DISCARD_BASE & ALL_CARDS
    return DISCARD_BASE + rank_discards(seen, discards, policy.lookahead, policy.residual_weight,
                                        policy.danger_weight)[0]


@njit(cache=True)
def decide(observation: np.ndarray, mask: np.ndarray, at: tuple, policy: tuple) -> int:
    """:func:`choose` for an observation vector and its action mask (``NONE`` when no action
    is legal); ``at`` and ``policy`` are an :class:`~agents.tactics.ObservationLayout`
    and a :class:`Policy` as plain tuples (see :data:`agents.tactics.LAYOUT_TUPLE`)."""
    low, knocks = legal_words(mask)
    return choose(read_seen(observation, ObservationLayout(*at)), low, knocks, Policy(*policy)) if low | knocks \
        else NONE


@njit(cache=True)
def decide_many(observations: np.ndarray, masks: np.ndarray, at: tuple, policy: tuple) -> np.ndarray:
    """:func:`decide` for every row of a batch."""
    actions = np.empty(observations.shape[0], dtype=np.int64)
    for i in range(observations.shape[0]):
        actions[i] = decide(observations[i], masks[i], at, policy)
    return actions


def _number(key: str, value: object) -> float:
    """A finite number >= 0 for parameter ``key`` (NaN and infinities are refused)."""
    return checked_float(f"greedy: {key}", value, 0.0, closed=True)


class GreedyAgent:
    """``greedy``: deterministic one-ply heuristic (exact policy in the module docstring).

    Args:
        seed: accepted for the common factory signature (``None`` or an int ``0..2**128 - 1``)
            and ignored (no randomness).
        take: face-up rule, ``"meld"`` or ``"lower"``.
        lookahead: discard by the one-draw prospect (True) or by residual deadwood (False).
        residual_weight: weight of the residual deadwood in the lookahead score.
        danger_weight: weight of the danger in the lookahead score.
        knock_early: knock threshold at the deal (stock 31).
        knock_late: knock threshold when the stock is down to 2.
        behind_zone: "near the end of the game": the opponent is within this many points
            of the target.
        behind_gap: "far behind": at least this many points below the opponent.
        behind_bonus: added to the threshold when both hold (game mode only).

    The seven numbers are finite and ``>= 0`` (NaN and infinities are refused, by name).
    """

    def __init__(self, seed: Optional[int] = None, *, take: str = "meld", lookahead: bool = True,
                 residual_weight: float = 0.0, danger_weight: float = 5.0,
                 knock_early: float = 10, knock_late: float = 10,
                 behind_zone: float = 25, behind_gap: float = 25, behind_bonus: float = 10) -> None:
        if take not in TAKE_RULES:
            raise ValueError(f"greedy: take must be one of {TAKE_RULES}, got {take!r}")
        checked_seed(seed, "greedy: seed")
        self.name = "greedy"
        self.take, self.lookahead = take, checked_flag("greedy: lookahead", lookahead)
        self.residual_weight = _number("residual_weight", residual_weight)
        self.danger_weight = _number("danger_weight", danger_weight)
        self.knock_early = _number("knock_early", knock_early)
        self.knock_late = _number("knock_late", knock_late)
        self.behind_zone = _number("behind_zone", behind_zone)
        self.behind_gap = _number("behind_gap", behind_gap)
        self.behind_bonus = _number("behind_bonus", behind_bonus)
        self.policy = Policy(take == "meld", self.lookahead, self.residual_weight, self.danger_weight, self.knock_early,
                             self.knock_late, self.behind_zone, self.behind_gap, self.behind_bonus)
        self._policy = tuple(self.policy)

    def act(self, observation: Observation) -> int:
        return checked(decide(np.asarray(observation["observation"]), np.asarray(observation["action_mask"]),
                              LAYOUT_TUPLE, self._policy))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """:meth:`act` for every row of ``observations`` float32[N, OBS] and ``masks``
        int8[N, 108], in one compiled call."""
        return checked_batch(decide_many(observations, masks, LAYOUT_TUPLE, self._policy))

    def threshold(self, seen: Seen) -> float:
        """The knock threshold ``T`` of the module docstring for what a seat knows."""
        return threshold(seen, self.policy)

    def reset(self) -> None:
        pass



__all__ = ["GreedyAgent", "Policy", "choose", "decide", "decide_many", "threshold"]
