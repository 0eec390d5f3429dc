"""The Agent protocol, agent spec strings, and the uniformly random agent.

An agent sees exactly what the env gives its seat: the observation dict with
``"observation"`` and ``"action_mask"``.  It reads what it needs through
:func:`ginenv.decode` (or the compiled :func:`agents.tactics.read_seen`), never the
engine's true state.  An agent may also decide a whole batch at once (``act_batch``, used by
the trainer through :func:`act_batch`).

>>> agent = RandomAgent(seed=0)
>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> observation = env.observe(env.agent_selection)
>>> int(observation["action_mask"][agent.act(observation)])
1
"""
from __future__ import annotations

from typing import Any, Mapping, Protocol, runtime_checkable

import numpy as np

from ginenv.envs.opponents import (  # the mask helpers and the random player, shared with the envs
    NO_LEGAL_ACTION,
    NONE,
    RandomAgent,
    act_batch,
    checked_batch,
    legal_actions,
    legal_counts,
)

Observation = Mapping[str, np.ndarray]
__all__ = ["NONE", "NO_LEGAL_ACTION", "Agent", "Observation", "RandomAgent", "act_batch", "checked", "checked_batch",
           "legal_actions", "legal_counts", "parse_spec"]


@runtime_checkable
class Agent(Protocol):
    """What every player implements."""

    name: str

    def act(self, observation: Observation) -> int:
        """A legal action id for this observation (its ``action_mask`` is not all zero)."""

    def reset(self) -> None:
        """Called at the start of every hand."""

    # Optional: ``act_batch(observations, masks) -> int64[N]``, the action :meth:`act` would
    # return for each row, in order (an agent with a generator draws as :meth:`act` would,
    # row after row).  :func:`act_batch` falls back to :meth:`act` per row without it.




def checked(action: int) -> int:
    """``action``, unless it is ``NONE`` (no legal action): then ``ValueError``."""
    if action < 0:
        raise ValueError(NO_LEGAL_ACTION)
    return action


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,key=value"`` into the name and typed parameters.

    >>> parse_spec("montecarlo:samples=64,prior=uniform")
    ('montecarlo', {'samples': 64, 'prior': 'uniform'})
    """
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise ValueError(f"agent parameter {item!r} in {spec!r} is not key=value")
        params[key.strip()] = _typed(raw.strip())
    return name.strip(), params


def _typed(raw: str) -> Any:
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw
