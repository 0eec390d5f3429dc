"""Bradley–Terry ratings: closed forms, recovery of known strengths, intervals."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from train.evaluation.ratings import (
    ELO_PER_THETA,
    LADDER_ELO,
    anchored_elo,
    bootstrap_intervals,
    bradley_terry,
    elo,
    fisher_intervals,
    wins_from_histograms,
)


def synthetic_wins(theta, games, rng):
    k = len(theta)
    wins = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            won = rng.binomial(games, 1 / (1 + math.exp(theta[j] - theta[i])))
            wins[i, j], wins[j, i] = won, games - won
    return wins


def test_two_agents_closed_form():
    theta = bradley_terry(np.array([[0, 30], [10, 0]]))
    assert theta[0] - theta[1] == pytest.approx(math.log(3), abs=1e-9)
    assert theta.sum() == pytest.approx(0, abs=1e-12)


def test_elo_scale_400_points_is_ten_to_one():
    ratings = elo(bradley_terry(np.array([[0, 100], [10, 0]])))
    assert ratings[0] - ratings[1] == pytest.approx(400, abs=1e-6)
    assert ratings.mean() == pytest.approx(1500)


def test_recovers_known_strengths_on_synthetic_data():
    truth = np.array([-1.0, -0.3, 0.0, 0.4, 0.9])
    truth -= truth.mean()
    wins = synthetic_wins(truth, games=4000, rng=np.random.default_rng(1))
    theta = bradley_terry(wins)
    assert np.max(np.abs(theta - truth)) < 0.06
    assert list(np.argsort(theta)) == list(np.argsort(truth))
    low, high = fisher_intervals(wins, theta)
    assert np.all((low <= truth) & (truth <= high))
    assert np.all(high - low < 0.15)


def test_fisher_intervals_cover_the_truth_about_95_percent_of_the_time():
    truth = np.array([-0.5, 0.0, 0.5])
    rng = np.random.default_rng(2)
    covered = []
    for _ in range(200):
        wins = synthetic_wins(truth, games=300, rng=rng)
        theta = bradley_terry(wins)
        low, high = fisher_intervals(wins, theta)
        covered.extend((low <= truth) & (truth <= high))
    assert 0.91 <= np.mean(covered) <= 0.99


def test_fisher_two_agents_matches_the_logit_standard_error():
    wins = np.array([[0, 60], [40, 0]])
    theta = bradley_terry(wins)
    low, high = fisher_intervals(wins, theta)
    # the difference has SE 1 / sqrt(n p (1 - p)) = 1 / sqrt(100 * .6 * .4); each centred theta half of it
    se_diff = 1 / math.sqrt(100 * 0.6 * 0.4)
    assert (high[0] - low[0]) / 2 == pytest.approx(1.959964 * se_diff / 2, rel=1e-5)


def test_no_finite_fit_without_prior_then_prior_fixes_it():
    sweep = np.array([[0, 10, 10], [0, 0, 5], [0, 5, 0]])  # agent 0 never lost
    with pytest.raises(ValueError, match="prior"):
        bradley_terry(sweep)
    theta = bradley_terry(sweep, prior=1.0)
    assert np.all(np.isfinite(theta)) and theta[0] == max(theta)
    # a cycle is strongly connected: the plain fit exists (all equal)
    assert bradley_terry(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])) == pytest.approx([0, 0, 0], abs=1e-9)


def test_bad_input():
    with pytest.raises(ValueError):
        bradley_terry(np.array([[0, -1], [1, 0]]))
    with pytest.raises(ValueError):
        bradley_terry(np.array([[0]]))


def test_wins_from_pair_histograms():
    # pairing (0, 1): 3 pairs where 0 won both, 2 split, 1 where 0 won 1.5 of 2 (a win and a draw)
    wins = wins_from_histograms(3, {(0, 1): [0, 0, 2, 1, 3], (1, 2): [1, 0, 0, 0, 0]})
    assert wins[0, 1] == 2 * (2 * 0.5 + 0.75 + 3) == 9.5
    assert wins[1, 0] == 12 - 9.5
    assert (wins[1, 2], wins[2, 1]) == (0, 2)
    assert wins[0, 2] == wins[2, 0] == 0


def test_bootstrap_intervals_bracket_the_fit_and_are_reproducible():
    histograms = {(0, 1): [5, 10, 40, 25, 20], (0, 2): [2, 8, 30, 30, 30], (1, 2): [10, 10, 40, 20, 20]}
    wins = wins_from_histograms(3, histograms)
    rating = elo(bradley_terry(wins, prior=1.0))
    low, high = bootstrap_intervals(3, histograms, prior=1.0, samples=300, seed=3)
    assert np.all(low < rating) and np.all(rating < high)
    again = bootstrap_intervals(3, histograms, prior=1.0, samples=300, seed=3)
    assert np.array_equal(low, again[0]) and np.array_equal(high, again[1])
    # mirrored pairs are less noisy than independent games, so the bootstrap is narrower than Fisher here
    theta = bradley_terry(wins, prior=1.0)
    f_low, f_high = fisher_intervals(wins, theta, prior=1.0)
    assert np.all(high - low < ELO_PER_THETA * (f_high - f_low))


def test_bootstrap_interval_of_a_winless_agent_is_not_degenerate():
    # agent 2 lost every game; 0 and 1 are even: the pair bootstrap alone would have no spread for 2
    histograms = {(0, 1): [3, 5, 10, 5, 3], (0, 2): [0, 0, 0, 0, 20], (1, 2): [0, 0, 0, 0, 20]}
    theta = bradley_terry(wins_from_histograms(3, histograms), prior=1.0)
    rating = elo(theta)
    low, high = bootstrap_intervals(3, histograms, prior=1.0, samples=300, seed=0)
    assert np.all(low <= rating) and np.all(rating <= high)
    assert high[2] - low[2] > 100


@given(st.floats(0.02, 0.98), st.sampled_from(sorted(LADDER_ELO)))
@settings(max_examples=50, deadline=None)
def test_anchored_elo_inverts_the_elo_expectation_against_one_anchor(share, anchor):
    games = 10_000
    rating = anchored_elo({anchor: (share * games, games)}, prior=0)
    assert 1 / (1 + 10 ** ((LADDER_ELO[anchor] - rating) / 400)) == pytest.approx(share, abs=1e-6)


def test_anchored_elo_rises_with_the_score_and_stays_finite_after_all_wins():
    low = anchored_elo({"random": (30, 40), "simple": (5, 40), "greedy": (4, 40)})
    high = anchored_elo({"random": (40, 40), "simple": (20, 40), "greedy": (15, 40)})
    best = anchored_elo({"random": (40, 40), "simple": (40, 40), "greedy": (40, 40)})
    assert low < high < best < 3000
    assert math.isnan(anchored_elo({"montecarlo": (10, 20)}))
