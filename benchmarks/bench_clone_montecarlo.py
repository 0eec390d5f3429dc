"""Cloning ``montecarlo`` from the committed recording: held-out agreement of clone settings,
and how often ``montecarlo`` repeats its own recorded choice (the ceiling of agreement).

Trains a fresh policy on the first ``--chunks`` chunks of ``models/ppo/recording/``
(``configs/experiments/pagat_mc.yaml``'s recording) with ``--set`` overrides of that config, and scores
it on chunks 14 and 15 (held out when ``--chunks`` is at most 14), by kind of decision::

    python benchmarks/bench_clone_montecarlo.py --chunks 7 --set clone.epochs=12 --set clone.augment=true
    python benchmarks/bench_clone_montecarlo.py --teacher 2048   # montecarlo, reseeded, on 2048 positions
    python benchmarks/bench_clone_montecarlo.py --policy models/ppo/dagger_drivers/pagat_mc.pt   # a policy, by kind
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from agents import make_agent
from agents.base import act_batch
from agents.neural.masked import MaskedCategorical
from agents.neural.policy import PolicyNet, load_policy
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, KNOCK_BASE
from train.training.clone import Recording, chunk_path, features_of, fit, join_parts, replay_chunk
from train.training.config import load_config

CONFIG = "configs/experiments/pagat_mc.yaml"
HELD_OUT = (14, 15)
KINDS = {"draw": (0, DISCARD_BASE), "discard": (DISCARD_BASE, KNOCK_BASE), "knock": (KNOCK_BASE, BIG_GIN)}


def recording() -> tuple[Recording, Path]:
    rec = Recording.of(load_config(CONFIG, ["clone.decisions=1000000"]))
    return rec, Path("models/ppo/recording") / rec.key()


def replayed(chunks: range | tuple, net: PolicyNet | None = None) -> tuple:
    """The chunks' ``(obs or features, masks, labels, returns, finished)``."""
    rec, folder = recording()
    parts = [replay_chunk(rec, k, np.load(chunk_path(folder, k)), 0.995) for k in chunks]
    if net is not None:
        parts = [(features_of(net, obs), *rest) for obs, *rest in parts]
    return join_parts(parts)


def by_kind(chosen: np.ndarray, labels: np.ndarray, masks: np.ndarray) -> dict[str, float]:
    """Agreement overall and by the kind of the recorded choice (decisions with a choice only)."""
    choice = (masks > 0).sum(1) > 1
    out = {"all": float(np.mean(chosen[choice] == labels[choice]))}
    for name, (low, high) in KINDS.items():
        pick = choice & (labels >= low) & (labels < high)
        out[name] = float(np.mean(chosen[pick] == labels[pick]))
    return out


def held_out_by_kind(net: PolicyNet) -> dict[str, float]:
    """``net``'s agreement with montecarlo on the held-out chunks, by kind of decision."""
    features, masks, labels, _, _ = replayed(HELD_OUT, net)
    with torch.no_grad():
        logits, _ = net.head(features)
    chosen = MaskedCategorical(logits, torch.from_numpy(masks > 0)).mode().numpy()
    return by_kind(chosen, labels, masks)


def clone_run(chunks: int, overrides: list[str]) -> dict:
    cfg = load_config(CONFIG, overrides)
    torch.manual_seed(cfg.seed)
    net = PolicyNet(cfg.policy)
    held = replayed(HELD_OUT, net)
    start = time.time()
    metrics = fit(net, replayed(range(chunks), net), cfg, progress_bar=True, held_out=held)
    return {**metrics, "held_out_by_kind": held_out_by_kind(net), "seconds": time.time() - start,
            "overrides": overrides}


def teacher_run(positions: int) -> dict:
    obs, masks, labels, _, _ = replayed((HELD_OUT[0],))
    pick = np.random.default_rng(0).choice(len(labels), positions, replace=False)
    again = make_agent("montecarlo", seed=12345)
    chosen = np.concatenate([act_batch(again, obs[pick[i:i + 128]], masks[pick[i:i + 128]])
                             for i in range(0, positions, 128)])
    return {"teacher_repeats_itself": by_kind(chosen, labels[pick], masks[pick]), "positions": positions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=7, help="training chunks 0..N-1 (20,096 decisions each)")
    parser.add_argument("--set", action="append", default=[], help="config override, e.g. clone.augment=true")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--policy", help="instead: score this policy file on the held-out chunks")
    parser.add_argument("--teacher", type=int, default=0,
                        help="instead: montecarlo's agreement with itself on N positions")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.policy:
        result = {"policy": args.policy, "held_out_by_kind": held_out_by_kind(load_policy(args.policy).eval())}
    else:
        result = teacher_run(args.teacher) if args.teacher else clone_run(args.chunks, args.set)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
