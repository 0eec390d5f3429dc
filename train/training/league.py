"""The opponent pool: the learner itself, frozen snapshots of it, and heuristic agents.

Each episode of each game draws an opponent by the configured weights (optionally
prioritised towards opponents the learner beats least); a ``snapshot`` episode then draws
one of the frozen past selves, uniformly or, with ``pfsp``, by how often it still beats the
learner (prioritised fictitious self-play, as in AlphaStar's league).  ``self`` games let the learner
play both seats (both seats' decisions are trained on); in the others the learner takes one
seat, drawn at random, and the opponent the other.

>>> from train.training.config import LeagueConfig
>>> league = League(LeagueConfig(opponents={"self": 1, "snapshot": 1, "random": 2}), seed=0)
>>> league.names, [round(float(p), 2) for p in league.probabilities()]   # no snapshot yet: its weight is off
(['self', 'snapshot', 'random'], [0.33, 0.0, 0.67])
"""
from __future__ import annotations

from collections import deque
from typing import Any, Mapping

import numpy as np
import torch

from agents import Agent, make_agent
from agents.neural.policy import Architecture, PolicyNet
from ginenv.seeding import derive_seed
from train.training.config import LeagueConfig

SELF, SNAPSHOT = "self", "snapshot"
RECENT = 400
"""Episodes per opponent remembered for prioritised sampling and the logs."""


