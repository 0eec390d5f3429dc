"""The flow of one hand (R9-R16, R25 of docs/rules.md), illegal actions, knowledge tracking,
the event log and the turn safeguard, on exact positions built by deal injection.

Expected values are derived by hand in the comments next to each position.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from deals import cards, make_deal, make_hand

from ginenv import Deal, HandResult, HandState, IllegalActionError, Ruleset, discard_action, knock_action
from ginenv.game.actions import BIG_GIN, DRAW_STOCK, NUM_ACTIONS, PASS, TAKE_DISCARD
from ginenv.game.cards import parse_card

TAKE, STOCK = TAKE_DISCARD, DRAW_STOCK


def c(text: str) -> int:
    return parse_card(text)


def mask(spec: str) -> int:
    return sum(1 << card for card in cards(spec))


def discards(spec: str) -> list[int]:
    return [discard_action(card) for card in cards(spec)]


def knocks(spec: str) -> list[int]:
    return [knock_action(card) for card in cards(spec)]


def knock_actions(state: HandState) -> list[int]:
    return [a for a in state.legal_actions() if 55 <= a < 107]


def assert_illegal(state: HandState, action, *fragments: str) -> str:
    """``action`` raises IllegalActionError (a ValueError) naming it and why; state untouched."""
    before = state.clone()
    assert not state.is_legal(action)
    with pytest.raises(IllegalActionError) as info:
        state.apply_action(action)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert f"illegal action {action!r}" in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert state == before
    return message


def draw_and_discard_drawn(state: HandState, turns: int) -> None:
    """``turns`` normal turns: draw from the stock, discard the card just drawn (R12 allows it)."""
    for _ in range(turns):
        state.apply_action(STOCK)
        state.apply_action(discard_action(state.events[-1]["card"]))


# ---------------------------------------------------------------------------------------
# Positions.  Deadwood values are worked out by hand.
#
# NO_MELDS_64: 2C 3D 5H 6D 7S 8H JC QD KH 3S, no set (only two 3s) and no run:
#   2+3+5+6+7+8+10+10+10+3 = 64.
NO_MELDS_64 = "2C 3D 5H 6D 7S 8H JC QD KH 3S"
# NO_MELDS_64B: 2H 4H 6H 8H TH 3S 5S 7S 9S JS (gaps of two in both suits): 64.
NO_MELDS_64B = "2H 4H 6H 8H TH 3S 5S 7S 9S JS"
# KNOCK10: run 6C-9C, set of four 4s, deadwood AH + 9D = 10.
KNOCK10 = "6C 7C 8C 9C 4C 4D 4H 4S AH 9D"
# TWO_RUNS: AC-5C and 6D-9D; KS is the only deadwood.
TWO_RUNS = "AC 2C 3C 4C 5C 6D 7D 8D 9D KS"


# ---------------------------------------------------------------------------------------
# R9 / R10: dealing
def test_R10_from_deck_deals_one_at_a_time_starting_with_non_dealer():
    deck = list(range(52))
    deal = Deal.from_deck(deck, dealer=0)          # seat 1 is the non-dealer: cards 0, 2, 4, ...
    assert deal.hands[1] == tuple(range(0, 20, 2))
    assert deal.hands[0] == tuple(range(1, 20, 2))
    assert deal.upcard == 20                       # the 21st card
    assert deal.stock == tuple(range(21, 52))      # 31 cards, top first
    deal = Deal.from_deck(deck, dealer=1)          # now seat 0 is the non-dealer
    assert deal.hands[0] == tuple(range(0, 20, 2))
    assert deal.hands[1] == tuple(range(1, 20, 2))
    assert deal.dealer == 1


def test_R10_upcard_starts_the_pile_and_stock_top_is_drawn_first():
    deck = [(7 * i + 3) % 52 for i in range(52)]   # a fixed permutation (7 is coprime to 52)
    state = HandState(Deal.from_deck(deck, dealer=1))
    assert state.pile == [deck[20]] and state.top_discard == deck[20]
    assert len(state.stock) == 31
    assert state.hand_cards(0) == sorted(deck[0:20:2]) and state.hand_cards(1) == sorted(deck[1:20:2])
    state.apply_action(PASS)
    state.apply_action(PASS)
    state.apply_action(STOCK)
    assert state.events[-1]["card"] == deck[21]
    assert state.hands[0] >> deck[21] & 1


def test_R9_random_dealer_is_drawn_from_the_seeded_rng():
    dealers = {HandState.random(np.random.default_rng(seed)).dealer for seed in range(20)}
    assert dealers == {0, 1}
    a, b = HandState.random(np.random.default_rng(5)), HandState.random(np.random.default_rng(5))
    assert a == b and a.deal == b.deal
    assert HandState.random(np.random.default_rng(5), dealer=1).dealer == 1
    assert HandState.random(np.random.default_rng(5), dealer=0).dealer == 0


def _valid():
    return make_deal(0, KNOCK10, NO_MELDS_64, "KD")


def _with(**changes):
    deal = _valid()
    deal.update(changes)
    return deal


@pytest.mark.parametrize("deal, message", [
    (_with(hands=[cards(KNOCK10)[:9], cards(NO_MELDS_64)]), "hands[0] has 9 cards, expected 10"),
    (_with(hands=[cards(KNOCK10), cards(NO_MELDS_64) + [c("KD")]]), "hands[1] has 11 cards, expected 10"),
    (_with(stock=_valid()["stock"][:30]), "stock has 30 cards, expected 31"),
    (_with(stock=_valid()["stock"] + [0]), "stock has 32 cards, expected 31"),
    (_with(stock=[c("6C")] + _valid()["stock"][1:]), "duplicated ['6C'], missing ['AC']"),
    (_with(upcard="6C"), "duplicated ['6C'], missing ['KD']"),
    (_with(upcard="ZZ"), "deal: not a card: 'ZZ'"),
    (_with(upcard=52), "card index 52 out of range"),
    (_with(hands=[cards(KNOCK10)[:9] + [True], cards(NO_MELDS_64)]), "not a card: True"),
    (_with(dealer=2), "dealer must be 0 or 1, got 2"),
    (_with(dealer=-1), "dealer must be 0 or 1"),
    (_with(dealer="0"), "dealer must be 0 or 1, got '0'"),
    (_with(dealer=True), "dealer must be 0 or 1, got True"),
    (_with(dealer=1.0), "dealer must be 0 or 1, got 1.0"),
    (_with(hands=[cards(KNOCK10)]), "hands must be a list of two hands"),
    (_with(hands=[cards(KNOCK10), cards(NO_MELDS_64), []]), "hands must be a list of two hands"),
    (_with(hands=[KNOCK10, cards(NO_MELDS_64)]), "hands[0] must be a list of 10 cards"),
    (_with(stock=None), "stock must be a list of 31 cards"),
])
def test_R10_invalid_deal_is_a_value_error_saying_what_is_wrong(deal, message):
    with pytest.raises(ValueError) as info:
        HandState.from_deal(**deal)
    assert message in str(info.value)
    assert str(info.value).startswith("deal: ")


def test_R10_valid_deal_accepts_text_and_numpy_ints():
    deal = _valid()
    text = Deal.from_cards(**Deal.from_cards(**deal).to_dict())
    assert text == Deal.from_cards(**deal)
    numpy_deal = Deal.from_cards(np.int64(0), [np.array(h) for h in deal["hands"]], np.int64(deal["upcard"]),
                                 np.array(deal["stock"]))
    assert numpy_deal == text
    assert type(numpy_deal.dealer) is int
    json.dumps(numpy_deal.to_dict())


@pytest.mark.parametrize("deck, message", [
    (list(range(51)), "deck has 51 cards, expected 52"),
    (list(range(53)), "deck has 53 cards, expected 52"),
    (list(range(51)) + [0], "duplicated ['AC'], missing ['KS']"),
    (None, "deck must be a list of 52 cards"),
])
def test_R10_from_deck_rejects_a_bad_deck(deck, message):
    with pytest.raises(ValueError) as info:
        Deal.from_deck(deck, 0)
    assert message in str(info.value)


def test_R10_from_deck_rejects_a_bad_dealer():
    with pytest.raises(ValueError, match="dealer must be 0 or 1, got 2"):
        Deal.from_deck(list(range(52)), 2)


# ---------------------------------------------------------------------------------------
# R11: the upcard offer
def test_R11_non_dealer_is_offered_the_upcard_first():
    for dealer in (0, 1):
        state = make_hand(dealer, KNOCK10, NO_MELDS_64, "KD")
        assert state.phase == "offer"
        assert state.current_player == 1 - dealer
        assert state.legal_actions() == [TAKE, PASS]


def test_R11_dealer_is_offered_after_non_dealer_passes():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD")
    state.apply_action(PASS)
    assert state.phase == "offer" and state.current_player == 0
    assert state.legal_actions() == [TAKE, PASS]
    assert state.pile == [c("KD")] and len(state.stock) == 31


def test_R11_both_pass_non_dealer_must_draw_from_stock():
    state = make_hand(1, KNOCK10, NO_MELDS_64, "KD", stock_top="TH")
    state.apply_action(PASS)      # seat 0, the non-dealer
    state.apply_action(PASS)      # seat 1, the dealer
    assert state.phase == "draw" and state.current_player == 0
    assert state.legal_actions() == [STOCK]
    assert_illegal(state, TAKE, "must draw from the stock")
    assert_illegal(state, PASS)
    state.apply_action(STOCK)
    assert state.events[-1]["card"] == c("TH")
    assert state.hand_cards(0) == sorted(cards(KNOCK10 + " TH"))
    assert state.pile == [c("KD")]


def test_R11_non_dealer_takes_upcard_discards_then_dealer_plays():
    state = make_hand(0, NO_MELDS_64, KNOCK10, "KD")
    state.apply_action(TAKE)
    assert state.current_player == 1 and state.phase == "discard"
    assert state.pile == [] and state.hands[1] >> c("KD") & 1
    state.apply_action(discard_action("9D"))
    assert state.current_player == 0 and state.phase == "draw"
    assert state.legal_actions() == [STOCK, TAKE]      # a normal turn: both sources
    assert state.pile == [c("9D")]


def test_R11_dealer_takes_upcard_after_pass():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD")
    state.apply_action(PASS)
    state.apply_action(TAKE)                            # the dealer, seat 0, takes it
    assert state.current_player == 0 and state.phase == "discard"
    assert len(state.hand_cards(0)) == 11
    state.apply_action(discard_action("9D"))
    assert state.current_player == 1 and state.phase == "draw"   # then the non-dealer
    assert state.legal_actions() == [STOCK, TAKE]


def test_R11_after_both_pass_and_forced_draw_dealer_plays_next():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD", stock_top="TH")
    for action in (PASS, PASS, STOCK, discard_action("TH")):
        state.apply_action(action)
    assert state.current_player == 0 and state.phase == "draw"
    assert state.legal_actions() == [STOCK, TAKE]
    assert state.top_discard == c("TH")


def test_R11_upcard_taker_may_finish_by_knocking():
    # Non-dealer seat 1 holds KNOCK10 and takes 2H: AH 2H 9D dead; knocking 9D keeps 1 + 2 = 3.
    state = make_hand(0, NO_MELDS_64, KNOCK10, "2H")
    state.apply_action(TAKE)
    assert knock_actions(state) == knocks("9D")
    state.apply_action(knock_action("9D"))
    assert state.is_over and state.result.knocker == 1 and state.result.knocker_deadwood == 3


# ---------------------------------------------------------------------------------------
# R12 / R13: a normal turn
def test_R12_draw_one_then_discard_one_keeps_ten_cards():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD", stock_top="TH 5C")
    state.apply_action(PASS)
    state.apply_action(PASS)
    assert len(state.hand_cards(1)) == 10
    state.apply_action(STOCK)
    assert len(state.hand_cards(1)) == 11
    assert sorted(a for a in state.legal_actions() if a < 55) == sorted(discards(NO_MELDS_64 + " TH"))
    state.apply_action(discard_action("JC"))
    assert len(state.hand_cards(1)) == 10 and state.pile == [c("KD"), c("JC")]


def test_R12_must_draw_before_discarding_and_discard_after_drawing():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD", stock_top="TH")
    state.apply_action(PASS)
    state.apply_action(PASS)
    assert_illegal(state, discard_action("JC"), "discard JC", "draw first")
    assert_illegal(state, knock_action("JC"), "knock JC", "draw first")
    state.apply_action(STOCK)
    assert_illegal(state, STOCK, "draw stock", "a card was drawn already")
    assert_illegal(state, TAKE, "take discard", "a card was drawn already")
    assert_illegal(state, PASS, "a card was drawn already")


def test_R12_cannot_rediscard_taken_card():
    # The first upcard is a pile card too: the non-dealer may not throw it straight back.
    state = make_hand(0, NO_MELDS_64, KNOCK10, "KS")
    state.apply_action(TAKE)
    assert discard_action("KS") not in state.legal_actions()
    assert_illegal(state, discard_action("KS"), "discard KS", "KS was just taken from the discard pile (R12)")
    assert sorted(state.legal_actions()) == sorted(discards(KNOCK10))


def test_R12_cannot_knock_with_taken_card_in_a_normal_turn():
    # Dealer seat 0: AC-5C and 6D-9D melded.  It takes KD (upcard), throws QS; after the
    # non-dealer throws JS, the dealer takes JS: knocking with KD keeps JS (10) -> legal,
    # knocking with JS (keeping KD, also 10) would be legal by count but JS was just taken.
    state = make_hand(0, "AC 2C 3C 4C 5C 6D 7D 8D 9D QS", NO_MELDS_64B, "KD", stock_top="JC")
    for action in (PASS, TAKE, discard_action("QS"), STOCK, discard_action("JS"), TAKE):
        state.apply_action(action)
    assert state.current_player == 0 and state.top_discard == c("QS")
    assert knock_actions(state) == knocks("KD")
    assert_illegal(state, knock_action("JS"), "knock JS", "JS was just taken from the discard pile (R12)")
    assert_illegal(state, discard_action("JS"), "discard JS", "R12")
    state.apply_action(discard_action("KD"))           # the earlier taken card is free now
    assert state.top_discard == c("KD")


def test_R12_card_just_drawn_from_stock_may_be_discarded():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD", stock_top="TH")
    for action in (PASS, PASS, STOCK):
        state.apply_action(action)
    assert discard_action("TH") in state.legal_actions()
    state.apply_action(discard_action("TH"))
    assert state.top_discard == c("TH") and not state.hands[1] >> c("TH") & 1


def test_R13_only_the_top_of_the_pile_can_be_taken():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD", stock_top="TH 5C")
    for action in (PASS, PASS, STOCK, discard_action("TH"), STOCK, discard_action("5C")):
        state.apply_action(action)
    assert state.pile == cards("KD TH 5C")
    # Only one take action exists; it takes 5C, and the rest of the pile stays in order.
    assert state.legal_actions() == [STOCK, TAKE]
    state.apply_action(TAKE)
    assert state.events[-1]["card"] == c("5C") and state.pile == cards("KD TH")
    assert state.hands[1] >> c("5C") & 1


def test_R13_pile_is_never_reshuffled_into_stock():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD")
    state.apply_action(PASS)
    state.apply_action(PASS)
    draw_and_discard_drawn(state, 29)
    assert state.is_over and len(state.stock) == 2 and len(state.pile) == 30


# ---------------------------------------------------------------------------------------
# R14 / R15 / R16: knocking, gin, big gin
def _knock_boundary_state(ruleset=None, upcard="KD", seat_hand=KNOCK10, drawn="TH", dealer_hand=NO_MELDS_64):
    # Seat 1 (non-dealer) holds seat_hand and, after both pass, draws ``drawn``.
    state = make_hand(0, dealer_hand, seat_hand, upcard, stock_top=drawn, ruleset=ruleset)
    for action in (PASS, PASS, STOCK):
        state.apply_action(action)
    return state


def test_R14_knock_only_if_kept_deadwood_within_limit():
    # 11 cards: 6C-9C, 4C 4D 4H 4S, AH 9D TH.  Keeping AH 9D = 10 (the limit) -> knock TH
    # legal; keeping AH TH = 11 or 9D TH = 19 -> illegal; breaking a meld leaves >= 20.
    state = _knock_boundary_state()
    assert knock_actions(state) == knocks("TH")
    assert_illegal(state, knock_action("9D"), "knock 9D", "deadwood after the discard would be 11",
                   "above the knock limit 10")
    assert_illegal(state, knock_action("AH"), "would be 19")
    assert_illegal(state, knock_action("6C"), "would be 20")
    assert_illegal(state, knock_action("KS"), "KS is not in the hand")
    # Every card may be discarded face up.
    assert sorted(a for a in state.legal_actions() if a < 55) == sorted(discards(KNOCK10 + " TH"))
    state.apply_action(knock_action("TH"))
    result = state.result
    # Defender NO_MELDS_64 has nothing to lay off on 6C-9C (no 5C/TC) or the full set of 4s.
    assert (result.outcome, result.knocker, result.winner) == ("knock", 1, 1)
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == (10, 64, 54)
    assert result.knock_discard == c("TH") and result.layoffs == ()


def test_R14_knock_limit_is_a_rule_parameter():
    state = _knock_boundary_state(Ruleset.preset("pagat", knock_limit=9))
    assert knock_actions(state) == []
    assert_illegal(state, knock_action("TH"), "above the knock limit 9")


def test_R14_knock_discard_is_face_down():
    state = _knock_boundary_state()
    pile_before = list(state.pile)
    state.apply_action(knock_action("TH"))
    assert state.pile == pile_before                    # TH never reaches the pile
    assert not state.discarded[1] >> c("TH") & 1 and (1, c("TH")) not in state.history
    assert state.result.knock_discard == c("TH")


def test_R14_knock_allowed_on_very_first_turn():
    # Non-dealer takes the upcard 2H (see test_R11_upcard_taker_may_finish_by_knocking) ...
    state = make_hand(0, NO_MELDS_64, KNOCK10, "2H")
    state.apply_action(TAKE)
    assert knock_action("9D") in state.legal_actions()
    assert_illegal(state, knock_action("2H"), "2H was just taken")
    # ... and the dealer, after a pass, likewise (seat 0 holds KNOCK10 here).
    state = make_hand(0, KNOCK10, NO_MELDS_64, "2H")
    state.apply_action(PASS)
    state.apply_action(TAKE)
    assert knock_actions(state) == knocks("9D")
    # ... and the non-dealer after both passed, on the forced stock draw.
    assert knock_actions(_knock_boundary_state()) == knocks("TH")


def test_R14_knocking_is_never_compulsory():
    state = make_hand(0, NO_MELDS_64B, TWO_RUNS, "TD")
    state.apply_action(TAKE)
    assert knock_action("KS") in state.legal_actions()        # gin available
    assert discard_action("KS") in state.legal_actions()
    state.apply_action(discard_action("KS"))
    assert not state.is_over and state.current_player == 0 and state.phase == "draw"


@pytest.mark.parametrize("upcard, limit, legal", [
    ("AH", 0, ""), ("5D", 5, ""), ("7H", 7, "6S"), ("8H", 8, "6S 5H"), ("TH", 10, "6S 5H"), ("KH", 10, "6S 5H"),
])
def test_R14_oklahoma_knock_limit_is_first_upcard_value(upcard, limit, legal):
    # Seat 1: 6C-9C, 4C 4D 4H 4S, 2D 5H; draws 6S.  Keeping 2D 5H = 7, 2D 6S = 8, 5H 6S = 11.
    hand1 = "6C 7C 8C 9C 4C 4D 4H 4S 2D 5H"
    state = make_hand(0, "2C 3D 6D 7S 8S JC QD KS 3S TS", hand1, upcard, stock_top="6S", ruleset="oklahoma")
    assert state.knock_limit == limit
    for action in (PASS, PASS, STOCK):
        state.apply_action(action)
    assert sorted(knock_actions(state)) == sorted(knocks(legal))
    assert state.knock_limit == limit                     # fixed by the first upcard only
    pagat = make_hand(0, "2C 3D 6D 7S 8S JC QD KS 3S TS", hand1, upcard, stock_top="6S")
    for action in (PASS, PASS, STOCK):
        pagat.apply_action(action)
    assert sorted(knock_actions(pagat)) == sorted(knocks("6S 5H"))


def test_R14_oklahoma_ace_upcard_allows_gin_only():
    # Seat 1: AC-5C, 6D-9D, 2S; draws TD.  Knock 2S -> gin; knock AC/5C/6D/TD keeps 2S (2),
    # knock 2C keeps AC 2S (3), knock 4C keeps 5C 2S (7), knock 7D keeps 6D 2S (8).
    hand1 = "AC 2C 3C 4C 5C 6D 7D 8D 9D 2S"
    state = _knock_boundary_state("oklahoma", upcard="AH", seat_hand=hand1, drawn="TD", dealer_hand=NO_MELDS_64B)
    assert state.knock_limit == 0
    assert knock_actions(state) == knocks("2S")
    assert_illegal(state, knock_action("AC"), "would be 2, above the knock limit 0")
    pagat = _knock_boundary_state("pagat", upcard="AH", seat_hand=hand1, drawn="TD", dealer_hand=NO_MELDS_64B)
    assert sorted(knock_actions(pagat)) == sorted(knocks("AC 2C 4C 5C 6D 7D TD 2S"))
    state.apply_action(knock_action("2S"))
    assert state.result.outcome == "gin"


def test_R14_oklahoma_spade_upcard_marks_the_hand_doubled():
    assert make_hand(0, NO_MELDS_64B, TWO_RUNS, "QS", ruleset="oklahoma").doubled
    assert not make_hand(0, NO_MELDS_64B, TWO_RUNS, "QH", ruleset="oklahoma").doubled
    assert not make_hand(0, NO_MELDS_64B, TWO_RUNS, "QH", ruleset="pagat").doubled


def test_R15_two_five_card_runs_is_gin():
    # Seat 1 takes TD: AC-5C + 6D-TD, knock KS face down -> gin.  Defender NO_MELDS_64B = 64.
    state = make_hand(0, NO_MELDS_64B, TWO_RUNS, "TD")
    state.apply_action(TAKE)
    state.apply_action(knock_action("KS"))
    result = state.result
    assert (result.outcome, result.knocker, result.winner) == ("gin", 1, 1)
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == (0, 64, 20 + 64)
    assert set(result.knocker_melds) == {tuple(cards("AC 2C 3C 4C 5C")), tuple(cards("6D 7D 8D 9D TD"))}
    assert result.layoffs == () and result.knocker_deadwood_cards == ()


def test_R15_gin_only_when_zero_deadwood_is_kept():
    # After taking TD: knock KS -> gin; knock AC (2C-5C), 5C (AC-4C) or 6D (7D-TD) keeps
    # KS = 10 -> a plain knock; any other card breaks a run (>= 11).  TD was taken (R12).
    state = make_hand(0, NO_MELDS_64B, TWO_RUNS, "TD")
    state.apply_action(TAKE)
    assert sorted(knock_actions(state)) == sorted(knocks("KS AC 5C 6D"))
    state.apply_action(knock_action("AC"))
    # Defender NO_MELDS_64B holds no club or diamond to lay off: 64 - 10.
    assert (state.result.outcome, state.result.knocker_deadwood, state.result.points) == ("knock", 10, 54)


# Big gin: seat 1 holds AC-4C, 7D-TD, 5S 6S (11 deadwood); 7S completes 5S-7S: all 11 melded.
BIG_GIN_HAND = "AC 2C 3C 4C 7D 8D 9D TD 5S 6S"
NO_MELDS_67 = "2H 4H 6H 8H TH 3D 5D JC KC 9S"      # 2+4+6+8+10+3+5+10+10+9 = 67


def test_R16_big_gin_right_after_taking_first_upcard():
    state = make_hand(0, NO_MELDS_67, BIG_GIN_HAND, "7S", ruleset="classic25")
    assert_illegal(state, BIG_GIN, "big gin", "offer allows only take (1) or pass (2)")
    state.apply_action(TAKE)
    assert BIG_GIN in state.legal_actions()
    state.apply_action(BIG_GIN)
    result = state.result
    assert (result.outcome, result.knocker, result.winner) == ("big_gin", 1, 1)
    assert result.knock_discard is None and len(state.hand_cards(1)) == 11
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == (0, 67, 31 + 67)


def test_R16_big_gin_after_stock_draw():
    state = make_hand(0, NO_MELDS_67, BIG_GIN_HAND, "QD", stock_top="7S", ruleset="classic25")
    for action in (PASS, PASS, STOCK):
        state.apply_action(action)
    assert BIG_GIN in state.legal_actions()
    state.apply_action(BIG_GIN)
    assert state.result.outcome == "big_gin"


def test_R16_big_gin_only_in_rulesets_with_big_gin():
    state = make_hand(0, NO_MELDS_67, BIG_GIN_HAND, "7S")        # pagat
    state.apply_action(TAKE)
    assert BIG_GIN not in state.legal_actions()
    assert_illegal(state, BIG_GIN, "big gin is not allowed in ruleset 'pagat'")
    # Ordinary gin is still there: knock AC keeps 2C-4C, 7D-TD, 5S-7S.
    assert knock_action("AC") in state.legal_actions()
    # big_gin is a rule parameter: switched on over pagat, the same position allows it.
    state = make_hand(0, NO_MELDS_67, BIG_GIN_HAND, "7S", ruleset=Ruleset.preset("pagat", big_gin=True))
    state.apply_action(TAKE)
    assert BIG_GIN in state.legal_actions()


def test_R16_big_gin_needs_all_eleven_melded():
    state = _knock_boundary_state("classic25")
    assert BIG_GIN not in state.legal_actions()
    assert_illegal(state, BIG_GIN, "big gin needs all 11 cards melded")


# ---------------------------------------------------------------------------------------
# R25: dead hand
def _stock_three_left(stock_top=""):
    # Seat 1 (non-dealer) holds KNOCK10 (deadwood 10): it may knock on any turn by
    # throwing the card it drew, but does not until told.  After both pass, 28 draws
    # (each player throws the card drawn) leave 3 stock cards, and the non-dealer is to draw.
    deal = make_deal(0, NO_MELDS_64, KNOCK10, "KD", stock_top=stock_top)
    state = HandState.from_deal(**deal)
    state.apply_action(PASS)
    state.apply_action(PASS)
    draw_and_discard_drawn(state, 28)
    assert len(state.stock) == 3 and not state.is_over and state.current_player == 1
    assert state.legal_actions() == [STOCK, TAKE]
    return deal, state


def test_R25_fourth_to_last_draw_does_not_end_the_hand():
    state = make_hand(0, NO_MELDS_64, KNOCK10, "KD")
    state.apply_action(PASS)
    state.apply_action(PASS)
    draw_and_discard_drawn(state, 27)
    state.apply_action(STOCK)
    assert len(state.stock) == 3
    state.apply_action(discard_action(state.events[-1]["card"]))
    assert not state.is_over and state.phase == "draw"


def test_R25_third_to_last_draw_then_discard_is_dead_hand():
    deal, state = _stock_three_left()
    state.apply_action(STOCK)                            # the third-to-last card
    drawn = state.events[-1]["card"]
    assert drawn == deal["stock"][28] and len(state.stock) == 2
    assert knock_action(drawn) in state.legal_actions()  # a knock would still be allowed
    state.apply_action(discard_action(drawn))
    assert state.is_over and state.result == HandResult("dead")
    assert state.result.winner is None and state.result.points == 0 and not state.result.truncated
    # The last two stock cards were never drawn.
    assert sorted(state.stock) == sorted(deal["stock"][29:])
    assert state.legal_actions() == [] and state.current_player is None
    info = state.result.to_dict()
    assert info["knocker"] is None and info["winner"] is None and info["points"] == 0
    assert info["knocker_deadwood"] is None and info["defender_deadwood"] is None


def test_R25_knocking_after_third_to_last_draw_is_allowed():
    _, state = _stock_three_left()
    state.apply_action(STOCK)
    state.apply_action(knock_action(state.events[-1]["card"]))
    result = state.result
    # KNOCK10 keeps 10; the dealer kept NO_MELDS_64 throughout (threw every card it drew).
    assert (result.outcome, result.knocker, result.points) == ("knock", 1, 64 - 10)
    assert len(state.stock) == 2


def test_R25_taking_the_pile_with_three_left_then_next_stock_draw_ends_it():
    deal, state = _stock_three_left()
    state.apply_action(TAKE)
    state.apply_action(discard_action("9D"))
    assert not state.is_over and len(state.stock) == 3 and state.current_player == 0
    state.apply_action(STOCK)
    assert len(state.stock) == 2
    state.apply_action(discard_action(state.events[-1]["card"]))
    assert state.result == HandResult("dead")
    assert sorted(state.stock) == sorted(deal["stock"][29:])


# ---------------------------------------------------------------------------------------
# Illegal actions
@pytest.mark.parametrize("action", [1.0, "1", None, [1], np.float64(1.0), True, False, np.array([0, 1])])
def test_illegal_non_int_action(action):
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD")
    assert_illegal(state, action, "an action id must be an int")


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 10 ** 9, -(10 ** 12)])
def test_illegal_out_of_range_action(action):
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD")
    assert_illegal(state, action, "action ids are 0..107")


def test_numpy_int_action_is_accepted():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD")
    state.apply_action(np.int64(PASS))
    state.apply_action(np.int32(TAKE))
    assert state.events == [{"player": 1, "action": PASS}, {"player": 0, "action": TAKE, "card": c("KD")}]
    assert type(state.events[0]["action"]) is int
    json.dumps(state.log())


def test_illegal_actions_in_offer_phase_name_the_action():
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD")
    assert_illegal(state, STOCK, "(draw stock)", "phase 'offer'", "only take (1) or pass (2)")
    assert_illegal(state, discard_action("JC"), "(discard JC)")
    assert_illegal(state, knock_action("JC"), "(knock JC)")
    assert_illegal(state, BIG_GIN, "(big gin)")


def test_illegal_discard_of_a_card_not_held():
    state = _knock_boundary_state()
    assert_illegal(state, discard_action("KS"), "(discard KS)", "KS is not in the hand")
    assert_illegal(state, discard_action("KD"), "KD is not in the hand")   # the declined upcard


def test_every_action_is_illegal_once_the_hand_is_over():
    state = make_hand(0, NO_MELDS_64B, TWO_RUNS, "TD")
    state.apply_action(TAKE)
    state.apply_action(knock_action("KS"))
    assert state.is_over and state.legal_actions() == []
    for action in range(NUM_ACTIONS):
        assert not state.is_legal(action)
    for action in (STOCK, TAKE, PASS, discard_action("AC"), knock_action("AC"), BIG_GIN):
        assert_illegal(state, action, "the hand is over")


def test_legal_actions_match_is_legal_in_every_phase():
    state = make_hand(0, NO_MELDS_64B, TWO_RUNS, "TD", ruleset="classic25")
    for action in (None, TAKE, discard_action("KS"), STOCK):
        if action is not None:
            state.apply_action(action)
        assert state.legal_actions() == [a for a in range(NUM_ACTIONS) if state.is_legal(a)]


# ---------------------------------------------------------------------------------------
# Knowledge tracking: picked / discarded / declined / history
def _knowledge_game():
    """Dealer seat 0 holds AC-5C 6D-9D QS; seat 1 holds NO_MELDS_64B.  Stock: JC 3H TD ..."""
    state = make_hand(0, "AC 2C 3C 4C 5C 6D 7D 8D 9D QS", NO_MELDS_64B, "KD", stock_top="JC 3H TD")
    steps = [
        PASS,                  # 1: seat 1 declines KD
        TAKE,                  # 2: seat 0 takes KD
        discard_action("QS"),  # 3: seat 0 throws QS
        STOCK,                 # 4: seat 1 draws JC, passing over QS
        discard_action("JS"),  #    and throws JS
        TAKE,                  # 5: seat 0 takes JS
        discard_action("KD"),  # 6: seat 0 throws KD (picked earlier)
        STOCK,                 # 7: seat 1 draws 3H, passing over KD
        discard_action("3H"),  #    and throws it
        STOCK,                 # 8: seat 0 draws TD, passing over 3H: AC-5C, 6D-TD
        knock_action("JS"),    #    knocks JS face down: gin
    ]
    return state, steps


def test_knowledge_picked_discarded_declined_history():
    state, steps = _knowledge_game()
    expected = {  # after step index: (picked, discarded, declined) per seat, history
        0: ([0, 0], [0, 0], [0, mask("KD")], []),
        1: ([mask("KD"), 0], [0, 0], [0, mask("KD")], []),
        2: ([mask("KD"), 0], [mask("QS"), 0], [0, mask("KD")], [(0, c("QS"))]),
        3: ([mask("KD"), 0], [mask("QS"), 0], [0, mask("KD QS")], [(0, c("QS"))]),
        4: ([mask("KD"), 0], [mask("QS"), mask("JS")], [0, mask("KD QS")], [(0, c("QS")), (1, c("JS"))]),
        5: ([mask("KD JS"), 0], [mask("QS"), mask("JS")], [0, mask("KD QS")], [(0, c("QS")), (1, c("JS"))]),
        6: ([mask("JS"), 0], [mask("QS KD"), mask("JS")], [0, mask("KD QS")],
            [(0, c("QS")), (1, c("JS")), (0, c("KD"))]),
        8: ([mask("JS"), 0], [mask("QS KD"), mask("JS 3H")], [0, mask("KD QS")],
            [(0, c("QS")), (1, c("JS")), (0, c("KD")), (1, c("3H"))]),
        9: ([mask("JS"), 0], [mask("QS KD"), mask("JS 3H")], [mask("3H"), mask("KD QS")],
            [(0, c("QS")), (1, c("JS")), (0, c("KD")), (1, c("3H"))]),
        # The knock discard is face down: not discarded, not in history, no longer held.
        10: ([0, 0], [mask("QS KD"), mask("JS 3H")], [mask("3H"), mask("KD QS")],
             [(0, c("QS")), (1, c("JS")), (0, c("KD")), (1, c("3H"))]),
    }
    for index, action in enumerate(steps):
        state.apply_action(action)
        if index in expected:
            picked, discarded, declined, history = expected[index]
            assert state.picked == picked, index
            assert state.discarded == discarded, index
            assert state.declined == declined, index
            assert state.history == history, index
    assert state.pile == cards("QS KD 3H")
    # Defender NO_MELDS_64B with JC for JS: 2+4+6+8+10+3+5+7+9+10 = 64, gin 20 + 64.
    assert (state.result.outcome, state.result.winner, state.result.points) == ("gin", 0, 84)
    assert state.result.knock_discard == c("JS")


def test_knowledge_both_passes_decline_the_upcard():
    state = make_hand(1, KNOCK10, NO_MELDS_64, "KD")
    state.apply_action(PASS)
    state.apply_action(PASS)
    assert state.declined == [mask("KD"), mask("KD")] and state.picked == [0, 0]


# ---------------------------------------------------------------------------------------
# Event log, replay, clone
def test_event_log_is_json_and_replays_to_the_same_state():
    state, steps = _knowledge_game()
    for action in steps:
        state.apply_action(action)
        log = state.log()
        loaded = json.loads(json.dumps(log))
        assert loaded == log
        assert HandState.replay(loaded) == state
    assert [e["action"] for e in state.log()["events"]] == steps
    assert state.log()["events"][:2] == [{"player": 1, "action": PASS},
                                         {"player": 0, "action": TAKE, "card": c("KD")}]
    assert state.log()["events"][3] == {"player": 1, "action": STOCK, "card": c("JC")}


def test_event_log_keeps_ruleset_overrides():
    rules = Ruleset.preset("classic25", max_turns_per_hand=7, knock_limit=3)
    state = make_hand(0, KNOCK10, NO_MELDS_64, "KD", ruleset=rules)
    state.apply_action(PASS)
    replayed = HandState.replay(json.loads(json.dumps(state.log())))
    assert replayed.ruleset == rules and replayed == state and replayed.knock_limit == 3


def test_replay_of_a_log_with_an_illegal_event_raises():
    state, steps = _knowledge_game()
    state.apply_action(steps[0])
    log = state.log()
    log["events"].append({"player": 0, "action": STOCK})
    with pytest.raises(IllegalActionError):
        HandState.replay(log)


def test_clone_is_equal_and_independent():
    state, steps = _knowledge_game()
    for action in steps[:5]:
        state.apply_action(action)
    copy = state.clone()
    assert copy == state and copy is not state
    untouched = state.clone()
    copy.apply_action(TAKE)
    copy.apply_action(discard_action("KD"))
    assert state == untouched and copy != state
    state.apply_action(STOCK)
    assert copy.phase == "draw" and copy.current_player == 1 and copy.top_discard == c("KD")
    assert state.phase == "discard" and state.top_discard == c("JS")
    for name in ("hands", "stock", "pile", "picked", "discarded", "declined", "history", "events"):
        assert getattr(copy, name) is not getattr(state, name), name


# ---------------------------------------------------------------------------------------
# max_turns_per_hand safeguard
def _trade_forever(ruleset=None):
    # Three cards circulate: the upcard QD, KS (seat 1's) and JS (seat 0's).  Each turn the
    # player takes the pile top and throws the other circulating card it holds (never the
    # one just taken): seat 1 takes QD throws KS, seat 0 takes KS throws JS, seat 1 takes
    # JS throws QD, ...  The stock is never touched and nobody knocks.
    state = make_hand(0, NO_MELDS_64B, TWO_RUNS, "QD", ruleset=ruleset)
    circulating = mask("QD KS JS")
    turns = 0
    while not state.is_over:
        seat, taken = state.current_player, state.top_discard
        state.apply_action(TAKE)
        (throw,) = [card for card in state.hand_cards(seat) if circulating >> card & 1 and card != taken]
        state.apply_action(discard_action(throw))
        turns += 1
    return state, turns


def test_max_turns_safeguard_ends_endless_trading_as_truncated_dead_hand():
    state, turns = _trade_forever()
    assert turns == 200 == state.turns == Ruleset().max_turns_per_hand
    assert state.result == HandResult("dead", truncated=True)
    info = state.result.to_dict()
    assert info["outcome"] == "dead" and info["truncated"] is True
    assert info["winner"] is None and info["knocker"] is None and info["points"] == 0
    # Turn k throws KS, JS, QD, KS, ... : turn 200 (the dealer's) throws JS.
    assert len(state.stock) == 31 and state.pile == cards("JS") and len(state.history) == 200
    assert state.history[:3] == [(1, c("KS")), (0, c("JS")), (1, c("QD"))]
    assert state.history[-1] == (0, c("JS"))


def test_max_turns_safeguard_is_a_rule_parameter():
    state, turns = _trade_forever(Ruleset.preset("pagat", max_turns_per_hand=7))
    assert turns == 7 and state.result.truncated
    assert state.history[-1] == (1, c("KS"))      # turn 7 is the non-dealer's
    state, turns = _trade_forever(Ruleset.preset("pagat", max_turns_per_hand=1))
    assert turns == 1 and state.result.truncated
