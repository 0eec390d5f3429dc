"""Single-agent Gymnasium view of the two-player env: one learner against a fixed opponent.

:class:`SingleAgentGinEnv` wraps :class:`ginenv.envs.aec.raw_env` (``gin_rummy_v1``).  The learner
is one seat; every turn of the other seat is played inside ``reset``/``step`` by an
*opponent*: any callable ``opponent(observation) -> action id``, any object with an
``act(observation) -> action id`` method (the :mod:`agents` protocol), or an agent spec
such as ``"greedy"`` (built through :mod:`ginenv.envs.opponents`; what the Gymnasium ids of
:mod:`ginenv.envs.registration` pass).  The opponent gets
exactly the observation dict the AEC env gives its seat (``"observation"`` and
``"action_mask"``) and nothing else.

The wrapper holds no rule logic: it uses only ``reset``/``step``/``observe``, ``agent_selection``,
``rewards``, ``terminations``, ``truncations``, ``infos`` and ``render`` of the AEC env.

* ``observation_space`` is the AEC env's observation vector ``Box`` (the ``"observation"``
  part of its dict), or with ``observation="rllib"`` a ``Dict`` of that vector under
  ``"observations"`` and the mask under ``"action_mask"`` (float32[108], 1.0 where legal: the
  layout of RLlib's action-masking examples); ``action_space`` is ``Discrete(108)`` (the public
  action ids).
* :meth:`SingleAgentGinEnv.action_masks` gives the learner's legal actions as a bool array,
  the method ``sb3_contrib.MaskablePPO`` looks for.
* The reward of a step is the learner's reward summed over every AEC step from its action
  up to its next turn (or the end of the episode), so the rewards of an episode add up to
  the learner's total reward in the AEC env.

>>> env = SingleAgentGinEnv(seat="player_0")
>>> obs, info = env.reset(seed=1)
>>> obs.shape == env.observation_space.shape, info["agent"], int(env.action_masks().sum())
(True, 'player_0', 2)
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Optional, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ginenv.envs.aec import AGENTS, RESET_OPTIONS, checked_reset_options, in_layout, layout_space, raw_env
from ginenv.envs.opponents import OpponentSpec, agent_from_spec, policy_of
from ginenv.game.actions import NUM_ACTIONS, IllegalActionError
from ginenv.game.checks import checked_flag, checked_float, checked_seed
from ginenv.seeding import derive_seed

Observation = dict[str, np.ndarray]
Opponent = Union[Callable[[Observation], int], OpponentSpec, Any]

SEATS = (*AGENTS, "random")
RESET_KEYS = (*RESET_OPTIONS, "seat")
"""The keys ``reset(options=...)`` takes; any other is a ``ValueError`` naming it."""
ILLEGAL_ACTION_MODES = ("raise", "terminate")
MAX_REDEALS = 100
"""How many times in a row ``reset`` re-deals an episode that ended before the learner's turn."""
END_INFOS = ("hand_result", "game_result", "hand_summary", "game_summary")
"""The AEC env's end-of-hand / end-of-game infos that ``reset`` and ``step`` pass on."""
OBSERVATIONS = ("vector", "rllib")
"""The values of ``observation``: the vector alone, or RLlib's ``{"observations", "action_mask"}`` dict."""
RENDER_MODES = (None, "ansi", "human")


class RenderModeError(ValueError, TypeError):
    """A ``render_mode`` the env does not have.  A ``ValueError`` like every bad argument, and a
    ``TypeError`` as well: what SB3's ``make_vec_env`` (which asks ``gymnasium.make`` for
    ``render_mode="rgb_array"``) takes as "make the env without a render mode"."""


def checked_render_mode(render_mode: Any, allowed: tuple[Optional[str], ...] = RENDER_MODES) -> Optional[str]:
    """``render_mode`` if it is one of ``allowed``, else a :class:`RenderModeError` naming them.

    >>> checked_render_mode("rgb_array")
    Traceback (most recent call last):
    ...
    ginenv.envs.single_agent.RenderModeError: render_mode must be None, 'ansi' or 'human', got 'rgb_array'
    """
    if render_mode not in allowed:
        *others, last = map(repr, allowed)
        named = f"{', '.join(others)} or {last}" if others else last
        raise RenderModeError(f"render_mode must be {named}, got {render_mode!r}")
    return render_mode


