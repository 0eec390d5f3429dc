"""Observation encoding: one flat float32 vector per seat, declared once as named pieces.

Everything in the vector is what the observing seat may know: its own hand, the discard
pile (public), the ordered face-up discard history, and what the opponent revealed by
playing (cards taken from the pile and still held, cards discarded, cards declined).
The opponent's hidden cards and the stock order never enter it.

The layout (``LAYOUT``) is a tuple of ``(name, size, kind, scale, meaning)``; offsets, the encoder and the
decoder all derive from it.  ``bits`` pieces are 0/1; ``scaled`` pieces hold an integer
divided by its scale (the decoder multiplies back).

>>> import numpy as np
>>> from ginenv.hand import HandState
>>> state = HandState.random(np.random.default_rng(3))
>>> obs = encode(state, 0)
>>> obs.shape == (OBSERVATION_SIZE,), sorted(decode(obs).hand) == state.hand_cards(0)
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from .cards import CARD_TEXTS, mask_to_cards
from .hand import DISCARD, DRAW, OFFER, HandState

HISTORY_LENGTH = 32
"""Face-up discards kept in order in the ``history_*`` pieces (most recent first)."""
PHASES = (OFFER, DRAW, DISCARD)
KNOCK_LIMITS = 11

#: (name, size, kind, scale, meaning); bits pieces first, then scaled numbers.
LAYOUT: tuple[tuple[str, int, str, float, str], ...] = (
    ("hand", 52, "bits", 1, "my cards"),
    ("top_discard", 52, "bits", 1, "the top card of the discard pile"),
    ("pile_rest", 52, "bits", 1, "the other cards in the discard pile"),
    ("my_discards", 52, "bits", 1, "cards I discarded face up this hand"),
    ("opp_discards", 52, "bits", 1, "cards the opponent discarded face up this hand"),
    ("opp_picked", 52, "bits", 1, "cards the opponent took from the pile and still holds"),
    ("opp_declined", 52, "bits", 1, "upcards / pile tops the opponent passed over"),
    ("no_discard", 52, "bits", 1, "the card I may not discard this turn (just taken from the pile, R12)"),
    ("history_cards", HISTORY_LENGTH * 52, "bits", 1,
     f"face-up discards in order: row i (52 wide) is the i-th most recent, one-hot; last {HISTORY_LENGTH} kept"),
    ("history_by_opp", HISTORY_LENGTH, "bits", 1, "1 where history row i was discarded by the opponent"),
    ("phase", len(PHASES), "bits", 1, "my decision: upcard offer / draw / discard (all 0 when not my turn)"),
    ("my_turn", 1, "bits", 1, "1 when I am to act"),
    ("is_dealer", 1, "bits", 1, "1 when I dealt this hand"),
    ("knock_limit", KNOCK_LIMITS, "bits", 1, "this hand's knock limit, one-hot 0..10"),
    ("stock_size", 1, "scaled", 31, "cards left in the stock"),
    ("history_length", 1, "scaled", 100, "face-up discards so far this hand"),
    ("scores", 2, "scaled", 100, "running points, mine then the opponent's (game mode; else 0)"),
    ("hands_won", 2, "scaled", 10, "hands won, mine then the opponent's (game mode; else 0)"),
    ("target", 1, "scaled", 100, "the game's target (game mode; else 0)"),
)


def _offsets() -> dict[str, slice]:
    out, start = {}, 0
    for name, size, *_ in LAYOUT:
        out[name] = slice(start, start + size)
        start += size
    return out


SLICES: dict[str, slice] = _offsets()
"""Name -> slice of the observation vector."""
OBSERVATION_SIZE = sum(size for _, size, *_ in LAYOUT)
NUM_BITS = sum(size for _, size, kind, *_ in LAYOUT if kind == "bits")
_BYTES = (NUM_BITS + 7) // 8
_SHIFT = {name: s.start for name, s in SLICES.items()}
_PHASE_BIT = {phase: 1 << (_SHIFT["phase"] + i) for i, phase in enumerate(PHASES)}


@dataclass(frozen=True)
class MatchInfo:
    """Game-mode numbers shown to both seats (all zero in hand mode)."""

    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    target: int = 0


NO_MATCH = MatchInfo()


_TOP, _REST, _MINE, _THEIRS, _PICKED, _DECLINED, _NO_DISCARD, _HIST, _BY_OPP, _MY_TURN, _DEALER, _KNOCK = (
    _SHIFT[name] for name in ("top_discard", "pile_rest", "my_discards", "opp_discards", "opp_picked",
                              "opp_declined", "no_discard", "history_cards", "history_by_opp", "my_turn",
                              "is_dealer", "knock_limit"))


_ROWS_MASK = (1 << 52 * HISTORY_LENGTH) - 1
_ROW_FLAGS = (1 << HISTORY_LENGTH) - 1


class HistoryPacker:
    """Packs a hand's face-up discard history into the ``history_*`` pieces, incrementally.

    The history of a hand only grows, so each call folds in the new discards only
    (one shift each); a different history list (new hand, clone) is packed afresh.
    Keep one packer per game being encoded; a packer is an optimisation only.
    """

    __slots__ = ("_history", "_count", "_rows", "_by_seat1")

    def __init__(self) -> None:
        self._history: Optional[list] = None
        self._count = self._rows = self._by_seat1 = 0

    def pack(self, history: list, seat: int) -> tuple[int, int]:
        """``(rows, by_opp)``: one-hot rows (most recent first) and the opponent-row flags."""
        start = self._count
        if history is not self._history or len(history) < start:
            self._history, self._rows, self._by_seat1 = history, 0, 0
            start = max(0, len(history) - HISTORY_LENGTH)
        rows, by_seat1 = self._rows, self._by_seat1
        for who, card in history[start:]:
            rows = (rows << 52 | 1 << card) & _ROWS_MASK
            by_seat1 = (by_seat1 << 1 | who) & _ROW_FLAGS
        self._count, self._rows, self._by_seat1 = len(history), rows, by_seat1
        if seat == 1:
            return rows, ~by_seat1 & ((1 << min(len(history), HISTORY_LENGTH)) - 1)
        return rows, by_seat1


def observation_bits(state: HandState, seat: int, packer: Optional[HistoryPacker] = None) -> int:
    """All 0/1 pieces of ``seat``'s observation packed in one int (bit i = entry i)."""
    opp = 1 - seat
    pile = state.pile
    pile_mask = 0
    for card in pile:
        pile_mask |= 1 << card
    top = 1 << pile[-1] if pile else 0
    bits = (state.hands[seat] | top << _TOP | (pile_mask & ~top) << _REST
            | state.discarded[seat] << _MINE | state.discarded[opp] << _THEIRS
            | state.picked[opp] << _PICKED | state.declined[opp] << _DECLINED
            | 1 << (_KNOCK + state.knock_limit))
    if state.current_player == seat:
        bits |= _PHASE_BIT[state.phase] | 1 << _MY_TURN
        if state.taken >= 0:
            bits |= 1 << (_NO_DISCARD + state.taken)
    if state.dealer == seat:
        bits |= 1 << _DEALER
    rows, by_opp = (packer or HistoryPacker()).pack(state.history, seat)
    return bits | rows << _HIST | by_opp << _BY_OPP


