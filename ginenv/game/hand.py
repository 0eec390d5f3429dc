"""One hand of Gin Rummy as a state machine (R9-R25).

A hand starts from a :class:`~ginenv.game.deal.Deal` (or a mid-hand
:class:`~ginenv.game.deal.Position`) and ends with a :class:`~ginenv.game.result.HandResult`.

>>> import numpy as np
>>> hand = HandState.random(np.random.default_rng(0))
>>> hand.phase, hand.current_player == 1 - hand.dealer, hand.legal_actions()
('offer', True, [1, 2])
>>> hand.apply_action(2); hand.apply_action(2); hand.legal_actions()   # both pass (R11)
[0]
"""
from __future__ import annotations

from operator import index as as_index
from typing import Any, Optional, Sequence

import numpy as np

from ginenv.game import core
from ginenv.game.actions import (
    BIG_GIN,
    DISCARD_BASE,
    KNOCK_BASE,
    NUM_ACTIONS,
    TAKE_DISCARD,
    IllegalActionError,
    action_text,
)
from ginenv.game.cards import CARD_TEXTS, CARD_VALUES, CardLike, cards_to_mask, mask_to_cards, plain_int, suit_of
from ginenv.game.checks import LogError
from ginenv.game.core import DRAW, OFFER, OVER, PHASE_NAMES
from ginenv.game.deal import Deal, Position
from ginenv.game.melds import mask_deadwood
from ginenv.game.result import HandResult, hand_result
from ginenv.game.rules import Ruleset, resolve_ruleset

