"""The rollout shards of :mod:`train.training.shards` as Ray actors, one per shard (``rollout.backend: ray``).

An actor that dies is replaced by a fresh one restored to its shard's last state.
"""
from __future__ import annotations

import warnings
from typing import Any, Mapping, Optional

from train.cluster import connect
from train.training.config import RunConfig
from train.training.shards import RolloutShard, shard_sizes


class RayPool:
    """The shards of ``cfg`` (:func:`train.training.shards.shard_sizes`) as Ray actors of
    ``rollout.cpus_per_worker`` CPUs each (a :class:`train.training.shards.ShardPool`)."""

    def __init__(self, cfg: RunConfig) -> None:
        self.ray = connect(cfg.rollout.address)
        self.cfg = cfg
        self.sizes = shard_sizes(cfg.env.num_envs, cfg.rollout.workers)
        needed = cfg.rollout.workers * cfg.rollout.cpus_per_worker
        available = self.ray.cluster_resources().get("CPU", 0)
        if needed > available:
            warnings.warn(f"rollout.workers x rollout.cpus_per_worker = {needed:g} CPUs, but the Ray cluster has "
                          f"{available:g}: the workers wait until it grows", stacklevel=2)
        self.actor = self.ray.remote(num_cpus=cfg.rollout.cpus_per_worker)(RolloutShard)  # Ray sets OMP_NUM_THREADS
        self.actors = [self._start(shard) for shard in range(len(self.sizes))]

    def _start(self, shard: int) -> Any:
        return self.actor.remote(self.cfg, shard, self.sizes[shard])

    def put(self, value: Any) -> Any:
        """``value`` in the object store (once), for every actor."""
        return self.ray.put(value)

    def run(self, method: str, calls: Mapping[int, tuple]) -> tuple[dict[int, Any], dict[int, str]]:
        """Shard ``i``'s actor runs ``method(*calls[i])``, all at once; results, and why the actors that died did."""
        futures = {shard: getattr(self.actors[shard], method).remote(*args) for shard, args in calls.items()}
        done, lost = {}, {}
        for shard, future in futures.items():
            try:
                done[shard] = self.ray.get(future)
            except self.ray.exceptions.RayActorError as err:
                lost[shard] = str(err).splitlines()[0] if str(err) else type(err).__name__
        return done, lost

    def restart(self, shard: int, state: Optional[Mapping[str, Any]]) -> None:
        """Replace shard ``shard``'s actor by a fresh one restored to ``state`` (None: as built)."""
        self.ray.kill(self.actors[shard])
        self.actors[shard] = self._start(shard)
        if state is not None:
            self.actors[shard].load_state.remote(state)  # actor calls run in order: before the retried call

    def close(self) -> None:
        """Stop the actors (the Ray runtime stays up)."""
        for actor in self.actors:
            self.ray.kill(actor)
