"""The heuristic agents ``simple`` and ``greedy``: legality over many random states, the
documented choice in hand-built positions (deal injection through ``ginenv.env()``),
greedy's determinism, and building agents by name with parameters.

Positions: ``dealer=0`` so ``player_1`` (non-dealer) gets the first upcard offer (R11).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from deals import cards

import ginenv
from agents import GreedyAgent, SimpleAgent, make_agent
from agents.tactics import OBSERVATION_LAYOUT, Seen, completes_meld, danger, holding_odds, meld_pairs, read_seen
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.cards import parse_card


# ----- helpers -------------------------------------------------------------
def c(text: str) -> int:
    return parse_card(text)


def deal(hand0: str, hand1: str, upcard: str, stock_top: str = "", dealer: int = 0) -> dict[str, Any]:
    """A full deal; the stock starts with ``stock_top`` then the other cards ascending."""
    h0, h1, top, up = cards(hand0), cards(hand1), cards(stock_top), c(upcard)
    used = set(h0) | set(h1) | set(top) | {up}
    return {"dealer": dealer, "hands": [h0, h1], "upcard": up,
            "stock": top + [x for x in range(52) if x not in used]}


def start(the_deal: dict[str, Any], ruleset: str = "pagat", episode: str = "hand", **options: Any) -> Any:
    env = ginenv.env(ruleset=ruleset, episode=episode)
    env.reset(seed=0, options={"deal": the_deal, **options})
    return env


def observe(env: Any) -> dict:
    return env.observe(env.agent_selection)


def play(env: Any, *actions: int) -> None:
    for action in actions:
        env.step(action)


# Hands of player_0: three melds (plus one more card in each deal).
MELDED = "AC 2C 3C 4D 5D 6D 7S 8S 9S"
HIGH = "7C 8C 9C TD JD QD 7S 8S 9S KH"
OPP = "2H 4H 6C 8C TC 3D 8D TD 5S JS"


# ----- legality over many random states -----------------------------------
HAND_PAIRS = [("simple", "greedy"), ("greedy", "random"), ("random", "simple"), ("greedy", "greedy"),
              ("simple", "simple")]
HANDS_PER_PAIR = 10
GAMES_PER_PAIR = 2
GAME_PAIRS = [("simple", "greedy"), ("greedy", "simple"), ("greedy", "greedy")]


def run_game(env: Any, specs: tuple[str, str], seed: int, counts: Counter) -> None:
    """Play one episode, checking each agent's action against the mask; count decisions by agent."""
    env.reset(seed=seed)
    players = {f"player_{i}": make_agent(spec, seed=seed + i) for i, spec in enumerate(specs)}
    for name in env.agent_iter(max_iter=20000):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = players[name].act(observation)
        assert isinstance(action, int)
        assert observation["action_mask"][action] == 1, (players[name].name, action)
        view = ginenv.decode(observation)
        if view.no_discard is not None:
            assert action not in (DISCARD_BASE + view.no_discard, KNOCK_BASE + view.no_discard)
        counts[players[name].name] += 1
        env.step(action)
        if "hand_result" in env.unwrapped.infos[name]:
            for agent in players.values():
                agent.reset()


@pytest.mark.parametrize("ruleset", ["pagat", "classic25", "oklahoma", "eaai"])
@pytest.mark.parametrize("episode", ["hand", "game"])
def test_agents_only_return_legal_actions(ruleset: str, episode: str) -> None:
    env = ginenv.env(ruleset=ruleset, episode=episode)
    counts: Counter = Counter()
    seed = 1000 * len(ruleset) + (500 if episode == "game" else 0)
    for pair in HAND_PAIRS if episode == "hand" else GAME_PAIRS:
        repeats = HANDS_PER_PAIR if episode == "hand" else GAMES_PER_PAIR
        for _ in range(repeats):
            seed += 1
            run_game(env, pair, seed, counts)
    assert counts["simple"] >= 300 and counts["greedy"] >= 300, counts


