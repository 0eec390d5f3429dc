"""Batched stepping: many games at once, arrays in and arrays out, auto-reset.

Built on the same engine (:class:`~ginenv.game.hand.HandState` / :class:`~ginenv.game.match.MatchState`),
encoder and episode rules (:mod:`ginenv.envs.episode`: settings, rewards, infos, done flags) as the
AEC env, so both give identical observations and rewards; this API only
saves the per-step overhead of the AEC protocol, and can spread the games over worker
processes (``num_workers``) to use several cores.  Each game is self-play: the returned
observation and mask are those of the seat to act in that game (``to_act``).
:meth:`BatchedGinEnv.get_state` / :meth:`BatchedGinEnv.set_state` save and restore every game
exactly, as plain data (for a checkpoint).

>>> venv = BatchedGinEnv(4, seed=0)
>>> obs, masks, to_act = venv.reset()
>>> obs.shape, masks.shape, to_act.tolist()
((4, 2150), (4, 108), [0, 0, 0, 0])
>>> actions = [int(np.flatnonzero(m)[0]) for m in masks]
>>> obs, masks, to_act, rewards, terminated, truncated, infos = venv.step(actions)
>>> rewards.shape, bool(terminated.any())
((4, 2), False)
"""
from __future__ import annotations

import multiprocessing as mp
from multiprocessing import shared_memory
from typing import Any, Optional, Sequence

import numpy as np

from ginenv.envs.episode import Episode, EpisodeSpec
from ginenv.game import core
from ginenv.game.actions import NUM_ACTIONS, IllegalActionError
from ginenv.game.checks import checked_flag, checked_int, checked_seed
from ginenv.game.encoding import OBSERVATION_SIZE, rules_vector, write_many, write_observation, write_some
from ginenv.game.privileged import PRIVILEGED_SIZE, write_privileged_many
from ginenv.game.result import hand_result

MAX_ENVS = 100_000
"""Largest ``num_envs`` (every game keeps its own state rows and output rows)."""
#: name -> (per-game shape, dtype) of the arrays a step fills.
BUFFERS = {
    "obs": ((OBSERVATION_SIZE,), np.float32),
    "masks": ((NUM_ACTIONS,), np.int8),
    "to_act": ((), np.int8),
    "rewards": ((2,), np.float32),
    "terminated": ((), np.bool_),
    "truncated": ((), np.bool_),
    "actions": ((), np.int64),
    "active": ((), np.bool_),
    "privileged": ((PRIVILEGED_SIZE,), np.float32),
}


