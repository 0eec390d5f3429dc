"""R8: melds stay hidden in the hand during play; nothing is laid down before the hand ends."""
import numpy as np

import ginenv
from ginenv.encoding import decode


def test_R8_nothing_is_laid_down_or_shown_before_the_hand_ends():
    """During play neither seat's observation shows the other's melds or hidden cards, and no
    result (melds, layoffs) exists; only when the hand ends are both arrangements shown."""
    rng = np.random.default_rng(8)
    ended = 0
    for episode_seed in range(120):
        env = ginenv.env()
        env.reset(seed=episode_seed)
        while True:
            hand = env.unwrapped.hand
            if hand.is_over:
                break
            assert hand.result is None
            for seat, agent in enumerate(env.possible_agents):
                view = decode(env.observe(agent))
                opponent_hidden = set(hand.hand_cards(1 - seat)) - set(view.opp_picked)
                shown = set(view.hand) | set(view.pile_rest) | set(view.opp_picked) | {view.top_discard}
                assert not opponent_hidden & shown
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            knocks = legal[legal >= ginenv.actions.KNOCK_BASE]
            env.step(int(knocks[0]) if knocks.size else int(legal[rng.integers(legal.size)]))
            if "hand_result" in env.infos["player_0"]:
                result = env.infos["player_0"]["hand_result"]
                if result["knocker"] is not None:
                    assert result["knocker_melds"] or result["knocker_deadwood"] > 0
                    ended += 1
                break
    assert ended > 5
