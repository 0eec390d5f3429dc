"""Agents that choose actions from an observation: the heuristic ladder, search and neural policies.

>>> from agents import make_agent
>>> make_agent("random", seed=0).name
'random'
"""
from agents.base import Agent, RandomAgent, legal_actions, parse_spec
from agents.heuristic.greedy import GreedyAgent
from agents.heuristic.simple import SimpleAgent
from agents.registry import REGISTRY, make_agent, register
from agents.search.montecarlo import MonteCarloAgent

__all__ = ["REGISTRY", "Agent", "GreedyAgent", "MonteCarloAgent", "RandomAgent", "SimpleAgent", "legal_actions",
           "make_agent", "parse_spec", "register"]