class League:
    """Opponent names (``self``, ``snapshot`` or agent specs), their weights, the snapshots."""

    def __init__(self, cfg: LeagueConfig, seed: int, architecture: Architecture = Architecture()) -> None:
        self.cfg = cfg
        self.names: list[str] = list(cfg.opponents)
        self.weights = np.array([float(cfg.opponents[n]) for n in self.names])
        self.architecture = architecture
        self.snapshots: list[dict[str, torch.Tensor]] = []
        self.snapshot_nets: list[PolicyNet] = []
        self.snapshot_results: list[deque] = []
        """The learner's recent scores against each snapshot (for ``pfsp``)."""
        self.snapshot_updates: list[int] = []
        """The update after which each snapshot was taken (-1: unknown, from a run made before this was kept)."""
        self.results: dict[str, deque] = {name: deque(maxlen=RECENT) for name in self.names}
        self.rng = np.random.default_rng(derive_seed(seed, 1))
        self.seed = seed
        self.agents: dict[str, Agent] = {}
        self.reseed_agents(0)

    def reseed_agents(self, update: int) -> None:
        """Fresh heuristic agents seeded from ``(seed, update)`` (so a resumed run plays the same)."""
        self.agents = {name: make_agent(name, seed=derive_seed(self.seed, 2, update, i))
                       for i, name in enumerate(self.names) if name not in (SELF, SNAPSHOT)}

    def probabilities(self) -> np.ndarray:
        """The current sampling probabilities of ``names``."""
        weights = self.weights.copy()
        if not self.snapshots:
            weights[[i for i, n in enumerate(self.names) if n == SNAPSHOT]] = 0.0
        if self.cfg.prioritise > 0:
            rates = np.array([self.win_rate(n) if n != SELF else 0.5 for n in self.names])
            weights *= (1.0 - np.nan_to_num(rates, nan=0.5) + 0.05) ** self.cfg.prioritise
        if weights.sum() <= 0:  # only snapshots configured and none yet: play self
            weights = np.array([1.0 if n != SNAPSHOT else 0.0 for n in self.names])
            if weights.sum() <= 0:
                raise ValueError("league needs an opponent other than 'snapshot' before the first snapshot")
        return weights / weights.sum()

    def snapshot_probabilities(self) -> np.ndarray:
        """How a snapshot game picks its snapshot: uniformly, or by ``pfsp`` (the past selves the
        learner beats least most often).

        >>> league = League(LeagueConfig(opponents={"snapshot": 1}, pfsp=1.0), seed=0)
        >>> league.snapshot_results = [deque([1.0, 1.0]), deque([0.0, 1.0]), deque()]
        >>> [round(float(p), 3) for p in league.snapshot_probabilities()]
        [0.043, 0.478, 0.478]
        """
        count = len(self.snapshot_results)
        if not count:
            return np.zeros(0)
        if self.cfg.pfsp <= 0:
            return np.full(count, 1.0 / count)
        scores = np.nan_to_num([_mean_score(r) for r in self.snapshot_results], nan=0.5)
        weights = (1.0 - scores + 0.05) ** self.cfg.pfsp
        return weights / weights.sum()

    def draw(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For ``count`` new episodes: opponent index, learner seat, snapshot index (or -1)."""
        opponent = self.rng.choice(len(self.names), size=count, p=self.probabilities())
        seat = self.rng.integers(0, 2, size=count)
        if self.snapshots and self.cfg.pfsp > 0:
            picks = self.rng.choice(len(self.snapshots), size=count, p=self.snapshot_probabilities())
        else:  # the uniform draw of runs made before pfsp existed, kept so that they resume alike
            picks = self.rng.integers(0, max(1, len(self.snapshots)), size=count)
        snapshot = np.where([self.names[o] == SNAPSHOT for o in opponent], picks, -1)
        return opponent, seat, snapshot

    def add_snapshot(self, state: Mapping[str, torch.Tensor], update: int = -1) -> None:
        """Freeze a copy of the learner's weights, taken after ``update``, into the pool; when the pool
        is full one leaves (:func:`leaving`)."""
        net = PolicyNet(self.architecture)
        net.load_state_dict(state)
        self.snapshots.append({k: v.detach().cpu().clone() for k, v in state.items()})  # snapshots play on the CPU
        self.snapshot_nets.append(net.eval())
        self.snapshot_results.append(deque(maxlen=RECENT))
        self.snapshot_updates.append(update)
        if len(self.snapshots) > self.cfg.max_snapshots + self.cfg.history:
            gone = leaving(self.snapshot_updates, self.cfg.history)
            for kept in (self.snapshots, self.snapshot_nets, self.snapshot_results, self.snapshot_updates):
                kept.pop(gone)

    def record(self, opponent: int, score: float, snapshot: int = -1) -> None:
        """The learner's result of an episode against ``names[opponent]`` (1 win, 0.5 draw, 0 loss);
        ``snapshot``: which snapshot it played (-1: none)."""
        self.results[self.names[opponent]].append(score)
        if snapshot >= 0:
            self.snapshot_results[snapshot].append(score)

    def win_rate(self, name: str) -> float:
        """The learner's score over recent episodes against ``name`` (nan when none)."""
        return _mean_score(self.results[name])

    def pool(self) -> dict[str, Any]:
        """What the league draws from now: each opponent's share of new episodes, and for each snapshot
        (oldest first) the update it was taken after (None: unknown), the learner's recent episodes and
        mean score against it (None before any) and its chance in a snapshot episode.

        >>> League(LeagueConfig(opponents={"self": 3, "snapshot": 1}), seed=0).pool()
        {'opponents': {'self': 1.0, 'snapshot': 0.0}, 'snapshots': []}
        """
        chances = self.snapshot_probabilities()
        snapshots = [{"update": update if update >= 0 else None, "episodes": len(results),
                      "score": round(_mean_score(results), 4) if results else None, "chance": round(float(chance), 4)}
                     for update, results, chance in zip(self.snapshot_updates, self.snapshot_results, chances)]
        return {"opponents": {name: round(float(p), 4) for name, p in zip(self.names, self.probabilities())},
                "snapshots": snapshots}

    def state(self) -> dict[str, Any]:
        """Plain data for a checkpoint."""
        return {"snapshots": list(self.snapshots), "results": {n: list(r) for n, r in self.results.items()},
                "snapshot_results": [list(r) for r in self.snapshot_results],
                "snapshot_updates": list(self.snapshot_updates), "rng": self.rng.bit_generator.state}

    def load_state(self, state: Mapping[str, Any], update: int = -1) -> None:
        """Restore :meth:`state` (the same config), saved after ``update``. A state saved before the
        snapshots' updates were kept had no history: its snapshots were taken every ``snapshot_every``
        updates up to ``update`` (-1: unknown)."""
        self.snapshots, self.snapshot_nets, self.snapshot_results, self.snapshot_updates = [], [], [], []
        count, every = len(state["snapshots"]), self.cfg.snapshot_every
        newest = update // every * every if update >= 0 else -1
        updates = state.get("snapshot_updates",
                            [newest - every * (count - 1 - k) if newest >= 0 else -1 for k in range(count)])
        for snapshot, taken in zip(state["snapshots"], updates):
            self.add_snapshot(snapshot, taken)
        for results, saved in zip(self.snapshot_results, state.get("snapshot_results", ())):
            results.extend(saved)
        for name, results in state["results"].items():
            self.results[name] = deque(results, maxlen=RECENT)
        self.rng.bit_generator.state = state["rng"]


def _mean_score(results: deque) -> float:
    """The learner's mean score over ``results`` (nan when there are none)."""
    return float(np.mean(results)) if results else float("nan")


def leaving(updates: list[int], history: int) -> int:
    """Which snapshot leaves a pool one over full, given the update each was taken after (oldest first).

    The newest ``len(updates) - history - 1`` (the recent window) stay. With ``history: 0`` the oldest
    leaves; otherwise, of the ``history + 1`` older ones, the one whose neighbours (the start of the run
    before the first) are closest in updates, the older one on a tie, so that those kept stay spread
    over the run.

    >>> leaving([25, 50, 75, 100, 125], 0)
    0
    >>> leaving([100, 200, 225, 300, 400, 425], 3)   # dropping 225 leaves the smallest gap, 200 -> 300
    2
    """
    if history == 0:
        return 0
    before = [0, *updates[:history]]
    gaps = [updates[i + 1] - before[i] for i in range(history + 1)]
    return int(np.argmin(gaps))
