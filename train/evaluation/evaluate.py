"""Head-to-head evaluation of two agents in mirrored pairs.

Pair ``i`` plays the same deal stream twice — the env is reset with the same seed,
derived from ``(seed, i)`` — with the seats swapped: agent A sits in seat 0 in the first
game and in seat 1 in the second.  Luck of the deal thus cancels within a pair.

* Agents are built from their spec strings (``"name:key=value"``, see
  :func:`agents.make_agent`) inside the process that plays, one fresh agent per game,
  seeded from ``(seed, pair, side)`` (side = A or B); they only ever see the observation dicts
  ``env.last()`` would give, and ``reset()`` is called at the start of every hand.  The games are
  played on the engine itself, many in lockstep (:mod:`train.evaluation.lockstep`: the AEC env's
  games for the same seed, without its per-step bookkeeping), or through the AEC env when an env
  option changes how a game runs.  Worker processes
  build agents by name, so an agent must be registered when :mod:`agents` is imported
  (``workers=1`` plays in this process and also sees agents registered at run time).
* Work is split by pair index across ``workers`` processes (:func:`worker_context`), or with
  ``backend="ray"`` across Ray tasks on a cluster (:func:`train.cluster.ray_map`); every
  pair depends only on ``(seed, pair)``, so the results are identical for any worker count
  and either backend (only the timing fields differ).
* Statistics (:mod:`train.evaluation.stats`): the win rate of A (a draw — a dead hand in
  ``episode="hand"`` — counts 1/2) with a pair-cluster interval (Student t on the pair
  means, Wilson when degenerate); an exact two-sided sign test over the pairs one side won
  in both seats; per-hand figures from the ``hand_result`` infos.

>>> result = evaluate("random", "random", games=4, episode="hand", seed=1, workers=1)
>>> result.games, result.wins_a + result.wins_b + result.draws
(4, 4)
"""
from __future__ import annotations

import math
import multiprocessing
import os
import signal
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Generator, Iterable, Mapping, NamedTuple, Optional, Sequence, Union

import numpy as np
from tqdm import tqdm

import ginenv
from agents import Agent, make_agent
from ginenv.envs.aec import AGENTS, EPISODES
from ginenv.envs.episode import EpisodeSpec
from ginenv.game.checks import MAX_SEED, checked_float, checked_int
from ginenv.game.hand import HandState
from ginenv.seeding import derive_seed
from train.cluster import cluster_cpus, import_ray, ray_map
from train.evaluation.lockstep import batch_key, count_episode_end, count_hand, play_lockstep
from train.evaluation.stats import pair_cluster_interval, sign_test
from train.play.replay import game_record, write_records

AgentSpec = Union[str, Mapping[str, Any]]
OUTCOMES = ("knock", "gin", "big_gin", "undercut", "dead")
TIMING_FIELDS = ("elapsed_s", "decisions_per_s", "decisions_per_worker_s", "act_ms_a", "act_ms_b", "workers")
BACKENDS = ("local", "ray")
"""Where the pairs are played: local processes, or Ray tasks (``pip install -e '.[ray]'``)."""
MAX_PAIRS = 5_000_000
"""Most mirrored pairs per pairing (so ``games`` is at most ``2 * MAX_PAIRS``): bounds the task list."""
CHUNK_PAIRS = 125
"""Most mirrored pairs a worker has in play at once (their neural decisions go in batches of up to twice
as many rows: a forward pass costs least per row at some 100-250 rows on the CPU); as a game ends the
next of its task starts, so the batches stay full until the task's last games."""
MAX_TASK_PAIRS = 1000
"""Most pairs in one task (the unit of work a worker takes, and of the progress bar)."""
MAX_WORKERS = 4096
"""Most processes (or Ray task slots) asked for."""
MAX_CONFIDENCE = 0.999999
"""Highest interval level (``confidence`` is in ``(0, MAX_CONFIDENCE]``; 1 has no finite interval)."""


def spec_label(spec: AgentSpec) -> str:
    """The text form of an agent spec (a mapping becomes ``name:key=value,...``)."""
    if isinstance(spec, str):
        return spec
    params = {k: v for k, v in spec.items() if k != "name"}
    return str(spec.get("name")) + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")


