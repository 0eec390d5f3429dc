"""Showdown and hand scoring: R17-R24, the worked examples of docs/rules.md, Oklahoma
doubling and the ``hand_result`` dict of the public contract.

Positions are built by deal injection: the non-dealer (the knocker) and the dealer
(the defender) get exact hands, both pass the upcard, the knocker draws a chosen
stock card and knocks discarding it face down, so the knocker keeps exactly the
10 cards written in the test.  Every expected number is derived by hand in a
comment; none is copied from the engine.
"""
from __future__ import annotations

import json
from functools import lru_cache
from itertools import combinations, product

import numpy as np
import pytest
from deals import cards
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginenv import IllegalActionError, Ruleset
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD, knock_action
from ginenv.game.cards import CARD_VALUES, mask_to_cards, parse_card
from ginenv.game.hand import HandState
from ginenv.game.melds import all_best_arrangements, mask_deadwood, mask_of
from ginenv.game.result import HandResult
from ginenv.game.scoring import FULL_DECK_MASK, best_defence, knocker_arrangement, layable_unseen, layoff_options

CONTRACT_FIELDS = {"outcome", "knocker", "winner", "points", "knocker_deadwood", "defender_deadwood",
                   "layoffs", "knocker_melds", "defender_melds"}


# ----------------------------------------------------------------- helpers
def mask(spec: str) -> int:
    return mask_of(spec.split())


def melds_as_sets(melds) -> set[frozenset]:
    return {frozenset(m) for m in melds}


def position(knocker_hand: str, defender_hand: str, *, upcard: str, draw: str = "", dealer: int = 0,
             ruleset="pagat") -> HandState:
    """The non-dealer holds ``knocker_hand``, the dealer ``defender_hand``; the stock
    starts with ``draw`` and goes on with every other card in ascending order."""
    kn, de, top, up = cards(knocker_hand), cards(defender_hand), cards(draw), parse_card(upcard)
    used = set(kn) | set(de) | set(top) | {up}
    assert len(kn) == len(de) == 10 and len(used) == 21 + len(top), "test position reuses a card"
    hands: list = [None, None]
    hands[1 - dealer], hands[dealer] = kn, de
    stock = top + [c for c in range(52) if c not in used]
    return HandState.from_deal(dealer, hands, up, stock, ruleset)


def knock(knocker_hand: str, defender_hand: str, *, upcard: str, draw: str = "KS", dealer: int = 0,
          ruleset="pagat") -> dict:
    """Both pass the upcard, the non-dealer draws ``draw`` and knocks discarding it."""
    state = position(knocker_hand, defender_hand, upcard=upcard, draw=draw, dealer=dealer, ruleset=ruleset)
    state.apply_action(PASS)
    state.apply_action(PASS)
    state.apply_action(DRAW_STOCK)
    state.apply_action(knock_action(draw))
    assert state.is_over
    result = state.result.to_dict()
    assert CONTRACT_FIELDS <= set(result)
    return result


# Knocker hands: three runs plus one deadwood card (its value is the knocker's deadwood).
# Cards that could ever be laid off on them: 4C; 3D 7D (2D 8D by chain); 6H TH (5H JH by chain).
KNOCK_6 = "AC 2C 3C 4D 5D 6D 7H 8H 9H 6S"
KNOCK_7 = "AC 2C 3C 4D 5D 6D 7H 8H 9H 7S"
GIN = "AC 2C 3C 4D 5D 6D 7H 8H 9H TH"
# Defender core: two runs (JC QC KC, JD QD KD) that take no part in any layoff.
CORE = "JC QC KC JD QD KD"


# ------------------------------------------------- worked examples (pagat)
def test_worked_example_knock_6_vs_14_knocker_scores_8():
    # defender deadwood AS 2S 8S 3H = 1 + 2 + 8 + 3 = 14, nothing to lay off; 14 - 6 = 8
    r = knock(KNOCK_6, CORE + " AS 2S 8S 3H", upcard="5C", draw="KH")
    assert (r["outcome"], r["knocker"], r["winner"]) == ("knock", "player_1", "player_1")
    assert (r["knocker_deadwood"], r["defender_deadwood"], r["points"]) == (6, 14, 8)
    assert r["layoffs"] == []


def test_worked_example_knock_6_vs_4_defender_scores_12():
    # defender TC-KC run, JD QD KD, deadwood AS AH 2S = 1 + 1 + 2 = 4; undercut 6 - 4 + 10 = 12
    r = knock(KNOCK_6, "TC JC QC KC JD QD KD AS AH 2S", upcard="5C", draw="KH")
    assert (r["outcome"], r["knocker"], r["winner"]) == ("undercut", "player_1", "player_0")
    assert (r["knocker_deadwood"], r["defender_deadwood"], r["points"]) == (6, 4, 12)


