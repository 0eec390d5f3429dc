"""Rollouts collected in shards: each worker steps its share of the games.

With ``rollout.backend: ray`` the trainer's collector is a :class:`ShardedCollector`: the
``env.num_envs`` games are split over ``rollout.workers`` shards (:func:`shard_sizes`), each a
:class:`RolloutShard` — its own :class:`train.training.collect.Collector`, league copy and sampling
generator, seeded from ``(seed, shard)`` — that a pool of workers runs
(:class:`train.training.ray_pool.RayPool`: one Ray actor per shard).  Before every rollout the
collector broadcasts the policy's weights and the part of the league a shard plays against
(snapshots, recent results) once; the shards return their decisions (GAE already applied, each
shard at most its share of ``ppo.batch_size``, newest kept), what they saw, the episode
results for the league, and their state.  A worker that died is started again from its
shard's last state and the lost rollout is played again, so a run's numbers depend only on
the seed and ``rollout.workers`` — not on timing, placement or restarts.

>>> shard_sizes(10, 3)
[4, 3, 3]
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import Any, Mapping, Optional, Protocol, Sequence

import torch

from agents.neural.policy import PolicyNet
from ginenv.seeding import derive_seed
from train.training.collect import Batch, Collector, RolloutStats
from train.training.config import RunConfig
from train.training.critic import PrivilegedCritic, make_critic
from train.training.league import RECENT, League

TRIES = 4
"""Times a shard's call is made before its worker is given up for lost."""


