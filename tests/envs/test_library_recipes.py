"""Each RL library's own recipe, run on the registered ids with only the env line changed: SB3's
``make_vec_env`` under MaskablePPO, Gymnasium's sync and async vectors (CleanRL's ``ppo.py``
builds a ``SyncVectorEnv`` of ``RecordEpisodeStatistics(gymnasium.make(id))``) with its
wrappers, and the observation dict RLlib's action-masking module reads.  The libraries that are
not dev dependencies (RLlib, Tianshou, AgileRL, SuperSuit) run in ``tests/test_examples.py``."""
from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import vector as vector_wrappers

from ginenv.envs.episode import SUMMARY_OUTCOMES
from ginenv.envs.gym_vector import GymVectorGinEnv
from ginenv.envs.single_agent import RenderModeError, SingleAgentGinEnv

DEAD = SUMMARY_OUTCOMES.index("dead")


def random_masked(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (0 where a row has none)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def signed_points(summary: dict[str, Any], i: int, agent: str) -> int:
    """The hand's points from ``agent``'s side, read from row ``i`` of a stacked ``hand_summary``."""
    winner = int(summary["winner"][i])
    return 0 if winner < 0 else int(summary["points"][i]) * (1 if f"player_{winner}" == agent else -1)


def leaves(infos: dict[str, Any], prefix: str = "") -> dict[str, np.ndarray]:
    """Every array in the nested dict-of-arrays ``infos``, by its dotted key."""
    found: dict[str, np.ndarray] = {}
    for key, value in infos.items():
        if isinstance(value, dict):
            found.update(leaves(value, f"{prefix}{key}."))
        else:
            found[f"{prefix}{key}"] = value
    return found


@pytest.fixture
def one_torch_thread():
    """Tiny networks: extra torch threads only contend on a busy machine."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)


# ---------------------------------------------------------------------------------------
# Stable-Baselines3: make_vec_env, as SB3's docs build every env
@pytest.mark.filterwarnings("ignore:.*render_mode='rgb_array'")  # Gymnasium's note before SB3 retries
def test_sb3_make_vec_env_trains_maskable_ppo_on_legal_moves_with_monitor_returns_equal_to_hand_points(
        one_torch_thread):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env

    class Episodes(BaseCallback):
        """Every ended episode's Monitor return and hand points, and any illegal action."""

        def __init__(self) -> None:
            super().__init__()
            self.returns: list[tuple[float, int]] = []
            self.illegal = 0

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"]):
                self.illegal += "illegal_action" in info
                if done:
                    summary = {key: [value] for key, value in info["hand_summary"].items()}
                    self.returns.append((info["episode"]["r"], signed_points(summary, 0, info["agent"])))
            return True

    venv = make_vec_env("GinRummy-v1", n_envs=4, seed=0)
    assert [env.render_mode for env in venv.envs] == [None] * 4  # rgb_array refused, SB3 made it without
    assert all(isinstance(env.unwrapped, SingleAgentGinEnv) for env in venv.envs)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=128, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32]}, device="cpu")
    episodes = Episodes()
    model.learn(2048, callback=episodes)
    assert model.num_timesteps >= 2048 and episodes.illegal == 0
    assert len(episodes.returns) >= 20
    assert all(ret == points for ret, points in episodes.returns)
    obs = venv.reset()
    for _ in range(20):
        masks = get_action_masks(venv)
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(4), actions].all()
        obs, *_ = venv.step(actions)


def test_an_unsupported_render_mode_is_a_value_error_and_the_type_error_sb3_retries_on():
    with pytest.raises(RenderModeError, match="render_mode must be None, 'ansi' or 'human', got 'rgb_array'") as raised:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Gymnasium's own note on the mode
            gym.make("GinRummy-v1", render_mode="rgb_array")
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, TypeError)
    with pytest.raises(RenderModeError, match="render_mode must be None, got 'rgb_array'"):
        GymVectorGinEnv(2, render_mode="rgb_array")


# ---------------------------------------------------------------------------------------
# Gymnasium's vectors: the route, CleanRL's env construction
@pytest.mark.parametrize("mode, num_envs", [("sync", 8), ("async", 4)])
def test_gymnasium_vectors_stack_one_dtype_and_shape_per_info_key_over_5000_random_masked_steps(mode, num_envs):
    """Every info key keeps one dtype and shape whatever ends in a step (dead hands, several at
    once), and each ended episode's ``RecordEpisodeStatistics`` return is its hand's points."""
    envs = gym.make_vec("GinRummy-simple-v1", num_envs=num_envs, vectorization_mode=mode,
                        wrappers=[gym.wrappers.RecordEpisodeStatistics])
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    kinds: dict[str, tuple] = {}
    ended = dead = together = 0
    for _ in range(5000):
        agents = infos["agent"]
        _, rewards, terminated, truncated, infos = envs.step(random_masked(rng, infos["action_mask"]))
        for key, array in leaves(infos).items():
            assert kinds.setdefault(key, (array.dtype, array.shape)) == (array.dtype, array.shape), key
        assert "illegal_action" not in infos
        done = np.flatnonzero(terminated | truncated)
        for i in done:
            assert infos["episode"]["r"][i] == signed_points(infos["hand_summary"], i, agents[i])
        ended += len(done)
        together += len(done) > 1
        if "hand_summary" in infos:
            summary = infos["hand_summary"]
            dead += int((summary["outcome"][summary["_outcome"]] == DEAD).sum())
    envs.close()
    assert [key for key, (dtype, _) in kinds.items() if dtype.kind == "O"] == ["agent"]
    assert ended > 500 and dead > 0 and together > 50