def test_worked_example_tie_6_vs_6_defender_scores_10():
    # defender deadwood AS AH 2S 2H = 1 + 1 + 2 + 2 = 6; tie -> undercut bonus alone: 0 + 10
    r = knock(KNOCK_6, CORE + " AS AH 2S 2H", upcard="5C", draw="KH")
    assert (r["outcome"], r["winner"], r["points"]) == ("undercut", "player_0", 10)
    assert r["knocker_deadwood"] == r["defender_deadwood"] == 6


def test_worked_example_knock_7_defender_11_lays_off_to_5_scores_12():
    defender = CORE + " 6H AS 2S 2H"
    # before layoffs: 6H AS 2S 2H = 6 + 1 + 2 + 2 = 11 (the knocker would have scored 11 - 7 = 4)
    assert mask_deadwood(mask(defender)) == 11
    # 6H goes onto 7H 8H 9H: 1 + 2 + 2 = 5; undercut 7 - 5 + 10 = 12
    r = knock(KNOCK_7, defender, upcard="5C", draw="KH")
    assert (r["outcome"], r["winner"], r["points"]) == ("undercut", "player_0", 12)
    assert (r["knocker_deadwood"], r["defender_deadwood"], r["layoffs"]) == (7, 5, ["6H"])


def test_worked_example_gin_vs_18_scores_38():
    # defender deadwood 6H 4C 5S 3S = 6 + 4 + 5 + 3 = 18; gin: 20 + 18 = 38
    r = knock(GIN, CORE + " 6H 4C 5S 3S", upcard="5C", draw="KH")
    assert (r["outcome"], r["knocker"], r["winner"], r["points"]) == ("gin", "player_1", "player_1", 38)
    assert (r["knocker_deadwood"], r["defender_deadwood"]) == (0, 18)


# ------------------------------------------------------------------ R17
def test_R17_arrangement_has_minimum_deadwood():
    # 4H-7H as one run would leave 7C 7D AS = 15; 4H5H6H + 7C7D7H leaves AS = 1.
    # With 7H in the set, the defender's 8H has nowhere to go: 8H 2S 3S 5S = 18; 18 - 1 = 17.
    r = knock("4H 5H 6H 7H 7C 7D AC 2C 3C AS", "8H " + CORE + " 2S 3S 5S", upcard="9C", draw="KH")
    assert r["knocker_deadwood"] == 1
    assert melds_as_sets(r["knocker_melds"]) == {frozenset("4H 5H 6H".split()), frozenset("7C 7D 7H".split()),
                                                 frozenset("AC 2C 3C".split())}
    assert (r["defender_deadwood"], r["layoffs"], r["points"]) == (18, [], 17)


# 7S is either the 4th seven or the bottom of 7S-TS; both leave AC 2C 4D = 7 deadwood.
R17_KNOCKER = "7C 7D 7H 7S 8S 9S TS AC 2C 4D"
ARR_FOUR_SET = {frozenset("7C 7D 7H 7S".split()), frozenset("8S 9S TS".split())}
ARR_LONG_RUN = {frozenset("7C 7D 7H".split()), frozenset("7S 8S 9S TS".split())}


def test_R17_ambiguous_arrangement_minimises_unseen_layable_cards():
    # Four-set + 8S9STS: unseen layable JS QS KS (3).  7C7D7H + 7S-TS: 6S..AS and JS QS KS (9).
    # So the four-set is shown and the defender's 6S cannot be laid off:
    # 6S 2H 3H 5H = 6 + 2 + 3 + 5 = 16; 16 - 7 = 9 (the other arrangement would give 10 - 7 = 3).
    r = knock(R17_KNOCKER, "6S " + CORE + " 2H 3H 5H", upcard="9C", draw="KH")
    assert melds_as_sets(r["knocker_melds"]) == ARR_FOUR_SET
    assert (r["knocker_deadwood"], r["defender_deadwood"], r["layoffs"], r["points"]) == (7, 16, [], 9)


def test_R17_arrangement_ignores_the_defenders_hidden_cards():
    # Same knocker, same knowledge (upcard 9C, drawn KH); 6S now lies in the stock, unseen
    # by both.  The knocker's choice must be the same as when the defender holds 6S.
    # Defender deadwood 2H 3H 5H 9D = 2 + 3 + 5 + 9 = 19; 19 - 7 = 12.
    r = knock(R17_KNOCKER, CORE + " 2H 3H 5H 9D", upcard="9C", draw="KH")
    assert melds_as_sets(r["knocker_melds"]) == ARR_FOUR_SET
    assert r["points"] == 12