# ----- simple: hand-built positions ---------------------------------------
def test_completes_meld_sets_runs_and_ace_low() -> None:
    hand = sum(1 << x for x in cards("KH QH 2C 3C 9D 9S"))
    assert completes_meld(hand, c("JH"))        # J-Q-K run
    assert completes_meld(hand, c("AC"))        # A-2-3 run (R5, ace low)
    assert completes_meld(hand, c("9C"))        # a set of 9s
    assert not completes_meld(hand, c("AH"))    # K-A is no run (R5)
    assert not completes_meld(hand, c("TD"))    # 9D-TD is only a pair


def test_simple_takes_first_upcard_that_makes_a_meld() -> None:
    # player_1 holds 5H 6H: the upcard 7H makes the run 5H-6H-7H.
    env = start(deal(MELDED + " KH", "5H 6H AD 9C JC QD KD TS QS KS", "7H"))
    assert make_agent("simple", seed=0).act(observe(env)) == TAKE_DISCARD


def test_simple_passes_first_upcard_that_makes_no_meld_and_draws_later() -> None:
    env = start(deal(MELDED + " KH", "5H 6H AD 9C JC QD KD TS QS KS", "2H"))
    agent = make_agent("simple", seed=0)
    assert agent.act(observe(env)) == PASS   # 2H: no meld with 5H 6H
    play(env, PASS, PASS)                     # it passes, and the dealer too
    assert agent.act(observe(env)) == DRAW_STOCK   # forced draw: the only legal action


def test_simple_discards_uniformly_among_least_deadwood_cards() -> None:
    # player_1 draws 4H (no meld); its deadwood cards are KD QD TS QS KS ... every 10-point
    # card leaves the same least deadwood, so each of them is a possible discard.
    hand1 = "5H 6H 7H AD 9C JC QD KD QS KS"
    env = start(deal(MELDED + " KH", hand1, "2H", stock_top="4H"))
    play(env, PASS, PASS, DRAW_STOCK)
    obs = observe(env)
    tens = {DISCARD_BASE + x for x in cards("JC QD KD QS KS")}
    picks = {SimpleAgent(seed=s).act(obs) for s in range(60)}
    assert picks == tens
    assert SimpleAgent(seed=3).act(obs) == SimpleAgent(seed=3).act(obs)   # seeded


def test_simple_knocks_as_soon_as_allowed_with_least_deadwood() -> None:
    # player_1 takes the upcard 7H (run 5H-6H-7H); knocking with QS leaves AD: deadwood 1
    # (knocking with AD would leave QS, 10).
    hand1 = "5H 6H AC 2C 3C 4D 5D 6D AD QS"
    env = start(deal(HIGH, hand1, "7H"))
    agent = make_agent("simple", seed=0)
    assert agent.act(observe(env)) == TAKE_DISCARD
    play(env, TAKE_DISCARD)
    assert agent.act(observe(env)) == KNOCK_BASE + c("QS")


def test_simple_and_greedy_take_big_gin_when_legal() -> None:
    hand1 = "AC 2C 3C 4D 5D 6D 7D 8H 9H JH"   # deadwood 27; + TH: all 11 cards melded (R16)
    # pagat has no big gin: gin by knocking with 4D, 7D, 8H or JH (the taken TH may not go);
    # greedy breaks the tie by the higher value.
    gins = {KNOCK_BASE + x for x in cards("4D 7D 8H JH")}
    for ruleset, spec, expected in (("classic25", "simple", {BIG_GIN}), ("classic25", "greedy", {BIG_GIN}),
                                    ("pagat", "simple", gins), ("pagat", "greedy", {KNOCK_BASE + c("JH")})):
        env = start(deal("2S 3S 4S 5S 6S 7S 8S 9S TS JS", hand1, "TH"), ruleset=ruleset)
        agent = make_agent(spec, seed=0)
        assert agent.act(observe(env)) == TAKE_DISCARD
        play(env, TAKE_DISCARD)
        assert agent.act(observe(env)) in expected, (ruleset, spec)