class SingleAgentGinEnv(gym.Env):
    """Gin Rummy for one learner against a fixed opponent, as a ``gymnasium.Env``.

    Args:
        opponent: plays the other seat.  A callable ``opponent(observation) -> int`` or an
            object with ``act(observation) -> int`` (e.g. an agent from :mod:`agents`);
            ``observation`` is the opponent's own AEC observation dict
            (``"observation"``: float32 vector, ``"action_mask"``: int8[108]); or an agent
            spec (``"greedy"``, ``"montecarlo:samples=64"``, ``{"name": "simple"}``: any
            spec of :mod:`ginenv.envs.opponents`), built afresh with a seed derived from the seed
            of every seeded ``reset``.  Default
            ``None``: a uniformly random legal action drawn from this env's seeded
            generator (``np_random``), so ``reset(seed=...)`` makes whole episodes
            reproducible.  If the opponent also has a ``reset()`` method (as the
            agents of this project have), it is called at the start of every hand.  An
            illegal opponent action raises :class:`~ginenv.IllegalActionError`.
        seat: the learner's seat: ``"player_0"``, ``"player_1"`` or ``"random"`` (default;
            drawn afresh at each ``reset`` from ``np_random``).  ``reset(options={"seat": ...})``
            fixes it for one episode.
        ruleset, episode, render_mode, reward_mode, reward_scale, info_lists, **rule_overrides:
            passed to :class:`ginenv.envs.aec.raw_env` unchanged (a preset name or Ruleset;
            ``"hand"`` or ``"game"``; ``None``/``"ansi"``/``"human"``; ``"points"``/``"win_loss"``;
            the points multiplier; whether the infos keep the contract's ``hand_result`` /
            ``game_result`` (default ``True``); any Ruleset field such as ``gin_bonus=25``).  Any
            other ``render_mode`` (such as the ``"rgb_array"`` SB3's ``make_vec_env`` asks for)
            is a :class:`RenderModeError`.
        observation: ``"vector"`` (default: the observation vector) or ``"rllib"`` (a ``Dict``:
            ``"observations"``, the vector, and ``"action_mask"``, float32[108] with 1.0 where
            legal, as RLlib's ``ActionMaskingTorchRLModule`` reads them).
        illegal_action: what ``step`` does with an action the learner may not take.
            ``"raise"`` (default): raise :class:`~ginenv.IllegalActionError` and leave the
            state unchanged, as the AEC env does.  ``"terminate"``: end the episode
            (``terminated=True``) with reward ``illegal_reward`` and
            ``info["illegal_action"]`` set to the action and ``info["illegal_reason"]`` to
            the error text; the game itself is not changed.  ``"terminate"`` makes every
            element of ``action_space`` a valid ``step`` argument, which generic tools such
            as ``gymnasium.utils.env_checker.check_env`` (it steps ``action_space.sample()``)
            require.  With action masking the learner never plays an illegal action.
        illegal_reward: the reward of an illegal action under ``illegal_action="terminate"``
            (default ``-1.0``; not scaled by ``reward_scale``).

    ``reset(seed=..., options=...)``:
        ``seed`` is passed unchanged to the AEC env (so the deal is the one
        ``raw_env().reset(seed=seed)`` gives) and also seeds ``np_random`` (the seat draw
        and the default opponent) through an independent stream derived from it.
        ``options`` go to the AEC env (``"deal"``; in game mode ``"scores"`` and
        ``"hands_won"``), except ``"seat"`` which fixes the learner's seat for this
        episode; any other key is a ``ValueError`` naming it, and changes nothing.  Then
        the opponent plays until it is the learner's turn.  If the episode ends before the
        learner's first turn (the opponent knocked on its very first turn), it is dealt again
        from the env's generator, up to :data:`MAX_REDEALS` times; with an explicit
        ``"deal"`` that is a ``ValueError`` instead.  The info dict
        has ``"action_mask"`` (as :meth:`action_masks`, in every info ``reset`` and ``step``
        return), ``"agent"`` (the learner's seat name), ``"skipped_episodes"`` (the number of such
        re-deals) and, in game mode, ``"hand_result"``/``"hand_results"`` if the opponent
        already ended a hand; the reward of that hand is added to the first ``step``'s reward.

    ``step(action)`` returns ``(observation, reward, terminated, truncated, info)``:
        the learner's observation vector at its next turn (or at the end);
        the learner's reward summed over the span; ``terminated``/``truncated`` as the AEC env
        reports them for the learner (a hand cut off by ``max_turns_per_hand`` is
        truncated); ``info`` has ``"agent"`` and, when present in the span,
        ``"hand_result"`` (the last hand that ended), ``"hand_results"`` (all of them, in
        order; in game mode the opponent may end a hand and play on into the next one)
        and ``"game_result"`` (game mode), exactly as the AEC env's ``infos`` give them
        (likewise its fixed-shape ``"hand_summary"`` / ``"game_summary"``).  With
        ``info_lists=False`` (what the registered Gymnasium ids pass) the infos hold those
        alone, no ``"hand_result"``/``"hand_results"``/``"game_result"``: every value is then
        a number, a string or an array of one shape, so that Gymnasium's ``SyncVectorEnv`` /
        ``AsyncVectorEnv`` can stack the infos of many envs.
        Stepping a finished episode raises ``RuntimeError``; call ``reset``.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "gin_rummy_single_v0", "render_fps": 4}
    """``render_fps`` is nominal (Gymnasium's checker asks for one): the env never waits between frames."""

    def __init__(self, opponent: Optional[Opponent] = None, *, seat: str = "random", ruleset: Any = "pagat",
                 episode: str = "hand", render_mode: Optional[str] = None, reward_mode: str = "points",
                 reward_scale: float = 1.0, illegal_action: str = "raise", illegal_reward: float = -1.0,
                 info_lists: bool = True, observation: str = "vector", **rule_overrides: Any) -> None:
        if seat not in SEATS:
            raise ValueError(f"seat must be one of {SEATS}, got {seat!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        self.render_mode = checked_render_mode(render_mode)
        self._opponent_spec = opponent if isinstance(opponent, (str, Mapping)) else None
        self._set_opponent(agent_from_spec(opponent, None) if self._opponent_spec is not None else opponent)
        self.seat = seat
        self.illegal_action = illegal_action
        self.illegal_reward = checked_float("illegal_reward", illegal_reward, -math.inf)
        self.info_lists = checked_flag("info_lists", info_lists)
        self.observation = observation
        self.aec = raw_env(ruleset=ruleset, episode=episode, render_mode=render_mode, reward_mode=reward_mode,
                           reward_scale=reward_scale, info_lists=info_lists, **rule_overrides)
        self.observation_space = layout_space(observation, self.aec.observation_space(AGENTS[0])["observation"])
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.agent: str = AGENTS[0] if seat == "random" else seat
        self._last: Optional[Observation] = None
        self._done, self._reset_done = True, False
        self._pending_reward = 0.0

    # ----- Gymnasium API ----------------------------------------------------
    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict[str, Any]] = None) -> tuple[Any, dict[str, Any]]:
        """Start an episode and play the opponent up to the learner's first turn (see the class doc).
        A bad ``seed`` or ``options`` changes nothing; past those checks, until it succeeds the
        episode counts as over (``step`` refuses), whatever fails."""
        seed = checked_seed(seed)
        options = dict(checked_reset_options(options, RESET_KEYS))
        seat = options.pop("seat", self.seat)
        if seat not in SEATS:
            raise ValueError(f"options['seat'] must be one of {SEATS}, got {seat!r}")
        self._done, self._reset_done = True, False
        super().reset(seed=seed)
        if seed is not None:  # an independent stream, so the seat draw is not correlated with the deal
            self._np_random = np.random.default_rng(derive_seed(seed, 1))
            if self._opponent_spec is not None:
                self._set_opponent(agent_from_spec(self._opponent_spec, derive_seed(seed, 2)))
        aec_seed = seed
        for skipped in range(MAX_REDEALS + 1):
            self.agent = AGENTS[int(self.np_random.integers(2))] if seat == "random" else seat
            self.aec.reset(seed=aec_seed, options=options)
            aec_seed = None
            if self._opponent_reset is not None:
                self._opponent_reset()
            reward, info = self._play_opponent()
            if not self._episode_over():
                break
            if "deal" in options:
                raise ValueError(f"with this deal the episode ends before {self.agent} has a turn")
        else:
            raise RuntimeError(f"{MAX_REDEALS + 1} episodes in a row ended before the learner's first turn")
        self._pending_reward, self._done, self._reset_done = reward, False, True
        info["skipped_episodes"] = skipped
        return self._observed(info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponent up to the learner's next turn."""
        if self._done:
            raise RuntimeError("the episode is over (or was never started): call reset()")
        aec = self.aec
        try:
            aec.step(action)
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            self._done = True
            obs, info = self._observed({"agent": self.agent, "illegal_action": action, "illegal_reason": str(error)})
            return obs, self.illegal_reward, True, False, info
        reward = self._pending_reward + aec.rewards[self.agent]
        self._pending_reward = 0.0
        info = self._collect_info({"agent": self.agent})
        if not self._episode_over():
            more_reward, info = self._play_opponent(info)
            reward += more_reward
        terminated, truncated = bool(aec.terminations[self.agent]), bool(aec.truncations[self.agent])
        self._done = terminated or truncated
        obs, info = self._observed(info)
        return obs, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now: bool[108] (all False once the episode is over); a
        ``RuntimeError``, as from :meth:`step`, before a reset has succeeded.

        For a random legal action: ``env.action_space.sample(mask=env.action_masks().astype(np.int8))``.
        """
        if not self._reset_done:  # never reset, or the last reset failed: no mask is current
            raise RuntimeError("the episode is over (or was never started): call reset()")
        return self._last["action_mask"].astype(bool)

    def render(self) -> Optional[str]:
        """The AEC env's rendering (text for ``"ansi"``, printed for ``"human"``, else ``None``)."""
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ----- helpers ------------------------------------------------------------
    def _set_opponent(self, opponent: Optional[Opponent]) -> None:
        self._policy = policy_of(opponent) if opponent is not None else self._random_legal_action
        reset_hook = getattr(opponent, "reset", None)
        self._opponent_reset: Optional[Callable[[], Any]] = reset_hook if callable(reset_hook) else None
        self.opponent = opponent

    def _episode_over(self) -> bool:
        return bool(self.aec.terminations[self.agent] or self.aec.truncations[self.agent])

    def _collect_info(self, info: dict[str, Any]) -> dict[str, Any]:
        """Add the AEC env's end-of-hand / end-of-game infos of the last AEC step to ``info``
        (and tell the opponent when a new hand starts)."""
        aec_info = self.aec.infos[self.agent]
        info.update({key: aec_info[key] for key in END_INFOS if key in aec_info})
        if "hand_result" in aec_info:
            info.setdefault("hand_results", []).append(aec_info["hand_result"])
        hand_ended = "hand_result" in aec_info or "hand_summary" in aec_info
        if hand_ended and self._opponent_reset is not None and not self._episode_over():
            self._opponent_reset()
        return info

    def _play_opponent(self, info: Optional[dict[str, Any]] = None) -> tuple[float, dict[str, Any]]:
        """Let the opponent act until the learner's turn or the end; its summed reward and the infos."""
        aec = self.aec
        info = info if info is not None else {"agent": self.agent}
        reward = 0.0
        while not self._episode_over() and aec.agent_selection != self.agent:
            opponent = aec.agent_selection
            aec.step(self._policy(aec.observe(opponent)))
            reward += aec.rewards[self.agent]
            self._collect_info(info)
        return reward, info

    def _observed(self, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The learner's observation now (in the ``observation`` layout), and ``info`` with its ``"action_mask"``."""
        self._last = self.aec.observe(self.agent)
        info["action_mask"] = self.action_masks()
        return in_layout(self.observation, {**self._last, "observation": self._last["observation"].copy()}), info

    def _random_legal_action(self, observation: Observation) -> int:
        """The default opponent: a uniformly random legal action from ``np_random``."""
        return int(self.np_random.choice(np.flatnonzero(observation["action_mask"])))
