"""A Gymnasium ``VectorEnv`` of single-agent Gin Rummy: ``num_envs`` learners, each against an
opponent, every game stepped on one :class:`~ginenv.envs.batched.BatchedGinEnv`.

:class:`GymVectorGinEnv` is the batched twin of :class:`~ginenv.envs.single_agent.SingleAgentGinEnv`
(same observation, actions, rewards and keyword arguments); ``gymnasium.make_vec("GinRummy-v1",
num_envs=N)`` builds it.  The opponent is any agent spec (:mod:`ginenv.envs.opponents`) or agent object;
one agent decides for all games, a whole batch per call (:func:`ginenv.envs.opponents.act_batch`).  A
``step`` plays the learners' actions, then the opponents' moves (only in the games where it
is their turn) until every game waits for its learner.

**Autoreset: same step** (``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``).  When
an episode ends, that step returns its ``terminated``/``truncated`` flag and last reward, and
the observation is already the *next* episode's first (its opponent has moved up to the
learner's turn).  The ended episode's info is in ``infos["final_info"]`` and the learner's
last observation of it (as :class:`~ginenv.envs.single_agent.SingleAgentGinEnv` returns it at the
end: the mask is all zero) in ``infos["final_obs"]`` (float32[N, OBSERVATION_SIZE]), both
masked by ``infos["_final_info"]`` / ``infos["_final_obs"]``.  The only cut-off,
``max_turns_per_hand``, comes as ``truncated``: bootstrap it from ``final_obs``.

Infos are Gymnasium's dict of arrays, every key with its ``_key`` mask: ``"action_mask"``
bool[N, 108] (as :meth:`GymVectorGinEnv.action_masks`), ``"agent"`` (each learner's seat name),
and where a hand ended the fixed-shape ``"hand_summary"`` / ``"game_summary"``
(:func:`ginenv.envs.episode.hand_summary`: a dict of typed arrays, one row per game, that buffers
can stack) and, unless ``info_lists=False`` (what the registered Gymnasium ids pass), the
latest ``"hand_result"`` / ``"game_result"`` (object arrays that hold each game's contract dict,
whose fields may be ``None``); under ``illegal_action="terminate"`` a final info may hold
``"illegal_action"`` and ``"illegal_reason"``.

``reset(seed=s)`` seeds the games (game ``i`` deals from the ``i``-th child of
``SeedSequence(s)``), the seat draws and the opponent from independent streams of ``s``: the
same seed and actions give the same episodes.

>>> envs = GymVectorGinEnv(4, "random", seat="player_1")
>>> obs, infos = envs.reset(seed=0)
>>> obs.shape, infos["action_mask"].shape, infos["agent"].tolist()
((4, 2150), (4, 108), ['player_1', 'player_1', 'player_1', 'player_1'])
>>> actions = envs.action_space.sample(mask=tuple(envs.action_masks().astype(np.int8)))
>>> obs, rewards, terminated, truncated, infos = envs.step(actions)
>>> rewards.shape, terminated.dtype
((4,), dtype('bool'))
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ginenv.envs.aec import AGENTS, checked_reset_options
from ginenv.envs.batched import BatchedGinEnv, checked_actions, legal_moves
from ginenv.envs.opponents import act_batch, agent_from_spec
from ginenv.envs.single_agent import ILLEGAL_ACTION_MODES, MAX_REDEALS, SEATS, checked_render_mode
from ginenv.game.actions import NUM_ACTIONS, IllegalActionError
from ginenv.game.checks import checked_flag, checked_float, checked_seed
from ginenv.game.encoding import OBSERVATION_HIGH, OBSERVATION_SIZE
from ginenv.seeding import derive_seed

NAMES = np.array(AGENTS)
LIST_INFOS = ("hand_result", "game_result")
"""The contract's result dicts (names, ``None``, card lists): left out under ``info_lists=False``."""


