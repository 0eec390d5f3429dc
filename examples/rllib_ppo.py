"""RLlib PPO (new API stack) with action masking, self-play on the PettingZoo AEC env.

Shows: RLlib's PettingZoo parameter-sharing recipe with its action-masking module:
``gin_rummy_v1.env(observation="rllib", illegal_action="terminate")`` wrapped in RLlib's
``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``, both seats mapped to one shared
policy, and RLlib's ``ActionMaskingTorchRLModule`` (from RLlib's examples) masking the logits.
``observation="rllib"`` gives the ``{"observations", "action_mask"}`` dict that module reads;
``illegal_action="terminate"`` lets RLlib's env check, which steps unmasked random actions,
pass.  Rewards are ``win_loss`` (+1/-1 a hand).  The
trained module then plays ``random``.  Training stops after ``--steps`` environment steps: the
two seats' summed return is always 0 (zero-sum), so a stop reward on it would end at once.

One learner against a fixed opponent needs no wrapper: RLlib's own action-masking example runs
on ``.environment("ginenv:GinRummy-v1", env_config={"observation": "rllib"})``, whose
observation is the ``{"observations", "action_mask"}`` dict that module reads.

Run (Ray starts locally, about a minute)::

    pip install -e '.[examples]'          # ray[rllib]
    python examples/rllib_ppo.py --steps 4000
"""
from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import ray
import torch
from common import report
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME
from ray.tune.registry import register_env

from ginenv import gin_rummy_v1

POLICY = "shared"


def make_env(config: dict[str, Any]) -> PettingZooEnv:
    return PettingZooEnv(gin_rummy_v1.env(observation="rllib", illegal_action="terminate", reward_mode="win_loss"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4_000, help="environment steps (both seats) to train for")
    parser.add_argument("--batch", type=int, default=1_000, help="train batch size")
    parser.add_argument("--games", type=int, default=200, help="evaluation hands against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    register_env("gin_rummy_v1", make_env)
    config = (
        PPOConfig()
        .environment("gin_rummy_v1")
        .env_runners(num_env_runners=0)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": [128]})}))
        .training(train_batch_size_per_learner=args.batch, minibatch_size=args.batch // 4, num_epochs=2)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    steps = 0
    while steps < args.steps:
        steps = int(algo.train()[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])
    module = algo.get_module(POLICY)

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        batch = {Columns.OBS: {"observations": torch.from_numpy(observations),
                               "action_mask": torch.from_numpy(masks.astype(np.float32))}}
        with torch.no_grad():
            return module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].argmax(-1).numpy()

    print(report("RLlib PPO", policy, steps, games=args.games, seed=args.seed))
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
