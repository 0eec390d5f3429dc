"""The ``rollout`` agent: legality, rollouts that are the policy's own play, the choice rule, seeds and
spec parameters.  Sample counts are tiny so that the file runs in seconds."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from test_heuristics import action_trace, run_game
from test_positions import observations

import ginenv
from agents import make_agent
from agents.search.montecarlo import sample_hands
from agents.search.positions import ME, Rules, points, step
from agents.search.rollout import RolloutAgent
from ginenv.game import core
from ginenv.game.actions import NUM_ACTIONS
from ginenv.game.encoding import OBSERVATION_SIZE, MatchInfo, rules_vector, write_observation


@pytest.mark.parametrize("ruleset", ["pagat", "eaai"])
def test_rollout_only_returns_legal_actions(ruleset: str) -> None:
    counts: Counter = Counter()
    for seed in range(2):
        run_game(ginenv.env(ruleset=ruleset, episode="hand"), ("rollout:samples=2", "greedy") if seed
                 else ("simple", "rollout:samples=2"), 7100 + seed, counts)
    assert counts["rollout"] >= 10, counts


def test_rollout_plays_a_whole_game_valued_by_the_game() -> None:
    counts: Counter = Counter()
    run_game(ginenv.env(ruleset="pagat", episode="game"), ("rollout:samples=1,value=game", "greedy"), 12, counts)
    assert counts["rollout"] >= 30, counts


def played_by_hand(agent: RolloutAgent, hand: np.ndarray, action: int, view: ginenv.ObservationView) -> int:
    """One rollout stepped a move at a time, each seat's observation encoded alone: the reference."""
    rules, row = Rules.of(view.ruleset), hand.copy()
    match = MatchInfo(view.scores, view.hands_won, view.target).as_array()
    obs, mask = np.zeros(OBSERVATION_SIZE, dtype=np.float32), np.zeros(NUM_ACTIONS, dtype=np.int8)
    step(row, action, rules)
    while row[core.PHASE] != core.OVER:
        write_observation(row, row[core.CURRENT], match, rules_vector(view.ruleset), obs)
        core.write_mask(row, rules.big_gin, mask)
        step(row, int(agent.policy.act_batch(obs[None], mask[None])[0]), rules)
    return points(row, rules, ME)


def test_rollouts_are_the_hands_the_policy_plays_for_both_seats() -> None:
    """Every (candidate, sampled hand) value of the batched rollouts equals that hand played on
    move by move with the policy's most likely action for whichever seat is to act."""
    agent = RolloutAgent(seed=3, samples=3, candidates=3, precision="fp32")
    compared = 0
    for observation in list(observations("pagat", range(3)))[::4]:
        mask = observation["action_mask"]
        options = agent.candidate_actions(np.asarray(observation["observation"], dtype=np.float32)[None], mask)
        view = ginenv.decode(observation)
        hands = sample_hands(view, mask, np.random.default_rng(compared), 3, "uniform")
        values = agent.play_out(view, hands, options)
        assert values.shape == (len(options), 3)
        expected = [[played_by_hand(agent, hand, option, view) for hand in hands] for option in options]
        assert values.tolist() == expected
        compared += 1
    assert compared >= 4


def test_rollout_candidates_are_the_policys_most_likely_legal_actions() -> None:
    agent, policy = RolloutAgent(seed=0, candidates=3), make_agent("ppo")
    for observation in list(observations("pagat", range(2)))[::5]:
        obs, mask = np.asarray(observation["observation"], dtype=np.float32)[None], observation["action_mask"]
        options = agent.candidate_actions(obs, mask)
        assert options[0] == policy.act(observation)
        assert len(options) == min(3, int(mask.sum())) and all(mask[a] == 1 for a in options)
        probs = policy.distribution(obs, mask[None]).probs[0].numpy()
        assert list(probs[options]) == sorted(probs[options], reverse=True)


def test_rollout_without_search_plays_the_policys_choice() -> None:
    """One candidate, or a margin no candidate can beat: the policy's own action."""
    policy = make_agent("ppo")
    for spec in ("rollout:candidates=1", "rollout:samples=2,margin=1e9"):
        agent = make_agent(spec, seed=0)
        for observation in list(observations("pagat", range(2)))[::6]:
            assert agent.act(observation) == policy.act(observation)


@pytest.mark.parametrize("spec", ["rollout:samples=3", "rollout:samples=3,sample=true"])
def test_rollout_is_reproducible_with_its_seed(spec: str) -> None:
    first = action_trace(spec, "simple", 2, (9, 1))
    assert first == action_trace(spec, "simple", 2, (9, 1))


def test_rollout_spec_parameters() -> None:
    agent = make_agent("rollout:samples=8,candidates=2,margin=0,prior=uniform,value=game,sample=true", seed=1)
    assert isinstance(agent, RolloutAgent) and agent.name == "rollout"
    assert (agent.samples, agent.candidates, agent.margin, agent.prior, agent.value) == (8, 2, 0, "uniform", "game")
    assert agent.policy.sample
    for bad in ("rollout:samples=0", "rollout:samples=5000", "rollout:candidates=0", "rollout:margin=-1",
                "rollout:prior=best", "rollout:value=wins", "rollout:sample=maybe", "rollout:precision=fp8",
                "rollout:threads=0", "rollout:depth=3"):
        with pytest.raises(ValueError):
            make_agent(bad, seed=0)
