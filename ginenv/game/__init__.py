"""The rules engine: cards, melds, rulesets, the compiled hand state, scoring, matches and the observation encoder.

Nothing here knows about PettingZoo or Gymnasium; the adapters in :mod:`ginenv.envs` build on it.
"""
