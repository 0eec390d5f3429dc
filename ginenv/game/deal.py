"""Where a hand starts: an explicit deal (R10) or a mid-hand position, validated.

:class:`Deal` and :class:`Position` hold cards as ints and check everything a caller can
get wrong (a :class:`~ginenv.game.checks.PositionError`, a ``ValueError``, saying what is wrong);
:class:`ginenv.game.hand.HandState` builds its state from them.  Both round-trip through a JSON
form with card texts (``Deal.from_cards(**deal.to_dict()) == deal``), which is what a hand's
log records.

>>> deal = Deal.from_deck(list(range(52)), dealer=0)
>>> Deal.from_cards(**deal.to_dict()) == deal
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ginenv.game.cards import CARD_TEXTS, CardLike, parse_card, plain_int
from ginenv.game.checks import PositionError, checked_flag
from ginenv.game.core import DISCARD, DRAW, OFFER, OVER, PHASE_NAMES, STOCK_LEFT_AT_DEAD_HAND
from ginenv.game.rules import MAX_TURNS

DECISION_PHASES = PHASE_NAMES[:OVER]
"""The phases a position may be in (a decision is pending)."""


def _dealt(deck: Sequence[CardLike], dealer: int) -> tuple[tuple[Sequence[CardLike], Sequence[CardLike]], CardLike,
                                                            Sequence[CardLike]]:
    """R10's order: ``(hands by seat, upcard, stock)`` of a deck (top first) dealt one card at a time
    from the non-dealer, then the upcard, then the stock."""
    first, second = deck[0:20:2], deck[1:20:2]
    return ((first, second) if dealer == 1 else (second, first)), deck[20], deck[21:]


@dataclass(frozen=True)
class Deal:
    """An explicit deal: ``hands[i]`` for seat i, the upcard, the stock top first."""

    dealer: int
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    upcard: int
    stock: tuple[int, ...]

    @classmethod
    def from_cards(cls, dealer: int, hands: Sequence[Sequence[CardLike]], upcard: CardLike,
                   stock: Sequence[CardLike]) -> "Deal":
        """Validate and build a deal; every problem is a :class:`~ginenv.game.checks.PositionError`
        saying what is wrong.

        >>> Deal.from_cards(0, [[0] * 10, []], 1, [])
        Traceback (most recent call last):
        ...
        ginenv.game.checks.PositionError: deal: hands[1] has 0 cards, expected 10
        """
        seat = plain_int(dealer)  # a plain int: numpy ints would break the JSON log
        if seat not in (0, 1):
            raise PositionError(f"deal: dealer must be 0 or 1, got {dealer!r}")
        if not _is_card_list(hands) or len(hands) != 2:
            raise PositionError("deal: hands must be a list of two hands")
        for index, hand in enumerate(hands):
            if not _is_card_list(hand):
                raise PositionError(f"deal: hands[{index}] must be a list of 10 cards, got {hand!r}")
            if len(hand) != 10:
                raise PositionError(f"deal: hands[{index}] has {len(hand)} cards, expected 10")
        if not _is_card_list(stock):
            raise PositionError(f"deal: stock must be a list of 31 cards, got {stock!r}")
        if len(stock) != 31:
            raise PositionError(f"deal: stock has {len(stock)} cards, expected 31")
        try:
            parsed = [[parse_card(c) for c in hand] for hand in hands]
            up = parse_card(upcard)
            rest = [parse_card(c) for c in stock]
        except ValueError as err:
            raise PositionError(f"deal: {err}") from None
        every = parsed[0] + parsed[1] + [up] + rest
        if len(set(every)) != 52:
            seen: set[int] = set()
            dupes = sorted({c for c in every if c in seen or seen.add(c)})  # type: ignore[func-returns-value]
            missing = sorted(set(range(52)) - set(every))
            raise PositionError("deal: not a permutation of the 52 cards; duplicated "
                                f"{_texts(dupes)}, missing {_texts(missing)}")
        return cls(seat, (tuple(parsed[0]), tuple(parsed[1])), up, tuple(rest))  # type: ignore[arg-type]

    @classmethod
    def from_deck(cls, deck: Sequence[int], dealer: int) -> "Deal":
        """Deal a shuffled deck (top first) as R10 says: one card at a time from the
        non-dealer, then the upcard, then the stock.

        >>> deal = Deal.from_deck(list(range(52)), dealer=0)
        >>> deal.hands[1][:3], deal.hands[0][:3], deal.upcard, deal.stock[0]
        ((0, 2, 4), (1, 3, 5), 20, 21)
        """
        if not _is_card_list(deck):
            raise PositionError(f"deal: the deck must be a list of 52 cards, got {deck!r}")
        if len(deck) != 52:
            raise PositionError(f"deal: the deck has {len(deck)} cards, expected 52")
        return cls.from_cards(dealer, *_dealt(deck, dealer))

    @classmethod
    def shuffled(cls, rng: Any, dealer: int) -> "Deal":
        """The deal of a deck shuffled by the ``numpy.random.Generator`` ``rng``
        (``rng.permutation(52)``), dealt as :meth:`from_deck` deals it; a permutation is a valid
        deck, so nothing is checked (the fast path of every random hand).

        >>> import numpy as np
        >>> deck = np.random.default_rng(5).permutation(52).tolist()
        >>> Deal.shuffled(np.random.default_rng(5), 1) == Deal.from_deck(deck, 1)
        True
        """
        hands, upcard, stock = _dealt(rng.permutation(52).tolist(), dealer)
        return cls(int(dealer), (tuple(hands[0]), tuple(hands[1])), upcard, tuple(stock))

    def to_dict(self) -> dict[str, Any]:
        """JSON form (card strings), accepted by :meth:`from_cards` via ``**``."""
        return {"dealer": self.dealer, "hands": [_texts(h) for h in self.hands],
                "upcard": CARD_TEXTS[self.upcard], "stock": _texts(self.stock)}


@dataclass(frozen=True)
class Position:
    """A mid-hand position (e.g. one determinization of what a seat knows, for search).

    Cards are ints; ``stock`` is top first, ``pile`` bottom first (its last card is the top
    discard); ``phase`` is a :mod:`ginenv.game.core` phase code; ``taken`` is -1 when no card was
    just taken from the pile; ``picked``, ``discarded`` and ``declined`` are per seat what
    the opponent saw it take (and still hold), discard face up and pass over, ascending;
    ``history`` holds ``(seat, card)`` face-up discards in order.
    """

    dealer: int
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    stock: tuple[int, ...]
    pile: tuple[int, ...]
    current_player: int
    phase: int
    first_upcard: int
    taken: int
    forced_draw: bool
    passes: int
    turns: int
    picked: tuple[tuple[int, ...], tuple[int, ...]]
    discarded: tuple[tuple[int, ...], tuple[int, ...]]
    declined: tuple[tuple[int, ...], tuple[int, ...]]
    history: tuple[tuple[int, int], ...]

    @classmethod
    def from_cards(cls, *, dealer: int, hands: Sequence[Sequence[CardLike]], stock: Sequence[CardLike],
                   pile: Sequence[CardLike], current_player: int, phase: str,
                   first_upcard: Optional[CardLike] = None, taken: Optional[CardLike] = None,
                   forced_draw: bool = False, passes: int = 0, turns: int = 0,
                   picked: Sequence[Sequence[CardLike]] = ((), ()),
                   discarded: Sequence[Sequence[CardLike]] = ((), ()),
                   declined: Sequence[Sequence[CardLike]] = ((), ()),
                   history: Sequence[tuple[int, CardLike]] = ()) -> "Position":
        """Validate and build a position from cards as text or ints and the public phase name
        (``"offer"``, ``"draw"`` or ``"discard"``).

        ``first_upcard`` defaults to the bottom of the pile.  The 52 cards must all be placed
        exactly once and the hand sizes must fit the phase, else
        :class:`~ginenv.game.checks.PositionError`.

        >>> Position.from_cards(dealer=0, hands=[list(range(10)), list(range(10, 20))],
        ...     stock=list(range(21, 52)), pile=[20], current_player=1, phase="discard")
        Traceback (most recent call last):
        ...
        ginenv.game.checks.PositionError: position: hand sizes [10, 10] do not fit phase 'discard' (expected [10, 11])
        """
        if phase not in DECISION_PHASES:
            raise PositionError(f"position: phase must be 'offer', 'draw' or 'discard', got {phase!r}")
        code = PHASE_NAMES.index(phase)
        seats = [plain_int(dealer), plain_int(current_player)]
        if any(seat not in (0, 1) for seat in seats):
            raise PositionError(f"position: dealer and current_player must be 0 or 1, "
                                f"got {dealer!r}, {current_player!r}")
        counts = [plain_int(passes), plain_int(turns)]
        if counts[0] not in (0, 1, 2) or counts[1] is None or not 0 <= counts[1] <= MAX_TURNS:
            raise PositionError(f"position: passes must be an int 0..2 and turns an int 0..{MAX_TURNS}, "
                                f"got {passes!r}, {turns!r}")
        try:
            forced = checked_flag("forced_draw", forced_draw)
            cards = [tuple(parse_card(c) for c in h) for h in hands]
            stock_cards = tuple(parse_card(c) for c in stock)
            pile_cards = tuple(parse_card(c) for c in pile)
            upcard = parse_card(first_upcard) if first_upcard is not None else (pile_cards or (None,))[0]
            taken_card = parse_card(taken) if taken is not None else -1
            history_cards = tuple((plain_int(who), parse_card(card)) for who, card in history)
            known = [_seat_cards(name, value) for name, value in
                     (("picked", picked), ("discarded", discarded), ("declined", declined))]
        except ValueError as err:
            raise PositionError(f"position: {err}") from None
        if len(cards) != 2 or sorted(cards[0] + cards[1] + stock_cards + pile_cards) != list(range(52)):
            raise PositionError("position: hands, stock and pile must hold each of the 52 cards exactly once")
        expected = [10, 10]
        if code == DISCARD:
            expected[seats[1]] = 11
        if [len(h) for h in cards] != expected:
            raise PositionError(f"position: hand sizes {[len(h) for h in cards]} do not fit phase {phase!r} "
                                f"(expected {expected})")
        if upcard is None or not pile_cards and code != DISCARD:
            raise PositionError("position: the discard pile is empty; give first_upcard")
        if taken_card >= 0 and (code != DISCARD or taken_card not in cards[seats[1]]):
            raise PositionError("position: taken must be a card in the hand of the player about to discard")
        if any(who not in (0, 1) for who, _ in history_cards):
            raise PositionError("position: history entries must be (seat 0 or 1, card)")
        problem = _flow_problem(code, *seats, *counts, forced, len(stock_cards), pile_cards,
                                upcard, len(history_cards))
        if problem:
            raise PositionError(f"position: {problem}")
        return cls(seats[0], (cards[0], cards[1]), stock_cards, pile_cards, seats[1],  # type: ignore[arg-type]
                   code, upcard, taken_card, forced, *counts, *known, history_cards)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        """JSON form (card strings, the phase name), accepted by :meth:`from_cards` via ``**``.

        >>> position = Position.from_cards(dealer=0, hands=[list(range(10)), list(range(10, 20))],
        ...     stock=list(range(21, 52)), pile=[20], current_player=1, phase="draw")
        >>> Position.from_cards(**position.to_dict()) == position, position.to_dict()["pile"]
        (True, ['8D'])
        """
        return {
            "dealer": self.dealer, "hands": [_texts(h) for h in self.hands], "stock": _texts(self.stock),
            "pile": _texts(self.pile), "current_player": self.current_player, "phase": PHASE_NAMES[self.phase],
            "first_upcard": CARD_TEXTS[self.first_upcard],
            "taken": CARD_TEXTS[self.taken] if self.taken >= 0 else None,
            "forced_draw": self.forced_draw, "passes": self.passes, "turns": self.turns,
            "picked": [_texts(cs) for cs in self.picked], "discarded": [_texts(cs) for cs in self.discarded],
            "declined": [_texts(cs) for cs in self.declined],
            "history": [[who, CARD_TEXTS[card]] for who, card in self.history]}


def _flow_problem(phase: int, dealer: int, current_player: int, passes: int, turns: int, forced_draw: bool,
                  stock_size: int, pile: tuple[int, ...], first_upcard: int, history_size: int) -> str:
    """What makes the pass count, phase, stock size and turn counters impossible under the
    rules (R11, R25), or ``""`` when the play can reach them.

    >>> _flow_problem(OFFER, 0, 1, 2, 0, False, 31, (20,), 20, 0)
    "in the offer passes must be 0 or 1 (the non-dealer's pass), got 2"
    """
    if phase == OFFER:
        if passes > 1:
            return f"in the offer passes must be 0 or 1 (the non-dealer's pass), got {passes}"
        if current_player != (1 - dealer if passes == 0 else dealer):
            return f"in the offer after {passes} pass(es) seat {1 - dealer if passes == 0 else dealer} is to act"
        if pile != (first_upcard,) or turns or history_size or forced_draw:
            return ("in the offer the pile holds only first_upcard, and turns, history and forced_draw "
                    "are empty (nothing was drawn yet)")
    if forced_draw and (phase == OFFER or turns != (phase == DISCARD) or pile != (first_upcard,)):
        return ("forced_draw (both passed the upcard, R11) needs the upcard alone on the pile and the forced "
                "draw next (phase 'draw', turns 0) or just made (phase 'discard', turns 1)")
    if phase == DRAW and stock_size <= STOCK_LEFT_AT_DEAD_HAND:
        return f"a draw needs more than {STOCK_LEFT_AT_DEAD_HAND} stock cards (R25), got {stock_size}"
    if phase == DISCARD and stock_size < STOCK_LEFT_AT_DEAD_HAND:
        return f"a discard needs at least {STOCK_LEFT_AT_DEAD_HAND} stock cards (R25), got {stock_size}"
    return ""


def _seat_cards(name: str, value: Sequence[Sequence[CardLike]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two seats' card collections as ascending, duplicate-free int tuples."""
    if not _is_card_list(value) or len(value) != 2:
        raise ValueError(f"{name} must hold two lists of cards, one per seat")
    first, second = (tuple(sorted({parse_card(c) for c in cards})) for cards in value)
    return first, second


def _is_card_list(value: Any) -> bool:
    """A sized, indexable collection of cards (not a string)."""
    return not isinstance(value, (str, bytes)) and hasattr(value, "__len__") and hasattr(value, "__getitem__")


def _texts(cards: Sequence[int]) -> list[str]:
    """Card ints as their texts."""
    return [CARD_TEXTS[c] for c in cards]
