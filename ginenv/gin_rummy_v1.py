"""The names PettingZoo users expect: ``from ginenv import gin_rummy_v1``.

``env`` and ``raw_env`` are the AEC env of :mod:`ginenv.envs.aec` (the game's own turn order:
only the agent to act is selected, and one player may act twice in a row, drawing then
discarding).  :class:`parallel_env` is the same game as a PettingZoo ``ParallelEnv``,
turn-based:

* every live agent is in ``agents`` and gets an observation dict and an info every step;
* ``step(actions)`` plays the action of the agent to act only, the one whose
  ``action_mask`` (in its observation and its info) is not all zero; the other agent's
  action is ignored and may be left out of ``actions``;
* rewards are those of that one decision, for both agents; one step is one cycle, so
  ``max_cycles`` truncates after that many decisions.

Every keyword is :class:`ginenv.envs.aec.raw_env`'s (``illegal_action``, ``info_lists``,
``max_cycles``, ``ruleset`` ...).  For the turn order of the AEC env with one action per
agent per cycle, as PettingZoo's cycle-based tools want, use
``pettingzoo.utils.parallel_to_aec(gin_rummy_v1.parallel_env())``; ``aec_to_parallel`` of
that gives the parallel env back.  ``aec_to_parallel(env())`` is refused
(``is_parallelizable`` is False): the AEC env does not step its agents in a cycle.

>>> game = parallel_env(illegal_action="terminate")
>>> observations, infos = game.reset(seed=1)
>>> acting = [agent for agent in game.agents if infos[agent]["action_mask"].any()]
>>> acting, infos[acting[0]]["legal_actions"][:3].tolist()
(['player_1'], [1, 2, -1])
>>> observations, rewards, terminations, truncations, infos = game.step({"player_1": 2})   # pass
>>> [agent for agent in game.agents if observations[agent]["action_mask"].any()]
['player_0']
"""
from __future__ import annotations

from typing import Any, Optional

from gymnasium import spaces
from pettingzoo import ParallelEnv

from ginenv.envs.aec import env, raw_env

__all__ = ["env", "raw_env", "parallel_env"]


class parallel_env(ParallelEnv):  # noqa: N801 - PettingZoo naming convention
    """Gin Rummy as a turn-based PettingZoo ``ParallelEnv`` (see the module docstring);
    ``**kwargs`` go to :class:`ginenv.envs.aec.raw_env`, which it plays on (``aec``)."""

    metadata = {**raw_env.metadata, "is_parallelizable": True}

    def __init__(self, **kwargs: Any) -> None:
        self.aec = raw_env(**kwargs)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.render_mode = self.aec.render_mode

    def observation_space(self, agent: str) -> spaces.Space:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self.aec.action_space(agent)

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        """Start an episode (``seed`` and ``options`` as :meth:`ginenv.envs.aec.raw_env.reset`);
        returns ``(observations, infos)`` for both agents."""
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        return {a: self.aec.observe(a) for a in self.agents}, dict(self.aec.infos)

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the acting agent's action from ``actions``; returns ``(observations, rewards,
        terminations, truncations, infos)`` for the agents live at the step.  A missing action
        for the acting agent is a ``ValueError`` naming it."""
        if not self.agents:
            raise RuntimeError("the episode is over: call reset()")
        acting = self.aec.agent_selection
        if acting not in actions:
            raise ValueError(f"actions: no action for {acting!r}, the agent to act; got {sorted(actions)}")
        self.aec.step(actions[acting])
        live = self.agents
        result = tuple({a: table[a] for a in live} for table in (
            {a: self.aec.observe(a) for a in live}, self.aec.rewards, self.aec.terminations, self.aec.truncations,
            self.aec.infos))
        self.agents = [a for a in live if not (self.aec.terminations[a] or self.aec.truncations[a])]
        return result  # type: ignore[return-value]

    def render(self) -> Optional[str]:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
