"""What PettingZoo-based libraries need from ``ginenv``: the ``gin_rummy_v1`` names and a
turn-based parallel env, PettingZoo's own test suite and conversions, illegal actions that
end (or cost) an episode instead of raising, and infos a replay buffer can stack."""
from __future__ import annotations

import contextlib
import io
from functools import partial
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, parallel_seed_test, render_test, seed_test
from pettingzoo.utils import aec_to_parallel, parallel_to_aec
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import ginenv
from agents import make_agent
from ginenv import IllegalActionError, gin_rummy_v1
from ginenv.envs.episode import SUMMARY_OUTCOMES, result_from_summary
from ginenv.game.actions import NUM_ACTIONS

AGENTS = ("player_0", "player_1")
BIG_GIN = NUM_ACTIONS - 1
"""Never legal on the first upcard offer of a game."""


def quiet(test: Any) -> Any:
    """Run a PettingZoo test function without its prints."""
    def run(*args: Any, **kwargs: Any) -> Any:
        with contextlib.redirect_stdout(io.StringIO()):
            return test(*args, **kwargs)
    return run


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def play_out(env: Any, rng: np.random.Generator, on_step: Any = None, players: Any = None) -> None:
    """Play until the episode ends: ``players[seat].act`` or random legal actions;
    ``on_step(env, agent)`` after each step."""
    while True:
        agent = env.agent_selection
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            return
        seat = AGENTS.index(agent)
        env.step(players[seat].act(observation) if players else random_legal(rng, observation["action_mask"]))
        if on_step is not None:
            on_step(env, agent)


def hand_end_infos(seeds: range, **kwargs: Any) -> list[dict[str, Any]]:
    """player_0's info at every hand end of games between ``simple`` agents, one per seed."""
    found: list[dict[str, Any]] = []
    for seed in seeds:
        env = ginenv.env(episode="game", ruleset="eaai", target=40, **kwargs)
        env.reset(seed=seed)
        play_out(env, np.random.default_rng(seed),
                 lambda e, _: found.append(e.infos[AGENTS[0]]) if "hand_summary" in e.infos[AGENTS[0]] else None,
                 [make_agent("simple", seed=seed), make_agent("simple", seed=seed + 1)])
    return found


# ----- the names and PettingZoo's own tests -------------------------------
def test_gin_rummy_v1_names_the_aec_env_and_a_parallel_env():
    assert gin_rummy_v1.env is ginenv.env and gin_rummy_v1.raw_env is ginenv.raw_env
    assert ginenv.gin_rummy_v1 is gin_rummy_v1
    assert gin_rummy_v1.parallel_env.metadata["name"] == "gin_rummy_v1"


API_TEST_SETTINGS = [(ruleset, episode, illegal_action, info_lists)
                     for ruleset in ("pagat", "classic25", "oklahoma", "eaai") for episode in ("hand", "game")
                     for illegal_action, info_lists in [("raise", episode == "hand"), ("terminate", episode == "game")]]
"""Every ruleset in both episode kinds, each with both illegal-action modes and both info kinds."""


@pytest.mark.parametrize("ruleset, episode, illegal_action, info_lists", API_TEST_SETTINGS)
def test_pettingzoo_api_test_passes_in_every_mode(ruleset, episode, illegal_action, info_lists):
    env = gin_rummy_v1.env(ruleset=ruleset, episode=episode, info_lists=info_lists, illegal_action=illegal_action)
    for _ in range(3 if episode == "hand" else 1):  # a hand episode is short: test several
        quiet(api_test)(env, num_cycles=300)


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_pettingzoo_parallel_api_test_passes(episode):
    quiet(parallel_api_test)(gin_rummy_v1.parallel_env(episode=episode, ruleset="eaai"), num_cycles=1000)