@dataclass(frozen=True)
class MatchPlan:
    """Everything that decides the games of one pairing (picklable, sent to workers)."""

    agent_a: AgentSpec
    agent_b: AgentSpec
    ruleset: str = "pagat"
    episode: str = "game"
    seed: int = 0
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    record: bool = False
    """Keep every game as a replay record (:func:`train.play.replay.game_record`)."""

    def env_seed(self, pair: int) -> int:
        """The env seed of pair ``pair`` (both of its games)."""
        return derive_seed(self.seed, pair, 0)

    def agent_seed(self, pair: int, side: int) -> int:
        """The seed of agent A (``side`` 0) or B (``side`` 1) in both games of pair ``pair``.

        Seeded by side, not by seat: with seat seeds two copies of one stochastic agent would
        replay the very same game in both seats, and every such pair would be a 1-1 tie.
        """
        return derive_seed(self.seed, pair, 1 + side)

    def make_env(self) -> Any:
        return ginenv.env(ruleset=self.ruleset, episode=self.episode, **dict(self.env_kwargs))

    def engine_spec(self) -> Optional[EpisodeSpec]:
        """The episode settings when this plan's games are played on the engine itself
        (:func:`~train.evaluation.lockstep.play_lockstep`); None when an env option changes how a
        game runs (``max_cycles``, ``render_mode``): then they are played through the AEC env."""
        raw = self.make_env().unwrapped
        return raw.episode_spec if raw.max_cycles is None and raw.render_mode is None else None


@dataclass
class PairRecord:
    """What one mirrored pair produced, from A's side; ``counts`` are integers."""

    pair: int
    scores_a: tuple[float, float]  # A's result in game 0 (A in seat 0) and game 1 (A in seat 1)
    counts: Counter
    act_seconds: tuple[float, float]  # time spent in A's / B's act()
    play_seconds: float = 0.0  # wall time of the pair in its worker
    games: list[dict[str, Any]] = field(default_factory=list)  # replay records, when the plan records


Request = tuple[int, dict]
"""What :func:`episode_steps` yields: the seat to act and its observation dict."""


class AECTable:
    """Episodes played through a PettingZoo AEC env (for instance one with a tool's wrapper around it)."""

    def __init__(self, env: Any) -> None:
        self.env, self.ruleset, self.episode = env, env.unwrapped.ruleset, env.unwrapped.episode

    def reset(self, seed: int) -> None:
        self.env.reset(seed=seed)

    @property
    def hand(self) -> HandState:
        return self.env.unwrapped.hand

    def next_decision(self) -> Optional[Request]:
        observation, _, terminated, truncated, _ = self.env.last()
        return None if terminated or truncated else (AGENTS.index(self.env.agent_selection), observation)

    def step(self, action: int) -> Optional[dict[str, Any]]:
        agent = self.env.agent_selection
        self.env.step(action)
        info = self.env.infos[agent]
        return info if "hand_result" in info else None


def episode_steps(table: AECTable, players: Sequence[Agent], seed: int, counts: Counter, act_seconds: list[float],
                  hands: Optional[list[tuple[dict, dict]]] = None) -> Generator[Request, int, Optional[int]]:
    """One episode as a generator: like :func:`play_episode`, but a player with a :func:`batch_key`
    does not act itself: the generator yields ``(seat, observation)`` and is sent the action (whoever
    drives it adds the time spent to ``act_seconds``), so many episodes can batch their decisions."""
    table.reset(seed)
    batched = [batch_key(player) is not None for player in players]
    new_hand, hand_decisions, info = True, 0, None
    decisions = [0, 0]
    while (decision := table.next_decision()) is not None:
        seat, observation = decision
        if new_hand:
            for player in players:
                player.reset()
            new_hand = False
        hand = table.hand if hands is not None else None  # its log is kept when recording
        if batched[seat]:
            action = yield seat, observation
        else:
            start = time.perf_counter()
            action = players[seat].act(observation)
            act_seconds[seat] += time.perf_counter() - start
        try:
            info = table.step(action)
        except ginenv.IllegalActionError as err:
            raise RuntimeError(f"agent {players[seat].name!r} in seat {seat} chose an illegal action: {err}") from err
        hand_decisions += 1
        decisions[seat] += 1
        if info is None:
            continue
        count_hand(info["hand_result"], hand_decisions, counts)
        if hands is not None:
            hands.append((hand.log(), info["hand_result"]))  # type: ignore[union-attr]
        new_hand, hand_decisions = True, 0
    for seat in (0, 1):
        counts[f"decisions_{seat}"] += decisions[seat]
    return None if info is None else count_episode_end(info, table.episode, counts)


