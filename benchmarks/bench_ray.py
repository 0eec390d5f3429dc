"""Training throughput of the two rollout backends side by side: ``local`` and ``ray``.

    python benchmarks/bench_ray.py [--updates 3] [--num-envs 128] [--workers 2] [--threads 1] [--json out.json]

The same config trains with ``rollout.backend: local`` (one collector in the trainer's process)
and with ``rollout.backend: ray`` (``--workers`` Ray actors of one CPU each, on a local Ray
runtime of that many CPUs): self-play on pagat single hands, the default card network,
rollouts of ``--num-envs`` games and 8192 env steps in all.  A "sample" is one learner
decision trained on, counted over the wall time of whole iterations (rollout, weight
broadcast, update); ``rollout`` is the trainer's own ``rollout_SPS``, the decisions per second
of collecting alone.  The first update (compilation, actor start) is not counted.  Ray's
overhead is ``1 - ray / local`` of the samples per second.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train.training.config import load_config  # noqa: E402
from train.training.ppo import Trainer  # noqa: E402


def measure(overrides: list[str], updates: int) -> dict[str, Any]:
    """Samples/s over ``updates`` iterations of a trainer built from ``overrides`` (after one warm-up)."""
    with tempfile.TemporaryDirectory() as folder:
        trainer = Trainer(load_config(None, overrides), Path(folder))
        try:
            trainer.iteration()
            rollout_sps, samples = [], 0.0
            start = time.perf_counter()
            for _ in range(updates):
                metrics = trainer.iteration()
                samples += metrics["samples"]
                rollout_sps.append(metrics["rollout_SPS"])
            elapsed = time.perf_counter() - start
        finally:
            trainer.close()
    return {"samples": samples, "seconds": elapsed, "samples_per_s": samples / elapsed,
            "rollout_samples_per_s": sum(rollout_sps) / len(rollout_sps)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=3, help="timed updates per backend (default 3)")
    parser.add_argument("--num-envs", type=int, default=128, help="games per rollout in all (default 128)")
    parser.add_argument("--workers", type=int, default=2, help="Ray rollout workers of one CPU each (default 2)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the trainer (default 1)")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args()
    import ray

    common = [f"threads={args.threads}", "league.opponents={self: 1}", f"env.num_envs={args.num_envs}",
              f"ppo.rollout_steps={max(2, 8192 // args.num_envs)}", "ppo.batch_size=8192"]
    results = {"local": measure(common, args.updates)}
    ray.init(num_cpus=args.workers, include_dashboard=False)
    try:
        results["ray"] = measure([*common, "rollout.backend=ray", f"rollout.workers={args.workers}"], args.updates)
    finally:
        ray.shutdown()
    print(f"{'backend':<8} {'samples/s':>10} {'rollout samples/s':>18}")
    for name, result in results.items():
        print(f"{name:<8} {result['samples_per_s']:>10,.0f} {result['rollout_samples_per_s']:>18,.0f}")
    overhead = 1 - results["ray"]["samples_per_s"] / results["local"]["samples_per_s"]
    print(f"Ray's overhead: {100 * overhead:+.1f}% of local samples/s ({args.workers} workers, {args.threads} trainer "
          f"thread{'s' if args.threads > 1 else ''}, {args.num_envs} games)")
    if args.json:
        Path(args.json).write_text(json.dumps({"settings": vars(args), **results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