def observation_numbers(state: HandState, seat: int, match: MatchInfo = NO_MATCH) -> tuple[float, ...]:
    """The scaled pieces of ``seat``'s observation, in layout order."""
    scores, won, opp = match.scores, match.hands_won, 1 - seat
    return (len(state.stock) / 31, len(state.history) / 100, scores[seat] / 100, scores[opp] / 100,
            won[seat] / 10, won[opp] / 10, match.target / 100)


def encode(state: HandState, seat: int, match: MatchInfo = NO_MATCH,
           out: Optional[np.ndarray] = None, packer: Optional[HistoryPacker] = None) -> np.ndarray:
    """The observation vector of ``seat`` (only what that seat may know)."""
    if out is None:
        out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    bits = observation_bits(state, seat, packer)
    out[:NUM_BITS] = np.unpackbits(np.frombuffer(bits.to_bytes(_BYTES, "little"), np.uint8),
                                   count=NUM_BITS, bitorder="little")
    out[NUM_BITS:] = observation_numbers(state, seat, match)
    return out


_MASK_BYTES = 14  # 108 action bits


def action_mask(bits: int) -> np.ndarray:
    """The int8[108] action mask of a legal-action bit set (``HandState.legal_action_bits``)."""
    return np.unpackbits(np.frombuffer(bits.to_bytes(_MASK_BYTES, "little"), np.uint8), count=108,
                         bitorder="little").view(np.int8)


