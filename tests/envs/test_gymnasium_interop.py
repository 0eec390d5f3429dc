"""Gymnasium and Stable-Baselines3 as a researcher meets them: registered ids, ``make`` /
``make_vec``, Gymnasium's checker without warnings, and MaskablePPO through the SB3 adapter."""
from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from ginenv.envs.gym_vector import GymVectorGinEnv
from ginenv.envs.registration import OPPONENTS
from ginenv.envs.single_agent import SingleAgentGinEnv


@pytest.mark.parametrize("env_id", sorted(OPPONENTS))
def test_each_id_makes_the_single_agent_env_against_its_opponent(env_id):
    env = gym.make(env_id)
    assert isinstance(env, SingleAgentGinEnv) and env.spec.id == env_id
    assert env.opponent.name == OPPONENTS[env_id]
    assert (env.illegal_action, env.info_lists) == ("terminate", False)


def test_the_opponent_and_other_settings_are_keyword_arguments():
    env = gym.make("GinRummy-v1", opponent="greedy", seat="player_1", episode="game", illegal_action="raise")
    obs, info = env.reset(seed=0)
    assert (env.opponent.name, info["agent"], env.aec.episode, env.illegal_action) == \
        ("greedy", "player_1", "game", "raise")


@pytest.mark.parametrize("env_id", sorted(OPPONENTS))
@pytest.mark.parametrize("render_mode", [None, "ansi", "human"])
def test_check_env_passes_without_a_warning(env_id, render_mode, capsys):
    env = gym.make(env_id, render_mode=render_mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("mode", [None, "vector_entry_point"])
def test_make_vec_gives_the_batched_vector_env(mode):
    envs = gym.make_vec("GinRummy-greedy-v1", num_envs=5, vectorization_mode=mode, seat="player_0")
    assert isinstance(envs, GymVectorGinEnv) and envs.num_envs == 5 and envs.spec.id == "GinRummy-greedy-v1"
    assert (envs.opponent.name, envs.seat, envs.illegal_action) == ("greedy", "player_0", "terminate")
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (5, 2150) and infos["action_mask"].shape == (5, 108)


def test_the_ids_default_to_fixed_shape_infos_and_info_lists_brings_the_contracts_hand_result_back():
    """Where a hand ends, the ids' infos hold ``hand_summary`` alone (Gymnasium's vectors stack
    it); ``info_lists=True`` and the constructors' own default add ``hand_result``."""
    def hand_infos(env):
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        while True:
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if terminated or truncated:
                return info

    assert "hand_summary" in hand_infos(gym.make("GinRummy-v1"))
    assert "hand_result" not in hand_infos(gym.make("GinRummy-v1"))
    kept = hand_infos(gym.make("GinRummy-v1", info_lists=True))
    assert kept["hand_results"] == [kept["hand_result"]] and "hand_summary" in kept
    assert "hand_result" in hand_infos(SingleAgentGinEnv())
    envs = gym.make_vec("GinRummy-v1", num_envs=4)
    assert envs.info_lists is False and GymVectorGinEnv(4).info_lists is True


def test_the_registered_vector_env_samples_legal_actions_from_its_masks():
    envs = gym.make_vec("GinRummy-simple-v1", num_envs=8)
    envs.reset(seed=3)
    envs.action_space.seed(3)
    for _ in range(50):
        masks = envs.action_masks()
        actions = envs.action_space.sample(mask=tuple(masks.astype(np.int8)))
        assert masks[np.arange(8), actions].all()
        _, _, terminated, _, infos = envs.step(actions)
        assert "illegal_action" not in infos.get("final_info", {})


# ---------------------------------------------------------------------------------------
# Stable-Baselines3 / sb3-contrib
@pytest.fixture
def one_torch_thread():
    """Tiny networks: extra torch threads only contend (10x slower on 2 busy cores)."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_maskable_ppo_trains_through_the_sb3_adapter_playing_only_legal_actions(one_torch_thread):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from ginenv.envs.sb3 import SB3VecGinEnv

    # illegal_action="raise": a single unmasked action would stop the training with an error
    venv = VecMonitor(SB3VecGinEnv(gym.make_vec("GinRummy-v1", num_envs=8, illegal_action="raise")))
    assert is_masking_supported(venv)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=256, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32]}, device="cpu")
    model.learn(2048)
    assert model.num_timesteps >= 2048
    obs = venv.reset()
    for _ in range(20):
        masks = get_action_masks(venv)
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(8), actions].all()
        obs, rewards, dones, infos = venv.step(actions)


def test_the_sb3_adapter_reports_ended_episodes_the_sb3_way():
    pytest.importorskip("stable_baselines3")
    from ginenv.envs.sb3 import SB3VecGinEnv

    venv = SB3VecGinEnv(GymVectorGinEnv(16, "greedy"))
    venv.seed(5)
    venv.reset()
    rng, ended = np.random.default_rng(5), 0
    for _ in range(100):
        masks = np.stack(venv.env_method("action_masks"))
        venv.step_async(np.argmax(rng.random(masks.shape) * masks, axis=1))
        obs, rewards, dones, infos = venv.step_wait()
        assert len(infos) == 16 and obs.shape == (16, 2150)
        for i in np.flatnonzero(dones):
            ended += 1
            assert "hand_result" in infos[i] and infos[i]["TimeLimit.truncated"] is False
            last = infos[i]["terminal_observation"]
            assert last.shape == (2150,) and not np.array_equal(last, obs[i])  # the ended hand's, not the next
            assert infos[i]["hand_summary"]["points"] == infos[i]["hand_result"]["points"]
    assert ended > 10
    assert venv.get_attr("opponent", [0, 1])[1].name == "greedy"
    with pytest.raises(AttributeError, match="method_name must be 'action_masks'"):
        venv.env_method("render")
    with pytest.raises(TypeError, match="envs must be a GymVectorGinEnv"):
        SB3VecGinEnv(SingleAgentGinEnv())
