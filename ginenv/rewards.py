"""Zero-sum rewards at the end of a hand (and of a game), shared by every env API.

``reward_mode="points"``: the signed points of the hand times ``scale``; when the game
ends, the game and box bonuses are added, so a seat's rewards over a game sum to
``scale * (its final score - the opponent's)``.  ``"win_loss"``: +1/-1 for the hand's
winner in hand mode, for the game's winner in game mode.

>>> from ginenv.hand import HandResult
>>> seat0_reward(HandResult("knock", knocker=1, winner=1, points=8), None, "hand", "points", 0.5)
-4.0
"""
from __future__ import annotations

from typing import Optional

from .hand import HandResult
from .match import GameResult

REWARD_MODES = ("points", "win_loss")


def seat0_reward(hand: HandResult, game: Optional[GameResult], episode: str, reward_mode: str,
                 scale: float) -> float:
    """Seat 0's reward for a finished hand (``game`` is the result when it ended the game);
    seat 1 gets the negative."""
    value = 0.0
    win_loss = reward_mode == "win_loss"
    if hand.winner is not None and not (win_loss and episode == "game"):
        value += _signed(hand.winner, 1.0 if win_loss else hand.points * scale)
    if game is not None:
        if win_loss:
            value += _signed(game.winner, 1.0)
        else:
            w, other = game.winner, 1 - game.winner
            gap = (game.final_scores[w] - game.final_scores[other]) - (game.scores[w] - game.scores[other])
            value += _signed(w, gap * scale)
    return value


def _signed(seat: int, value: float) -> float:
    return value if seat == 0 else -value
