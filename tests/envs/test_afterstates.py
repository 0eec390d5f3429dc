"""BatchedGinEnv.afterstates: each action played in a copy gives exactly what step() would give
for it, and the games themselves do not change."""
import numpy as np
import pytest
from deals import random_legal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginenv import PRESETS
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game.actions import KNOCK_BASE, IllegalActionError


def _stepped_alone(venv, state, game, action):
    """What ``step`` gives when only ``game`` plays ``action``, from ``state`` (in a fresh copy)."""
    venv.set_state(state)
    actions = np.zeros(venv.num_envs, dtype=np.int64)
    actions[game] = action
    active = np.zeros(venv.num_envs, dtype=bool)
    active[game] = True
    obs, masks, to_act, rewards, terminated, truncated, _ = venv.step(actions, active)
    return obs[game], masks[game], to_act[game], rewards[game], terminated[game] | truncated[game], \
        venv.privileged()[game]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=st.sampled_from(sorted(PRESETS)), reward_mode=st.sampled_from(["points", "win_loss"]),
       workers=st.sampled_from([1, 2]), steps=st.integers(0, 40), seed=st.integers(0, 2**31 - 1))
def test_every_afterstate_is_what_step_gives_for_that_action(ruleset, reward_mode, workers, steps, seed):
    kwargs = {"num_envs": 3, "ruleset": ruleset, "reward_mode": reward_mode, "reward_scale": 0.02}
    with BatchedGinEnv(**kwargs, num_workers=workers, seed=seed) as venv, BatchedGinEnv(**kwargs) as copy:
        obs, masks, _ = venv.reset()
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            obs, masks, *_ = venv.step(random_legal(rng, masks))
        state = venv.get_state()
        games = np.concatenate([np.full(int(m.sum()), i) for i, m in enumerate(masks)])
        actions = np.concatenate([np.flatnonzero(m) for m in masks])
        after = venv.afterstates(games, actions)
        np.testing.assert_equal(venv.get_state(), state)  # the games did not move
        for k, (game, action) in enumerate(zip(games, actions)):
            want_obs, want_masks, want_to_act, want_rewards, ended, want_hidden = _stepped_alone(copy, state, game,
                                                                                             action)
            assert after["ended"][k] == ended
            if ended:
                np.testing.assert_array_equal(after["rewards"][k], want_rewards)
                assert after["to_act"][k] == -1 and not after["obs"][k].any()
            else:
                assert not after["rewards"][k].any()
                np.testing.assert_array_equal(after["obs"][k], want_obs)
                np.testing.assert_array_equal(after["masks"][k], want_masks)
                np.testing.assert_array_equal(after["privileged"][k], want_hidden)
                assert after["to_act"][k] == want_to_act


def test_knocks_and_gins_end_the_hand_with_step_rewards_in_played_games():
    """Over many random positions, the afterstates include ended hands (knocks or gin), so the
    property above is exercised where the rewards matter."""
    venv = BatchedGinEnv(16, reward_scale=0.02, seed=3)
    obs, masks, _ = venv.reset()
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(120):
        games = np.concatenate([np.full(int(m[KNOCK_BASE:].sum()), i) for i, m in enumerate(masks)])
        knocks = np.concatenate([KNOCK_BASE + np.flatnonzero(m[KNOCK_BASE:]) for m in masks])
        if games.size:
            after = venv.afterstates(games, knocks)
            ended += int(after["ended"].sum())
            assert after["ended"].all() and (after["rewards"].sum(axis=1) == 0).all()
            assert (after["rewards"] != 0).all()
        obs, masks, *_ = venv.step(random_legal(rng, masks))
    assert ended > 0


def test_afterstates_refuse_bad_input():
    venv = BatchedGinEnv(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        venv.afterstates([0], [1])
    _, masks, _ = venv.reset()
    with pytest.raises(IllegalActionError, match="not legal in game 1"):
        venv.afterstates([0, 1], [1, 60])
    with pytest.raises(ValueError, match="indices 0..1"):
        venv.afterstates([2], [1])
    with pytest.raises(TypeError, match="game indices"):
        venv.afterstates([0.5], [1])
    with pytest.raises(ValueError, match="hand episodes"):
        game_env = BatchedGinEnv(2, episode="game", seed=0)
        game_env.reset()
        game_env.afterstates([0], [1])
    assert venv.afterstates([], [])["obs"].shape == (0, venv.reset()[0].shape[1])
