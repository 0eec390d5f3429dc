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
from typing import Any, Optional

import numpy as np
from numba import njit

from . import core
from .cards import CARD_TEXTS
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
_SHIFT = {name: s.start for name, s in SLICES.items()}


@dataclass(frozen=True)
class MatchInfo:
    """Game-mode numbers shown to both seats (all zero in hand mode)."""

    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    target: int = 0

    def as_array(self) -> np.ndarray:
        """``[score0, score1, won0, won1, target]`` as int64 (what the compiled encoder reads)."""
        return np.array([*self.scores, *self.hands_won, self.target], dtype=np.int64)


NO_MATCH = MatchInfo()


(_HAND, _TOP, _REST, _MINE, _THEIRS, _PICKED, _DECLINED, _NO_DISCARD, _HIST, _BY_OPP, _PHASE, _MY_TURN, _DEALER,
 _KNOCK, _STOCK_SIZE, _HISTORY_LENGTH, _SCORES, _HANDS_WON, _TARGET) = (
    _SHIFT[name] for name in ("hand", "top_discard", "pile_rest", "my_discards", "opp_discards", "opp_picked",
                              "opp_declined", "no_discard", "history_cards", "history_by_opp", "phase", "my_turn",
                              "is_dealer", "knock_limit", "stock_size", "history_length", "scores", "hands_won",
                              "target"))
_SCALE = {name: scale for name, _, _, scale, _ in LAYOUT}
_STOCK_SCALE, _LENGTH_SCALE, _SCORE_SCALE, _WON_SCALE, _TARGET_SCALE = (
    _SCALE[name] for name in ("stock_size", "history_length", "scores", "hands_won", "target"))


@njit(cache=True)
def _put_cards(mask: int, out: np.ndarray, start: int) -> None:
    for card in range(52):
        if mask >> card & 1:
            out[start + card] = 1.0


@njit(cache=True)
def write_observation(row: np.ndarray, seat: int, match: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (float32[OBSERVATION_SIZE]) with ``seat``'s observation of a hand's core
    row (:mod:`ginenv.core`); ``match`` is :meth:`MatchInfo.as_array`."""
    opp = 1 - seat
    out[:] = 0.0
    _put_cards(row[core.HAND + seat], out, _HAND)
    piled = row[core.PILE_LEN]
    for i in range(piled):
        out[(_TOP if i == piled - 1 else _REST) + row[core.PILE + i]] = 1.0
    _put_cards(row[core.DISCARDED + seat], out, _MINE)
    _put_cards(row[core.DISCARDED + opp], out, _THEIRS)
    _put_cards(row[core.PICKED + opp], out, _PICKED)
    _put_cards(row[core.DECLINED + opp], out, _DECLINED)
    if row[core.CURRENT] == seat:
        out[_PHASE + row[core.PHASE]] = 1.0
        out[_MY_TURN] = 1.0
        if row[core.TAKEN] >= 0:
            out[_NO_DISCARD + row[core.TAKEN]] = 1.0
    if row[core.DEALER] == seat:
        out[_DEALER] = 1.0
    out[_KNOCK + row[core.KNOCK_LIMIT]] = 1.0
    count = row[core.HISTORY_LEN]
    for i in range(min(count, HISTORY_LENGTH)):
        entry = row[core.HISTORY + count - 1 - i]
        out[_HIST + 52 * i + (entry & 63)] = 1.0
        if entry >> 6 == opp:
            out[_BY_OPP + i] = 1.0
    out[_STOCK_SIZE] = row[core.STOCK_LEN] / _STOCK_SCALE
    out[_HISTORY_LENGTH] = count / _LENGTH_SCALE
    out[_SCORES] = match[seat] / _SCORE_SCALE
    out[_SCORES + 1] = match[opp] / _SCORE_SCALE
    out[_HANDS_WON] = match[2 + seat] / _WON_SCALE
    out[_HANDS_WON + 1] = match[2 + opp] / _WON_SCALE
    out[_TARGET] = match[4] / _TARGET_SCALE


@njit(cache=True)
def write_many(rows: np.ndarray, matches: np.ndarray, big_gin: bool, obs: np.ndarray, masks: np.ndarray,
               to_act: np.ndarray) -> None:
    """For every game ``i``: the seat to act in ``rows[i]`` into
    ``to_act[i]``, its observation into ``obs[i]`` and its action mask into ``masks[i]``."""
    for i in range(rows.shape[0]):
        seat = rows[i, core.CURRENT]
        to_act[i] = seat
        write_observation(rows[i], seat, matches[i], obs[i])
        core.write_mask(rows[i], big_gin, masks[i])


def encode(state: HandState, seat: int, match: MatchInfo = NO_MATCH,
           out: Optional[np.ndarray] = None) -> np.ndarray:
    """The observation vector of ``seat`` (only what that seat may know)."""
    if out is None:
        out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    write_observation(state.row, seat, match.as_array(), out)
    return out


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
           "encode", "write_observation", "write_many", "decode", "layout_table"]
