"""The observation carries the rules (gin_rummy_v1): every Ruleset parameter, the episode
kind and the hand's doubling come back from ``decode``; every entry is within the bounds
the observation space declares."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ginenv
from ginenv import PRESETS, Ruleset, decode, raw_env
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game.encoding import OBSERVATION_HIGH, RULE_FLAGS, RULE_POINTS, rules_vector
from ginenv.game.rules import MAX_BONUS, MAX_TARGET, MAX_TURNS, NEXT_DEALER_MODES, SHUTOUT_MODES

rulesets = st.builds(
    Ruleset, name=st.just("custom"), knock_limit=st.one_of(st.integers(0, 10), st.just("upcard")),
    gin_bonus=st.integers(0, MAX_BONUS), undercut_bonus=st.integers(0, MAX_BONUS), big_gin=st.booleans(),
    big_gin_bonus=st.integers(0, MAX_BONUS), target=st.integers(1, MAX_TARGET), game_bonus=st.integers(0, MAX_BONUS),
    shutout_mode=st.sampled_from(SHUTOUT_MODES), box_bonus=st.integers(0, MAX_BONUS),
    next_dealer=st.sampled_from(NEXT_DEALER_MODES), spade_double=st.booleans(),
    max_turns_per_hand=st.integers(1, MAX_TURNS))


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("episode", ["hand", "game"])
def test_decode_gives_back_the_preset(name, episode):
    env = raw_env(ruleset=name, episode=episode)
    env.reset(seed=3)
    for agent in env.agents:
        view = decode(env.observe(agent))
        assert view.ruleset == PRESETS[name]
        assert view.game_mode == (episode == "game")
        assert view.target == (PRESETS[name].target if episode == "game" else 0)


@settings(max_examples=60, deadline=None)
@given(ruleset=rulesets, seed=st.integers(0, 2**31 - 1))
def test_decode_gives_back_any_ruleset(ruleset, seed):
    hand = ginenv.HandState.random(np.random.default_rng(seed), ruleset)
    view = decode(ginenv.game.encoding.encode(hand, 0))
    assert view.ruleset.with_overrides(name="custom") == ruleset
    assert view.hand_doubled == (ruleset.spade_double and hand.deal.upcard // 13 == 3)


def test_a_renamed_preset_decodes_as_the_preset_with_its_rules():
    env = raw_env(ruleset=Ruleset.preset("classic25", name="tournament"))
    env.reset(seed=0)
    assert decode(env.observe("player_0")).ruleset == PRESETS["classic25"]


def test_an_override_decodes_as_custom():
    env = raw_env(ruleset="pagat", gin_bonus=30)
    env.reset(seed=0)
    rules = decode(env.observe("player_0")).ruleset
    assert rules.name == "custom" and rules.gin_bonus == 30


def test_rules_pieces_cover_every_ruleset_parameter():
    from dataclasses import fields
    covered = set(RULE_POINTS) | {"big_gin", "spade_double", "shutout_mode", "next_dealer", "knock_limit", "name"}
    assert {f.name for f in fields(Ruleset)} == covered
    assert len(rules_vector(PRESETS["pagat"])) == len(RULE_FLAGS) + len(RULE_POINTS)


def test_oklahoma_spade_upcard_shows_the_hand_doubled():
    deck = [c for c in range(52) if c != 51]
    hands = [deck[:10], deck[10:20]]
    env = raw_env(ruleset="oklahoma")
    env.reset(options={"deal": {"dealer": 0, "hands": hands, "upcard": 51, "stock": deck[20:]}})
    for agent in env.agents:
        assert decode(env.observe(agent)).hand_doubled


def test_observation_space_is_bounded_and_holds_extreme_games():
    env = raw_env(ruleset="pagat", episode="game", target=MAX_TARGET, gin_bonus=MAX_BONUS)
    space = env.observation_space("player_0")["observation"]
    assert np.isfinite(space.high).all() and (space.high == OBSERVATION_HIGH).all()
    env.reset(seed=1, options={"scores": [MAX_TARGET - 1, 0], "hands_won": [900, 950]})
    for agent in env.agents:
        obs = env.observe(agent)
        assert space.contains(obs["observation"])
        assert decode(obs).scores[0] in (MAX_TARGET - 1, 0)


@settings(max_examples=10, deadline=None)
@given(ruleset=st.sampled_from(sorted(PRESETS)), episode=st.sampled_from(["hand", "game"]),
       seed=st.integers(0, 2**31 - 1))
def test_every_observation_of_random_play_is_in_bounds(ruleset, episode, seed):
    venv = BatchedGinEnv(8, ruleset=ruleset, episode=episode, seed=seed)
    obs, masks, _ = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(300):
        assert ((obs >= 0) & (obs <= OBSERVATION_HIGH)).all()
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        obs, masks, *_ = venv.step(actions)

