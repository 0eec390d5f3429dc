"""Batched stepping: many games at once, arrays in and arrays out, auto-reset.

Built on the same engine (:class:`~ginenv.hand.HandState` / :class:`~ginenv.match.MatchState`)
and the same encoder as the AEC env, so both give identical observations; this API only
saves the per-step overhead of the AEC protocol.  Each game is self-play: the returned
observation and mask are those of the seat to act in that game (``to_act``).

>>> venv = VectorGinEnv(4, seed=0)
>>> obs, masks, to_act = venv.reset()
>>> obs.shape, masks.shape, to_act.tolist()
((4, 2135), (4, 108), [0, 0, 0, 0])
>>> actions = [int(np.flatnonzero(m)[0]) for m in masks]
>>> obs, masks, to_act, rewards, dones, truncs, infos = venv.step(actions)
>>> rewards.shape, bool(dones.any())
((4, 2), False)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from .actions import NUM_ACTIONS
from .encoding import (NO_MATCH, OBSERVATION_SIZE, HistoryPacker, MatchInfo, encode_many, observation_bits,
                       observation_numbers)
from .hand import HandState
from .match import MatchState
from .rules import resolve_ruleset

Game = Union[HandState, MatchState]


class VectorGinEnv:
    """``num_envs`` independent self-play games of Gin Rummy.

    Args:
        num_envs: number of games stepped together.
        ruleset: preset name or :class:`~ginenv.rules.Ruleset`.
        episode: ``"hand"`` or ``"game"`` (as in :func:`ginenv.env`).
        reward_mode: ``"points"`` (signed hand points; game mode adds the bonuses at the end)
            or ``"win_loss"`` (+1/-1 per hand in hand mode, per game in game mode).
        reward_scale: multiplies ``"points"`` rewards.
        seed: seeds every game's generator (game i uses the i-th child seed).
        **rule_overrides: individual :class:`~ginenv.rules.Ruleset` fields.

    ``step(actions)`` returns ``(obs, masks, to_act, rewards, terminated, truncated,
    infos)``: ``rewards`` is float32 ``[N, 2]`` indexed by seat (zero-sum per row);
    a finished game is reset at once, its returned observation is the new episode's
    first, and ``infos[i]`` holds ``hand_result`` (and ``game_result``) dicts for games
    where a hand ended this step.
    """

    def __init__(self, num_envs: int, ruleset: Any = "pagat", episode: str = "hand",
                 reward_mode: str = "points", reward_scale: float = 1.0, seed: Optional[int] = None,
                 **rule_overrides: Any) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if episode not in ("hand", "game"):
            raise ValueError(f"episode must be 'hand' or 'game', got {episode!r}")
        if reward_mode not in ("points", "win_loss"):
            raise ValueError(f"reward_mode must be 'points' or 'win_loss', got {reward_mode!r}")
        if not isinstance(reward_scale, (int, float)) or not reward_scale > 0:
            raise ValueError(f"reward_scale must be a positive number, got {reward_scale!r}")
        self.num_envs = num_envs
        self.ruleset = resolve_ruleset(ruleset, **rule_overrides)
        self.episode, self.reward_mode, self.reward_scale = episode, reward_mode, float(reward_scale)
        self._seed(seed)
        self._games: list[Game] = []
        self._packers = [HistoryPacker() for _ in range(num_envs)]
        self._obs = np.zeros((num_envs, OBSERVATION_SIZE), dtype=np.float32)
        self._masks = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)
        self._to_act = np.zeros(num_envs, dtype=np.int8)

    def _seed(self, seed: Optional[int]) -> None:
        children = np.random.SeedSequence(seed).spawn(self.num_envs)
        self._rngs = [np.random.default_rng(child) for child in children]

    def _new_game(self, i: int) -> Game:
        if self.episode == "game":
            return MatchState(self._rngs[i], self.ruleset)
        return HandState.random(self._rngs[i], self.ruleset)

    def _hand(self, game: Game) -> HandState:
        return game.hand if isinstance(game, MatchState) else game

    def _match_info(self, game: Game) -> MatchInfo:
        if isinstance(game, MatchState):
            return MatchInfo((game.scores[0], game.scores[1]), (game.hands_won[0], game.hands_won[1]),
                             self.ruleset.target)
        return NO_MATCH

    def _write_all(self) -> None:
        """Encode every game's seat to act into the output buffers (one batched unpack)."""
        bits, numbers, mask_bits = [], [], []
        for i, game in enumerate(self._games):
            hand = self._hand(game)
            seat: int = hand.current_player  # type: ignore[assignment]
            self._to_act[i] = seat
            bits.append(observation_bits(hand, seat, self._packers[i]))
            numbers.append(observation_numbers(hand, seat, self._match_info(game)))
            mask_bits.append(hand.legal_action_bits())
        encode_many(bits, numbers, self._obs, mask_bits, self._masks)

    def reset(self, seed: Optional[int] = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game afresh; returns ``(obs, masks, to_act)`` (copies)."""
        if seed is not None:
            self._seed(seed)
        self._games = [self._new_game(i) for i in range(self.num_envs)]
        self._write_all()
        return self._obs.copy(), self._masks.copy(), self._to_act.copy()

    def step(self, actions: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                    np.ndarray, np.ndarray, list[dict]]:
        """Apply one action per game (for its seat to act); see the class docstring."""
        if not self._games:
            raise RuntimeError("call reset() first")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        rewards = np.zeros((self.num_envs, 2), dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for i, game in enumerate(self._games):
            hand = self._hand(game)
            game.apply_action(int(actions[i]))
            if hand.is_over:
                done = self._score_hand(i, game, hand, rewards[i], infos[i])
                if done:
                    truncated[i] = hand.result.truncated and self.episode == "hand"  # type: ignore[union-attr]
                    terminated[i] = not truncated[i]
                    self._games[i] = self._new_game(i)
        self._write_all()
        return (self._obs.copy(), self._masks.copy(), self._to_act.copy(), rewards, terminated, truncated, infos)

    def _score_hand(self, i: int, game: Game, hand: HandState, reward: np.ndarray, info: dict) -> bool:
        """Fill rewards and infos for a finished hand; True when the episode ended."""
        result = hand.result
        info["hand_result"] = result.to_dict()  # type: ignore[union-attr]
        win_loss = self.reward_mode == "win_loss"
        if result.winner is not None and not (win_loss and self.episode == "game"):  # type: ignore[union-attr]
            value = 1.0 if win_loss else result.points * self.reward_scale  # type: ignore[union-attr]
            reward[result.winner] += value  # type: ignore[union-attr]
            reward[1 - result.winner] -= value  # type: ignore[union-attr]
        if not isinstance(game, MatchState):
            return True
        if not game.is_over:
            return False
        final = game.result
        info["game_result"] = final.to_dict()  # type: ignore[union-attr]
        w = final.winner  # type: ignore[union-attr]
        if win_loss:
            value = 1.0
        else:
            value = ((final.final_scores[w] - final.final_scores[1 - w])  # type: ignore[union-attr]
                     - (final.scores[w] - final.scores[1 - w])) * self.reward_scale  # type: ignore[union-attr]
        reward[w] += value
        reward[1 - w] -= value
        return True
