"""The ``montecarlo`` agent: legality, samples consistent with the observation, the kept-hand
sampling prior, the knock schedule, the choice rule, seeds and spec parameters (the rollout
policy itself is tested in test_playout.py).  Sample counts are tiny so that the whole file
runs in a few seconds.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from test_heuristics import HIGH, MELDED, OPP, action_trace, c, deal, observe, play, run_game, start
from test_positions import assert_consistent, observations

import ginenv
from agents import MonteCarloAgent, make_agent
from agents.search import positions as search
from agents.search.montecarlo import default_knock
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.melds import mask_deadwood
from ginenv.game.rules import Ruleset

MC = "montecarlo:samples=2"


@pytest.mark.parametrize("ruleset", ["pagat", "classic25", "oklahoma", "eaai"])
def test_montecarlo_only_returns_legal_actions(ruleset: str) -> None:
    env = ginenv.env(ruleset=ruleset, episode="hand")
    counts: Counter = Counter()
    for seed in range(4):
        run_game(env, (MC, "greedy") if seed % 2 else ("simple", MC), 7000 + seed, counts)
    assert counts["montecarlo"] >= 20, counts


def test_montecarlo_plays_a_whole_game() -> None:
    counts: Counter = Counter()
    run_game(ginenv.env(ruleset="classic25", episode="game"), ("montecarlo:samples=1", "simple"),
             11, counts)
    assert counts["montecarlo"] >= 20, counts


@pytest.mark.parametrize("ruleset", ["pagat", "oklahoma"])
def test_montecarlo_samples_are_consistent_with_the_observation(ruleset: str) -> None:
    """The kept prior's samples too show seat 0 exactly its observation."""
    agent = MonteCarloAgent(seed=5, samples=3)
    checked = 0
    for observation in observations(ruleset, range(6)):
        assert_consistent(agent.samples_of(ginenv.decode(observation), observation["action_mask"]), observation)
        checked += 1
    assert checked >= 40


def test_kept_prior_gives_the_opponent_less_deadwood_than_uniform() -> None:
    """After several opponent draws, the keep-best prior deals them better hands."""
    env = ginenv.env(ruleset="pagat", episode="hand", knock_limit=0)      # gin only: long hands
    env.reset(seed=3)
    greedy = make_agent("greedy")
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        assert not (terminated or truncated)
        view = ginenv.decode(observation)
        if name == "player_0" and len(view.opp_discards) >= 4:
            break
        env.step(greedy.act(observation))
    mean = {}
    for prior in ("uniform", "kept"):
        rows = MonteCarloAgent(seed=1, samples=40, prior=prior).samples_of(view, observation["action_mask"])
        mean[prior] = np.mean([mask_deadwood(search.hand(row, search.OPPONENT)) for row in rows])
    assert mean["kept"] < mean["uniform"] - 5, mean


def test_knock_schedule() -> None:
    assert default_knock(10) == (10, 10) and default_knock(25) == (6, 0)
    assert MonteCarloAgent().knock(Ruleset.preset("classic25")) == (6, 0)
    assert MonteCarloAgent(knock_early=8).knock(Ruleset.preset("pagat")) == (8, 10)


def test_montecarlo_knocks_by_its_ruleset_schedule_without_search() -> None:
    """Deadwood 8 after the first draw: knock under pagat's schedule (as soon as allowed),
    not under classic25's (6 at the deal, falling to 0)."""
    observation = {}
    for ruleset in ("pagat", "classic25"):
        env = start(deal(OPP, MELDED + " 8H", "KH", "KD"), ruleset=ruleset)
        play(env, PASS, PASS, DRAW_STOCK)                                     # player_1 draws the KD
        observation[ruleset] = observe(env)
    assert make_agent("montecarlo:search=", seed=0).act(observation["pagat"]) == KNOCK_BASE + c("KD")
    assert make_agent("montecarlo:search=", seed=0).act(observation["classic25"]) == DISCARD_BASE + c("KD")
    assert make_agent("montecarlo:search=,knock_early=9", seed=0).act(observation["classic25"]) \
        == KNOCK_BASE + c("KD")


def test_montecarlo_keeps_greedy_choice_unless_clearly_beaten() -> None:
    agent = MonteCarloAgent(margin=2)
    rng = np.random.default_rng(0)
    base = rng.normal(0, 20, 64)
    noisy = base + rng.normal(0.5, 20, 64)        # a little better on average, very noisy
    clear = base + 5 + rng.normal(0, 1, 64)       # better by 5 on every sample
    assert agent.pick(np.array([base, noisy])) == 0
    assert agent.pick(np.array([base, noisy, clear])) == 2
    assert agent.pick(np.array([base, clear - 10])) == 0


def test_montecarlo_goes_gin_and_big_gin_without_search() -> None:
    hand1 = "5H 6H AC 2C 3C 4D 5D 6D 7D QS"
    env = start(deal(HIGH, hand1, "7H"))
    play(env, TAKE_DISCARD)
    assert make_agent("montecarlo:samples=1", seed=0).act(observe(env)) == KNOCK_BASE + c("QS")
    env = start(deal("2S 3S 4S 5S 6S 7S 8S 9S TS JS", "AC 2C 3C 4D 5D 6D 7D 8H 9H JH", "TH"), ruleset="classic25")
    play(env, TAKE_DISCARD)
    assert make_agent("montecarlo:samples=1", seed=0).act(observe(env)) == BIG_GIN


def test_montecarlo_with_a_guide_plays_the_guides_choice_where_it_does_not_search() -> None:
    """``guide``: an agent's choice replaces greedy's as the one kept unless clearly beaten;
    without search it is played (gin and big gin still go first)."""
    guided, network = make_agent("montecarlo:search=,guide=ppo", seed=0), make_agent("ppo")
    compared = 0
    for observation in observations("pagat", range(8)):
        chosen = guided.act(observation)
        if chosen < KNOCK_BASE:
            assert chosen == network.act(observation)
            compared += 1
    assert compared >= 30
    with pytest.raises(ValueError, match="guide"):
        make_agent("montecarlo:guide=montecarlo", seed=0)


def test_montecarlo_is_reproducible_with_its_seed() -> None:
    first = action_trace("montecarlo:samples=3", "simple", 2, (9, 1))
    assert first == action_trace("montecarlo:samples=3", "simple", 2, (9, 1))


def test_montecarlo_spec_parameters() -> None:
    agent = make_agent("montecarlo:samples=8,candidates=2,margin=0,search=tk,prior=uniform,"
                       "knock_early=7,knock_late=1", seed=1)
    assert isinstance(agent, MonteCarloAgent) and agent.name == "montecarlo"
    assert (agent.samples, agent.candidates, agent.margin, agent.search, agent.prior,
            agent.knock(Ruleset.preset("eaai"))) == (8, 2, 0, "tk", "uniform", (7, 1))
    assert make_agent({"name": "montecarlo", "samples": 16}).samples == 16
    for bad in ("montecarlo:samples=0", "montecarlo:samples=2.5", "montecarlo:margin=-1", "montecarlo:believe=0.5",
                "montecarlo:ruleset=pagat", "montecarlo:rollouts=3", "montecarlo:search=x", "montecarlo:prior=best",
                "montecarlo:knock_early=-1", "montecarlo:knock_late=true"):
        with pytest.raises(ValueError):
            make_agent(bad, seed=0)