@pytest.mark.parametrize("ruleset", ["pagat", "oklahoma"])
@pytest.mark.parametrize("episode", ["hand", "game"])
def test_pettingzoo_seed_test_passes(ruleset, episode):
    seed_test(partial(gin_rummy_v1.env, ruleset=ruleset, episode=episode, info_lists=episode == "hand"), num_cycles=300)


def test_pettingzoo_parallel_seed_test_passes():
    parallel_seed_test(partial(gin_rummy_v1.parallel_env, illegal_action="penalize"), num_cycles=100)


def test_pettingzoo_render_test_passes():
    quiet(render_test)(gin_rummy_v1.env)


def test_pettingzoo_max_cycles_test_passes_with_penalized_unmasked_actions():
    """max_cycles_test plays unmasked random actions and wants the episode to last exactly
    max_cycles cycles, with every agent stepped once per cycle in the AEC env.  So its
    illegal actions must neither raise nor end the episode (``"penalize"``), and its AEC env
    is the cycle form PettingZoo builds from the parallel env (the game's own turn order has a
    player draw and discard in two consecutive steps)."""
    penalized = partial(gin_rummy_v1.parallel_env, illegal_action="penalize")
    quiet(max_cycles_test)(SimpleNamespace(parallel_env=penalized,
                                           env=lambda **kwargs: parallel_to_aec(penalized(**kwargs))))


# ----- conversions --------------------------------------------------------
def test_parallel_to_aec_passes_the_api_test_and_aec_to_parallel_gives_the_parallel_env_back():
    parallel = gin_rummy_v1.parallel_env(episode="game", ruleset="eaai")
    cycled = parallel_to_aec(parallel)
    quiet(api_test)(cycled, num_cycles=300)
    assert aec_to_parallel(cycled) is parallel


def test_turn_based_aec_to_parallel_of_the_aec_env_passes_the_parallel_api_test():
    quiet(parallel_api_test)(turn_based_aec_to_parallel(gin_rummy_v1.env()), num_cycles=500)


def test_aec_to_parallel_refuses_the_aec_env_whose_turns_are_not_cycles():
    assert gin_rummy_v1.env().metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(gin_rummy_v1.env())


# ----- the parallel env ---------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), episode=st.sampled_from(["hand", "game"]))
def test_parallel_env_plays_the_aec_game_using_only_the_acting_agents_action(seed, episode):
    kwargs = dict(episode=episode, ruleset="eaai", max_cycles=250)  # random play: long games
    aec, parallel = gin_rummy_v1.env(**kwargs), gin_rummy_v1.parallel_env(**kwargs)
    aec.reset(seed=seed)
    observations, infos = parallel.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while parallel.agents:
        acting = aec.agent_selection
        assert [a for a in parallel.agents if observations[a]["action_mask"].any()] == [acting]
        action = random_legal(rng, observations[acting]["action_mask"])
        idle = AGENTS[1 - AGENTS.index(acting)]
        aec.step(action)
        observations, rewards, terminations, truncations, infos = parallel.step({acting: action, idle: BIG_GIN})
        assert rewards == aec.rewards and sum(rewards.values()) == pytest.approx(0, abs=1e-9)
        assert terminations == aec.terminations and truncations == aec.truncations
        for agent in AGENTS:
            expected = aec.observe(agent)
            assert all(np.array_equal(observations[agent][key], expected[key]) for key in expected)
            np.testing.assert_array_equal(infos[agent]["action_mask"], expected["action_mask"])
    assert all(terminations[a] or truncations[a] for a in AGENTS)


def test_parallel_env_needs_the_acting_agents_action_and_a_reset_after_the_end():
    parallel = gin_rummy_v1.parallel_env(illegal_action="terminate")
    parallel.reset(seed=1)
    with pytest.raises(ValueError, match="player_1"):
        parallel.step({"player_0": 0})
    _, rewards, terminations, _, _ = parallel.step({"player_1": BIG_GIN})
    assert rewards == {"player_0": 0, "player_1": -1.0} and all(terminations.values()) and parallel.agents == []
    with pytest.raises(RuntimeError, match="reset"):
        parallel.step({"player_1": 0})


