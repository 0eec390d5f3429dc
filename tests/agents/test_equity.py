"""Game equity (agents.search.equity): the win table behind ``montecarlo:value=game``."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import ginenv
from agents import make_agent
from agents.search.equity import game_values, hand_points, win_table
from ginenv.game.encoding import decode
from ginenv.game.rules import Ruleset

PAGAT = Ruleset()


def test_hand_points_is_a_symmetric_distribution_of_real_hands() -> None:
    p = hand_points(PAGAT)
    assert p.min() >= 0 and p[0] + 2 * p[1:].sum() == pytest.approx(1)
    assert p[0] < 0.05                              # rollout hands are rarely dead
    mean_win = (np.arange(len(p)) * p).sum() * 2 / (1 - p[0])
    assert 8 < mean_win < 30                        # a knock or gin is worth tens of points
    assert np.array_equal(p, hand_points(PAGAT, seed=0))


def test_win_table_is_symmetric_and_monotone() -> None:
    table = win_table(PAGAT)
    assert table.shape == (100, 100) and not table.flags.writeable
    assert np.allclose(table + table.T, 1)
    assert np.all(np.diff(table, axis=0) >= -1e-12)     # more of my points never hurts
    assert np.all(np.diff(table, axis=1) <= 1e-12)      # more of theirs never helps
    assert table[99, 0] > 0.95 and table[0, 99] < 0.05 and table[0, 0] == pytest.approx(0.5)


def test_win_table_matches_simulated_games() -> None:
    """The recursion agrees with games simulated from the same hand distribution."""
    ruleset = dataclasses.replace(PAGAT, target=40)
    p, table = hand_points(ruleset), win_table(ruleset)
    rng = np.random.default_rng(3)
    signed = np.concatenate([-np.arange(len(p))[:0:-1], np.arange(len(p))])
    chances = np.concatenate([p[:0:-1], p])
    for start in ((0, 0), (25, 5), (10, 30)):
        games, wins = 4000, 0
        for _ in range(games):
            mine, theirs = start
            while mine < 40 and theirs < 40:
                points = rng.choice(signed, p=chances)
                mine, theirs = mine + max(points, 0), theirs + max(-points, 0)
            wins += mine >= 40
        assert wins / games == pytest.approx(table[start], abs=0.025)


def test_game_values_map_hand_points_to_the_chance_of_winning() -> None:
    table = win_table(PAGAT)
    values = game_values(table, (90, 60), np.array([[10, 9, 0], [-40, -39, -5]]))
    assert values.tolist() == [[1.0, table[99, 60], table[90, 60]], [0.0, table[90, 99], table[90, 65]]]


def test_montecarlo_value_game_uses_the_table_only_in_a_game() -> None:
    agent = make_agent("montecarlo:value=game,samples=8", seed=0)
    points = np.array([[12, -3], [0, 25]])
    hand_env, game_env = ginenv.env(), ginenv.env(episode="game")
    hand_env.reset(seed=0)
    game_env.reset(seed=0)
    hand_view = decode(hand_env.observe(hand_env.agent_selection))
    game_view = dataclasses.replace(decode(game_env.observe(game_env.agent_selection)), scores=(70, 20))
    assert agent.worth(hand_view, points) is points
    assert np.array_equal(agent.worth(game_view, points), game_values(win_table(game_view.ruleset), (70, 20), points))
    assert make_agent("montecarlo", seed=0).worth(game_view, points) is points
    with pytest.raises(ValueError, match="value"):
        make_agent("montecarlo:value=money", seed=0)
