"""The privileged critic: a value function that also reads what the seat cannot see.

With ``critic.kind: privileged`` PPO's advantages come from this critic instead of the policy
network's own value head.  It reads the policy trunk's output ``h`` (a function of the
observation alone) and the privileged vector of :mod:`ginenv.game.privileged` (the
opponent's hand and the stock order) that the rollout takes from
:meth:`ginenv.envs.batched.BatchedGinEnv.privileged`.  The policy's logits never depend on
that vector: it enters only here, and this module lives in the trainer, so no policy
file, snapshot or agent carries it.  Knowing the hidden cards removes most of the noise
from the value targets (PerfectDou's perfect-training-imperfect-execution).  With ``critic.belief``
a second head on ``h`` learns to guess the opponent's hand (an auxiliary loss that teaches the trunk
to model the opponent); it too is trained here and never saved with a policy.

>>> import torch
>>> from agents.neural.policy import PolicyNet
>>> from train.training.config import CriticConfig
>>> critic = PrivilegedCritic(CriticConfig(kind="privileged"), trunk_width=256)
>>> critic(torch.zeros(3, 256), torch.zeros(3, PRIVILEGED_SIZE)).shape
torch.Size([3])
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from agents.neural.policy import FEATURES, Architecture, orthogonal_linear, relu_mlp, rename_cards
from agents.neural.precision import autocast
from ginenv.game.privileged import OPPONENT_HAND, PRIVILEGED_CARDS, PRIVILEGED_SIZE
from train.training.config import CriticConfig


class PrivilegedCritic(nn.Module):
    """``value [B]`` from the policy trunk's ``h [B, trunk_width]`` (or with ``critic.trunk: own`` the policy's
    input ``features [B, features_width]``) and ``privileged [B, PRIVILEGED_SIZE]``."""

    def __init__(self, cfg: CriticConfig, trunk_width: int, features_width: int = 0) -> None:
        super().__init__()
        self.reads = PRIVILEGED_SIZE if cfg.deadwoods else PRIVILEGED_CARDS
        """How many leading numbers of the privileged vector it reads (``critic.deadwoods``)."""
        self.trunk = cfg.trunk
        """``shared``, ``detached`` or ``own`` (``critic.trunk``)."""
        if self.trunk == "own" and features_width <= 0:
            raise ValueError("critic.trunk 'own' needs the width of the policy's input features")
        self.body = relu_mlp((features_width if self.trunk == "own" else trunk_width) + self.reads, cfg.hidden,
                             cfg.layers)
        self.value_out = orthogonal_linear(cfg.hidden, 1, std=1.0)
        self.belief = cfg.belief
        """Weight of the opponent-model loss (``critic.belief``); its head exists only when it is on."""
        if cfg.belief > 0:
            self.belief_out = orthogonal_linear(trunk_width, OPPONENT_HAND, std=0.01)

    def forward(self, h: torch.Tensor, privileged: torch.Tensor, precision: Optional[torch.dtype] = None,
                features: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Values (float32) from the trunk's ``h`` and the policy's input ``features`` (read instead of ``h`` with
        ``critic.trunk: own``); ``precision``: the autocast dtype of the body's products (None: float32)."""
        if self.trunk == "own":
            if features is None:
                raise ValueError("a critic with its own trunk reads the policy's input features; none were given")
            reads = features
        else:
            reads = h.detach() if self.trunk == "detached" else h
        with autocast(h.device, precision):
            body = self.body(torch.cat([reads, privileged[:, :self.reads]], dim=1))
        return self.value_out(body.float()).squeeze(-1)

    def belief_loss(self, h: torch.Tensor, privileged: torch.Tensor) -> torch.Tensor:
        """Mean binary cross-entropy of the belief head's guess from ``h`` against the opponent's
        true hand (the privileged vector's first block), over all 52 cards."""
        logits = self.belief_out(h.float())
        return nn.functional.binary_cross_entropy_with_logits(logits, privileged[:, :OPPONENT_HAND])


def rename_privileged(privileged: torch.Tensor, maps: torch.Tensor) -> torch.Tensor:
    """The privileged vectors ``[B, PRIVILEGED_SIZE]`` of the same positions with the suits renamed, row ``i`` by
    card map ``maps[i]`` (rows of :func:`agents.neural.policy.suit_permutations`, as
    :func:`agents.neural.policy.permute_suits` renames the policy's input): card ``c``'s number in the opponent's
    hand and the stock order moves to card ``maps[i, c]``; the deadwoods stay.  Vectors ``[B, 0]`` (no privileged
    critic) stay as they are.

    >>> from agents.neural.policy import suit_permutations
    >>> vector = torch.zeros(1, PRIVILEGED_SIZE); vector[0, 0] = 1.0  # the opponent holds card 0
    >>> renamed = rename_privileged(vector, suit_permutations()[[23]])
    >>> int(renamed[0, :52].argmax())  # its suit renamed: clubs to spades
    39
    """
    if privileged.shape[1] == 0:
        return privileged
    cards = rename_cards(privileged[:, :PRIVILEGED_CARDS].reshape(len(privileged), -1, 52), maps)
    return torch.cat([cards.flatten(1), privileged[:, PRIVILEGED_CARDS:]], dim=1)


def make_critic(cfg: CriticConfig, policy: Architecture) -> Optional[PrivilegedCritic]:
    """The privileged critic of ``cfg`` beside a policy network of ``policy``'s architecture, or None when
    the policy's own value head is the critic."""
    return PrivilegedCritic(cfg, policy.hidden, FEATURES[policy.kind]) if cfg.kind == "privileged" else None
