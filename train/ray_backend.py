"""Ray, for rollouts and evaluations that outgrow one machine (``pip install -e '.[ray]'``).

Ray is imported only when a Ray backend is used, never when this module is: the rest of the
package runs without it.  :func:`connect` joins the cluster at ``address``, else at the
``RAY_ADDRESS`` environment variable, else the one started on this machine with ``ray start``,
else starts a Ray runtime in this process (Ray's own order).

* :class:`RayPool` — the rollout shards of :mod:`train.shards` as Ray actors, one per shard;
  an actor that dies is replaced by a fresh one restored to its shard's last state.
* :func:`ray_map` — a function over items as Ray tasks, results as they finish (the pair
  chunks of :func:`train.evaluate.run_plans`).

>>> ray_missing() is None or "pip install" in ray_missing()
True
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional

from .config import RunConfig
from .shards import RolloutShard, shard_sizes

INSTALL = "pip install -e '.[ray]'"


class RayNotInstalled(ImportError, ValueError):
    """A Ray backend was chosen but Ray cannot be imported (the message says how to install it)."""


def ray_missing() -> Optional[str]:
    """Why Ray cannot be used (with the install command), or None when it can."""
    try:
        import ray  # noqa: F401
    except ImportError as err:
        return f"needs Ray, which is not installed ({err}): {INSTALL}"
    return None


def import_ray() -> Any:
    """The ``ray`` module, or :class:`RayNotInstalled` saying how to install it."""
    missing = ray_missing()
    if missing:
        raise RayNotInstalled(f"the ray backend {missing}")
    import ray

    return ray


def connect(address: Optional[str] = None) -> Any:
    """The ``ray`` module, joined to the cluster at ``address`` (see the module docstring);
    an already initialised Ray is used as it is."""
    ray = import_ray()
    if not ray.is_initialized():
        ray.init(address=address)
    return ray


def cluster_cpus(address: Optional[str] = None) -> int:
    """The CPUs of the Ray cluster (at least 1)."""
    return max(1, int(connect(address).cluster_resources().get("CPU", 1)))


def ray_map(function: Callable[[Any], Any], items: Iterable[Any], address: Optional[str] = None) -> Iterator[Any]:
    """``function(item)`` for every item as Ray tasks of one CPU each, yielded as they finish.

    ``function`` must be importable by the workers (a module-level function of this package).
    """
    ray = connect(address)
    remote = ray.remote(num_cpus=1)(function)
    pending = [remote.remote(item) for item in items]
    while pending:
        [finished], pending = ray.wait(pending, num_returns=1)
        yield ray.get(finished)


class RayPool:
    """The shards of ``cfg`` (:func:`train.shards.shard_sizes`) as Ray actors of
    ``rollout.cpus_per_worker`` CPUs each (a :class:`train.shards.ShardPool`)."""

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
