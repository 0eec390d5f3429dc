"""The diagnostic scripts of ``benchmarks/`` that report findings: they measure what they say."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import ginenv
from agents import make_agent

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["draw", "discard"])
def test_a_swapped_agent_makes_each_kind_of_decision_with_its_owner(kind):
    swap = _script("decision_swap")
    agent, helper = make_agent("random", seed=3), make_agent("greedy")
    mixed = swap.SwappedAgent(make_agent("random", seed=3), make_agent("greedy"), kind)
    env = ginenv.env()
    env.reset(seed=5)
    owners = set()
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if name == "player_0":
            helped = swap.is_draw(obs["action_mask"]) == (kind == "draw")
            expected = (helper if helped else agent).act(obs)
            assert mixed.act(obs) == expected
            owners.add(helped)
            env.step(expected)
        else:
            env.step(int(obs["action_mask"].nonzero()[0][0]))
    assert owners == {True, False}


def test_a_swapped_agent_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        _script("decision_swap").SwappedAgent(make_agent("random"), make_agent("greedy"), "knock")


def test_the_swap_table_scores_the_helper_level_with_itself():
    results = _script("decision_swap").score("random", "greedy", "greedy", games=4, seed=1, ruleset="pagat")
    assert list(results) == ["as_is", "helper_draws", "helper_discards", "helper"]
    assert results["helper"]["win_rate_a"] == 0.5 and results["as_is"]["win_rate_a"] < 0.5
