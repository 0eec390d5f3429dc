"""Behaviour-cloning warm start: imitate an agent's decisions before PPO.

The agent (``clone.agent``, any spec of :func:`agents.make_agent`) plays both seats of
``env.num_envs`` games on the batched env, in chunks of ``clone.chunk`` decisions, until
``clone.decisions`` decisions are recorded (``clone.workers`` processes record chunks side by
side; the kept chunks let a killed recording resume).  With ``clone.dagger`` (DAgger),
``clone.dagger_decisions`` more decisions come from games that a driver (an earlier clone)
plays while ``clone.agent`` labels every position with its own choice; a list of drivers gives
one such recording per driver, each on deals of its own, and a driver ``"A vs B"`` plays
against ``B``, only its own positions labelled.  The policy then minimises the cross-entropy of
the agent's actions under the masked policy (:class:`agents.neural.masked.MaskedCategorical`)
for ``clone.epochs`` passes, and the value head regresses the seat's discounted return where
the episode ended within its chunk (so PPO starts with a sensible critic).

>>> from agents.neural.policy import PolicyNet
>>> from train.training.config import load_config
>>> cfg = load_config(None, ["clone.agent=simple", "clone.decisions=300", "clone.epochs=1", "env.num_envs=8"])
>>> metrics = clone(PolicyNet(), cfg, progress_bar=False)
>>> metrics["decisions"] >= 300, 0.0 <= metrics["accuracy"] <= 1.0
(True, True)
"""
from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

import numpy as np
import torch
from tqdm import tqdm

from agents import make_agent
from agents.base import act_batch, parse_spec
from agents.neural.masked import MaskedCategorical
from agents.neural.policy import PolicyNet, module_device, permute_suits, suit_permutations
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game.actions import BIG_GIN, KNOCK_BASE
from ginenv.seeding import derive_seed
from train.training.config import DaggerRound, RunConfig, clone_chunking

UNLABELLED = -1
"""The label of a position that is not learned from (an ``opponent``'s, see :class:`Recording`)."""
EVERY_ROW = slice(None)


@dataclass(frozen=True)
class Recording:
    """Everything that decides the recorded games: ``chunks`` independent batches of
    ``num_envs`` games, each stepped ``steps`` times by ``agent`` in both seats, or by
    ``driver`` in both seats while ``agent`` labels each position (DAgger; ``round``: the
    driver's place in ``clone.dagger``, which picks the deals).  With an ``opponent``, the
    driver plays seat ``i % 2`` of game ``i`` and the opponent the other seat; only the
    driver's positions are labelled.

    Chunk ``k`` is seeded by ``(seed, k)`` alone, so chunks can be recorded in any order, by
    any process, and kept: only the actions are stored, the observations are replayed.

    >>> rec = Recording("random", {"ruleset": "pagat", "episode": "hand"}, num_envs=4, steps=5, chunks=2, seed=0)
    >>> rec.decisions, len(rec.key())
    (40, 16)
    """

    agent: str
    env_kwargs: dict[str, Any]
    num_envs: int
    steps: int
    chunks: int
    seed: int
    driver: Optional[str] = None
    round: int = 0
    opponent: Optional[str] = None

    @classmethod
    def of(cls, cfg: RunConfig, dagger: Optional[int] = None) -> "Recording":
        """The recording ``cfg.clone`` asks for: whole chunks of ``clone.chunk`` decisions
        (rounded up to whole steps of ``env.num_envs`` games) covering ``clone.decisions``
        (``dagger``: round ``dagger``'s labelled positions, played by that driver, labelled by
        its agent, in its episode, in its chunks; see ``clone.dagger``)."""
        e, c = cfg.env, cfg.clone
        r = DaggerRound("") if dagger is None else c.rounds[dagger]
        labelled = c.decisions if dagger is None else r.decisions or c.dagger_decisions
        steps, chunks = clone_chunking(labelled * (1 if r.opponent is None else 2), r.chunk or c.chunk, e.num_envs)
        env_kwargs = {"ruleset": e.ruleset, "episode": r.episode or e.episode, "reward_mode": e.reward_mode,
                      "reward_scale": e.reward_scale}
        return cls(str(r.agent or c.agent), env_kwargs, e.num_envs, steps, chunks, cfg.seed, r.driver or None,
                   dagger or 0, r.opponent)

    @property
    def decisions(self) -> int:
        """Decisions played (with an ``opponent``, about half of them are labelled)."""
        return self.num_envs * self.steps * self.chunks

    def key(self) -> str:
        """A short digest of what decides a chunk's actions (the cache folder's name), with the
        content of the driver's (and opponent's) weights file, if it has one (a retrained clone
        is a new driver)."""
        fields = {k: v for k, v in asdict(self).items()
                  if k != "chunks" and (k not in ("driver", "opponent") or v is not None) and (k != "round" or v)}
        for role in ("driver", "opponent"):
            spec = getattr(self, role)
            weights = None if spec is None else parse_spec(spec)[1].get("path")
            if isinstance(weights, str) and Path(weights).is_file():
                fields[f"{role}_weights"] = hashlib.sha256(Path(weights).read_bytes()).hexdigest()
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]

    def env(self, chunk: int) -> BatchedGinEnv:
        stream = (6,) if self.driver is None else (9,) if self.round == 0 else (9, self.round)  # a round's own deals
        return BatchedGinEnv(self.num_envs, seed=derive_seed(self.seed, *stream, chunk), summaries=False,
                             **self.env_kwargs)


