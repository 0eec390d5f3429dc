"""Gymnasium ids for one learner against a named opponent (registered when ``ginenv`` is imported).

==========================  ==========================================================
id                          opponent (any agent spec via ``opponent=``, see :mod:`ginenv.envs.opponents`)
==========================  ==========================================================
``GinRummy-v1``             ``"random"`` by default
``GinRummy-simple-v1``      ``"simple"``
``GinRummy-greedy-v1``      ``"greedy"``
==========================  ==========================================================

``gymnasium.make(id, **kwargs)`` builds a :class:`~ginenv.envs.single_agent.SingleAgentGinEnv`
and ``gymnasium.make_vec(id, num_envs=N)`` a :class:`~ginenv.envs.gym_vector.GymVectorGinEnv`
(the ``vector_entry_point``: N games batched on one :class:`~ginenv.envs.batched.BatchedGinEnv`);
``vectorization_mode="sync"`` or ``"async"`` gives Gymnasium's one-game-per-env vectors
instead.  Both take ``opponent``, ``seat``, ``ruleset``, ``episode``, ``reward_mode``,
``reward_scale``, ``illegal_action`` and rule fields; ``info_lists`` and ``max_cycles`` only the
one-game-per-env routes (the batched vector env's infos are arrays already).  The
version follows the observation's (``gin_rummy_v1``).  The ids set
``illegal_action="terminate"``: an illegal action ends the episode with ``illegal_reward``
instead of raising, so generic tools that step ``action_space.sample()`` (Gymnasium's
``check_env``) work; with action masking no illegal action is ever played.  ``make`` adds
no wrappers (the env itself refuses ``step`` before ``reset``): ``gymnasium.make(id)`` is
the env.

>>> import gymnasium
>>> env = gymnasium.make("GinRummy-v1")
>>> obs, info = env.reset(seed=0)
>>> env.unwrapped.opponent.name, obs.shape
('random', (2150,))
"""
from __future__ import annotations

from gymnasium.envs.registration import register, registry

OPPONENTS = {"GinRummy-v1": "random", "GinRummy-simple-v1": "simple", "GinRummy-greedy-v1": "greedy"}
"""Registered id -> the opponent it plays against by default."""


def register_ids() -> None:
    """Register every id of :data:`OPPONENTS` with Gymnasium (those already registered are left)."""
    for env_id, opponent in OPPONENTS.items():
        if env_id not in registry:
            register(id=env_id, entry_point="ginenv.envs.single_agent:SingleAgentGinEnv",
                     vector_entry_point="ginenv.envs.gym_vector:GymVectorGinEnv",
                     kwargs={"opponent": opponent, "illegal_action": "terminate"},
                     order_enforce=False, disable_env_checker=True)


register_ids()
