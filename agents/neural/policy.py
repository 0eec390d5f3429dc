"""``ppo``: a neural policy (actor-critic network) loaded from a checkpoint.

The network reads the observation by its named pieces (:data:`ginenv.game.encoding.SLICES`):

* **card channels** (15 per card): for every card, the eight card pieces (``hand``,
  ``top_discard``, ``pile_rest``, ``my_discards``, ``opp_discards``, ``opp_picked``,
  ``opp_declined``, ``no_discard``), two recency values from the ordered history (how
  recently I / the opponent discarded it: ``1 - i / 32`` for history row ``i``, else 0) and
  five rule-derived numbers (:mod:`agents.neural.features`: deadwood after discarding it,
  run pairs, set mates, danger, prospect);
* **context** (40 numbers): phase, turn, dealer, knock limit, episode kind, doubling, the
  rules, stock size, history length, scores, hands won, my deadwood now and with the
  face-up card taken.

``kind="cards"`` (default): a trunk MLP over the flattened card features and the context
gives ``h``; every card then gets an embedding ``z_c = relu(W f_c + e_c + U h)`` (a
learned per-card vector ``e_c``), and *discard c* and *knock c* are two linear read-outs of
the same ``z_c`` (one card, one representation); draw / take / pass / big gin and the value
are read out of ``h``.  ``kind="mlp"``: a plain MLP over the whole vector (for comparisons).

Checkpoints are data: loaded with ``torch.load(weights_only=True)``; the ``policy`` entry
names the architecture, ``model`` holds the weights.

>>> import ginenv, torch
>>> net = PolicyNet()
>>> env = ginenv.env(); env.reset(seed=0)
>>> obs = torch.as_tensor(env.observe(env.agent_selection)["observation"])[None]
>>> logits, value = net(obs)
>>> tuple(logits.shape), tuple(value.shape)
((1, 108), (1,))
"""
from __future__ import annotations

import copy
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import torch
from torch import nn

from agents.base import Observation, legal_actions
from agents.neural.features import CARD_FEATURES, ROW_FEATURES, hand_features
from agents.neural.masked import MaskedCategorical
from agents.neural.precision import autocast, resolve_precision
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from ginenv.game.checks import checked_flag, checked_int, checked_seed
from ginenv.game.encoding import HISTORY_LENGTH, OBSERVATION_SIZE, SLICES, decode

CARD_PIECES = ("hand", "top_discard", "pile_rest", "my_discards", "opp_discards", "opp_picked", "opp_declined",
               "no_discard")
CONTEXT_PIECES = ("phase", "my_turn", "is_dealer", "knock_limit", "game_mode", "hand_doubled", "rule_flags",
                  "stock_size", "history_length", "scores", "hands_won", "rule_points")
CARD_CHANNELS = len(CARD_PIECES) + 2 + CARD_FEATURES
CONTEXT_SIZE = sum(SLICES[name].stop - SLICES[name].start for name in CONTEXT_PIECES) + ROW_FEATURES
KINDS = ("cards", "mlp")
MAX_WIDTH = 4096
"""Largest :class:`Architecture` ``hidden``, ``layers`` and ``card_dim``."""
MAX_THREADS = 256
"""Largest :class:`NeuralAgent` ``threads``."""
CHECKPOINT_FORMAT = "ginenv-ppo"
"""The ``format`` entry every checkpoint of the trainer carries."""
DEFAULT_CHECKPOINT = Path(__file__).parents[1] / "weights" / "ppo.pt"
"""Where ``ppo`` with no ``path`` looks (the shipped agent)."""
SELFPLAY_CHECKPOINT = Path(__file__).parents[1] / "weights" / "selfplay.pt"
"""Where ``selfplay`` with no ``path`` looks (the shipped policy of ``configs/selfplay.yaml``, trained from scratch)."""
EAAI_CHECKPOINT = Path(__file__).parents[1] / "weights" / "ppo_eaai.pt"
"""The shipped policy of ruleset ``eaai`` (``configs/ppo_eaai/3_exploiter.yaml``: PPO under the EAAI-2021
rules from the pagat policy, then against its own hour-long best response)."""
SHIPPED_POLICIES: dict[str, Path] = {"pagat": DEFAULT_CHECKPOINT, "eaai": EAAI_CHECKPOINT}
"""The shipped ``ppo`` policy of each ruleset: ``ppo`` with no ``path`` plays, in each position, the
policy of the ruleset it observes (the rules are in the observation), and :data:`DEFAULT_CHECKPOINT`
(trained under ``pagat``) under a ruleset that has none of its own."""
_RULE_COLUMNS = np.r_[SLICES["rule_flags"], SLICES["rule_points"], SLICES["knock_limit"]]
"""The observation's columns that tell its ruleset."""


