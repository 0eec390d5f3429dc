"""Masked categorical distribution over the 108 action ids: illegal ids get probability 0.

The logits of illegal actions are replaced by a large negative number (not ``-inf``, so
the entropy and its gradient stay finite); sampling uses the Gumbel-max trick with an
explicit ``torch.Generator``, so runs are reproducible and an illegal id is never drawn.
The neural agent (:mod:`agents.neural.policy`) acts with it and the trainer (:mod:`train.training.ppo`)
learns with it, so both use one definition.

>>> import torch
>>> logits = torch.zeros(2, 4)
>>> mask = torch.tensor([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=torch.bool)
>>> dist = MaskedCategorical(logits, mask)
>>> dist.sample(torch.Generator().manual_seed(0))[1].item()
3
>>> [round(v, 4) + 0.0 for v in dist.entropy().tolist()]
[0.6931, 0.0]
"""
from __future__ import annotations

from typing import Optional

import torch

ILLEGAL_LOGIT = -1e9
"""What an illegal action's logit becomes (its probability underflows to exactly 0)."""


class MaskedCategorical:
    """A categorical over the legal ids of each row (``mask`` is bool ``[B, A]``, every row
    with at least one legal id)."""

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        if not bool(mask.any(dim=-1).all()):
            raise ValueError("every row of the action mask needs at least one legal action")
        self._masked = torch.where(mask, logits, torch.full_like(logits, ILLEGAL_LOGIT))
        self.mask = mask
        self.log_probs_all = torch.log_softmax(self._masked, dim=-1)

    @property
    def probs(self) -> torch.Tensor:
        """The probabilities of all ids (0 for the illegal ones).  A softmax rather than
        ``log_probs_all.exp()``: torch's CPU ``exp`` of the illegal ids' huge negative logs is
        about 50 times slower than of ordinary numbers."""
        return torch.softmax(self._masked, dim=-1)

    def sample(self, generator: Optional[torch.Generator] = None) -> torch.Tensor:
        """One legal id per row (Gumbel-max over the legal ids)."""
        uniform = torch.rand(self.log_probs_all.shape, generator=generator, dtype=self.log_probs_all.dtype)
        gumbel = -torch.log(-torch.log(uniform.clamp_min(1e-20)))
        scores = torch.where(self.mask, self.log_probs_all + gumbel, torch.full_like(gumbel, -torch.inf))
        return scores.argmax(dim=-1)

    def mode(self) -> torch.Tensor:
        """The most likely legal id of each row (lowest id on ties)."""
        return torch.where(self.mask, self.log_probs_all, torch.full_like(self.log_probs_all, -torch.inf)).argmax(-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-probability of ``actions`` (int64 ``[B]``)."""
        return self.log_probs_all.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        """Entropy over the legal ids of each row."""
        probs = self.probs
        return -(torch.where(self.mask, probs * self.log_probs_all, torch.zeros_like(probs))).sum(-1)
