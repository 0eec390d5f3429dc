"""Text rendering of a hand for ``render_mode="ansi"`` / ``"human"``.

>>> import numpy as np
>>> from ginenv.game.hand import HandState
>>> print(render_hand(HandState.random(np.random.default_rng(0))).splitlines()[0])
Gin Rummy (pagat) | to act: player_0 | dealer: player_1 | stock: 31 | top discard: TD
"""
from __future__ import annotations

from typing import Optional, Sequence

from ginenv.game.cards import CARD_TEXTS
from ginenv.game.hand import HandState
from ginenv.game.melds import mask_best_melds, meld_sort_key, ordered_cards

NAMES = ("player_0", "player_1")


def _cards(cards: Sequence[int]) -> str:
    return " ".join(CARD_TEXTS[c] for c in cards) or "-"


def arranged(mask: int) -> str:
    """A hand sorted into melds, then deadwood with its count.

    >>> from ginenv.game.melds import mask_of
    >>> arranged(mask_of(["7H", "8H", "9H", "KD", "2C"]))
    '[7H 8H 9H] | deadwood 2C KD = 12'
    """
    melds, dead = mask_best_melds(mask)
    parts = ["[" + _cards(ordered_cards(m)) + "]" for m in sorted(melds, key=meld_sort_key)]
    value = sum(min(c % 13 + 1, 10) for c in ordered_cards(dead))
    return (" ".join(parts) or "no melds") + f" | deadwood {_cards(ordered_cards(dead))} = {value}"


def render_hand(state: HandState, names: Sequence[str] = NAMES, scores: Optional[Sequence[int]] = None) -> str:
    """A readable table: whose turn, top discard, stock, the acting hand in melds;
    at hand end both hands, melds, layoffs and the score line."""
    top = CARD_TEXTS[state.pile[-1]] if state.pile else "-"
    to_act = names[state.current_player] if state.current_player is not None else "-"
    lines = [f"Gin Rummy ({state.ruleset.name}) | to act: {to_act} | dealer: {names[state.dealer]} | "
             f"stock: {len(state.stock)} | top discard: {top}"]
    if scores is not None:
        lines.append(f"scores: {names[0]} {scores[0]} - {names[1]} {scores[1]}")
    if state.current_player is not None:
        seat = state.current_player
        lines.append(f"phase: {state.phase} | knock limit: {state.knock_limit}")
        lines.append(f"{names[seat]} hand: {arranged(state.hands[seat])}")
        return "\n".join(lines)
    result = state.result
    if result is None:
        raise RuntimeError("a hand with no player to act must have a result")
    for seat in (0, 1):
        lines.append(f"{names[seat]} hand: {arranged(state.hands[seat])}")
    if result.knocker is not None:
        knocker, defender = result.knocker, 1 - result.knocker
        melds = " ".join("[" + _cards(m) + "]" for m in result.knocker_melds)
        lines.append(f"{names[knocker]} shows {melds} deadwood {result.knocker_deadwood}")
        melds = " ".join("[" + _cards(m) + "]" for m in result.defender_melds)
        lines.append(f"{names[defender]} shows {melds or '-'} lays off {_cards(result.layoffs)} "
                     f"deadwood {result.defender_deadwood}")
    if result.winner is None:
        lines.append("result: " + ("truncated by the turn limit" if result.truncated else "dead hand") + ", no score")
    else:
        lines.append(f"result: {result.outcome}, {names[result.winner]} scores {result.points}"
                     + (" (doubled: spade upcard)" if result.doubled else ""))
    return "\n".join(lines)
