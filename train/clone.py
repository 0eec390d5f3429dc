"""Behaviour-cloning warm start: imitate an agent's decisions before PPO.

The agent (``clone.agent``, any spec of :func:`agents.make_agent`) plays both seats of
``env.num_envs`` games on the batched env until ``clone.decisions`` decisions are recorded;
the policy then minimises the cross-entropy of the agent's actions under the masked policy
(:class:`agents.masked.MaskedCategorical`) for ``clone.epochs`` passes, and the value head
regresses the seat's discounted return (so PPO starts with a sensible critic).

>>> from agents.neural import PolicyNet
>>> from train.config import load_config
>>> cfg = load_config(None, ["clone.agent=simple", "clone.decisions=300", "clone.epochs=1", "env.num_envs=8"])
>>> metrics = clone(PolicyNet(), cfg, progress_bar=False)
>>> metrics["decisions"] >= 300, 0.0 <= metrics["accuracy"] <= 1.0
(True, True)
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents import make_agent
from agents.base import act_batch
from agents.masked import MaskedCategorical
from agents.neural import PolicyNet
from ginenv.vector import VectorGinEnv

from .config import RunConfig
from .evaluate import derive_seed


def record_decisions(cfg: RunConfig, progress_bar: bool = True) -> tuple[np.ndarray, ...]:
    """``(obs, masks, actions, returns)`` of ``clone.decisions`` decisions of ``clone.agent``
    playing itself; ``returns`` is each decision's discounted reward-to-go for its seat (0 for
    decisions whose episode was still going when recording stopped)."""
    e, c = cfg.env, cfg.clone
    agent = make_agent(c.agent, seed=derive_seed(cfg.seed, 5))
    venv = VectorGinEnv(e.num_envs, ruleset=e.ruleset, episode=e.episode, reward_mode=e.reward_mode,
                        reward_scale=e.reward_scale, seed=derive_seed(cfg.seed, 6))
    obs, masks, to_act = venv.reset()
    records: list[tuple[np.ndarray, ...]] = []
    pending: list[list[list[int]]] = [[[], []] for _ in range(e.num_envs)]  # record indices per game and seat
    returns: list[float] = []
    with tqdm(total=c.decisions, desc="cloning: recording", unit="dec", disable=not progress_bar) as bar:
        while len(returns) < c.decisions:
            actions = act_batch(agent, obs, masks)
            for i in range(e.num_envs):
                pending[i][int(to_act[i])].append(len(returns))
                returns.append(0.0)
            records.append((obs, masks, actions))
            obs, masks, to_act, rewards, terminated, truncated, _ = venv.step(actions)
            for i in np.flatnonzero(rewards.any(axis=1) | terminated | truncated):
                for seat in (0, 1):
                    _credit(returns, pending[i][seat], float(rewards[i, seat]), cfg.ppo.gamma)
                    if terminated[i] or truncated[i]:
                        pending[i][seat] = []
            bar.update(e.num_envs)
    stacked = [np.concatenate(parts) for parts in zip(*records)]
    return (*stacked, np.array(returns, dtype=np.float32))


def _credit(returns: list[float], indices: list[int], reward: float, gamma: float) -> None:
    """Add ``reward`` to the returns of a seat's decisions, discounted back from the last."""
    for back, index in enumerate(reversed(indices)):
        returns[index] += reward * gamma ** back


def clone(net: PolicyNet, cfg: RunConfig, progress_bar: bool = True) -> dict[str, Any]:
    """Train ``net`` to imitate ``cfg.clone.agent``; returns the final loss and accuracy."""
    c = cfg.clone
    obs, masks, actions, returns = record_decisions(cfg, progress_bar)
    with torch.no_grad():
        b_features = net.features(torch.from_numpy(obs))
    b_masks = torch.from_numpy(masks > 0)
    b_actions, b_returns = torch.from_numpy(actions), torch.from_numpy(returns)
    optimizer = torch.optim.Adam(net.parameters(), lr=c.lr)
    generator = torch.Generator().manual_seed(derive_seed(cfg.seed, 7))
    size, mb = len(b_actions), 256
    metrics: dict[str, Any] = {"agent": c.agent, "decisions": size}
    net.train()
    for epoch in tqdm(range(c.epochs), desc="cloning: training", disable=not progress_bar):
        order = torch.randperm(size, generator=generator)
        correct, total_loss = 0, 0.0
        for start in range(0, size, mb):
            index = order[start:start + mb]
            logits, values = net.head(b_features[index])
            dist = MaskedCategorical(logits, b_masks[index])
            policy_loss = -dist.log_prob(b_actions[index]).mean()
            value_loss = 0.5 * ((values - b_returns[index]) ** 2).mean()
            optimizer.zero_grad()
            (policy_loss + cfg.ppo.vf_coef * value_loss).backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.ppo.max_grad_norm)
            optimizer.step()
            correct += int((dist.mode() == b_actions[index]).sum())
            total_loss += float(policy_loss.detach()) * len(index)
        metrics.update(epoch=epoch + 1, loss=total_loss / size, accuracy=correct / size)
    return metrics
