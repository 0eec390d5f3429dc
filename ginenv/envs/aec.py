"""PettingZoo AEC environment ``gin_rummy_v1``.

The env only delegates: rules live in :mod:`ginenv.game.hand` / :mod:`ginenv.game.match`, settings,
rewards and the end of a hand or game in :mod:`ginenv.envs.episode` (shared with the batched
API), the observation in :mod:`ginenv.game.encoding`, the text view in :mod:`ginenv.game.render`.

Agents ``player_0`` and ``player_1`` (seat 0 / 1).  Each observation is a dict:
``"observation"`` (float32 vector, layout in :mod:`ginenv.game.encoding` and docs/environment.md) and
``"action_mask"`` (int8[108], all zero for the agent not to act).  For libraries that want another
layout, ``observation=`` (:data:`OBSERVATIONS`) gives the vector alone (``"vector"``: AgileRL, which
refuses an observation that holds the mask and reads it from the info, and SuperSuit's Box-only
wrappers) or RLlib's ``{"observations", "action_mask"}`` dict with a float32 mask (``"rllib"``: its
``ActionMaskingTorchRLModule``); the infos always hold the mask.

Infos, for both agents after ``reset`` and every step:

=========================  ======================================================
key                        value
=========================  ======================================================
``"action_mask"``          int8[108]: the agent's observation mask (equal values)
``"legal_actions"``        int16[108]: the legal ids ascending, then -1 (fixed size)
``"hand_summary"``         at the step a hand ends: the result in fixed shape, the
                           same keys and sizes every hand
                           (:func:`ginenv.envs.episode.hand_summary`)
``"game_summary"``         at the step a game ends (:func:`ginenv.envs.episode.game_summary`)
``"hand_result"``,         the public-contract dicts (names, ``None``, card lists of
``"game_result"``          varying length), unless ``info_lists=False``
``"illegal_action"``       after an illegal action in ``"terminate"``/``"penalize"``
                           mode: True for the offender (with ``"illegal_reason"``,
                           the error text), False for the other agent
=========================  ======================================================

Replay buffers that stack infos (Tianshou) want ``info_lists=False``: every value is then
a number or a fixed-size array, and :func:`ginenv.envs.episode.result_from_summary` gives the
meld and layoff lists back from a stored ``hand_summary``.

Illegal actions (``illegal_action``): ``"raise"`` (the default) raises
:class:`~ginenv.game.actions.IllegalActionError` and changes nothing; ``"terminate"`` ends the
episode (both agents terminated), the offender gets ``illegal_reward`` and the other agent
0; ``"penalize"`` gives the offender ``illegal_reward``, changes nothing else, and asks the
same agent again.  Whether an action is legal is the game's call
(:meth:`ginenv.game.hand.HandState.apply_action`); the env only picks the consequence.

``raw_env.hand`` is the current hand's *true* state (a :class:`~ginenv.game.hand.HandState`:
both hands, the stock order), for tools and tests only: rendering, logs and replays, and
the tests that check each observation against the truth.  Agents must never read it; the
drivers (the evaluation harness, :class:`~ginenv.envs.single_agent.SingleAgentGinEnv`,
:class:`~ginenv.envs.batched.BatchedGinEnv`) give an agent nothing but its observation dict.
It is public, as PettingZoo's classic envs expose their ``board``.

Rewards (zero-sum):

===================  ===========================================================
``reward_mode``      reward
===================  ===========================================================
``"points"``         the signed points of each hand from the agent's side, times
                     ``reward_scale``; in ``episode="game"`` the last reward adds
                     the game and box bonuses, so an agent's rewards sum to
                     ``reward_scale * (its final score - the opponent's)``.
``"win_loss"``       ``episode="game"``: +1/-1 at the end of the game, 0 per hand;
                     ``episode="hand"``: +1/-1 for the hand's winner, 0 for a dead hand.
===================  ===========================================================

Version history: v0 — first release; v1 — the observation carries the rules (``game_mode``,
``hand_doubled``, ``rule_flags``, ``rule_points``; the ``target`` piece is gone, the rules
hold it) and every entry has a finite upper bound in the observation space.

>>> env = raw_env()
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> int(obs["action_mask"].sum()), env.agent_selection
(2, 'player_1')
"""
from __future__ import annotations

import copy
import difflib
from typing import Any, Optional, Union

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ginenv.envs.episode import AGENTS, EPISODES, Episode, EpisodeSpec, HandEnd
from ginenv.game.actions import NUM_ACTIONS, IllegalActionError
from ginenv.game.checks import checked_flag, checked_float, checked_int, checked_seed
from ginenv.game.deal import Deal
from ginenv.game.encoding import OBSERVATION_HIGH, OBSERVATION_SIZE, rules_vector
from ginenv.game.hand import HandState
from ginenv.game.render import render_hand

