"""How a hand ended: :class:`HandResult`, read from a row the core has ended.

:func:`hand_result` turns the end of a hand into its result: a dead hand (R25), one cut off
by the ``max_turns_per_hand`` safeguard, or the showdown of a knock, gin or big gin
(R17-R24, scored by the compiled :func:`ginenv.game.scoring.showdown`) with the arrangements
shown at the table, and which of the knocker's melds each laid-off card went onto.

>>> result = HandResult("gin", knocker=0, winner=0, points=45, knocker_melds=((0, 1, 2),))
>>> result.to_dict()["knocker_melds"], result.to_dict()["winner"]
([['AC', '2C', '3C']], 'player_0')
"""
from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass
from functools import reduce
from typing import Any, Optional, Sequence

import numpy as np

from ginenv.game import core
from ginenv.game.cards import CARD_TEXTS, cards_to_mask, mask_to_cards
from ginenv.game.melds import mask_best_melds, meld_sort_key, ordered_cards
from ginenv.game.rules import Ruleset
from ginenv.game.scoring import OUTCOMES, layoff_options, showdown

MAX_MELDS_SHOWN = 17
"""Room for the knocker's melds that :func:`ginenv.game.scoring.showdown` writes out."""


@dataclass(frozen=True)
class HandResult:
    """How a hand ended.  Seats are 0/1; cards are ints (see :meth:`to_dict`)."""

    outcome: str
    """``"knock"``, ``"gin"``, ``"big_gin"``, ``"undercut"`` or ``"dead"``."""
    knocker: Optional[int] = None
    winner: Optional[int] = None
    points: int = 0
    """Points scored by the winner (Oklahoma spade doubling included)."""
    knocker_deadwood: Optional[int] = None
    defender_deadwood: Optional[int] = None
    """After layoffs (none after gin)."""
    layoffs: tuple[int, ...] = ()
    knocker_melds: tuple[tuple[int, ...], ...] = ()
    defender_melds: tuple[tuple[int, ...], ...] = ()
    knocker_deadwood_cards: tuple[int, ...] = ()
    defender_deadwood_cards: tuple[int, ...] = ()
    knock_discard: Optional[int] = None
    doubled: bool = False
    """Oklahoma: a spade first upcard doubled the points."""
    truncated: bool = False
    """The ``max_turns_per_hand`` safeguard ended the hand."""

    @property
    def layoff_targets(self) -> tuple[tuple[int, Optional[int]], ...]:
        """Onto which of the knocker's melds each laid-off card went: ``(card, k)`` in the order of
        :attr:`layoffs`, ``k`` indexing :attr:`knocker_melds` (see :func:`layoff_targets`).

        >>> HandResult("knock", layoffs=(4, 38), knocker_melds=((1, 2, 3), (12, 25, 51))).layoff_targets  # 5C, KH
        ((4, 0), (38, 1))
        """
        return layoff_targets(self.knocker_melds, self.layoffs)

    def to_dict(self, names: Sequence[str] = ("player_0", "player_1")) -> dict[str, Any]:
        """The public-contract ``hand_result`` dict (agent names, card strings)."""
        def cards(cs: Sequence[int]) -> list[str]:
            return [CARD_TEXTS[c] for c in cs]
        return {
            "outcome": self.outcome,
            "knocker": None if self.knocker is None else names[self.knocker],
            "winner": None if self.winner is None else names[self.winner],
            "points": self.points,
            "knocker_deadwood": self.knocker_deadwood,
            "defender_deadwood": self.defender_deadwood,
            "layoffs": cards(self.layoffs),
            "layoff_targets": [[CARD_TEXTS[card], k] for card, k in self.layoff_targets],
            "knocker_melds": [cards(m) for m in self.knocker_melds],
            "defender_melds": [cards(m) for m in self.defender_melds],
            "knocker_deadwood_cards": cards(self.knocker_deadwood_cards),
            "defender_deadwood_cards": cards(self.defender_deadwood_cards),
            "knock_discard": None if self.knock_discard is None else CARD_TEXTS[self.knock_discard],
            "doubled": self.doubled,
            "truncated": self.truncated,
        }

    def to_state(self) -> dict[str, Any]:
        """Every field as plain data (tuples as lists); :meth:`from_state` inverts it.

        >>> result = HandResult("gin", knocker=0, winner=0, points=45, knocker_melds=((0, 1, 2),))
        >>> HandResult.from_state(result.to_state()) == result
        True
        """
        return {name: _lists(value) for name, value in vars(self).items()}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "HandResult":
        """Inverse of :meth:`to_state`."""
        return cls(**{name: _tuples(value) for name, value in state.items()})