class GameBatch:
    """Games ``first .. first + count - 1`` of a batched env, stepped in this process.

    The games' hands keep their state in the rows of one array, which the compiled core
    steps and encodes in one call each (:func:`ginenv.game.core.apply_many`,
    :func:`ginenv.game.encoding.write_many`); Python only settles hands that ended.  Writes into
    the arrays it is given (rows of this batch only); game ``i`` draws its shuffles from
    the ``i``-th child of ``SeedSequence(seed)``, so results do not depend on how games
    are split over processes.
    """

    def __init__(self, first: int, count: int, total: int, spec: EpisodeSpec, buffers: dict[str, np.ndarray],
                 final_observations: bool = False, summaries: bool = True) -> None:
        self.first, self.count, self.total, self.spec = first, count, total, spec
        self.final_observations, self.summaries = final_observations, summaries
        self.buffers = {name: array[first:first + count] for name, array in buffers.items()}
        width = core.new_row(*core.capacities(spec.ruleset.max_turns_per_hand)).shape[0]
        self._rows = np.zeros((count, width), dtype=np.int64)
        self._matches = np.zeros((count, 5), dtype=np.int64)
        self._ended = np.zeros(count, dtype=np.int64)
        self._rules = rules_vector(spec.ruleset)
        self._episodes: list[Episode] = []
        self.seed(None)

    def seed(self, seed: Optional[int]) -> None:
        children = np.random.SeedSequence(seed).spawn(self.total)[self.first:self.first + self.count]
        self._rngs = [np.random.default_rng(child) for child in children]

    def _place(self, i: int, episode: Episode) -> Episode:
        """Keep ``episode``'s hand in row ``i`` and its match numbers in ``_matches[i]``."""
        episode.move_to(self._rows[i], self._matches[i])
        return episode

    def _new_episode(self, i: int) -> Episode:
        """A new episode for game ``i`` (this batch's numbering), dealt by its generator."""
        return self._place(i, self.spec.start(self._rngs[i]))

    def reset(self, seed: Optional[int]) -> None:
        if seed is not None:
            self.seed(seed)
        self._episodes = [self._new_episode(i) for i in range(self.count)]
        self._write_all()

    def restart(self, games: Sequence[int]) -> None:
        """A new episode in each game of ``games`` (batched env indices; other batches' skipped)."""
        for game in games:
            if self.first <= game < self.first + self.count:
                self._episodes[game - self.first] = self._new_episode(game - self.first)
        self._write_all()

    def get_state(self) -> dict[int, dict]:
        """``{game index: {"rng": its generator's state, "episode": Episode.to_state()}}``, without
        the games' finished hands (this API never shows them; they would dominate the size)."""
        return {self.first + i: {"rng": rng.bit_generator.state, "episode": episode.to_state(history=False)}
                for i, (rng, episode) in enumerate(zip(self._rngs, self._episodes))}

    def set_state(self, games: Sequence[dict]) -> None:
        """Restore this batch's games from the list of every game's :meth:`get_state` value."""
        mine = games[self.first:self.first + self.count]
        for rng, game in zip(self._rngs, mine):
            rng.bit_generator.state = game["rng"]
        self._episodes = [self._place(i, Episode.from_state(self.spec, game["episode"], self._rngs[i]))
                          for i, game in enumerate(mine)]
        self._write_all()

    def step(self) -> dict[int, dict]:
        """Apply ``buffers["actions"]`` to the games marked in ``buffers["active"]`` (the others
        stay as they are); returns ``{game index: info}`` for games whose hand ended."""
        if not self._episodes:
            raise RuntimeError("call reset() first")
        b = self.buffers
        rewards, terminated, truncated = b["rewards"], b["terminated"], b["truncated"]
        rewards[:] = 0
        terminated[:] = False
        truncated[:] = False
        max_turns = self.spec.ruleset.max_turns_per_hand
        if b["active"].all():
            core.apply_many(self._rows, b["actions"], max_turns, self._ended)
        else:  # the compiled step on the active rows only
            which = np.flatnonzero(b["active"])
            ended = np.zeros(which.size, dtype=np.int64)
            core.apply_some(self._rows, which, b["actions"][which], max_turns, ended)
            self._ended[:] = 0
            self._ended[which] = ended
        infos: dict[int, dict] = {}
        for i in np.flatnonzero(self._ended).tolist():
            episode = self._episodes[i]
            end = episode.settle()
            infos[self.first + i] = info = {**end.info(), **(end.summary() if self.summaries else {})}
            if end.done and self.final_observations:  # before the next deal overwrites the row
                info["final_observation"] = self._observe_both(i)
            rewards[i] = end.rewards
            terminated[i], truncated[i] = end.terminated, end.truncated
            self._episodes[i] = self._new_episode(i) if end.done else self._place(i, episode)
        self._write_all()
        return infos

    def _observe_both(self, i: int) -> np.ndarray:
        """float32[2, OBSERVATION_SIZE]: game ``i``'s observation from each seat, as it stands."""
        both = np.empty((2, OBSERVATION_SIZE), dtype=np.float32)
        for seat in (0, 1):
            write_observation(self._rows[i], seat, self._matches[i], self._rules, both[seat])
        return both

    def _write_all(self) -> None:
        """Encode every game's seat to act into the buffers (one compiled call)."""
        b = self.buffers
        write_many(self._rows, self._matches, self._rules, self.spec.ruleset.big_gin, b["obs"], b["masks"], b["to_act"])

    def write_privileged(self) -> None:
        """Encode every game's privileged vector (:mod:`ginenv.game.privileged`) into the buffers:
        on request only, so that the steps of callers that never read it do not pay for it."""
        write_privileged_many(self._rows, self.buffers["privileged"])

    def afterstates(self, pairs: tuple[np.ndarray, np.ndarray]) -> dict[int, dict[str, np.ndarray]]:
        """:meth:`BatchedGinEnv.afterstates` for the pairs whose game is in this batch:
        ``{first: {"index": those pairs' positions in the input, and the outputs' rows}}``."""
        games, actions = pairs
        index = np.flatnonzero((games >= self.first) & (games < self.first + self.count))
        local = games[index] - self.first
        rows = self._rows[local]  # a copy (fancy indexing): the games stay as they are
        size = index.size
        ended = np.zeros(size, dtype=np.int64)
        core.apply_some(rows, np.arange(size), actions[index], self.spec.ruleset.max_turns_per_hand, ended)
        out = {"index": index, "obs": np.zeros((size, OBSERVATION_SIZE), dtype=np.float32),
               "masks": np.zeros((size, NUM_ACTIONS), dtype=np.int8), "to_act": np.full(size, -1, dtype=np.int8),
               "privileged": np.zeros((size, PRIVILEGED_SIZE), dtype=np.float32), "ended": ended != 0,
               "rewards": np.zeros((size, 2), dtype=np.float32)}
        going = np.flatnonzero(ended == 0)
        write_some(rows, self._matches[local], self._rules, self.spec.ruleset.big_gin, going, out["obs"],
                   out["masks"], out["to_act"])
        hidden = np.zeros((going.size, PRIVILEGED_SIZE), dtype=np.float32)
        write_privileged_many(rows[going], hidden)
        out["privileged"][going] = hidden
        for j in np.flatnonzero(ended):
            out["rewards"][j] = self.spec.rewards(hand_result(rows[j], self.spec.ruleset), None)
        return {self.first: out}