__all__ = ["AGENTS", "EPISODES", "ILLEGAL_ACTIONS", "OBSERVATIONS", "RESET_OPTIONS", "raw_env", "env"]

RESET_OPTIONS = ("deal", "scores", "hands_won")
"""The keys ``reset(options=...)`` acts on (see :class:`raw_env`)."""
PETTINGZOO_PROBE = "options"
"""The one key ``reset`` takes and ignores: PettingZoo's ``api_test`` and ``parallel_api_test``
call ``reset(seed=0, options={"options": 1})`` to see that ``reset`` takes options."""
ILLEGAL_ACTIONS = ("raise", "terminate", "penalize")
"""The values of ``illegal_action`` (see the module docstring)."""
MAX_ILLEGAL_REWARD = 1e6
"""Largest ``abs(illegal_reward)``."""
OBSERVATIONS = ("dict", "vector", "rllib")
"""The layouts of ``observation``: the contract's ``{"observation", "action_mask"}`` dict, the vector
alone, or RLlib's ``{"observations", "action_mask"}`` dict (mask float32, 1.0 where legal)."""
Observation = Union[np.ndarray, dict[str, np.ndarray]]
"""An observation in one of the :data:`OBSERVATIONS` layouts."""


def layout_space(layout: str, vector: spaces.Box) -> spaces.Space:
    """The observation space of ``layout`` (one of :data:`OBSERVATIONS`) for the vector space ``vector``."""
    if layout == "vector":
        return vector
    if layout == "rllib":
        return spaces.Dict({"observations": vector, "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32)})
    return spaces.Dict({"observation": vector, "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})


def in_layout(layout: str, observation: dict[str, np.ndarray]) -> Observation:
    """The contract's observation dict ``observation`` in ``layout`` (one of :data:`OBSERVATIONS`).

    >>> obs = {"observation": np.zeros(3, np.float32), "action_mask": np.array([0, 1], np.int8)}
    >>> in_layout("rllib", obs)["action_mask"], in_layout("vector", obs) is obs["observation"]
    (array([0., 1.], dtype=float32), True)
    """
    if layout == "vector":
        return observation["observation"]
    if layout == "rllib":
        return {"observations": observation["observation"],
                "action_mask": observation["action_mask"].astype(np.float32)}
    return observation


def _read_only(array: np.ndarray) -> np.ndarray:
    """``array``, made read-only (shared constants)."""
    array.flags.writeable = False
    return array


IDLE_INFO = {"action_mask": _read_only(np.zeros(NUM_ACTIONS, dtype=np.int8)),
             "legal_actions": _read_only(np.full(NUM_ACTIONS, -1, dtype=np.int16))}
"""The info arrays of an agent not to act (read-only, shared)."""


class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming convention
    """Two-player Gin Rummy, one hand or one whole game per episode.

    Args:
        ruleset: a preset name (``"pagat"``, ``"classic25"``, ``"oklahoma"``, ``"eaai"``)
            or a :class:`~ginenv.game.rules.Ruleset`.
        episode: ``"hand"`` (one hand per episode) or ``"game"`` (hands to the target).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
        reward_mode: ``"points"`` or ``"win_loss"`` (see the module table).
        reward_scale: multiplies ``"points"`` rewards (e.g. 0.01).
        illegal_action: ``"raise"``, ``"terminate"`` or ``"penalize"`` (see the module docstring).
        illegal_reward: the offender's reward for an illegal action when it does not raise, as
            given (not scaled by ``reward_scale``); a finite number, ``abs`` at most 1e6.
        info_lists: keep the contract's ``hand_result`` / ``game_result`` dicts in the infos;
            ``False`` leaves only fixed-shape values (``hand_summary`` / ``game_summary``).
        observation: the observation layout, one of :data:`OBSERVATIONS`: ``"dict"`` (default, the
            contract's), ``"vector"`` or ``"rllib"`` (see the module docstring).
        max_cycles: truncate the episode (both agents) after this many steps (decisions,
            illegal ones included); ``None``: no limit.
        **rule_overrides: any :class:`~ginenv.game.rules.Ruleset` field, e.g. ``gin_bonus=25``.

    ``reset(seed=..., options={"deal": {...}})`` replays an explicit deal
    (``dealer``, ``hands``, ``upcard``, ``stock`` top first); in game mode options may
    also carry ``"scores"`` and ``"hands_won"`` to start mid-match.  Any other key is a
    ``ValueError`` naming it, except ``"options"`` (:data:`PETTINGZOO_PROBE`), which is ignored.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "gin_rummy_v1", "is_parallelizable": False}

    def __init__(self, ruleset: Any = "pagat", episode: str = "hand", render_mode: Optional[str] = None,
                 reward_mode: str = "points", reward_scale: float = 1.0, illegal_action: str = "raise",
                 illegal_reward: float = -1.0, info_lists: bool = True, max_cycles: Optional[int] = None,
                 observation: str = "dict", **rule_overrides: Any) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        self.illegal_action = illegal_action
        self.observation = observation
        self.illegal_reward = checked_float("illegal_reward", illegal_reward, -MAX_ILLEGAL_REWARD, MAX_ILLEGAL_REWARD,
                                            closed=True)
        self.info_lists = checked_flag("info_lists", info_lists)
        self.max_cycles = None if max_cycles is None else checked_int("max_cycles", max_cycles, 1)
        spec = self._spec = EpisodeSpec.build(ruleset, episode, reward_mode, reward_scale, **rule_overrides)
        self.ruleset, self.episode, self.render_mode = spec.ruleset, spec.episode, render_mode
        self.reward_mode, self.reward_scale = spec.reward_mode, spec.reward_scale
        self._rules_view = rules_vector(self.ruleset)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._seat = {agent: seat for seat, agent in enumerate(AGENTS)}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        observation_space = layout_space(observation, spaces.Box(0.0, OBSERVATION_HIGH, (OBSERVATION_SIZE,),
                                                                 np.float32))
        self.observation_spaces = {a: observation_space for a in AGENTS}
        self._np_random: Optional[np.random.Generator] = None
        self._episode: Optional[Episode] = None
        self._just_finished: Optional[HandState] = None
        self._steps = 0

    # ----- PettingZoo API ------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[AGENTS[self._seat_of(agent)]]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[AGENTS[self._seat_of(agent)]]

    def _seat_of(self, agent: Any) -> int:
        """The seat of ``agent``; anything but ``"player_0"`` or ``"player_1"`` is a ``ValueError`` naming it."""
        seat = self._seat.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise ValueError(f"agent must be one of {list(AGENTS)}, got {agent!r}")
        return seat

    @property
    def episode_spec(self) -> EpisodeSpec:
        """The validated episode settings (rules, episode kind, rewards) this env plays."""
        return self._spec

    @property
    def hand(self) -> HandState:
        """The current hand's true state: a tool and test accessor, never for agents (see the
        module docstring)."""
        if self._episode is None:
            raise RuntimeError("call reset() first")
        return self._episode.hand

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Start an episode; bad ``seed`` or ``options`` are a ``ValueError`` that changes nothing
        (the generator included)."""
        seed, options = checked_seed(seed), checked_reset_options(options)
        deal = options.get("deal")
        first_deal = Deal.from_cards(**_deal_args(deal)) if deal is not None else None
        fresh = seed is not None or self._np_random is None
        rng = seeding.np_random(seed)[0] if fresh else copy.deepcopy(self._np_random)
        self._episode = self._spec.start(rng, first_deal, options.get("scores"), options.get("hands_won"))
        self._np_random = rng
        self.agents = list(AGENTS)
        self._just_finished = None
        self._steps = 0
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.agent_selection = AGENTS[self.hand.current_player]  # type: ignore[index]
        self.infos = self._infos({})
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        observation = self._episode.observation(self._seat_of(agent), self._rules_view)  # type: ignore[union-attr]
        return in_layout(self.observation, {"observation": observation, "action_mask": self._mask(agent)})

    def _mask(self, agent: str) -> np.ndarray:
        """The agent's action mask: the legal ids set, all zero when it is not to act."""
        if self.hand.current_player == self._seat[agent] and not (self.terminations[agent] or self.truncations[agent]):
            return self._episode.legal_mask()  # type: ignore[union-attr]
        return np.zeros(NUM_ACTIONS, dtype=np.int8)

    def _infos(self, news: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Both agents' infos: mask and legal ids (see the module table), plus ``news[agent]``.
        An agent not to act shares the read-only :data:`IDLE_INFO` arrays."""
        infos = {agent: {**IDLE_INFO, **news.get(agent, {})} for agent in AGENTS}
        acting = self.agent_selection
        if not (self.terminations[acting] or self.truncations[acting]):
            mask = self._mask(acting)
            legal = np.full(NUM_ACTIONS, -1, dtype=np.int16)
            ids = np.flatnonzero(mask)
            legal[:len(ids)] = ids
            infos[acting].update(action_mask=mask, legal_actions=legal)
        return infos

    def step(self, action: Any) -> None:
        """Play ``action`` for :attr:`agent_selection` (``None`` for a done agent, which leaves);
        once both agents have left, stepping is a ``RuntimeError``: call ``reset``."""
        if self._episode is None:
            raise RuntimeError("call reset() first")
        if not self.agents:
            raise RuntimeError("the episode is over and both agents have left: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        hand = self.hand
        end = self._apply(action)
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in AGENTS}
        self._steps += 1
        self._just_finished = hand if isinstance(end, HandEnd) else None
        if isinstance(end, IllegalActionError):
            news = self._refuse(agent, end)
        elif end is not None:
            news = self._end_of_hand(end)
        else:
            self.agent_selection = AGENTS[hand.current_player]  # type: ignore[index]
            news = {}
        over = self.terminations[agent] or self.truncations[agent]
        if self.max_cycles is not None and self._steps >= self.max_cycles and not over:
            self._finish(self.truncations)
        self.infos = self._infos(news)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _apply(self, action: Any) -> Union[HandEnd, IllegalActionError, None]:
        """Play ``action``: the :class:`HandEnd` if the hand ended, else None; an illegal action
        changes nothing and raises, or in the other modes is returned as its error."""
        try:
            return self._episode.apply_action(action)  # type: ignore[union-attr]
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            return error

    def _refuse(self, agent: str, error: IllegalActionError) -> dict[str, dict[str, Any]]:
        """The offender's reward for an illegal action, the end of the episode in ``"terminate"``
        mode, and the infos that say so."""
        self.rewards[agent] = self.illegal_reward
        if self.illegal_action == "terminate":
            self._finish(self.terminations)
        news: dict[str, dict[str, Any]] = {a: {"illegal_action": False} for a in AGENTS}
        news[agent] = {"illegal_action": True, "illegal_reason": str(error)}
        return news

    def _end_of_hand(self, end: HandEnd) -> dict[str, dict[str, Any]]:
        """Rewards and done flags of a hand that ended (in a game, the next hand is on); its infos."""
        self.rewards = dict(zip(AGENTS, end.rewards))
        if end.done:
            self._finish(self.truncations if end.truncated else self.terminations)
        else:
            self.agent_selection = AGENTS[self.hand.current_player]  # type: ignore[index]
        return {a: {**end.summary(), **(end.info(AGENTS) if self.info_lists else {})} for a in AGENTS}

    @staticmethod
    def _finish(flags: dict[str, bool]) -> None:
        """Set ``flags`` (terminations or truncations) for both agents."""
        for a in AGENTS:
            flags[a] = True

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        match = self._episode.match if self._episode is not None else None
        scores = match.scores if match is not None else None
        text = render_hand(self.hand, AGENTS, scores)
        finished = self._just_finished
        if finished is not None and finished is not self.hand:  # game mode: the next hand already started
            text = render_hand(finished, AGENTS) + "\n\nnext hand:\n" + text
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def checked_reset_options(options: Any, allowed: tuple[str, ...] = (*RESET_OPTIONS, PETTINGZOO_PROBE)
                          ) -> dict[str, Any]:
    """``reset``'s options, checked: None (no options) or a dict whose keys are all in
    ``allowed``; a key that is not is a ``ValueError`` naming it and the allowed keys.

    >>> checked_reset_options({"score": [1, 2]})  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    ValueError: options: unknown key 'score' (did you mean 'scores'?);
        allowed keys: ['deal', 'scores', 'hands_won', 'options']
    """
    shown = list(allowed) if allowed else "none"
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be None or a dict (allowed keys: {shown}), got {options!r}")
    for key in options:
        if key not in allowed:
            near = difflib.get_close_matches(key, allowed, n=1) if isinstance(key, str) else []
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ValueError(f"options: unknown key {key!r}{hint}; allowed keys: {shown}")
    return options


def _deal_args(deal: Any) -> dict[str, Any]:
    if not isinstance(deal, dict):
        raise ValueError(f"options['deal'] must be a dict with dealer, hands, upcard, stock; got {type(deal).__name__}")
    expected = {"dealer", "hands", "upcard", "stock"}
    if set(deal) != expected:
        raise ValueError(f"options['deal'] needs exactly the keys {sorted(expected)}, got {sorted(deal)}")
    return deal


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, with ``last()`` delegated in one call.

    The stock wrapper's ``last()`` reaches five attributes through ``__getattr__``;
    after ``reset()`` that is the same as asking the wrapped env, so do that directly.
    """

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped the PettingZoo way (order enforcing); kwargs as :class:`raw_env`.

    >>> game = env(illegal_action="terminate")
    >>> game.reset(seed=1)
    >>> game.step(107)                      # big gin on the first offer: illegal
    >>> game.rewards, game.terminations["player_0"], game.infos["player_1"]["illegal_action"]
    ({'player_0': 0, 'player_1': -1.0}, True, True)
    """
    return _OrderEnforcing(raw_env(**kwargs))
