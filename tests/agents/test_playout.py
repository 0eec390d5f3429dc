"""The compiled rollout policy (agents/search/playout.py): legal actions only, the same points as
the engine's own result, and the documented choices in hand-built positions."""
from __future__ import annotations

import numpy as np
import pytest
from deals import cards
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.search.playout import Settings, choose, evaluate, improved, kept_deals, play_out, threshold
from agents.tactics import takes
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.cards import parse_card
from ginenv.game.hand import HandState
from ginenv.game.melds import mask_of
from ginenv.game.rules import resolve_ruleset

PAGAT = Settings.of(resolve_ruleset("pagat"))


def position(mine: str, theirs: str, pile: str, phase: str, *, taken: str | None = None,
             ruleset: str = "pagat") -> HandState:
    """Seat 0 to act; the other cards form the stock (ascending)."""
    hand, other, piled = cards(mine), cards(theirs), cards(pile)
    used = set(hand) | set(other) | set(piled)
    return HandState.from_position(dealer=1, hands=[hand, other], stock=[c for c in range(52) if c not in used],
                                   pile=piled, current_player=0, phase=phase, taken=taken, ruleset=ruleset)


@pytest.mark.parametrize("ruleset", ["pagat", "classic25", "oklahoma", "eaai"])
@given(seed=st.integers(0, 100_000))
@settings(max_examples=60, deadline=None)
def test_rollouts_play_legal_actions_and_score_as_the_engine(ruleset: str, seed: int) -> None:
    state = HandState.random(np.random.default_rng(seed), ruleset)
    row = state.row.copy()
    while not state.is_over:
        state.apply_action(choose(state.row, Settings.of(state.ruleset)))  # raises if illegal
    result = state.result
    expected = 0 if result.winner is None else (result.points if result.winner == 0 else -result.points)
    assert play_out(row, Settings.of(state.ruleset)) == expected
    assert row.tolist() == state.row.tolist()


def test_evaluate_is_play_out_after_each_action_and_leaves_the_samples_alone() -> None:
    rng = np.random.default_rng(11)
    mine = cards("AC 2C 3C 7D 8D KH QS 5S 9H TC 4D")
    rest = [c for c in range(52) if c not in mine]
    states = []
    for _ in range(6):  # determinizations of one discard decision: my hand fixed, the rest shuffled
        shuffled = rng.permutation(rest).tolist()
        states.append(HandState.from_position(dealer=1, hands=[mine, shuffled[:10]], pile=shuffled[10:11],
                                              stock=shuffled[11:], current_player=0, phase="discard"))
    samples = np.stack([s.row for s in states])
    before = samples.copy()
    actions = np.array([DISCARD_BASE + parse_card("KH"), DISCARD_BASE + parse_card("4D"),
                        DISCARD_BASE + parse_card("AC")])
    rules = Settings.of(states[0].ruleset)
    values = evaluate(samples, actions, rules)
    assert values.shape == (3, 6) and (samples == before).all()
    for s, state in enumerate(states):
        for a, action in enumerate(actions):
            twin = state.clone()
            twin.apply_action(int(action))
            assert values[a, s] == play_out(twin.row, rules)
    assert len(set(values.ravel().tolist())) > 1


def test_rollouts_reach_every_scored_outcome() -> None:
    outcomes = set()
    rules = resolve_ruleset("classic25")
    rng = np.random.default_rng(5)
    for _ in range(400):
        state = HandState.random(rng, rules)
        while not state.is_over:
            state.apply_action(choose(state.row, Settings.of(rules)))
        outcomes.add(state.result.outcome)
    assert outcomes == {"knock", "gin", "undercut"}  # it knocks as soon as it may: no dead hands here


def test_takes_a_card_that_makes_a_meld_and_lowers_deadwood() -> None:
    hand = mask_of("7C 8C 2D 3D 9H 9S KH QS JD TH".split())
    assert takes(hand, parse_card("9C"), True)           # 7-8-9 run, lowers the deadwood
    assert not takes(hand, parse_card("4S"), True)       # no meld
    assert takes(hand, parse_card("4S"), False)          # ... but it lowers the deadwood
    melded = mask_of("AC 2C 3C 4D 5D 6D 7H 8H 9H TH".split())
    assert not takes(melded, parse_card("4C"), True)     # makes a meld, but deadwood stays 0
    state = position("7C 8C 2D 3D 9H 9S KH QS JD TH", "AC 2C 3C 4D 5D 6D 7H 8H 9D KS", "9C", "offer")
    assert choose(state.row, PAGAT) == TAKE_DISCARD
    state = position("7C 8C 2D 3D 9H 9S KH QS JD TH", "AC 2C 3C 4D 5D 6D 7H 8H 9D KS", "4S", "offer")
    assert choose(state.row, PAGAT) == PASS
    state = position("7C 8C 2D 3D 9H 9S KH QS JD TH", "AC 2C 3C 4D 5D 6D 7H 8H 9D KS", "4S", "draw")
    assert choose(state.row, PAGAT) == DRAW_STOCK


