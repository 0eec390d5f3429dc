"""SuperSuit on ``gin_rummy_v1.parallel_env``: observation wrappers, then a vector env of seats.

Shows what works: ``parallel_env(observation="vector")`` gives the observation vector alone (the
mask stays in every info), on which SuperSuit's Box-only wrappers (``normalize_obs_v0``,
``dtype_v0``, ``frame_stack_v1``) apply; ``pettingzoo_env_to_vec_env_v1`` + ``concat_vec_envs_v1``
turn N games into a vector of 2N seat slots (``base_class="gymnasium"``; ``"stable_baselines3"``
too, but only ``reset()`` without a seed: SuperSuit 3.11 calls ``seed`` on its own
``ConcatVecEnv``, which has none).  Reward wrappers (``clip_reward_v0``, ``reward_lambda_v0``)
work on the parallel env as it is.  SuperSuit's observation wrappers fail on the default Dict
observation (``'Dict' object has no attribute 'low'``): they want a ``Box``.  The script plays
random legal moves (masks from the infos; the waiting seat's action is ignored) through the
vector and prints the rewards.

Run (a few seconds)::

    pip install -e '.[examples]'          # supersuit
    python examples/supersuit_vector.py --steps 4000
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import supersuit as ss

from ginenv import gin_rummy_v1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4_000, help="vector steps to play")
    parser.add_argument("--games", type=int, default=4, help="games in the vector (two seat slots each)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    game = gin_rummy_v1.parallel_env(observation="vector", info_lists=False, reward_mode="win_loss")
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(ss.normalize_obs_v0(game)), args.games,
                                 num_cpus=0, base_class="gymnasium")
    rng = np.random.default_rng(args.seed)
    obs, infos = envs.reset(seed=args.seed)
    ended, rewards, start = 0, [], time.perf_counter()
    for _ in range(args.steps):
        actions = np.array([rng.choice(np.flatnonzero(info["action_mask"])) if info["action_mask"].any() else 0
                            for info in infos])
        obs, reward, terminated, truncated, infos = envs.step(actions)
        done = terminated | truncated
        ended += int(done.sum())
        rewards.extend(reward[done].tolist())
    envs.close()
    print(f"SuperSuit: {args.steps} vector steps of {envs.num_envs} seat slots, observations {obs.shape}, "
          f"{ended} seat-episodes ended, mean final reward {np.mean(rewards) if rewards else 0.0:+.3f} "
          f"(zero-sum over the seats), "
          f"{args.steps * envs.num_envs / (time.perf_counter() - start):.0f} slot-steps/s")


if __name__ == "__main__":
    main()
