"""The episode module both env APIs share: settings checks, rewards, done flags, and the same
hand end whether the hand was stepped by HandState or by the compiled core (batched)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginenv import PRESETS, Ruleset
from ginenv.envs.episode import Episode, EpisodeSpec, HandEnd
from ginenv.game import core
from ginenv.game.match import game_result
from ginenv.game.result import HandResult


@pytest.mark.parametrize("kwargs, name", [
    ({"episode": "match"}, "episode"), ({"reward_mode": "score"}, "reward_mode"),
    ({"reward_scale": 0}, "reward_scale"), ({"reward_scale": "1"}, "reward_scale"),
    ({"ruleset": "vegas"}, "vegas"), ({"gin_bonus": -1}, "gin_bonus"),
])
def test_invalid_settings_are_a_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        EpisodeSpec.build(**kwargs)


def test_spec_needs_a_ruleset_object_and_stores_the_scale_as_a_float():
    with pytest.raises(ValueError, match="ruleset"):
        EpisodeSpec("pagat")
    scale = EpisodeSpec.build(reward_scale=2).reward_scale
    assert scale == 2.0 and isinstance(scale, float)


@pytest.mark.parametrize("mode, episode, expected", [
    ("points", "hand", (-8.0, 8.0)), ("win_loss", "hand", (-1.0, 1.0)),
    ("points", "game", (-8.0, 8.0)), ("win_loss", "game", (0.0, -0.0)),
])
def test_hand_rewards_by_mode(mode, episode, expected):
    spec = EpisodeSpec(Ruleset(), episode, mode)
    assert spec.rewards(HandResult("knock", knocker=1, winner=1, points=8), None) == expected


def test_the_last_hand_of_a_game_adds_the_bonuses():
    spec = EpisodeSpec(Ruleset(), "game", reward_scale=0.5)
    final = game_result(spec.ruleset, [104, 30], [3, 1])  # 100 game bonus, 20 box bonus per hand won
    assert spec.rewards(HandResult("gin", knocker=0, winner=0, points=40), final) == (0.5 * (40 + 100 + 40), -90.0)
    assert EpisodeSpec(Ruleset(), "game", "win_loss").rewards(HandResult("dead"), final) == (1.0, -1.0)


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_a_truncated_hand_truncates_a_hand_episode_and_deals_again_in_a_game(episode):
    spec = EpisodeSpec.build(episode=episode, max_turns_per_hand=1)
    played = spec.start(np.random.default_rng(0))
    first = played.hand
    end = None
    while end is None:
        end = played.apply_action(played.hand.legal_actions()[0])
    assert end.hand_result.truncated and end.rewards == (0.0, -0.0) and end.game_result is None
    assert (end.terminated, end.truncated, end.done) == ((False, True, True) if episode == "hand" else
                                                        (False, False, False))
    assert (played.hand is first) == (episode == "hand")
    assert sorted(end.info()) == ["hand_result"]


def _choice(actions, rng):
    return actions[rng.integers(len(actions))]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), ruleset=st.sampled_from(sorted(PRESETS)),
       episode=st.sampled_from(["hand", "game"]))
def test_stepping_by_the_core_and_settling_gives_the_same_hand_ends(seed, ruleset, episode):
    """``apply_action`` (the AEC env) and ``core.apply`` + ``settle`` (the batched API) agree."""
    spec = EpisodeSpec.build(ruleset, episode, target=40)
    by_state, by_core = spec.start(np.random.default_rng(seed)), spec.start(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    ends: list[tuple[HandEnd, HandEnd]] = []
    while not ends or not ends[-1][0].done:
        action = _choice(by_state.hand.legal_actions(), rng)
        end = by_state.apply_action(action)
        ended = core.apply(by_core.hand.row, action, spec.ruleset.max_turns_per_hand)
        assert (end is None) == (ended == core.ENDED_NOT)
        if end is not None:
            ends.append((end, by_core.settle()))
        np.testing.assert_array_equal(by_state.match_view, by_core.match_view)
        assert by_state.hand == by_core.hand
    assert all(a == b for a, b in ends)
    assert ends[-1][0].terminated != ends[-1][0].truncated


def test_move_to_keeps_the_match_numbers_in_the_given_array():
    spec = EpisodeSpec.build("eaai", "game")
    played: Episode = spec.start(np.random.default_rng(2))
    row, view = np.zeros_like(played.hand.row), np.zeros(5, dtype=np.int64)
    played.move_to(row, view)
    assert played.hand.row is row and view[-1] == spec.ruleset.target
    rng = np.random.default_rng(3)
    end = None
    while end is None or end.hand_result.winner is None:
        end = played.apply_action(_choice(played.hand.legal_actions(), rng))
    assert played.match_view is view and view[:4].sum() > 0