def play_episode(env: Any, players: Sequence[Agent], seed: int, counts: Counter,
                 act_seconds: list[float], hands: Optional[list[tuple[dict, dict]]] = None) -> Optional[int]:
    """Play one episode of the AEC env ``env`` (reset with ``seed``) with ``players[seat]`` in each seat.

    Calls every player's ``reset()`` at the start of each hand; hand statistics go into
    ``counts`` (keys suffixed ``_0``/``_1`` are per seat) and the time spent in each seat's
    ``act()`` into ``act_seconds``; ``hands``, when given, gets each finished hand's event
    log and ``hand_result``.  Returns the winning seat, or None for a dead hand in
    ``episode="hand"``.
    """
    return drive([episode_steps(AECTable(env), players, seed, counts, act_seconds, hands)], [players], [act_seconds])[0]


def drive(episodes: Sequence[Generator[Request, int, Optional[int]]], players: Sequence[Sequence[Agent]],
          act_seconds: Sequence[list[float]], in_play: Optional[int] = None) -> list[Optional[int]]:
    """Run :func:`episode_steps` generators side by side to their ends; returns their winners.  At
    each round the pending decisions of players with the same :func:`batch_key` are taken in one
    ``act_batch`` call (its time shared out evenly among them).  ``in_play``: at most that many
    episodes at once (None: all), the next one starting, in order, as soon as one ends."""
    winners: list[Optional[int]] = [None] * len(episodes)
    keys = [[batch_key(player) for player in line_up] for line_up in players]
    pending: dict[int, Request] = {}
    waiting = iter(range(len(episodes)))
    limit = len(episodes) if in_play is None else checked_int("in_play", in_play, 1, None)

    def advance(index: int, action: Optional[int]) -> None:
        try:
            pending[index] = next(episodes[index]) if action is None else episodes[index].send(action)
        except StopIteration as stop:
            winners[index] = stop.value

    while True:
        while len(pending) < limit and (index := next(waiting, None)) is not None:
            advance(index, None)
        if not pending:
            break
        groups: dict[Any, list[int]] = {}
        for index, (seat, _) in pending.items():
            groups.setdefault(keys[index][seat], []).append(index)
        requests, pending = pending, {}
        for indices in groups.values():
            first_seat = requests[indices[0]][0]
            rows = [requests[i][1] for i in indices]
            start = time.perf_counter()
            actions = players[indices[0]][first_seat].act_batch(np.stack([r["observation"] for r in rows]),
                                                                 np.stack([r["action_mask"] for r in rows]))
            share = (time.perf_counter() - start) / len(indices)
            for index, action in zip(indices, actions.tolist()):
                act_seconds[index][requests[index][0]] += share
                advance(index, action)
    return winners


def play_pair(plan: MatchPlan, pair: int, env: Any = None) -> PairRecord:
    """Play mirrored pair ``pair`` of ``plan``: the same env seed twice, seats swapped."""
    return play_pairs(plan, range(pair, pair + 1), [env] if env is not None else None)[0]


