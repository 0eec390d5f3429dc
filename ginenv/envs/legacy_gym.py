"""The Gymnasium ids under the old ``gym`` API (``gym`` before 0.26): what PyPI's CleanRL runs.

PyPI's ``cleanrl`` (1.2.0, the newest release there) ships a ``ppo.py`` written for
``gym==0.23.1``: it builds ``gym.vector.SyncVectorEnv([make_env(...)])`` with ``gym.make(env_id)``,
``gym.wrappers.RecordEpisodeStatistics`` and ``env.seed(seed)``, steps a 4-tuple
``(obs, reward, done, info)`` and logs the ``"episode"`` entry of each env's info.  Gymnasium
envs speak another API (``reset`` returns ``(obs, info)``, ``step`` a 5-tuple), so this module
gives ``gym`` the same ids: :func:`register_ids` registers every id of
:data:`ginenv.envs.registration.OPPONENTS` in ``gym``'s registry, each the env
``gymnasium.make(id, **kwargs)`` builds (same defaults: an illegal action ends the episode with
``illegal_reward``; fixed-shape infos) seen through :class:`OldGymEnv`.  ginenv declares
:func:`register_plugin` as a ``gym.envs`` entry point (``__root__``: ids in ``gym``'s root
namespace), which ``gym`` runs when it is imported, so with ginenv installed the script runs as
it is, only the env id given (tested with ``gym`` 0.23.1)::

    pip install gym==0.23.1 && pip install --no-deps --ignore-requires-python cleanrl
    python -m cleanrl.ppo --env-id GinRummy-v1 --cuda False

(``gym.make("ginenv.envs.legacy_gym:GinRummy-v1")`` does not work: ``gym`` 0.23's ``make`` looks
the id up before it imports the module.  Importing this module registers the ids too.)

``ppo.py`` samples from all 108 actions (it has no mask): an illegal one ends that episode with
reward ``illegal_reward`` (-1 by default), so the policy learns which moves are legal from the
reward, and its episodes grow from one step to whole hands.  ``info["action_mask"]`` is in every
info for scripts that mask.  ``gym`` is imported only by this module, never by ``import ginenv``
(but where ``gym`` is installed, ``import gym`` imports ginenv, through the entry point); without
a pre-0.26 ``gym`` the module registers nothing and :func:`make` raises ``ImportError``.
"""
from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Optional

import gymnasium
import numpy as np

from ginenv.envs.registration import OPPONENTS


def register_plugin() -> None:
    """The ``gym.envs`` entry point ginenv declares (``import gym`` runs it): :func:`register_ids`.

    It stands before this module imports ``gym``: where this module is what imports ``gym``, ``gym``
    runs its plugins while this module is half-loaded; then this does nothing, and the module
    registers the ids itself at the end of its import."""
    if "register_ids" in globals():
        register_ids()


gym: Any = importlib.import_module("gym") if importlib.util.find_spec("gym") else None
"""The old ``gym`` package, or ``None`` where it is not installed (then nothing is registered)."""
OLD_API = gym is not None and tuple(int(part) for part in gym.__version__.split(".")[:2]) < (0, 26)
"""Whether the installed ``gym`` speaks the pre-0.26 API (0.26 on is Gymnasium's: use ``gymnasium``)."""


class OldGymEnv(gym.Env if OLD_API else object):  # type: ignore[misc]
    """A Gymnasium env behind ``gym``'s pre-0.26 API.

    ``reset(seed=None, return_info=False, options=None)`` returns the observation (and the info
    with ``return_info``); ``seed(seed)`` keeps ``seed`` for the next ``reset``; ``step`` returns
    ``(obs, reward, terminated or truncated, info)`` with ``info["TimeLimit.truncated"]`` where a
    hand was cut off (``max_turns_per_hand``) rather than ended.  The spaces are ``gym``'s copies
    of the Gymnasium env's; ``action_masks()`` is passed through.
    """

    def __init__(self, env: gymnasium.Env) -> None:
        self.env = env
        self.observation_space = _old_space(env.observation_space)
        self.action_space = _old_space(env.action_space)
        self.metadata = dict(getattr(env, "metadata", {}))
        self._seed: Optional[int] = None

    def reset(self, *, seed: Optional[int] = None, return_info: bool = False,
              options: Optional[dict] = None) -> Any:
        if seed is None:
            seed, self._seed = self._seed, None
        obs, info = self.env.reset(seed=seed, options=options)
        return (obs, info) if return_info else obs

    def seed(self, seed: Optional[int] = None) -> list:
        self._seed = seed
        return [seed]

    def step(self, action: Any) -> tuple[Any, float, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        if truncated and not terminated:
            info["TimeLimit.truncated"] = True
        return obs, float(reward), bool(terminated or truncated), info

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()

    def render(self, mode: str = "human") -> Any:
        return self.env.render()

    def close(self) -> None:
        self.env.close()


def _old_space(space: gymnasium.Space) -> gym.Space:
    """``gym``'s copy of a Gymnasium ``Box``, ``Discrete`` or ``Dict`` space."""
    if isinstance(space, gymnasium.spaces.Discrete):
        return gym.spaces.Discrete(int(space.n))
    if isinstance(space, gymnasium.spaces.Box):
        return gym.spaces.Box(space.low, space.high, space.shape, space.dtype)
    if isinstance(space, gymnasium.spaces.Dict):
        return gym.spaces.Dict({key: _old_space(value) for key, value in space.spaces.items()})
    raise TypeError(f"no gym copy of {type(space).__name__}")


def make(env_id: str, **kwargs: Any) -> OldGymEnv:
    """``gymnasium.make(env_id, **kwargs)`` behind the old API (the entry point of every id here)."""
    if not OLD_API:
        raise ImportError(f"ginenv.envs.legacy_gym needs gym below 0.26 (gym 0.26 on is Gymnasium's API), "
                          f"found {getattr(gym, '__version__', 'none')}")
    return OldGymEnv(gymnasium.make(env_id, **kwargs))


def register_ids() -> None:
    """Register every Gymnasium id of ginenv in ``gym``'s registry (those already there are left),
    where a pre-0.26 ``gym`` is installed (through :func:`register_plugin`, ginenv's ``gym.envs``
    entry point, ``gym.make("GinRummy-v1")`` works with no import of ginenv)."""
    if not OLD_API:
        return
    # by module name: ``gym`` runs this (its plugin hook) before ``gym.envs`` is bound on ``gym``
    registration = importlib.import_module("gym.envs.registration")
    known = {spec.id for spec in registration.registry.all()}
    for env_id in OPPONENTS:
        if env_id not in known:
            registration.register(id=env_id, entry_point=make, kwargs={"env_id": env_id})


register_ids()
