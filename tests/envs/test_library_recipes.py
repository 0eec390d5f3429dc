"""Each RL library's own recipe, run on the registered ids or the PettingZoo envs with only the env
line changed: SB3's ``make_vec_env`` under MaskablePPO, Gymnasium's sync and async vectors
(CleanRL's ``ppo.py`` builds a ``SyncVectorEnv`` of ``RecordEpisodeStatistics(gymnasium.make(id))``)
with its wrappers, the observation layouts the PettingZoo-side libraries read, and (``slow``,
skipped where the library is missing: ``pip install -e '.[examples]'``) RLlib's action-masking
example, single-agent and self-play, Tianshou's PettingZoo tutorial, AgileRL's PettingZoo
MADDPG and IPPO (its mask reader fixed), SuperSuit's vector conversion, and CleanRL's own
``ppo.py`` from PyPI's ``cleanrl`` (old ``gym`` API) through :mod:`ginenv.envs.legacy_gym`, which
ginenv declares as a ``gym.envs`` entry point.
``tests/test_examples.py`` runs the scripts in ``examples/``."""
from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import vector as vector_wrappers
from pettingzoo.test import api_test, parallel_api_test

from ginenv import gin_rummy_v1
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


def quiet(test: Any) -> Any:
    """``test`` (a PettingZoo test function) without its prints."""
    def run(*args: Any, **kwargs: Any) -> Any:
        with contextlib.redirect_stdout(io.StringIO()):
            return test(*args, **kwargs)
    return run


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


# ---------------------------------------------------------------------------------------
# The PettingZoo envs' observation layouts: the vector alone (AgileRL, SuperSuit), RLlib's dict
@pytest.mark.parametrize("layout", ["vector", "rllib"])
def test_the_pettingzoo_observation_layouts_hold_the_contracts_vector_and_mask_and_pass_pettingzoos_api_tests(layout):
    """``observation=layout`` changes how the observation is laid out, nothing else: the same game
    from the same seed gives the same vector and mask as the default dict, in the layout's space.
    PettingZoo's API tests pass on the vector (the parallel one samples unmasked actions: hence
    ``"terminate"``); they cannot sample with RLlib's float mask (``Discrete.sample`` wants int8)."""
    if layout == "vector":
        quiet(api_test)(gin_rummy_v1.env(observation=layout), num_cycles=200)
        quiet(parallel_api_test)(gin_rummy_v1.parallel_env(observation=layout, illegal_action="terminate"),
                                 num_cycles=200)
    reference, env = gin_rummy_v1.env(), gin_rummy_v1.env(observation=layout)
    rng, hands = np.random.default_rng(4), 0
    for seed in range(3):
        reference.reset(seed=seed)
        env.reset(seed=seed)
        for agent in reference.agent_iter():
            expected, _, terminated, truncated, info = reference.last()
            observation, _, *done, layout_info = env.last()
            assert env.agent_selection == agent and done == [terminated, truncated]
            np.testing.assert_array_equal(layout_info["action_mask"], info["action_mask"])
            assert env.observation_space(agent).contains(observation)
            vector = observation if layout == "vector" else observation["observations"]
            np.testing.assert_array_equal(vector, expected["observation"])
            if layout == "rllib":
                np.testing.assert_array_equal(observation["action_mask"], expected["action_mask"])
            action = None if terminated or truncated else int(random_masked(rng, info["action_mask"][None])[0])
            reference.step(action)
            env.step(action)
        hands += 1
    assert hands == 3
    with pytest.raises(ValueError, match="observation must be one of"):
        gin_rummy_v1.parallel_env(observation="observations")