# ----- greedy: hand-built positions ----------------------------------------
def test_greedy_takes_only_when_it_lowers_deadwood_and_melds() -> None:
    hand1 = "5H 6H AC 2C 3C 4D 5D 6D KD QS"                 # deadwood 20
    melds = start(deal(HIGH, hand1, "7H"))                  # run 5H-7H, then KD goes: 10
    low_single = start(deal(HIGH, hand1, "2S"))             # 2S for KD: 12, but no meld
    assert make_agent("greedy").act(observe(melds)) == TAKE_DISCARD
    assert make_agent("greedy").act(observe(low_single)) == PASS
    assert make_agent("greedy:take=lower").act(observe(low_single)) == TAKE_DISCARD
    # a card that would not lower the deadwood is never taken: KS replaces a 10 by a 10
    no_gain = start(deal(HIGH, hand1, "KS"))
    assert make_agent("greedy:take=lower").act(observe(no_gain)) == PASS


# Two melds, three low unmatched cards and KH: no knock after any discard.
TWO_MELDS = "AC 2C 3C 7S 8S 9S 4D 6D 9C KH"


def danger_position() -> Any:
    """player_1 takes the upcard QH (so the opponent is known to hold it) and discards 2H;
    player_0 draws KS: discarding KH or KS leaves the same deadwood 29, and the same
    one-draw prospect, so the danger decides."""
    env = start(deal(TWO_MELDS, "JH 6C 8C TC 3D 8D TD 5S JS 2H", "QH", stock_top="KS"))
    play(env, TAKE_DISCARD, DISCARD_BASE + c("2H"), DRAW_STOCK)
    assert env.agent_selection == "player_0"
    return env


def test_greedy_discards_the_card_less_dangerous_to_the_opponent() -> None:
    env = danger_position()
    view = ginenv.decode(observe(env))
    assert view.opp_picked == (c("QH"),)
    for spec in ("greedy", "greedy:lookahead=false"):
        assert make_agent(spec).act(observe(env)) == DISCARD_BASE + c("KS"), spec


def test_greedy_literal_order_residual_deadwood_first() -> None:
    # With lookahead off the least residual deadwood wins over danger: player_0 draws 5H
    # instead of the KS, so discarding KH (leaving 24) beats anything else, dangerous or not.
    env = start(deal(TWO_MELDS, "JH 6C 8C TC 3D 8D TD 5S JS 2H", "QH", stock_top="5H"))
    play(env, TAKE_DISCARD, DISCARD_BASE + c("2H"), DRAW_STOCK)
    assert make_agent("greedy:lookahead=false").act(observe(env)) == DISCARD_BASE + c("KH")


def seen_of(env: Any) -> Seen:
    return read_seen(observe(env)["observation"], OBSERVATION_LAYOUT)


def test_danger_counts_known_cards_against_and_discards_for() -> None:
    odds = holding_odds(seen_of(danger_position()))
    assert odds[c("QH")] == 1.0 and odds[c("KH")] == 0.0 and odds[c("2H")] == 0.0
    assert odds[c("3H")] < odds[c("9H")]       # next to the 2H they discarded: halved
    assert danger(c("KH"), odds) > danger(c("KS"), odds)    # QH is known to be theirs
    assert danger(c("KH"), np.zeros(52)) == 0.0             # a dead card: no meld possible
    assert danger(c("KH"), np.ones(52)) == 1.0
    assert len(meld_pairs(c("AC"))) == 3 + 1 and len(meld_pairs(c("5D"))) == 3 + 3


def test_read_seen_reads_what_decode_reads() -> None:
    env = danger_position()
    view, seen = ginenv.decode(observe(env)), seen_of(env)
    pile = set(view.pile_rest) | {view.top_discard}
    assert seen.hand == sum(1 << x for x in view.hand) and seen.pile == sum(1 << x for x in pile)
    assert (seen.top_discard, seen.opp_picked, seen.opp_discards) == (
        view.top_discard, sum(1 << x for x in view.opp_picked), sum(1 << x for x in view.opp_discards))
    assert (seen.stock_size, seen.knock_limit, seen.target, seen.no_discard) == (view.stock_size, 10, 0, -1)


def test_greedy_knocks_as_soon_as_allowed_by_default() -> None:
    hand1 = "5H 6H AC 2C 3C 4D 5D 6D AD QS"
    env = start(deal(HIGH, hand1, "7H"))
    play(env, TAKE_DISCARD)
    assert make_agent("greedy").act(observe(env)) == KNOCK_BASE + c("QS")   # deadwood 1 left
    # gin only: a threshold of 0 keeps playing with deadwood 1
    action = make_agent("greedy:knock_early=0,knock_late=0").act(observe(env))
    assert DISCARD_BASE <= action < KNOCK_BASE


