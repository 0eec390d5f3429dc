"""Many games played in lockstep on the compiled engine: what an evaluation's worker runs.

Each round, one compiled call encodes the position of every game in play (the seat to act, its
observation and action mask, :func:`ginenv.game.encoding.write_some`); every agent is asked for
the positions it must decide, all of one :func:`batch_key` in one ``act_batch`` call, the others
one ``act`` each; one compiled call applies all the actions (:func:`ginenv.game.core.apply_some`)
and Python only settles the hands that ended.  A game's deals, observations and results are those
of the AEC env reset with the game's seed (the same episode code, :mod:`ginenv.envs.episode`;
tested move for move), and every agent sees the observation dicts ``env.last()`` would give, with
``reset()`` called at the start of each hand.  As a game ends, the next one starts in its place.

>>> from collections import Counter
>>> from agents import make_agent
>>> from ginenv.envs.episode import EpisodeSpec
>>> spec = EpisodeSpec.build("pagat", episode="hand")
>>> line_ups = [[make_agent("greedy"), make_agent("random", seed=g)] for g in range(3)]
>>> winners = play_lockstep(spec, [11, 12, 13], line_ups, [Counter() for _ in range(3)],
...                         [[0.0, 0.0] for _ in range(3)], in_play=2)
>>> len(winners), set(winners) <= {0, 1, None}
(3, True)
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Any, Mapping, Optional, Sequence

import numpy as np
from gymnasium.utils import seeding

import ginenv
from agents import Agent
from ginenv.envs.aec import AGENTS
from ginenv.envs.episode import Episode, EpisodeSpec, HandEnd
from ginenv.game import core
from ginenv.game.actions import NUM_ACTIONS
from ginenv.game.cards import plain_int
from ginenv.game.checks import checked_int
from ginenv.game.encoding import OBSERVATION_SIZE, rules_vector, write_some

Hands = Optional[list[tuple[dict, dict]]]
"""A game's finished hands (event log, ``hand_result``) when it is recorded, else None."""


def batch_key(player: Agent) -> Optional[Any]:
    """A key shared by players that may decide many games' positions in one ``act_batch`` call with
    the same results as one at a time (a deterministic neural policy: its network), else None."""
    key = getattr(player, "batch_key", None)
    return key() if callable(key) else None


def count_hand(hand: Mapping[str, Any], decisions: int, counts: Counter) -> None:
    """Add a finished hand (its ``hand_result`` and its ``decisions``) to a game's ``counts``: keys
    suffixed ``_0``/``_1`` are per seat."""
    counts["hands"] += 1
    counts["hand_decisions"] += decisions
    outcome = hand["outcome"]
    counts[f"outcome_{outcome}"] += 1
    if hand.get("truncated"):
        counts["truncated"] += 1
    if hand["knocker"] is not None:
        counts[f"knock_{AGENTS.index(hand['knocker'])}"] += 1
    if hand["winner"] is not None:
        seat = AGENTS.index(hand["winner"])
        counts[f"points_{seat}"] += hand["points"]
        if outcome in ("gin", "big_gin", "undercut"):
            counts[f"{'undercut' if outcome == 'undercut' else 'gin'}_{seat}"] += 1


def count_episode_end(info: Mapping[str, Any], episode: str, counts: Counter) -> Optional[int]:
    """Add the end of an episode (the ``info`` of its last hand) to ``counts``; its winning seat
    (None: a dead or cut-off hand in ``episode="hand"``)."""
    if "game_result" in info:
        game = info["game_result"]
        final = game["final_scores"]
        counts["margin_0"] += final[0] - final[1]
        return AGENTS.index(game["winner"])
    hand_winner = info["hand_result"]["winner"] if episode == "hand" else None
    return None if hand_winner is None else AGENTS.index(hand_winner)


