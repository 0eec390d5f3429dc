"""Deal-building helpers for tests: exact positions through deal injection.

``make_deal`` returns the public-contract deal dict (DESIGN.md), usable as
``HandState.from_deal(**deal)``, ``Deal.from_cards(**deal)`` or
``env.reset(options={"deal": deal})``.  Cards are given as text (``"7H"``, a list
or one space-separated string) or ints; the dict holds ints.

>>> deal = make_deal(0, "AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "AD 2D 3D 4D 5D 6D 7D 8D 9D TD",
...                  "KS", stock_top="QS JS")
>>> deal["stock"][:3], len(deal["stock"])
([50, 49, 10], 31)
"""
from __future__ import annotations

from typing import Any, Iterable, Union

import numpy as np

from ginenv import HandState
from ginenv.game.cards import parse_card

Cards = Union[str, Iterable[Union[int, str]]]


def cards(spec: Cards) -> list[int]:
    """Card ints from a space-separated string or an iterable of cards.

    >>> cards("AC TS 10h"), cards([0, "KS"])
    ([0, 48, 35], [0, 51])
    """
    items = spec.split() if isinstance(spec, str) else list(spec)
    return [parse_card(c) for c in items]


def make_deal(dealer: int, hand0: Cards, hand1: Cards, upcard: Union[int, str],
              stock_top: Cards = ()) -> dict[str, Any]:
    """A full deal: seat 0 holds ``hand0``, seat 1 ``hand1``; the stock starts with
    ``stock_top`` (first = drawn first) and goes on with every other card in
    ascending int order (deterministic).  Nothing is validated here beyond parsing:
    ``Deal.from_cards`` does the checking, so broken deals can be built on purpose.
    """
    h0, h1, top = cards(hand0), cards(hand1), cards(stock_top)
    up = parse_card(upcard)
    used = set(h0) | set(h1) | {up} | set(top)
    rest = [c for c in range(52) if c not in used]
    return {"dealer": dealer, "hands": [h0, h1], "upcard": up, "stock": top + rest}


def make_hand(dealer: int, hand0: Cards, hand1: Cards, upcard: Union[int, str],
              stock_top: Cards = (), ruleset: Any = None) -> HandState:
    """``HandState.from_deal`` of :func:`make_deal` (``ruleset`` name, Ruleset or None)."""
    return HandState.from_deal(**make_deal(dealer, hand0, hand1, upcard, stock_top), ruleset=ruleset)


def random_legal(rng: "np.random.Generator", masks: "np.ndarray") -> "np.ndarray":
    """One uniformly random legal action per row of a batch of action masks."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)
