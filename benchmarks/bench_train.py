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

Our default card-centred network (``policy.kind=cards``, 256 wide) is timed too, and so is
``configs/selfplay.yaml`` (its league of snapshots and its privileged critic).  With
``--baseline COMMIT`` each of these two is also timed with the code of that commit (a temporary
git worktree, measured in a subprocess that imports only that code), alternating with today's in
the same run, so the "vs baseline" column is a speed-up measured side by side; both sides then
read the baseline's ``configs/selfplay.yaml``, so that a recipe changed since (more epochs, say)
does not count as a change of speed.  Today's rows run with the default ``precision: auto``
(bfloat16 trunk products on a CPU with AMX).  The first update (compilation, allocation) is not
counted.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

import torch

ROOT = Path(__file__).resolve().parents[1]


def ours(updates: int, overrides: list[str], threads: int, num_envs: int,
         recipe: Optional[str] = None) -> dict[str, Any]:
    """Samples/s of our trainer (the code on ``sys.path``) over ``updates`` iterations (after one
    warm-up); rollouts of ``num_envs`` games and 8192 steps in all, self-play (the defaults, or
    ``recipe``'s config with its own league)."""
    from train.training.config import load_config
    from train.training.ppo import Trainer

    league = [] if recipe is not None else ["league.opponents={self: 1}"]
    cfg = load_config(recipe, [f"threads={threads}", *league, f"env.num_envs={num_envs}", "eval.every=0",
                               f"ppo.rollout_steps={max(2, 8192 // num_envs)}", "ppo.batch_size=8192", *overrides])
    with tempfile.TemporaryDirectory() as folder:
        trainer = Trainer(cfg, Path(folder))
        trainer.iteration()
        start, before = time.perf_counter(), trainer.progress.global_step
        for _ in range(updates):
            trainer.iteration()
        elapsed = time.perf_counter() - start
    samples = trainer.progress.global_step - before
    return {"samples": samples, "seconds": elapsed, "samples_per_s": samples / elapsed}


def at_commit(tree: Path, updates: int, threads: int, num_envs: int, recipe: Optional[str] = None) -> dict[str, Any]:
    """:func:`ours` with the code of the git worktree ``tree`` (a subprocess importing from it only)."""
    request = json.dumps({"updates": updates, "threads": threads, "num_envs": num_envs, "recipe": recipe})
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", request, "--code", str(tree)],
                          cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


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


SB3_ROW = "SB3-contrib MaskablePPO, MLP {hidden}x2"


def table(rows: dict[str, dict[str, Any]], sb3_row: str) -> str:
    """The printed table: samples/s, the ratio to MaskablePPO (when measured) and each baseline
    row's successor's speed-up over it."""
    base = rows[sb3_row]["samples_per_s"] if sb3_row in rows else None
    lines = [f"{'trainer':52s} {'samples/s':>10s} {'vs MaskablePPO':>15s} {'vs baseline':>12s}"]
    names = list(rows)
    for i, name in enumerate(names):
        speed = rows[name]["samples_per_s"]
        versus = f"{speed / base:14.1f}x" if base else f"{'':>15s}"
        before = rows[names[i - 1]]["samples_per_s"] if i and names[i - 1].endswith("(baseline)") else None
        lines.append(f"{name:52s} {speed:10,.0f} {versus} {f'{speed / before:11.2f}x' if before else '':>12s}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=6, help="timed updates of our trainer (default 6)")
    parser.add_argument("--sb3-steps", type=int, default=16384,
                        help="timed MaskablePPO timesteps, rounded up to whole rollouts of 8192 (default 16384)")
    parser.add_argument("--hidden", type=int, default=64, help="MLP width of the shared comparison (default 64)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads for both (default 1)")
    parser.add_argument("--num-envs", type=int, default=128,
                        help="games per rollout of ours; steps per rollout = 8192 / this (default 128)")
    parser.add_argument("--baseline", metavar="COMMIT", default=None,
                        help="also time the card network and the selfplay recipe with the code of this commit, "
                             "side by side (e.g. 7d1665d, the code before the speed-ups of 2026-12-02)")
    parser.add_argument("--no-sb3", action="store_true", help="skip the SB3-contrib row (no sb3-contrib needed)")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    parser.add_argument("--measure", default=None, help=argparse.SUPPRESS)  # one row, for at_commit
    parser.add_argument("--code", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        sys.path.insert(0, args.code)
        request = json.loads(args.measure)
        print(json.dumps(ours(request["updates"], [], request["threads"], request["num_envs"], request["recipe"])))
        return
    sys.path.insert(0, str(ROOT))
    mlp = ["policy.kind=mlp", f"policy.hidden={args.hidden}", "policy.layers=2"]
    with baseline_tree(args.baseline) as tree:
        # with a baseline both sides read the baseline's recipe file (the same settings; today's may differ)
        recipe = str((tree if tree is not None else ROOT) / "configs" / "selfplay.yaml")
        recipe_label = "configs/selfplay.yaml" + (f" of {args.baseline}" if tree is not None else "")
        rows = {f"ours, MLP {args.hidden}x2": ours(args.updates, mlp, args.threads, args.num_envs)}
        for label, config in (("cards (default network)", None), (recipe_label, recipe)):
            if tree is not None:
                rows[f"ours, {label}, {args.baseline} (baseline)"] = at_commit(
                    tree, args.updates, args.threads, args.num_envs, config)
            rows[f"ours, {label}"] = ours(args.updates, [], args.threads, args.num_envs, config)
    if not args.no_sb3:
        rows[SB3_ROW.format(hidden=args.hidden)] = sb3(args.sb3_steps, args.hidden, args.threads)
    print(table(rows, SB3_ROW.format(hidden=args.hidden)))
    if args.json:
        Path(args.json).write_text(json.dumps({"threads": args.threads, "baseline": args.baseline, "rows": rows},
                                              indent=1))


@contextmanager
def baseline_tree(commit: Optional[str]) -> Iterator[Optional[Path]]:
    """A temporary detached git worktree of ``commit`` (None: nothing), removed afterwards."""
    if commit is None:
        yield None
        return
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit], check=True,
                       capture_output=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False,
                           capture_output=True)


if __name__ == "__main__":
    main()
