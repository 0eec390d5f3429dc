"""Brute-force meld reference for the tests, written from the rules (docs/rules.md) alone.

Nothing here imports ``ginenv``: the card numbering is the public contract's
(``card = suit * 13 + rank``, suits C D H S, ranks A=0 .. K=12) and the rules are
R3-R7 read literally.  Speed comes only from enumerating *candidate melds* first
(every set and every run the hand contains) and then trying every family of
pairwise-disjoint candidates; no tables, no cleverness.

Two independent oracles:

* :func:`ref_deadwood` / :func:`ref_best` -- every family of disjoint candidate
  melds (fast enough for the 100,000-hand sweep);
* :func:`partition_deadwood` -- every way to carve the hand into valid melds and
  dead cards, testing each carved group with :func:`is_valid_meld` (exponential;
  used on small hands to check the first oracle).

>>> ref_deadwood([card(t) for t in ["7H", "8H", "9H", "7S", "7C"]])   # R6: 7S+7C dead
14
>>> ref_deadwood([card(t) for t in ["QH", "KH", "AH"]])                 # R5: not a run
21
"""
from __future__ import annotations

from itertools import combinations
from typing import Iterable

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"


def rank(card: int) -> int:
    """0 (ace) .. 12 (king)."""
    return card % 13


def suit(card: int) -> int:
    """0..3 = C, D, H, S."""
    return card // 13


def value(card: int) -> int:
    """R3: ace 1, two..ten face value, J Q K 10."""
    return (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)[rank(card)]


def text(card: int) -> str:
    return RANK_CHARS[rank(card)] + SUIT_CHARS[suit(card)]


def card(text_form: str) -> int:
    """Card int of a canonical two-character text such as ``"7H"`` or ``"TS"``."""
    return SUIT_CHARS.index(text_form[1]) * 13 + RANK_CHARS.index(text_form[0])


def mask(cards: Iterable[int]) -> int:
    """52-bit mask: bit ``c`` set for card ``c``."""
    return sum(1 << c for c in set(cards))


def is_valid_meld(cards: Iterable[int]) -> bool:
    """R4/R5: 3-4 cards of one rank, or 3+ cards of one suit with consecutive ranks
    (ace low, no wrap-around: ranks are compared as 0..12 integers).

    >>> is_valid_meld([0, 1, 2]), is_valid_meld([11, 12, 0]), is_valid_meld([12, 0, 1])
    (True, False, False)
    """
    cards = list(cards)
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    if len({rank(c) for c in cards}) == 1:
        return len(cards) <= 4
    if len({suit(c) for c in cards}) != 1:
        return False
    ranks = sorted(rank(c) for c in cards)
    return all(b == a + 1 for a, b in zip(ranks, ranks[1:]))


def candidate_melds(cards: Iterable[int]) -> list[frozenset[int]]:
    """Every meld contained in the hand: each 3- and 4-subset of a rank, and each
    window of 3+ consecutive held ranks of a suit."""
    hand = set(cards)
    melds: list[frozenset[int]] = []
    by_rank: dict[int, list[int]] = {}
    for c in hand:
        by_rank.setdefault(rank(c), []).append(c)
    for same in by_rank.values():
        for size in (3, 4):
            melds.extend(frozenset(group) for group in combinations(same, size))
    for s in range(4):
        for low in range(13):
            run = []
            for r in range(low, 13):
                if s * 13 + r not in hand:
                    break
                run.append(s * 13 + r)
                if len(run) >= 3:
                    melds.append(frozenset(run))
    return melds


def _families(cards: list[int]):
    """Yield ``(melds, melded_value)`` for every family of pairwise-disjoint
    candidate melds (including the empty family)."""
    melds = candidate_melds(cards)
    values = [sum(value(c) for c in m) for m in melds]

    def search(start: int, used: frozenset, chosen: list, melded: int):
        yield chosen, melded
        for i in range(start, len(melds)):
            if used.isdisjoint(melds[i]):
                chosen.append(melds[i])
                yield from search(i + 1, used | melds[i], chosen, melded + values[i])
                chosen.pop()

    yield from search(0, frozenset(), [], 0)


def ref_deadwood(cards: Iterable[int]) -> int:
    """R7: least total value of the cards left out of every disjoint meld family."""
    cards = list(cards)
    total = sum(value(c) for c in cards)
    return total - max(melded for _, melded in _families(cards))


def ref_best_arrangements(cards: Iterable[int]) -> set[frozenset[frozenset[int]]]:
    """Every meld family reaching the least deadwood (as frozensets, order-free)."""
    cards = list(cards)
    best = max(melded for _, melded in _families(cards))
    return {frozenset(chosen) for chosen, melded in _families(cards) if melded == best}


def partition_deadwood(cards: Iterable[int]) -> int:
    """Second oracle: carve the hand into groups; the group of the first remaining
    card is either that card alone (dead) or any subset of the rest that forms a
    valid meld with it.  Exponential -- small hands only (<= 8 cards).

    >>> partition_deadwood([0, 1, 2, 12])   # AC 2C 3C KC
    10
    """
    cards = sorted(cards)

    def solve(rest: tuple[int, ...]) -> int:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        best = value(first) + solve(others)
        for size in range(2, len(others) + 1):
            for mates in combinations(others, size):
                if is_valid_meld((first, *mates)):
                    left = tuple(c for c in others if c not in mates)
                    best = min(best, solve(left))
        return best

    return solve(tuple(cards))