# ---------------------------------------------------------------------------------------
# Libraries outside the dev extra (slow): each one's documented recipe, the env line changed
def trained_rllib_module(config: Any, module_id: str) -> tuple[Any, dict[str, Any]]:
    """Build ``config`` (RLlib checks the env on the way), train one iteration; the module
    ``module_id`` and the env runners' results."""
    ray = pytest.importorskip("ray")
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        algo = config.env_runners(num_env_runners=0).training(
            train_batch_size_per_learner=512, minibatch_size=128, num_epochs=1).debugging(seed=0).build_algo()
        results = algo.train()[ENV_RUNNER_RESULTS]
        module = algo.get_module(module_id)
        algo.stop()
    finally:
        ray.shutdown()
    return module, results


def rllib_actions(module: Any, observation: dict[str, np.ndarray]) -> np.ndarray:
    """The greedy actions of an ``ActionMaskingTorchRLModule`` for a batch of RLlib-layout observations."""
    import torch
    from ray.rllib.core.columns import Columns

    batch = {Columns.OBS: {key: torch.from_numpy(value) for key, value in observation.items()}}
    with torch.no_grad():
        return module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].argmax(-1).numpy()


ILLEGAL_MARK = -1000.0
"""An ``illegal_reward`` no hand scores, so an episode return says whether an illegal action ended it."""


@pytest.mark.slow
def test_rllib_action_masking_example_trains_on_the_registered_id_and_its_module_plays_only_legal_moves(
        one_torch_thread):
    """RLlib's ``action_masking_rl_module.py`` (``PPOConfig`` + ``ActionMaskingTorchRLModule``) with
    its env line changed to ``"ginenv:GinRummy-v1"`` and ``observation="rllib"``."""
    pytest.importorskip("ray.rllib")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.rllib.utils.metrics import NUM_EPISODES

    config = PPOConfig().environment("ginenv:GinRummy-v1", env_config={
        "observation": "rllib", "illegal_reward": ILLEGAL_MARK}).rl_module(rl_module_spec=RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"head_fcnet_hiddens": [64, 64], "head_fcnet_activation": "relu"}))
    module, results = trained_rllib_module(config, "default_policy")
    assert results[NUM_EPISODES] >= 5 and results["episode_return_min"] > ILLEGAL_MARK
    env = gym.make("GinRummy-v1", observation="rllib")
    obs, _ = env.reset(seed=5)
    for _ in range(300):
        action = int(rllib_actions(module, {key: value[None] for key, value in obs.items()})[0])
        assert obs["action_mask"][action] == 1.0
        obs, _, terminated, truncated, info = env.step(action)
        assert "illegal_action" not in info
        if terminated or truncated:
            obs, _ = env.reset()


