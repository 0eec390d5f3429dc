"""Train an opponent model (:class:`agents.neural.belief.BeliefNet`) on recorded games.

:func:`record` lets a policy play both seats of many games at once (its actions drawn from it, so
the positions vary) and keeps, for every decision, the acting seat's card features and the
opponent's true hand (the first block of the privileged vector, :mod:`ginenv.game.privileged`): the
label, read from the batched env's true state and never from an observation.  :func:`fit` trains
the network by binary cross-entropy on all but a held-out share of the positions and reports the
held-out loss beside two guesses a model must beat: the even guess of a uniform deal of the unseen
cards (:func:`agents.neural.belief.even_guess`) and the best guess blind to the observation (each card held with
10/52).  :func:`train_belief` does both and saves the file that ``rollout:belief=PATH`` reads
(``ginrummy belief``).

>>> from agents.neural.belief import BeliefNet
>>> data = record(None, positions=64, num_envs=8, seed=0, progress_bar=False)
>>> data.features.shape, data.labels.shape, int(data.labels[0].sum())
((64, 1444), (64, 52), 10)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import torch
from tqdm import tqdm

from agents.neural.belief import CERTAIN, RELATED_SIZE, BeliefNet, belief_inputs, even_guess, save_belief
from agents.neural.policy import FEATURES, NeuralAgent
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game.privileged import OPPONENT_HAND

BLIND_LOSS = -(10 / 52 * math.log(10 / 52) + 42 / 52 * math.log(42 / 52))
"""Binary cross-entropy of the best guess that ignores the observation (about 0.49)."""


@dataclass
class Positions:
    """Recorded decisions: what the model reads ``[N, 1444]`` (float16,
    :func:`~agents.neural.belief.belief_inputs`), the opponent's hand ``[N, 52]`` (uint8)
    and the even guess ``[N, 52]`` (float16, :func:`agents.neural.belief.even_guess`), which the model reads
    and must beat to be worth anything."""

    features: np.ndarray
    labels: np.ndarray
    even: np.ndarray


def record(policy: Optional[str], positions: int, num_envs: int = 256, seed: int = 0, ruleset: str = "pagat",
           sample: bool = True, progress_bar: bool = True) -> Positions:
    """``positions`` decisions of ``policy`` (a policy file; None: the shipped one of ``ruleset``) playing
    both seats of ``num_envs`` single hands at a time (actions drawn from the policy, seeded by ``seed``;
    ``sample=False``: its most likely actions, as ``ppo`` plays)."""
    agent = NeuralAgent(seed, path=policy, sample=sample)
    features = np.zeros((positions, FEATURES["cards"] + RELATED_SIZE), dtype=np.float16)
    labels = np.zeros((positions, OPPONENT_HAND), dtype=np.uint8)
    even = np.zeros((positions, OPPONENT_HAND), dtype=np.float16)
    filled = 0
    with BatchedGinEnv(num_envs, ruleset=ruleset, seed=seed) as venv, \
            tqdm(total=positions, desc="recording", unit="pos", disable=not progress_bar) as bar:
        obs, masks, _ = venv.reset()
        while filled < positions:
            take = min(num_envs, positions - filled)
            acting = torch.from_numpy(obs[:take])
            with torch.inference_mode():
                features[filled:filled + take] = belief_inputs(acting).numpy()
                even[filled:filled + take] = even_guess(acting).numpy()
            labels[filled:filled + take] = venv.privileged()[:take, :OPPONENT_HAND] > 0.5
            filled += take
            bar.update(take)
            obs, masks, *_ = venv.step(agent.act_batch(obs, masks))
    return Positions(features, labels, even)


def fit(net: BeliefNet, data: Positions, epochs: int = 4, batch: int = 1024, lr: float = 5e-4,
        held_out: float = 0.1, seed: int = 0, progress_bar: bool = True) -> dict[str, float]:
    """Train ``net`` on ``data`` (the last ``held_out`` share kept apart); returns its held-out loss
    beside the even guess's and the blind guess's on the same positions, and the positions' counts."""
    torch.manual_seed(seed)
    split = len(data.labels) - max(1, int(len(data.labels) * held_out))
    train_x, train_y = torch.from_numpy(data.features[:split]), torch.from_numpy(data.labels[:split])
    train_even = torch.from_numpy(data.even[:split])
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed)
    net.train()
    steps = epochs * math.ceil(split / batch)
    with tqdm(total=steps, desc="fitting", unit="batch", disable=not progress_bar) as bar:
        for _ in range(epochs):
            order = torch.randperm(split, generator=generator)
            for start in range(0, split, batch):
                index = order[start:start + batch]
                loss = torch.nn.functional.binary_cross_entropy_with_logits(
                    net.read(train_x[index].float(), train_even[index]), train_y[index].float())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                bar.update(1)
                bar.set_postfix(loss=f"{loss.item():.3f}")
    net.eval()
    return {"held_out_loss": held_out_loss(net, data, split), "even_loss": even_loss(data, split),
            "blind_loss": BLIND_LOSS, "positions": float(len(data.labels)), "trained_on": float(split)}


def held_out_loss(net: BeliefNet, data: Positions, start: int) -> float:
    """Mean binary cross-entropy of ``net`` on ``data``'s positions from ``start`` on."""
    with torch.inference_mode():
        logits = net.read(torch.from_numpy(data.features[start:]).float(), torch.from_numpy(data.even[start:]))
        return float(torch.nn.functional.binary_cross_entropy_with_logits(
            logits, torch.from_numpy(data.labels[start:]).float()))


def even_loss(data: Positions, start: int) -> float:
    """Mean binary cross-entropy of the even guess on ``data``'s positions from ``start`` on."""
    guess = torch.from_numpy(data.even[start:]).double().clamp(CERTAIN, 1 - CERTAIN)
    return float(torch.nn.functional.binary_cross_entropy(guess, torch.from_numpy(data.labels[start:]).double()))


def train_belief(out: Path, policy: Optional[str] = None, positions: int = 300_000, epochs: int = 4,
                 hidden: int = 128, layers: int = 2, seed: int = 0, ruleset: str = "pagat", sample: bool = True,
                 progress_bar: bool = True) -> dict[str, float]:
    """Record, fit and save an opponent model to ``out``; returns :func:`fit`'s figures (also in the file)."""
    data = record(policy, positions, seed=seed, ruleset=ruleset, sample=sample, progress_bar=progress_bar)
    net = BeliefNet(hidden, layers)
    figures = fit(net, data, epochs=epochs, seed=seed, progress_bar=progress_bar)
    save_belief(net, out, policy=str(policy), ruleset=ruleset, seed=seed, epochs=epochs, sample=sample, **figures)
    return figures


__all__ = ["BLIND_LOSS", "Positions", "even_loss", "fit", "held_out_loss", "record", "train_belief"]