def test_R17_arrangement_uses_what_the_knocker_saw_in_the_pile():
    # 6S is the upcard, so the knocker knows it is in the pile: both arrangements now
    # leave only JS QS KS unseen-layable (3 = 3), both have two melds, and the documented
    # card-order tie-break compares [7C 7D 7H] < [7C 7D 7H 7S] (a prefix sorts first),
    # so 7C7D7H + 7S8S9STS is shown.  Defender 2H 3H 5H 9D = 19; 19 - 7 = 12.
    r = knock(R17_KNOCKER, CORE + " 2H 3H 5H 9D", upcard="6S", draw="KH")
    assert melds_as_sets(r["knocker_melds"]) == ARR_LONG_RUN
    assert r["points"] == 12


def test_R17_knowledge_decides_between_two_set_choices():
    # 2C 2D 2H 2S AH 3H AS 3S: deadwood 4 three ways --
    #   A: 2C2D2S + AH2H3H (dead AS 3S)  layable 4H..KH while unseen
    #   B: 2C2D2H + AS2S3S (dead AH 3H)  layable 4S..KS while unseen
    #   C: AH2H3H + AS2S3S (dead 2C 2D)  both chains
    hand = mask("2C 2D 2H 2S AH 3H AS 3S")
    option_a = {mask("2C 2D 2S"), mask("AH 2H 3H")}
    option_b = {mask("2C 2D 2H"), mask("AS 2S 3S")}
    everything_else = FULL_DECK_MASK & ~hand
    # knocker saw 4S in the pile: B has 0 unseen layable cards
    assert set(knocker_arrangement(hand, everything_else & ~mask("4S"))) == option_b
    # knocker saw 4H instead: A has 0
    assert set(knocker_arrangement(hand, everything_else & ~mask("4H"))) == option_a
    # nothing seen: A and B tie on 10 each (C has 20), both have 2 melds; card order:
    # B's sorted melds [[2C,2D,2H],[AS,2S,3S]] = [[1,14,27],...] < A's [[1,14,40],...]
    assert set(knocker_arrangement(hand, everything_else)) == option_b


def test_R17_long_run_is_shown_whole():
    # 4H-9H could be shown as 4H5H6H + 7H8H9H (same cards, same layoffs); the engine
    # shows one 6-card run.  Defender 2S 3S 5S 9D = 2 + 3 + 5 + 9 = 19; knocker deadwood
    # 6S = 6; 19 - 6 = 13.
    r = knock("4H 5H 6H 7H 8H 9H AC 2C 3C 6S", CORE + " 2S 3S 5S 9D", upcard="9C", draw="KH")
    assert melds_as_sets(r["knocker_melds"]) == {frozenset("4H 5H 6H 7H 8H 9H".split()),
                                                 frozenset("AC 2C 3C".split())}
    assert r["points"] == 13


def test_R17_layable_unseen_counts_chains_only_through_unseen_cards():
    run = mask("4H 5H 6H")
    # 3H 2H unseen (chain of 2), 7H unseen, 8H unseen (chain 7H 8H): 4 cards
    assert layable_unseen([run], mask("2H 3H 7H 8H")) == mask("2H 3H 7H 8H")
    # 3H seen: 2H cannot be reached
    assert layable_unseen([run], mask("2H 7H")) == mask("7H")
    # a 3-set takes its unseen fourth card; a 4-set takes nothing
    assert layable_unseen([mask("9C 9D 9S")], FULL_DECK_MASK) == mask("9H")
    assert layable_unseen([mask("9C 9D 9H 9S")], FULL_DECK_MASK) == 0


# ------------------------------------------------------------------ R18
def test_R18_layoff_fourth_card_of_set():
    # knocker 9C9D9S, 4D5D6D, AC2C3C, deadwood 2S = 2
    # defender 9H 5S 3S AS = 9 + 5 + 3 + 1 = 18; 9H onto the nines -> 9; 9 - 2 = 7
    r = knock("9C 9D 9S 4D 5D 6D AC 2C 3C 2S", "9H " + CORE + " 5S 3S AS", upcard="8C", draw="KH")
    assert (r["layoffs"], r["defender_deadwood"], r["outcome"], r["points"]) == (["9H"], 9, "knock", 7)


def test_R18_chain_layoff_3H_then_2H_onto_4H5H6H():
    # knocker 4H5H6H, 9C9D9S, TD JD QD, deadwood AS = 1
    # defender KC KD KS, 5C 6C 7C, loose 2H 3H 8S 4S = 2 + 3 + 8 + 4 = 17;
    # 3H onto 4H, then 2H onto 3H: 8 + 4 = 12; 12 - 1 = 11
    r = knock("4H 5H 6H 9C 9D 9S TD JD QD AS", "2H 3H KC KD KS 5C 6C 7C 8S 4S", upcard="8C", draw="KH")
    assert sorted(r["layoffs"]) == ["2H", "3H"]
    assert (r["defender_deadwood"], r["points"]) == (12, 11)