def test_parallel_env_raises_on_an_illegal_action_by_default_and_changes_nothing():
    parallel = gin_rummy_v1.parallel_env()
    observations, _ = parallel.reset(seed=1)
    with pytest.raises(IllegalActionError):
        parallel.step({"player_1": BIG_GIN})
    assert parallel.agents == list(AGENTS) and parallel.aec.agent_selection == "player_1"
    np.testing.assert_array_equal(parallel.aec.observe("player_1")["observation"],
                                  observations["player_1"]["observation"])


def test_parallel_env_renders_the_aec_text():
    parallel = gin_rummy_v1.parallel_env(render_mode="ansi")
    parallel.reset(seed=3)
    assert parallel.render() == parallel.aec.render() and "player_1" in parallel.render()


# ----- illegal actions ----------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), actions=st.lists(st.integers(0, NUM_ACTIONS - 1), min_size=1, max_size=60),
       illegal_reward=st.floats(-10, 10))
def test_terminate_mode_ends_the_episode_at_the_first_unmasked_illegal_action(seed, actions, illegal_reward):
    env = gin_rummy_v1.env(illegal_action="terminate", illegal_reward=illegal_reward, episode="game")
    env.reset(seed=seed)
    for action in actions:
        agent = env.agent_selection
        legal = bool(env.observe(agent)["action_mask"][action])
        env.step(action)
        if not legal:
            other = AGENTS[1 - AGENTS.index(agent)]
            assert env.rewards == {agent: illegal_reward, other: 0}
            assert all(env.terminations.values()) and not any(env.truncations.values())
            assert env.infos[agent]["illegal_action"] is True and "illegal" in env.infos[agent]["illegal_reason"]
            assert env.infos[other]["illegal_action"] is False
            assert not any(env.observe(a)["action_mask"].any() for a in AGENTS)
            _, reward, terminated, _, _ = env.last()
            assert terminated and reward == env.rewards[env.agent_selection]
            return
        assert "illegal_action" not in env.infos[agent]
        if all(env.terminations.values()):
            return


def test_penalize_mode_charges_the_offender_and_asks_it_again_with_nothing_else_changed():
    env = gin_rummy_v1.env(illegal_action="penalize", illegal_reward=-0.5)
    env.reset(seed=1)
    before = env.observe("player_1")
    for _ in range(2):
        env.step(BIG_GIN)
        assert env.rewards == {"player_0": 0, "player_1": -0.5} and env.agent_selection == "player_1"
        assert not any(env.terminations.values()) and env.infos["player_1"]["illegal_action"] is True
    after = env.observe("player_1")
    assert all(np.array_equal(before[key], after[key]) for key in before)
    env.step(int(np.flatnonzero(after["action_mask"])[0]))
    assert "illegal_action" not in env.infos["player_1"]


@pytest.mark.parametrize("kwargs, name", [
    ({"illegal_action": "ignore"}, "illegal_action"), ({"illegal_action": None}, "illegal_action"),
    ({"illegal_reward": float("nan")}, "illegal_reward"), ({"illegal_reward": "-1"}, "illegal_reward"),
    ({"illegal_reward": True}, "illegal_reward"), ({"illegal_reward": -2e6}, "illegal_reward"),
    ({"info_lists": "no"}, "info_lists"), ({"max_cycles": 0}, "max_cycles"), ({"max_cycles": 2.5}, "max_cycles"),
])
@pytest.mark.parametrize("make", [gin_rummy_v1.raw_env, gin_rummy_v1.env, gin_rummy_v1.parallel_env])
def test_invalid_interop_kwargs_are_a_value_error_naming_them(make, kwargs, name):
    with pytest.raises(ValueError, match=name):
        make(**kwargs)


