"""The evaluation harness: statistics against known values, mirrored play, determinism."""
from __future__ import annotations

import math
import multiprocessing
import os
from collections import Counter
from multiprocessing import forkserver

import numpy as np
import pytest

import ginenv
from agents import REGISTRY, RandomAgent
from ginenv.seeding import derive_seed
from train.evaluation.evaluate import (
    CHUNK_PAIRS,
    MatchPlan,
    drive,
    evaluate,
    format_report,
    play_episode,
    play_pair,
    play_pairs,
    start_worker_server,
    stop_worker_server,
    task_pairs,
    worker_context,
)
from train.evaluation.stats import pair_cluster_interval, sign_test, t_quantile, wilson_interval


# ----- sign test -------------------------------------------------------------------------
@pytest.mark.parametrize("k, n, expected", [
    (0, 10, 2 / 1024),                    # both tails of Binomial(10, 1/2) at the extremes
    (10, 10, 2 / 1024),
    (5, 20, 2 * 21700 / 2**20),           # 2 * P(X <= 5) = 0.0413894...
    (15, 20, 2 * 21700 / 2**20),
    (2, 12, 2 * (1 + 12 + 66) / 4096),    # 0.0385742...
    (1, 1, 1.0),
    (5, 10, 1.0),
    (0, 0, 1.0),                          # no decisive pair: no evidence
])
def test_sign_test_known_binomial_values(k, n, expected):
    assert sign_test(k, n) == pytest.approx(expected, rel=1e-12)


def test_sign_test_known_decimal_value_and_large_n():
    assert sign_test(5, 20) == pytest.approx(0.04138946533203125, rel=1e-12)
    assert sign_test(0, 1000) == 2.0**-999  # exact with big integers
    assert sign_test(0, 5000) == 0.0  # underflows quietly, no OverflowError
    assert sign_test(1000, 2000) == 1.0


@pytest.mark.parametrize("k, n", [(-1, 3), (4, 3), (1.0, 3)])
def test_sign_test_rejects_bad_counts(k, n):
    with pytest.raises(ValueError):
        sign_test(k, n)


# ----- t quantiles and intervals ---------------------------------------------------------
@pytest.mark.parametrize("df, expected", [  # two-sided 95% critical values of Student's t (tables)
    (1, 12.7062), (2, 4.3027), (3, 3.1824), (5, 2.5706), (10, 2.2281), (29, 2.0452), (120, 1.9799),
    (999, 1.9623), (5000, 1.9604),
])
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_t_quantile_other_levels():
    assert t_quantile(0.995, 7) == pytest.approx(3.4995, abs=1e-4)
    assert t_quantile(0.95, 20) == pytest.approx(1.7247, abs=1e-4)


def test_pair_cluster_interval_matches_hand_computation():
    pair_means = [1.0, 0.5, 0.5, 0.0, 0.75, 0.25]
    # mean 0.5; squared deviations .25 + 0 + 0 + .25 + .0625 + .0625 = .625; sample variance .125;
    # standard error sqrt(.125 / 6) = 0.1443376; t(0.975, 5) = 2.5705818; half width 0.3710316
    interval = pair_cluster_interval(pair_means)
    assert interval.method == "t"
    assert interval.estimate == 0.5
    assert interval.low == pytest.approx(0.5 - 0.3710316, abs=1e-6)
    assert interval.high == pytest.approx(0.5 + 0.3710316, abs=1e-6)


def test_pair_cluster_interval_is_clipped_and_falls_back_to_wilson():
    high = pair_cluster_interval([1.0] * 9 + [0.75])
    assert high.method == "t" and high.high == 1.0 and high.low < 0.975
    sweep = pair_cluster_interval([1.0] * 10)  # zero spread: Wilson over the 10 pairs
    z2 = 1.959963984540054**2
    assert sweep.method == "wilson"
    assert (sweep.low, sweep.high) == (pytest.approx(10 / (10 + z2)), 1.0)
    assert wilson_interval(0.0, 10) == (0.0, pytest.approx(z2 / (10 + z2)))
    single = pair_cluster_interval([0.5])
    assert single.method == "wilson" and single.low < 0.5 < single.high
    with pytest.raises(ValueError):
        pair_cluster_interval([])


