"""Argument checks shared by every public entry: a bad value is a ``ValueError`` naming the
parameter and its allowed range; numpy scalars count as the Python number they hold.

Two subclasses say that a hand's start or record is refused, by the prefix of their message:
:class:`PositionError` for a deal or position that breaks the rules (``deal: …``,
``position: …``), wherever one is given (``HandState.from_deal`` / ``from_position``,
``reset(options={"deal": …})``, a log's start, search positions);
:class:`LogError` for a ``HandState.replay`` log or ``HandState.from_state`` state that is
malformed (``log: …``, ``state: …``).

>>> import numpy as np
>>> checked_int("gin_bonus", np.int64(25), 0, 1000), checked_float("reward_scale", np.float32(0.5), 0.0)
(25, 0.5)
>>> checked_float("reward_scale", float("inf"), 0.0)
Traceback (most recent call last):
...
ValueError: reward_scale must be a finite number > 0.0, got inf
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional

from ginenv.game.cards import plain_int


class PositionError(ValueError):
    """A deal or mid-hand position that breaks the rules: not every card once, hand sizes that
    do not fit the phase, an impossible pass count, phase or stock size (R10, R11, R25)."""


class LogError(ValueError):
    """A replay log or saved hand state that is malformed: not a dict of the expected keys, a
    bad ruleset, events that are not actions, a row that does not replay to itself.  A start
    in it that breaks the rules is a :class:`PositionError`; an illegal logged action an
    :class:`~ginenv.IllegalActionError`."""


MAX_SEED = 2**128 - 1
"""Largest accepted seed (numpy's ``SeedSequence`` takes any non-negative int; this keeps
saved seeds plain data)."""


def checked_int(name: str, value: Any, low: int, high: Optional[int] = None) -> int:
    """``value`` as a plain int in ``low..high`` (numpy ints too; not bools or floats).

    >>> checked_int("num_envs", 0, 1)
    Traceback (most recent call last):
    ...
    ValueError: num_envs must be an int >= 1, got 0
    """
    number = plain_int(value)
    if number is None or number < low or high is not None and number > high:
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an int {allowed}, got {value!r}")
    return number


def checked_float(name: str, value: Any, low: float, high: float = math.inf, *, closed: bool = False) -> float:
    """``value`` as a finite float in ``(low, high]`` (``[low, high]`` when ``closed``); ints,
    numpy ints and floats are taken, bools, NaN and infinities are not."""
    number = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else math.nan
    above = number >= low if closed else number > low
    if not (math.isfinite(number) and above and number <= high):
        bounds = f"{'>=' if closed else '>'} {low}" + (f" and <= {high}" if high < math.inf else "")
        raise ValueError(f"{name} must be a finite number {bounds}, got {value!r}")
    return number


def checked_seed(value: Any, name: str = "seed") -> Optional[int]:
    """A seed: ``None`` or an int ``0..MAX_SEED`` (numpy ints too).

    >>> checked_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an int 0..340282366920938463463374607431768211455, got -1
    """
    return None if value is None else checked_int(name, value, 0, MAX_SEED)


def checked_flag(name: str, value: Any) -> bool:
    """``value`` as a bool: ``True``/``False`` or a numpy bool, nothing else ("no" is not false)."""
    if not (isinstance(value, bool)
            or str(getattr(value, "dtype", "")) == "bool" and getattr(value, "shape", None) == ()):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)