@pytest.mark.slow
def test_rllib_pettingzoo_parameter_sharing_with_action_masking_trains_both_seats_on_legal_moves(one_torch_thread):
    """RLlib's ``pettingzoo_parameter_sharing.py`` (``PettingZooEnv`` of an AEC env, one shared module)
    with the action-masking module, on ``gin_rummy_v1.env(observation="rllib", illegal_action="terminate")``."""
    pytest.importorskip("ray.rllib")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.rllib.utils.metrics import NUM_EPISODES
    from ray.tune.registry import register_env

    register_env("gin_rummy_v1", lambda _: PettingZooEnv(gin_rummy_v1.env(
        observation="rllib", illegal_action="terminate", illegal_reward=ILLEGAL_MARK)))
    config = PPOConfig().environment("gin_rummy_v1").multi_agent(
        policies={"p0"}, policy_mapping_fn=lambda agent_id, *args, **kwargs: "p0").rl_module(
        rl_module_spec=MultiRLModuleSpec(rl_module_specs={"p0": RLModuleSpec(
            module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": [64]})}))
    module, results = trained_rllib_module(config, "p0")
    assert results[NUM_EPISODES] >= 2
    assert results["episode_return_min"] == results["episode_return_max"] == 0  # zero-sum, none ended illegally
    env = gin_rummy_v1.env(observation="rllib")
    env.reset(seed=6)
    for agent in env.agent_iter(600):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(int(rllib_actions(module, {key: value[None] for key, value in obs.items()})[0]))  # raises if illegal


@pytest.mark.slow
def test_tianshou_pettingzoo_tutorial_collects_legal_moves_only_and_its_buffer_stores_the_infos(one_torch_thread):
    """Tianshou's tic-tac-toe tutorial: a masked DQN against its masked random algorithm in
    ``MultiAgentOffPolicyAlgorithm`` on ``PettingZooEnv(gin_rummy_v1.env(info_lists=False))``; every
    stored action is legal under its stored mask, and one update runs on the buffer."""
    pytest.importorskip("tianshou")
    from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv
    from tianshou.utils.net.common import Net
    from tianshou.utils.torch_utils import policy_within_training_step

    def make_env() -> PettingZooEnv:
        return PettingZooEnv(gin_rummy_v1.env(info_lists=False))

    env = make_env()
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=108, hidden_sizes=[64])
    dqn = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1),
              optim=AdamOptimizerFactory(lr=1e-4), target_update_freq=100)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[dqn, MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)], env=env)
    envs = DummyVectorEnv([make_env for _ in range(4)])
    envs.seed(0)
    buffer = VectorReplayBuffer(4000, 4)
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    stats = collector.collect(n_step=2000)
    assert stats.n_collected_episodes >= 4 and len(buffer) == 2000
    batch, _ = buffer.sample(0)
    assert batch.obs.mask[np.arange(len(batch)), batch.act].all()
    assert set(batch.info.keys()) >= {"action_mask", "legal_actions"}
    with policy_within_training_step(algorithm.policy):  # what its trainer does around an update
        algorithm.update(buffer=buffer, sample_size=64)


@pytest.mark.slow
def test_agilerl_maddpg_trains_on_the_vector_observation_and_acts_legally_from_the_masks_in_the_infos(
        one_torch_thread):
    """AgileRL's PettingZoo MADDPG tutorial (``AsyncPettingZooVecEnv``, ``train_multi_agent_off_policy``)
    on ``gin_rummy_v1.parallel_env(observation="vector")``, which raises on any illegal action; the
    trained agent's ``get_action`` with the infos' masks then picks only legal moves."""
    pytest.importorskip("peft")  # AgileRL 2.58 imports it
    pytest.importorskip("agilerl")
    from agilerl.algorithms import MADDPG
    from agilerl.components.replay_buffer import ReplayBuffer
    from agilerl.training.train_multi_agent_off_policy import train_multi_agent_off_policy
    from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv

    def vector_env() -> AsyncPettingZooVecEnv:
        return AsyncPettingZooVecEnv([lambda: gin_rummy_v1.parallel_env(observation="vector", info_lists=False)
                                      for _ in range(2)])

    envs = vector_env()  # train_multi_agent_off_policy closes it
    envs.reset(seed=0)
    agent_ids = list(envs.possible_agents)
    agent = MADDPG(observation_spaces=[envs.single_observation_space(a) for a in agent_ids],
                   action_spaces=[envs.single_action_space(a) for a in agent_ids], agent_ids=agent_ids,
                   net_config={"encoder_config": {"hidden_size": [64]}}, batch_size=32, vect_noise_dim=2)
    [agent], _ = train_multi_agent_off_policy(envs, "gin_rummy_v1", "MADDPG", [agent], ReplayBuffer(2000),
                                              sum_scores=False, max_steps=400, evo_steps=400, eval_loop=1,
                                              verbose=False)
    assert agent.steps >= 400
    agent.set_training_mode(False)
    envs = vector_env()
    try:
        obs, infos = envs.reset(seed=1)
        ended = 0
        for _ in range(300):
            actions, _ = agent.get_action(obs, infos=infos)
            for a in agent_ids:
                masks = infos[a]["action_mask"]
                acting = masks.any(axis=1)
                assert masks[np.arange(2), actions[a]][acting].all()
            obs, _, terminated, _, infos = envs.step(actions)
            ended += int(np.sum(terminated["player_0"]))
    finally:
        envs.close()
    assert ended >= 2