# ----- playing -----------------------------------------------------------------------------
class Recorder(RandomAgent):
    """A random agent that records what it is given and how often it is reset."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.resets, self.observations = 0, []

    def act(self, observation):
        self.observations.append(observation)
        return super().act(observation)

    def reset(self):
        self.resets += 1


def test_play_episode_resets_agents_every_hand_and_only_shows_observation_dicts():
    env = ginenv.env(episode="game", target=10)
    players = [Recorder(0), Recorder(1)]
    counts, act_seconds = Counter(), [0.0, 0.0]
    winner = play_episode(env, players, seed=3, counts=counts, act_seconds=act_seconds)
    assert winner in (0, 1)
    assert counts["hands"] >= 1
    assert [p.resets for p in players] == [counts["hands"]] * 2
    assert counts["decisions_0"] + counts["decisions_1"] == counts["hand_decisions"]
    for seat, player in enumerate(players):
        assert len(player.observations) == counts[f"decisions_{seat}"]
        for observation in player.observations[:50]:
            assert set(observation) == {"observation", "action_mask"}
            assert observation["action_mask"].any()


def test_mirrored_pair_replays_the_deal_with_seats_swapped(monkeypatch):
    made = []

    def factory(seed=None):
        made.append(Recorder(seed))
        return made[-1]
    monkeypatch.setitem(REGISTRY, "recorder", factory)
    plan = MatchPlan("recorder", "recorder", episode="hand", seed=5)
    record = play_pair(plan, pair=2)
    a0, b0, b1, a1 = made  # built per game, seat 0 first: game 0 has A in seat 0, game 1 has B there
    dealt = lambda agent: sorted(ginenv.decode(agent.observations[0]).hand)  # noqa: E731  (10 cards at a first decision)
    env = ginenv.env(episode="hand")
    env.reset(seed=plan.env_seed(2))
    for seat, (first, second) in enumerate([(a0, b1), (b0, a1)]):
        cards = sorted(ginenv.decode(env.observe(f"player_{seat}")).hand)
        assert dealt(first) == dealt(second) == cards  # the same deal, the other agent in the seat
    assert [a0._rng.bit_generator.seed_seq.entropy] != [b0._rng.bit_generator.seed_seq.entropy]
    assert record.counts["hands"] == 2
    assert record.counts["decisions_a"] == len(a0.observations) + len(a1.observations)
    assert record.counts["decisions_b"] == len(b0.observations) + len(b1.observations)


def test_seeds_derive_from_seed_and_pair_only():
    plan = MatchPlan("random", "random", seed=7)
    assert plan.env_seed(3) == MatchPlan("x", "y", seed=7).env_seed(3) != plan.env_seed(4)
    assert plan.agent_seed(3, 0) != plan.agent_seed(3, 1)
    assert derive_seed(7, 3, 0) == plan.env_seed(3)


def test_random_against_itself_mirrored_interval_contains_half():
    result = evaluate("random", "random", games=60, episode="hand", seed=11, workers=1)
    assert result.games == 60 and result.pairs == 30
    assert result.wins_a + result.wins_b + result.draws == 60
    assert result.ci_low <= 0.5 <= result.ci_high
    assert result.hands == 60 and sum(result.outcomes.values()) == 60
    assert 0 <= result.dead_rate <= 1 and result.mean_hand_length > 10
    assert "win rate of A" in format_report(result)


def test_game_episode_counts_games_not_hands():
    result = evaluate("random", "random:", games=3, episode="game", seed=2, workers=1, env_kwargs={"target": 10})
    assert result.games == 4 and result.draws == 0  # rounded up to two pairs; games always have a winner
    assert result.wins_a + result.wins_b == 4
    assert result.hands >= 4 and result.mean_margin_a is not None
    assert result.ci_low <= 0.5 <= result.ci_high


def test_same_seed_same_results_for_any_worker_count():
    one = evaluate("random", "random", games=24, episode="hand", seed=4, workers=1)
    two = evaluate("random", "random", games=24, episode="hand", seed=4, workers=2)
    assert one.results_dict() == two.results_dict()
    other = evaluate("random", "random", games=24, episode="hand", seed=5, workers=1)
    assert other.results_dict() != one.results_dict()


WORKER_SCRIPT = """
import json

