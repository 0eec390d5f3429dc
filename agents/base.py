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

from typing import Any, Mapping, Optional, Protocol, runtime_checkable

import numpy as np
from numba import njit

from ginenv.envs.opponents import act_batch as act_batch  # the batched call of the Agent protocol
from ginenv.game.checks import checked_seed

Observation = Mapping[str, np.ndarray]


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


NO_LEGAL_ACTION = "this observation has no legal action: it is not this seat's turn"


NONE = -1
"""What a compiled policy returns for an observation without legal actions (see :func:`checked`)."""


def checked(action: int) -> int:
    """``action``, unless it is ``NONE`` (no legal action): then ``ValueError``."""
    if action < 0:
        raise ValueError(NO_LEGAL_ACTION)
    return action


def checked_batch(values: np.ndarray) -> np.ndarray:
    """``values`` (one per row of a batch), unless a row is marked ``NONE`` (no legal
    action): then ``ValueError`` naming the first such row."""
    if values.size and values.min() < 0:
        raise ValueError(f"row {int(np.argmin(values))}: {NO_LEGAL_ACTION}")
    return values


@njit(cache=True)
def legal_counts(masks: np.ndarray) -> np.ndarray:
    """The number of legal actions in each row of a batch of action masks (``NONE`` for none)."""
    counts = np.zeros(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        for action in range(masks.shape[1]):
            counts[i] += masks[i, action] != 0
        if counts[i] == 0:
            counts[i] = NONE
    return counts


def legal_actions(observation: Observation) -> np.ndarray:
    """The legal action ids of an observation (ascending)."""
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError(NO_LEGAL_ACTION)
    return legal


class RandomAgent:
    """``random``: uniform over the legal actions of the mask, from its own generator, seeded
    by ``seed`` (``None`` or an int ``0..2**128 - 1``)."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self.name = "random"
        self._rng = np.random.default_rng(checked_seed(seed, "random: seed"))

    def act(self, observation: Observation) -> int:
        legal = legal_actions(observation)
        return int(legal[self._rng.integers(legal.size)])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """:meth:`act` for every row (the generator draws as per row, in order)."""
        picks = self._rng.integers(checked_batch(legal_counts(np.asarray(masks))))
        return np.argmax(np.cumsum(np.asarray(masks) != 0, axis=1) > picks[:, None], axis=1)

    def reset(self) -> None:
        pass


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,key=value"`` into the name and typed parameters.

    >>> parse_spec("montecarlo:samples=64,greedy_rollouts=true")
    ('montecarlo', {'samples': 64, 'greedy_rollouts': True})
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