def encode_many(bits: Sequence[int], numbers: Sequence[Sequence[float]], out: np.ndarray,
                mask_bits: Sequence[int], masks_out: np.ndarray) -> None:
    """Fill ``out[i]`` (observations) and ``masks_out[i]`` (action masks) for many seats at once
    from :func:`observation_bits`, :func:`observation_numbers` and legal-action bits: one unpack
    for the whole batch."""
    width = _BYTES + _MASK_BYTES
    raw = b"".join(b.to_bytes(_BYTES, "little") + m.to_bytes(_MASK_BYTES, "little")
                   for b, m in zip(bits, mask_bits))
    unpacked = np.unpackbits(np.frombuffer(raw, np.uint8).reshape(len(bits), width), axis=1, bitorder="little")
    out[:, :NUM_BITS] = unpacked[:, :NUM_BITS]
    out[:, NUM_BITS:] = numbers
    masks_out[:] = unpacked[:, _BYTES * 8:_BYTES * 8 + 108]


@dataclass(frozen=True)
class ObservationView:
    """A readable view of one observation (what agents and notebooks use).

    Cards are ints; ``history`` lists ``(by_opponent, card)`` most recent first.
    """

    hand: tuple[int, ...]
    top_discard: Optional[int]
    pile_rest: tuple[int, ...]
    my_discards: tuple[int, ...]
    opp_discards: tuple[int, ...]
    opp_picked: tuple[int, ...]
    opp_declined: tuple[int, ...]
    no_discard: Optional[int]
    history: tuple[tuple[bool, int], ...]
    history_length: int
    phase: Optional[str]
    my_turn: bool
    is_dealer: bool
    knock_limit: int
    stock_size: int
    scores: tuple[int, int]
    hands_won: tuple[int, int]
    target: int

    def describe(self) -> str:
        """One-line summary, e.g. for logs."""
        return (f"hand {' '.join(CARD_TEXTS[c] for c in self.hand)} | top "
                f"{CARD_TEXTS[self.top_discard] if self.top_discard is not None else '-'} | stock {self.stock_size}"
                f" | phase {self.phase}")


def _cards(vector: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.flatnonzero(vector > 0.5))


def _one(vector: np.ndarray) -> Optional[int]:
    found = _cards(vector)
    return found[0] if found else None


def decode(observation: Any) -> ObservationView:
    """Decode an observation vector (or the env's observation dict) into a typed view."""
    obs = np.asarray(observation["observation"] if isinstance(observation, dict) else observation)
    if obs.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"observation must have shape ({OBSERVATION_SIZE},), got {obs.shape}")
    piece = {name: obs[s] for name, s in SLICES.items()}
    number = {name: int(round(float(piece[name][0]) * scale)) for name, _, kind, scale, _ in LAYOUT
              if kind == "scaled" and piece[name].size == 1}
    rows = piece["history_cards"].reshape(HISTORY_LENGTH, 52)
    history = tuple((bool(piece["history_by_opp"][i] > 0.5), int(np.argmax(rows[i])))
                    for i in range(HISTORY_LENGTH) if rows[i].any())
    phases = _cards(piece["phase"])
    scores = np.rint(piece["scores"] * 100).astype(int)
    won = np.rint(piece["hands_won"] * 10).astype(int)
    return ObservationView(
        hand=_cards(piece["hand"]), top_discard=_one(piece["top_discard"]), pile_rest=_cards(piece["pile_rest"]),
        my_discards=_cards(piece["my_discards"]), opp_discards=_cards(piece["opp_discards"]),
        opp_picked=_cards(piece["opp_picked"]), opp_declined=_cards(piece["opp_declined"]),
        no_discard=_one(piece["no_discard"]), history=history, history_length=number["history_length"],
        phase=PHASES[phases[0]] if phases else None, my_turn=bool(piece["my_turn"][0] > 0.5),
        is_dealer=bool(piece["is_dealer"][0] > 0.5), knock_limit=_one(piece["knock_limit"]) or 0,
        stock_size=number["stock_size"], scores=(int(scores[0]), int(scores[1])),
        hands_won=(int(won[0]), int(won[1])), target=number["target"])


def layout_table() -> str:
    """The layout as a Markdown table (slice -> meaning), as in the README."""
    lines = ["| slice | name | encoding | meaning |", "|---|---|---|---|"]
    for name, _, kind, scale, meaning in LAYOUT:
        s = SLICES[name]
        encoding = "0/1" if kind == "bits" else f"value / {scale:g}"
        lines.append(f"| {s.start}:{s.stop} | `{name}` | {encoding} | {meaning} |")
    return "\n".join(lines)


__all__ = ["LAYOUT", "SLICES", "OBSERVATION_SIZE", "HISTORY_LENGTH", "MatchInfo", "ObservationView",
           "HistoryPacker", "action_mask", "encode", "encode_many", "observation_bits", "observation_numbers", "decode", "layout_table"]
