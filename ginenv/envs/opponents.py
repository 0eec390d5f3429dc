"""The opponent of the single-agent envs: how it is called, and how a spec string becomes an agent.

``ginenv`` ships no players and imports none.  An opponent is a callable
``observation -> action id`` or an object with ``act(observation)`` (and, for speed,
``act_batch(observations, masks)``).  A spec such as ``"greedy"`` or
``{"name": "montecarlo", "samples": 32}`` is built by the *agent factory*: the one given to
:func:`set_agent_factory`, else the one an installed package declares in the entry-point group
``ginenv.agent_factory`` (this distribution's ``agents`` package declares ``agents:make_agent``).

>>> agent_from_spec("greedy", seed=0).name
'greedy'
"""
from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, Callable, Mapping, Optional, Union

import numpy as np

Observation = dict[str, np.ndarray]
OpponentSpec = Union[str, Mapping[str, Any]]
AgentFactory = Callable[..., Any]
ENTRY_POINT_GROUP = "ginenv.agent_factory"

_factory: Optional[AgentFactory] = None


def set_agent_factory(factory: Optional[AgentFactory]) -> None:
    """Build spec-named opponents with ``factory(spec, seed=...)`` (``None``: back to the entry point)."""
    global _factory
    _factory = factory


def agent_factory() -> AgentFactory:
    """The factory set by :func:`set_agent_factory`, else the installed ``ginenv.agent_factory`` entry point."""
    global _factory
    if _factory is None:
        found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
        if not found:
            raise ValueError("an opponent given by name needs an agent package (none declares the "
                             f"{ENTRY_POINT_GROUP!r} entry point; install this project with pip install -e .), "
                             "or pass an agent object or a callable instead")
        _factory = found[0].load()
    return _factory


def agent_from_spec(spec: OpponentSpec, seed: Optional[int]) -> Any:
    """The agent that ``spec`` names, seeded with ``seed`` (see the module docstring)."""
    return agent_factory()(spec, seed=seed)


def policy_of(opponent: Any) -> Callable[[Observation], int]:
    """``opponent.act`` when it has one, else ``opponent`` itself when callable; else ``TypeError``."""
    act = getattr(opponent, "act", None)
    if callable(act):
        return act
    if callable(opponent):
        return opponent
    raise TypeError(f"opponent must be a callable or have an act(observation) method, got {type(opponent).__name__}")


def act_batch(agent: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The actions of ``agent`` for a batch: observations float32[N, OBS] and action masks
    int8[N, 108]; its own ``act_batch`` where it has one, else ``act`` row by row.

    >>> import ginenv
    >>> env = ginenv.env(); env.reset(seed=0)
    >>> observation = env.observe(env.agent_selection)
    >>> act_batch(agent_from_spec("greedy", 0), observation["observation"][None], observation["action_mask"][None])
    array([1])
    """
    batch = getattr(agent, "act_batch", None)
    if batch is not None:
        return batch(observations, masks)
    return np.array([agent.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks)],
                    dtype=np.int64).reshape(len(masks))