def test_discards_least_deadwood_then_higher_value_and_knocks_within_the_limit() -> None:
    # 3 melds + KS QH: discarding either leaves 10; ties go to the higher value (equal: the lower id).
    state = position("AC 2C 3C 4D 5D 6D 7H 8H 9H KS QH", "2S 3S 4S 5H 6H TC JC 8D 9D TS", "KD", "discard")
    assert choose(state.row, PAGAT) == KNOCK_BASE + parse_card("QH")
    state.knock_limit = 9
    assert choose(state.row, PAGAT) == DISCARD_BASE + parse_card("QH")
    # the card just taken may not go back
    state = position("AC 2C 3C 4D 5D 6D 7H 8H 9H KS 2H", "2S 3S 4S 5H 6H TC JC 8D 9D TS", "KD", "discard",
                     taken="KS")
    assert choose(state.row, PAGAT) == KNOCK_BASE + parse_card("2H")


def test_big_gin_when_the_ruleset_has_it() -> None:
    state = position("AC 2C 3C 4D 5D 6D 7H 8H 9H TH JH", "2S 3S 4S 5H 6H TC JC 8D 9D TS", "KD", "discard",
                     ruleset="classic25")
    assert choose(state.row, Settings.of(resolve_ruleset("classic25"))) == BIG_GIN
    assert choose(state.row, PAGAT) == KNOCK_BASE + parse_card("JH")  # gin: a 4-card run left


def test_seat_0_knocks_by_its_schedule_and_seat_1_as_soon_as_allowed() -> None:
    schedule = Settings.of(resolve_ruleset("pagat"), knock_early=6, knock_late=0)
    mine, theirs = "AC 2C 3C 4D 5D 6D 7H 8H 9H 5S QH", "2S 3S 4S 5H 6H TC JC 8D 9D TS"
    state = position(mine, theirs, "KD", "discard")           # 30 stock cards: threshold 5.8, 5 left
    assert choose(state.row, schedule) == KNOCK_BASE + parse_card("QH")
    assert threshold(state.row, schedule) == pytest.approx(6 - 6 / 29)  # 30 stock cards
    state = position("AC 2C 3C 4D 5D 6D 7H 8H 9H 8S QH", theirs, "KD", "discard")  # 8 left > 6
    assert choose(state.row, schedule) == DISCARD_BASE + parse_card("QH")
    assert choose(state.row, PAGAT) == KNOCK_BASE + parse_card("QH")
    hand, other = cards("AC 2C 3C 4D 5D 6D 7H 8H 9H 5S QH"), cards(theirs)
    rest = [c for c in range(52) if c not in hand + other]
    late = HandState.from_position(dealer=1, hands=[hand, other], stock=rest[:3], pile=rest[3:],
                                   current_player=0, phase="discard")    # 3 stock cards: threshold 0.2
    assert threshold(late.row, schedule) == pytest.approx(6 - 6 * 28 / 29)
    assert choose(late.row, schedule) == DISCARD_BASE + parse_card("QH")
    theirs_turn = HandState.from_position(dealer=0, hands=[other, hand], stock=rest[:3], pile=rest[3:],
                                          current_player=1, phase="discard")
    assert threshold(theirs_turn.row, schedule) == 10
    assert choose(theirs_turn.row, schedule) == KNOCK_BASE + parse_card("QH")


def test_improved_draws_each_card_and_drops_the_worst_never_a_held_one() -> None:
    hand = mask_of("7H 8H KS QD 2C".split())
    assert improved(hand, np.array(cards("9H")), 0) == mask_of("7H 8H 9H KS 2C".split())  # QD: tie, lower id
    assert improved(hand, np.array(cards("9H JS")), 0) == mask_of("7H 8H 9H KS 2C".split())
    hand = mask_of("7C 7D QD KS 2H".split())
    held = mask_of(["KS"])  # e.g. a card it took from the pile: known, kept
    assert improved(hand, np.array(cards("7S")), held) == mask_of("7C 7D 7S KS 2H".split())


def test_kept_deals_give_the_opponent_its_improved_hand_and_keep_every_card_once() -> None:
    rng = np.random.default_rng(4)
    unknown = np.arange(30, dtype=np.int64)
    orders = np.stack([rng.permutation(unknown) for _ in range(5)])
    reorders = np.stack([rng.permutation(22) for _ in range(5)])
    deals = kept_deals(orders, 8, 6, 0, reorders)
    for s in range(5):
        assert sorted(deals[s].tolist()) == list(range(30))
        dealt = sum(1 << int(c) for c in orders[s, :8])
        assert sum(1 << int(c) for c in deals[s, :8]) == improved(dealt, orders[s, 8:14], 0)
    many = kept_deals(orders, 8, 40, 0, reorders)  # more draws than cards: every card is drawn once
    assert all(sorted(row.tolist()) == list(range(30)) for row in many)
