"""One episode — a single hand, or a game of hands to the target — and what a finished hand gives.

Written once for every env API (the AEC env :mod:`ginenv.envs.aec` and the batched
:mod:`ginenv.envs.batched`): :class:`EpisodeSpec` validates the settings, :class:`Episode` holds
the hand or game in play with the match numbers the encoder shows, and :class:`HandEnd` is
what a finished hand gives: both seats' rewards, the ``hand_result`` / ``game_result``
infos (the public contract: names, ``None`` and card lists whose lengths vary), their
fixed-shape twins ``hand_summary`` / ``game_summary`` (see :func:`hand_summary`: numbers and
52-card arrays only, so replay buffers can stack them) and the done flags.  The next hand of
a game starts at once.

Rewards are zero-sum (see the table in :mod:`ginenv.envs.aec`): ``"points"`` gives the signed
points of each hand times ``reward_scale``, and the end of a game adds the game and box
bonuses; ``"win_loss"`` gives +1/-1 for the winner of the hand (hand mode) or of the game.

>>> import numpy as np
>>> spec = EpisodeSpec.build("eaai", episode="game", target=30)
>>> episode, end = spec.start(np.random.default_rng(0)), None
>>> while end is None or not end.done:   # draw, knock when possible, else discard high
...     actions = episode.hand.legal_actions()
...     end = episode.apply_action(actions[-1] if actions[-1] > 2 else actions[0])
>>> sum(end.rewards), end.terminated, sorted(end.info())
(0.0, True, ['game_result', 'hand_result'])
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

import numpy as np

from ginenv.game.actions import NUM_ACTIONS
from ginenv.game.cards import NUM_CARDS, cards_to_mask, plain_int
from ginenv.game.checks import checked_float
from ginenv.game.core import write_mask
from ginenv.game.deal import Deal
from ginenv.game.encoding import NO_MATCH, OBSERVATION_SIZE, MatchInfo, write_observation
from ginenv.game.hand import HandState
from ginenv.game.match import GameResult, MatchState
from ginenv.game.melds import ordered_cards
from ginenv.game.result import HandResult
from ginenv.game.rules import Ruleset, resolve_ruleset
from ginenv.game.scoring import OUTCOMES

AGENTS = ("player_0", "player_1")
EPISODES = ("hand", "game")
REWARD_MODES = ("points", "win_loss")
MAX_REWARD_SCALE = 1e6
"""Largest ``reward_scale`` (rewards stay finite floats)."""
MAX_START_HANDS_WON = 1_000_000
"""Largest ``hands_won`` count a game may start with (box bonuses and final scores stay far inside int64)."""
SUMMARY_OUTCOMES = (*OUTCOMES, "dead")
"""``hand_summary["outcome"]`` is an index into this tuple."""
NONE = -1
"""What a summary holds where the result holds ``None`` (no knocker, no deadwood, ...)."""
Game = Union[HandState, MatchState]


def hand_summary(result: HandResult) -> dict[str, Any]:
    """A hand's result with the same keys, types and sizes every hand (a replay buffer can stack it).

    Scalars are ints, with :data:`NONE` (-1) for ``None``: ``outcome`` (index into
    :data:`SUMMARY_OUTCOMES`), ``knocker``, ``winner`` (seats), ``points``,
    ``knocker_deadwood``, ``defender_deadwood``, ``knock_discard`` (a card id); ``doubled``
    and ``truncated`` are bools.  Card lists are int8[52] arrays indexed by card id:
    ``layoffs``, ``knocker_deadwood_cards`` and ``defender_deadwood_cards`` hold 1 for the
    cards in them; ``knocker_melds`` and ``defender_melds`` hold k for a card of the k-th meld
    as shown (1-based), 0 for no meld.  Lossless: :func:`result_from_summary` inverts it.

    >>> summary = hand_summary(HandResult("gin", knocker=0, winner=0, points=45, knocker_melds=((0, 1, 2),)))
    >>> summary["outcome"], summary["defender_deadwood"], summary["knocker_melds"][:4].tolist()
    (1, -1, [1, 1, 1, 0])
    """
    def optional(value: Optional[int]) -> int:
        return NONE if value is None else value

    return {
        "outcome": SUMMARY_OUTCOMES.index(result.outcome), "knocker": optional(result.knocker),
        "winner": optional(result.winner), "points": result.points,
        "knocker_deadwood": optional(result.knocker_deadwood), "defender_deadwood": optional(result.defender_deadwood),
        "knock_discard": optional(result.knock_discard), "doubled": result.doubled, "truncated": result.truncated,
        "layoffs": _card_numbers([result.layoffs]), "knocker_melds": _card_numbers(result.knocker_melds),
        "defender_melds": _card_numbers(result.defender_melds),
        "knocker_deadwood_cards": _card_numbers([result.knocker_deadwood_cards]),
        "defender_deadwood_cards": _card_numbers([result.defender_deadwood_cards]),
    }


def result_from_summary(summary: dict[str, Any]) -> HandResult:
    """The :class:`HandResult` a :func:`hand_summary` came from (``.to_dict()`` gives the
    contract's ``hand_result`` with its lists); works on a summary read back from a buffer.

    >>> result = HandResult("knock", knocker=1, winner=1, points=3, knocker_deadwood=5, defender_deadwood=8,
    ...                     layoffs=(4,), knocker_melds=((0, 13, 26), (1, 2, 3)), knock_discard=51)
    >>> result_from_summary(hand_summary(result)) == result
    True
    """
    def optional(name: str) -> Optional[int]:
        value = int(summary[name])
        return None if value == NONE else value

    def melds(name: str) -> tuple[tuple[int, ...], ...]:
        numbers = np.asarray(summary[name])
        return tuple(_ordered(numbers == k) for k in range(1, int(numbers.max(initial=0)) + 1))

    return HandResult(
        outcome=SUMMARY_OUTCOMES[int(summary["outcome"])], knocker=optional("knocker"), winner=optional("winner"),
        points=int(summary["points"]), knocker_deadwood=optional("knocker_deadwood"),
        defender_deadwood=optional("defender_deadwood"), layoffs=_ordered(summary["layoffs"]),
        knocker_melds=melds("knocker_melds"), defender_melds=melds("defender_melds"),
        knocker_deadwood_cards=_ordered(summary["knocker_deadwood_cards"]),
        defender_deadwood_cards=_ordered(summary["defender_deadwood_cards"]),
        knock_discard=optional("knock_discard"), doubled=bool(summary["doubled"]), truncated=bool(summary["truncated"]))


def game_summary(result: GameResult) -> dict[str, Any]:
    """A game's result as fixed-shape numbers: ``winner`` (seat), ``game_bonus``, ``shutout``
    and, as int64[2] arrays indexed by seat, ``scores``, ``hands_won``, ``box_bonus``,
    ``final_scores`` (see the contract's ``game_result``).

    >>> from ginenv.game.match import game_result
    >>> game_summary(game_result(Ruleset(), [104, 0], [3, 0]))["final_scores"].tolist()
    [364, 0]
    """
    def pair(values: Sequence[int]) -> np.ndarray:
        return np.asarray(values, dtype=np.int64)

    return {"winner": result.winner, "game_bonus": result.game_bonus, "shutout": result.shutout,
            "scores": pair(result.scores), "hands_won": pair(result.hands_won), "box_bonus": pair(result.box_bonus),
            "final_scores": pair(result.final_scores)}


def _card_numbers(groups: Sequence[Sequence[int]]) -> np.ndarray:
    """int8[52]: k (1-based) for each card of the k-th group, 0 for the others."""
    numbers = np.zeros(NUM_CARDS, dtype=np.int8)
    for k, group in enumerate(groups, 1):
        numbers[list(group)] = k
    return numbers


def _ordered(flags: Any) -> tuple[int, ...]:
    """The cards whose entries are set, in display order."""
    return tuple(ordered_cards(cards_to_mask(np.flatnonzero(flags).tolist())))


@dataclass(frozen=True)
class HandEnd:
    """What a finished hand gives; per-seat tuples are indexed by seat."""

    hand_result: HandResult
    game_result: Optional[GameResult]
    """Set when the hand ended the game."""
    rewards: tuple[float, float]
    terminated: bool
    """The episode is over (the hand in hand mode, the game in game mode)."""
    truncated: bool
    """The episode was cut off: a hand-mode hand reached ``max_turns_per_hand``."""

    @property
    def done(self) -> bool:
        """The episode is over (terminated or truncated)."""
        return self.terminated or self.truncated

    def info(self, names: Sequence[str] = AGENTS) -> dict[str, Any]:
        """A fresh info dict: ``hand_result`` and, at the end of a game, ``game_result``."""
        info = {"hand_result": self.hand_result.to_dict(names)}
        if self.game_result is not None:
            info["game_result"] = self.game_result.to_dict(names)
        return info

    def summary(self) -> dict[str, Any]:
        """The same as :meth:`info` in fixed shape: ``hand_summary`` (:func:`hand_summary`)
        and, at the end of a game, ``game_summary`` (:func:`game_summary`)."""
        summary = {"hand_summary": hand_summary(self.hand_result)}
        if self.game_result is not None:
            summary["game_summary"] = game_summary(self.game_result)
        return summary


@dataclass(frozen=True)
class EpisodeSpec:
    """The settings of an episode, validated: a bad one is a ``ValueError`` naming it."""

    ruleset: Ruleset
    episode: str = "hand"
    """``"hand"`` (one hand per episode) or ``"game"`` (hands to the target)."""
    reward_mode: str = "points"
    """``"points"`` or ``"win_loss"`` (see the module docstring)."""
    reward_scale: float = 1.0
    """Multiplies ``"points"`` rewards: a finite number in (0, ``MAX_REWARD_SCALE``]; stored as a float."""

    def __post_init__(self) -> None:
        if not isinstance(self.ruleset, Ruleset):
            raise ValueError(f"ruleset must be a Ruleset, got {self.ruleset!r} (EpisodeSpec.build takes names)")
        if self.episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {self.episode!r}")
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {self.reward_mode!r}")
        object.__setattr__(self, "reward_scale",
                           checked_float("reward_scale", self.reward_scale, 0.0, MAX_REWARD_SCALE))

    @classmethod
    def build(cls, ruleset: Ruleset | str | None = "pagat", episode: str = "hand", reward_mode: str = "points",
              reward_scale: float = 1.0, **rule_overrides: Any) -> "EpisodeSpec":
        """A spec from a preset name or a Ruleset with rule overrides (what the envs accept).

        >>> EpisodeSpec.build("classic25", reward_scale=2, gin_bonus=30).ruleset.gin_bonus
        30
        >>> EpisodeSpec.build(episode="match")
        Traceback (most recent call last):
        ...
        ValueError: episode must be one of ('hand', 'game'), got 'match'
        """
        return cls(resolve_ruleset(ruleset, **rule_overrides), episode, reward_mode, reward_scale)

    def settings(self) -> dict[str, Any]:
        """Every setting as flat plain data, rules as ``ruleset.<field>`` (to compare saved states).

        >>> EpisodeSpec.build(knock_limit=7).settings()["ruleset.knock_limit"]
        7
        """
        rules = {f"ruleset.{name}": value for name, value in self.ruleset.to_dict().items()}
        return {"episode": self.episode, "reward_mode": self.reward_mode, "reward_scale": self.reward_scale, **rules}

    def rewards(self, hand: HandResult, game: Optional[GameResult]) -> tuple[float, float]:
        """Both seats' rewards for a finished hand (``game``: the result if it ended the game).

        >>> spec = EpisodeSpec(Ruleset(), reward_scale=0.5)
        >>> spec.rewards(HandResult("knock", knocker=1, winner=1, points=8), None)
        (-4.0, 4.0)
        """
        value = 0.0
        win_loss = self.reward_mode == "win_loss"
        if hand.winner is not None and not (win_loss and self.episode == "game"):
            value += _signed(hand.winner, 1.0 if win_loss else hand.points * self.reward_scale)
        if game is not None:
            if win_loss:
                value += _signed(game.winner, 1.0)
            else:
                w, other = game.winner, 1 - game.winner
                gap = (game.final_scores[w] - game.final_scores[other]) - (game.scores[w] - game.scores[other])
                value += _signed(w, gap * self.reward_scale)
        return value, -value

    def start(self, rng: np.random.Generator, deal: Optional[Deal] = None, scores: Optional[Sequence[int]] = None,
              hands_won: Optional[Sequence[int]] = None) -> "Episode":
        """A new episode: the first hand is ``deal`` or shuffled by ``rng``, which also deals a
        game's later hands.  ``scores`` and ``hands_won`` start a game mid-match (game mode only).

        >>> EpisodeSpec(Ruleset()).start(np.random.default_rng(0), scores=[10, 0])
        Traceback (most recent call last):
        ...
        ValueError: scores is only valid with episode='game'
        >>> EpisodeSpec(Ruleset(), "game").start(np.random.default_rng(0), hands_won=[10**30, 0])
        Traceback (most recent call last):
        ...
        ValueError: hands_won must be two ints 0..1000000, got [1000000000000000000000000000000, 0]
        """
        game: Game
        if self.episode == "game":
            game = MatchState(rng, self.ruleset, scores=(0, 0) if scores is None else scores,
                              hands_won=(0, 0) if hands_won is None else _start_hands_won(hands_won), first_deal=deal)
        else:
            for name, value in (("scores", scores), ("hands_won", hands_won)):
                if value is not None:
                    raise ValueError(f"{name} is only valid with episode='game'")
            game = HandState(deal, self.ruleset) if deal is not None else HandState.random(rng, self.ruleset)
        return Episode(self, game)


class Episode:
    """An episode in play: ``game`` is the :class:`HandState` (hand mode) or the
    :class:`MatchState` (game mode); ``match_view`` the match numbers for the encoder
    (:meth:`MatchInfo.as_array`, zero in hand mode).  True state: not for agents."""

    def __init__(self, spec: EpisodeSpec, game: Game) -> None:
        self.spec, self.game = spec, game
        self.match_view = _match_view(game)

    @property
    def match(self) -> Optional[MatchState]:
        """The game (game mode), else None."""
        return self.game if isinstance(self.game, MatchState) else None

    @property
    def hand(self) -> HandState:
        """The hand in play (in a game, the next one as soon as a hand ends)."""
        return self.game.hand if isinstance(self.game, MatchState) else self.game

    def observation(self, seat: int, rules_view: np.ndarray) -> np.ndarray:
        """Seat ``seat``'s encoded observation of the hand in play (a fresh array; ``rules_view``:
        :func:`~ginenv.game.encoding.rules_vector` of the spec's ruleset)."""
        observation = np.empty(OBSERVATION_SIZE, dtype=np.float32)
        write_observation(self.hand.row, seat, self.match_view, rules_view, observation)
        return observation

    def legal_mask(self) -> np.ndarray:
        """The action mask of the seat to act (a fresh ``int8[108]`` array, the legal ids set)."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        write_mask(self.hand.row, self.spec.ruleset.big_gin, mask)
        return mask

    def apply_action(self, action: Any, mask: Optional[np.ndarray] = None) -> Optional[HandEnd]:
        """Apply an action to the hand in play; returns the :class:`HandEnd` if the hand ended.
        An illegal action raises :class:`~ginenv.game.actions.IllegalActionError`, changing nothing.
        ``mask``: :meth:`legal_mask` of this position, where the caller has it (then legality is
        read from it)."""
        hand = self.hand
        hand.apply_action(action, mask)
        return self._end_of_hand() if hand.is_over else None

    def settle(self) -> HandEnd:
        """Score and book a hand that the compiled core ended in place (batched stepping)."""
        self.hand.settle()
        return self._end_of_hand()

    def _end_of_hand(self) -> HandEnd:
        result: HandResult = self.hand.result  # type: ignore[assignment]
        match, final = self.match, None
        if match is not None:
            match.end_hand()
            final = match.result
            self.match_view[:] = _match_view(match)
        over = match is None or final is not None
        truncated = match is None and result.truncated
        return HandEnd(result, final, self.spec.rewards(result, final), over and not truncated, truncated)

    def move_to(self, row: np.ndarray, match_view: np.ndarray) -> None:
        """Keep the hand's core row in ``row`` and the match numbers in ``match_view`` (rows of
        the batch arrays of :mod:`ginenv.envs.batched`); call again after a game's next hand starts."""
        self.hand.move_to(row)
        match_view[:] = self.match_view
        self.match_view = match_view

    def to_state(self, history: bool = True) -> dict[str, Any]:
        """The hand or game as plain data (:meth:`HandState.to_state`, :meth:`MatchState.to_state`;
        ``history``: a game's finished hands too)."""
        return self.game.to_state(history) if isinstance(self.game, MatchState) else self.game.to_state()

    @classmethod
    def from_state(cls, spec: EpisodeSpec, state: dict[str, Any], rng: np.random.Generator) -> "Episode":
        """Inverse of :meth:`to_state`; ``rng`` deals a game's later hands.

        >>> spec = EpisodeSpec.build(episode="game")
        >>> episode = spec.start(np.random.default_rng(0))
        >>> Episode.from_state(spec, episode.to_state(), np.random.default_rng(0)).hand == episode.hand
        True
        """
        if spec.episode == "game":
            return cls(spec, MatchState.from_state(state, rng))
        return cls(spec, HandState.from_state(state))


def _match_view(game: Game) -> np.ndarray:
    if isinstance(game, MatchState):
        info = MatchInfo((game.scores[0], game.scores[1]), (game.hands_won[0], game.hands_won[1]), game.ruleset.target)
        return info.as_array()
    return NO_MATCH.as_array()


def _start_hands_won(hands_won: Any) -> tuple[int, int]:
    """The ``hands_won`` a game starts with: two ints ``0..MAX_START_HANDS_WON``, else a ``ValueError`` naming it."""
    try:
        counts = [plain_int(value) for value in hands_won]
    except TypeError:  # not iterable
        counts = []
    if len(counts) != 2 or any(count is None or not 0 <= count <= MAX_START_HANDS_WON for count in counts):
        raise ValueError(f"hands_won must be two ints 0..{MAX_START_HANDS_WON}, got {hands_won!r}")
    return counts[0], counts[1]  # type: ignore[return-value]


def _signed(seat: int, value: float) -> float:
    return value if seat == 0 else -value


__all__ = ["AGENTS", "EPISODES", "NONE", "REWARD_MODES", "SUMMARY_OUTCOMES", "HandEnd", "EpisodeSpec", "Episode",
           "game_summary", "hand_summary", "result_from_summary"]