def test_R18_chain_needs_the_link_card():
    # as above but the defender has 7D instead of 3H: 2H cannot reach 4H5H6H.
    # 2H 7D 8S 4S = 2 + 7 + 8 + 4 = 21; 21 - 1 = 20
    r = knock("4H 5H 6H 9C 9D 9S TD JD QD AS", "2H 7D KC KD KS 5C 6C 7C 8S 4S", upcard="8C", draw="KH")
    assert (r["layoffs"], r["defender_deadwood"], r["points"]) == ([], 21, 20)


def test_R18_layoffs_at_both_ends_of_a_run():
    # knocker deadwood 6S = 6; defender 6H TH 8S 9S = 6 + 10 + 8 + 9 = 33,
    # 6H and TH onto 7H8H9H -> 8 + 9 = 17; 17 - 6 = 11.  Dealer 1: the knocker is player_0.
    r = knock(KNOCK_6, CORE + " 6H TH 8S 9S", upcard="5C", draw="KH", dealer=1)
    assert (r["knocker"], r["winner"]) == ("player_0", "player_0")
    assert sorted(r["layoffs"]) == ["6H", "TH"]
    assert (r["defender_deadwood"], r["points"]) == (17, 11)


def test_R18_no_layoff_onto_knocker_deadwood():
    # knocker's 6S is deadwood: the defender's 5S 7S 8S cannot join it.
    # 5S 7S 8S AH = 5 + 7 + 8 + 1 = 21; 21 - 6 = 15
    r = knock(KNOCK_6, CORE + " 5S 7S 8S AH", upcard="5C", draw="KH")
    assert (r["layoffs"], r["defender_deadwood"], r["points"]) == ([], 21, 15)


def test_R18_layoff_options_of_a_run():
    run = mask("4H 5H 6H")
    options = layoff_options(run, mask("2H 3H 7H"))
    assert options[0] == 0
    assert set(options) == {0, mask("3H"), mask("2H 3H"), mask("7H"), mask("3H 7H"), mask("2H 3H 7H")}
    # 2H alone does not touch the run; 8H alone leaves a gap
    assert layoff_options(run, mask("2H 8H")) == [0]
    # another suit never extends a run
    assert layoff_options(run, mask("3S 7C")) == [0]


def test_R18_layoff_options_ace_is_low():
    # R2: nothing goes below A or above K
    assert layoff_options(mask("AH 2H 3H"), mask("KH QH")) == [0]
    assert layoff_options(mask("JH QH KH"), mask("AH")) == [0]
    assert set(layoff_options(mask("2H 3H 4H"), mask("AH"))) == {0, mask("AH")}


def test_R18_layoff_options_of_sets():
    assert set(layoff_options(mask("9C 9D 9S"), mask("9H 8H TH"))) == {0, mask("9H")}
    assert layoff_options(mask("9C 9D 9H 9S"), FULL_DECK_MASK) == [0]


# ------------------------------------------------------------------ R19
def test_R19_no_layoffs_after_gin():
    # 6H would extend 7H-TH and 4C would extend AC2C3C, but after gin nothing is laid off:
    # the defender's deadwood stays 6 + 4 + 5 + 3 = 18 (not 5 + 3 = 8); gin 20 + 18 = 38
    r = knock(GIN, CORE + " 6H 4C 5S 3S", upcard="5C", draw="KH")
    assert r["layoffs"] == []
    assert (r["defender_deadwood"], r["points"]) == (18, 38)


def test_R19_knocker_never_lays_off():
    # knocker deadwood 5S = 5 would fit the defender's 6S7S8S, but the knocker keeps it.
    # defender deadwood KH = 10; 10 - 5 = 5 (not the 10 a layoff of 5S would give)
    r = knock("AC 2C 3C 4D 5D 6D 7H 8H 9H 5S", "6S 7S 8S " + CORE + " KH", upcard="5C", draw="QH")
    assert (r["knocker_deadwood"], r["defender_deadwood"], r["outcome"], r["points"]) == (5, 10, "knock", 5)
    assert r["knocker_deadwood_cards"] == ["5S"]
    assert frozenset(["6S", "7S", "8S"]) in melds_as_sets(r["defender_melds"])


# ------------------------------------------------------------------ R20
def test_R20_layoff_vs_own_meld_chosen_jointly():
    # knocker 4H5H6H, 8C8D8S, JC QC KC, deadwood AS = 1.
    # defender 7H 8H 9H 7C 7D, TD-KD, 2S.  Own melds first would take 7H8H9H and leave
    # 7C 7D 2S = 16.  Jointly: set 7C7D7H of their own, 8H laid on 8C8D8S, dead 9H 2S = 11.
    # (Laying 7H8H9H onto 4H5H6H also leaves 7C 7D 2S = 16.)  Knocker scores 11 - 1 = 10.
    r = knock("4H 5H 6H 8C 8D 8S JC QC KC AS", "7H 8H 9H 7C 7D TD JD QD KD 2S", upcard="3D", draw="KH")
    assert (r["defender_deadwood"], r["layoffs"], r["points"]) == (11, ["8H"], 10)
    assert melds_as_sets(r["defender_melds"]) == {frozenset("7C 7D 7H".split()), frozenset("TD JD QD KD".split())}
    assert sorted(r["defender_deadwood_cards"]) == ["2S", "9H"]


