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
``reward_scale``, ``illegal_action``, ``info_lists`` and rule fields; ``observation`` (other
than ``"vector"``) and ``max_cycles`` only the one-game-per-env routes.  The version follows the
observation's (``gin_rummy_v1``).  Where the constructors' defaults do not fit generic tools,
the ids set other ones (:data:`DEFAULTS`):

* ``illegal_action="terminate"``: an illegal action ends the episode with ``illegal_reward``
  instead of raising, so tools that step ``action_space.sample()`` (Gymnasium's ``check_env``,
  RLlib's env check) work; with action masking no illegal action is ever played.
* ``info_lists=False``: the infos hold only values of one type and shape (``hand_summary``,
  ``game_summary``; no ``hand_result``, whose fields are ``None`` in a dead hand), so
  Gymnasium's sync and async vectors can stack them whichever envs end a hand together.
  ``info_lists=True`` brings the contract's ``hand_result`` / ``game_result`` back.

``render_mode="rgb_array"`` (what SB3's ``make_vec_env`` asks for first) is a
:class:`~ginenv.envs.single_agent.RenderModeError`, a ``TypeError`` too, so SB3 makes the env
again without a render mode.  ``make`` adds no wrappers (the env itself refuses ``step``
before ``reset``): ``gymnasium.make(id)`` is the env.

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
DEFAULTS = {"illegal_action": "terminate", "info_lists": False}
"""The settings every id passes where the constructors' defaults differ (see the module docstring)."""


def register_ids() -> None:
    """Register every id of :data:`OPPONENTS` with Gymnasium (those already registered are left)."""
    for env_id, opponent in OPPONENTS.items():
        if env_id not in registry:
            register(id=env_id, entry_point="ginenv.envs.single_agent:SingleAgentGinEnv",
                     vector_entry_point="ginenv.envs.gym_vector:GymVectorGinEnv",
                     kwargs={"opponent": opponent, **DEFAULTS},
                     order_enforce=False, disable_env_checker=True)


register_ids()
