"""Agents that choose actions from an observation (heuristic ladder, neural policies).

The ladder lands with the baselines issue; this package is the place for it.
"""