def layoff_targets(melds: Sequence[Sequence[int]], layoffs: Sequence[int]) -> tuple[tuple[int, Optional[int]], ...]:
    """For each card of ``layoffs``, the index of the meld of ``melds`` it was laid off onto (R18):
    the first split of the layoffs into one legal layoff per meld, trying each meld's options in
    order with the last meld's varying fastest.  The showdown decides only which cards are laid
    off; where a card fits two melds (7H onto 4H5H6H or onto 7C7D7S) either way scores the same,
    and the first split found is given.  Layoffs that no split fits (a result built by hand) get
    ``None``.

    >>> run, sevens = (29, 30, 31), (6, 19, 45)            # 4H5H6H and 7C7D7S
    >>> layoff_targets([run, sevens], [32]), layoff_targets([run, sevens], [32, 33])   # 7H; 7H and 8H
    (((32, 1),), ((32, 0), (33, 0)))
    >>> layoff_targets([sevens], [33])
    ((33, None),)
    """
    laid = cards_to_mask(layoffs)
    if not laid:
        return ()
    options = [layoff_options(cards_to_mask(meld), laid) for meld in melds]
    for parts in itertools.product(*options):
        if sum(part.bit_count() for part in parts) == laid.bit_count() and reduce(operator.or_, parts, 0) == laid:
            owner = {card: k for k, part in enumerate(parts) for card in mask_to_cards(part)}
            return tuple((card, owner[card]) for card in layoffs)
    return tuple((card, None) for card in layoffs)


def hand_result(row: np.ndarray, ruleset: Ruleset) -> HandResult:
    """The result of a hand the core has just ended (``row[ENDED]`` set): dead, truncated,
    or the showdown of a knock / gin / big gin.

    >>> import numpy as np
    >>> from ginenv.game.hand import HandState
    >>> hand = HandState.random(np.random.default_rng(0))
    >>> while not hand.is_over:
    ...     hand.apply_action(hand.legal_actions()[0])
    >>> hand_result(hand.row, hand.ruleset) == hand.result
    True
    """
    ended = row[core.ENDED]
    if ended == core.ENDED_DEAD:
        return HandResult("dead")  # R25
    if ended == core.ENDED_TRUNCATED:
        return HandResult("dead", truncated=True)
    return _showdown(row, ruleset)


def _showdown(row: np.ndarray, rules: Ruleset) -> HandResult:
    """The result of a knock, gin or big gin, with the arrangements shown at the table."""
    melds_out = np.empty(MAX_MELDS_SHOWN, dtype=np.int64)
    outcome, winner, points, knocker_dw, defender_dw, laid, count = showdown(
        row, rules.gin_bonus, rules.big_gin_bonus, rules.undercut_bonus, melds_out)
    knocker = int(row[core.KNOCKER])
    hand, other = int(row[core.HAND + knocker]), int(row[core.HAND + 1 - knocker])
    melds = melds_out[:count].tolist() if count else mask_best_melds(hand)[0]
    def_melds, def_dead = mask_best_melds(other & ~laid)
    dead = hand
    for meld in melds:
        dead &= ~meld
    knock_discard = int(row[core.KNOCK_DISCARD])
    return HandResult(
        outcome=OUTCOMES[outcome], knocker=knocker, winner=winner, points=points,
        knocker_deadwood=knocker_dw, defender_deadwood=defender_dw,
        layoffs=tuple(ordered_cards(laid)),
        knocker_melds=_meld_tuples(melds), defender_melds=_meld_tuples(def_melds),
        knocker_deadwood_cards=tuple(ordered_cards(dead)),
        defender_deadwood_cards=tuple(ordered_cards(def_dead)),
        knock_discard=knock_discard if knock_discard >= 0 else None, doubled=bool(row[core.DOUBLED]))


def _lists(value: Any) -> Any:
    """Tuples (nested too) as lists."""
    return [_lists(v) for v in value] if isinstance(value, tuple) else value


def _tuples(value: Any) -> Any:
    """Lists (nested too) as tuples."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _meld_tuples(melds: list[int]) -> tuple[tuple[int, ...], ...]:
    """Meld masks as card tuples, in the order melds are shown."""
    return tuple(tuple(ordered_cards(m)) for m in sorted(melds, key=meld_sort_key))
