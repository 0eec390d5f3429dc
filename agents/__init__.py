"""Agents that choose actions from an observation (heuristic ladder, neural policies).

>>> from agents import make_agent
>>> make_agent("random", seed=0).name
'random'
"""
from .base import REGISTRY, Agent, RandomAgent, legal_actions, make_agent, parse_spec, register

__all__ = ["REGISTRY", "Agent", "RandomAgent", "legal_actions", "make_agent", "parse_spec", "register"]
