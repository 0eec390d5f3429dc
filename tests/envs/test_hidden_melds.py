"""R8: melds stay hidden in the hand during play; nothing is laid down before the hand ends."""
import numpy as np

import ginenv
from ginenv.game.actions import KNOCK_BASE
from ginenv.game.cards import CARD_TEXTS, card_value
from ginenv.game.encoding import decode


def flat(melds):
    return [card for meld in melds for card in meld]


def test_R8_nothing_is_laid_down_or_shown_before_the_hand_ends_and_everything_is_at_the_showdown():
    """During play no result exists and neither seat's observation shows the other's hidden cards;
    at a knock's end both hands are laid down whole: the knocker's melds and deadwood are exactly
    its ten cards, the defender's melds, layoffs and deadwood exactly its ten."""
    rng = np.random.default_rng(8)
    shown = 0
    for episode_seed in range(120):
        env = ginenv.env()
        env.reset(seed=episode_seed)
        hand = env.unwrapped.hand
        while not hand.is_over:
            assert hand.result is None
            for seat, agent in enumerate(env.possible_agents):
                view = decode(env.observe(agent))
                opponent_hidden = set(hand.hand_cards(1 - seat)) - set(view.opp_picked)
                visible = set(view.hand) | set(view.pile_rest) | set(view.opp_picked) | {view.top_discard}
                assert not opponent_hidden & visible
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            knocks = legal[legal >= KNOCK_BASE]
            env.step(int(knocks[0]) if knocks.size else int(legal[rng.integers(legal.size)]))
            hand = env.unwrapped.hand
        result = env.infos["player_0"]["hand_result"]
        if result["knocker"] is None:
            continue
        knocker = env.possible_agents.index(result["knocker"])
        knocker_shown = flat(result["knocker_melds"]) + result["knocker_deadwood_cards"]
        defender_shown = flat(result["defender_melds"]) + result["layoffs"] + result["defender_deadwood_cards"]
        assert sorted(knocker_shown) == sorted(CARD_TEXTS[c] for c in hand.hand_cards(knocker))
        assert sorted(defender_shown) == sorted(CARD_TEXTS[c] for c in hand.hand_cards(1 - knocker))
        assert result["knocker_deadwood"] == sum(card_value(c) for c in result["knocker_deadwood_cards"])
        shown += 1
    assert shown >= 10