class BatchedGinEnv:
    """``num_envs`` independent self-play games of Gin Rummy.

    Args:
        num_envs: number of games stepped together (1..``MAX_ENVS``).
        ruleset: preset name or :class:`~ginenv.game.rules.Ruleset`.
        episode: ``"hand"`` or ``"game"`` (as in :func:`ginenv.env`).
        reward_mode: ``"points"`` (signed hand points; game mode adds the bonuses at the end)
            or ``"win_loss"`` (+1/-1 per hand in hand mode, per game in game mode).
        reward_scale: multiplies ``"points"`` rewards.
        seed: seeds every game's generator (game i uses the i-th child seed).
        num_workers: processes that step the games (1: in this process).  Results are
            identical for any worker count; use ``close()`` (or ``with``) to stop workers.
        copy: return copies of the output arrays (default); ``False`` returns views of
            internal buffers that the next ``step`` overwrites (faster).
        final_observations: add ``"final_observation"`` (float32[2, OBSERVATION_SIZE], each
            seat's observation of the finished episode, mask all zero) to the infos of games
            whose episode ended, before the next deal replaces it (default ``False``).
        summaries: add the fixed-shape ``hand_summary`` / ``game_summary`` to the infos
            (default ``True``; ``False`` skips building them at every hand end, for callers
            that read only ``hand_result`` or nothing, such as the trainer's rollouts).
        **rule_overrides: individual :class:`~ginenv.game.rules.Ruleset` fields.

    ``step(actions)`` returns ``(obs, masks, to_act, rewards, terminated, truncated,
    infos)``: ``rewards`` is float32 ``[N, 2]`` indexed by seat (zero-sum per row);
    a finished game is reset at once, its returned observation is the new episode's
    first, and ``infos[i]`` holds ``hand_result`` (and ``game_result``) dicts for games
    where a hand ended this step, with their fixed-shape twins ``hand_summary`` (and
    ``game_summary``, see :mod:`ginenv.envs.episode`; not with ``summaries=False``).

    :meth:`get_state` returns every game's exact state as plain data and :meth:`set_state`
    restores it into an env built with the same arguments (any ``num_workers``, ``copy``
    and ``seed``): every later step gives the same outputs as the original's.
    """

    def __init__(self, num_envs: int, ruleset: Any = "pagat", episode: str = "hand",
                 reward_mode: str = "points", reward_scale: float = 1.0, seed: Optional[int] = None,
                 num_workers: int = 1, copy: bool = True, final_observations: bool = False,
                 summaries: bool = True, **rule_overrides: Any) -> None:
        num_envs = checked_int("num_envs", num_envs, 1, MAX_ENVS)
        finals = checked_flag("final_observations", final_observations)
        summaries = checked_flag("summaries", summaries)
        spec = self._spec = EpisodeSpec.build(ruleset, episode, reward_mode, reward_scale, **rule_overrides)
        num_workers = checked_int("num_workers (1..num_envs)", num_workers, 1, num_envs)
        self.num_envs, self.num_workers, self.copy = num_envs, num_workers, checked_flag("copy", copy)
        seed = checked_seed(seed)
        self.ruleset, self.episode = spec.ruleset, spec.episode
        self.reward_mode, self.reward_scale = spec.reward_mode, spec.reward_scale
        self._memory: list[shared_memory.SharedMemory] = []
        self._buffers = {name: self._allocate(name, shape, dtype) for name, (shape, dtype) in BUFFERS.items()}
        self._started = False
        self._batch: Optional[GameBatch] = None
        self._pipes: list[Any] = []
        self._processes: list[Any] = []
        splits = np.linspace(0, num_envs, num_workers + 1).astype(int)
        if num_workers == 1:
            self._batch = GameBatch(0, num_envs, num_envs, spec, self._buffers, finals, summaries)
            self._batch.seed(seed)
            return
        context = mp.get_context("spawn")
        names = {name: (mem.name, BUFFERS[name]) for name, mem in zip(BUFFERS, self._memory)}
        for first, stop in zip(splits[:-1], splits[1:]):
            parent, child = context.Pipe()
            process = context.Process(target=_worker, daemon=True,
                                      args=(child, int(first), int(stop - first), num_envs, spec, names, finals,
                                            summaries))
            process.start()
            self._pipes.append(parent)
            self._processes.append(process)
        self._call("seed", seed)

    def _allocate(self, name: str, shape: tuple, dtype: Any) -> np.ndarray:
        full = (self.num_envs, *shape)
        if self.num_workers == 1:
            return np.zeros(full, dtype=dtype)
        memory = shared_memory.SharedMemory(create=True, size=max(1, int(np.prod(full)) * np.dtype(dtype).itemsize))
        self._memory.append(memory)
        return np.ndarray(full, dtype=dtype, buffer=memory.buf)

    def _call(self, command: str, argument: Any = None) -> dict[int, dict]:
        for pipe in self._pipes:
            pipe.send((command, argument))
        infos: dict[int, dict] = {}
        failure: Optional[Exception] = None
        for pipe in self._pipes:
            status, payload = pipe.recv()
            if status == "error":
                failure = payload
            else:
                infos.update(payload or {})
        if failure is not None:
            raise failure
        return infos

    def _outputs(self, *names: str) -> tuple[np.ndarray, ...]:
        return tuple(self._buffers[n].copy() if self.copy else self._buffers[n] for n in names)

    def reset(self, seed: Optional[int] = None) -> tuple[np.ndarray, ...]:
        """Start every game afresh; returns ``(obs, masks, to_act)``."""
        seed = checked_seed(seed)
        if self._batch is not None:
            self._batch.reset(seed)
        else:
            self._call("reset", seed)
        self._started = True
        return self._outputs("obs", "masks", "to_act")

    def step(self, actions: Sequence[int], active: Optional[Sequence[bool]] = None) -> tuple[Any, ...]:
        """Apply one action per game (for its seat to act); see the class docstring.

        ``active``: bool[N], the games that move (default all); the others stay exactly as
        they are (their action is ignored, their reward is 0, their outputs repeat).

        >>> venv = BatchedGinEnv(2, seed=0)
        >>> obs, masks, to_act = venv.reset()
        >>> after = venv.step([1, 0], active=[True, False])
        >>> bool((after[0][0] != obs[0]).any()), bool((after[0][1] == obs[1]).all())
        (True, True)
        """
        if not self._started:
            raise RuntimeError("call reset() first")
        actions = checked_actions(actions, self.num_envs)
        moving = np.ones(self.num_envs, dtype=bool) if active is None else np.asarray(active)
        if moving.dtype != np.bool_ or moving.shape != (self.num_envs,):
            raise ValueError(f"active must be a bool array of shape ({self.num_envs},), got {moving.dtype} "
                             f"{moving.shape}")
        legal = legal_moves(actions, self._buffers["masks"]) | ~moving
        if not legal.all():  # checked for every game before any game changes
            bad = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(f"game {bad}: illegal action {actions[bad]!r} (legal: "
                                     f"{np.flatnonzero(self._buffers['masks'][bad]).tolist()}); no game was stepped")
        self._buffers["actions"][:] = np.where(moving, actions, 0)
        self._buffers["active"][:] = moving
        found = self._batch.step() if self._batch is not None else self._call("step")
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for i, info in found.items():
            infos[i] = info
        return (*self._outputs("obs", "masks", "to_act", "rewards", "terminated", "truncated"), infos)

    def privileged(self) -> np.ndarray:
        """float32 ``[N, PRIVILEGED_SIZE]``: for the seat to act in each game, what it cannot see
        (the opponent's hand and the stock order, :mod:`ginenv.game.privileged`), as the game
        stands after the last ``reset``/``step``.  For a training-time critic only: never an
        input of a policy.

        >>> venv = BatchedGinEnv(2, seed=0)
        >>> _ = venv.reset()
        >>> venv.privileged().shape, venv.privileged()[:, :52].sum(axis=1).tolist()
        ((2, 107), [10.0, 10.0])
        """
        if not self._started:
            raise RuntimeError("call reset() first")
        if self._batch is not None:
            self._batch.write_privileged()
        else:
            self._call("privileged")
        return self._outputs("privileged")[0]

    def afterstates(self, games: Sequence[int], actions: Sequence[int]) -> dict[str, np.ndarray]:
        """What would follow if the seat to act in game ``games[k]`` played ``actions[k]``, for every
        ``k``, each played in a copy: the games themselves do not change (a look-ahead for a trainer
        that values every legal action, e.g. each discard).  Hand episodes only (a hand's end in a
        game to a target would also need the game's bonuses).  Returns arrays with one row per pair:

        * ``ended`` (bool): the action ended the hand (a knock, gin, or a dead or truncated hand);
          ``rewards`` (float32 ``[K, 2]``, by seat) are then the rewards :meth:`step` would give;
        * otherwise ``to_act`` is the seat to act next, ``obs`` and ``masks`` its observation and legal
          actions, and ``privileged`` what it cannot see (as :meth:`privileged`: for a training-time
          critic only, never an input of a policy); these rows are zero (``to_act`` -1) where the hand ended.

        An action that is not legal in its game raises :class:`~ginenv.game.actions.IllegalActionError`.

        >>> venv = BatchedGinEnv(2, seed=0)
        >>> obs, masks, _ = venv.reset()
        >>> after = venv.afterstates([0, 0, 1], [2, 1, 2])  # game 0: pass or take the upcard; game 1: pass
        >>> after["to_act"].tolist(), after["ended"].tolist(), bool((venv.step([2, 2])[0][0] == after["obs"][0]).all())
        ([1, 0, 1], [False, False, False], True)
        """
        if not self._started:
            raise RuntimeError("call reset() first")
        if self.episode != "hand":
            raise ValueError(f"afterstates needs hand episodes, this env plays episode={self.episode!r}")
        games = np.asarray(games)
        if games.ndim != 1 or not (np.issubdtype(games.dtype, np.integer) or games.size == 0):
            raise TypeError(f"games must be a 1-d sequence of game indices, got {games.dtype} {games.shape}")
        if games.size and not (0 <= games.min() and games.max() < self.num_envs):
            raise ValueError(f"games must be indices 0..{self.num_envs - 1}, got {games.min()}..{games.max()}")
        games = games.astype(np.int64)
        actions = checked_actions(np.asarray(actions, dtype=np.int64 if games.size == 0 else None), games.size)
        legal = legal_moves(actions, self._buffers["masks"][games])
        if not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(f"pair {bad}: action {actions[bad]} is not legal in game {games[bad]} (legal: "
                                     f"{np.flatnonzero(self._buffers['masks'][games[bad]]).tolist()})")
        parts = (self._batch.afterstates((games, actions)) if self._batch is not None
                 else self._call("afterstates", (games, actions)))
        out = {name: np.zeros((games.size, *array.shape[1:]), dtype=array.dtype)
               for name, array in next(iter(parts.values())).items() if name != "index"}
        out["to_act"][:] = -1
        for part in parts.values():
            for name, rows in out.items():
                rows[part["index"]] = part[name]
        return out

    def restart(self, games: Sequence[int]) -> tuple[np.ndarray, ...]:
        """Start a new episode at once in each game of ``games`` (indices ``0..num_envs-1``),
        dealt by that game's generator, e.g. for a game its player abandoned; the other games
        stay as they are.  Returns ``(obs, masks, to_act)`` as :meth:`reset` does.

        >>> venv = BatchedGinEnv(2, seed=0)
        >>> _ = venv.reset()
        >>> _ = venv.step([1, 1])
        >>> obs, masks, to_act = venv.restart([1])
        >>> int(masks[0].sum()), int(masks[1].sum())  # game 1 is back at the upcard: take or pass
        (10, 2)
        """
        if not self._started:
            raise RuntimeError("call reset() first")
        games = [checked_int("games[i] (a game index)", game, 0, self.num_envs - 1) for game in games]
        if self._batch is not None:
            self._batch.restart(games)
        else:
            self._call("restart", games)
        return self._outputs("obs", "masks", "to_act")

    def _settings(self) -> dict[str, Any]:
        return {"num_envs": self.num_envs, **self._spec.settings()}

    def get_state(self) -> dict[str, Any]:
        """Every game's exact state as plain data: dicts, lists, ints, floats, strs, bools and
        None (no numpy arrays, which ``torch.load(..., weights_only=True)`` refuses).

        ``{"settings": {"num_envs", "episode", "reward_mode", "reward_scale", "ruleset.<field>"...},
        "games": [per game {"rng": bit_generator.state, "episode": hand or game state}]}``;
        :meth:`set_state` restores it.
        """
        if not self._started:
            raise RuntimeError("call reset() first")
        found = self._batch.get_state() if self._batch is not None else self._call("get_state")
        return {"settings": self._settings(), "games": [found[i] for i in range(self.num_envs)]}

    def set_state(self, state: dict[str, Any]) -> tuple[np.ndarray, ...]:
        """Restore a :meth:`get_state` value saved from an env built with the same arguments (else
        a ``ValueError`` naming the first setting that differs); returns ``(obs, masks, to_act)``
        as :meth:`reset` does.  Every later :meth:`step` then gives the original's outputs.

        >>> venv, other = BatchedGinEnv(2, seed=0), BatchedGinEnv(2, seed=1)
        >>> _ = venv.reset()
        >>> _ = other.set_state(venv.get_state())
        >>> first, second = venv.step([1, 2]), other.step([1, 2])
        >>> all(np.array_equal(a, b) for a, b in zip(first[:6], second[:6]))
        True
        >>> BatchedGinEnv(3).set_state(venv.get_state())
        Traceback (most recent call last):
        ...
        ValueError: the state was saved with num_envs=2; this BatchedGinEnv has num_envs=3
        """
        _check_settings(state, self._settings())
        if self._batch is not None:
            self._batch.set_state(state["games"])
        else:
            self._call("set_state", state["games"])
        self._started = True
        return self._outputs("obs", "masks", "to_act")

    def close(self) -> None:
        """Stop the workers and free shared memory (no-op with one process)."""
        for pipe in self._pipes:
            try:
                pipe.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for process in self._processes:
            process.join(timeout=5)
        self._pipes, self._processes = [], []
        for memory in self._memory:
            memory.close()
            memory.unlink()
        self._memory = []

    def __enter__(self) -> "BatchedGinEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_memory", None):
            self.close()


