"""PettingZoo AEC environment ``gin_rummy_v1``.

The env only delegates: rules live in :mod:`ginenv.hand` / :mod:`ginenv.match`, settings,
rewards and the end of a hand or game in :mod:`ginenv.episode` (shared with the batched
API), the observation in :mod:`ginenv.encoding`, the text view in :mod:`ginenv.render`.

Agents ``player_0`` and ``player_1`` (seat 0 / 1).  Each observation is a dict:
``"observation"`` (float32 vector, layout in :mod:`ginenv.encoding` and the README) and
``"action_mask"`` (int8[108], all zero for the agent not to act).

``raw_env.hand`` is the current hand's *true* state (a :class:`~ginenv.hand.HandState`:
both hands, the stock order), for tools and tests only: rendering, logs and replays, and
the tests that check each observation against the truth.  Agents must never read it; the
drivers here (:mod:`train.evaluate`, :class:`~ginenv.single_agent.SingleAgentGinEnv`,
:class:`~ginenv.vector.VectorGinEnv`) give an agent nothing but its observation dict.
It stays public, as PettingZoo's classic envs expose their ``board``: a leading
underscore would not hide it in Python, and tools would only reach for a private name.

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
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .actions import NUM_ACTIONS
from .checks import checked_seed
from .core import write_mask
from .encoding import OBSERVATION_HIGH, OBSERVATION_SIZE, rules_vector, write_observation
from .episode import AGENTS, EPISODES, Episode, EpisodeSpec, HandEnd
from .deal import Deal
from .hand import HandState
from .render import render_hand

__all__ = ["AGENTS", "EPISODES", "RESET_OPTIONS", "raw_env", "env"]

RESET_OPTIONS = ("deal", "scores", "hands_won")
"""The keys ``reset(options=...)`` takes (see :class:`raw_env`)."""


class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming convention
    """Two-player Gin Rummy, one hand or one whole game per episode.

    Args:
        ruleset: a preset name (``"pagat"``, ``"classic25"``, ``"oklahoma"``, ``"eaai"``)
            or a :class:`~ginenv.rules.Ruleset`.
        episode: ``"hand"`` (one hand per episode) or ``"game"`` (hands to the target).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
        reward_mode: ``"points"`` or ``"win_loss"`` (see the module table).
        reward_scale: multiplies ``"points"`` rewards (e.g. 0.01).
        **rule_overrides: any :class:`~ginenv.rules.Ruleset` field, e.g. ``gin_bonus=25``.

    ``reset(seed=..., options={"deal": {...}})`` replays an explicit deal
    (``dealer``, ``hands``, ``upcard``, ``stock`` top first); in game mode options may
    also carry ``"scores"`` and ``"hands_won"`` to start mid-match.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "gin_rummy_v1", "is_parallelizable": False}

    def __init__(self, ruleset: Any = "pagat", episode: str = "hand", render_mode: Optional[str] = None,
                 reward_mode: str = "points", reward_scale: float = 1.0, **rule_overrides: Any) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        spec = self._spec = EpisodeSpec.build(ruleset, episode, reward_mode, reward_scale, **rule_overrides)
        self.ruleset, self.episode, self.render_mode = spec.ruleset, spec.episode, render_mode
        self.reward_mode, self.reward_scale = spec.reward_mode, spec.reward_scale
        self._rules_view = rules_vector(self.ruleset)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._seat = {agent: seat for seat, agent in enumerate(AGENTS)}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, OBSERVATION_HIGH, (OBSERVATION_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: observation_space for a in AGENTS}
        self._np_random: Optional[np.random.Generator] = None
        self._episode: Optional[Episode] = None
        self._just_finished: Optional[HandState] = None

    # ----- PettingZoo API ------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

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
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.hand.current_player]  # type: ignore[index]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        hand = self.hand
        acting = hand.current_player == seat and not self.terminations[agent] and not self.truncations[agent]
        observation = np.empty(OBSERVATION_SIZE, dtype=np.float32)
        write_observation(hand.row, seat, self._episode.match_view, self._rules_view, observation)  # type: ignore[union-attr]
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if acting:
            write_mask(hand.row, self.ruleset.big_gin, mask)
        return {"observation": observation, "action_mask": mask}

    def step(self, action: Any) -> None:
        if self._episode is None:
            raise RuntimeError("call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        hand = self.hand
        end = self._episode.apply_action(action)  # type: ignore[union-attr]  # IllegalActionError: unchanged
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self._just_finished = hand if end is not None else None
        if end is not None:
            self._end_of_hand(end)
        else:
            self.agent_selection = AGENTS[hand.current_player]  # type: ignore[index]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_of_hand(self, end: HandEnd) -> None:
        """Rewards, infos and done flags of a hand that ended (in a game, the next hand is on)."""
        self.rewards = dict(zip(AGENTS, end.rewards))
        self.infos = {a: end.info(AGENTS) for a in AGENTS}
        if end.done:
            flags = self.truncations if end.truncated else self.terminations
            for a in AGENTS:
                flags[a] = True
        else:
            self.agent_selection = AGENTS[self.hand.current_player]  # type: ignore[index]

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


def checked_reset_options(options: Any) -> dict[str, Any]:
    """``reset``'s options, checked: a dict or None.  A key that is not one of
    :data:`RESET_OPTIONS` but close to one (``"deel"``, ``"score"``) is a ``ValueError``
    naming both; other keys are left alone, as PettingZoo's API test and wrappers pass their own.

    >>> checked_reset_options({"score": [1, 2]})
    Traceback (most recent call last):
    ...
    ValueError: options: unknown key 'score' (did you mean 'scores'?); known: ['deal', 'scores', 'hands_won']
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict with keys from {list(RESET_OPTIONS)} or None, got {options!r}")
    for key in options:
        near = difflib.get_close_matches(key, RESET_OPTIONS, n=1) if isinstance(key, str) else []
        if near and key not in RESET_OPTIONS:
            raise ValueError(f"options: unknown key {key!r} (did you mean {near[0]!r}?); known: {list(RESET_OPTIONS)}")
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
    """The AEC env wrapped the PettingZoo way (order enforcing; illegal actions raise)."""
    return _OrderEnforcing(raw_env(**kwargs))