from agents import RandomAgent, register
from train.evaluation.evaluate import CHUNK_PAIRS, evaluate


class FirstLegal(RandomAgent):
    name = "first_legal"

    def act(self, observation):
        return int(observation["action_mask"].nonzero()[0][0])


register("first_legal", FirstLegal)
if __name__ == "__main__":
    games = 2 * CHUNK_PAIRS + 2  # two tasks and a bit: the pool really plays
    results = [evaluate("first_legal", "random", games=games, episode="hand", seed=9, workers=w) for w in (1, 2)]
    print(json.dumps([[result.workers, result.results_dict()] for result in results]))
"""


def test_worker_processes_play_what_one_process_plays_and_know_a_scripts_agents(tmp_path):
    """More than one task (:data:`CHUNK_PAIRS` pairs each) on two worker processes: the same figures
    as in one process, with an agent the script registers at its top level."""
    import json
    import subprocess
    import sys

    script = tmp_path / "register_and_evaluate.py"
    script.write_text(WORKER_SCRIPT)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    (workers_one, one), (workers_two, two) = json.loads(run.stdout.strip().splitlines()[-1])
    assert (workers_one, workers_two) == (1, 2) and one == two
    assert one["games"] == 2 * CHUNK_PAIRS + 2 and one["agent_a"] == "first_legal"


@pytest.mark.parametrize("kwargs, message", [
    ({"agent_b": "no_such_agent"}, "unknown agent"),
    ({"games": 0}, "games"),
    ({"games": 2.5}, "games"),
    ({"seed": -1}, "seed"),
    ({"workers": 0}, "workers"),
    ({"episode": "match"}, "episode"),
    ({"ruleset": "no_such_rules"}, "no_such_rules"),
])
def test_bad_settings_raise_value_error(kwargs, message):
    settings = {"agent_a": "random", "agent_b": "random", "games": 2, "episode": "hand", "workers": 1}
    settings.update(kwargs)
    with pytest.raises(ValueError, match=message):
        evaluate(**settings)


def test_interval_width_shrinks_like_one_over_root_n():
    rng = np.random.default_rng(0)
    small = pair_cluster_interval(list(rng.choice([0, 0.25, 0.5, 0.75, 1], 100)))
    large = pair_cluster_interval(list(rng.choice([0, 0.25, 0.5, 0.75, 1], 10_000)))
    assert (small.high - small.low) / (large.high - large.low) == pytest.approx(math.sqrt(100), rel=0.15)


@pytest.mark.parametrize("agent_a, agent_b, episode", [("ppo", "greedy", "game"), ("ppo", "ppo", "hand"),
                                                       ("simple", "ppo:sample=true", "hand")])
def test_batched_neural_decisions_give_the_results_of_one_at_a_time(agent_a, agent_b, episode, monkeypatch):
    """Games played side by side put a deterministic policy's positions in one forward pass; the
    figures are exactly those of every decision taken alone (and a sampling policy is never batched)."""
    from agents.neural.policy import NeuralAgent

    batched = evaluate(agent_a, agent_b, games=24, episode=episode, seed=8, workers=1)
    monkeypatch.setattr(NeuralAgent, "batch_key", lambda self: None)
    alone = evaluate(agent_a, agent_b, games=24, episode=episode, seed=8, workers=1)
    assert batched.results_dict() == alone.results_dict()


@pytest.mark.parametrize("plan", [
    MatchPlan("ppo", "greedy", episode="game", seed=4, record=True),
    MatchPlan("random", "simple", "eaai", episode="hand", seed=9, record=True),
    MatchPlan("simple", "random", "classic25", episode="game", seed=2, env_kwargs={"target": 40, "gin_bonus": 30},
              record=True),
])
def test_lockstep_engine_play_gives_the_games_of_the_aec_env(plan):
    """Evaluation plays on the engine itself, many games in lockstep; the same pairs played through
    the AEC env give the same games, move for move (replays), and the same figures."""
    assert plan.engine_spec() is not None
    pairs = range(3, 7)
    engine = play_pairs(plan, pairs)
    aec = play_pairs(plan, pairs, [plan.make_env() for _ in range(2 * len(pairs))])
    for mine, theirs in zip(engine, aec):
        assert (mine.pair, mine.scores_a, mine.counts, mine.games) == \
            (theirs.pair, theirs.scores_a, theirs.counts, theirs.games)
    assert sum(record.counts["hands"] for record in engine) >= 8


def test_an_env_option_that_changes_the_games_plays_through_the_aec_env():
    plan = MatchPlan("random", "random", episode="hand", seed=1, env_kwargs={"max_cycles": 6})
    assert plan.engine_spec() is None
    record = play_pair(plan, pair=0)
    assert record.counts["decisions_a"] + record.counts["decisions_b"] == 12 and record.counts["hands"] == 0


def test_drive_keeps_at_most_in_play_episodes_going_and_starts_them_in_order():
    """With ``in_play`` the next episode starts as one ends, in order, and never more are under way;
    the winners are those of all episodes driven at once."""
    started: list[int] = []
    under_way: set[int] = set()
    most = 0

    def episode(index: int, length: int):
        nonlocal most
        started.append(index)
        under_way.add(index)
        most = max(most, len(under_way))
        for _ in range(length):
            assert (yield 0, {"observation": np.zeros(3), "action_mask": np.ones(3, dtype=np.int8)}) == 0
        under_way.discard(index)
        return index % 2

    class FirstAction:
        """Decides every position alike (action 0), many at once."""

        def batch_key(self) -> str:
            return "first"

        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            return np.zeros(len(observations), dtype=np.int64)

    lengths = [5, 1, 3, 8, 2, 2, 7, 1, 4]
    players = [[FirstAction(), FirstAction()] for _ in lengths]
    seconds = [[0.0, 0.0] for _ in lengths]

    def episodes():
        return [episode(i, n) for i, n in enumerate(lengths)]
    all_at_once = drive(episodes(), players, seconds)
    assert most == len(lengths)
    started.clear()
    most = 0
    assert drive(episodes(), players, seconds, in_play=3) == all_at_once == [i % 2 for i in range(len(lengths))]
    assert started == list(range(len(lengths))) and most == 3
    with pytest.raises(ValueError, match="in_play"):
        drive(episodes(), players, seconds, in_play=0)


@pytest.mark.parametrize("pairs, workers", [(1, 1), (126, 2), (1000, 2), (1000, 3), (10**6, 8), (5, 4096)])
def test_tasks_are_about_two_per_worker_and_cover_every_pair(pairs, workers):
    size = task_pairs(pairs, workers)
    assert CHUNK_PAIRS <= size <= 1000
    tasks = -(-pairs // size)
    assert tasks == 1 if pairs <= CHUNK_PAIRS else 2 <= tasks and (size in (CHUNK_PAIRS, 1000) or tasks <= 2 * workers)


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_the_worker_server_is_stopped_at_once_and_a_later_pool_starts_another():
    start_worker_server()
    pid = forkserver._forkserver._forkserver_pid
    assert pid is not None
    stop_worker_server()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, and reaped
    stop_worker_server()  # nothing to stop: nothing happens
    with worker_context().Pool(1) as pool:
        assert pool.map(abs, [-2, 3]) == [2, 3]
    assert forkserver._forkserver._forkserver_pid not in (None, pid)
    stop_worker_server()