def test_R20_card_is_used_in_own_meld_or_laid_off_not_both():
    # best_defence on masks: the defender's AH 2H 3H could be its own run or a chain onto
    # 4H5H6H; either way 0 deadwood from them, the KD stays (10).  Documented tie-break:
    # fewest laid-off cards, so the run is kept.
    value, melds, laid = best_defence(mask("AH 2H 3H KD"), [mask("4H 5H 6H")])
    assert (value, laid) == (10, 0)
    assert melds == [mask("AH 2H 3H")]


# ------------------------------------------------------------------ R21-R24
def test_R21_knocker_with_less_deadwood_scores_the_difference():
    # knocker 7; defender 8S = 8 (after nothing to lay off); 8 - 7 = 1
    r = knock(KNOCK_7, CORE + " 8S 2H 3H 4H", upcard="5C", draw="KH")
    # 2H 3H 4H is the defender's run, leaving 8S = 8
    assert (r["outcome"], r["winner"], r["points"], r["defender_deadwood"]) == ("knock", "player_1", 1, 8)


def test_R22_tie_is_undercut():
    # 6 vs 6 (see the worked example); with classic25's undercut bonus 25: 0 + 25
    r = knock(KNOCK_6, CORE + " AS AH 2S 2H", upcard="5C", draw="KH", ruleset="classic25")
    assert (r["outcome"], r["winner"], r["points"]) == ("undercut", "player_0", 25)


def test_R22_undercut_bonus_is_a_parameter():
    # 6 vs 4: 2 + 25 (classic25), 2 + 0 (pagat with undercut_bonus=0)
    defender = "TC JC QC KC JD QD KD AS AH 2S"
    assert knock(KNOCK_6, defender, upcard="5C", draw="KH", ruleset="classic25")["points"] == 27
    zero = Ruleset.preset("pagat", undercut_bonus=0)
    r = knock(KNOCK_6, defender, upcard="5C", draw="KH", ruleset=zero)
    assert (r["outcome"], r["winner"], r["points"]) == ("undercut", "player_0", 2)


def test_R23_gin_cannot_be_undercut_both_zero():
    # the defender's ten spades 2S-JS are all melded: 0 deadwood; gin still scores 20 + 0
    r = knock(GIN, "2S 3S 4S 5S 6S 7S 8S 9S TS JS", upcard="5C", draw="KH")
    assert (r["outcome"], r["winner"], r["points"]) == ("gin", "player_1", 20)
    assert r["knocker_deadwood"] == r["defender_deadwood"] == 0


def test_R23_gin_bonus_is_a_parameter():
    # classic25: 25 + 18 = 43
    r = knock(GIN, CORE + " 6H 4C 5S 3S", upcard="5C", draw="KH", ruleset="classic25")
    assert (r["outcome"], r["points"]) == ("gin", 43)


def test_R24_big_gin_bonus():
    # classic25: 10 melded cards + JH from the stock = AC2C3C 4D5D6D 7H-JH, all 11 melded.
    # Defender 6H 4C 5S 3S = 18 (6H would fit 7H-JH but nothing is laid off): 31 + 18 = 49
    state = position(GIN, CORE + " 6H 4C 5S 3S", upcard="5C", draw="JH", ruleset="classic25")
    for action in (PASS, PASS, DRAW_STOCK):
        state.apply_action(action)
    assert BIG_GIN in state.legal_actions()
    state.apply_action(BIG_GIN)
    r = state.result.to_dict()
    assert (r["outcome"], r["knocker"], r["winner"], r["points"]) == ("big_gin", "player_1", "player_1", 49)
    assert (r["knocker_deadwood"], r["defender_deadwood"], r["layoffs"]) == (0, 18, [])
    assert sum(len(m) for m in r["knocker_melds"]) == 11


def test_R24_big_gin_with_the_taken_upcard_and_custom_bonus():
    # taking the first upcard counts as the draw (R16); big_gin_bonus 50: 50 + 18 = 68
    rules = Ruleset.preset("classic25", big_gin_bonus=50)
    state = position(GIN, CORE + " 6H 4C 5S 3S", upcard="JH", ruleset=rules)
    state.apply_action(TAKE_DISCARD)
    state.apply_action(BIG_GIN)
    assert (state.result.outcome, state.result.points) == ("big_gin", 68)


