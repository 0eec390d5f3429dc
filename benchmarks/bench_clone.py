"""How well the policy network imitates an agent: agreement on held-out decisions.

    python benchmarks/bench_clone.py [--agent greedy] [--decisions 100000] [--epochs 6]

Records ``--decisions`` decisions of the agent in self-play (pagat hands,
:func:`train.training.clone.record_decisions`), trains a fresh default network on 90% of them by
cross-entropy under the masked policy (Adam, lr 1e-3, minibatches of 256) and prints, after
each epoch, the share of the held-out 10% where the network's most likely action equals the
agent's, over decisions with more than one legal action (all, draw/offer phase, discard/knock).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.neural.masked import MaskedCategorical  # noqa: E402
from agents.neural.policy import PolicyNet  # noqa: E402
from train.training.clone import record_decisions  # noqa: E402
from train.training.config import load_config  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="greedy", help="agent spec to imitate (default greedy)")
    parser.add_argument("--decisions", type=int, default=100_000, help="decisions recorded (default 100000)")
    parser.add_argument("--epochs", type=int, default=6, help="training epochs (default 6)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    cfg = load_config(None, [f"clone.agent={args.agent}", f"clone.decisions={args.decisions}", "env.num_envs=128"])
    obs, masks, actions, *_ = record_decisions(cfg, progress_bar=False)
    split = int(len(actions) * 0.9)
    net = PolicyNet(cfg.policy)
    with torch.no_grad():
        features = net.features(torch.from_numpy(obs))
    legal, chosen = torch.from_numpy(masks > 0), torch.from_numpy(actions)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(0)
    choice = masks[split:].sum(axis=1) > 1
    draw_phase = actions[split:] < 3
    for epoch in range(args.epochs):
        order = torch.randperm(split, generator=generator)
        for start in range(0, split, 256):
            index = order[start:start + 256]
            logits, _ = net.head(features[index])
            loss = -MaskedCategorical(logits, legal[index]).log_prob(chosen[index]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            logits, _ = net.head(features[split:])
            agree = MaskedCategorical(logits, legal[split:]).mode().numpy() == actions[split:]
        print(f"epoch {epoch + 1}: held-out agreement {agree[choice].mean():.3f} (draw/offer "
              f"{agree[choice & draw_phase].mean():.3f}, discard/knock {agree[choice & ~draw_phase].mean():.3f})",
              flush=True)


if __name__ == "__main__":
    main()