def play_pairs(plan: MatchPlan, pairs: Sequence[int], envs: Optional[Sequence[Any]] = None) -> list[PairRecord]:
    """Play the mirrored pairs ``pairs`` of ``plan`` side by side, at most ``2 * CHUNK_PAIRS`` games at
    once (their decisions batched where they can be): on the engine in lockstep
    (:func:`~train.evaluation.lockstep.play_lockstep`), or through AEC envs (:func:`drive`) where
    :meth:`MatchPlan.engine_spec` says so or ``envs`` are given; the records are those of each pair
    played alone.  ``envs``: one env per game to reuse (``2 * len(pairs)``, or one when a single pair
    plays its games in turn)."""
    specs = (plan.agent_a, plan.agent_b)
    started = time.perf_counter()
    seated = [(pair, game) for pair in pairs for game in (0, 1)]  # game g: A in seat g
    line_ups = [[make_agent(specs[side], seed=plan.agent_seed(pair, side))
                 for side in ((0, 1) if game == 0 else (1, 0))] for pair, game in seated]
    counts = [Counter() for _ in seated]
    act_seconds = [[0.0, 0.0] for _ in seated]
    hands: list[Optional[list[tuple[dict, dict]]]] = [[] if plan.record else None for _ in seated]
    seeds = [plan.env_seed(pair) for pair, _ in seated]
    spec = plan.engine_spec() if envs is None else None
    if spec is not None:
        ruleset = spec.ruleset
        winners = play_lockstep(spec, seeds, line_ups, counts, act_seconds, hands, 2 * CHUNK_PAIRS)
    else:
        tables = [AECTable(env) for env in envs] if envs is not None else [AECTable(plan.make_env()) for _ in seated]
        ruleset = tables[0].ruleset
        if len(tables) == 1:  # one env: the games one after the other
            winners = [drive([episode_steps(tables[0], line_ups[g], seeds[g], counts[g], act_seconds[g], hands[g])],
                             [line_ups[g]], [act_seconds[g]])[0] for g in range(len(seated))]
        else:
            winners = drive([episode_steps(tables[g], line_ups[g], seeds[g], counts[g], act_seconds[g], hands[g])
                             for g in range(len(seated))], line_ups, act_seconds, 2 * CHUNK_PAIRS)
    elapsed = (time.perf_counter() - started) / max(1, len(pairs))
    records = []
    for k, pair in enumerate(pairs):
        totals: Counter = Counter()
        scores: list[float] = []
        act_ab = [0.0, 0.0]
        games: list[dict[str, Any]] = []
        for game in (0, 1):
            g = 2 * k + game
            sides = (0, 1) if game == 0 else (1, 0)
            if hands[g] is not None:
                games.append(game_record([spec_label(specs[side]) for side in sides], ruleset,
                                         plan.episode, [log for log, _ in hands[g]], [r for _, r in hands[g]]))
            scores.append(0.5 if winners[g] is None else float(winners[g] == game))
            for key, value in counts[g].items():  # per-seat keys (suffix _0/_1) become A/B keys (_a/_b)
                stem, _, suffix = key.rpartition("_")
                if key == "margin_0":  # seat 0's final score minus seat 1's
                    totals["margin_a"] += value if game == 0 else -value
                elif stem and suffix in ("0", "1"):
                    totals[f"{stem}_{'a' if int(suffix) == game else 'b'}"] += value
                else:
                    totals[key] += value
            act_ab[0] += act_seconds[g][game]
            act_ab[1] += act_seconds[g][1 - game]
        records.append(PairRecord(pair, (scores[0], scores[1]), totals, (act_ab[0], act_ab[1]), elapsed, games))
    return records


WORKER_PRELOAD = ("train.evaluation.evaluate", "agents.neural.policy")
"""What the fork server imports once for all the evaluation's worker processes (torch among it)."""


