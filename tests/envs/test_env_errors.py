"""The env's last deep tracebacks are clear errors naming the argument, and ``hand_result``
says onto which of the knocker's melds each layoff went.

Each refused call is one table row: the call, the exception class and a fragment of its
message (the argument's name).  The layoff targets are checked on random arrangements
(hypothesis) and on whole hands played by the engine.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginenv import SingleAgentGinEnv, best_melds, deadwood, decode, raw_env
from ginenv.game.actions import KNOCK_BASE
from ginenv.game.cards import CARD_TEXTS, cards_to_mask, mask_to_cards
from ginenv.game.encoding import OBSERVATION_SIZE
from ginenv.game.hand import HandState
from ginenv.game.melds import mask_best_melds, mask_of
from ginenv.game.result import layoff_targets
from ginenv.game.scoring import best_defence, layoff_options


def _started(**kwargs: Any) -> raw_env:
    env = raw_env(**kwargs)
    env.reset(seed=5)
    return env


def _ended() -> raw_env:
    """An AEC env whose hand is over and whose agents have both left (stepped with None)."""
    env = _started()
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        actions = env.hand.legal_actions()
        env.step(actions[-1] if actions[-1] > 2 else actions[0])
    return env


class _NoArgumentAgent:
    def act(self) -> int:
        return 0


REFUSED = [   # (id, call, error class, message fragment)
    ("hands_won-huge", lambda: _started(episode="game").reset(options={"hands_won": [10**30, 0]}), ValueError,
     "hands_won must be two ints 0..1000000"),
    ("hands_won-float", lambda: _started(episode="game").reset(options={"hands_won": [1.5, 0]}), ValueError,
     "hands_won must be two ints"),
    ("hands_won-one", lambda: _started(episode="game").reset(options={"hands_won": 3}), ValueError,
     "hands_won must be two ints"),
    ("step-after-the-end", lambda: _ended().step(None), RuntimeError, "the episode is over"),
    ("step-action-after-the-end", lambda: _ended().step(0), RuntimeError, "call reset()"),
    ("observe-player_7", lambda: _started().observe("player_7"), ValueError, "agent must be one of"),
    ("observe-seat-number", lambda: _started().observe(0), ValueError, "agent must be one of"),
    ("observation_space-player_7", lambda: _started().observation_space("player_7"), ValueError, "agent"),
    ("action_space-list", lambda: _started().action_space(["player_0"]), ValueError, "agent"),
    ("deadwood-None", lambda: deadwood(None), TypeError, "cards must be an iterable of cards"),
    ("deadwood-int", lambda: deadwood(5), TypeError, "cards must be an iterable of cards"),
    ("deadwood-one-string", lambda: deadwood("7H 8H 9H"), TypeError, "cards must be an iterable of cards"),
    ("best_melds-None", lambda: best_melds(None), TypeError, "cards must be an iterable of cards"),
    ("mask_of-None", lambda: mask_of(None), TypeError, "cards must be an iterable of cards"),
    ("decode-wrong-key", lambda: decode({"obs": np.zeros(OBSERVATION_SIZE)}), ValueError,
     "with the key 'observation'; got keys ['obs']"),
    ("decode-ragged", lambda: decode([[1], [1, 2]]), ValueError, "observation must have shape"),
    ("decode-text", lambda: decode(np.array(["1"] * OBSERVATION_SIZE)), ValueError, "hold numbers"),
    ("decode-None", lambda: decode(None), ValueError, "observation must have shape"),
    ("opponent-no-argument", lambda: SingleAgentGinEnv(opponent=lambda: 0), TypeError,
     "must take one argument, the observation dict (too many positional arguments)"),
    ("opponent-two-arguments", lambda: SingleAgentGinEnv(opponent=lambda observation, seat: 0), TypeError,
     "must take one argument"),
    ("opponent-act-no-argument", lambda: SingleAgentGinEnv(opponent=_NoArgumentAgent()), TypeError,
     "opponent _NoArgumentAgent.act must take one argument"),
]


@pytest.mark.parametrize("call, error, fragment", [case[1:] for case in REFUSED], ids=[case[0] for case in REFUSED])
def test_a_bad_argument_is_a_clear_error_naming_it(call, error, fragment):
    with pytest.raises(error) as refused:
        call()
    assert fragment in str(refused.value)


def test_a_refused_hands_won_changes_nothing():
    env = _started(episode="game")
    before = env._np_random.bit_generator.state, json.dumps(env.hand.log())
    with pytest.raises(ValueError, match="hands_won"):
        env.reset(seed=7, options={"hands_won": [10**30, 0]})
    assert (env._np_random.bit_generator.state, json.dumps(env.hand.log())) == before
    env.reset(seed=7, options={"hands_won": [10**6, 0], "scores": [50, 0]})
    assert int(env.observe("player_0")["observation"].max()) <= 100   # clipped in the observation


def test_a_builtin_opponent_without_a_signature_is_taken_as_it_is():
    env = SingleAgentGinEnv(opponent=max)   # inspect cannot read max's signature
    assert env.opponent is max


# ----- layoff targets -----------------------------------------------------------------------
def _assert_fits(melds: list[tuple[int, ...]], layoffs: list[int]) -> None:
    """``layoff_targets`` splits ``layoffs`` into one legal layoff per meld (R18)."""
    targets = layoff_targets(melds, layoffs)
    assert [card for card, _ in targets] == list(layoffs)
    groups: dict[int, int] = {}
    for card, k in targets:
        assert k is not None and 0 <= k < len(melds)
        groups[k] = groups.get(k, 0) | 1 << card
    for k, group in groups.items():
        assert group in layoff_options(cards_to_mask(melds[k]), group), (melds[k], mask_to_cards(group))


LOW_CARDS = [rank + 13 * suit for suit in range(4) for rank in range(7)]
"""Ranks A-7 in all four suits: 28 cards, so melds and layoffs are common."""


@settings(max_examples=300, deadline=None)
@given(st.permutations(LOW_CARDS))
def test_every_layoff_target_names_a_meld_that_takes_the_card(deck):
    knocker, defender = mask_of(deck[:10]), mask_of(deck[10:20])
    melds = mask_best_melds(knocker)[0]
    _, _, laid = best_defence(defender, melds)
    _assert_fits([tuple(mask_to_cards(meld)) for meld in melds], mask_to_cards(laid))


def test_hand_results_name_the_knocker_meld_of_every_layoff():
    laid_off = 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        hand = HandState.random(rng, "pagat")
        while not hand.is_over:   # knock as soon as possible, else play at random
            actions = hand.legal_actions()
            knocks = [a for a in actions if a >= KNOCK_BASE]
            hand.apply_action(knocks[0] if knocks else int(rng.choice(actions)))
        result = hand.result
        _assert_fits(list(result.knocker_melds), list(result.layoffs))
        shown = result.to_dict()
        assert shown["layoff_targets"] == [[CARD_TEXTS[card], k] for card, k in result.layoff_targets]
        assert [card for card, _ in shown["layoff_targets"]] == shown["layoffs"]
        laid_off += bool(result.layoffs)
    assert laid_off >= 10


def test_a_card_that_fits_no_meld_has_no_target():
    assert layoff_targets([(6, 19, 45)], [33]) == ((33, None),)   # 8H onto 7C7D7S
    assert layoff_targets([], []) == ()


def test_action_masks_after_a_failed_reset_raises_like_step():
    """A reset that fails past its argument checks leaves no current mask: ``action_masks()``
    refuses as ``step`` does instead of returning the previous episode's stale mask."""
    import numpy as np

    from ginenv.envs.single_agent import SingleAgentGinEnv

    broken = {"now": False}

    def opponent(observation):
        if broken["now"]:
            raise ValueError("the opponent crashed")
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = SingleAgentGinEnv(opponent=opponent)
    with pytest.raises(RuntimeError, match="call reset"):
        env.action_masks()
    env.reset(seed=1)
    assert env.action_masks().any()
    broken["now"] = True
    with pytest.raises(ValueError, match="crashed"):
        for seed in range(40):  # some deal gives the opponent the first move
            env.reset(seed=seed)
    for call in (env.action_masks, lambda: env.step(0)):
        with pytest.raises(RuntimeError, match="call reset"):
            call()
