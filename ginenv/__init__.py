"""ginenv: a rules-exact Gin Rummy engine (rules R1-R28 of docs/rules.md) and its RL environments.

The engine lives in :mod:`ginenv.game`, the environment adapters in :mod:`ginenv.envs`; this
module is the public face: the PettingZoo entry points, the Gymnasium and batched envs, the
engine's main types and the meld utilities.  Importing it registers the Gymnasium ids
(``GinRummy-v1``, ``GinRummy-simple-v1``, ``GinRummy-greedy-v1``).

>>> from ginenv import deadwood, best_melds
>>> deadwood(["AS", "2S", "3S", "KD"])
10
"""
from ginenv import gin_rummy_v1
from ginenv.envs import registration  # noqa: F401  (registers the Gymnasium ids)
from ginenv.envs.aec import env, raw_env
from ginenv.envs.batched import BatchedGinEnv
from ginenv.envs.gym_vector import GymVectorGinEnv
from ginenv.envs.single_agent import SingleAgentGinEnv
from ginenv.game.actions import NUM_ACTIONS, IllegalActionError, action_text, discard_action, knock_action
from ginenv.game.cards import InvalidCardError, card_text, card_value, parse_card, parse_cards
from ginenv.game.checks import LogError, PositionError
from ginenv.game.deal import Deal
from ginenv.game.encoding import OBSERVATION_SIZE, ObservationView, decode
from ginenv.game.hand import HandState
from ginenv.game.match import GameResult, MatchState
from ginenv.game.melds import best_melds, deadwood
from ginenv.game.result import HandResult
from ginenv.game.rules import PRESETS, Ruleset

__all__ = [
    "NUM_ACTIONS", "OBSERVATION_SIZE", "PRESETS",
    "BatchedGinEnv", "Deal", "GameResult", "GymVectorGinEnv", "HandResult", "HandState", "IllegalActionError",
    "InvalidCardError", "LogError", "MatchState", "ObservationView", "PositionError", "Ruleset", "SingleAgentGinEnv",
    "action_text", "best_melds", "card_text", "card_value", "deadwood", "decode", "discard_action", "env",
    "gin_rummy_v1", "knock_action", "parse_card", "parse_cards", "raw_env",
]
