"""Rulesets: the presets against the ruleset table of docs/rules.md, per-parameter overrides,
validation (a ``ValueError`` naming the parameter and what is allowed), immutability
and the ``to_dict``/``from_dict`` round trip.
"""
from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginenv import PRESETS, Ruleset
from ginenv.game.rules import resolve_ruleset

# The ruleset table of docs/rules.md, transcribed column by column (big_gin_bonus 31 is the table's
# "on, 31"; it is kept at 31 where big gin is off).
VARIANT_TABLE = {
    "pagat": dict(knock_limit=10, gin_bonus=20, undercut_bonus=10, big_gin=False, big_gin_bonus=31, target=100,
                  game_bonus=100, shutout_mode="bonus", box_bonus=20, next_dealer="winner", spade_double=False),
    "classic25": dict(knock_limit=10, gin_bonus=25, undercut_bonus=25, big_gin=True, big_gin_bonus=31, target=100,
                      game_bonus=100, shutout_mode="double", box_bonus=25, next_dealer="alternate",
                      spade_double=False),
    "oklahoma": dict(knock_limit="upcard", gin_bonus=25, undercut_bonus=25, big_gin=False, big_gin_bonus=31,
                     target=150, game_bonus=100, shutout_mode="bonus", box_bonus=25, next_dealer="alternate",
                     spade_double=True),
    "eaai": dict(knock_limit=10, gin_bonus=25, undercut_bonus=25, big_gin=False, big_gin_bonus=31, target=100,
                 game_bonus=0, shutout_mode="none", box_bonus=0, next_dealer="alternate", spade_double=False),
}
FIELDS = [f.name for f in dataclasses.fields(Ruleset)]
TABLE_CELLS = [(preset, param) for preset, row in VARIANT_TABLE.items() for param in row]

# For each parameter, valid values; an override picks one that differs from the preset.
VALID = {
    "knock_limit": [7, 0, 10, "upcard"],
    "gin_bonus": [33, 0],
    "undercut_bonus": [0, 15],
    "big_gin": [True, False],
    "big_gin_bonus": [50, 0],
    "target": [250, 1],
    "game_bonus": [0, 150],
    "shutout_mode": ["none", "bonus", "double"],
    "box_bonus": [0, 30],
    "next_dealer": ["alternate", "winner"],
    "spade_double": [True, False],
    "max_turns_per_hand": [50, 1],
    "name": ["custom"],
}

# (parameter, bad value, words the message must contain)
INVALID = [
    ("gin_bonus", -1, ["gin_bonus", "0..1000"]),
    ("gin_bonus", 1001, ["gin_bonus", "0..1000"]),
    ("gin_bonus", 2**63 - 1, ["gin_bonus", "0..1000"]),
    ("gin_bonus", 2.5, ["gin_bonus"]),
    ("gin_bonus", "20", ["gin_bonus"]),
    ("gin_bonus", None, ["gin_bonus"]),
    ("undercut_bonus", -10, ["undercut_bonus", "0..1000"]),
    ("big_gin_bonus", -31, ["big_gin_bonus", "0..1000"]),
    ("game_bonus", -100, ["game_bonus", "0..1000"]),
    ("box_bonus", -20, ["box_bonus", "0..1000"]),
    ("box_bonus", True, ["box_bonus"]),
    ("knock_limit", -1, ["knock_limit", "0..10"]),
    ("knock_limit", 11, ["knock_limit", "0..10"]),
    ("knock_limit", 10.0, ["knock_limit", "0..10"]),
    ("knock_limit", True, ["knock_limit", "0..10"]),
    ("knock_limit", "ace", ["knock_limit", "upcard"]),
    ("target", 0, ["target", "1..10000"]),
    ("target", -100, ["target", "1..10000"]),
    ("target", 10**30, ["target", "1..10000"]),
    ("shutout_mode", "triple", ["shutout_mode", "bonus", "double", "none"]),
    ("shutout_mode", None, ["shutout_mode"]),
    ("next_dealer", "loser", ["next_dealer", "winner", "alternate"]),
    ("big_gin", "yes", ["big_gin"]),
    ("big_gin", 1, ["big_gin"]),
    ("spade_double", 0, ["spade_double"]),
    ("max_turns_per_hand", 0, ["max_turns_per_hand", "1..10000"]),
    ("max_turns_per_hand", 10**12, ["max_turns_per_hand", "1..10000"]),
    ("name", 5, ["name"]),
]


# ----------------------------------------------------------------- presets = table
def test_presets_are_the_four_of_the_table():
    assert set(PRESETS) == set(VARIANT_TABLE)


@pytest.mark.parametrize("preset, param", TABLE_CELLS)
def test_preset_matches_variant_table(preset, param):
    assert getattr(Ruleset.preset(preset), param) == VARIANT_TABLE[preset][param]


@pytest.mark.parametrize("preset", VARIANT_TABLE)
def test_preset_name_and_defaults(preset):
    rules = Ruleset.preset(preset)
    assert rules.name == preset
    assert rules == PRESETS[preset] == resolve_ruleset(preset)
    assert rules.max_turns_per_hand >= 1


def test_default_ruleset_is_pagat():
    assert Ruleset() == Ruleset.preset("pagat") == resolve_ruleset() == resolve_ruleset(None)


def test_seed_001_is_classic25_with_two_overrides():
    # the "seed 001" variant: classic25 with box_bonus=20, shutout_mode="bonus"
    rules = Ruleset.preset("classic25", box_bonus=20, shutout_mode="bonus")
    assert (rules.gin_bonus, rules.undercut_bonus, rules.box_bonus, rules.shutout_mode) == (25, 25, 20, "bonus")