# ----- max_cycles ---------------------------------------------------------
@pytest.mark.parametrize("illegal_action", ["raise", "penalize"])
def test_max_cycles_truncates_both_agents_after_that_many_steps(illegal_action):
    env = gin_rummy_v1.env(max_cycles=5, illegal_action=illegal_action, episode="game")
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for step in range(5):
        assert not any(env.truncations.values()), step
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(BIG_GIN if illegal_action == "penalize" and step % 2 else random_legal(rng, mask))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    env.reset(seed=2)  # the count starts again
    env.step(random_legal(rng, env.observe(env.agent_selection)["action_mask"]))
    assert not any(env.truncations.values())


# ----- infos --------------------------------------------------------------
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), episode=st.sampled_from(["hand", "game"]))
def test_every_info_carries_the_observation_mask_and_the_legal_ids(seed, episode):
    def check(env: Any, _: Any = None) -> None:
        for agent in env.agents:
            info, mask = env.infos[agent], env.observe(agent)["action_mask"]
            np.testing.assert_array_equal(info["action_mask"], mask)
            legal = np.flatnonzero(mask)
            assert info["legal_actions"].shape == (NUM_ACTIONS,)
            assert info["legal_actions"][:len(legal)].tolist() == legal.tolist()
            assert (info["legal_actions"][len(legal):] == -1).all()

    env = gin_rummy_v1.env(episode=episode, ruleset="eaai", max_cycles=250)
    env.reset(seed=seed)
    check(env)
    play_out(env, np.random.default_rng(seed), check)


def test_hand_and_game_summaries_have_the_same_keys_shapes_and_types_every_time():
    infos = (hand_end_infos(range(6), info_lists=False)  # knocks, an undercut
             + hand_end_infos(range(3, 4), info_lists=False, knock_limit=0))  # gins, a dead hand
    outcomes = {SUMMARY_OUTCOMES[info["hand_summary"]["outcome"]] for info in infos}
    assert {"knock", "gin", "undercut", "dead"} <= outcomes, outcomes
    for name in ("hand_summary", "game_summary"):
        summaries = [info[name] for info in infos if name in info]
        layouts = {tuple((key, np.shape(value), np.asarray(value).dtype.kind) for key, value in s.items())
                   for s in summaries}
        assert len(summaries) >= 7 and len(layouts) == 1, layouts
        for key in summaries[0]:  # what a replay buffer does with a batch of them
            np.stack([np.asarray(s[key]) for s in summaries])
    for info in infos:
        assert "hand_result" not in info and "game_result" not in info
        assert all(isinstance(value, (np.ndarray, dict)) for value in info.values())


def test_info_lists_keeps_the_contract_dicts_beside_the_summary_which_gives_them_back():
    with_lists = hand_end_infos(range(4)) + hand_end_infos(range(3, 4), knock_limit=0)
    without = hand_end_infos(range(4), info_lists=False) + hand_end_infos(range(3, 4), info_lists=False, knock_limit=0)
    assert len(with_lists) == len(without) >= 6
    for listed, fixed in zip(with_lists, without):
        assert result_from_summary(fixed["hand_summary"]).to_dict(AGENTS) == listed["hand_result"]
        assert "game_result" in listed or "game_summary" not in fixed
        if "game_result" in listed:
            game, summary = listed["game_result"], fixed["game_summary"]
            assert AGENTS[summary["winner"]] == game["winner"]
            assert all(summary[key].tolist() == game[key]
                       for key in ("scores", "hands_won", "box_bonus", "final_scores"))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(["pagat", "classic25", "oklahoma", "eaai"]))
def test_a_hand_summary_gives_back_the_exact_hand_result(seed, ruleset):
    env = gin_rummy_v1.raw_env(ruleset=ruleset)
    env.reset(seed=seed)
    play_out(env, np.random.default_rng(seed))
    assert result_from_summary(env.infos[AGENTS[1]]["hand_summary"]) == env.hand.result
