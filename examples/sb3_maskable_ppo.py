"""SB3-contrib MaskablePPO on Gin Rummy, batched: ``SB3VecGinEnv`` over ``gymnasium.make_vec``.

Shows: ``gymnasium.make_vec("GinRummy-v1", num_envs=N)`` (N one-hand games of a learner against
``--opponent``, batched on one engine) handed to MaskablePPO through
:class:`ginenv.envs.sb3.SB3VecGinEnv`, which gives MaskablePPO the legal-action masks; rewards are
``win_loss`` (+1/-1 a hand).  The trained policy is then played against ``random``.  SB3's own
``make_vec_env("GinRummy-v1", n_envs=N)`` works too (one game per env, unbatched).

Run (about a minute)::

    pip install -e '.[dev]'          # sb3-contrib is in the dev extra (or '.[examples]')
    python examples/sb3_maskable_ppo.py --steps 8192
"""
from __future__ import annotations

import argparse

import gymnasium
import numpy as np
from common import report
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

import ginenv  # noqa: F401  (registers the GinRummy-* ids)
from ginenv.envs.sb3 import SB3VecGinEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8_192, help="environment steps to train for")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--opponent", default="random", help="an agents.make_agent spec")
    parser.add_argument("--games", type=int, default=200, help="evaluation hands against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    venv = VecMonitor(SB3VecGinEnv(gymnasium.make_vec(
        "GinRummy-v1", num_envs=args.num_envs, opponent=args.opponent, reward_mode="win_loss")))
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, seed=args.seed, verbose=0)
    model.learn(args.steps)
    venv.close()

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return model.predict(observations, action_masks=masks, deterministic=True)[0]

    print(report("sb3-contrib MaskablePPO", policy, model.num_timesteps, games=args.games, seed=args.seed))


if __name__ == "__main__":
    main()