@dataclass
class StepRecord:
    """What one ``reset`` or ``step`` gathers while the games move (``N`` games)."""

    fresh: np.ndarray
    """bool[N]: the game is in an episode that began during this call (its rewards wait for
    the next step, its infos are the new episode's)."""
    rewards: np.ndarray
    """float32[N]: the learner's reward in the episode it acted in."""
    terminated: np.ndarray
    truncated: np.ndarray
    current: dict[int, dict] = field(default_factory=dict)
    """Game -> infos of its current episode gathered in this call."""
    final: dict[int, dict] = field(default_factory=dict)
    """Game -> infos of its episode that ended in this call."""
    final_obs: dict[int, np.ndarray] = field(default_factory=dict)
    """Game -> its learner's last observation of the episode that ended in this call."""
    skipped: dict[int, int] = field(default_factory=dict)
    """Game -> episodes that ended before its learner's first turn (dealt again)."""

    @classmethod
    def start(cls, num_envs: int, fresh: bool, rewards: np.ndarray) -> "StepRecord":
        """A record for ``num_envs`` games, all ``fresh`` or none, starting from ``rewards``."""
        return cls(np.full(num_envs, fresh), rewards.copy(), np.zeros(num_envs, bool), np.zeros(num_envs, bool))


class GymVectorGinEnv(VectorEnv):
    """``num_envs`` games of one learner each against ``opponent``, as a Gymnasium ``VectorEnv``.

    Args:
        num_envs: number of games (1..100000).
        opponent: an agent spec (:mod:`ginenv.envs.opponents`; default ``"random"``; ``"greedy"``,
            ``"simple"``, ``"montecarlo:samples=64"``, ``{"name": ...}``), built afresh with
            a seed derived from each seeded ``reset``; or an agent object (``act``, and
            ``act_batch`` for speed).  One agent plays every game; its ``reset`` is not
            called (the built-in agents keep nothing from hand to hand).
        seat: the learners' seat: ``"player_0"``, ``"player_1"`` or ``"random"`` (default;
            drawn for each game at the start of each episode).
        illegal_action: ``"raise"`` (default: :class:`~ginenv.IllegalActionError` naming the
            game, no game changed) or ``"terminate"`` (that game's episode ends with
            ``terminated=True`` and reward ``illegal_reward`` and it is dealt afresh; the
            other games step as usual).
        illegal_reward: the reward of an illegal action under ``"terminate"`` (default -1).
        num_workers: processes that step the games (see :class:`~ginenv.envs.batched.BatchedGinEnv`).
        info_lists: keep the contract's ``"hand_result"`` / ``"game_result"`` in the infos (default
            ``True``); ``False`` leaves only the fixed-shape ``"hand_summary"`` / ``"game_summary"``.
        observation: only ``"vector"`` (RLlib's dict layout, ``"rllib"``, is the single env's:
            ``gymnasium.make_vec(..., vectorization_mode="sync", observation="rllib")``).
        render_mode: only ``None`` (this env does not render; ``SingleAgentGinEnv`` does); any
            other is a :class:`~ginenv.envs.single_agent.RenderModeError`.
        ruleset, episode, reward_mode, reward_scale, **rule_overrides: as for
            :class:`~ginenv.envs.batched.BatchedGinEnv`.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 8, opponent: Any = "random", *, seat: str = "random",
                 ruleset: Any = "pagat", episode: str = "hand", reward_mode: str = "points",
                 reward_scale: float = 1.0, illegal_action: str = "raise", illegal_reward: float = -1.0,
                 num_workers: int = 1, info_lists: bool = True, observation: str = "vector",
                 render_mode: Optional[str] = None, **rule_overrides: Any) -> None:
        if seat not in SEATS:
            raise ValueError(f"seat must be one of {SEATS}, got {seat!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        if observation != "vector":
            raise ValueError(f"observation must be 'vector' (the single env's 'rllib' layout needs "
                             f"vectorization_mode='sync'), got {observation!r}")
        self.render_mode = checked_render_mode(render_mode, (None,))
        self.info_lists = checked_flag("info_lists", info_lists)
        self.seat, self.illegal_action = seat, illegal_action
        self.illegal_reward = checked_float("illegal_reward", illegal_reward, -np.inf)
        self._opponent_spec = opponent if isinstance(opponent, (str, Mapping)) else None
        self.opponent = agent_from_spec(opponent, None) if self._opponent_spec is not None else opponent
        if not callable(getattr(self.opponent, "act", None)):
            raise TypeError(f"opponent must be an agent spec or have an act(observation) method, "
                            f"got {type(opponent).__name__}")
        self.games = BatchedGinEnv(num_envs, ruleset=ruleset, episode=episode, reward_mode=reward_mode,
                                  reward_scale=reward_scale, num_workers=num_workers, copy=False,
                                  final_observations=True, **rule_overrides)
        self.num_envs = self.games.num_envs
        self.single_observation_space = spaces.Box(0.0, OBSERVATION_HIGH, (OBSERVATION_SIZE,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._seats = np.zeros(self.num_envs, dtype=np.int64)
        self._pending = np.zeros(self.num_envs, dtype=np.float32)
        self._views: Optional[tuple[np.ndarray, np.ndarray, np.ndarray]] = None

    # ----- Gymnasium API ----------------------------------------------------------------
    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict[str, Any]] = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every game afresh and let the opponents move up to each learner's turn.

        ``seed``: one int for the whole batch (or ``None``: the generators go on); ``options``: ``None``
        or ``{}`` (any key is a ``ValueError`` naming it).
        """
        seed = checked_seed(seed)
        checked_reset_options(options, ())
        if seed is not None:
            self.np_random = np.random.default_rng(derive_seed(seed, 1))
            self._np_random_seed = seed
            if self._opponent_spec is not None:
                self.opponent = agent_from_spec(self._opponent_spec, derive_seed(seed, 2))
        self._views = self.games.reset(seed)
        self._draw_seats(np.ones(self.num_envs, dtype=bool))
        self._pending[:] = 0
        record = StepRecord.start(self.num_envs, True, self._pending)
        self._play_opponents(record)
        return self._views[0].copy(), self._infos(record)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one learner action per game (int[N]), then the opponents up to each learner's turn."""
        if self._views is None:
            raise RuntimeError("call reset() first")
        actions = checked_actions(actions, self.num_envs)
        legal = legal_moves(actions, self._views[1])
        if self.illegal_action == "raise" and not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(f"env {bad}: {_illegal(actions[bad], self._views[1][bad])}; no game was stepped")
        record = StepRecord.start(self.num_envs, False, self._pending)
        self._pending[:] = 0
        if not legal.all():
            self._terminate(actions, ~legal, record)
        self._advance(actions, legal, record)
        self._play_opponents(record)
        return self._views[0].copy(), record.rewards, record.terminated, record.truncated, self._infos(record)

    def action_masks(self) -> np.ndarray:
        """bool[N, 108]: each learner's legal actions now (the ``sb3_contrib`` hook).

        >>> envs = GymVectorGinEnv(2)
        >>> _ = envs.reset(seed=0)
        >>> envs.action_masks().sum(axis=1).tolist()
        [2, 2]
        """
        if self._views is None:
            raise RuntimeError("call reset() first")
        return self._views[1].astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the batched engine's worker processes, if any."""
        self.games.close()

    # ----- the games' moves -------------------------------------------------------------
    def _draw_seats(self, games: np.ndarray) -> None:
        """Seat the learners of ``games`` (bool[N]) for their new episodes."""
        count = int(games.sum())
        if count and self.seat == "random":
            self._seats[games] = self.np_random.integers(2, size=count)
        elif count:
            self._seats[games] = AGENTS.index(self.seat)

    def _play_opponents(self, record: StepRecord) -> None:
        """The opponents move, a batch per call, until it is every learner's turn."""
        obs, masks, to_act = self._views  # type: ignore[misc]

        while True:
            waiting = to_act != self._seats
            if not waiting.any():
                return
            actions = np.zeros(self.num_envs, dtype=np.int64)
            actions[waiting] = act_batch(self.opponent, obs[waiting], masks[waiting])
            self._advance(actions, waiting, record)

    def _advance(self, actions: np.ndarray, active: Optional[np.ndarray], record: StepRecord) -> None:
        """Step the ``active`` games (all for ``None``) and book their rewards, ends and infos."""
        *_, rewards, terminated, truncated, hand_infos = self.games.step(actions, active)
        learner = rewards[np.arange(self.num_envs), self._seats]
        fresh = record.fresh
        record.rewards[~fresh] += learner[~fresh]
        self._pending[fresh] += learner[fresh]
        for i, info in enumerate(hand_infos):
            if info:
                kept = info if self.info_lists else {k: v for k, v in info.items() if k not in LIST_INFOS}
                record.current.setdefault(i, {}).update(kept)
        ended = terminated | truncated
        for i in np.flatnonzero(ended).tolist():
            info = record.current.pop(i, {})
            final_obs = info.pop("final_observation", None)
            if fresh[i]:  # ended before its learner's first turn: dealt again, as SingleAgentGinEnv does
                self._pending[i] = 0
                record.skipped[i] = record.skipped.get(i, 0) + 1
                if record.skipped[i] > MAX_REDEALS:
                    raise RuntimeError(f"game {i}: {MAX_REDEALS + 1} episodes in a row ended before the "
                                       "learner's first turn")
            else:
                record.final[i] = {**info, "agent": str(NAMES[self._seats[i]])}
                record.final_obs[i] = final_obs[self._seats[i]]
                record.terminated[i], record.truncated[i] = terminated[i], truncated[i]
        record.fresh |= ended
        self._draw_seats(ended)

    def _terminate(self, actions: np.ndarray, illegal: np.ndarray, record: StepRecord) -> None:
        """``illegal_action="terminate"``: end the episodes of the ``illegal`` games and deal them afresh."""
        masks = self._views[1]  # type: ignore[index]
        for i in np.flatnonzero(illegal).tolist():
            record.final[i] = {"agent": str(NAMES[self._seats[i]]), "illegal_action": int(actions[i]),
                               "illegal_reason": _illegal(actions[i], masks[i])}
            record.final_obs[i] = self._views[0][i].copy()  # type: ignore[index]  # nothing moved
        record.rewards[illegal] = self.illegal_reward
        record.terminated[illegal] = True
        record.fresh[illegal] = True
        self.games.restart(np.flatnonzero(illegal).tolist())
        self._draw_seats(illegal)

    def _infos(self, record: StepRecord) -> dict[str, Any]:
        """Gymnasium's dict-of-arrays infos for this call (see the module docstring)."""
        everyone = np.ones(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {"action_mask": self.action_masks(), "_action_mask": everyone,
                                 "agent": NAMES[self._seats], "_agent": everyone.copy()}
        for i, info in record.current.items():
            put_infos(infos, info, i, self.num_envs)
        for i, info in record.final.items():
            put_infos(infos.setdefault("final_info", {}), info, i, self.num_envs)
            put_infos(infos, {}, i, self.num_envs, "_final_info", "_final_obs")
            final_obs = infos.setdefault("final_obs", np.zeros((self.num_envs, OBSERVATION_SIZE), np.float32))
            final_obs[i] = record.final_obs[i]
        return infos


STACKED = ("hand_summary", "game_summary")
"""Info keys of fixed shape (:mod:`ginenv.envs.episode`): stacked field by field into typed arrays."""


def put_infos(infos: dict[str, Any], info: dict[str, Any], i: int, num_envs: int, *masks: str) -> None:
    """Enter game ``i``'s ``info`` in the dict-of-arrays ``infos``: each value into an object
    array (results are dicts whose fields may be ``None``), a :data:`STACKED` one field by
    field into typed arrays; its ``_key`` mask set; also set the extra ``masks``.

    >>> infos = {}
    >>> put_infos(infos, {"hand_result": {"winner": None}, "hand_summary": {"points": 12}}, 1, 2)
    >>> infos["hand_result"].tolist(), infos["_hand_result"].tolist(), infos["hand_summary"]["points"].tolist()
    ([None, {'winner': None}], [False, True], [0, 12])
    """
    for key, value in info.items():
        if key in STACKED:  # nested the Gymnasium way: each field with its own mask
            stacked = infos.setdefault(key, {})
            for name, number in value.items():
                number = np.asarray(number)
                stacked.setdefault(name, np.zeros((num_envs, *number.shape), number.dtype))[i] = number
                stacked.setdefault(f"_{name}", np.zeros(num_envs, dtype=bool))[i] = True
        else:
            infos.setdefault(key, np.full(num_envs, None, dtype=object))[i] = value
    for mask in (*(f"_{key}" for key in info), *masks):
        infos.setdefault(mask, np.zeros(num_envs, dtype=bool))[i] = True


def _illegal(action: int, mask: np.ndarray) -> str:
    """Why ``action`` may not be played under ``mask``.

    >>> _illegal(3, np.array([0, 1, 1, 0]))
    'illegal action 3 (legal: [1, 2])'
    """
    return f"illegal action {action} (legal: {np.flatnonzero(mask).tolist()})"
