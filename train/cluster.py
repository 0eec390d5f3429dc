"""Ray connection helpers, for rollouts and evaluations that outgrow one machine (``pip install -e '.[ray]'``).

A leaf: it imports nothing of this project, and Ray only when a Ray backend is used, so the
rest of the package runs without Ray.  :func:`connect` joins the cluster at ``address``, else at the
``RAY_ADDRESS`` environment variable, else the one started on this machine with ``ray start``,
else starts a Ray runtime in this process (Ray's own order).

* :func:`ray_map` — a function over items as Ray tasks, results as they finish (the pair
  chunks of an evaluation); :class:`train.training.ray_pool.RayPool` runs the rollout shards as Ray actors.

>>> ray_missing() is None or "pip install" in ray_missing()
True
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Optional

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
