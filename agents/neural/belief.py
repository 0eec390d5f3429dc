"""An opponent model: a network that guesses, from the observation alone, which cards the opponent holds.

The opponent's pickups, passes and discards say much about its hand; a search that deals the unseen
cards uniformly throws that away.  :class:`BeliefNet` reads the same card features as the ``cards``
policy (:func:`agents.neural.policy.card_features`: the seat's hand, the pile, the ordered discard
history, who discarded and who took what) and gives a logit per card: how likely the opponent holds
it.  It is trained by :mod:`train.training.belief` on positions of recorded games labelled with the
opponent's true hand; at play time it reads nothing but the observation.

:func:`agents.search.positions.weighted_orders` turns its guess into the sampled deals of a search
(``rollout:belief=PATH``).

>>> import torch
>>> net = BeliefNet(hidden=16, layers=1)
>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> obs = torch.as_tensor(env.observe("player_0")["observation"][None])
>>> net(obs).shape
torch.Size([1, 52])
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

import torch
from torch import nn

from agents.neural.policy import FEATURES, card_features, orthogonal_linear, relu_mlp
from ginenv.game.checks import checked_int
from ginenv.game.encoding import SLICES

BELIEF_FORMAT = "ginenv-belief"
"""The ``format`` entry of every belief file."""


class BeliefError(ValueError):
    """A belief file that cannot be read."""


CERTAIN = 1e-4
"""The even guess is clamped to ``[CERTAIN, 1 - CERTAIN]`` before it becomes a logit."""


def seen_cards(obs: torch.Tensor) -> torch.Tensor:
    """``[B, 52]`` bools: the cards the seat sees (its hand and the discard pile)."""
    return (obs[:, SLICES["hand"]] + obs[:, SLICES["top_discard"]] + obs[:, SLICES["pile_rest"]]) > 0.5


def even_guess(obs: torch.Tensor) -> torch.Tensor:
    """``[B, 52]``: what a uniform deal of the unseen cards says for observations ``obs [B, OBS]`` (the
    searches' ``prior="uniform"``): 1 for the opponent's known picks, 0 for the cards I see (my hand,
    the pile), and for every other card the opponent's unknown cards over their number.

    >>> import ginenv
    >>> env = ginenv.env(); env.reset(seed=0)
    >>> guess = even_guess(torch.as_tensor(env.observe("player_0")["observation"][None]))
    >>> round(float(guess.sum()), 3), round(float(guess.max()), 4)   # 10 cards among 41 unseen
    (10.0, 0.2439)
    """
    known = obs[:, SLICES["opp_picked"]] > 0.5
    unseen = ~(seen_cards(obs) | known)
    hidden = 10 - known.sum(dim=1, keepdim=True)
    share = hidden / unseen.sum(dim=1, keepdim=True).clamp(min=1)
    return torch.where(known, 1.0, torch.where(unseen, share, 0.0)).float()


def _relations() -> torch.Tensor:
    """``[3, 52, 52]``: card pairs of the same rank (other suits), and of the same suit one and two
    ranks apart (cards are ``suit * 13 + rank``)."""
    rank, suit = torch.arange(52) % 13, torch.arange(52) // 13
    gap, same_suit = (rank[:, None] - rank[None, :]).abs(), suit[:, None] == suit[None, :]
    return torch.stack([(gap == 0) & ~same_suit, same_suit & (gap == 1), same_suit & (gap == 2)]).float()


RELATIONS = _relations()
"""The meld relations between cards that :func:`related` counts."""
RELATED_PIECES = ("opp_discards", "opp_picked", "opp_declined")
"""The observation's pieces about the opponent whose meld neighbours :func:`related` counts (and
the cards I see: my hand and the pile)."""
RELATED_SIZE = (len(RELATED_PIECES) + 1) * len(RELATIONS) * 52
"""Length of :func:`related`'s rows."""


def related(obs: torch.Tensor) -> torch.Tensor:
    """``[B, RELATED_SIZE]``: for every card, how many of the opponent's discards, picks and declined
    cards, and of the cards I see, share its rank or lie one or two ranks from it in its suit.  What
    the opponent threw away or passed on makes its meld neighbours less likely in its hand; what it
    took makes them likelier; what I see cannot be there to meld."""
    pieces = torch.stack([*(obs[:, SLICES[name]] for name in RELATED_PIECES), seen_cards(obs).to(obs.dtype)], dim=1)
    return torch.einsum("bpc,rcd->bprd", pieces, RELATIONS.to(obs.dtype)).flatten(1)


def belief_inputs(obs: torch.Tensor) -> torch.Tensor:
    """What :class:`BeliefNet` reads: :func:`~agents.neural.policy.card_features` and :func:`related`."""
    return torch.cat([card_features(obs), related(obs)], dim=1)


class BeliefNet(nn.Module):
    """Observations ``[B, OBSERVATION_SIZE]`` -> a logit per card ``[B, 52]`` (the opponent holds it):
    the even guess's logit plus what the network learns on top of it (zero at the start)."""

    def __init__(self, hidden: int = 128, layers: int = 2) -> None:
        super().__init__()
        self.hidden = checked_int("belief hidden", hidden, 1, 4096)
        self.layers = checked_int("belief layers", layers, 1, 16)
        self.trunk = relu_mlp(FEATURES["cards"] + RELATED_SIZE, self.hidden, self.layers)
        self.out = orthogonal_linear(self.hidden, 52, std=0.01)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.read(belief_inputs(obs), even_guess(obs))

    def read(self, features: torch.Tensor, even: torch.Tensor) -> torch.Tensor:
        """The logits from precomputed :func:`belief_inputs` and :func:`even_guess` (training reads these)."""
        return self.out(self.trunk(features)) + torch.logit(even.float().clamp(CERTAIN, 1 - CERTAIN))


def save_belief(net: BeliefNet, path: Union[str, os.PathLike], **notes: Any) -> None:
    """Write ``net`` to ``path`` (its shape, weights and any plain ``notes``, e.g. how it was trained)."""
    torch.save({"format": BELIEF_FORMAT, "hidden": net.hidden, "layers": net.layers,
                "model": net.state_dict(), "notes": notes}, Path(path))


def load_belief(path: Union[str, os.PathLike]) -> BeliefNet:
    """The belief network saved at ``path`` (:func:`save_belief`), in eval mode; :class:`BeliefError`
    for a missing file or another kind of file."""
    path = Path(path)
    if not path.is_file():
        raise BeliefError(f"belief file {str(path)!r} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many kinds for a damaged or foreign file
        raise BeliefError(f"{str(path)!r} is not a readable belief file ({err.__class__.__name__})") from None
    if not isinstance(data, dict) or data.get("format") != BELIEF_FORMAT:
        raise BeliefError(f"{str(path)!r} is not a belief file (no format {BELIEF_FORMAT!r})")
    net = BeliefNet(data["hidden"], data["layers"])
    try:
        net.load_state_dict(data["model"])
    except RuntimeError as err:
        raise BeliefError(f"{str(path)!r}: weights do not fit the stored shape ({err})") from None
    return net.eval()


__all__ = ["BELIEF_FORMAT", "BeliefError", "BeliefNet", "RELATED_SIZE", "belief_inputs", "even_guess", "load_belief",
           "related", "save_belief", "seen_cards"]
