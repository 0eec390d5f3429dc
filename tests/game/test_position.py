"""HandState.from_position: a mid-hand state rebuilt from its parts plays on identically."""
import json

import numpy as np
import pytest

from ginenv.game.cards import mask_to_cards
from ginenv.game.hand import HandState


def _position_of(state: HandState) -> HandState:
    """Rebuild ``state`` through from_position from its public parts."""
    return HandState.from_position(
        dealer=state.dealer, hands=[state.hand_cards(0), state.hand_cards(1)],
        stock=list(reversed(state.stock)), pile=list(state.pile), current_player=state.current_player,
        phase=state.phase, ruleset=state.ruleset, first_upcard=state.deal.upcard,
        taken=state.taken if state.taken >= 0 else None, forced_draw=state.forced_draw, passes=state.passes,
        turns=state.turns, picked=[mask_to_cards(m) for m in state.picked],
        discarded=[mask_to_cards(m) for m in state.discarded],
        declined=[mask_to_cards(m) for m in state.declined], history=state.history)


@pytest.mark.parametrize("ruleset", ["pagat", "classic25", "oklahoma"])
def test_position_continues_exactly_like_the_original(ruleset):
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(150):
        state = HandState.random(rng, ruleset)
        for _ in range(int(rng.integers(0, 40))):
            if state.is_over:
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        if state.is_over:
            continue
        copy = _position_of(state)
        assert copy.knock_limit == state.knock_limit and copy.doubled == state.doubled
        while not state.is_over:
            assert copy.legal_actions() == state.legal_actions()
            action = state.legal_actions()[rng.integers(len(state.legal_actions()))]
            state.apply_action(action)
            copy.apply_action(action)
        assert copy.result == state.result
        assert HandState.replay(json.loads(json.dumps(copy.log()))) == copy
        checked += 1
    assert checked > 50


def test_position_rejects_misplaced_cards_and_wrong_hand_sizes():
    good = dict(dealer=0, hands=[list(range(10)), list(range(10, 20))], stock=list(range(21, 52)), pile=[20],
                current_player=1, phase="draw")
    HandState.from_position(**good)
    with pytest.raises(ValueError, match="exactly once"):
        HandState.from_position(**{**good, "pile": [19]})
    with pytest.raises(ValueError, match="hand sizes"):
        HandState.from_position(**{**good, "phase": "discard"})
    with pytest.raises(ValueError, match="phase"):
        HandState.from_position(**{**good, "phase": "knock"})
    with pytest.raises(ValueError, match="taken"):
        HandState.from_position(**{**good, "taken": 3})