@pytest.mark.slow
def test_agilerl_ippo_with_its_mask_reader_fixed_trains_on_legal_moves_and_plays_zero_sum_from_the_infos_masks(
        one_torch_thread):
    """AgileRL's IPPO (``train_multi_agent_on_policy`` on ``AsyncPettingZooVecEnv``) fails inside
    ``IPPO.extract_action_masks`` on any numpy mask; ``examples/agilerl_ippo.py``'s ``MaskedIPPO``
    replaces that one method.  Training on ``parallel_env(observation="vector")``, which raises on
    an illegal action, then finishes; the trained agent picks only legal moves from the infos'
    masks, and every game's rewards sum to zero."""
    pytest.importorskip("peft")  # AgileRL 2.58 imports it
    pytest.importorskip("agilerl")
    from agilerl.algorithms import IPPO
    from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
    try:
        from agilerl_ippo import make_env, train
    finally:
        sys.path.pop(0)
    seats, game = ["player_0", "player_1"], make_env()
    probe = IPPO(observation_spaces=[game.observation_space(a) for a in seats],
                 action_spaces=[game.action_space(a) for a in seats], agent_ids=seats,
                 net_config={"encoder_config": {"hidden_size": [8]}})
    envs = AsyncPettingZooVecEnv([make_env for _ in range(2)])
    try:
        obs, infos = envs.reset(seed=0)
        with pytest.raises(ValueError, match="truth value"):  # AgileRL's own reader, on the same infos
            probe.get_action(obs, infos=infos)
    finally:
        envs.close()

    agent = train(1024, num_envs=2, seed=0, hidden=64, learn_step=256)
    assert agent.steps >= 1024
    envs = AsyncPettingZooVecEnv([make_env for _ in range(2)])
    try:
        obs, infos = envs.reset(seed=1)
        ended = 0
        for _ in range(300):
            actions, *_ = agent.get_action(obs, infos=infos)
            acting = 0
            for a in seats:
                masks = infos[a]["action_mask"]
                playing = masks.any(axis=1)
                acting += playing
                assert masks[np.arange(2), actions[a]][playing].all()
            assert (acting == 1).all()  # one seat to act in each game
            obs, rewards, terminated, _, infos = envs.step(actions)
            np.testing.assert_array_equal(rewards["player_0"] + rewards["player_1"], 0)
            ended += int(np.sum(terminated["player_0"]))
    finally:
        envs.close()
    assert ended >= 2


@pytest.mark.slow
def test_supersuit_vector_conversion_and_box_wrappers_run_on_the_vector_observation():
    """SuperSuit's ``pettingzoo_env_to_vec_env_v1`` + ``concat_vec_envs_v1`` on
    ``parallel_env(observation="vector")`` (the default infos: SuperSuit keeps them as a list of
    dicts) under ``normalize_obs_v0`` and ``frame_stack_v1``: random legal moves from the infos'
    masks; both seats of a game end together, zero-sum."""
    ss = pytest.importorskip("supersuit")
    game = ss.frame_stack_v1(ss.normalize_obs_v0(gin_rummy_v1.parallel_env(observation="vector")), 2)
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(game), 2, num_cpus=0, base_class="gymnasium")
    obs, infos = envs.reset(seed=0)
    rng, ended = np.random.default_rng(0), 0
    for _ in range(1500):
        assert obs.shape == (4, 2 * 2150) and 0 <= obs.min() and obs.max() <= 1
        masks = np.stack([info["action_mask"] for info in infos])
        assert masks.any(axis=1).reshape(2, 2).sum(axis=1).tolist() == [1, 1]  # one seat to act per game
        obs, rewards, terminated, truncated, infos = envs.step(random_masked(rng, masks))
        done = (terminated | truncated).reshape(2, 2)
        assert (done[:, 0] == done[:, 1]).all() and (rewards.reshape(2, 2).sum(axis=1) == 0).all()
        ended += int(done[:, 0].sum())
    envs.close()
    assert ended >= 10


