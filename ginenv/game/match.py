"""A whole game (match) of hands to the target, with bonuses (R26-R28).

>>> import numpy as np
>>> match = MatchState(np.random.default_rng(1), "eaai")
>>> while not match.is_over:   # draw from the stock, knock when possible, else discard high
...     actions = match.legal_actions()
...     _ = match.apply_action(actions[-1] if actions[-1] > 2 else actions[0])
>>> max(match.scores) >= 100, match.result.winner in (0, 1)
(True, True)
"""
from __future__ import annotations

import copy
import operator
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ginenv.game.deal import Deal
from ginenv.game.hand import HandState
from ginenv.game.result import HandResult
from ginenv.game.rules import Ruleset, resolve_ruleset


@dataclass(frozen=True)
class GameResult:
    """The end of a game; per-seat tuples are indexed by seat."""

    winner: int
    scores: tuple[int, int]
    """Running points before bonuses."""
    hands_won: tuple[int, int]
    box_bonus: tuple[int, int]
    game_bonus: int
    """The game bonus the winner received (200 for a shutout in ``bonus`` mode)."""
    shutout: bool
    final_scores: tuple[int, int]
    """After every bonus (and the ``double`` shutout doubling)."""

    def to_dict(self, names: Sequence[str] = ("player_0", "player_1")) -> dict[str, Any]:
        """The public-contract ``game_result`` dict."""
        return {"winner": names[self.winner], "scores": list(self.scores), "hands_won": list(self.hands_won),
                "box_bonus": list(self.box_bonus), "game_bonus": self.game_bonus, "shutout": self.shutout,
                "final_scores": list(self.final_scores)}


def game_result(rules: Ruleset, scores: Sequence[int], hands_won: Sequence[int]) -> GameResult:
    """Bonuses at the end of a game (R26-R27); the winner is the seat at or over the target.

    Exactly one seat must be at or over ``rules.target``; malformed ``scores`` or
    ``hands_won`` (not two non-negative ints) are a ``ValueError``.

    >>> game_result(Ruleset(), [104, 0], [3, 0]).final_scores        # pagat shutout: 200
    (364, 0)
    >>> game_result(Ruleset.preset("classic25"), [104, 0], [3, 0]).final_scores   # doubled
    (383, 0)
    >>> game_result(Ruleset(), [99, 0], [3, 0])
    Traceback (most recent call last):
    ...
    ValueError: game_result needs exactly one score at or over the target 100, got [99, 0]
    """
    scores = _pair("scores", scores)
    hands_won = _pair("hands_won", hands_won)
    if (scores[0] >= rules.target) == (scores[1] >= rules.target):
        raise ValueError(f"game_result needs exactly one score at or over the target {rules.target}, "
                         f"got {list(scores)}")
    winner = 0 if scores[0] >= scores[1] else 1
    loser = 1 - winner
    shutout = scores[loser] == 0 and rules.shutout_mode != "none"
    bonus = rules.game_bonus * 2 if shutout and rules.shutout_mode == "bonus" else rules.game_bonus
    box = (rules.box_bonus * hands_won[0], rules.box_bonus * hands_won[1])
    final = [scores[0] + box[0], scores[1] + box[1]]
    final[winner] += bonus + (scores[winner] if shutout and rules.shutout_mode == "double" else 0)
    return GameResult(winner, (scores[0], scores[1]), (hands_won[0], hands_won[1]), box, bonus, shutout,
                      (final[0], final[1]))


def _pair(name: str, pair: Sequence[int]) -> tuple[int, int]:
    """Two non-negative ints (any integral type but bool), else a ``ValueError`` naming ``name``."""
    try:
        values = tuple(pair)
    except TypeError:
        values = ()
    if len(values) != 2 or any(isinstance(v, bool) or not hasattr(v, "__index__") for v in values):
        raise ValueError(f"{name} must be two non-negative ints, got {pair!r}")
    first, second = (operator.index(v) for v in values)
    if first < 0 or second < 0:
        raise ValueError(f"{name} must be two non-negative ints, got {pair!r}")
    return first, second


def next_dealer(rules: Ruleset, dealer: int, result: HandResult) -> int:
    """Dealer of the next hand (R28): same after a dead hand, else winner or alternate.

    >>> next_dealer(Ruleset(), 0, HandResult("knock", knocker=1, winner=1, points=5))
    1
    """
    if result.winner is None:
        return dealer
    return result.winner if rules.next_dealer == "winner" else 1 - dealer


