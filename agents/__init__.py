"""Agents that choose actions from an observation (heuristic ladder, neural policies).

>>> from agents import make_agent
>>> make_agent("random", seed=0).name
'random'
"""
from .base import REGISTRY, Agent, RandomAgent, legal_actions, make_agent, parse_spec, register
from .greedy import GreedyAgent
from .montecarlo import MonteCarloAgent
from .simple import SimpleAgent


def _neural_agent(seed=None, **params):  # type: ignore[no-untyped-def]
    """``ppo``: imported on first use, so ``import agents`` does not load torch."""
    from .neural import NeuralAgent

    return NeuralAgent(seed, **params)


register("ppo", _neural_agent)

__all__ = ["REGISTRY", "Agent", "GreedyAgent", "MonteCarloAgent", "RandomAgent", "SimpleAgent", "legal_actions", "make_agent", "parse_spec", "register"]