def gym_plugins() -> list[str]:
    """The ``gym.envs`` entry points installed (what ``import gym`` runs), as ``name = value``."""
    from importlib.metadata import entry_points

    return [f"{point.name} = {point.value}" for point in entry_points(group="gym.envs")]


@pytest.mark.slow
def test_cleanrls_own_ppo_py_runs_unchanged_on_the_gym_ids_and_learns_legal_first_moves_from_the_reward(tmp_path):
    """CleanRL's ``ppo.py`` as PyPI's ``cleanrl`` ships it (written for ``gym==0.23.1``; no action
    mask), run as ``python -m cleanrl.ppo`` with only ``--env-id GinRummy-v1`` given: ``gym`` finds
    the id through ginenv's ``gym.envs`` entry point (:mod:`ginenv.envs.legacy_gym`).  It samples
    from all 108 actions, and an illegal one ends the episode with ``illegal_reward``: from that
    reward alone it learns to open legally, so
    its logged episodes (``charts/episodic_length``, the ``RecordEpisodeStatistics`` its env
    construction adds) grow from one step, where almost every random first action is illegal."""
    gym_old = pytest.importorskip("gym")
    if tuple(int(part) for part in gym_old.__version__.split(".")[:2]) >= (0, 26):
        pytest.skip(f"PyPI's cleanrl ppo.py needs gym below 0.26, found {gym_old.__version__}")
    try:
        script = importlib.util.find_spec("cleanrl.ppo")
    except ModuleNotFoundError:
        script = None
    if script is None:
        pytest.skip("needs PyPI's cleanrl: pip install gym==0.23.1 && pip install --no-deps cleanrl")
    if "import gym\n" not in Path(script.origin).read_text():
        pytest.skip("this cleanrl's ppo.py is not the gym 0.23 one PyPI ships")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    assert "__root__ = ginenv.envs.legacy_gym:register_plugin" in gym_plugins(), \
        "ginenv's installed metadata lacks its gym.envs entry point: reinstall it (pip install -e .)"
    run = subprocess.run(
        [sys.executable, "-m", "cleanrl.ppo", "--env-id", "GinRummy-v1", "--cuda", "False", "--seed", "1",
         "--total-timesteps", "32768"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(sys.path)})
    assert run.returncode == 0, run.stderr[-3000:]
    assert "episodic_return=" in run.stdout and "SPS:" in run.stdout
    [log_dir] = (tmp_path / "runs").iterdir()
    assert log_dir.name.startswith("GinRummy-v1__ppo__1__")
    events = EventAccumulator(str(log_dir))
    events.Reload()
    lengths = np.array([event.value for event in events.Scalars("charts/episodic_length")])
    returns = np.array([event.value for event in events.Scalars("charts/episodic_return")])
    assert len(lengths) == len(returns) > 1000
    assert np.isin(returns[lengths == 1], [-1.0]).mean() > 0.95  # one step: an illegal first action, -1
    quarter = len(lengths) // 4
    first, last = lengths[:quarter].mean(), lengths[-quarter:].mean()
    assert first < 1.3 and last > 1.6, (first, last)