class _Games:
    """The games in play: row ``s`` of the arrays (a slot) holds game ``game[s]`` (-1: none), its
    hand's state, and the position of its seat to act as encoded last."""

    def __init__(self, spec: EpisodeSpec, slots: int, batched: np.ndarray) -> None:
        self.spec, self.batched = spec, batched
        self.rules = rules_vector(spec.ruleset)
        width = core.new_row(*core.capacities(spec.ruleset.max_turns_per_hand)).shape[0]
        self.rows = np.zeros((slots, width), dtype=np.int64)
        self.matches = np.zeros((slots, 5), dtype=np.int64)
        self.observations = np.zeros((slots, OBSERVATION_SIZE), dtype=np.float32)
        self.masks = np.zeros((slots, NUM_ACTIONS), dtype=np.int8)
        self.to_act = np.zeros(slots, dtype=np.int8)
        self.game = np.full(slots, -1, dtype=np.int64)
        self.episodes: list[Optional[Episode]] = [None] * slots
        self.new_hand = np.zeros(slots, dtype=bool)
        self.hand_decisions = np.zeros(slots, dtype=np.int64)
        self.decisions = np.zeros((slots, 2), dtype=np.int64)  # per seat, in the game so far

    def start(self, slot: int, game: int, seed: int) -> None:
        """Deal game ``game`` into ``slot`` as the AEC env's ``reset(seed=seed)`` does."""
        self.episodes[slot] = self.spec.start(seeding.np_random(seed)[0])
        self.place(slot)
        self.game[slot] = game
        self.decisions[slot] = 0

    def place(self, slot: int) -> None:
        """Keep the hand in play of ``slot``'s episode in its rows (again after a game's next hand starts)."""
        self.episodes[slot].move_to(self.rows[slot], self.matches[slot])  # type: ignore[union-attr]
        self.new_hand[slot], self.hand_decisions[slot] = True, 0

    def to_decide(self) -> np.ndarray:
        """The slots whose position is decided next: those waiting on a player who acts alone (they
        go first, so that the others gather), else every game in play (each player with a batch key
        then decides all of its positions at once)."""
        live = np.flatnonzero(self.game >= 0)
        alone = live[~self.batched[self.game[live], self.to_act[live]]]
        return alone if alone.size else live

    def apply(self, slots: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Apply ``actions`` to the hands of ``slots`` (one compiled call); which of them ended."""
        ended = np.zeros(slots.size, dtype=np.int64)
        core.apply_some(self.rows, slots, actions, self.spec.ruleset.max_turns_per_hand, ended)
        self.hand_decisions[slots] += 1
        self.decisions[slots, self.to_act[slots]] += 1
        return ended

    def encode(self, slots: np.ndarray) -> None:
        """Encode the seat to act of each game in ``slots`` (one compiled call)."""
        write_some(self.rows, self.matches, self.rules, self.spec.ruleset.big_gin, slots, self.observations,
                   self.masks, self.to_act)


def play_lockstep(spec: EpisodeSpec, seeds: Sequence[int], line_ups: Sequence[Sequence[Agent]],
                  counts: Sequence[Counter], act_seconds: Sequence[list[float]],
                  hands: Optional[Sequence[Hands]] = None, in_play: Optional[int] = None) -> list[Optional[int]]:
    """Play game ``g`` (reset with ``seeds[g]``, ``line_ups[g][seat]`` in each seat) for every ``g``,
    at most ``in_play`` at once (None: all), starting them in order; returns their winning seats
    (None: a dead hand in ``episode="hand"``).  Per game, hand statistics go into ``counts[g]`` (as
    :func:`count_hand` and :func:`count_episode_end`, plus ``decisions_0``/``decisions_1``), the time
    spent deciding into ``act_seconds[g][seat]`` (a batch's time shared out evenly) and, when
    ``hands`` is given, each finished hand's event log and ``hand_result`` into ``hands[g]``."""
    total = len(seeds)
    slots = min(total, total if in_play is None else checked_int("in_play", in_play, 1, None))
    keys = [[batch_key(player) for player in line_up] for line_up in line_ups]
    batched = np.array([[key is not None for key in pair] for pair in keys], dtype=bool).reshape(total, 2)
    games = _Games(spec, slots, batched)
    winners: list[Optional[int]] = [None] * total
    waiting = iter(range(total))
    for slot in range(slots):
        games.start(slot, g := next(waiting), seeds[g])
    games.encode(np.arange(slots))
    while (chosen := games.to_decide()).size:
        in_game, seats = games.game[chosen].tolist(), games.to_act[chosen].tolist()
        for k in np.flatnonzero(games.new_hand[chosen]).tolist():
            for player in line_ups[in_game[k]]:
                player.reset()
        games.new_hand[chosen] = False
        observations, masks = games.observations[chosen], games.masks[chosen]
        actions = _decide(observations, masks, in_game, seats, line_ups, keys, act_seconds)
        refused = (actions < 0) | (masks[np.arange(chosen.size), actions.clip(0)] == 0)
        for k in np.flatnonzero(refused).tolist():  # the first illegal one raises
            _illegal(games.episodes[chosen[k]], line_ups[in_game[k]][seats[k]], seats[k], int(actions[k]))
        ended = games.apply(chosen, actions)
        for k in np.flatnonzero(ended).tolist():
            slot, g = int(chosen[k]), in_game[k]
            episode: Episode = games.episodes[slot]  # type: ignore[assignment]
            hand = episode.hand
            end = episode.settle()
            info = end.info(AGENTS)
            count_hand(info["hand_result"], int(games.hand_decisions[slot]), counts[g])
            if hands is not None and hands[g] is not None:
                hands[g].append((hand.log(), info["hand_result"]))  # type: ignore[union-attr]
            _next(games, slot, end, info, winners, counts[g], seeds, waiting)
        games.encode(chosen[games.game[chosen] >= 0])
    return winners


def _decide(observations: np.ndarray, masks: np.ndarray, in_game: list[int], seats: list[int],
            line_ups: Sequence[Sequence[Agent]], keys: Sequence[Sequence[Any]],
            act_seconds: Sequence[list[float]]) -> np.ndarray:
    """Each row's action: one ``act_batch`` call per batch key, one ``act`` per other row."""
    actions = np.zeros(len(seats), dtype=np.int64)
    groups: dict[Any, list[int]] = {}
    for k, (g, seat) in enumerate(zip(in_game, seats)):
        key = keys[g][seat]
        if key is None:
            player = line_ups[g][seat]
            start = time.perf_counter()
            action = player.act({"observation": observations[k].copy(), "action_mask": masks[k].copy()})
            act_seconds[g][seat] += time.perf_counter() - start
            actions[k] = _action_id(action)
        else:
            groups.setdefault(key, []).append(k)
    for rows in groups.values():
        g, seat = in_game[rows[0]], seats[rows[0]]
        start = time.perf_counter()
        chosen = np.asarray(line_ups[g][seat].act_batch(observations[rows], masks[rows]))
        share = (time.perf_counter() - start) / len(rows)
        if chosen.dtype.kind in "iu":
            actions[rows] = np.where((chosen >= 0) & (chosen < NUM_ACTIONS), chosen, -1)
        else:
            actions[rows] = [_action_id(action) for action in chosen.tolist()]
        for k in rows:
            act_seconds[in_game[k]][seats[k]] += share
    return actions


def _action_id(action: Any) -> int:
    """An agent's action as an int, or -1 when it is no action id (then refused as illegal)."""
    action_id = plain_int(action)
    return action_id if action_id is not None and 0 <= action_id < NUM_ACTIONS else -1


def _illegal(episode: Optional[Episode], player: Agent, seat: int, action: int) -> None:
    """Refuse an illegal action: a ``RuntimeError`` naming the agent, with the engine's reason."""
    try:
        episode.hand.apply_action(action)  # type: ignore[union-attr]  # raises, changing nothing
    except ginenv.IllegalActionError as err:
        raise RuntimeError(f"agent {player.name!r} in seat {seat} chose an illegal action: {err}") from err
    raise AssertionError(f"action {action} was refused by the mask but is legal")  # pragma: no cover


def _next(games: _Games, slot: int, end: HandEnd, info: dict[str, Any], winners: list[Optional[int]],
          counts: Counter, seeds: Sequence[int], waiting: Any) -> None:
    """After a hand of ``slot`` ended: its game goes on with the next hand, or ends (its winner
    booked) and the next game waiting starts in the slot."""
    if not end.done:
        games.place(slot)
        return
    g = int(games.game[slot])
    winners[g] = count_episode_end(info, games.spec.episode, counts)
    for seat in (0, 1):
        counts[f"decisions_{seat}"] += int(games.decisions[slot, seat])
    following = next(waiting, None)
    if following is None:
        games.game[slot], games.episodes[slot] = -1, None
    else:
        games.start(slot, following, seeds[following])