@pytest.mark.parametrize("wrapper", [
    gym.wrappers.RecordEpisodeStatistics, gym.wrappers.NormalizeObservation, gym.wrappers.NormalizeReward,
    lambda env: gym.wrappers.TimeLimit(env, 8), lambda env: gym.wrappers.FrameStackObservation(env, 2),
    lambda env: gym.wrappers.ClipReward(env, -1, 1)],
    ids=["RecordEpisodeStatistics", "NormalizeObservation", "NormalizeReward", "TimeLimit", "FrameStack", "ClipReward"])
def test_gymnasium_wrappers_keep_the_env_playable_from_the_masks_in_its_infos(wrapper):
    env = wrapper(gym.make("GinRummy-greedy-v1"))
    obs, info = env.reset(seed=1)
    rng, episodes = np.random.default_rng(1), 0
    for _ in range(300):
        assert env.observation_space.contains(obs) and info["action_mask"].any()
        obs, reward, terminated, truncated, info = env.step(int(random_masked(rng, info["action_mask"][None])[0]))
        assert "illegal_action" not in info
        if terminated or truncated:
            episodes += 1
            obs, info = env.reset()
    assert episodes >= 5


@pytest.mark.parametrize("wrapper", [
    vector_wrappers.RecordEpisodeStatistics, vector_wrappers.NormalizeReward, vector_wrappers.DictInfoToList,
    lambda envs: vector_wrappers.ClipReward(envs, -1, 1)],
    ids=["RecordEpisodeStatistics", "NormalizeReward", "DictInfoToList", "ClipReward"])
def test_gymnasium_vector_wrappers_run_on_the_batched_vector_env(wrapper):
    """The reward and info wrappers that know same-step autoreset; Gymnasium's observation vector
    wrappers accept only next-step autoreset (use ``vectorization_mode="sync"`` for those)."""
    envs = wrapper(gym.make_vec("GinRummy-v1", num_envs=8))
    envs.reset(seed=2)
    rng, ended = np.random.default_rng(2), 0
    for _ in range(200):
        _, rewards, terminated, truncated, _ = envs.step(random_masked(rng, envs.unwrapped.action_masks()))
        ended += int((terminated | truncated).sum())
        assert rewards.shape == (8,) and np.isfinite(rewards).all()
    assert ended >= 8


# ---------------------------------------------------------------------------------------
# RLlib: the observation dict of its action-masking examples
def test_the_rllib_observation_is_the_dict_its_action_masking_module_reads_and_masks_to_legal_moves(
        one_torch_thread):
    """``observation="rllib"`` gives ``{"observations", "action_mask"}`` with a float 0/1 mask;
    RLlib's ``ActionMaskingTorchRLModule`` adds ``clamp(log(mask), FLOAT_MIN)`` to its logits,
    which here leaves only legal moves, also through Gymnasium's sync vector (RLlib's env runner)."""
    torch = one_torch_thread
    env = gym.make("GinRummy-v1", observation="rllib")
    assert set(env.observation_space.spaces) == {"observations", "action_mask"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []

    envs = gym.make_vec("GinRummy-v1", num_envs=4, vectorization_mode="sync", observation="rllib")
    obs, infos = envs.reset(seed=3)
    ended = 0
    for _ in range(300):
        assert envs.observation_space.contains(obs) and obs["action_mask"].dtype == np.float32
        np.testing.assert_array_equal(obs["action_mask"], infos["action_mask"])
        logits = torch.randn(4, 108) + torch.clamp(torch.log(torch.from_numpy(obs["action_mask"])), min=-3.4e38)
        actions = logits.argmax(-1).numpy()
        playing = obs["action_mask"].any(axis=1)
        assert obs["action_mask"][np.arange(4), actions][playing].all()
        obs, _, terminated, truncated, infos = envs.step(actions)
        ended += int((terminated | truncated).sum())
        assert "illegal_action" not in infos
    assert ended >= 4
    with pytest.raises(ValueError, match="observation must be 'vector'"):
        gym.make_vec("GinRummy-v1", num_envs=2, observation="rllib")