def test_the_old_gym_ids_give_the_gymnasium_envs_episodes_behind_gym_0_23s_api():
    """``gym.make("GinRummy-v1")`` after ``import ginenv.envs.legacy_gym``: ``seed`` then ``reset``
    gives the deal ``gymnasium.make``'s ``reset(seed=...)`` gives, and ``step``'s 4-tuple carries
    the same observations, rewards and ends (``done`` = terminated or truncated)."""
    gym_old = pytest.importorskip("gym")
    if tuple(int(part) for part in gym_old.__version__.split(".")[:2]) >= (0, 26):
        pytest.skip(f"needs gym below 0.26, found {gym_old.__version__}")
    import ginenv.envs.legacy_gym  # noqa: F401  (registers the ids with gym)

    old, new = gym_old.make("GinRummy-simple-v1"), gym.make("GinRummy-simple-v1")
    assert isinstance(old.action_space, gym_old.spaces.Discrete) and old.action_space.n == 108
    assert old.observation_space.shape == new.observation_space.shape
    old.seed(7)
    old_obs, (new_obs, info) = old.reset(), new.reset(seed=7)
    rng, episodes = np.random.default_rng(7), 0
    for _ in range(400):
        np.testing.assert_array_equal(old_obs, new_obs)
        action = int(random_masked(rng, info["action_mask"][None])[0])
        old_obs, old_reward, done, old_info = old.step(action)
        new_obs, reward, terminated, truncated, info = new.step(action)
        assert (old_reward, done) == (reward, terminated or truncated)
        np.testing.assert_array_equal(old_info["action_mask"], info["action_mask"])
        if done:
            episodes += 1
            old.seed(episodes)
            old_obs, (new_obs, info) = old.reset(), new.reset(seed=episodes)
    assert episodes >= 5
    _, reward, done, info = old.step(int(np.flatnonzero(~info["action_mask"])[0]))  # unmasked: ends at -1
    assert done and reward == -1.0 and "illegal_action" in info


def test_ginenv_declares_the_old_gym_ids_as_a_gym_envs_entry_point_that_needs_no_gym():
    """``pyproject.toml``'s ``gym.envs`` entry point ``__root__`` (ids in ``gym``'s root namespace)
    is :func:`ginenv.envs.legacy_gym.register_plugin`, which ``import gym`` runs; without a pre-0.26
    ``gym`` (Gymnasium only, as in CI) it registers nothing and imports no ``gym``."""
    tomllib = pytest.importorskip("tomllib")
    from importlib.metadata import EntryPoint

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["gym.envs"] == {"__root__": "ginenv.envs.legacy_gym:register_plugin"}
    plugin = EntryPoint("__root__", "ginenv.envs.legacy_gym:register_plugin", "gym.envs").load()
    from ginenv.envs import legacy_gym

    assert plugin is legacy_gym.register_plugin
    if not legacy_gym.OLD_API:
        had_gym = "gym" in sys.modules
        assert plugin() is None and ("gym" in sys.modules) == had_gym


@pytest.mark.parametrize("first", ["gym", "ginenv.envs.legacy_gym"])
def test_import_gym_alone_registers_the_ids_through_ginenvs_entry_point(first):
    """With a pre-0.26 ``gym`` and ginenv installed, ``import gym`` runs the entry point (ginenv is
    imported while ``gym`` is half-initialised), and ``gym.make("GinRummy-simple-v1")`` builds the
    old-API env with no import of ginenv in the script; importing :mod:`ginenv.envs.legacy_gym`
    first (it imports ``gym``, which runs the entry point while the module is half-loaded) works too."""
    gym_old = pytest.importorskip("gym")
    if tuple(int(part) for part in gym_old.__version__.split(".")[:2]) >= (0, 26):
        pytest.skip(f"needs gym below 0.26, found {gym_old.__version__}")
    assert "__root__ = ginenv.envs.legacy_gym:register_plugin" in gym_plugins(), \
        "ginenv's installed metadata lacks its gym.envs entry point: reinstall it (pip install -e .)"
    script = (f"import {first}; import gym; "
              "env = gym.make('GinRummy-simple-v1'); env.seed(3); obs = env.reset(); "
              "print(type(env.unwrapped).__name__, obs.shape, env.unwrapped.env.unwrapped.opponent.name)")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip().splitlines()[-1] == "OldGymEnv (2150,) simple", run.stdout
    assert "WARN" not in run.stderr, run.stderr[-3000:]  # gym logs a plugin's failure as a warning
