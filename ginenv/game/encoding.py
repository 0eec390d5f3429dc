"""Observation encoding: one flat float32 vector per seat, declared once as named pieces.

Everything in the vector is what the observing seat may know: its own hand, the discard
pile (public), the ordered face-up discard history, and what the opponent revealed by
playing (cards taken from the pile and still held, cards discarded, cards declined).
The opponent's hidden cards and the stock order never enter it.  The rules of the game
(every :class:`~ginenv.game.rules.Ruleset` parameter, whether the episode is one hand or a whole
game, and whether this hand's points are doubled) are in it too, so a policy or a search
agent reads the scoring from its input rather than assuming it.

The layout (``LAYOUT``) is a tuple of :class:`Piece` ``(name, size, kind, scale, high,
meaning)``; offsets, the encoder, the decoder and the observation space's bounds all derive
from it.  ``bits`` pieces are 0/1; ``scaled`` pieces hold an integer divided by its scale
(the decoder multiplies back), never above ``high``.

>>> import numpy as np
>>> from ginenv.game.hand import HandState
>>> state = HandState.random(np.random.default_rng(3))
>>> obs = encode(state, 0)
>>> obs.shape == (OBSERVATION_SIZE,), sorted(decode(obs).hand) == state.hand_cards(0)
(True, True)
>>> decode(obs).ruleset.name, bool((obs <= OBSERVATION_HIGH).all())
('pagat', True)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

import numpy as np
from numba import njit

from ginenv.game import core
from ginenv.game.cards import CARD_TEXTS
from ginenv.game.hand import HandState
from ginenv.game.rules import MAX_BONUS, MAX_TARGET, MAX_TURNS, PRESETS, SHUTOUT_MODES, Ruleset

HISTORY_LENGTH = 32
"""Face-up discards kept in order in the ``history_*`` pieces (most recent first)."""
PHASES = core.PHASE_NAMES[:core.OVER]
"""The ``phase`` bits, in order: the public names of the decision phases (core codes 0..2)."""
KNOCK_LIMITS = 11
RULE_FLAGS = ("big_gin", "spade_double", "knock_limit_upcard", "next_dealer_winner",
              "shutout_bonus", "shutout_double", "shutout_none")
"""The ``rule_flags`` bits, in order (see :func:`rules_vector`)."""
RULE_POINTS = ("gin_bonus", "undercut_bonus", "big_gin_bonus", "game_bonus", "box_bonus", "target",
               "max_turns_per_hand")
"""The ``rule_points`` numbers, in order (every :class:`~ginenv.game.rules.Ruleset` int field)."""
POINTS_SCALE = 100
"""Points (scores, bonuses, the target) are divided by this in the observation."""
MAX_SCORE = 2 * MAX_TARGET
"""Above any running score: below the target before the last hand, which adds at most
``2 * (98 + MAX_BONUS)`` (doubled, deadwood plus a bonus)."""
MAX_HANDS_WON = 1000
"""Hands-won counts are clipped here (a game of zero-point hands could go on longer)."""
assert max(MAX_BONUS, MAX_TURNS) <= MAX_TARGET  # rule_points share MAX_TARGET's bound


class Piece(NamedTuple):
    """One named slice of the observation vector."""

    name: str
    size: int
    kind: str
    """``"bits"`` (0/1) or ``"scaled"`` (an integer divided by ``scale``)."""
    scale: float
    high: float
    """Largest value an entry can take (the observation space's upper bound)."""
    meaning: str


def _bits(name: str, size: int, meaning: str) -> Piece:
    return Piece(name, size, "bits", 1, 1.0, meaning)


def _scaled(name: str, size: int, scale: float, most: int, meaning: str) -> Piece:
    return Piece(name, size, "scaled", scale, most / scale, meaning)


#: Every piece in order; bits first, then scaled numbers.  Upper bounds follow from the
#: :class:`~ginenv.game.rules.Ruleset` ranges (scaled values are clipped at ``high`` as well).
LAYOUT: tuple[Piece, ...] = (
    _bits("hand", 52, "my cards"),
    _bits("top_discard", 52, "the top card of the discard pile"),
    _bits("pile_rest", 52, "the other cards in the discard pile"),
    _bits("my_discards", 52, "cards I discarded face up this hand"),
    _bits("opp_discards", 52, "cards the opponent discarded face up this hand"),
    _bits("opp_picked", 52, "cards the opponent took from the pile and still holds"),
    _bits("opp_declined", 52, "upcards / pile tops the opponent passed over"),
    _bits("no_discard", 52, "the card I may not discard this turn (just taken from the pile, R12)"),
    _bits("history_cards", HISTORY_LENGTH * 52,
          f"face-up discards in order: row i (52 wide) is the i-th most recent, one-hot; last {HISTORY_LENGTH} kept"),
    _bits("history_by_opp", HISTORY_LENGTH, "1 where history row i was discarded by the opponent"),
    _bits("phase", len(PHASES), "my decision: upcard offer / draw / discard (all 0 when not my turn)"),
    _bits("my_turn", 1, "1 when I am to act"),
    _bits("is_dealer", 1, "1 when I dealt this hand"),
    _bits("knock_limit", KNOCK_LIMITS, "this hand's knock limit, one-hot 0..10"),
    _bits("game_mode", 1, "1 when the episode is a whole game to the target, 0 for one hand"),
    _bits("hand_doubled", 1, "1 when this hand's points are doubled (Oklahoma: the first upcard was a spade)"),
    _bits("rule_flags", len(RULE_FLAGS), "ruleset switches: big gin allowed, spade doubling, knock limit from "
                                         "the upcard, winner deals next, shutout bonus / double / none"),
    _scaled("stock_size", 1, 31, 31, "cards left in the stock"),
    _scaled("history_length", 1, 100, MAX_TURNS, "face-up discards so far this hand"),
    _scaled("scores", 2, POINTS_SCALE, MAX_SCORE, "running points, mine then the opponent's (game mode; else 0)"),
    _scaled("hands_won", 2, 10, MAX_HANDS_WON, "hands won, mine then the opponent's (game mode; else 0)"),
    _scaled("rule_points", len(RULE_POINTS), POINTS_SCALE, MAX_TARGET,
            "ruleset numbers: gin, undercut, big gin, game and box bonuses, target, max turns per hand"),
)


def _offsets() -> dict[str, slice]:
    out, start = {}, 0
    for piece in LAYOUT:
        out[piece.name] = slice(start, start + piece.size)
        start += piece.size
    return out


SLICES: dict[str, slice] = _offsets()
"""Name -> slice of the observation vector."""
OBSERVATION_SIZE = sum(piece.size for piece in LAYOUT)
OBSERVATION_HIGH = np.concatenate([np.full(p.size, p.high, dtype=np.float32) for p in LAYOUT])
"""Upper bound of every entry (the lower bound is 0)."""
_SHIFT = {name: s.start for name, s in SLICES.items()}


@dataclass(frozen=True)
class MatchInfo:
    """Game-mode numbers shown to both seats (all zero in hand mode: ``target`` 0 marks it)."""

    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    target: int = 0

    def as_array(self) -> np.ndarray:
        """``[score0, score1, won0, won1, target]`` as int64 (what the compiled encoder reads)."""
        return np.array([*self.scores, *self.hands_won, self.target], dtype=np.int64)


NO_MATCH = MatchInfo()


def rules_vector(ruleset: Ruleset) -> np.ndarray:
    """The ruleset as the compiled encoder reads it: the ``RULE_FLAGS`` bits, then the
    ``RULE_POINTS`` numbers (int64).

    >>> rules_vector(Ruleset.preset("classic25")).tolist()
    [1, 0, 0, 0, 0, 1, 0, 25, 25, 31, 100, 25, 100, 200]
    """
    flags = (ruleset.big_gin, ruleset.spade_double, ruleset.knock_limit == "upcard", ruleset.next_dealer == "winner",
             ruleset.shutout_mode == "bonus", ruleset.shutout_mode == "double", ruleset.shutout_mode == "none")
    return np.array([*map(int, flags), *(getattr(ruleset, name) for name in RULE_POINTS)], dtype=np.int64)


def ruleset_of(flags: dict[str, bool], points: dict[str, int], knock_limit: int) -> Ruleset:
    """The :class:`Ruleset` whose rules these are; named after the preset with the same
    rules, else ``"custom"`` (the inverse of :func:`rules_vector`)."""
    shutout = next((mode for mode in SHUTOUT_MODES if flags[f"shutout_{mode}"]), None)
    if shutout is None:
        raise ValueError("the rule flags set no shutout mode (one of "
                         + ", ".join(f"shutout_{mode}" for mode in SHUTOUT_MODES) + "): not an observation of this env")
    rules = Ruleset(name="custom", knock_limit="upcard" if flags["knock_limit_upcard"] else knock_limit,
                    big_gin=flags["big_gin"], spade_double=flags["spade_double"], shutout_mode=shutout,
                    next_dealer="winner" if flags["next_dealer_winner"] else "alternate", **points)
    for name, preset in PRESETS.items():
        if preset.with_overrides(name="custom") == rules:
            return preset
    return rules


(_HAND, _TOP, _REST, _MINE, _THEIRS, _PICKED, _DECLINED, _NO_DISCARD, _HIST, _BY_OPP, _PHASE, _MY_TURN, _DEALER,
 _KNOCK, _GAME_MODE, _DOUBLED, _FLAGS, _STOCK_SIZE, _HISTORY_LENGTH, _SCORES, _HANDS_WON, _POINTS) = (
    _SHIFT[piece.name] for piece in LAYOUT)
_SCALE = {piece.name: float(piece.scale) for piece in LAYOUT}
_HIGH = {piece.name: float(piece.high) for piece in LAYOUT}
_STOCK_SCALE, _LENGTH_SCALE, _LENGTH_HIGH, _WON_SCALE, _WON_HIGH, _POINTS_HIGH, _SCORE_HIGH = (
    _SCALE["stock_size"], _SCALE["history_length"], _HIGH["history_length"], _SCALE["hands_won"],
    _HIGH["hands_won"], _HIGH["rule_points"], _HIGH["scores"])
_N_FLAGS = len(RULE_FLAGS)


@njit(cache=True)
def _put_cards(mask: int, out: np.ndarray, start: int) -> None:
    for card in range(52):
        if mask >> card & 1:
            out[start + card] = 1.0


@njit(cache=True)
def write_observation(row: np.ndarray, seat: int, match: np.ndarray, rules: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (float32[OBSERVATION_SIZE]) with ``seat``'s observation of a hand's core
    row (:mod:`ginenv.game.core`); ``match`` is :meth:`MatchInfo.as_array`, ``rules`` is
    :func:`rules_vector`."""
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
    if match[4] > 0:
        out[_GAME_MODE] = 1.0
    if row[core.DOUBLED]:
        out[_DOUBLED] = 1.0
    for i in range(_N_FLAGS):
        out[_FLAGS + i] = rules[i]
    out[_STOCK_SIZE] = row[core.STOCK_LEN] / _STOCK_SCALE
    out[_HISTORY_LENGTH] = min(count / _LENGTH_SCALE, _LENGTH_HIGH)
    out[_SCORES] = min(match[seat] / POINTS_SCALE, _SCORE_HIGH)
    out[_SCORES + 1] = min(match[opp] / POINTS_SCALE, _SCORE_HIGH)
    out[_HANDS_WON] = min(match[2 + seat] / _WON_SCALE, _WON_HIGH)
    out[_HANDS_WON + 1] = min(match[2 + opp] / _WON_SCALE, _WON_HIGH)
    for i in range(rules.shape[0] - _N_FLAGS):
        out[_POINTS + i] = min(rules[_N_FLAGS + i] / POINTS_SCALE, _POINTS_HIGH)


@njit(cache=True)
def write_some(rows: np.ndarray, matches: np.ndarray, rules: np.ndarray, big_gin: bool, which: np.ndarray,
               obs: np.ndarray, masks: np.ndarray, to_act: np.ndarray) -> None:
    """For every game ``i`` of ``which`` (int64 indices): the seat to act in ``rows[i]`` into
    ``to_act[i]``, its observation into ``obs[i]`` and its action mask into ``masks[i]``; the other
    games' entries are left as they are."""
    for i in which:
        seat = rows[i, core.CURRENT]
        to_act[i] = seat
        write_observation(rows[i], seat, matches[i], rules, obs[i])
        core.write_mask(rows[i], big_gin, masks[i])


@njit(cache=True)
def write_many(rows: np.ndarray, matches: np.ndarray, rules: np.ndarray, big_gin: bool, obs: np.ndarray,
               masks: np.ndarray, to_act: np.ndarray) -> None:
    """:func:`write_some` for every game."""
    write_some(rows, matches, rules, big_gin, np.arange(rows.shape[0]), obs, masks, to_act)


def encode(state: HandState, seat: int, match: MatchInfo = NO_MATCH,
           out: Optional[np.ndarray] = None) -> np.ndarray:
    """The observation vector of ``seat`` (only what that seat may know)."""
    if out is None:
        out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    write_observation(state.row, seat, match.as_array(), rules_vector(state.ruleset), out)
    return out


@dataclass(frozen=True)
class ObservationView:
    """A readable view of one observation (what agents and notebooks use).

    Cards are ints; ``history`` lists ``(by_opponent, card)`` most recent first;
    ``ruleset`` is the game's :class:`~ginenv.game.rules.Ruleset` (named after its preset
    when it has one's rules, else ``"custom"``); ``target`` is 0 in hand mode.
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
    game_mode: bool
    hand_doubled: bool
    ruleset: Ruleset

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


def _numbers(piece: Piece, values: np.ndarray) -> list[int]:
    return [int(v) for v in np.rint(values.astype(np.float64) * piece.scale)]


def decode(observation: Any) -> ObservationView:
    """Decode an observation vector (or the env's observation dict) into a typed view; anything
    else is a ``ValueError`` naming ``observation``.

    >>> decode({"obs": np.zeros(OBSERVATION_SIZE)})
    Traceback (most recent call last):
    ...
    ValueError: observation: a dict must be the env's observation dict, with the key 'observation'; got keys ['obs']
    """
    if isinstance(observation, dict):
        if "observation" not in observation:
            raise ValueError("observation: a dict must be the env's observation dict, with the key 'observation'; "
                             f"got keys {list(observation)[:8]}")
        observation = observation["observation"]
    wanted = f"observation must have shape ({OBSERVATION_SIZE},) and hold numbers"
    try:
        obs = np.asarray(observation)
    except ValueError:  # ragged nested sequences
        raise ValueError(f"{wanted}, got a ragged sequence") from None
    if obs.shape != (OBSERVATION_SIZE,) or obs.dtype.kind not in "biuf":
        raise ValueError(f"{wanted}, got shape {obs.shape}, dtype {obs.dtype}")
    piece = {name: obs[s] for name, s in SLICES.items()}
    number = {p.name: _numbers(p, piece[p.name]) for p in LAYOUT if p.kind == "scaled"}
    flag = {name: bool(bit > 0.5) for name, bit in zip(RULE_FLAGS, piece["rule_flags"])}
    rule_points = dict(zip(RULE_POINTS, number["rule_points"]))
    knock_limit = _one(piece["knock_limit"]) or 0
    rows = piece["history_cards"].reshape(HISTORY_LENGTH, 52)
    history = tuple((bool(piece["history_by_opp"][i] > 0.5), int(np.argmax(rows[i])))
                    for i in range(HISTORY_LENGTH) if rows[i].any())
    phases = _cards(piece["phase"])
    game_mode = bool(piece["game_mode"][0] > 0.5)
    return ObservationView(
        hand=_cards(piece["hand"]), top_discard=_one(piece["top_discard"]), pile_rest=_cards(piece["pile_rest"]),
        my_discards=_cards(piece["my_discards"]), opp_discards=_cards(piece["opp_discards"]),
        opp_picked=_cards(piece["opp_picked"]), opp_declined=_cards(piece["opp_declined"]),
        no_discard=_one(piece["no_discard"]), history=history, history_length=number["history_length"][0],
        phase=PHASES[phases[0]] if phases else None, my_turn=bool(piece["my_turn"][0] > 0.5),
        is_dealer=bool(piece["is_dealer"][0] > 0.5), knock_limit=knock_limit,
        stock_size=number["stock_size"][0], scores=tuple(number["scores"]),  # type: ignore[arg-type]
        hands_won=tuple(number["hands_won"]), target=rule_points["target"] if game_mode else 0,  # type: ignore[arg-type]
        game_mode=game_mode, hand_doubled=bool(piece["hand_doubled"][0] > 0.5),
        ruleset=ruleset_of(flag, rule_points, knock_limit))


def layout_table() -> str:
    """The layout as a Markdown table (slice -> meaning), as in docs/environment.md."""
    lines = ["| slice | name | encoding | meaning |", "|---|---|---|---|"]
    for p in LAYOUT:
        s = SLICES[p.name]
        encoding = "0/1" if p.kind == "bits" else f"value / {p.scale:g} (≤ {p.high:g})"
        lines.append(f"| {s.start}:{s.stop} | `{p.name}` | {encoding} | {p.meaning} |")
    return "\n".join(lines)


__all__ = ["LAYOUT", "SLICES", "OBSERVATION_SIZE", "OBSERVATION_HIGH", "HISTORY_LENGTH", "RULE_FLAGS", "RULE_POINTS",
           "Piece", "MatchInfo", "ObservationView", "encode", "write_observation", "write_many", "write_some", "decode",
           "rules_vector", "ruleset_of", "layout_table"]