def worker_context() -> Any:
    """How worker processes start: ``forkserver`` where the platform has it (one server process
    imports :data:`WORKER_PRELOAD` once, each worker is a fork of it: about a second sooner than a
    fresh interpreter, measured with two workers), else ``spawn``.  Never a plain ``fork`` of this
    process, whose torch threads may already run."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(WORKER_PRELOAD))
    return context


def start_worker_server() -> None:
    """Start :func:`worker_context`'s fork server now, where there is one (it is otherwise started by
    the first pool): its imports then overlap this process's own."""
    if worker_context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def stop_worker_server() -> None:
    """End the fork server this process started (:func:`start_worker_server`, or a pool), if one
    runs, at once: a signal instead of its normal exit, whose tear-down of torch's objects takes
    about 0.35 s that anyone reading the command's output through a pipe would wait for.  Call it
    when no pool is in use; a later pool starts a new server."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    pid = getattr(server, "_forkserver_pid", None)
    if pid is None or not callable(getattr(server, "_stop", None)):
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # pragma: no cover - it ended on its own
        pass
    server._stop()  # type: ignore[union-attr]  # reaps it and forgets it


def task_pairs(pairs: int, workers: int) -> int:
    """Pairs per task when ``pairs`` pairs are shared among ``workers``: about two tasks per worker
    (each task is played as one stream, :data:`CHUNK_PAIRS` pairs in play at a time, so its batches
    run thin only at its end), between :data:`CHUNK_PAIRS` and :data:`MAX_TASK_PAIRS`.

    >>> task_pairs(1000, 2), task_pairs(100, 2), task_pairs(10**6, 8)
    (250, 125, 1000)
    """
    return max(CHUNK_PAIRS, min(MAX_TASK_PAIRS, -(-pairs // (2 * workers))))


def _play_chunk(task: tuple[int, MatchPlan, int, int]) -> tuple[int, list[PairRecord]]:
    """Worker entry point: play pairs ``start .. stop - 1`` of one plan, side by side."""
    plan_index, plan, start, stop = task
    return plan_index, play_pairs(plan, range(start, stop))


def run_plans(plans: Sequence[MatchPlan], pairs: int, workers: int = 1, progress: bool = False,
              desc: str = "pairs", replays: Optional[str] = None, backend: str = "local") -> list[list[PairRecord]]:
    """Play ``pairs`` mirrored pairs of every plan; records per plan, in pair order.

    ``workers > 1`` spreads chunks of pair indices over a process pool (:func:`worker_context`);
    ``backend="ray"`` plays the chunks (sized for ``workers``) as Ray tasks instead.  The
    records do not depend on ``workers``, the chunking or the backend.  ``replays``: write every
    game to this JSON-lines file, plan after plan in pair order (:mod:`train.play.replay`).
    ``pairs``: ``1..MAX_PAIRS``; ``workers``: ``1..MAX_WORKERS``.
    """
    pairs = checked_int("pairs", pairs, 1, MAX_PAIRS)
    workers = checked_int("workers", workers, 1, MAX_WORKERS)
    if replays is not None:
        write_records(replays, [])  # an unwritable path fails now, not after the games
        plans = [replace(plan, record=True) for plan in plans]
    size = task_pairs(pairs, workers)
    tasks = [(p, plan, start, min(start + size, pairs))
             for p, plan in enumerate(plans) for start in range(0, pairs, size)]
    workers = max(1, min(workers, len(tasks)))  # a small evaluation starts no worker it cannot use
    records: list[list[PairRecord]] = [[] for _ in plans]
    with tqdm(total=len(plans) * pairs, desc=desc, unit="pair", disable=not progress, smoothing=0.1) as bar:
        def collect(done: Iterable[tuple[int, list[PairRecord]]]) -> None:
            for plan_index, chunk_records in done:
                records[plan_index].extend(chunk_records)
                bar.update(len(chunk_records))
        if backend == "ray":
            collect(ray_map(_play_chunk, tasks))
        elif workers == 1:
            collect(map(_play_chunk, tasks))
        else:
            with worker_context().Pool(workers) as pool:
                collect(pool.imap_unordered(_play_chunk, tasks))
    for plan_records in records:
        plan_records.sort(key=lambda r: r.pair)
    if replays is not None:
        write_records(replays, (game for plan_records in records for record in plan_records for game in record.games))
    return records


@dataclass
class EvalResult:
    """The summary of an evaluation of agent A against agent B (all rates are fractions)."""

    agent_a: str
    agent_b: str
    ruleset: str
    episode: str
    seed: int
    pairs: int
    games: int
    wins_a: int
    wins_b: int
    draws: int
    win_rate_a: float  # draws count 1/2
    ci_low: float
    ci_high: float
    ci_method: str  # "t" on pair means, or "wilson" when that is degenerate
    confidence: float
    decisive_pairs: int  # pairs that one side won in both seats
    pairs_won_a: int
    pairs_won_b: int
    sign_test_p: float
    pair_histogram: list[int]  # pairs with A's pair mean 0, 1/4, 1/2, 3/4, 1
    hands: int
    points_per_hand_a: float  # A's hand points minus B's, per hand
    mean_margin_a: Optional[float]  # game mode: A's final score minus B's, per game
    gin_rate: float  # gin or big gin, either side
    gin_rate_a: float
    gin_rate_b: float
    undercut_rate: float
    undercut_rate_a: float  # A undercut B
    undercut_rate_b: float
    dead_rate: float
    truncated_rate: float
    outcomes: dict[str, int]
    mean_hand_length: float  # decisions per hand, both seats together
    decisions: int
    elapsed_s: float
    decisions_per_s: float  # over the whole wall time, process start-up included
    decisions_per_worker_s: float  # per worker while playing
    act_ms_a: float
    act_ms_b: float
    workers: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def results_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` without the timing fields: equal for equal seeds on any worker count."""
        return {k: v for k, v in asdict(self).items() if k not in TIMING_FIELDS}