def shard_sizes(num_envs: int, shards: int) -> list[int]:
    """Games per shard: ``num_envs`` split as evenly as possible (the first shards get the rest)."""
    return [num_envs // shards + (i < num_envs % shards) for i in range(shards)]


def shard_seed(seed: int, shard: int) -> int:
    """The seed of shard ``shard``'s games, league draws, agents and sampling (stream 11 of
    :func:`ginenv.seeding.derive_seed`; 5 is the cloning teacher's per chunk).

    >>> shard_seed(1, 0) != shard_seed(1, 1)
    True
    """
    return derive_seed(seed, 11, shard)


@dataclass
class LeagueView:
    """The part of the trainer's league a shard plays against."""

    versions: list[int]
    """A number per snapshot, new whenever the league gains one (shards rebuild only new ones)."""
    snapshots: list[dict[str, torch.Tensor]]
    results: dict[str, list[float]]
    """Recent results per opponent (for ``league.prioritise``)."""
    snapshot_results: list[list[float]]
    """Recent results per snapshot (for ``league.pfsp``)."""


@dataclass
class Broadcast:
    """What every shard gets once per update."""

    weights: dict[str, torch.Tensor]
    league: LeagueView
    critic: Optional[dict[str, torch.Tensor]] = None
    """The privileged critic's weights (``critic.kind: privileged``)."""


@dataclass
class ShardRollout:
    """One shard's rollout, as it comes back to the trainer."""

    batch: Batch
    stats: RolloutStats
    recorded: list[tuple[int, float, int]]
    """``(opponent index, score, snapshot index or -1)`` of every episode it finished, for the trainer's league."""
    state: dict[str, Any]
    """The shard's state after the rollout (:meth:`RolloutShard.state`)."""


class ShardLeague(League):
    """A shard's copy of the league: its snapshots and results come from the trainer's league
    before each rollout (:meth:`sync`); the episodes it records are kept in ``recorded``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recorded: list[tuple[int, float, int]] = []
        self._nets: dict[int, PolicyNet] = {}

    def record(self, opponent: int, score: float, snapshot: int = -1) -> None:
        super().record(opponent, score, snapshot)
        self.recorded.append((opponent, score, snapshot))

    def sync(self, view: LeagueView) -> None:
        """Play against ``view``: snapshot networks are built only for versions not seen before."""
        self._nets = {v: self._nets[v] if v in self._nets else self._frozen(s)
                      for v, s in zip(view.versions, view.snapshots)}
        self.snapshots = list(view.snapshots)
        self.snapshot_nets = [self._nets[v] for v in view.versions]
        self.results = {name: deque(results, maxlen=RECENT) for name, results in view.results.items()}
        self.snapshot_results = [deque(results, maxlen=RECENT) for results in view.snapshot_results]

    def _frozen(self, state: Mapping[str, torch.Tensor]) -> PolicyNet:
        net = PolicyNet(self.architecture)
        net.load_state_dict(state)
        return net.eval()


class RolloutShard:
    """``num_envs`` games of shard ``index``: what one worker holds between rollouts.

    >>> from train.training.config import load_config
    >>> cfg = load_config(None, ["league.opponents={random: 1}", "policy.hidden=8", "policy.card_dim=2"])
    >>> shard = RolloutShard(cfg, index=0, num_envs=2)
    >>> view = LeagueView([], [], {"random": []}, [])
    >>> out = shard.collect(Broadcast(PolicyNet(cfg.policy).state_dict(), view), steps=8, cap=100)
    >>> len(out.batch) <= 8 * 2, out.state["rollouts"]
    (True, 1)
    """

    def __init__(self, cfg: RunConfig, index: int, num_envs: int) -> None:
        cfg = replace(cfg, seed=shard_seed(cfg.seed, index))
        self.net = PolicyNet(cfg.policy).eval()
        self.critic = make_critic(cfg.critic, cfg.policy)
        self.league = ShardLeague(cfg.league, cfg.seed, cfg.policy)
        self.collector = Collector(cfg, self.net, self.league, num_envs, self.critic)
        self.generator = torch.Generator().manual_seed(derive_seed(cfg.seed, 3))
        self.rollouts = 0

    def collect(self, broadcast: Broadcast, steps: int, cap: int) -> ShardRollout:
        """Play ``steps`` env steps with the broadcast weights; at most ``cap`` decisions back."""
        self.net.load_state_dict(broadcast.weights)
        if self.critic is not None:
            self.critic.load_state_dict(broadcast.critic)
        self.league.sync(broadcast.league)
        self.league.reseed_agents(self.rollouts)
        self.rollouts += 1
        batch, stats = self.collector.collect(steps, self.generator)
        recorded, self.league.recorded = self.league.recorded, []
        return ShardRollout(batch.newest(cap), stats, recorded, self.state())

    def state(self) -> dict[str, Any]:
        """Plain data: the games, the league's random state, the sampling generator, the rollout count."""
        return {"collector": self.collector.state(), "league_rng": self.league.rng.bit_generator.state,
                "generator": self.generator.get_state(), "rollouts": self.rollouts}

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Restore :meth:`state` (a shard built with the same arguments)."""
        self.collector.load_state(state["collector"])
        self.league.rng.bit_generator.state = state["league_rng"]
        self.generator.set_state(state["generator"])
        self.rollouts = state["rollouts"]


class ShardPool(Protocol):
    """Workers that run the shards (one worker per shard)."""

    def put(self, value: Any) -> Any:
        """A handle that sends ``value`` to every shard (stored once)."""

    def run(self, method: str, calls: Mapping[int, tuple]) -> tuple[dict[int, Any], dict[int, str]]:
        """Shard ``i`` runs ``method(*calls[i])``; the results by shard, and why the shards whose
        worker was lost lost it."""

    def restart(self, shard: int, state: Optional[Mapping[str, Any]]) -> None:
        """A fresh worker for ``shard``, restored to ``state`` (None: as built)."""

    def close(self) -> None:
        """Stop the workers."""


class ShardedCollector:
    """The trainer's collector over a :class:`ShardPool` (same interface as :class:`Collector`)."""

    def __init__(self, cfg: RunConfig, net: PolicyNet, league: League, pool: ShardPool,
                 critic: Optional[PrivilegedCritic] = None) -> None:
        self.cfg, self.net, self.league, self.pool, self.critic = cfg, net, league, pool, critic
        self.sizes = shard_sizes(cfg.env.num_envs, cfg.rollout.workers)
        self._versions: list[tuple[dict, int]] = []  # (snapshot object, its version)
        self._next_version = 0
        self.states: list[Optional[dict[str, Any]]] = [None] * len(self.sizes)  # None: as built
        self.states = self._run("state", [()] * len(self.sizes))

    def collect(self, steps: int, generator: Optional[torch.Generator] = None) -> tuple[Batch, RolloutStats]:
        """Every shard plays ``steps`` env steps; their decisions one shard after the other.
        The shards sample with their own generators (in :meth:`state`): ``generator`` is not used."""
        cfg = self.cfg
        critic = self.critic.state_dict() if self.critic is not None else None
        broadcast = self.pool.put(Broadcast(self.net.state_dict(), self._view(), critic))
        caps = [max(1, cfg.ppo.batch_size * size // cfg.env.num_envs) for size in self.sizes]
        rollouts: list[ShardRollout] = self._run("collect", [(broadcast, steps, cap) for cap in caps])
        for rollout in rollouts:
            for opponent, score, snapshot in rollout.recorded:
                self.league.record(opponent, score, snapshot)
        self.states = [rollout.state for rollout in rollouts]
        return Batch.concat([r.batch for r in rollouts]), RolloutStats.merge([r.stats for r in rollouts])

    def state(self) -> dict[str, Any]:
        """Plain data: every shard's state."""
        return {"shards": self.states}

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Restore :meth:`state` (same config) into the shards."""
        self.states = list(state["shards"])
        self._run("load_state", [(s,) for s in self.states])

    def close(self) -> None:
        self.pool.close()

    def _view(self) -> LeagueView:
        """The league for the shards; a snapshot keeps its version while the league holds it."""
        versions = []
        for snapshot in self.league.snapshots:
            found = next((v for s, v in self._versions if s is snapshot), None)
            if found is None:
                found, self._next_version = self._next_version, self._next_version + 1
            versions.append(found)
        self._versions = list(zip(self.league.snapshots, versions))
        return LeagueView(versions, list(self.league.snapshots),
                          {name: list(results) for name, results in self.league.results.items()},
                          [list(results) for results in self.league.snapshot_results])

    def _run(self, method: str, args: Sequence[tuple]) -> list[Any]:
        """``method(*args[i])`` on every shard; a lost worker is restarted from its shard's state and retried."""
        done: dict[int, Any] = {}
        pending, lost = dict(enumerate(args)), {}
        for _ in range(TRIES):
            results, lost = self.pool.run(method, pending)
            done.update(results)
            for shard in lost:
                self.pool.restart(shard, self.states[shard])
            pending = {shard: pending[shard] for shard in lost}
            if not pending:
                return [done[shard] for shard in range(len(args))]
        raise RuntimeError(f"rollout worker(s) of shard(s) {sorted(lost)} were lost {TRIES} times in a row; "
                           f"the last time: {'; '.join(lost.values())}")