def test_R24_big_gin_is_not_offered_in_pagat():
    state = position(GIN, CORE + " 6H 4C 5S 3S", upcard="JH")
    state.apply_action(TAKE_DISCARD)
    assert BIG_GIN not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply_action(BIG_GIN)


# ------------------------------------------------------------------ Oklahoma
def test_oklahoma_spade_upcard_doubles_knock_points():
    # upcard 9S: knock limit 9 >= 6; 14 - 6 = 8, doubled 16
    r = knock(KNOCK_6, CORE + " AS 2S 8S 3H", upcard="9S", draw="KH", ruleset="oklahoma")
    assert (r["outcome"], r["points"], r["doubled"]) == ("knock", 16, True)


def test_oklahoma_spade_upcard_doubles_undercut_bonus_too():
    # 6 vs 4: (6 - 4 + 25) * 2 = 54
    r = knock(KNOCK_6, "TC JC QC KC JD QD KD AS AH 2S", upcard="9S", draw="KH", ruleset="oklahoma")
    assert (r["outcome"], r["winner"], r["points"]) == ("undercut", "player_0", 54)


def test_oklahoma_spade_upcard_doubles_gin_bonus_too():
    # (25 + 18) * 2 = 86
    r = knock(GIN, CORE + " 6H 4C 5S 3S", upcard="QS", draw="KH", ruleset="oklahoma")
    assert (r["outcome"], r["points"]) == ("gin", 86)


def test_oklahoma_other_suit_upcard_does_not_double():
    # upcard 9D: 14 - 6 = 8, not doubled
    r = knock(KNOCK_6, CORE + " AS 2S 8S 3H", upcard="9D", draw="KH", ruleset="oklahoma")
    assert (r["points"], r["doubled"]) == (8, False)


def test_oklahoma_spade_upcard_does_not_double_in_pagat():
    r = knock(KNOCK_6, CORE + " AS 2S 8S 3H", upcard="9S", draw="KH")
    assert (r["points"], r["doubled"]) == (8, False)


def _after_draw(knocker: str, upcard: str, ruleset: str) -> HandState:
    state = position(knocker, CORE + " 2S 3S 2H 3H", upcard=upcard, draw="KH", ruleset=ruleset)
    for action in (PASS, PASS, DRAW_STOCK):
        state.apply_action(action)
    return state


@pytest.mark.parametrize("upcard, knocker, allowed", [
    ("5H", KNOCK_6, False),                                  # limit 5, deadwood 6
    ("5H", "AC 2C 3C 4D 5D 6D 7H 8H 9H 5S", True),            # limit 5, deadwood 5
    ("AD", "AC 2C 3C 4D 5D 6D 7H 8H 9H AS", False),           # ace: gin only, deadwood 1
    ("AD", GIN, True),                                        # ace: gin
    ("QH", "AC 2C 3C 4D 5D 6D 7H 8H 9H TS", True),            # face card: limit 10
    ("7C", KNOCK_7, True),                                    # limit 7, deadwood 7
    ("7C", "AC 2C 3C 4D 5D 6D 7H 8H 9H 8S", False),           # limit 7, deadwood 8
])
def test_oklahoma_knock_limit_is_the_upcard_value(upcard, knocker, allowed):
    state = _after_draw(knocker, upcard, "oklahoma")
    action = knock_action("KH")
    assert (action in state.legal_actions()) is allowed
    if not allowed:
        with pytest.raises(IllegalActionError):
            state.apply_action(action)


def test_pagat_knock_limit_ignores_the_upcard():
    # deadwood 6 with a 5H upcard: pagat's limit stays 10
    assert knock_action("KH") in _after_draw(KNOCK_6, "5H", "pagat").legal_actions()


# ------------------------------------------------------------------ hand_result dict
def test_hand_result_to_dict_fields_after_layoff():
    r = knock(KNOCK_7, CORE + " 6H AS 2S 2H", upcard="5C", draw="KH")
    json.dumps(r)  # JSON-serialisable
    assert r["outcome"] == "undercut" and r["knocker"] == "player_1" and r["winner"] == "player_0"
    assert type(r["points"]) is int and r["points"] == 12
    assert (r["knocker_deadwood"], r["defender_deadwood"]) == (7, 5)
    assert r["layoffs"] == ["6H"]
    assert melds_as_sets(r["knocker_melds"]) == {frozenset("AC 2C 3C".split()), frozenset("4D 5D 6D".split()),
                                                 frozenset("7H 8H 9H".split())}
    assert melds_as_sets(r["defender_melds"]) == {frozenset("JC QC KC".split()), frozenset("JD QD KD".split())}
    assert all(isinstance(c, str) and len(c) == 2 for m in r["knocker_melds"] + r["defender_melds"] for c in m)
    assert r["knock_discard"] == "KH"


