"""ginenv: a rules-exact Gin Rummy engine (RULES.md R1-R28).

>>> from ginenv import deadwood, best_melds
>>> deadwood(["AS", "2S", "3S", "KD"])
10
"""
from .actions import NUM_ACTIONS, IllegalActionError, action_text, discard_action, knock_action
from .encoding import OBSERVATION_SIZE, ObservationView, decode
from .env import env, raw_env
from . import gin_rummy_v1
from .cards import InvalidCardError, card_text, card_value, parse_card, parse_cards
from .checks import LogError, PositionError
from .deal import Deal
from .hand import HandState
from .match import GameResult, MatchState
from .melds import best_melds, deadwood
from .result import HandResult
from .rules import PRESETS, Ruleset
from . import registration  # noqa: F401  (registers the Gymnasium ids GinRummy-v1, ...)

__all__ = [
    "Deal", "GameResult", "HandResult", "HandState", "IllegalActionError", "InvalidCardError", "LogError", "MatchState",
    "NUM_ACTIONS", "PRESETS", "PositionError", "Ruleset", "action_text", "best_melds", "card_text", "card_value", "deadwood",
    "OBSERVATION_SIZE", "ObservationView", "decode", "env", "gin_rummy_v1", "raw_env", "discard_action", "knock_action", "parse_card", "parse_cards",
]