SPADES = 3


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

    The state lives in one int64 row of the compiled core (:mod:`ginenv.game.core`, which
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
        self.position: Optional[Position] = None
        self.result: Optional[HandResult] = None
        row = self.row = core.new_row(*core.capacities(self.ruleset.max_turns_per_hand))
        row[core.DEALER] = deal.dealer
        row[core.HAND] = sum(1 << c for c in deal.hands[0])
        row[core.HAND + 1] = sum(1 << c for c in deal.hands[1])
        row[core.STOCK:core.STOCK + 31] = deal.stock[::-1]
        row[core.STOCK_LEN] = 31
        row[core.PILE], row[core.PILE_LEN] = deal.upcard, 1
        row[core.PHASE], row[core.CURRENT] = OFFER, 1 - deal.dealer
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
        return cls(Deal.shuffled(rng, dealer), ruleset)

    @classmethod
    def from_deal(cls, dealer: int, hands: Sequence[Sequence[CardLike]], upcard: CardLike,
                  stock: Sequence[CardLike], ruleset: Ruleset | str | None = None) -> "HandState":
        """A hand from an explicit deal (validated, see :class:`Deal`)."""
        return cls(Deal.from_cards(dealer, hands, upcard, stock), ruleset)

    @classmethod
    def from_position(cls, *, ruleset: Ruleset | str | None = None, **position_args: Any) -> "HandState":
        """A mid-hand state (e.g. one determinization of what a seat knows, for search).

        ``position_args`` are the keyword arguments of :meth:`ginenv.game.deal.Position.from_cards`
        (validated there: ``dealer``, ``hands``, ``stock`` top first, ``pile`` bottom first,
        ``current_player``, ``phase`` and the optional ``first_upcard``, ``taken``, ...).
        Such a state has no deal: its :meth:`log` records the position instead, and
        :meth:`replay` accepts that.  A position that breaks the rules is a
        :class:`~ginenv.game.checks.PositionError`.

        >>> state = HandState.from_position(dealer=0, hands=[list(range(10)), list(range(10, 20))],
        ...     stock=list(range(21, 52)), pile=[20], current_player=1, phase="draw")
        >>> state.legal_actions()
        [0, 1]
        """
        position = Position.from_cards(**position_args)
        state = cls.__new__(cls)
        state.ruleset = resolve_ruleset(ruleset)
        state.deal, state.position, state.result = None, position, None
        turns_left = max(0, state.ruleset.max_turns_per_hand - position.turns)
        history_room, events_room = core.capacities(turns_left + 1)
        row = state.row = core.new_row(len(position.history) + history_room, events_room)
        row[core.DEALER], row[core.CURRENT], row[core.PHASE] = position.dealer, position.current_player, position.phase
        for seat in (0, 1):
            row[core.HAND + seat] = cards_to_mask(position.hands[seat])
            row[core.PICKED + seat] = cards_to_mask(position.picked[seat])
            row[core.DISCARDED + seat] = cards_to_mask(position.discarded[seat])
            row[core.DECLINED + seat] = cards_to_mask(position.declined[seat])
        stock, pile, history = position.stock, position.pile, position.history
        row[core.STOCK:core.STOCK + len(stock)] = stock[::-1]
        row[core.STOCK_LEN] = len(stock)
        row[core.PILE:core.PILE + len(pile)] = pile
        row[core.PILE_LEN] = len(pile)
        row[core.HISTORY:core.HISTORY + len(history)] = [who * 64 + card for who, card in history]
        row[core.HISTORY_LEN] = len(history)
        row[core.PASSES], row[core.FORCED] = position.passes, position.forced_draw
        row[core.TAKEN], row[core.TURNS] = position.taken, position.turns
        state._set_first_upcard(position.first_upcard)
        return state

    def clone(self) -> "HandState":
        """An independent copy."""
        other = HandState.__new__(HandState)
        other.ruleset, other.deal, other.position, other.result = self.ruleset, self.deal, self.position, self.result
        other.row = self.row.copy()
        return other

    def move_to(self, out: np.ndarray) -> None:
        """Keep this state's row in ``out`` from now on (e.g. a row of a batch array, see
        :mod:`ginenv.envs.batched`); ``out`` must have the row's length."""
        out[:] = self.row
        self.row = out

    def to_state(self) -> dict[str, Any]:
        """This exact state as plain data (dicts, lists, ints, strs; e.g. for a checkpoint).
        Unlike :meth:`log` it keeps the core row as it is (a knock limit or doubling set
        by search too); :meth:`from_state` checks the row against a replay.

        >>> import numpy as np
        >>> hand = HandState.random(np.random.default_rng(0))
        >>> hand.apply_action(2)
        >>> HandState.from_state(hand.to_state()) == hand
        True
        """
        return {"ruleset": self.ruleset.to_dict(), "deal": None if self.deal is None else self.deal.to_dict(),
                "position": None if self.position is None else self.position.to_dict(),
                "width": len(self.row), "row": np.trim_zeros(self.row, "b").tolist()}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "HandState":
        """Inverse of :meth:`to_state`.  The row is checked before it is used: the hand is
        rebuilt from its deal (or position) and the events the row lists, and must come out
        as exactly that row, so no hand-edited state reaches the compiled core (a
        :class:`~ginenv.game.checks.LogError` says what does not fit).

        >>> HandState.from_state({"ruleset": {}, "deal": None, "position": None, "width": 1, "row": []})
        Traceback (most recent call last):
        ...
        ginenv.game.checks.LogError: state: needs exactly one of 'deal' or 'position'
        """
        if not isinstance(state, dict) or not {"ruleset", "deal", "position", "width", "row"} <= set(state):
            raise LogError("state: must be a dict with ruleset, deal, position, width and row "
                           "(from HandState.to_state())")
        hand = cls._start(state["ruleset"], state["deal"], state["position"], "state")
        width, saved = plain_int(state["width"]), state["row"]
        if width != len(hand.row) or not isinstance(saved, list) or len(saved) > width:
            raise LogError(f"state: width must be {len(hand.row)} for this ruleset and start, "
                           f"with at most that many row values")
        row = np.zeros(width, dtype=np.int64)
        row[:len(saved)] = saved
        at, count = int(row[core.EVENTS_AT]), int(row[core.EVENTS_LEN])
        if at != hand.row[core.EVENTS_AT] or not 0 <= count <= width - at:
            raise LogError("state: the row's event log does not fit its width")
        hand.row[core.KNOCK_LIMIT], hand.row[core.DOUBLED] = row[core.KNOCK_LIMIT], row[core.DOUBLED] != 0
        hand._apply_events([{"action": int(entry) >> 1 & 127} for entry in row[at:at + count]], "state")
        if not np.array_equal(hand.row, row):
            raise LogError("state: the row is not the one its start and events give")
        return hand

    # ----- queries ------------------------------------------------------
    @property
    def phase(self) -> str:
        """``"offer"``, ``"draw"``, ``"discard"`` or ``"over"``."""
        return PHASE_NAMES[self.row[core.PHASE]]

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
        return self.row[core.PHASE] == OVER

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

    def is_legal(self, action: Any, mask: Optional[np.ndarray] = None) -> bool:
        """Whether ``action`` is legal now (never raises).  ``mask``: this very position's action
        mask (as :func:`ginenv.game.core.write_mask` writes it), where the caller has it: legality
        is read from it instead of being worked out again."""
        action_id = plain_int(action)
        if action_id is None or not 0 <= action_id < NUM_ACTIONS:
            return False
        return bool(self.legal_action_bits() >> action_id & 1 if mask is None else mask[action_id])

    def _why_illegal(self, action: Any) -> str:
        """Why an illegal action is illegal, in words."""
        action = plain_int(action)
        if action is None:
            return "an action id must be an int"
        if not 0 <= action < NUM_ACTIONS:
            return f"action ids are 0..{NUM_ACTIONS - 1}"
        phase = self.row[core.PHASE]
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
    def apply_action(self, action: int, mask: Optional[np.ndarray] = None) -> None:
        """Apply a legal action; an illegal one raises :class:`IllegalActionError` and
        leaves the state unchanged.  ``mask``: as for :meth:`is_legal`."""
        if not self.is_legal(action, mask):
            action_id = plain_int(action)
            valid = action_id is not None and 0 <= action_id < NUM_ACTIONS
            name = action_text(action_id) if valid else "not an action id"  # type: ignore[arg-type]
            raise IllegalActionError(f"illegal action {action!r} ({name}) in phase {self.phase!r}: "
                                     f"{self._why_illegal(action)}")
        if core.apply(self.row, as_index(action), self.ruleset.max_turns_per_hand):
            self.settle()

    def settle(self) -> None:
        """Score a hand the core has just ended (``row[ENDED]``): dead, truncated, or the
        showdown of a knock / gin / big gin (R17-R24, :func:`ginenv.game.result.hand_result`)."""
        self.result = hand_result(self.row, self.ruleset)

    # ----- log and replay ------------------------------------------------
    def log(self) -> dict[str, Any]:
        """JSON-serialisable record: ruleset, deal (or starting position) and events;
        :meth:`replay` rebuilds the state."""
        start = {"deal": self.deal.to_dict()} if self.deal is not None else {"position": self.position.to_dict()}
        return {"ruleset": self.ruleset.to_dict(), **start, "events": self.events}

    @classmethod
    def replay(cls, log: dict[str, Any]) -> "HandState":
        """Rebuild a state from :meth:`log` output by replaying its actions.  A malformed log is
        a :class:`~ginenv.game.checks.LogError` (``log: …``); a deal or position in it that breaks
        the rules a :class:`~ginenv.game.checks.PositionError`, an illegal logged action an
        :class:`~ginenv.IllegalActionError`."""
        if not isinstance(log, dict) or not {"ruleset", "events"} <= set(log):
            raise LogError("log: must be a dict with ruleset, events and a deal or position (from HandState.log())")
        state = cls._start(log["ruleset"], log.get("deal"), log.get("position"), "log")
        state._apply_events(log["events"], "log")
        return state

    @classmethod
    def _start(cls, rules: Any, deal: Any, position: Any, where: str) -> "HandState":
        """The starting state of a log or saved state: a ruleset dict and one of a deal or a
        position dict, all validated (a :class:`LogError` prefixed by ``where``, or the
        :class:`~ginenv.game.checks.PositionError` of a start that breaks the rules)."""
        if (deal is None) == (position is None):
            raise LogError(f"{where}: needs exactly one of 'deal' or 'position'")
        start = deal if deal is not None else position
        if not isinstance(rules, dict) or not isinstance(start, dict):
            raise LogError(f"{where}: ruleset and {'deal' if deal is not None else 'position'} must be dicts")
        try:
            ruleset = Ruleset.from_dict(rules)
        except (TypeError, ValueError) as err:
            raise LogError(f"{where}: ruleset: {err}") from None
        try:
            if position is not None:
                return cls.from_position(ruleset=ruleset, **position)
            return cls(Deal.from_cards(**deal), ruleset)
        except TypeError as err:  # missing or unknown keys
            raise LogError(f"{where}: {err}") from None

    def _apply_events(self, events: Any, where: str) -> None:
        """Apply logged ``{"action": id, ...}`` events; each is checked like any action."""
        if not isinstance(events, list) or not all(isinstance(e, dict) and "action" in e for e in events):
            raise LogError(f"{where}: events must be a list of dicts with an 'action'")
        for event in events:
            self.apply_action(event["action"])

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
