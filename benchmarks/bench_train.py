"""End-to-end training throughput: our PPO trainer against SB3-contrib MaskablePPO, one run.

    python benchmarks/bench_train.py [--updates 6] [--sb3-steps 16384] [--threads 1] [--json out.json]

Both learn on pagat single hands with the same network size (an MLP of two hidden layers of
``--hidden`` units, SB3's default 64, separate heads on a shared trunk for ours, SB3's
separate policy and value MLPs) and the same update shape (4 epochs, 4 minibatches of a
batch of about 8k decisions).  A "sample" is one learner decision trained on, counted over
the wall time of rollouts plus learning:

* ours — :class:`train.training.ppo.Trainer` iterations (rollouts on the batched env, self-play:
  both seats learn), no evaluation;
* SB3-contrib — ``MaskablePPO("MlpPolicy")`` on :class:`ginenv.envs.single_agent.SingleAgentGinEnv`
  against ``random`` (one game per process, its standard route), ``learn(total_timesteps)``.

Our default card-centred network (``policy.kind=cards``, 256 wide) is timed too.  The first
update (compilation, allocation) is not counted.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train.training.config import load_config  # noqa: E402
from train.training.ppo import Trainer  # noqa: E402


def ours(updates: int, overrides: list[str], threads: int, num_envs: int) -> dict[str, Any]:
    """Samples/s of our trainer over ``updates`` iterations (after one warm-up); rollouts of
    ``num_envs`` games and 8192 steps in all."""
    cfg = load_config(None, [f"threads={threads}", "league.opponents={self: 1}", f"env.num_envs={num_envs}",
                             f"ppo.rollout_steps={max(2, 8192 // num_envs)}", "ppo.batch_size=8192", *overrides])
    trainer = Trainer(cfg, Path("/tmp/bench_train_unused"))
    trainer.iteration()
    start, before = time.perf_counter(), trainer.progress.global_step
    for _ in range(updates):
        trainer.iteration()
    elapsed = time.perf_counter() - start
    samples = trainer.progress.global_step - before
    return {"samples": samples, "seconds": elapsed, "samples_per_s": samples / elapsed}


def sb3(steps: int, hidden: int, threads: int) -> dict[str, Any]:
    """Samples/s of SB3-contrib MaskablePPO on the Gymnasium wrapper (same network widths)."""
    from sb3_contrib import MaskablePPO

    from agents import make_agent
    from ginenv.envs.single_agent import SingleAgentGinEnv

    torch.set_num_threads(threads)
    env = SingleAgentGinEnv(make_agent("random", seed=0), seat="random", ruleset="pagat", episode="hand",
                            illegal_action="raise")
    model = MaskablePPO("MlpPolicy", env, n_steps=8192, batch_size=2048, n_epochs=4, seed=0, verbose=0,
                        policy_kwargs={"net_arch": [hidden, hidden]}, device="cpu")
    model.learn(total_timesteps=1)  # warm-up: one rollout and update (not counted)
    start = time.perf_counter()
    model.learn(total_timesteps=steps, reset_num_timesteps=True)  # whole rollouts of n_steps
    elapsed = time.perf_counter() - start
    return {"samples": model.num_timesteps, "seconds": elapsed, "samples_per_s": model.num_timesteps / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=6, help="timed updates of our trainer (default 6)")
    parser.add_argument("--sb3-steps", type=int, default=16384,
                        help="timed MaskablePPO timesteps, rounded up to whole rollouts of 8192 (default 16384)")
    parser.add_argument("--hidden", type=int, default=64, help="MLP width of the shared comparison (default 64)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads for both (default 1)")
    parser.add_argument("--num-envs", type=int, default=128,
                        help="games per rollout of ours; steps per rollout = 8192 / this (default 128)")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args()
    mlp = ["policy.kind=mlp", f"policy.hidden={args.hidden}", "policy.layers=2"]
    rows = {
        f"ours, MLP {args.hidden}x2": ours(args.updates, mlp, args.threads, args.num_envs),
        "ours, cards (default network)": ours(args.updates, [], args.threads, args.num_envs),
        f"SB3-contrib MaskablePPO, MLP {args.hidden}x2": sb3(args.sb3_steps, args.hidden, args.threads),
    }
    base = rows[f"SB3-contrib MaskablePPO, MLP {args.hidden}x2"]["samples_per_s"]
    print(f"{'trainer':42s} {'samples/s':>10s} {'vs MaskablePPO':>15s}")
    for name, row in rows.items():
        print(f"{name:42s} {row['samples_per_s']:10,.0f} {row['samples_per_s'] / base:14.1f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"threads": args.threads, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