def summarize(plan: MatchPlan, records: Sequence[PairRecord], elapsed: float, workers: int,
              confidence: float = 0.95) -> EvalResult:
    """Aggregate the pair records of ``plan`` into an :class:`EvalResult` (``confidence``: the
    interval's level, in ``(0, MAX_CONFIDENCE]``)."""
    confidence = checked_float("confidence", confidence, 0.0, MAX_CONFIDENCE)
    counts: Counter = Counter()
    for record in records:
        counts.update(record.counts)
    game_scores = [s for record in records for s in record.scores_a]
    pair_means = [sum(record.scores_a) / 2 for record in records]
    interval = pair_cluster_interval(pair_means, confidence)
    won_a = sum(1 for m in pair_means if m == 1.0)
    won_b = sum(1 for m in pair_means if m == 0.0)
    hands = counts["hands"]
    decisions = counts["decisions_a"] + counts["decisions_b"]

    def rate(key: str) -> float:
        return counts[key] / hands if hands else 0.0
    return EvalResult(
        agent_a=spec_label(plan.agent_a), agent_b=spec_label(plan.agent_b), ruleset=plan.ruleset,
        episode=plan.episode, seed=plan.seed, pairs=len(records), games=len(game_scores),
        wins_a=game_scores.count(1.0), wins_b=game_scores.count(0.0), draws=game_scores.count(0.5),
        win_rate_a=interval.estimate, ci_low=interval.low, ci_high=interval.high, ci_method=interval.method,
        confidence=confidence, decisive_pairs=won_a + won_b, pairs_won_a=won_a, pairs_won_b=won_b,
        sign_test_p=sign_test(won_a, won_a + won_b),
        pair_histogram=[sum(1 for m in pair_means if m == q / 4) for q in range(5)],
        hands=hands, points_per_hand_a=(counts["points_a"] - counts["points_b"]) / hands if hands else 0.0,
        mean_margin_a=counts["margin_a"] / len(game_scores) if plan.episode == "game" and game_scores else None,
        gin_rate=(counts["gin_a"] + counts["gin_b"]) / hands if hands else 0.0,
        gin_rate_a=rate("gin_a"), gin_rate_b=rate("gin_b"),
        undercut_rate=rate("outcome_undercut"), undercut_rate_a=rate("undercut_a"), undercut_rate_b=rate("undercut_b"),
        dead_rate=rate("outcome_dead"), truncated_rate=rate("truncated"),
        outcomes={o: counts[f"outcome_{o}"] for o in OUTCOMES},
        mean_hand_length=counts["hand_decisions"] / hands if hands else 0.0, decisions=decisions,
        elapsed_s=elapsed, decisions_per_s=decisions / elapsed if elapsed > 0 else float("inf"),
        decisions_per_worker_s=decisions / max(1e-9, math.fsum(r.play_seconds for r in records)),
        act_ms_a=1000 * sum(r.act_seconds[0] for r in records) / max(1, counts["decisions_a"]),
        act_ms_b=1000 * sum(r.act_seconds[1] for r in records) / max(1, counts["decisions_b"]),
        workers=workers,
    )