def checked_actions(actions: Any, num_envs: int) -> np.ndarray:
    """``actions`` as an integer array of shape ``(num_envs,)``: else a ``TypeError`` (not
    integers) or ``ValueError`` (another shape).  Their legality is :func:`legal_moves`'s.

    >>> checked_actions([1.0, 2.0], 2)
    Traceback (most recent call last):
    ...
    TypeError: actions must be integer action ids (0..107), got an array of dtype float64
    """
    actions = np.asarray(actions)
    if not np.issubdtype(actions.dtype, np.integer):
        raise TypeError(f"actions must be integer action ids (0..{NUM_ACTIONS - 1}), got an array of "
                        f"dtype {actions.dtype}")
    if actions.shape != (num_envs,):
        raise ValueError(f"actions must have shape ({num_envs},), got {actions.shape}")
    return actions


def legal_moves(actions: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """bool[N]: whether ``actions[i]`` is an action id that ``masks[i]`` allows.

    >>> legal_moves(np.array([1, 500]), np.ones((2, NUM_ACTIONS), dtype=np.int8)).tolist()
    [True, False]
    """
    in_range = (actions >= 0) & (actions < NUM_ACTIONS)
    return in_range & (masks[np.arange(len(masks)), np.where(in_range, actions, 0)] == 1)


def _check_settings(state: Any, mine: dict[str, Any]) -> None:
    """A ``ValueError`` unless ``state`` is a :meth:`BatchedGinEnv.get_state` value saved with
    the settings ``mine``; it names the first setting that differs."""
    if not isinstance(state, dict) or not isinstance(state.get("settings"), dict) or "games" not in state:
        raise ValueError("not a BatchedGinEnv state: expected a dict with 'settings' and 'games' (from get_state())")
    saved = state["settings"]
    for name in [*mine, *(name for name in saved if name not in mine)]:
        if name not in saved or name not in mine or saved[name] != mine[name]:
            theirs = f"{name}={saved[name]!r}" if name in saved else f"no {name}"
            ours = f"{name}={mine[name]!r}" if name in mine else f"no {name}"
            raise ValueError(f"the state was saved with {theirs}; this BatchedGinEnv has {ours}")
    if not isinstance(state["games"], list) or len(state["games"]) != mine["num_envs"]:
        raise ValueError(f"the state's 'games' must be a list of {mine['num_envs']} game states")


def _worker(pipe: Any, first: int, count: int, total: int, spec: EpisodeSpec, names: dict, finals: bool,
            summaries: bool) -> None:
    """Worker process: runs its slice of games' :class:`GameBatch` methods on commands from the pipe."""
    memories = {name: shared_memory.SharedMemory(name=mem_name) for name, (mem_name, _) in names.items()}
    buffers = {name: np.ndarray((total, *shape), dtype=dtype, buffer=memories[name].buf)
               for name, (_, (shape, dtype)) in names.items()}
    batch = GameBatch(first, count, total, spec, buffers, finals, summaries)
    commands = {"seed": batch.seed, "reset": batch.reset, "set_state": batch.set_state, "restart": batch.restart,
                "step": lambda _, games=batch: games.step(), "get_state": lambda _, games=batch: games.get_state(),
                "privileged": lambda _, games=batch: games.write_privileged(), "afterstates": batch.afterstates}
    try:
        while True:
            command, argument = pipe.recv()
            if command == "close":
                break
            try:
                pipe.send(("ok", commands[command](argument)))
            except Exception as err:  # reported to the main process, which raises it there
                pipe.send(("error", err))
    finally:
        del commands, batch, buffers  # no view of the shared memory may outlive it
        for memory in memories.values():
            memory.close()