def chunk_path(folder: Optional[Path], k: int) -> Optional[Path]:
    """Where chunk ``k``'s actions are kept (``None``: not kept)."""
    return None if folder is None else folder / f"chunk_{k:05d}.npy"


def record_chunk(task: tuple[Recording, int, Optional[Path]]) -> tuple[int, np.ndarray]:
    """``(k, actions)``: chunk ``k``'s ``(steps, num_envs)`` actions, played (and kept, when a
    folder is given); with a driver, ``(2, steps, num_envs)``: the played actions and the
    agent's labels (``UNLABELLED`` at the opponent's positions)."""
    rec, k, folder = task
    path = chunk_path(folder, k)
    agent = make_agent(rec.agent, seed=derive_seed(rec.seed, 5, k))
    driver = None if rec.driver is None else make_agent(rec.driver, seed=derive_seed(rec.seed, 10, k))
    opponent = None if rec.opponent is None else make_agent(rec.opponent, seed=derive_seed(rec.seed, 12, k))
    driver_seats = np.arange(rec.num_envs) % 2
    venv = rec.env(k)
    obs, masks, to_act = venv.reset()
    actions = np.full((1 if driver is None else 2, rec.steps, rec.num_envs), UNLABELLED, dtype=np.int16)
    played, labels = actions[0], actions[-1]
    for t in range(rec.steps):
        if opponent is None:  # every position is labelled: whole batches, no row copies
            turns = [(agent, EVERY_ROW, labels)] + ([] if driver is None else [(driver, EVERY_ROW, played)])
        else:
            mine = to_act == driver_seats
            turns = [(agent, mine, labels), (driver, mine, played), (opponent, ~mine, played)]
        for who, rows, into in turns:
            if rows is EVERY_ROW or rows.any():
                into[t, rows] = act_batch(who, obs[rows], masks[rows])
        obs, masks, to_act, *_ = venv.step(played[t])
    actions = actions[0] if driver is None else actions
    if path is not None:
        partial = path.with_suffix(".partial.npy")
        np.save(partial, actions)
        partial.replace(path)
    return k, actions


def replay_chunk(rec: Recording, k: int, actions: np.ndarray, gamma: float) -> tuple[np.ndarray, ...]:
    """``(obs, masks, labels, returns, finished)`` of chunk ``k``'s labelled positions,
    replayed from its actions (as :func:`record_chunk` gives them); ``returns`` is each
    decision's discounted reward-to-go for its seat, complete where ``finished`` (its episode
    ended within the chunk)."""
    played, labels = (actions, actions) if actions.ndim == 2 else actions
    venv = rec.env(k)
    obs, masks, to_act = venv.reset()
    records: list[tuple[np.ndarray, np.ndarray]] = []
    pending: list[list[list[int]]] = [[[], []] for _ in range(rec.num_envs)]  # record indices per game and seat
    returns = np.zeros(rec.steps * rec.num_envs, dtype=np.float32)
    finished = np.zeros(rec.steps * rec.num_envs, dtype=bool)
    for t in range(rec.steps):
        for i in range(rec.num_envs):
            pending[i][int(to_act[i])].append(t * rec.num_envs + i)
        records.append((obs, masks))
        obs, masks, to_act, rewards, terminated, truncated, _ = venv.step(played[t])
        for i in np.flatnonzero(rewards.any(axis=1) | terminated | truncated):
            for seat in (0, 1):
                _credit(returns, pending[i][seat], float(rewards[i, seat]), gamma)
                if terminated[i] or truncated[i]:
                    finished[pending[i][seat]] = True
                    pending[i][seat] = []
    flat = labels.reshape(-1)
    labelled = flat != UNLABELLED
    keep = EVERY_ROW if labelled.all() else labelled  # a view, not a copy, of a fully labelled chunk
    return (np.concatenate([o for o, _ in records])[keep], np.concatenate([m for _, m in records])[keep],
            flat[keep].astype(np.int64), returns[keep], finished[keep])


