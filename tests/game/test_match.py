"""The game to the target (R26-R28): game, shutout and box bonuses, the next dealer,
``game_result``/``next_dealer`` directly and ``MatchState`` end to end.

Expected numbers are derived by hand in comments from docs/rules.md, never copied from
the engine.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginenv import Deal, GameResult, HandResult, IllegalActionError, MatchState, Ruleset
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, knock_action
from ginenv.game.cards import parse_card
from ginenv.game.match import game_result, next_dealer
from ginenv.game.melds import mask_deadwood

PRESET_NAMES = ("pagat", "classic25", "oklahoma", "eaai")
ALTERNATE = ("classic25", "oklahoma", "eaai")


# ----------------------------------------------------------------- helpers
def knock_deal(knocker_hand: str, defender_hand: str, *, upcard: str, draw: str, dealer: int) -> Deal:
    """The non-dealer holds ``knocker_hand``, the dealer ``defender_hand``; ``draw`` tops the stock."""
    kn, de = [parse_card(c) for c in knocker_hand.split()], [parse_card(c) for c in defender_hand.split()]
    up, top = parse_card(upcard), parse_card(draw)
    used = set(kn) | set(de) | {up, top}
    assert len(used) == 22, "test deal reuses a card"
    hands: list = [None, None]
    hands[1 - dealer], hands[dealer] = kn, de
    return Deal.from_cards(dealer, hands, up, [top] + [c for c in range(52) if c not in used])


# Knocker deadwood 6S = 6.  Defender CORE + AS 2S 8S 3H = 1 + 2 + 8 + 3 = 14: the knocker
# (non-dealer) scores 14 - 6 = 8 in every ruleset.
KNOCK_6 = "AC 2C 3C 4D 5D 6D 7H 8H 9H 6S"
CORE = "JC QC KC JD QD KD"
KNOCKER_WINS_8 = (KNOCK_6, CORE + " AS 2S 8S 3H")
# Defender TC-KC, JD QD KD, AS AH 2S = 4: undercut, the defender (dealer) scores
# 6 - 4 + 10 = 12 in pagat, 6 - 4 + 25 = 27 in classic25 and eaai.
DEFENDER_UNDERCUTS = (KNOCK_6, "TC JC QC KC JD QD KD AS AH 2S")


def play_knock(match: MatchState, draw: str = "KH") -> HandResult:
    """Both pass, the non-dealer draws and knocks discarding the drawn card."""
    for action in (PASS, PASS, DRAW_STOCK):
        assert match.apply_action(action) is None
    result = match.apply_action(knock_action(draw))
    assert result is not None
    return result


def start(ruleset, position, *, dealer=0, seed=0, **kwargs) -> MatchState:
    deal = knock_deal(*position, upcard="5C", draw="KH", dealer=dealer)
    return MatchState(np.random.default_rng(seed), ruleset, first_deal=deal, **kwargs)


def play_dead_hand(match: MatchState) -> HandResult:
    """Both pass; every turn draws from the stock and throws the drawn card back (R25)."""
    match.apply_action(PASS)
    match.apply_action(PASS)
    while True:
        match.apply_action(DRAW_STOCK)
        result = match.apply_action(DISCARD_BASE + match.hand.events[-1]["card"])
        if result is not None:
            return result


def greedy_action(match: MatchState) -> int:
    """Pass the upcard, draw from the stock, knock (or big gin) when allowed, else throw
    the card leaving the least deadwood."""
    legal = match.legal_actions()
    if BIG_GIN in legal:
        return BIG_GIN
    knocks = [a for a in legal if KNOCK_BASE <= a < BIG_GIN]
    if PASS in legal:
        return PASS
    if DRAW_STOCK in legal:
        return DRAW_STOCK
    if knocks:
        return knocks[0]
    hand = match.hand.hands[match.current_player]
    return min(legal, key=lambda a: (mask_deadwood(hand & ~(1 << (a - DISCARD_BASE))), a))


def expected_final(rules: Ruleset, scores, hands_won) -> tuple[int, int]:
    """R26-R27 and the shutout modes, written out independently."""
    winner = 0 if scores[0] >= rules.target else 1
    shutout = scores[1 - winner] == 0
    final = [scores[i] + rules.box_bonus * hands_won[i] for i in (0, 1)]
    if shutout and rules.shutout_mode == "double":
        final[winner] += scores[winner]
    final[winner] += rules.game_bonus * (2 if shutout and rules.shutout_mode == "bonus" else 1)
    return final[0], final[1]


# ----------------------------------------------------------------- game_result directly
def test_R26_R27_game_bonus_and_box_bonus_pagat():
    # winner 105 + 100 + 4 * 20 = 285; loser 40 + 2 * 20 = 80
    r = game_result(Ruleset(), [105, 40], [4, 2])
    assert (r.winner, r.game_bonus, r.shutout) == (0, 100, False)
    assert (r.scores, r.hands_won, r.box_bonus, r.final_scores) == ((105, 40), (4, 2), (80, 40), (285, 80))


def test_R26_shutout_game_bonus_200_pagat():
    # 104 + 200 + 3 * 20 = 364
    r = game_result(Ruleset(), [104, 0], [3, 0])
    assert (r.winner, r.game_bonus, r.shutout, r.final_scores) == (0, 200, True, (364, 0))


def test_R26_winner_in_seat_1():
    # 101 + 100 + 3 * 20 = 261; 30 + 1 * 20 = 50
    r = game_result(Ruleset(), [30, 101], [1, 3])
    assert (r.winner, r.final_scores) == (1, (50, 261))


def test_R26_classic25_shutout_doubles_running_points():
    # 110 * 2 + 100 + 4 * 25 = 420
    r = game_result(Ruleset.preset("classic25"), [110, 0], [4, 0])
    assert (r.game_bonus, r.shutout, r.final_scores) == (100, True, (420, 0))


def test_R26_classic25_without_shutout():
    # 110 + 100 + 4 * 25 = 310; 30 + 2 * 25 = 80
    r = game_result(Ruleset.preset("classic25"), [110, 30], [4, 2])
    assert (r.game_bonus, r.shutout, r.final_scores) == (100, False, (310, 80))


def test_R26_seed_001_scoring_is_classic25_with_overrides():
    # box 20, shutout bonus: 100 + 200 + 2 * 20 = 340
    rules = Ruleset.preset("classic25", box_bonus=20, shutout_mode="bonus")
    assert game_result(rules, [100, 0], [2, 0]).final_scores == (340, 0)


def test_R26_eaai_has_no_game_shutout_or_box_bonus():
    r = game_result(Ruleset.preset("eaai"), [100, 99], [5, 6])
    assert (r.game_bonus, r.box_bonus, r.final_scores) == (0, (0, 0), (100, 99))
    r = game_result(Ruleset.preset("eaai"), [100, 0], [5, 0])
    assert (r.game_bonus, r.final_scores) == (0, (100, 0))


def test_R26_oklahoma_target_150_and_bonuses_not_doubled():
    # 150 + 100 + 5 * 25 = 375; 20 + 25 = 45 (no spade doubling at game level)
    r = game_result(Ruleset.preset("oklahoma"), [150, 20], [5, 1])
    assert (r.winner, r.game_bonus, r.final_scores) == (0, 100, (375, 45))
    with pytest.raises(ValueError, match="target 150"):
        game_result(Ruleset.preset("oklahoma"), [149, 20], [5, 1])


def test_game_result_to_dict_contract():
    d = game_result(Ruleset(), [105, 40], [4, 2]).to_dict()
    assert d["winner"] == "player_0"
    assert (d["scores"], d["hands_won"], d["box_bonus"], d["final_scores"]) == ([105, 40], [4, 2], [80, 40], [285, 80])
    assert d["game_bonus"] == 100
    assert game_result(Ruleset(), [1, 100], [1, 1]).to_dict(("a", "b"))["winner"] == "b"


@pytest.mark.parametrize("scores, hands_won", [
    ([99, 0], [1, 0]),          # nobody at the target
    ([100, 100], [1, 1]),       # both at the target
    ([-1, 100], [0, 1]),        # negative score
    ([100], [1, 0]),            # not a pair
    ([100, 0, 0], [1, 0]),
    ([100, 0], [1, -1]),        # negative hands won
    ([100, 0], [1.5, 0]),       # not ints
    ([100, 0], [True, 0]),
    ([100, "0"], [1, 0]),
])
def test_game_result_rejects_bad_input(scores, hands_won):
    with pytest.raises(ValueError):
        game_result(Ruleset(), scores, hands_won)


@settings(max_examples=200, deadline=None)
@given(preset=st.sampled_from(PRESET_NAMES), data=st.data())
def test_R26_R27_game_result_property(preset, data):
    rules = Ruleset.preset(preset)
    winner = data.draw(st.integers(0, 1))
    scores = [0, 0]
    scores[winner] = data.draw(st.integers(rules.target, rules.target + 200))
    scores[1 - winner] = data.draw(st.integers(0, rules.target - 1))
    hands_won = data.draw(st.lists(st.integers(0, 30), min_size=2, max_size=2))
    r = game_result(rules, scores, hands_won)
    assert r.winner == winner
    assert r.final_scores == expected_final(rules, scores, hands_won)
    assert r.box_bonus == (rules.box_bonus * hands_won[0], rules.box_bonus * hands_won[1])
    # the loser only ever adds its box bonus
    assert r.final_scores[1 - winner] == scores[1 - winner] + r.box_bonus[1 - winner]


# ----------------------------------------------------------------- next_dealer directly
KNOCK_BY_1 = HandResult("knock", knocker=1, winner=1, points=5)
UNDERCUT_BY_0 = HandResult("undercut", knocker=1, winner=0, points=12)
DEAD = HandResult("dead")
TRUNCATED = HandResult("dead", truncated=True)


@pytest.mark.parametrize("dealer", [0, 1])
def test_R28_pagat_winner_of_previous_hand_deals(dealer):
    rules = Ruleset()
    assert next_dealer(rules, dealer, KNOCK_BY_1) == 1
    assert next_dealer(rules, dealer, UNDERCUT_BY_0) == 0
    assert next_dealer(rules, dealer, HandResult("gin", knocker=0, winner=0, points=30)) == 0


@pytest.mark.parametrize("preset", ALTERNATE)
@pytest.mark.parametrize("dealer", [0, 1])
def test_R28_other_rulesets_alternate(preset, dealer):
    rules = Ruleset.preset(preset)
    assert next_dealer(rules, dealer, KNOCK_BY_1) == 1 - dealer
    assert next_dealer(rules, dealer, UNDERCUT_BY_0) == 1 - dealer


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("dealer", [0, 1])
def test_R28_same_dealer_after_dead_hand(preset, dealer):
    rules = Ruleset.preset(preset)
    assert next_dealer(rules, dealer, DEAD) == dealer
    assert next_dealer(rules, dealer, TRUNCATED) == dealer


# ----------------------------------------------------------------- MatchState end to end
def test_R26_match_ends_at_target_with_shutout_bonus():
    # seat 1 at 95 scores 8 -> 103 >= 100; seat 0 has 0: shutout, game bonus 200.
    # hands won (0, 2) + 1 -> (0, 3); final 103 + 200 + 3 * 20 = 363
    match = start("pagat", KNOCKER_WINS_8, scores=(0, 95), hands_won=(0, 2))
    result = play_knock(match)
    assert (result.winner, result.points) == (1, 8)
    assert match.is_over and match.legal_actions() == [] and match.current_player is None
    g = match.result
    assert (g.winner, g.scores, g.hands_won, g.game_bonus, g.box_bonus, g.final_scores) == \
        (1, (0, 103), (0, 3), 200, (0, 60), (0, 363))
    with pytest.raises(IllegalActionError):
        match.apply_action(DRAW_STOCK)


def test_R26_R27_match_end_without_shutout():
    # seat 1: 95 + 8 = 103; final 103 + 100 + (4 + 1) * 20 = 303; seat 0: 40 + 2 * 20 = 80
    match = start("pagat", KNOCKER_WINS_8, scores=(40, 95), hands_won=(2, 4))
    play_knock(match)
    assert match.result.final_scores == (80, 303)
    assert match.result.to_dict()["winner"] == "player_1"


def test_R26_classic25_match_shutout_doubles():
    # 95 + 8 = 103; 103 * 2 + 100 + 5 * 25 = 431
    match = start("classic25", KNOCKER_WINS_8, scores=(0, 95), hands_won=(0, 4))
    play_knock(match)
    assert (match.result.game_bonus, match.result.final_scores) == (100, (0, 431))


def test_R26_eaai_match_end_is_the_running_points():
    match = start("eaai", KNOCKER_WINS_8, scores=(30, 95), hands_won=(1, 4))
    play_knock(match)
    assert (match.result.game_bonus, match.result.final_scores) == (0, (30, 103))


def test_R26_match_goes_on_below_target():
    # 91 + 8 = 99 < 100: a new hand starts at once (upcard offer)
    match = start("pagat", KNOCKER_WINS_8, scores=(0, 91))
    play_knock(match)
    assert not match.is_over and match.result is None
    assert (match.scores, match.hands_won) == ([0, 99], [0, 1])
    assert match.legal_actions() == [1, 2] and not match.hand.is_over


def test_R27_box_bonus_does_not_count_towards_target():
    # 40 hands won are 800 box points, but the running points stay 95 and 8
    match = start("pagat", KNOCKER_WINS_8, scores=(95, 0), hands_won=(40, 0))
    assert not match.is_over
    play_knock(match)
    assert not match.is_over
    assert (match.scores, match.hands_won) == ([95, 8], [40, 1])


@pytest.mark.parametrize("preset, points, next_dealer_seat", [
    ("pagat", 12, 0),        # the dealer (seat 0) won the hand and deals again
    ("classic25", 27, 1),    # alternate
    ("eaai", 27, 1),
])
def test_R28_match_dealer_after_defender_wins(preset, points, next_dealer_seat):
    match = start(preset, DEFENDER_UNDERCUTS, dealer=0)
    result = play_knock(match)
    assert (result.outcome, result.winner, result.points) == ("undercut", 0, points)
    assert match.scores == [points, 0] and match.hands_won == [1, 0]
    assert match.dealer == next_dealer_seat
    assert match.current_player == 1 - next_dealer_seat   # the new non-dealer is offered the upcard


@pytest.mark.parametrize("preset", ["pagat", "classic25", "eaai"])
@pytest.mark.parametrize("dealer", [0, 1])
def test_R28_match_dealer_after_knocker_wins(preset, dealer):
    # the knocker is the non-dealer: winner-deals and alternate agree here
    match = start(preset, KNOCKER_WINS_8, dealer=dealer)
    result = play_knock(match)
    assert result.winner == 1 - dealer
    assert match.dealer == 1 - dealer


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("dealer", [0, 1])
def test_R25_R28_dead_hand_same_dealer_no_score(preset, dealer):
    match = start(preset, KNOCKER_WINS_8, dealer=dealer, scores=(10, 20), hands_won=(1, 2))
    result = play_dead_hand(match)
    assert result.outcome == "dead" and result.winner is None
    assert (match.scores, match.hands_won) == ([10, 20], [1, 2])
    assert match.dealer == dealer and not match.is_over
    assert len(match.hand_results) == 1 and len(match.hand_logs) == 1


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("seed", range(3))
def test_R26_R28_scripted_games_to_the_end(preset, seed):
    """Whole games with a greedy policy: scores, hands won, dealers and bonuses all
    follow from the sequence of hand results; only one seat scores per hand."""
    rules = Ruleset.preset(preset)
    match = MatchState(np.random.default_rng(seed), rules)
    dealers = [match.dealer]
    for _ in range(20000):
        if match.is_over:
            break
        before = len(match.hand_results)
        match.apply_action(greedy_action(match))
        if len(match.hand_results) > before and not match.is_over:
            dealers.append(match.dealer)
    assert match.is_over
    results = match.hand_results
    assert len(results) == len(match.hand_logs) == len(dealers)
    assert [log["deal"]["dealer"] for log in match.hand_logs] == dealers
    points, won = [0, 0], [0, 0]
    for i, res in enumerate(results):
        if res.winner is None:
            assert res.points == 0
        else:
            assert res.points >= 0
            points[res.winner] += res.points
            won[res.winner] += 1
        if i + 1 < len(results):   # R28
            if res.winner is None:
                expected = dealers[i]
            elif rules.next_dealer == "winner":
                expected = res.winner
            else:
                expected = 1 - dealers[i]
            assert dealers[i + 1] == expected
    assert match.scores == points and match.hands_won == won
    g = match.result
    assert sum(s >= rules.target for s in g.scores) == 1 and g.scores[g.winner] >= rules.target
    # the game ended on the first hand that took a seat to the target
    assert results[-1].winner == g.winner and g.scores[g.winner] - results[-1].points < rules.target
    assert g.final_scores == expected_final(rules, g.scores, g.hands_won)
    # zero-sum: per-hand signed points plus the end bonuses give the final difference
    signed = sum((r.points if r.winner == 0 else -r.points) for r in results if r.winner is not None)
    bonus = g.final_scores[0] - g.scores[0] - (g.final_scores[1] - g.scores[1])
    assert signed + bonus == g.final_scores[0] - g.final_scores[1]


def test_R9_first_dealer_is_random_and_seeded():
    dealers = [MatchState(np.random.default_rng(seed)).dealer for seed in range(200)]
    assert 60 < sum(dealers) < 140
    assert dealers == [MatchState(np.random.default_rng(seed)).dealer for seed in range(200)]


def test_match_dealer_and_first_deal_kwargs():
    assert MatchState(np.random.default_rng(0), dealer=1).dealer == 1
    assert MatchState(np.random.default_rng(0), dealer=0).dealer == 0
    deal = knock_deal(*KNOCKER_WINS_8, upcard="5C", draw="KH", dealer=1)
    match = MatchState(np.random.default_rng(0), first_deal=deal)
    assert match.dealer == 1 and match.hand.deal == deal


def test_match_accepts_numpy_ints():
    match = MatchState(np.random.default_rng(0), scores=np.array([10, 20]), hands_won=(np.int64(1), 2))
    assert (match.scores, match.hands_won) == ([10, 20], [1, 2])
    assert all(type(v) is int for v in match.scores + match.hands_won)


@pytest.mark.parametrize("kwargs", [
    {"scores": (-1, 0)},
    {"scores": (100, 0)},            # at the target already
    {"scores": (0, 150)},
    {"scores": (0,)},
    {"scores": (0, 0, 0)},
    {"scores": (1.5, 0)},
    {"scores": ("10", 0)},
    {"scores": (True, 0)},
    {"hands_won": (0, -1)},
    {"hands_won": (1,)},
    {"hands_won": (0.5, 0)},
])
def test_match_rejects_bad_scores_and_hands_won(kwargs):
    with pytest.raises(ValueError):
        MatchState(np.random.default_rng(0), "pagat", **kwargs)


def test_match_target_comes_from_the_ruleset():
    # 120 is allowed mid-match in oklahoma (target 150), not in pagat (target 100)
    assert MatchState(np.random.default_rng(0), "oklahoma", scores=(120, 0)).scores == [120, 0]
    with pytest.raises(ValueError, match="target 100"):
        MatchState(np.random.default_rng(0), "pagat", scores=(120, 0))


def test_game_result_type_is_frozen():
    g = game_result(Ruleset(), [100, 0], [1, 0])
    assert isinstance(g, GameResult)
    with pytest.raises(AttributeError):
        g.winner = 1  # type: ignore[misc]