def shipped_checkpoint(ruleset: str) -> Path:
    """The policy file ``ppo`` (no ``path``) plays under the ruleset named ``ruleset``.

    >>> shipped_checkpoint("pagat") == shipped_checkpoint("classic25") == DEFAULT_CHECKPOINT
    True
    """
    return SHIPPED_POLICIES.get(ruleset, DEFAULT_CHECKPOINT)


@dataclass(frozen=True)
class Architecture:
    """The network's shape (stored in every checkpoint as ``policy``)."""

    kind: str = "cards"
    """``"cards"`` (card-centred, default) or ``"mlp"`` (plain MLP over the whole vector)."""
    hidden: int = 256
    """Width of the trunk's hidden layers."""
    layers: int = 2
    """Number of hidden layers in the trunk."""
    card_dim: int = 32
    """Width of each card's embedding (``kind="cards"``)."""

    def __post_init__(self) -> None:
        """Check the fields: ``kind`` one of :data:`KINDS`, the widths and layers ints
        ``1..MAX_WIDTH`` (numpy ints are kept as Python ints)."""
        if self.kind not in KINDS:
            raise ValueError(f"policy kind must be one of {KINDS}, got {self.kind!r}")
        for name in ("hidden", "layers", "card_dim"):
            object.__setattr__(self, name, checked_int(f"policy {name}", getattr(self, name), 1, MAX_WIDTH))