def record_decisions(cfg: RunConfig, progress_bar: bool = True, folder: Optional[Path] = None,
                     workers: int = 1, observe: Optional[Callable[[np.ndarray], Any]] = None) -> tuple[Any, ...]:
    """``(obs, masks, actions, returns, finished)`` of at least ``clone.decisions`` decisions
    of ``clone.agent`` playing itself, then of ``clone.dagger_decisions`` positions of the
    games of each of ``clone.dagger``'s rounds, labelled by ``clone.agent`` or the round's own
    agent (see :func:`replay_chunk`).

    ``folder``: keep each chunk's actions in ``folder/<recording key>/`` and reuse the ones
    already there (a killed recording resumes; runs of the same recording share it).
    ``workers > 1`` records chunks in that many ``spawn`` processes; the result does not
    depend on ``workers``.  ``observe``: what to keep of each chunk's observations instead of
    them (e.g. a network's features, a third of their size; the chunks are replayed one by one).
    """
    recordings = [Recording.of(cfg)] + [Recording.of(cfg, dagger=i) for i in range(len(cfg.clone.rounds))]
    parts = [record(rec, cfg.ppo.gamma, progress_bar, folder, workers, observe) for rec in recordings]
    return join_parts(parts)


def record(rec: Recording, gamma: float, progress_bar: bool = True, folder: Optional[Path] = None,
           workers: int = 1, observe: Optional[Callable[[np.ndarray], Any]] = None) -> tuple[Any, ...]:
    """:func:`record_decisions` for one recording."""
    keep = None if folder is None else Path(folder) / rec.key()
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / "recording.json").write_text(json.dumps(asdict(rec), indent=1), encoding="utf-8")
    kept = {k: path for k in range(rec.chunks) if (path := chunk_path(keep, k)) is not None and path.exists()}
    missing = [(rec, k, keep) for k in range(rec.chunks) if k not in kept]
    actions: dict[int, np.ndarray] = {}
    what = rec.agent if rec.driver is None else f"{rec.agent} on {rec.driver}'s games" + (
        f" against {rec.opponent}" if rec.opponent else "")
    with tqdm(total=rec.decisions, desc=f"cloning: recording {what}", unit="dec", disable=not progress_bar,
              smoothing=0.05) as bar:
        def collect(done: Iterable[tuple[int, np.ndarray]]) -> None:
            for k, chunk_actions in done:
                actions[k] = chunk_actions
                bar.update(rec.steps * rec.num_envs)  # decisions (a DAgger chunk holds two arrays)
        collect((k, np.load(path)) for k, path in kept.items())
        if workers == 1 or len(missing) <= 1:
            collect(map(record_chunk, missing))
        else:
            with multiprocessing.get_context("spawn").Pool(min(workers, len(missing))) as pool:
                collect(pool.imap_unordered(record_chunk, missing))
    observe = observe or (lambda obs: obs)
    replayed = (replay_chunk(rec, k, actions[k], gamma) for k in range(rec.chunks))
    parts = [(observe(obs), *rest) for obs, *rest in replayed]
    return join_parts(parts)


