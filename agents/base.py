"""The Agent protocol, the name registry, and the uniformly random agent.

An agent sees exactly what the env gives its seat: the observation dict with
``"observation"`` and ``"action_mask"``.  It reads what it needs through
:func:`ginenv.decode` (or the compiled :func:`ginenv.heuristics.read_seen`), never the
engine's true state.  An agent may also decide a whole batch at once (``act_batch``, used by
the trainer through :func:`act_batch`).

>>> agent = make_agent("random", seed=0)
>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> observation = env.observe(env.agent_selection)
>>> int(observation["action_mask"][agent.act(observation)])
1
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Protocol, Union, runtime_checkable

import numpy as np
from numba import njit

from ginenv.checks import checked_seed

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


def act_batch(agent: Agent, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The actions of ``agent`` for a batch: observations float32[N, OBS] and action masks
    int8[N, 108]; its own ``act_batch`` where it has one, else :meth:`Agent.act` row by row.

    >>> import ginenv
    >>> env = ginenv.env(); env.reset(seed=0)
    >>> observation = env.observe(env.agent_selection)
    >>> act_batch(make_agent("greedy"), observation["observation"][None], observation["action_mask"][None])
    array([1])
    """
    batch = getattr(agent, "act_batch", None)
    if batch is not None:
        return batch(observations, masks)
    return np.array([agent.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks)],
                    dtype=np.int64).reshape(len(masks))


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


AgentFactory = Callable[..., Agent]
REGISTRY: dict[str, AgentFactory] = {"random": RandomAgent}


def register(name: str, factory: AgentFactory) -> None:
    """Make an agent constructible by name (``factory(seed=..., **params)``)."""
    REGISTRY[name] = factory


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


def make_agent(spec: Union[str, Mapping[str, Any]], seed: Optional[int] = None) -> Agent:
    """Build an agent from ``"name:key=value,..."`` or ``{"name": ..., **params}``.

    >>> make_agent({"name": "random"}, seed=1).name
    'random'
    """
    seed = checked_seed(seed)
    if isinstance(spec, str):
        name, params = parse_spec(spec)
    elif not isinstance(spec, Mapping):
        raise TypeError(f"spec must be a 'name:key=value,...' string or a mapping with a 'name', got {spec!r}")
    else:
        params = dict(spec)
        name = params.pop("name", None)
        if not isinstance(name, str):
            raise ValueError(f"agent config needs a 'name', got {dict(spec)!r}")
    _load_builtin_agents()
    if name not in REGISTRY:
        raise ValueError(f"unknown agent {name!r}; known: {sorted(REGISTRY)}")
    try:
        return REGISTRY[name](seed=seed, **params)
    except TypeError as err:
        raise ValueError(f"bad parameters for agent {name!r}: {err}") from None


def _load_builtin_agents() -> None:
    """Import the agent modules so they register themselves (no import cycle at load)."""
    import agents  # noqa: F401  (agents/__init__.py imports every built-in agent)
