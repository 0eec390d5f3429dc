"""One hand of Gin Rummy as a state machine (R9-R25).

>>> import numpy as np
>>> hand = HandState.random(np.random.default_rng(0))
>>> hand.phase, hand.current_player == 1 - hand.dealer, hand.legal_actions()
('offer', True, [1, 2])
>>> hand.apply_action(2); hand.apply_action(2); hand.legal_actions()   # both pass (R11)
[0]
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from operator import index as as_index
from typing import Any, Optional, Sequence

import numpy as np

from .actions import (BIG_GIN, DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS, TAKE_DISCARD,
                      IllegalActionError, action_text)
from .cards import CARD_TEXTS, CARD_VALUES, CardLike, mask_to_cards, parse_card, suit_of
from . import core
from .melds import mask_best_melds, mask_deadwood, meld_sort_key, ordered_cards
from .rules import Ruleset, resolve_ruleset
from .scoring import OUTCOMES, showdown

OFFER, DRAW, DISCARD, OVER = "offer", "draw", "discard", "over"
SPADES = 3
MAX_MELDS_SHOWN = 17


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
        """Validate and build a deal; every problem is a ``ValueError`` saying what is wrong.

        >>> Deal.from_cards(0, [[0] * 10, []], 1, [])
        Traceback (most recent call last):
        ...
        ValueError: deal: hands[1] has 0 cards, expected 10
        """
        seat_id = _int_or_none(dealer)  # a plain int: numpy ints would break the JSON log
        if seat_id not in (0, 1):
            raise ValueError(f"deal: dealer must be 0 or 1, got {dealer!r}")
        dealer = seat_id  # type: ignore[assignment]
        if not _is_card_list(hands) or len(hands) != 2:
            raise ValueError("deal: hands must be a list of two hands")
        for seat, hand in enumerate(hands):
            if not _is_card_list(hand):
                raise ValueError(f"deal: hands[{seat}] must be a list of 10 cards, got {hand!r}")
            if len(hand) != 10:
                raise ValueError(f"deal: hands[{seat}] has {len(hand)} cards, expected 10")
        if not _is_card_list(stock):
            raise ValueError(f"deal: stock must be a list of 31 cards, got {stock!r}")
        if len(stock) != 31:
            raise ValueError(f"deal: stock has {len(stock)} cards, expected 31")
        try:
            parsed = [[parse_card(c) for c in hand] for hand in hands]
            up = parse_card(upcard)
            rest = [parse_card(c) for c in stock]
        except ValueError as err:
            raise ValueError(f"deal: {err}") from None
        every = parsed[0] + parsed[1] + [up] + rest
        if len(set(every)) != 52:
            seen: set[int] = set()
            dupes = sorted({c for c in every if c in seen or seen.add(c)})  # type: ignore[func-returns-value]
            missing = sorted(set(range(52)) - set(every))
            raise ValueError("deal: not a permutation of the 52 cards; duplicated "
                             f"{[CARD_TEXTS[c] for c in dupes]}, missing {[CARD_TEXTS[c] for c in missing]}")
        return cls(dealer, (tuple(parsed[0]), tuple(parsed[1])), up, tuple(rest))

    @classmethod
    def from_deck(cls, deck: Sequence[int], dealer: int) -> "Deal":
        """Deal a shuffled deck (top first) as R10 says: one card at a time from the
        non-dealer, then the upcard, then the stock.

        >>> deal = Deal.from_deck(list(range(52)), dealer=0)
        >>> deal.hands[1][:3], deal.hands[0][:3], deal.upcard, deal.stock[0]
        ((0, 2, 4), (1, 3, 5), 20, 21)
        """
        if not _is_card_list(deck):
            raise ValueError(f"deal: the deck must be a list of 52 cards, got {deck!r}")
        if len(deck) != 52:
            raise ValueError(f"deal: the deck has {len(deck)} cards, expected 52")
        first, second = deck[0:20:2], deck[1:20:2]
        hands = (first, second) if dealer == 1 else (second, first)
        return cls.from_cards(dealer, hands, deck[20], deck[21:])

    def to_dict(self) -> dict[str, Any]:
        """JSON form (card strings), accepted by :meth:`from_cards` via ``**``."""
        return {"dealer": self.dealer, "hands": [[CARD_TEXTS[c] for c in h] for h in self.hands],
                "upcard": CARD_TEXTS[self.upcard], "stock": [CARD_TEXTS[c] for c in self.stock]}


def _field(index: int, doc: str, kind: type = int, settable: bool = False) -> property:
    """A property reading (and optionally writing) one header field of the state's core row."""
    def get(self: "HandState") -> Any:
        return kind(self.row[index])

    def put(self: "HandState", value: Any) -> None:
        self.row[index] = value

    return property(get, put if settable else None, doc=doc)


