"""Agents by name: the registry behind spec strings such as ``"montecarlo:samples=64"``.

``make_agent(spec)`` builds any registered agent; :func:`register` adds one (a factory taking
``seed=`` and the spec's parameters).  The built-in ladder is registered here: ``random``,
``simple``, ``greedy``, ``montecarlo``, ``ppo``, ``selfplay`` and ``rollout`` (the neural ones imported
on first use, so that building the others does not load torch).

>>> make_agent("greedy", seed=0).name
'greedy'
>>> make_agent({"name": "random"}, seed=1).name
'random'
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Union

from agents.base import Agent, RandomAgent, parse_spec
from agents.heuristic.greedy import GreedyAgent
from agents.heuristic.simple import SimpleAgent
from agents.search.montecarlo import MonteCarloAgent
from ginenv.game.checks import checked_seed

AgentFactory = Callable[..., Agent]


def _montecarlo(seed: Optional[int] = None, **params: Any) -> Agent:
    """``montecarlo``: its ``guide`` spec, if any, is built by :func:`make_agent`."""
    return MonteCarloAgent(seed, agent_factory=make_agent, **params)


def _neural(seed: Optional[int] = None, **params: Any) -> Agent:
    """``ppo``: imported on first use, so ``import agents`` does not load torch."""
    from agents.neural.policy import NeuralAgent

    return NeuralAgent(seed, **params)


def _selfplay(seed: Optional[int] = None, **params: Any) -> Agent:
    """``selfplay``: ``ppo`` with the shipped from-scratch policy by default (``path`` still overrides it)."""
    from agents.neural.policy import SELFPLAY_CHECKPOINT, NeuralAgent

    agent = NeuralAgent(seed, **{"path": str(SELFPLAY_CHECKPOINT), **params})
    agent.name = "selfplay"
    return agent


def _rollout(seed: Optional[int] = None, **params: Any) -> Agent:
    """``rollout``: search with a policy's own rollouts (imported on first use, like ``ppo``)."""
    from agents.search.rollout import RolloutAgent

    return RolloutAgent(seed, **params)


REGISTRY: dict[str, AgentFactory] = {"random": RandomAgent, "simple": SimpleAgent, "greedy": GreedyAgent,
                                     "montecarlo": _montecarlo, "ppo": _neural, "selfplay": _selfplay,
                                     "rollout": _rollout}


def register(name: str, factory: AgentFactory) -> None:
    """Make an agent constructible by name (``factory(seed=..., **params)``)."""
    REGISTRY[name] = factory


def make_agent(spec: Union[str, Mapping[str, Any]], seed: Optional[int] = None) -> Agent:
    """Build an agent from ``"name:key=value,..."`` or ``{"name": ..., **params}``; ``ValueError``
    for an unknown name or bad parameters, ``TypeError`` for a spec of the wrong kind."""
    seed = checked_seed(seed)
    if isinstance(spec, str):
        name, params = parse_spec(spec)
    elif not isinstance(spec, Mapping):
        raise TypeError(f"spec must be a 'name:key=value,...' string or a mapping with a 'name', got {spec!r}")
    else:
        params = dict(spec)
        name = params.pop("name", None)
        if not isinstance(name, str):
            raise ValueError(f"agent config needs a 'name', got {dict(spec)!r}")
    if name not in REGISTRY:
        raise ValueError(f"unknown agent {name!r}; known: {sorted(REGISTRY)}")
    try:
        return REGISTRY[name](seed=seed, **params)
    except TypeError as err:
        raise ValueError(f"bad parameters for agent {name!r}: {err}") from None