def test_hand_result_to_dict_custom_names():
    result = HandResult("knock", knocker=0, winner=1, points=12, knocker_deadwood=7, defender_deadwood=5,
                        layoffs=(parse_card("6H"),))
    d = result.to_dict(("alice", "bob"))
    assert (d["knocker"], d["winner"], d["layoffs"]) == ("alice", "bob", ["6H"])


def test_R25_dead_hand_result_dict():
    state = position(KNOCK_6, CORE + " AS 2S 8S 3H", upcard="5C")
    state.apply_action(PASS)
    state.apply_action(PASS)
    draws = 0
    while not state.is_over:
        state.apply_action(DRAW_STOCK)
        draws += 1
        state.apply_action(DISCARD_BASE + state.events[-1]["card"])   # throw the drawn card back
    assert draws == 31 - 2 and len(state.stock) == 2
    r = state.result.to_dict()
    assert CONTRACT_FIELDS <= set(r)
    assert (r["outcome"], r["knocker"], r["winner"], r["points"]) == ("dead", None, None, 0)
    assert r["knocker_deadwood"] is None and r["defender_deadwood"] is None
    assert (r["layoffs"], r["knocker_melds"], r["defender_melds"]) == ([], [], [])


# ------------------------------------------------------------------ brute-force references
def valid_meld(group) -> bool:
    """R4/R5 read literally: 3-4 of one rank, or 3+ consecutive ranks of one suit."""
    group = list(group)
    if len(group) < 3:
        return False
    ranks = sorted(c % 13 for c in group)
    if len(set(ranks)) == 1:
        return len(group) <= 4
    return len({c // 13 for c in group}) == 1 and ranks == list(range(ranks[0], ranks[0] + len(group)))


@lru_cache(maxsize=None)
def _deadwood(m: int) -> int:
    return mask_deadwood(m)


def brute_defence(defender: list[int], knocker_melds: list[list[int]]) -> int:
    """Least deadwood over every assignment of each defender card to 'keep' or to one
    knocker meld, keeping only assignments where every extended meld is a valid meld."""
    held = set(defender)
    choices = []
    for c in defender:
        opts: list = [None]
        for i, m in enumerate(knocker_melds):
            if len({x % 13 for x in m}) == 1:
                if c % 13 == m[0] % 13:
                    opts.append(i)
            elif c // 13 == m[0] // 13:
                lo, hi = min(m), max(m)
                between = range(c + 1, lo) if c < lo else range(hi + 1, c)
                if all(x in held for x in between):   # a chain needs every link
                    opts.append(i)
        choices.append(opts)
    best = None
    for combo in product(*choices):
        extra: dict[int, list[int]] = {}
        kept = 0
        for c, target in zip(defender, combo):
            if target is None:
                kept |= 1 << c
            else:
                extra.setdefault(target, []).append(c)
        if all(valid_meld(knocker_melds[i] + add) for i, add in extra.items()):
            value = _deadwood(kept)
            best = value if best is None else min(best, value)
    return best


def is_valid_layoff(laid: int, knocker_melds: list[int]) -> bool:
    """Whether the cards of ``laid`` can be split among the melds keeping each valid."""
    laid_cards = mask_to_cards(laid)
    for combo in product(range(len(knocker_melds)), repeat=len(laid_cards)):
        groups = [mask_to_cards(m) for m in knocker_melds]
        for c, target in zip(laid_cards, combo):
            groups[target].append(c)
        if all(valid_meld(g) for g in groups):
            return True
    return not laid_cards


def all_arrangements_min(hand: int) -> tuple[int, list[list[int]]]:
    """(least deadwood, every disjoint family of valid melds reaching it), by brute force."""
    hand_cards = mask_to_cards(hand)
    candidates = []
    for size in range(3, len(hand_cards) + 1):
        for group in combinations(hand_cards, size):
            if valid_meld(group):
                candidates.append(sum(1 << c for c in group))
    families: list[list[int]] = []

    def search(start: int, used: int, chosen: list[int]) -> None:
        families.append(list(chosen))
        for i in range(start, len(candidates)):
            if not candidates[i] & used:
                chosen.append(candidates[i])
                search(i + 1, used | candidates[i], chosen)
                chosen.pop()

    search(0, 0, [])

    def left(family: list[int]) -> int:
        used = 0
        for m in family:
            used |= m
        return sum(CARD_VALUES[c] for c in mask_to_cards(hand & ~used))

    least = min(left(f) for f in families)
    return least, [f for f in families if left(f) == least]


def ref_layable(family: list[int], unseen: int) -> int:
    """Unseen cards that could go onto the melds: a 3-set's 4th, chains off run ends."""
    out = 0
    for m in family:
        group = mask_to_cards(m)
        if len({c % 13 for c in group}) == 1:
            if len(group) == 3:
                fourth = next(s * 13 + group[0] % 13 for s in range(4) if s * 13 + group[0] % 13 not in group)
                if unseen >> fourth & 1:
                    out |= 1 << fourth
            continue
        lo, hi = min(group), max(group)
        c = lo - 1
        while c >= lo - lo % 13 and unseen >> c & 1:
            out |= 1 << c
            c -= 1
        c = hi + 1
        while c < lo - lo % 13 + 13 and unseen >> c & 1:
            out |= 1 << c
            c += 1
    return out


def _window_deck(start: int) -> list[int]:
    """Ranks start..start+6 in all four suits: 28 cards, so melds and layoffs are common."""
    return [s * 13 + r for s in range(4) for r in range(start, start + 7)]


deals_in_window = st.integers(0, 6).flatmap(lambda start: st.permutations(_window_deck(start)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=deals_in_window, pick=st.integers(0, 10**6))
def test_R18_R20_best_defence_matches_brute_force(deck, pick):
    knocker, defender = sum(1 << c for c in deck[:10]), deck[10:20]
    arrangements = all_best_arrangements(knocker)
    melds = arrangements[pick % len(arrangements)]
    value, own, laid = best_defence(sum(1 << c for c in defender), melds)
    expected = brute_defence(defender, [mask_to_cards(m) for m in melds])
    assert value == expected
    defender_mask = sum(1 << c for c in defender)
    # never worse than laying off nothing
    assert value <= mask_deadwood(defender_mask)
    # what it reports is real: the layoff is valid, the melds are valid, disjoint and held,
    # and the deadwood is what they leave
    assert laid & ~defender_mask == 0 and is_valid_layoff(laid, melds)
    used = laid
    for m in own:
        assert valid_meld(mask_to_cards(m)) and m & used == 0
        used |= m
    assert used & ~defender_mask == 0
    assert value == sum(CARD_VALUES[c] for c in mask_to_cards(defender_mask & ~used))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=deals_in_window, seen=st.sets(st.integers(0, 17), max_size=10))
def test_R17_knocker_arrangement_matches_brute_force(deck, seen):
    hand = sum(1 << c for c in deck[:10])
    seen_mask = sum(1 << deck[10 + i] for i in seen)
    unseen = FULL_DECK_MASK & ~hand & ~seen_mask
    chosen = knocker_arrangement(hand, unseen)
    least, families = all_arrangements_min(hand)
    used = 0
    for m in chosen:
        assert valid_meld(mask_to_cards(m)) and m & ~hand == 0 and m & used == 0
        used |= m
    assert sum(CARD_VALUES[c] for c in mask_to_cards(hand & ~used)) == least
    fewest = min(ref_layable(f, unseen).bit_count() for f in families)
    assert ref_layable(chosen, unseen).bit_count() == fewest
    # documented tie-break after that: fewest melds
    assert len(chosen) == min(len(f) for f in families if ref_layable(f, unseen).bit_count() == fewest)


def _greedy_until_over(state: HandState) -> None:
    """Pass the upcard, draw from the stock, knock as soon as allowed, else throw the card
    that leaves the least deadwood."""
    while not state.is_over:
        legal = state.legal_actions()
        knocks = [a for a in legal if KNOCK_BASE <= a < BIG_GIN]
        if PASS in legal:
            state.apply_action(PASS)
        elif DRAW_STOCK in legal:
            state.apply_action(DRAW_STOCK)
        elif knocks:
            state.apply_action(knocks[0])
        else:
            hand = state.hands[state.current_player]
            state.apply_action(min(legal, key=lambda a: (mask_deadwood(hand & ~(1 << (a - DISCARD_BASE))), a)))


def test_R21_R22_R23_greedy_hands_score_by_the_table():
    """Random hands played to a knock: the result follows R21-R23 given the deadwoods,
    and the defender's deadwood equals the brute-force layoff optimum."""
    rng = np.random.default_rng(2024)
    outcomes = set()
    for _ in range(120):
        state = HandState.random(rng, "pagat")
        _greedy_until_over(state)
        res = state.result
        outcomes.add(res.outcome)
        if res.outcome == "dead":
            assert (res.points, res.winner, res.knocker) == (0, None, None)
            continue
        defender = 1 - res.knocker
        kd, dd = res.knocker_deadwood, res.defender_deadwood
        assert kd == mask_deadwood(state.hands[res.knocker])
        if res.outcome == "gin":
            assert kd == 0 and res.layoffs == ()
            assert dd == mask_deadwood(state.hands[defender])
            assert (res.winner, res.points) == (res.knocker, 20 + dd)
            continue
        assert dd == brute_defence(mask_to_cards(state.hands[defender]), [list(m) for m in res.knocker_melds])
        if kd < dd:
            assert (res.outcome, res.winner, res.points) == ("knock", res.knocker, dd - kd)
        else:
            assert (res.outcome, res.winner, res.points) == ("undercut", defender, kd - dd + 10)
    assert {"knock", "undercut"} <= outcomes
