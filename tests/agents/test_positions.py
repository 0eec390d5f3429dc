"""The search API (agents/search/positions.py): positions built from an observation show the observer
exactly that observation, with the same legal actions; dealing places every unknown card
once; the accessors, stepping and scoring agree with the engine."""
from __future__ import annotations

import numpy as np
import pytest

import ginenv
from agents import make_agent
from agents.search import positions as search
from ginenv.game.encoding import encode
from ginenv.game.hand import HandState


def observed(ruleset: str, seeds: range):
    """``(env, observation)`` for every observation of player_0 in hands of greedy against simple,
    the env as it stands at that observation."""
    for seed in seeds:
        env = ginenv.env(ruleset=ruleset, episode="hand")
        env.reset(seed=seed)
        players = {"player_0": make_agent("greedy"), "player_1": make_agent("simple", seed=seed)}
        for name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if name == "player_0":
                yield env, observation
            env.step(players[name].act(observation))


def observations(ruleset: str, seeds: range):
    """Every observation of player_0 in hands of greedy against simple."""
    for _, observation in observed(ruleset, seeds):
        yield observation


def assert_consistent(rows: np.ndarray, observation: dict) -> None:
    """Every row is a full hand that shows seat 0 exactly ``observation``, with the same
    legal actions; the opponent holds 10 cards, its known picks among them."""
    view = ginenv.decode(observation)
    template = search.position(view, search.forced(view, observation["action_mask"]))
    for row in rows:
        state = template.clone()
        state.row = row.copy()
        assert np.array_equal(encode(state, 0), observation["observation"])
        assert state.legal_actions() == np.flatnonzero(observation["action_mask"]).tolist()
        opponent = state.hand_cards(search.OPPONENT)
        assert len(opponent) == 10 and set(view.opp_picked) <= set(opponent)
        assert sorted(opponent + state.stock + state.pile + state.hand_cards(0)) == list(range(52))


@pytest.mark.parametrize("ruleset", ["pagat", "oklahoma", "classic25"])
def test_samples_show_the_observer_its_observation(ruleset: str) -> None:
    rng = np.random.default_rng(5)
    checked = 0
    for observation in observations(ruleset, range(5)):
        view = ginenv.decode(observation)
        assert_consistent(search.samples(view, rng, 3, search.forced(view, observation["action_mask"])), observation)
        checked += 1
    assert checked >= 30


def test_deal_places_each_unknown_card_once_and_keeps_the_rest() -> None:
    rng = np.random.default_rng(2)
    deck = rng.permutation(52).tolist()
    template = HandState.from_position(dealer=0, hands=[deck[:11], deck[11:21]], pile=deck[21:23],
                                       stock=deck[23:], current_player=0, phase="discard",
                                       picked=[(), deck[11:13]])
    known = (1 << deck[11]) | (1 << deck[12])
    unknown = search.unknown_cards(template.row, known)
    assert sorted(unknown.tolist()) == sorted(deck[13:21] + deck[23:])
    orders = search.shuffles(unknown, rng, 4)
    rows = search.deal(template.row, known, orders, 8)
    for s in range(4):
        state = template.clone()
        state.row = rows[s]
        assert state.hands[0] == template.hands[0] and state.pile == template.pile
        assert state.hands[1] == known | sum(1 << c for c in orders[s, :8].tolist())
        assert state.stock[::-1] == orders[s, 8:].tolist()
        assert sorted(state.hand_cards(0) + state.hand_cards(1) + state.stock + state.pile) == list(range(52))


@pytest.mark.parametrize("ruleset", ["pagat", "oklahoma"])
def test_accessors_step_and_points_agree_with_the_engine(ruleset: str) -> None:
    rng = np.random.default_rng(7)
    for _ in range(30):
        state = HandState.random(rng, ruleset)
        row, rules = state.row.copy(), search.Rules.of(state.ruleset)
        while not state.is_over:
            assert search.phase(row) == {"offer": search.OFFER, "draw": search.DRAW,
                                         "discard": search.DISCARD}[state.phase]
            seat = search.to_act(row)
            assert seat == state.current_player and search.hand(row, seat) == state.hands[seat]
            assert search.top_discard(row) == (state.pile[-1] if state.pile else -1)
            assert search.stock_size(row) == len(state.stock) and search.knock_limit(row) == state.knock_limit
            assert search.may_take(row) == (1 in state.legal_actions())
            assert search.taken(row) == state.taken
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            search.step(row, action, rules)
        assert search.phase(row) == search.OVER and row.tolist() == state.row.tolist()
        result = state.result
        for seat in (0, 1):
            won = 0 if result.winner is None else result.points if result.winner == seat else -result.points
            assert search.points(row, rules, seat) == won


def test_positions_give_the_observer_the_picks_its_opponent_saw() -> None:
    """Seat 0's picks in a position (what the opponent saw it take from the pile) are those the real
    opponent observes, except a first upcard taken at the deal, which no later discard shows."""
    checked = nonempty = 0
    for env, observation in observed("pagat", range(6)):
        view = ginenv.decode(observation)
        state = search.position(view, search.forced(view, observation["action_mask"]))
        mine = {card for card in range(52) if state.picked[0] >> card & 1}
        seen = set(ginenv.decode(env.observe("player_1")).opp_picked)
        assert mine <= seen <= mine | {env.unwrapped.hand.deal.upcard}
        checked, nonempty = checked + 1, nonempty + bool(mine)
    assert checked >= 40 and nonempty >= 5, (checked, nonempty)
