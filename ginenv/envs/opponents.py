"""The opponent of the single-agent envs: how it is called, and how a spec string becomes an agent.

``ginenv`` imports no player package.  An opponent is a callable ``observation -> action id`` or
an object with ``act(observation)`` (and, for speed, ``act_batch(observations, masks)``).  A
spec, such as ``"greedy"`` or ``{"name": "montecarlo", "samples": 32}``, is built by the *agent
factory*: the one given to :func:`set_agent_factory`, else the one an installed package declares in
the entry-point group ``ginenv.agent_factory`` (the first by name when several do; this
distribution's ``agents`` declares ``agents:make_agent``), else :func:`builtin_agent`, which knows
only ``"random"`` (:class:`RandomAgent`, uniform over the legal actions).

>>> agent_from_spec("random", seed=0).name
'random'
"""
from __future__ import annotations

import inspect
from importlib.metadata import entry_points
from typing import Any, Callable, Mapping, Optional, Union

import numpy as np
from numba import njit

from ginenv.game.checks import checked_seed

Observation = dict[str, np.ndarray]
OpponentSpec = Union[str, Mapping[str, Any]]
AgentFactory = Callable[..., Any]
ENTRY_POINT_GROUP = "ginenv.agent_factory"

NO_LEGAL_ACTION = "this observation has no legal action: it is not this seat's turn"


NONE = -1
"""What a compiled policy returns for an observation without legal actions (see :func:`checked_batch`)."""


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


def builtin_agent(spec: OpponentSpec, seed: Optional[int] = None) -> Any:
    """The agent factory when no agent package is installed: ``"random"`` is :class:`RandomAgent`;
    any other spec is a ``ValueError`` saying what is missing."""
    if spec == "random" or spec == {"name": "random"}:
        return RandomAgent(seed)
    raise ValueError(f"the opponent {spec!r} needs an agent package (none declares the {ENTRY_POINT_GROUP!r} "
                     "entry point; install this project with pip install -e .), or pass an agent object or a "
                     "callable instead")


_factory: Optional[AgentFactory] = None


def set_agent_factory(factory: Optional[AgentFactory]) -> None:
    """Build spec-named opponents with ``factory(spec, seed=...)`` (``None``: back to the entry point)."""
    global _factory
    _factory = factory


def agent_factory() -> AgentFactory:
    """The factory set by :func:`set_agent_factory`, else the installed ``ginenv.agent_factory`` entry point,
    else :func:`builtin_agent`."""
    global _factory
    if _factory is None:
        found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
        _factory = found[0].load() if found else builtin_agent
    return _factory


def agent_from_spec(spec: OpponentSpec, seed: Optional[int]) -> Any:
    """The agent that ``spec`` names, seeded with ``seed``, built by :func:`agent_factory`."""
    return agent_factory()(spec, seed=seed)


def policy_of(opponent: Any) -> Callable[[Observation], int]:
    """``opponent.act`` when it has one, else ``opponent`` itself when callable; else, or when it
    cannot be called with one argument (the observation), a ``TypeError`` naming ``opponent``.

    >>> policy_of(lambda: 1)
    Traceback (most recent call last):
    ...
    TypeError: opponent <lambda> must take one argument, the observation dict (too many positional arguments)
    """
    act = getattr(opponent, "act", None)
    policy = act if callable(act) else opponent
    if not callable(policy):
        raise TypeError("opponent must be a callable or have an act(observation) method, "
                        f"got {type(opponent).__name__}")
    try:
        inspect.signature(policy).bind(None)
    except TypeError as err:
        name = getattr(policy, "__qualname__", type(policy).__name__)
        raise TypeError(f"opponent {name} must take one argument, the observation dict ({err})") from None
    except ValueError:  # no signature to read (some builtins): it is called as it is
        pass
    return policy


def act_batch(agent: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The actions of ``agent`` for a batch: observations float32[N, OBS] and action masks
    int8[N, 108]; its own ``act_batch`` where it has one, else ``act`` row by row.

    >>> import ginenv
    >>> env = ginenv.env(); env.reset(seed=0)
    >>> observation = env.observe(env.agent_selection)
    >>> int(act_batch(RandomAgent(0), observation["observation"][None], observation["action_mask"][None])[0]) in (1, 2)
    True
    """
    batch = getattr(agent, "act_batch", None)
    if batch is not None:
        return batch(observations, masks)
    return np.array([agent.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks)],
                    dtype=np.int64).reshape(len(masks))