def orthogonal_linear(inputs: int, outputs: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    """A linear layer with orthogonal weights of gain ``std`` and zero biases (CleanRL's init)."""
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.zeros_(layer.bias)
    return layer


def relu_mlp(inputs: int, hidden: int, layers: int) -> nn.Sequential:
    """``layers`` linear + ReLU layers of width ``hidden`` over ``inputs`` numbers."""
    parts: list[nn.Module] = []
    for i in range(layers):
        parts += [orthogonal_linear(inputs if i == 0 else hidden, hidden), nn.ReLU()]
    return nn.Sequential(*parts)


_CARD_BLOCK = slice(SLICES[CARD_PIECES[0]].start, SLICES[CARD_PIECES[-1]].stop)
assert _CARD_BLOCK.stop - _CARD_BLOCK.start == 52 * len(CARD_PIECES)  # the card pieces lie side by side
_RECENCY = 1.0 - torch.arange(HISTORY_LENGTH, dtype=torch.float32) / HISTORY_LENGTH


def card_features(obs: torch.Tensor) -> torch.Tensor:
    """``[B, CARD_CHANNELS * 52 + CONTEXT_SIZE]``: the card channels (channel-major: the card
    pieces, the two recencies, :func:`agents.neural.features.hand_features`' per-card numbers) then
    the context (its pieces, then the per-row numbers), for observations ``[B, OBSERVATION_SIZE]``."""
    pieces = obs[:, _CARD_BLOCK]
    history = obs[:, SLICES["history_cards"]].reshape(-1, HISTORY_LENGTH, 52)
    by_opp = obs[:, SLICES["history_by_opp"]]
    weights = torch.stack([(1.0 - by_opp) * _RECENCY, by_opp * _RECENCY], dim=1)      # [B, 2, 32]
    recency = torch.bmm(weights, history).flatten(1)                                  # mine, theirs: [B, 104]
    per_card, per_row = (torch.from_numpy(a) for a in hand_features(obs.detach().numpy()))
    return torch.cat([pieces, recency, per_card.flatten(1), *(obs[:, SLICES[name]] for name in CONTEXT_PIECES),
                      per_row], dim=1)


def suit_permutations() -> torch.Tensor:
    """int64[24, 52]: for each of the 24 orders of the suits, card ``c``'s image (same rank,
    permuted suit); row 0 is the identity.

    >>> maps = suit_permutations()
    >>> maps.shape, bool((maps[0] == torch.arange(52)).all()), bool((maps % 13 == torch.arange(52) % 13).all())
    (torch.Size([24, 52]), True, True)
    """
    from itertools import permutations

    cards = torch.arange(52)
    return torch.stack([torch.tensor(order)[cards // 13] * 13 + cards % 13 for order in permutations(range(4))])


def rename_cards(values: torch.Tensor, maps: torch.Tensor) -> torch.Tensor:
    """``values [B, K, 52]`` (``K`` numbers per card) with row ``i``'s suits renamed by card map ``maps[i]``
    (rows of :func:`suit_permutations`): card ``c``'s numbers move to card ``maps[i, c]``.

    >>> values = torch.zeros(1, 1, 52); values[0, 0, 0] = 1.0  # card 0 (the ace of clubs)
    >>> int(rename_cards(values, suit_permutations()[[23]])[0, 0].argmax())  # clubs <-> spades
    39
    """
    inverse = torch.argsort(maps, dim=1)  # new card j shows old card inverse[j]
    return values.gather(2, inverse[:, None, :].expand(-1, values.shape[1], -1))


def permute_suits(features: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor,
                  maps: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The same decisions with the suits renamed, decision ``i`` by card map ``maps[i]`` (rows
    of :func:`suit_permutations`): ``kind="cards"`` features ``[B, FEATURES["cards"]]`` (the
    card channels move, the context stays), masks ``[B, 108]`` and actions ``[B]`` (a discard
    or knock of ``c`` becomes one of ``maps[i, c]``).  The rules treat the suits alike, so the
    renamed position is as good a training example: data augmentation for cloning.

    >>> f, m, a = torch.rand(1, FEATURES["cards"]), torch.zeros(1, NUM_ACTIONS, dtype=torch.bool), torch.tensor([3])
    >>> m[0, 3] = True
    >>> _, m2, a2 = permute_suits(f, m, a, suit_permutations()[[23]])  # clubs <-> spades, diamonds <-> hearts
    >>> int(a2), bool(m2[0, 3 + 39])
    (42, True)
    """
    batch = len(features)
    cards = rename_cards(features[:, :CARD_CHANNELS * 52].reshape(batch, CARD_CHANNELS, 52), maps)
    on_cards = rename_cards(masks[:, DISCARD_BASE:BIG_GIN].reshape(batch, 2, 52), maps)  # the discards, the knocks
    moved = torch.cat([masks[:, :DISCARD_BASE], on_cards.flatten(1), masks[:, BIG_GIN:]], dim=1)
    on_card = (actions >= DISCARD_BASE) & (actions < BIG_GIN)
    base = torch.where(actions >= KNOCK_BASE, KNOCK_BASE, DISCARD_BASE)
    card = (actions - base).clamp(0, 51)
    renamed = torch.where(on_card, base + maps.gather(1, card[:, None])[:, 0], actions)
    return torch.cat([cards.flatten(1), features[:, CARD_CHANNELS * 52:]], dim=1), moved, renamed


assert (DRAW_STOCK, TAKE_DISCARD, PASS, DISCARD_BASE, KNOCK_BASE, BIG_GIN) == (0, 1, 2, 3, 55, 107)  # head's order
FEATURES = {"cards": CARD_CHANNELS * 52 + CONTEXT_SIZE, "mlp": OBSERVATION_SIZE}
"""Input width of :meth:`PolicyNet.head` by kind."""


ROW_BUCKET = 32
"""Row counts above this are padded to a multiple of it in low-precision inference (:func:`padded_rows`)."""


def padded_rows(rows: int) -> int:
    """The batch size a low-precision forward pass of ``rows`` rows runs at: the next power of two up
    to :data:`ROW_BUCKET`, then the next multiple of it.  oneDNN builds (JIT-compiles) a bfloat16
    matrix product for each new shape, some 3 ms each on the CPU; an evaluation's batches take every
    size from 1 to a few hundred, so without buckets each worker would pay that hundreds of times
    (the zero rows added cost less).  Each row's result does not depend on the others.

    >>> [padded_rows(n) for n in (1, 3, 32, 33, 100, 250)]
    [1, 4, 32, 64, 128, 256]
    """
    if rows <= ROW_BUCKET:
        return 1 << max(0, rows - 1).bit_length()
    return -(-rows // ROW_BUCKET) * ROW_BUCKET


LOGITS, VALUES = "logits", "values"
"""What a :class:`PolicyNet`'s action outputs are (``PolicyNet.outputs``)."""


class PolicyNet(nn.Module):
    """Observation ``[B, OBSERVATION_SIZE]`` -> action logits ``[B, 108]`` and value ``[B]``
    (logits of illegal actions are masked by the caller, see :mod:`agents.neural.masked`).

    ``forward`` is ``head(features(obs))``; the trainer stores ``features`` (smaller than the
    observation for ``kind="cards"``) and calls ``head`` on them in its update.

    ``precision`` (of :meth:`encode`, :meth:`head` and ``forward``) sets the arithmetic of the
    trunk, where nearly all of the network's multiplications are: with ``torch.bfloat16`` its
    matrix products run under autocast (:mod:`agents.neural.precision`); its output ``h``, the
    narrow per-card layers, the logits and the value stay float32.
    """

    def __init__(self, architecture: Architecture = Architecture()) -> None:
        super().__init__()
        self.architecture = a = architecture
        self.trunk = relu_mlp(FEATURES[a.kind], a.hidden, a.layers)
        if a.kind == "cards":
            self.card_in = orthogonal_linear(CARD_CHANNELS, a.card_dim)
            self.card_embedding = nn.Parameter(torch.zeros(52, a.card_dim))
            self.card_context = orthogonal_linear(a.hidden, a.card_dim)
            self.card_hidden = orthogonal_linear(a.card_dim, a.card_dim)
            self.card_out = orthogonal_linear(a.card_dim, 2, std=0.01)
            self.other_out = orthogonal_linear(a.hidden, 4, std=0.01)
        else:
            self.action_out = orthogonal_linear(a.hidden, NUM_ACTIONS, std=0.01)
        self.value_out = orthogonal_linear(a.hidden, 1, std=1.0)
        self.outputs = LOGITS
        """What the action outputs are: :data:`LOGITS` of a policy, or :data:`VALUES` (a ``ppo.algorithm: dmc``
        run's action values, played greedily); stored in policy files that hold values."""

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """What :meth:`head` reads, from observations."""
        return card_features(obs) if self.architecture.kind == "cards" else obs

    def head(self, features: torch.Tensor, legal: Optional[torch.Tensor] = None,
             precision: Optional[torch.dtype] = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``[B, 108]`` and value ``[B]`` from :meth:`features` (``legal``: see :meth:`read_out`;
        ``precision``: see :meth:`encode`)."""
        return self.read_out(features, self.encode(features, precision), legal)

    def encode(self, features: torch.Tensor, precision: Optional[torch.dtype] = None) -> torch.Tensor:
        """The trunk's output ``h`` (float32) from :meth:`features`, its matrix products in
        ``precision`` (an autocast dtype; None: float32).  Without gradients (inference) a
        low precision runs on a copy of the trunk's weights cast once (:meth:`_cast_trunk`):
        the same numbers as autocast, which casts them again at every call; the rows are padded
        to :func:`padded_rows` for that pass."""
        if precision is None or torch.is_grad_enabled():
            with autocast(features.device, precision):
                return self.trunk(features).float()
        rows = len(features)
        h = nn.functional.pad(features.to(precision), (0, 0, 0, padded_rows(rows) - rows))
        for weight, bias in self._cast_trunk(precision):
            h = torch.relu(nn.functional.linear(h, weight, bias))
        return h[:rows].float()

    def _cast_trunk(self, dtype: torch.dtype) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """The trunk's (weight, bias) pairs in ``dtype``, cast again only after the weights changed
        (an optimizer step, a load or a move bumps a tensor's version or its storage)."""
        layers = [layer for layer in self.trunk if isinstance(layer, nn.Linear)]
        key = (dtype, tuple((p.data_ptr(), p._version) for layer in layers for p in (layer.weight, layer.bias)))
        cached = self.__dict__.get("_cast_cache")
        if cached is None or cached[0] != key:
            cast = [(layer.weight.detach().to(dtype), layer.bias.detach().to(dtype)) for layer in layers]
            self.__dict__["_cast_cache"] = cached = (key, cast)
        return cached[1]

    def read_out(self, features: torch.Tensor, h: torch.Tensor,
                 legal: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and value from :meth:`features` and the trunk's output ``h = encode(features)``
        (a privileged critic of the trainer reads the same ``h``).

        With the action masks ``legal`` (bool ``[B, 108]``) a card network computes its per-card
        logits only for the cards that may be discarded or knocked with (at most the 11 in hand,
        none at a draw) and leaves the others at 0: the legal logits are the same, and the masked
        distribution (:class:`agents.neural.masked.MaskedCategorical`) is unchanged, at a fraction
        of the cost (the per-card layers otherwise run on all 52 cards of every position)."""
        value = self.value_out(h).squeeze(-1)
        if self.architecture.kind == "mlp":
            return self.action_out(h), value
        per_card = self._card_logits(features, h, legal)                                        # [B, 52, 2]
        other = self.other_out(h)                                                   # draw, take, pass, big gin
        logits = torch.cat([other[:, :3], per_card[..., 0], per_card[..., 1], other[:, 3:]], dim=1)
        return logits, value

    def _card_logits(self, features: torch.Tensor, h: torch.Tensor, legal: Optional[torch.Tensor]) -> torch.Tensor:
        """``[B, 52, 2]``: each card's discard and knock logits (only the legal cards' with ``legal``)."""
        cards = features[:, :CARD_CHANNELS * 52].reshape(-1, CARD_CHANNELS, 52).transpose(1, 2)   # [B, 52, C]
        context = self.card_context(h)
        if legal is None:
            z = torch.relu(self.card_in(cards) + self.card_embedding + context.unsqueeze(1))
            return self.card_out(torch.relu(self.card_hidden(z)))
        legal = legal.to(features.device)
        rows, card = (legal[:, DISCARD_BASE:KNOCK_BASE] | legal[:, KNOCK_BASE:BIG_GIN]).nonzero(as_tuple=True)
        z = torch.relu(self.card_in(cards[rows, card]) + self.card_embedding[card] + context[rows])
        chosen = self.card_out(torch.relu(self.card_hidden(z)))                                 # [K, 2]
        return chosen.new_zeros(len(features), 52, 2).index_put((rows, card), chosen)

    def forward(self, obs: torch.Tensor, legal: Optional[torch.Tensor] = None,
                precision: Optional[torch.dtype] = None) -> tuple[torch.Tensor, torch.Tensor]:
        return self.head(self.features(obs), legal, precision)


class CheckpointError(ValueError):
    """A checkpoint file that is missing, unreadable or not one of ours (names the file)."""


def device_problem(name: Any) -> Optional[str]:
    """Why ``name`` is not a usable ``device`` setting on this machine (None when it is): not one of
    ``auto``, ``cpu``, ``cuda``, ``cuda:N``, ``mps``, or a device this machine's torch lacks.

    >>> device_problem("cpu") is None, device_problem("gpu")
    (True, 'must be one of auto, cpu, cuda, cuda:N, mps')
    """
    if name in ("auto", "cpu"):
        return None
    if isinstance(name, str) and re.fullmatch(r"cuda(:\d+)?", name):
        if not torch.cuda.is_available():
            return "this machine's torch sees no CUDA device (torch.cuda.is_available() is False); use cpu or auto"
        if int(name.partition(":")[2] or 0) >= torch.cuda.device_count():
            return f"only {torch.cuda.device_count()} CUDA device(s) here"
        return None
    if name == "mps":
        return None if torch.backends.mps.is_available() else "this machine's torch has no MPS device; use cpu or auto"
    return "must be one of auto, cpu, cuda, cuda:N, mps"


def resolve_device(name: str) -> torch.device:
    """The torch device of a ``device`` setting (``auto``: CUDA when present, else Apple's MPS when
    present, else the CPU); ``ValueError`` saying :func:`device_problem`'s reason.

    >>> resolve_device("cpu")
    device(type='cpu')
    >>> resolve_device("gpu")
    Traceback (most recent call last):
    ...
    ValueError: device 'gpu': must be one of auto, cpu, cuda, cuda:N, mps
    """
    problem = device_problem(name)
    if problem is not None:
        raise ValueError(f"device {name!r}: {problem}")
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        return torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    return torch.device(name)


def module_device(module: nn.Module) -> torch.device:
    """Where ``module``'s parameters live."""
    return next(module.parameters()).device


def read_checkpoint(path: Union[str, os.PathLike]) -> dict[str, Any]:
    """The checkpoint at ``path`` as plain data (``torch.load(weights_only=True)``)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # truncated, corrupt, or holding code: torch's message says which
        raise CheckpointError(f"checkpoint {str(path)!r} could not be read ({type(err).__name__}: "
                              f"{str(err).splitlines()[0] if str(err) else 'no detail'})") from None
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a ginenv PPO checkpoint (no format {CHECKPOINT_FORMAT!r})")
    _check_weights(path, data)
    return data


def weights_sha256(model: dict[str, torch.Tensor]) -> str:
    """SHA-256 over a state dict's names and tensor bytes, in name order (what a checkpoint's
    ``model_sha256`` holds, so that a flipped byte in the tensor data is caught on loading).

    >>> net = PolicyNet(Architecture(hidden=4, card_dim=2))
    >>> weights_sha256(net.state_dict()) == weights_sha256(dict(net.state_dict()))
    True
    """
    digest = hashlib.sha256()
    for name in sorted(model):
        digest.update(name.encode())
        digest.update(model[name].detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


def _check_weights(path: Path, data: dict[str, Any]) -> None:
    """A CheckpointError naming ``path`` for weights that are not finite or do not match the stored
    checksum (files written before checksums existed have none, and only the finiteness is checked)."""
    model = data.get("model")
    if not isinstance(model, dict):
        return  # load_policy / resume report the missing entry
    for name, tensor in model.items():
        if isinstance(tensor, torch.Tensor) and tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise CheckpointError(f"checkpoint {str(path)!r} holds NaN or infinite weights (in {name!r})")
    stored = data.get("model_sha256")
    if stored is not None and stored != weights_sha256(model):
        raise CheckpointError(f"checkpoint {str(path)!r} is corrupt: its weights do not match their checksum")


def load_policy(path: Union[str, os.PathLike]) -> PolicyNet:
    """The network stored in a checkpoint, in eval mode (built on the meta device and given the
    stored tensors, so no time goes into initialising weights that are replaced at once)."""
    data = read_checkpoint(path)
    try:
        with torch.device("meta"):
            net = PolicyNet(Architecture(**data["policy"]))
        net.load_state_dict(data["model"], assign=True)
    except (KeyError, TypeError, RuntimeError, ValueError) as err:
        raise CheckpointError(f"checkpoint {str(path)!r} does not hold a matching policy: {err}") from None
    net.outputs = data.get("outputs", LOGITS)
    if net.outputs not in (LOGITS, VALUES):
        raise CheckpointError(f"checkpoint {str(path)!r}: unknown outputs {net.outputs!r}")
    return net.eval()


class NeuralAgent:
    """``ppo:path=FILE[,sample=false,threads=1,device=cpu,precision=auto]``: acts with a trained policy.

    ``sample=False`` (default) takes the most likely legal action; ``sample=True`` draws
    from the masked policy with its own generator, seeded by ``seed`` (``None`` or an int
    ``0..2**128 - 1``).  Without ``path`` it plays the shipped policy of the ruleset each position
    is played under (:data:`SHIPPED_POLICIES`; ``agents/weights/ppo.pt`` where a ruleset has none
    of its own); ``path`` plays exactly that file.  ``threads``: torch threads for a forward pass
    (1..:data:`MAX_THREADS`).  ``device``: where the network runs (:func:`resolve_device`; the
    features are computed on the CPU).  ``precision``: the arithmetic of the network's trunk
    (:mod:`agents.neural.precision`): ``auto`` (default) uses bfloat16 products where the device
    has them in hardware (a CPU with AMX, a CUDA device) and float32 elsewhere, ``fp32`` or
    ``bf16`` force one; the two may pick different moves in near-ties, so an evaluation's games
    for a seed are the same on every machine only with one fixed setting.  ``act_batch`` decides
    many rows in one forward pass.
    """

    def __init__(self, seed: Optional[int] = None, *, path: Optional[str] = None, sample: bool = False,
                 threads: int = 1, device: str = "cpu", precision: str = "auto",
                 net: Optional[PolicyNet] = None) -> None:
        seed = checked_seed(seed, "ppo: seed")
        self.sample = checked_flag("ppo: sample", sample)
        self.threads = checked_int("ppo: threads", threads, 1, MAX_THREADS)
        try:
            self.device = resolve_device(device)
            self.precision = resolve_precision(precision, self.device)
        except ValueError as err:
            raise ValueError(f"ppo: {err}") from None
        self.name = "ppo"
        self.by_ruleset = path is None and net is None
        """True when the policy is picked per position by its ruleset (no ``path``, no ``net``)."""
        if net is None:
            self.net = shared_policy(path if path is not None else _default_path(), self.device)
        else:
            self.net = net if module_device(net) == self.device else copy.deepcopy(net).to(self.device)
        if self.sample and self.net.outputs == VALUES:
            raise ValueError(f"ppo: sample=true draws from a softmax of the outputs, but {path!r} holds action values "
                             "(a ppo.algorithm: dmc run): play it greedily (sample=false)")
        self._rulesets: dict[bytes, str] = {}
        self._generator = torch.Generator().manual_seed((seed or 0) % 2**63)

    def distribution(self, observations: np.ndarray, masks: np.ndarray) -> MaskedCategorical:
        """The policy's distribution over the legal actions of each row of ``observations [N, OBS]``
        / ``masks [N, 108]`` (on the CPU), computed with ``threads`` torch threads (the caller's
        setting is restored afterwards)."""
        obs = np.asarray(observations, dtype=np.float32)
        legal = torch.as_tensor(np.asarray(masks) > 0)
        previous = torch.get_num_threads()
        torch.set_num_threads(self.threads)
        try:
            with torch.inference_mode():
                groups = self.policies(obs)
                if len(groups) == 1:  # one network for every row: no gathering
                    return MaskedCategorical(self._logits(groups[0][1], obs, legal), legal)
                logits = torch.empty(legal.shape)
                for rows, net in groups:
                    logits[rows] = self._logits(net, obs[rows], legal[rows])
                return MaskedCategorical(logits, legal)
        finally:
            torch.set_num_threads(previous)

    def _logits(self, net: PolicyNet, obs: np.ndarray, legal: torch.Tensor) -> torch.Tensor:
        features = net.features(torch.from_numpy(obs))
        return net.head(features.to(self.device), legal, self.precision)[0].cpu()

    def policies(self, observations: np.ndarray) -> list[tuple[np.ndarray, PolicyNet]]:
        """The network that decides each row of ``observations``, as (row indices, network) pairs:
        all rows to the one network, or with :attr:`by_ruleset` each ruleset's rows to its shipped
        policy (:func:`shipped_checkpoint`)."""
        if not self.by_ruleset:
            return [(np.arange(len(observations)), self.net)]
        rules = observations[:, _RULE_COLUMNS]
        if len(rules) and (rules == rules[0]).all():  # one ruleset (the common case): no grouping
            return [(np.arange(len(observations)), shared_policy(shipped_checkpoint(
                self._ruleset_name(observations[0])), self.device))]
        _, first, which = np.unique(observations[:, _RULE_COLUMNS], axis=0, return_index=True, return_inverse=True)
        files = np.array([shipped_checkpoint(self._ruleset_name(observations[row])) for row in first])[which.ravel()]
        return [(np.flatnonzero(files == file), shared_policy(file, self.device)) for file in dict.fromkeys(files)]

    def _ruleset_name(self, observation: np.ndarray) -> str:
        """The name of the ruleset ``observation`` is played under (kept per rules columns)."""
        key = observation[_RULE_COLUMNS].tobytes()
        if key not in self._rulesets:
            self._rulesets[key] = decode(observation).ruleset.name
        return self._rulesets[key]

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One legal action per row of ``observations [N, OBS]`` / ``masks [N, 108]``: the most likely
        under :meth:`distribution`, or one drawn from it with ``sample``."""
        dist = self.distribution(observations, masks)
        chosen = dist.sample(self._generator) if self.sample else dist.mode()
        return chosen.numpy().astype(np.int64)

    def batch_key(self) -> Optional[tuple[Any, str, str]]:
        """Agents with the same key decide alike, so an evaluation may put many games' positions in
        one ``act_batch`` call: the network (or the shipped policies by ruleset), the device and the
        precision when playing the most likely action; None when sampling (each agent draws from its
        own generator)."""
        if self.sample:
            return None
        return ("shipped by ruleset" if self.by_ruleset else id(self.net)), str(self.device), str(self.precision)

    def act(self, observation: Observation) -> int:
        legal_actions(observation)  # a clear error when it is not this seat's turn
        return int(self.act_batch(observation["observation"][None], observation["action_mask"][None])[0])

    def reset(self) -> None:
        pass


_SHARED: dict[tuple[str, int, int, str], PolicyNet] = {}


def shared_policy(path: Union[str, os.PathLike], device: torch.device = torch.device("cpu")) -> PolicyNet:
    """:func:`load_policy` on ``device``, loaded once per process, file version (path, size,
    modification time) and device, and shared by every agent that plays it there (the agents never
    change their network).  Loaded outside any inference mode of the caller (an agent picking a
    ruleset's policy mid-forward): its weights are then ordinary tensors, usable everywhere."""
    resolved = Path(path).resolve()
    try:
        stat = resolved.stat()
    except OSError:
        return load_policy(path)  # the error names the file
    key = (str(resolved), stat.st_size, stat.st_mtime_ns, str(device))
    if key not in _SHARED:
        with torch.inference_mode(False):
            _SHARED[key] = load_policy(path).to(device)
    return _SHARED[key]


def _default_path() -> Path:
    if not DEFAULT_CHECKPOINT.is_file():
        raise CheckpointError(f"no shipped checkpoint at {str(DEFAULT_CHECKPOINT)!r}; pass ppo:path=FILE")
    return DEFAULT_CHECKPOINT
