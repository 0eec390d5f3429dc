"""Tianshou 2.x DQN with action masking on the PettingZoo AEC env, against a random seat.

Shows: ``gin_rummy_v1.env(info_lists=False)`` in Tianshou's ``PettingZooEnv`` (it turns the
observation dict into ``obs`` + ``mask``), a masked DQN in seat ``player_0`` and Tianshou's
masked random algorithm in ``player_1``, both under ``MultiAgentOffPolicyAlgorithm`` (the 2.x
successor of ``MultiAgentPolicyManager``), trained by its off-policy trainer.  ``info_lists=False``
keeps every info value a fixed-size array, which Tianshou's replay buffer stacks (the default
infos hold card lists whose length changes from hand to hand).  Rewards are ``win_loss``.

Run (about a minute)::

    pip install -e '.[examples]'          # tianshou
    python examples/tianshou_dqn.py --steps 4000
"""
from __future__ import annotations

import argparse

import numpy as np
import torch
from common import report
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from ginenv import gin_rummy_v1


def make_env() -> PettingZooEnv:
    return PettingZooEnv(gin_rummy_v1.env(info_lists=False, reward_mode="win_loss"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4_000, help="environment steps (both seats) to train for")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--games", type=int, default=200, help="evaluation hands against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    env = make_env()
    observation_space = env.observation_space["observation"]
    net = Net(state_shape=observation_space.shape, action_shape=int(env.action_space.n), hidden_sizes=[128, 128])
    dqn = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1,
                                             eps_inference=0.0),
              optim=AdamOptimizerFactory(lr=1e-4), gamma=0.99, n_step_return_horizon=1, target_update_freq=200)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[dqn, MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)], env=env)

    train_envs = DummyVectorEnv([make_env for _ in range(args.num_envs)])
    train_envs.seed(args.seed)
    collector = Collector[CollectStats](algorithm, train_envs, VectorReplayBuffer(20_000, args.num_envs),
                                        exploration_noise=True)
    collector.reset()
    algorithm.run_training(OffPolicyTrainerParams(
        training_collector=collector, max_epochs=1, epoch_num_steps=args.steps,
        collection_step_num_env_steps=args.batch, batch_size=args.batch,
        update_step_num_gradient_steps_per_sample=0.1, show_progress=False,
        multi_agent_return_reduction=lambda rewards: rewards[:, 0]))
    train_envs.close()

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            q_values = net(torch.from_numpy(observations))[0].numpy()
        return np.where(masks, q_values, -np.inf).argmax(axis=1)

    print(report("Tianshou DQN", policy, collector.collect_step, games=args.games, seed=args.seed))


if __name__ == "__main__":
    main()