def join_parts(parts: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """The parts' arrays (numpy or torch) joined field by field."""
    return tuple(torch.cat(arrays) if isinstance(arrays[0], torch.Tensor) else np.concatenate(arrays)
                 for arrays in zip(*parts))


def _credit(returns: np.ndarray, indices: list[int], reward: float, gamma: float) -> None:
    """Add ``reward`` to the returns of a seat's decisions, discounted back from the last."""
    for back, index in enumerate(reversed(indices)):
        returns[index] += reward * gamma ** back


def clone(net: PolicyNet, cfg: RunConfig, progress_bar: bool = True, folder: Optional[Path] = None,
          on_epoch: Optional[Callable[[dict[str, Any]], None]] = None) -> dict[str, Any]:
    """Train ``net`` to imitate ``cfg.clone.agent``; returns the final loss and accuracy (and
    the held-out agreement with ``clone.held_out``).  ``folder`` keeps the recorded decisions
    (see :func:`record_decisions`); ``on_epoch`` is given the figures after each epoch."""
    data = record_decisions(cfg, progress_bar, folder, cfg.clone.workers, observe=lambda obs: features_of(net, obs))
    data, held_out = split_held_out(data, cfg)
    return fit(net, data, cfg, progress_bar, held_out, on_epoch)


def split_held_out(data: tuple[Any, ...], cfg: RunConfig) -> tuple[tuple[Any, ...], Optional[tuple[Any, ...]]]:
    """``(training, held_out)``: the last ``clone.held_out`` chunks of the agent's own recording
    (the first rows of :func:`record_decisions`) kept apart (``None`` without them)."""
    if not cfg.clone.held_out:
        return data, None
    rec = Recording.of(cfg)
    end = rec.decisions
    start = end - cfg.clone.held_out * rec.steps * rec.num_envs
    return (join_parts([tuple(a[:start] for a in data), tuple(a[end:] for a in data)]),
            tuple(a[start:end] for a in data))


def fit(net: PolicyNet, data: tuple[Any, ...], cfg: RunConfig, progress_bar: bool = True,
        held_out: Optional[tuple[Any, ...]] = None,
        on_epoch: Optional[Callable[[dict[str, Any]], None]] = None) -> dict[str, Any]:
    """Train ``net`` on recorded ``(features, masks, actions, returns, finished)`` (the
    features :func:`features_of` the observations) as ``cfg.clone`` says; ``held_out``
    decisions (same form) are only scored, after each epoch; ``on_epoch`` is given the
    figures after each epoch."""
    c = cfg.clone
    device = module_device(net)
    b_features, masks, actions, returns, finished = data
    b_features = b_features.to(device)
    b_masks, b_actions, b_returns, b_finished = (torch.from_numpy(array).to(device)
                                                 for array in (masks > 0, actions, returns, finished))
    b_weights = torch.where(b_masks[:, KNOCK_BASE:BIG_GIN].any(1), c.knock_weight, 1.0)
    optimizer = torch.optim.Adam(net.parameters(), lr=c.lr)
    generator = torch.Generator().manual_seed(derive_seed(cfg.seed, 7))
    suit_maps = suit_permutations()
    size, mb = len(b_actions), 256
    updates = c.epochs * math.ceil(size / mb)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda u: 1 - u / updates if c.anneal_lr else 1.0)
    metrics: dict[str, Any] = {"agent": c.agent, "decisions": size}
    for epoch in tqdm(range(c.epochs), desc="cloning: training", disable=not progress_bar):
        net.train()
        order = torch.randperm(size, generator=generator).to(device)
        correct, total_loss = 0, 0.0
        for start in range(0, size, mb):
            index = order[start:start + mb]
            features, masks, actions = b_features[index], b_masks[index], b_actions[index]
            if c.augment:
                pick = torch.randint(len(suit_maps), (len(index),), generator=generator)
                features, masks, actions = permute_suits(features, masks, actions, suit_maps[pick].to(device))
            logits, values = net.head(features, masks)
            dist = MaskedCategorical(logits, masks)
            weights = b_weights[index]
            nll = -dist.log_prob(actions)
            policy_loss = (weights * nll).sum() / weights.sum()
            counted = b_finished[index].float()  # returns cut short by the chunk's end are not targets
            value_loss = 0.5 * (counted * (values - b_returns[index]) ** 2).sum() / counted.sum().clamp(min=1)
            optimizer.zero_grad()
            (policy_loss + cfg.ppo.vf_coef * value_loss).backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.ppo.max_grad_norm)
            optimizer.step()
            scheduler.step()
            correct += int((dist.mode() == actions).sum())
            total_loss += float(nll.detach().sum())
        metrics.update(epoch=epoch + 1, loss=total_loss / size, accuracy=correct / size)
        if held_out is not None:
            metrics.update(held_out=len(held_out[2]), held_out_accuracy=agreement(net, *held_out[:3]))
        if on_epoch is not None:
            on_epoch(dict(metrics))
    return metrics


def agreement(net: PolicyNet, features: torch.Tensor, masks: np.ndarray, actions: np.ndarray) -> float:
    """Share of decisions (:func:`features_of` their observations) where ``net``'s most likely
    legal action is ``actions``'."""
    net.eval()
    with torch.no_grad():
        legal = torch.from_numpy(masks > 0)
        logits, _ = net.head(features.to(module_device(net)), legal)
        mode = MaskedCategorical(logits.cpu(), legal).mode()
    return float((mode == torch.from_numpy(actions)).float().mean())


def features_of(net: PolicyNet, obs: np.ndarray) -> torch.Tensor:
    """What ``net.head`` reads, for observations ``[B, OBSERVATION_SIZE]``."""
    with torch.no_grad():  # in slices: a full observation is 8.6 kB, its features a third of that
        return torch.cat([net.features(torch.from_numpy(obs[i:i + 16384])) for i in range(0, len(obs), 16384)])