class MatchState:
    """Hands until a seat reaches the target; the next hand starts automatically.

    ``rng`` (a ``numpy.random.Generator``) shuffles every hand and draws the first
    dealer (R9) unless ``dealer`` is given; ``first_deal`` replaces the first shuffle.
    """

    def __init__(self, rng: Any, ruleset: Ruleset | str | None = None, *, dealer: Optional[int] = None,
                 scores: Sequence[int] = (0, 0), hands_won: Sequence[int] = (0, 0),
                 first_deal: Optional[Deal] = None) -> None:
        self.ruleset = resolve_ruleset(ruleset)
        self.rng = rng
        scores, hands_won = _pair("scores", scores), _pair("hands_won", hands_won)
        if max(scores) >= self.ruleset.target:
            raise ValueError(f"scores {list(scores)} must be below the target {self.ruleset.target}")
        self.scores = list(scores)
        self.hands_won = list(hands_won)
        self.hand_results: list[HandResult] = []
        self._logs: list[HandState | dict[str, Any]] = []  # finished hands, their logs made when asked
        self.result: Optional[GameResult] = None
        if first_deal is not None:
            self.hand = HandState(first_deal, self.ruleset)
        else:
            self.hand = HandState.random(rng, self.ruleset, dealer)

    @property
    def hand_logs(self) -> list[dict[str, Any]]:
        """The event log (:meth:`HandState.log`) of each finished hand, oldest first; made when
        first asked (most games never need them), from each hand's own copy of its row."""
        self._logs = [entry.log() if isinstance(entry, HandState) else entry for entry in self._logs]
        return list(self._logs)  # type: ignore[arg-type]

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def current_player(self) -> Optional[int]:
        return None if self.is_over else self.hand.current_player

    @property
    def dealer(self) -> int:
        return self.hand.dealer

    @property
    def last_hand_result(self) -> Optional[HandResult]:
        return self.hand_results[-1] if self.hand_results else None

    def legal_actions(self) -> list[int]:
        return [] if self.is_over else self.hand.legal_actions()

    def apply_action(self, action: int) -> Optional[HandResult]:
        """Apply an action to the current hand; returns the hand's result if it ended."""
        if self.is_over:
            from ginenv.game.actions import IllegalActionError
            raise IllegalActionError(f"illegal action {action!r}: the game is over")
        self.hand.apply_action(action)
        return self.end_hand() if self.hand.is_over else None

    def end_hand(self) -> HandResult:
        """Book the result of the current hand, which must be over: scores, hands won, the
        game's result at the target, else the next hand is dealt.  (:meth:`apply_action`
        calls it; the batched API calls it after stepping the hand itself.)"""
        hand = self.hand
        result: HandResult = hand.result  # type: ignore[assignment]
        self.hand_results.append(result)
        hand.move_to(hand.row.copy())  # its own row: a batch may put the next hand in the old one
        self._logs.append(hand)
        if result.winner is not None:
            self.scores[result.winner] += result.points
            self.hands_won[result.winner] += 1
            if self.scores[result.winner] >= self.ruleset.target:
                self.result = game_result(self.ruleset, self.scores, self.hands_won)
                return result
        self.hand = HandState.random(self.rng, self.ruleset, next_dealer(self.ruleset, hand.dealer, result))
        return result

    def to_state(self, history: bool = True) -> dict[str, Any]:
        """This game as plain data (e.g. for a checkpoint): scores, hands won, the hand in play
        (:meth:`HandState.to_state`) and, with ``history``, the results and logs of the hands
        played (large: a log per hand).  The generator is not in it: save
        ``rng.bit_generator.state`` beside it.  :meth:`from_state` restores it.

        >>> import numpy as np
        >>> match = MatchState(np.random.default_rng(1), "eaai", scores=(40, 20))
        >>> again = MatchState.from_state(match.to_state(), np.random.default_rng(1))
        >>> again.scores, again.hand == match.hand
        ([40, 20], True)
        """
        state = {"ruleset": self.ruleset.to_dict(), "scores": list(self.scores), "hands_won": list(self.hands_won),
                 "hand": self.hand.to_state()}
        if history:
            state["hand_results"] = [result.to_state() for result in self.hand_results]
            state["hand_logs"] = copy.deepcopy(self.hand_logs)
        return state

    @classmethod
    def from_state(cls, state: dict[str, Any], rng: Any) -> "MatchState":
        """Inverse of :meth:`to_state`; ``rng`` deals the later hands.  A state saved without
        history gives a game whose ``hand_results`` and ``hand_logs`` are empty; everything
        that decides later play (scores, hands won, the hand in play) is exact either way."""
        match = cls.__new__(cls)
        match.ruleset, match.rng = Ruleset.from_dict(state["ruleset"]), rng
        match.scores = list(_pair("scores", state["scores"]))
        match.hands_won = list(_pair("hands_won", state["hands_won"]))
        match.hand = HandState.from_state(state["hand"])
        match.hand_results = [HandResult.from_state(result) for result in state.get("hand_results", [])]
        match._logs = copy.deepcopy(state.get("hand_logs", []))
        over = max(match.scores) >= match.ruleset.target
        match.result = game_result(match.ruleset, match.scores, match.hands_won) if over else None
        return match