def test_greedy_always_knocks_gin() -> None:
    hand1 = "5H 6H AC 2C 3C 4D 5D 6D 7D QS"
    env = start(deal(HIGH, hand1, "7H"))
    play(env, TAKE_DISCARD)
    assert make_agent("greedy:knock_early=0,knock_late=0").act(observe(env)) == KNOCK_BASE + c("QS")


def test_greedy_threshold_formula_stock_and_score() -> None:
    seen = seen_of(start(deal(MELDED + " KH", OPP, "QH")))      # stock 31: progress 0
    assert GreedyAgent(knock_early=4, knock_late=8).threshold(seen) == 4
    late = seen._replace(stock_size=2)
    assert GreedyAgent(knock_early=4, knock_late=8).threshold(late) == 8
    middle = seen._replace(stock_size=31 - 14)
    assert GreedyAgent(knock_early=4, knock_late=8).threshold(middle) == pytest.approx(4 + 4 * 14 / 29)
    assert GreedyAgent(knock_early=12, knock_late=12).threshold(seen) == 10   # capped by the limit
    # game mode: far behind (mine 40 <= 90 - 25) near the end (opponent >= 100 - 25): + bonus
    behind = seen_of(start(deal(MELDED + " KH", OPP, "QH"), episode="game", scores=[90, 40]))
    assert (behind.my_score, behind.opp_score, behind.target) == (40, 90, 100)   # player_1 to act
    assert GreedyAgent(knock_early=3, knock_late=3).threshold(behind) == 10   # 3 + 10, capped at 10
    assert GreedyAgent(knock_early=3, knock_late=3, behind_bonus=2).threshold(behind) == 5
    close = seen_of(start(deal(MELDED + " KH", OPP, "QH"), episode="game", scores=[90, 70]))
    assert GreedyAgent(knock_early=3, knock_late=3).threshold(close) == 3


# ----- determinism and construction ---------------------------------------
def action_trace(spec_0: str, spec_1: str, seed: int, seeds: tuple[int, int]) -> list[int]:
    env = ginenv.env(ruleset="eaai", episode="hand")
    env.reset(seed=seed)
    players = {"player_0": make_agent(spec_0, seed=seeds[0]), "player_1": make_agent(spec_1, seed=seeds[1])}
    trace = []
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        trace.append(players[name].act(observation))
        env.step(trace[-1])
    return trace


def test_greedy_is_deterministic() -> None:
    for seed in range(3):
        first = action_trace("greedy", "greedy", seed, (0, 1))
        assert first == action_trace("greedy", "greedy", seed, (123, 456))   # seed ignored
    env = danger_position()
    obs = observe(env)
    agent = make_agent("greedy")
    assert len({agent.act(obs) for _ in range(5)}) == 1


def test_agents_by_spec_and_config_with_parameters() -> None:
    greedy = make_agent("greedy:knock_early=6,knock_late=2,take=lower,lookahead=false,danger_weight=0.5")
    assert isinstance(greedy, GreedyAgent) and greedy.name == "greedy"
    assert (greedy.knock_early, greedy.knock_late, greedy.take, greedy.lookahead, greedy.danger_weight) == (
        6, 2, "lower", False, 0.5)
    config = make_agent({"name": "greedy", "behind_bonus": 3, "residual_weight": 1}, seed=4)
    assert config.behind_bonus == 3 and config.residual_weight == 1
    defaults = make_agent("greedy")
    assert (defaults.take, defaults.lookahead, defaults.knock_early, defaults.knock_late) == ("meld", True, 10, 10)
    simple = make_agent("simple", seed=7)
    assert isinstance(simple, SimpleAgent) and simple.name == "simple"
    simple.reset()


@pytest.mark.parametrize("spec", [
    "greedy:foo=1", "simple:samples=3", {"name": "simple", "knock": 1}, "greedy:take=always",
    "greedy:knock_early=-1", "greedy:lookahead=1", "greedy:danger_weight=high", "simple:seed=3",
])
def test_unknown_or_bad_parameters_are_value_errors(spec: Any) -> None:
    with pytest.raises(ValueError):
        make_agent(spec, seed=0)