def default_workers() -> int:
    """All the CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def resolve_workers(workers: Optional[int], backend: str) -> int:
    """``workers``, else all the CPU cores (at most :data:`MAX_WORKERS`): of this machine, or
    of the Ray cluster."""
    if workers:
        return workers
    if backend == "ray":
        return min(MAX_WORKERS, cluster_cpus())
    return min(MAX_WORKERS, default_workers())


class CheckedSettings(NamedTuple):
    """The numbers of :func:`check_settings`, checked, as plain Python numbers."""

    pairs: int
    seed: int
    workers: Optional[int]
    confidence: float


def check_settings(agents: Sequence[AgentSpec], games: int, ruleset: str, episode: str, seed: int,
                   workers: Optional[int], env_kwargs: Optional[Mapping[str, Any]] = None,
                   backend: str = "local", confidence: float = 0.95) -> CheckedSettings:
    """Validate evaluation settings (raising ``ValueError`` naming the bad one, with its
    range); return the numbers (numpy scalars as Python ones) and the number of pairs.  Where
    local worker processes will play, their fork server starts before the agents are loaded
    (:func:`start_worker_server`)."""
    pairs = (checked_int("games", games, 1, 2 * MAX_PAIRS) + 1) // 2
    numbers = CheckedSettings(pairs, checked_int("seed", seed, 0, MAX_SEED),
                              None if workers is None else checked_int("workers", workers, 1, MAX_WORKERS),
                              checked_float("confidence", confidence, 0.0, MAX_CONFIDENCE))
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "ray":
        import_ray()  # not installed: a ValueError (and ImportError) saying how to install it
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    ginenv.env(ruleset=ruleset, episode=episode, **dict(env_kwargs or {}))  # unknown ruleset etc.
    if backend == "local" and pairs > CHUNK_PAIRS and resolve_workers(numbers.workers, backend) > 1:
        start_worker_server()  # it imports while this process loads the agents below
    for spec in agents:
        make_agent(spec, seed=0)  # unknown agent or bad parameters: make_agent's ValueError
    return numbers


def evaluate(agent_a: AgentSpec, agent_b: AgentSpec, games: int, ruleset: str = "pagat", episode: str = "game",
             seed: int = 0, workers: Optional[int] = None, progress: bool = False,
             env_kwargs: Optional[Mapping[str, Any]] = None, confidence: float = 0.95,
             replays: Optional[str] = None, backend: str = "local") -> EvalResult:
    """Play ``games`` games (``ceil(games / 2)`` mirrored pairs) of A against B and summarize.

    Args:
        agent_a, agent_b: agent specs for :func:`agents.make_agent` (``"name:key=value"``).
        games: games to play (``1..2 * MAX_PAIRS``); an odd number is rounded up to whole pairs.
        ruleset: rules preset name; ``env_kwargs`` adds env options / rule overrides.
        episode: ``"game"`` (a game to the target) or ``"hand"`` (one hand; dead = draw).
        seed: the evaluation seed (an int ``0..2**128 - 1``); equal seeds give equal results
            for any ``workers``.
        workers: processes to use (``1..MAX_WORKERS``; default: all cores; with Ray, the cluster's).
        progress: show a tqdm progress bar over pairs.
        confidence: the level of A's win-rate interval, in ``(0, MAX_CONFIDENCE]``.
        replays: write every game to this JSON-lines file (see :func:`run_plans`).
        backend: ``"local"`` processes or ``"ray"`` tasks (the same results).
    """
    pairs, seed, workers, confidence = check_settings([agent_a, agent_b], games, ruleset, episode, seed, workers,
                                                      env_kwargs, backend, confidence)
    workers = resolve_workers(workers, backend)
    plan = MatchPlan(agent_a, agent_b, ruleset, episode, seed, dict(env_kwargs or {}))
    start = time.perf_counter()
    [records] = run_plans([plan], pairs, workers, progress, replays=replays, backend=backend)
    return summarize(plan, records, time.perf_counter() - start, workers, confidence)


def format_report(result: EvalResult) -> str:
    """A few lines of text describing an :class:`EvalResult`."""
    r = result
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    level = f"{100 * r.confidence:g}%"
    lines = [
        f"A = {r.agent_a}  vs  B = {r.agent_b}   ({r.ruleset}, episode={r.episode}, seed {r.seed}, "
        f"{r.games} games in {r.pairs} mirrored pairs, {r.workers} worker{'s' if r.workers > 1 else ''})",
        f"  games: A won {r.wins_a}, B won {r.wins_b}, drawn {r.draws}",
        f"  win rate of A: {pct(r.win_rate_a)}   {level} CI [{pct(r.ci_low)}, {pct(r.ci_high)}] "
        f"(pair-cluster, {'Student t on pair means' if r.ci_method == 't' else 'Wilson over pairs'})",
        f"  sign test: of {r.decisive_pairs} pairs won in both seats, A took {r.pairs_won_a} and B "
        f"{r.pairs_won_b}; two-sided p = {r.sign_test_p:.4g}",
        f"  hands: {r.hands}; points per hand (A - B): {r.points_per_hand_a:+.2f}"
        + (f"; final score margin per game (A - B): {r.mean_margin_a:+.1f}" if r.mean_margin_a is not None else ""),
        f"  gin {pct(r.gin_rate)} (A {pct(r.gin_rate_a)}, B {pct(r.gin_rate_b)}), undercut {pct(r.undercut_rate)} "
        f"(A {pct(r.undercut_rate_a)}, B {pct(r.undercut_rate_b)}), dead {pct(r.dead_rate)}"
        + (f" (truncated {pct(r.truncated_rate)})" if r.truncated_rate else ""),
        f"  mean hand length: {r.mean_hand_length:.1f} decisions; {r.decisions:,} decisions in {r.elapsed_s:.1f} s "
        f"= {r.decisions_per_s:,.0f} decisions/s ({r.decisions_per_worker_s:,.0f} per worker while playing; "
        f"act(): A {r.act_ms_a:.3f} ms, B {r.act_ms_b:.3f} ms per decision)",
    ]
    return "\n".join(lines)