# ----------------------------------------------------------------- overrides
def _other_value(preset: str, param: str):
    current = getattr(Ruleset.preset(preset), param)
    return next(v for v in VALID[param] if v != current)


@pytest.mark.parametrize("preset", VARIANT_TABLE)
@pytest.mark.parametrize("param", FIELDS)
def test_every_parameter_can_be_overridden_alone(preset, param):
    value = _other_value(preset, param)
    base = Ruleset.preset(preset)
    for rules in (Ruleset.preset(preset, **{param: value}), base.with_overrides(**{param: value}),
                  resolve_ruleset(preset, **{param: value}), resolve_ruleset(base, **{param: value})):
        assert getattr(rules, param) == value
        for other in FIELDS:
            if other != param:
                assert getattr(rules, other) == getattr(base, other), other
    # the preset itself is untouched
    assert Ruleset.preset(preset) == base == PRESETS[preset]


@pytest.mark.parametrize("limit", range(0, 11))
def test_knock_limit_accepts_0_to_10(limit):
    assert Ruleset(knock_limit=limit).knock_limit == limit


def test_overrides_keep_the_preset_name():
    assert Ruleset.preset("oklahoma", target=200).name == "oklahoma"


def test_no_overrides_returns_an_equal_ruleset():
    assert Ruleset.preset("eaai").with_overrides() == PRESETS["eaai"]


# ----------------------------------------------------------------- validation
@pytest.mark.parametrize("param, value, words", INVALID)
def test_invalid_value_names_the_parameter_and_the_allowed_values(param, value, words):
    with pytest.raises(ValueError) as info:
        Ruleset(**{param: value})
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("preset", VARIANT_TABLE)
@pytest.mark.parametrize("param, value, words", INVALID)
def test_invalid_override_is_rejected_on_every_preset(preset, param, value, words):
    with pytest.raises(ValueError, match=param):
        Ruleset.preset(preset, **{param: value})
    with pytest.raises(ValueError, match=param):
        resolve_ruleset(preset, **{param: value})


def test_unknown_parameter_is_named():
    with pytest.raises(ValueError, match="gin_bonuss"):
        Ruleset.preset("pagat", gin_bonuss=25)
    with pytest.raises(ValueError, match="knock"):
        Ruleset().with_overrides(knock=5)
    with pytest.raises(ValueError, match="colour"):
        resolve_ruleset("eaai", colour="red")


def test_unknown_preset_is_named_with_the_choices():
    for call in (lambda: Ruleset.preset("texas"), lambda: resolve_ruleset("texas")):
        with pytest.raises(ValueError) as info:
            call()
        message = str(info.value)
        assert "texas" in message
        assert all(name in message for name in VARIANT_TABLE)


def test_resolve_ruleset_rejects_other_types():
    with pytest.raises(ValueError):
        resolve_ruleset(42)  # type: ignore[arg-type]


# ----------------------------------------------------------------- frozen, round trip
def test_ruleset_is_frozen():
    rules = Ruleset.preset("pagat")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.gin_bonus = 25  # type: ignore[misc]
    assert rules.gin_bonus == 20 and PRESETS["pagat"].gin_bonus == 20
    assert hash(rules) == hash(Ruleset())


@pytest.mark.parametrize("preset", VARIANT_TABLE)
def test_to_dict_from_dict_round_trip(preset):
    rules = Ruleset.preset(preset)
    data = rules.to_dict()
    assert set(data) == set(FIELDS)
    assert Ruleset.from_dict(data) == rules
    assert Ruleset.from_dict(json.loads(json.dumps(data))) == rules


def test_from_dict_of_a_partial_dict_starts_from_the_named_preset():
    # {"name": "oklahoma"} alone must not be pagat values under an Oklahoma label
    assert Ruleset.from_dict({"name": "oklahoma"}) == PRESETS["oklahoma"]
    assert Ruleset.from_dict({"name": "classic25", "box_bonus": 20}) == Ruleset.preset("classic25", box_bonus=20)
    assert Ruleset.from_dict({}) == Ruleset()
    assert Ruleset.from_dict({"name": "custom", "gin_bonus": 30}) == Ruleset(name="custom", gin_bonus=30)


def test_from_dict_rejects_unknown_and_invalid():
    with pytest.raises(ValueError, match="colour"):
        Ruleset.from_dict({**Ruleset().to_dict(), "colour": "red"})
    with pytest.raises(ValueError, match="target"):
        Ruleset.from_dict({**Ruleset().to_dict(), "target": 0})


@settings(max_examples=150, deadline=None)
@given(preset=st.sampled_from(sorted(VARIANT_TABLE)),
       overrides=st.fixed_dictionaries({}, optional={
           "knock_limit": st.one_of(st.integers(0, 10), st.just("upcard")),
           "gin_bonus": st.integers(0, 100),
           "undercut_bonus": st.integers(0, 100),
           "big_gin": st.booleans(),
           "big_gin_bonus": st.integers(0, 100),
           "target": st.integers(1, 1000),
           "game_bonus": st.integers(0, 500),
           "shutout_mode": st.sampled_from(["bonus", "double", "none"]),
           "box_bonus": st.integers(0, 100),
           "next_dealer": st.sampled_from(["winner", "alternate"]),
           "spade_double": st.booleans(),
           "max_turns_per_hand": st.integers(1, 1000),
       }))
def test_round_trip_with_any_valid_overrides(preset, overrides):
    rules = Ruleset.preset(preset, **overrides)
    assert Ruleset.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    for param, value in overrides.items():
        assert getattr(rules, param) == value