def _pair(index: int, doc: str) -> property:
    """A property giving the two per-seat masks at ``index`` as a list ``[seat 0, seat 1]``."""
    return property(lambda self: self.row[index:index + 2].tolist(), doc=doc)


class HandState:
    """The full (true) state of one hand; only the engine and the env see it.

    The state lives in one int64 row of the compiled core (:mod:`ginenv.core`, which
    also does the transitions); the attributes below read it.  Hands are 52-bit card
    masks.  The stock and pile are lists with the top card at the end.  Per seat the
    state also tracks what the *opponent* knows of it: ``picked[s]`` cards seat s took
    from the pile and still holds, ``discarded[s]`` cards it discarded face up,
    ``declined[s]`` upcards/discards it passed over.
    """

    __slots__ = ("ruleset", "deal", "position", "row", "result")

    dealer = _field(core.DEALER, "Seat that dealt this hand.")
    passes = _field(core.PASSES, "Passes on the first upcard so far (R11).")
    forced_draw = _field(core.FORCED, "Both passed the upcard: the non-dealer must draw from the stock.", bool)
    taken = _field(core.TAKEN, "Card just taken from the pile (may not be discarded, R12), else -1.")
    knock_limit = _field(core.KNOCK_LIMIT, "This hand's knock limit.", int, settable=True)
    doubled = _field(core.DOUBLED, "Oklahoma: a spade first upcard doubles the points.", bool, settable=True)
    turns = _field(core.TURNS, "Draws so far this hand.")
    hands = _pair(core.HAND, "Card masks of both seats.")
    picked = _pair(core.PICKED, "Per seat: cards it took from the pile and still holds.")
    discarded = _pair(core.DISCARDED, "Per seat: cards it discarded face up.")
    declined = _pair(core.DECLINED, "Per seat: upcards / pile tops it passed over.")

    def __init__(self, deal: Deal, ruleset: Ruleset | str | None = None) -> None:
        self.ruleset = resolve_ruleset(ruleset)
        self.deal: Optional[Deal] = deal
        self.position: Optional[dict[str, Any]] = None
        self.result: Optional[HandResult] = None
        row = self.row = core.new_row(*core.capacities(self.ruleset.max_turns_per_hand))
        row[core.DEALER] = deal.dealer
        row[core.HAND] = sum(1 << c for c in deal.hands[0])
        row[core.HAND + 1] = sum(1 << c for c in deal.hands[1])
        row[core.STOCK:core.STOCK + 31] = deal.stock[::-1]
        row[core.STOCK_LEN] = 31
        row[core.PILE], row[core.PILE_LEN] = deal.upcard, 1
        row[core.PHASE], row[core.CURRENT] = core.OFFER, 1 - deal.dealer
        self._set_first_upcard(deal.upcard)

    def _set_first_upcard(self, upcard: int) -> None:
        """The knock limit (Oklahoma: the upcard's value) and spade doubling of this hand."""
        limit = self.ruleset.knock_limit
        if limit == "upcard":
            value = CARD_VALUES[upcard]
            limit = 0 if value == 1 else value
        self.row[core.KNOCK_LIMIT] = limit
        self.row[core.DOUBLED] = self.ruleset.spade_double and suit_of(upcard) == SPADES

    # ----- construction -------------------------------------------------
    @classmethod
    def random(cls, rng: Any, ruleset: Ruleset | str | None = None, dealer: Optional[int] = None) -> "HandState":
        """A freshly shuffled hand from a ``numpy.random.Generator``; dealer random if None."""
        if dealer is None:
            dealer = int(rng.integers(2))
        return cls(Deal.from_deck(rng.permutation(52).tolist(), dealer), ruleset)

    @classmethod
    def from_deal(cls, dealer: int, hands: Sequence[Sequence[CardLike]], upcard: CardLike,
                  stock: Sequence[CardLike], ruleset: Ruleset | str | None = None) -> "HandState":
        """A hand from an explicit deal (validated, see :class:`Deal`)."""
        return cls(Deal.from_cards(dealer, hands, upcard, stock), ruleset)

    @classmethod
    def from_position(cls, *, dealer: int, hands: Sequence[Sequence[CardLike]], stock: Sequence[CardLike],
                      pile: Sequence[CardLike], current_player: int, phase: str,
                      ruleset: Ruleset | str | None = None, first_upcard: Optional[CardLike] = None,
                      taken: Optional[CardLike] = None, forced_draw: bool = False, passes: int = 0,
                      turns: int = 0, picked: Sequence[Sequence[CardLike]] = ((), ()),
                      discarded: Sequence[Sequence[CardLike]] = ((), ()),
                      declined: Sequence[Sequence[CardLike]] = ((), ()),
                      history: Sequence[tuple[int, CardLike]] = ()) -> "HandState":
        """A mid-hand state (e.g. one determinization of what a seat knows, for search).

        ``stock`` is top first, ``pile`` bottom first (its last card is the top discard).
        ``first_upcard`` (default: the bottom of the pile) sets the Oklahoma knock limit
        and spade doubling.  The 52 cards must all be placed exactly once and the hand
        sizes must fit the phase, else ``ValueError``.  Such a state has no deal: its
        :meth:`log` records the position instead, and :meth:`replay` accepts that.

        >>> state = HandState.from_position(dealer=0, hands=[list(range(10)), list(range(10, 20))],
        ...     stock=list(range(21, 52)), pile=[20], current_player=1, phase="draw")
        >>> state.legal_actions()
        [0, 1]
        """
        if phase not in (OFFER, DRAW, DISCARD):
            raise ValueError(f"position: phase must be 'offer', 'draw' or 'discard', got {phase!r}")
        if current_player not in (0, 1) or dealer not in (0, 1):
            raise ValueError("position: dealer and current_player must be 0 or 1")
        try:
            cards = [[parse_card(c) for c in h] for h in hands]
            stock_cards = [parse_card(c) for c in stock]
            pile_cards = [parse_card(c) for c in pile]
            upcard = parse_card(first_upcard) if first_upcard is not None else (pile_cards or [None])[0]
            taken_card = parse_card(taken) if taken is not None else -1
            history_cards = [(int(who), parse_card(card)) for who, card in history]
        except ValueError as err:
            raise ValueError(f"position: {err}") from None
        placed = cards[0] + cards[1] + stock_cards + pile_cards
        if len(cards) != 2 or sorted(placed) != list(range(52)):
            raise ValueError("position: hands, stock and pile must hold each of the 52 cards exactly once")
        expected = [10, 10]
        if phase == DISCARD:
            expected[current_player] = 11
        if [len(h) for h in cards] != expected:
            raise ValueError(f"position: hand sizes {[len(h) for h in cards]} do not fit phase {phase!r} "
                             f"(expected {expected})")
        if upcard is None or not pile_cards and phase != DISCARD:
            raise ValueError("position: the discard pile is empty; give first_upcard")
        if len(stock_cards) <= core.STOCK_LEFT_AT_DEAD_HAND and phase == DRAW:
            raise ValueError("position: a draw needs more than two stock cards (R25)")
        if taken_card >= 0 and (phase != DISCARD or taken_card not in cards[current_player]):
            raise ValueError("position: taken must be a card in the hand of the player about to discard")
        if any(who not in (0, 1) for who, _ in history_cards):
            raise ValueError("position: history entries must be (seat 0 or 1, card)")
        state = cls.__new__(cls)
        state.ruleset = resolve_ruleset(ruleset)
        state.deal, state.result = None, None
        turns_left = max(0, state.ruleset.max_turns_per_hand - turns)
        history_room, events_room = core.capacities(turns_left + 1)
        row = state.row = core.new_row(len(history_cards) + history_room, events_room)
        row[core.DEALER], row[core.CURRENT], row[core.PHASE] = dealer, current_player, _PHASE_CODES[phase]
        for seat in (0, 1):
            row[core.HAND + seat] = sum(1 << c for c in cards[seat])
            row[core.PICKED + seat] = sum(1 << parse_card(c) for c in picked[seat])
            row[core.DISCARDED + seat] = sum(1 << parse_card(c) for c in discarded[seat])
            row[core.DECLINED + seat] = sum(1 << parse_card(c) for c in declined[seat])
        row[core.STOCK:core.STOCK + len(stock_cards)] = stock_cards[::-1]
        row[core.STOCK_LEN] = len(stock_cards)
        row[core.PILE:core.PILE + len(pile_cards)] = pile_cards
        row[core.PILE_LEN] = len(pile_cards)
        row[core.HISTORY:core.HISTORY + len(history_cards)] = [who * 64 + card for who, card in history_cards]
        row[core.HISTORY_LEN] = len(history_cards)
        row[core.PASSES], row[core.FORCED], row[core.TAKEN], row[core.TURNS] = passes, bool(forced_draw), taken_card, turns
        state._set_first_upcard(upcard)
        texts = lambda cs: [CARD_TEXTS[c] for c in cs]  # noqa: E731
        state.position = {
            "dealer": dealer, "hands": [texts(h) for h in cards], "stock": texts(stock_cards),
            "pile": texts(pile_cards), "current_player": current_player, "phase": phase,
            "first_upcard": CARD_TEXTS[upcard], "taken": CARD_TEXTS[taken_card] if taken_card >= 0 else None,
            "forced_draw": state.forced_draw, "passes": passes, "turns": turns,
            "picked": [texts(mask_to_cards(m)) for m in state.picked],
            "discarded": [texts(mask_to_cards(m)) for m in state.discarded],
            "declined": [texts(mask_to_cards(m)) for m in state.declined],
            "history": [[who, CARD_TEXTS[card]] for who, card in history_cards]}
        return state

    def clone(self) -> "HandState":
        """An independent copy."""
        other = HandState.__new__(HandState)
        other.ruleset, other.deal, other.position, other.result = self.ruleset, self.deal, self.position, self.result
        other.row = self.row.copy()
        return other

    def move_to(self, out: np.ndarray) -> None:
        """Keep this state's row in ``out`` from now on (e.g. a row of a batch array, see
        :mod:`ginenv.vector`); ``out`` must have the row's length."""
        out[:] = self.row
        self.row = out

    def to_state(self) -> dict[str, Any]:
        """This exact state as plain data (dicts, lists, ints, strs; e.g. for a checkpoint).
        Unlike :meth:`log` it keeps the core row as it is, so :meth:`from_state` needs no replay.

        >>> import numpy as np
        >>> hand = HandState.random(np.random.default_rng(0))
        >>> hand.apply_action(2)
        >>> HandState.from_state(hand.to_state()) == hand
        True
        """
        return {"ruleset": self.ruleset.to_dict(), "deal": None if self.deal is None else self.deal.to_dict(),
                "position": copy.deepcopy(self.position), "width": len(self.row), "row": np.trim_zeros(self.row, "b").tolist()}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "HandState":
        """Inverse of :meth:`to_state` (a finished hand is scored again from its row)."""
        hand = cls.__new__(cls)
        hand.ruleset = Ruleset.from_dict(state["ruleset"])
        hand.deal = None if state["deal"] is None else Deal.from_cards(**state["deal"])
        hand.position, hand.result = copy.deepcopy(state["position"]), None
        hand.row = np.zeros(state["width"], dtype=np.int64)
        hand.row[:len(state["row"])] = state["row"]
        if hand.is_over:
            hand.settle()
        return hand

    # ----- queries ------------------------------------------------------
    @property
    def phase(self) -> str:
        """``"offer"``, ``"draw"``, ``"discard"`` or ``"over"``."""
        return _PHASE_NAMES[self.row[core.PHASE]]

    @property
    def current_player(self) -> Optional[int]:
        """Seat to act; ``None`` once the hand is over."""
        seat = int(self.row[core.CURRENT])
        return None if seat < 0 else seat

    @property
    def stock(self) -> list[int]:
        """The stock, top card last."""
        return self.row[core.STOCK:core.STOCK + self.row[core.STOCK_LEN]].tolist()

    @property
    def pile(self) -> list[int]:
        """The discard pile, top card last."""
        return self.row[core.PILE:core.PILE + self.row[core.PILE_LEN]].tolist()

    @property
    def history(self) -> list[tuple[int, int]]:
        """Face-up discards in order: ``(seat, card)``."""
        entries = self.row[core.HISTORY:core.HISTORY + self.row[core.HISTORY_LEN]].tolist()
        return [(entry >> 6, entry & 63) for entry in entries]

    @property
    def events(self) -> list[dict[str, Any]]:
        """Actions so far: ``{"player", "action"}`` plus ``"card"`` for the card drawn."""
        start = int(self.row[core.EVENTS_AT])
        out = []
        for entry in self.row[start:start + self.row[core.EVENTS_LEN]].tolist():
            event = {"player": entry & 1, "action": entry >> 1 & 127}
            if entry >> 8:
                event["card"] = (entry >> 8) - 1
            out.append(event)
        return out

    @property
    def is_over(self) -> bool:
        return self.row[core.PHASE] == core.OVER

    @property
    def top_discard(self) -> Optional[int]:
        count = self.row[core.PILE_LEN]
        return int(self.row[core.PILE + count - 1]) if count else None

    def hand_cards(self, seat: int) -> list[int]:
        """Cards of a seat, ascending ints."""
        return mask_to_cards(int(self.row[core.HAND + seat]))

    def legal_actions(self) -> list[int]:
        """Legal action ids, ascending (empty when the hand is over)."""
        return mask_to_cards(self.legal_action_bits())  # the indices of the set bits

    def legal_action_bits(self) -> int:
        """The legal action ids as one int: bit ``a`` is set when action ``a`` is legal.

        >>> import numpy as np
        >>> bin(HandState.random(np.random.default_rng(0)).legal_action_bits())   # take or pass
        '0b110'
        """
        low, knocks = core.legal_words(self.row, self.ruleset.big_gin)
        return low | knocks << KNOCK_BASE

    def is_legal(self, action: Any) -> bool:
        """Whether ``action`` is legal now (never raises)."""
        action_id = _int_or_none(action)
        return action_id is not None and 0 <= action_id < NUM_ACTIONS and bool(self.legal_action_bits() >> action_id & 1)

    def _why_illegal(self, action: Any) -> str:
        """Why an illegal action is illegal, in words."""
        action = _int_or_none(action)
        if action is None:
            return "an action id must be an int"
        if not 0 <= action < NUM_ACTIONS:
            return f"action ids are 0..{NUM_ACTIONS - 1}"
        phase = self.phase
        if phase == OVER:
            return "the hand is over"
        if phase == OFFER:
            return "the upcard offer allows only take (1) or pass (2)"
        if phase == DRAW:
            if action == TAKE_DISCARD:
                return "both players passed the upcard: the non-dealer must draw from the stock"
            return "draw first: stock (0) or discard pile (1)"
        hand = self.hands[self.current_player]  # type: ignore[index]
        if action < DISCARD_BASE:
            return "a card was drawn already: discard or knock"
        if action == BIG_GIN:
            if not self.ruleset.big_gin:
                return f"big gin is not allowed in ruleset {self.ruleset.name!r}"
            return "big gin needs all 11 cards melded"
        card = action - (DISCARD_BASE if action < KNOCK_BASE else KNOCK_BASE)
        if not hand >> card & 1:
            return f"{CARD_TEXTS[card]} is not in the hand"
        if card == self.taken:
            return f"{CARD_TEXTS[card]} was just taken from the discard pile (R12)"
        left = mask_deadwood(hand & ~(1 << card))
        return f"deadwood after the discard would be {left}, above the knock limit {self.knock_limit}"

    # ----- transitions --------------------------------------------------
    def apply_action(self, action: int) -> None:
        """Apply a legal action; an illegal one raises :class:`IllegalActionError` and
        leaves the state unchanged."""
        if not self.is_legal(action):
            action_id = _int_or_none(action)
            valid = action_id is not None and 0 <= action_id < NUM_ACTIONS
            name = action_text(action_id) if valid else "not an action id"  # type: ignore[arg-type]
            raise IllegalActionError(f"illegal action {action!r} ({name}) in phase {self.phase!r}: "
                                     f"{self._why_illegal(action)}")
        if core.apply(self.row, as_index(action), self.ruleset.max_turns_per_hand):
            self.settle()

    def settle(self) -> None:
        """Score a hand the core has just ended (``row[ENDED]``): dead, truncated, or the
        showdown of a knock / gin / big gin (R17-R24, :func:`ginenv.scoring.showdown`)."""
        ended = self.row[core.ENDED]
        if ended == core.ENDED_DEAD:
            self.result = HandResult("dead")  # R25
        elif ended == core.ENDED_TRUNCATED:
            self.result = HandResult("dead", truncated=True)
        else:
            self.result = self._showdown()

    def _showdown(self) -> HandResult:
        """The result of a knock, gin or big gin, with the arrangements shown at the table."""
        rules = self.ruleset
        melds_out = np.empty(MAX_MELDS_SHOWN, dtype=np.int64)
        outcome, winner, points, knocker_dw, defender_dw, laid, count = showdown(
            self.row, rules.gin_bonus, rules.big_gin_bonus, rules.undercut_bonus, melds_out)
        knocker = int(self.row[core.KNOCKER])
        hand, other = self.hands[knocker], self.hands[1 - knocker]
        melds = melds_out[:count].tolist() if count else mask_best_melds(hand)[0]
        def_melds, def_dead = mask_best_melds(other & ~laid)
        dead = hand
        for meld in melds:
            dead &= ~meld
        knock_discard = int(self.row[core.KNOCK_DISCARD])
        return HandResult(
            outcome=OUTCOMES[outcome], knocker=knocker, winner=winner, points=points,
            knocker_deadwood=knocker_dw, defender_deadwood=defender_dw,
            layoffs=tuple(ordered_cards(laid)),
            knocker_melds=_meld_tuples(melds), defender_melds=_meld_tuples(def_melds),
            knocker_deadwood_cards=tuple(ordered_cards(dead)),
            defender_deadwood_cards=tuple(ordered_cards(def_dead)),
            knock_discard=knock_discard if knock_discard >= 0 else None, doubled=self.doubled)

    # ----- log and replay ------------------------------------------------
    def log(self) -> dict[str, Any]:
        """JSON-serialisable record: ruleset, deal (or starting position) and events;
        :meth:`replay` rebuilds the state."""
        start = {"deal": self.deal.to_dict()} if self.deal is not None else {"position": self.position}
        return {"ruleset": self.ruleset.to_dict(), **start, "events": self.events}

    @classmethod
    def replay(cls, log: dict[str, Any]) -> "HandState":
        """Rebuild a state from :meth:`log` output by replaying its actions."""
        rules = Ruleset.from_dict(log["ruleset"])
        if "position" in log:
            state = cls.from_position(**log["position"], ruleset=rules)
        else:
            state = cls(Deal.from_cards(**log["deal"]), rules)
        for event in log["events"]:
            state.apply_action(event["action"])
        return state

    _KEY_FIELDS = ("ruleset", "deal", "position", "dealer", "hands", "stock", "pile", "phase", "current_player",
                   "passes", "forced_draw", "taken", "knock_limit", "doubled", "turns", "picked", "discarded",
                   "declined", "history", "events", "result")

    def _key(self) -> tuple:
        return tuple(getattr(self, name) for name in self._KEY_FIELDS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandState) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        top = self.top_discard
        return (f"<HandState phase={self.phase} to_act={self.current_player} dealer={self.dealer} "
                f"stock={len(self.stock)} top={CARD_TEXTS[top] if top is not None else None}>")


_PHASE_NAMES = (OFFER, DRAW, DISCARD, OVER)
_PHASE_CODES = {name: code for code, name in enumerate(_PHASE_NAMES)}


def _int_or_none(value: Any) -> Optional[int]:
    """``value`` as a plain int if it is an integer (numpy ints too; not bools), else None."""
    if isinstance(value, bool):
        return None
    try:
        return as_index(value)
    except TypeError:
        return None


def _is_card_list(value: Any) -> bool:
    """A sized, indexable collection of cards (not a string)."""
    return not isinstance(value, (str, bytes)) and hasattr(value, "__len__") and hasattr(value, "__getitem__")


def _lists(value: Any) -> Any:
    """Tuples (nested too) as lists."""
    return [_lists(v) for v in value] if isinstance(value, tuple) else value


def _tuples(value: Any) -> Any:
    """Lists (nested too) as tuples."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _meld_tuples(melds: list[int]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(ordered_cards(m)) for m in sorted(melds, key=meld_sort_key))
