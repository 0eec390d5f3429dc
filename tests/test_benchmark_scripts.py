"""The diagnostic scripts of ``benchmarks/`` that report findings: they measure what they say."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import ginenv
from agents import make_agent
from ginenv.game.actions import BIG_GIN, KNOCK_BASE

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["draw", "discard", "first_draw", "later_draw"])
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
            helped = swap.covers(kind, obs["action_mask"])
            expected = (helper if helped else agent).act(obs)
            assert mixed.act(obs) == expected
            owners.add(helped)
            env.step(expected)
        else:
            env.step(int(obs["action_mask"].nonzero()[0][0]))
    assert owners == {True, False}


def test_a_swapped_agent_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        _script("decision_swap").SwappedAgent(make_agent("random"), make_agent("greedy"), "shuffle")


def test_the_swap_table_scores_the_helper_level_with_itself():
    results = _script("decision_swap").score("random", "greedy", "greedy", games=4, seed=1, ruleset="pagat")
    assert list(results) == ["as_is", "helper_draws", "helper_discards", "helper"]
    assert results["helper"]["win_rate_a"] == 0.5 and results["as_is"]["win_rate_a"] < 0.5


def test_decision_kinds_split_the_draws_on_whether_passing_is_legal():
    swap = _script("decision_swap")
    first, later, discard = (np.zeros(108, dtype=np.int8) for _ in range(3))
    first[[1, 2]] = later[[0, 1]] = discard[[10, 20]] = 1
    assert [swap.kind_of(m) for m in (first, later, discard)] == ["first_draw", "later_draw", "discard"]
    assert [swap.covers("draw", m) for m in (first, later, discard)] == [True, True, False]
    assert [swap.covers("first_draw", m) for m in (first, later, discard)] == [True, False, False]


def test_a_discard_where_knocking_is_legal_is_a_knock_decision_and_still_a_discard():
    swap = _script("decision_swap")
    knock = np.zeros(108, dtype=np.int8)
    knock[[10, 20, KNOCK_BASE + 10]] = 1
    assert swap.kind_of(knock) == "knock"
    assert swap.covers("knock", knock) and swap.covers("discard", knock) and not swap.covers("draw", knock)


def test_the_split_swap_table_has_one_way_per_kind():
    results = _script("decision_swap").score("random", "greedy", "greedy", games=2, seed=1, ruleset="pagat",
                                             kinds=["first_draw", "later_draw"])
    assert list(results) == ["as_is", "helper_first_draws", "helper_later_draws", "helper"]


def test_draw_choices_count_every_draw_of_the_agent_beside_the_helpers_choice():
    swap = _script("decision_swap")
    counts, gains = swap.draw_choices("greedy", "simple", "greedy", games=2, seed=3, ruleset="pagat")
    assert sum(counts.values()) > 0
    assert sum(gains.values()) == counts.get("later_draw take/take", 0) > 0  # greedy agrees with itself
    assert all(int(key.split()[0].split("..")[1]) > 0 for key in gains)  # greedy takes only to save deadwood
    assert "later draws where greedy takes" in swap.gains_table(gains, "greedy")
    for key in counts:  # an agent asked twice on one observation chooses the same
        kind, choices = key.split()
        mine, theirs = choices.split("/")
        assert kind in ("first_draw", "later_draw") and mine == theirs
    passes = sum(n for key, n in counts.items() if "pass" in key)
    assert passes == sum(n for key, n in counts.items() if key.startswith("first_draw pass"))


def test_draw_advantages_reads_a_runs_next_rollouts_by_kind_and_repeats_them(tmp_path):
    """The report partitions every collected decision into the three kinds, counts greedy's takes among the
    later draws only, and the same run gives the same figures (the checkpoint's generators drive the games)."""
    from train.training.config import load_config
    from train.training.ppo import train

    cfg = load_config(None, ["env.num_envs=8", "ppo.rollout_steps=16", "ppo.total_steps=400", "policy.hidden=16",
                             "policy.card_dim=4", "league.opponents={self: 1}", "checkpoint_every=1", "eval.every=0"])
    run = train(cfg, out=tmp_path, progress_bar=False)
    script = _script("draw_advantages")
    first = script.report(*script.collect(run, rollouts=3))
    kinds = first["by_kind"]
    assert sum(row["decisions"] for row in kinds.values()) == first["decisions"] > 0
    takes = first["greedy_takes"]
    assert takes["decisions"] <= kinds["later_draw"]["decisions"]
    assert takes["sampled_take"] + takes["sampled_stock"] == takes["decisions"]
    assert script.report(*script.collect(run, rollouts=3)) == first
    other = script.report(*script.collect(run, rollouts=3, gae_lambda=0.5))  # the same games, other advantages
    assert other["by_kind"]["discard"]["decisions"] == kinds["discard"]["decisions"]
    assert other["by_kind"]["discard"]["std"] != kinds["discard"]["std"]
    assert "decisions" in script.text(first)


def test_a_threshold_agent_knocks_only_at_or_below_its_deadwood_and_otherwise_plays_as_the_agent():
    script = _script("knock_threshold")
    from agents.neural.features import hand_deadwood
    agent, limited = make_agent("greedy"), script.ThresholdAgent(make_agent("greedy"), 3)
    held = knocked = 0
    for seed in range(40):
        env = ginenv.env()
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = limited.act(obs)
            deadwood = int(hand_deadwood(obs["observation"][None])[0])
            may_knock = bool(obs["action_mask"][KNOCK_BASE:BIG_GIN].any())
            is_knock = KNOCK_BASE <= action < BIG_GIN
            if may_knock and deadwood > 3:
                held += 1
                assert not is_knock
            else:
                knocked += is_knock
                assert action == agent.act(obs)
            env.step(action)
    assert held > 0 and knocked > 0


def test_the_threshold_table_at_the_knock_limit_is_the_agent_as_it_is():
    script = _script("knock_threshold")
    from train.evaluation.evaluate import evaluate
    results = script.score("greedy", "simple", [10], games=6, seed=2, ruleset="pagat")
    plain = evaluate("greedy", "simple", 6, ruleset="pagat", seed=2, workers=1).results_dict()
    assert results["knock_at_most_10"] == plain | {"agent_a": results["knock_at_most_10"]["agent_a"]}


def _observations(episode: str, seeds: range) -> np.ndarray:
    """Every observation player_1 meets in ``seeds``' episodes (games to 100 are cut after 300 steps)."""
    rows, player = [], make_agent("greedy")
    for seed in seeds:
        env = ginenv.env(episode=episode)
        env.reset(seed=seed)
        for step, _ in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc or step > 300:
                break
            rows.append(env.observe("player_1")["observation"])
            env.step(player.act(obs))
    return np.stack(rows)


def test_the_hand_view_zeroes_the_game_context_and_leaves_the_rest_and_the_input_alone():
    script = _script("game_context")
    games = _observations("game", range(3))
    before = games.copy()
    view = script.as_single_hands(games)
    assert (games == before).all()
    assert games[:, script.GAME_CONTEXT].any() and not view[:, script.GAME_CONTEXT].any()
    rest = np.setdiff1d(np.arange(games.shape[1]), script.GAME_CONTEXT)
    assert (view[:, rest] == games[:, rest]).all()


def test_a_single_hand_is_its_own_hand_view():
    hands = _observations("hand", range(3))
    assert (_script("game_context").as_single_hands(hands) == hands).all()


def test_a_hand_view_agent_decides_as_the_agent_does_on_the_hand_view():
    script = _script("game_context")
    games = _observations("game", range(2))
    masks = np.ones((len(games), 108), dtype=np.int8)
    agent = make_agent("selfplay")
    viewed = script.HandViewAgent(make_agent("selfplay"))
    expected = agent.act_batch(script.as_single_hands(games), masks)
    assert (viewed.act_batch(games, masks) == expected).all()
    assert viewed.act({"observation": games[0], "action_mask": masks[0]}) == expected[0]
    assert viewed.batch_key() != agent.batch_key()


def test_the_context_table_scores_a_context_blind_agent_alike_both_ways():
    results = _script("game_context").score("greedy", "simple", games=4, seed=2, ruleset="pagat")
    assert list(results) == ["as_is", "hand_view"]
    assert results["as_is"]["win_rate_a"] == results["hand_view"]["win_rate_a"]
    assert results["as_is"]["points_per_hand_a"] == results["hand_view"]["points_per_hand_a"]
