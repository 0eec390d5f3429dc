"""Stable-Baselines3 view of :class:`~ginenv.envs.gym_vector.GymVectorGinEnv`, for ``sb3_contrib.MaskablePPO``.

SB3 has its own ``VecEnv`` API (not Gymnasium's ``VectorEnv``); :class:`SB3VecGinEnv` adapts
the batched env to it, with the masks MaskablePPO asks for through
``env_method("action_masks")``.  Importing this module needs ``stable_baselines3``
(``pip install sb3-contrib``); the rest of ``ginenv`` does not.  SB3's own route,
``make_vec_env("GinRummy-v1", n_envs=N)`` (a ``DummyVecEnv`` of single envs), needs no adapter
and runs MaskablePPO as it is, one game per env (see :mod:`ginenv.envs.registration`).

Recipe (episode statistics for SB3's logs come from ``VecMonitor``)::

    import gymnasium, ginenv
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from ginenv.envs.sb3 import SB3VecGinEnv

    venv = VecMonitor(SB3VecGinEnv(gymnasium.make_vec("GinRummy-v1", num_envs=64, opponent="greedy")))
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, seed=0).learn(200_000)

SB3 semantics: ``dones`` is ``terminated | truncated``; a finished env's info holds the
ended episode's infos (``hand_summary``, ``agent``, and ``hand_result`` unless the env was made
with ``info_lists=False``, as the registered ids make it),
``"terminal_observation"`` (the learner's last observation of it, from which SB3 bootstraps
the rare hands cut off by ``max_turns_per_hand``) and ``"TimeLimit.truncated"``.  ``seed(s)`` seeds the next
``reset`` of the whole batch with ``s``.  Attributes (``get_attr``/``set_attr``) are those
of the one batched env, the same for every index.

>>> from ginenv.envs.gym_vector import GymVectorGinEnv
>>> venv = SB3VecGinEnv(GymVectorGinEnv(2))
>>> _ = venv.seed(0)
>>> obs = venv.reset()
>>> obs.shape, [int(mask.sum()) for mask in venv.env_method("action_masks")]
((2, 2150), [2, 2])
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from ginenv.envs.gym_vector import GymVectorGinEnv

MASKS_METHOD = "action_masks"
"""The one method ``env_method`` runs: the hook ``sb3_contrib`` calls for action masks."""


class SB3VecGinEnv(VecEnv):
    """A :class:`~ginenv.envs.gym_vector.GymVectorGinEnv` (e.g. from ``gymnasium.make_vec``) as an SB3 ``VecEnv``."""

    def __init__(self, envs: GymVectorGinEnv) -> None:
        if not isinstance(envs, GymVectorGinEnv):
            raise TypeError(f"envs must be a GymVectorGinEnv (gymnasium.make_vec('GinRummy-v1', ...)), "
                            f"got {type(envs).__name__}")
        self.envs = envs
        self._actions: Optional[np.ndarray] = None
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)

    def reset(self) -> np.ndarray:
        """Reset every game (with the seed given to :meth:`seed`, if any, used once)."""
        obs, infos = self.envs.reset(seed=self._seeds[0])
        self.reset_infos = [env_info(infos, i) for i in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("call step_async(actions) first")
        obs, rewards, terminated, truncated, infos = self.envs.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        listed = [env_info(infos, i) for i in range(self.num_envs)]
        for i in np.flatnonzero(dones).tolist():
            final, last = listed[i].pop("final_info", {}), listed[i].pop("final_obs")
            listed[i] = {**listed[i], **final, "terminal_observation": last,
                         "TimeLimit.truncated": bool(truncated[i] and not terminated[i])}
        return obs, rewards, dones, listed

    def close(self) -> None:
        self.envs.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.envs, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.envs, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """Only ``"action_masks"``: each env's bool[108] legal actions, as MaskablePPO asks."""
        if method_name != MASKS_METHOD:
            raise AttributeError(f"method_name must be {MASKS_METHOD!r} (the only per-env method), got {method_name!r}")
        masks = self.envs.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


def env_info(infos: dict[str, Any], i: int) -> dict[str, Any]:
    """Env ``i``'s entries of Gymnasium's dict-of-arrays ``infos`` (each key present where its
    ``_key`` mask says so; nested dicts alike).

    >>> env_info({"a": np.array([1, 2]), "_a": np.array([False, True])}, 1)
    {'a': np.int64(2)}
    """
    return {key: env_info(value, i) if isinstance(value, dict) else value[i]
            for key, value in infos.items() if not key.startswith("_") and infos[f"_{key}"][i]}
