"""Melds and deadwood (R2-R7, R15) against hand-worked examples and the independent
brute-force reference in ``tests/meld_reference.py``.

Every expected number in the worked examples is derived by hand in a comment
(card values per R3: A=1, 2-10 face value, J/Q/K=10).
"""
from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from meld_reference import (
    candidate_melds,
    card,
    is_valid_meld,
    partition_deadwood,
    ref_best_arrangements,
    ref_deadwood,
    text,
    value,
)
from meld_reference import mask as ref_mask  # noqa: E402

from ginenv import InvalidCardError, best_melds, deadwood
from ginenv.game.melds import (
    all_best_arrangements,
    all_melds,
    discard_deadwoods,
    mask_best_melds,
    mask_deadwood,
    set_choices,
)

SEED = 20240917


def cards_of(texts: str) -> list[int]:
    """``"7H 8H 9H"`` -> card ints, via the reference's own notation."""
    return [card(t) for t in texts.split()]


def texts_of(cards) -> list[str]:
    return [text(c) for c in cards]


def as_sets(melds) -> set[frozenset]:
    return {frozenset(m) for m in melds}


#: Restricted decks on which random hands are meld-rich: sets and runs overlap a lot.
DENSE_DECKS = [
    [s * 13 + r for s in range(4) for r in range(3, 9)],     # 4..9 of every suit (24 cards)
    [s * 13 + r for s in range(4) for r in range(0, 5)],     # A..5 of every suit, ace-low runs
    [s * 13 + r for s in range(4) for r in range(8, 13)],    # 9..K of every suit, ten-point cards
    [s * 13 + r for s in (0, 2) for r in range(13)],         # two whole suits: long runs
    [s * 13 + r for s in range(4) for r in (0, 1, 2, 11, 12)],  # Q K A 2 3: wrap-around bait
]

hands = st.lists(st.integers(0, 51), unique=True, max_size=11)
dense_hands = st.sampled_from(DENSE_DECKS).flatmap(
    lambda deck: st.lists(st.sampled_from(deck), unique=True, max_size=11))
any_hands = st.one_of(hands, dense_hands)


def check_arrangement(given_cards, melds, dead, expected_deadwood):
    """best_melds' output is a valid, disjoint arrangement covering exactly the input."""
    flat = [c for m in melds for c in m]
    for meld in melds:
        assert is_valid_meld(meld), f"not a meld: {texts_of(meld)}"
    assert len(flat) == len(set(flat)), "a card is in two melds (R6)"
    assert not set(flat) & set(dead), "a card is both melded and dead"
    assert sorted(flat + list(dead)) == sorted(given_cards), "melds + deadwood must be exactly the hand"
    assert sum(value(c) for c in dead) == expected_deadwood


# --- R2: ace low --------------------------------------------------------------------

def test_R2_ace_is_low_A23_is_a_run():
    assert deadwood(["AH", "2H", "3H"]) == 0
    assert best_melds(["AH", "2H", "3H"]) == ([["AH", "2H", "3H"]], [])


def test_R2_ace_is_low_QKA_is_not_a_run():
    # Q 10 + K 10 + A 1 = 21, nothing melds
    assert deadwood(["QH", "KH", "AH"]) == 21
    melds, dead = best_melds(["QH", "KH", "AH"])
    assert melds == [] and sorted(dead) == sorted(["QH", "KH", "AH"])


def test_R2_ace_is_low_KA2_is_not_a_run():
    # K 10 + A 1 + 2 = 13
    assert deadwood(["KS", "AS", "2S"]) == 13
    assert deadwood(cards_of("KS AS 2S")) == 13


def test_R2_ace_is_low_KA23_melds_only_A23():
    # A-2-3 melds; the king cannot join (no wrap-around): 10 dead
    assert deadwood(["KS", "AS", "2S", "3S"]) == 10
    melds, dead = best_melds(["KS", "AS", "2S", "3S"])
    assert as_sets(melds) == {frozenset({"AS", "2S", "3S"})} and dead == ["KS"]


def test_R2_ace_is_low_JQK_is_a_run_at_the_top():
    assert deadwood(["JD", "QD", "KD"]) == 0
    # J-Q-K-A: the ace stays dead (1)
    assert deadwood(["JD", "QD", "KD", "AD"]) == 1


# --- R3: values -----------------------------------------------------------------------

@pytest.mark.parametrize("rank_char, points", [("A", 1), ("2", 2), ("5", 5), ("9", 9), ("T", 10),
                                               ("J", 10), ("Q", 10), ("K", 10)])
def test_R3_single_card_deadwood_is_its_value(rank_char, points):
    for suit_char in "CDHS":
        assert deadwood([rank_char + suit_char]) == points


def test_R3_unmelded_cards_sum_their_values():
    # no two share a rank, no two of one suit are adjacent: 1 + 5 + 10 + 10 + 10 + 10 = 46
    assert deadwood(["AC", "5D", "TH", "JS", "QC", "KD"]) == 46
    # ten cards, no meld: 1+2 (AC 2D) + 4+5 (4H 5S) + 7+8 (7C 8D) + 10+10 (TH JS) + 10+10 (QC KD) = 67
    assert deadwood(["AC", "2D", "4H", "5S", "7C", "8D", "TH", "JS", "QC", "KD"]) == 67


# --- R4: sets -----------------------------------------------------------------------------

def test_R4_set_of_three_or_four():
    assert deadwood(["7C", "7D", "7H"]) == 0
    assert deadwood(["7C", "7D", "7H", "7S"]) == 0
    melds, dead = best_melds(["7C", "7D", "7H", "7S"])
    assert as_sets(melds) == {frozenset({"7C", "7D", "7H", "7S"})} and dead == []
    # with a stray king: 10
    assert deadwood(["KC", "7C", "7D", "7H", "7S"]) == 10


def test_R4_pair_is_not_a_set():
    assert deadwood(["7C", "7D"]) == 14          # 7 + 7
    assert deadwood(["KC", "KD", "QH", "QS"]) == 40


def test_R4_three_of_a_four_set_frees_a_card_for_a_run():
    # 5C 5D 5H 5S 6S 7S: the 4-set leaves 6S+7S = 13 dead; the 3-set 5C 5D 5H plus the run
    # 5S 6S 7S melds everything: 0.
    hand = ["5C", "5D", "5H", "5S", "6S", "7S"]
    assert deadwood(hand) == 0
    melds, dead = best_melds(hand)
    assert as_sets(melds) == {frozenset({"5C", "5D", "5H"}), frozenset({"5S", "6S", "7S"})}
    assert dead == []


# --- R5: runs -----------------------------------------------------------------------------

def test_R5_run_of_three_or_more_in_one_suit():
    assert deadwood(["4H", "5H", "6H"]) == 0
    assert deadwood(["4H", "5H", "6H", "7H", "8H", "9H"]) == 0
    # A..J of hearts: one 11-card run
    eleven = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH"]
    assert deadwood(eleven) == 0
    melds, dead = best_melds(eleven)
    assert sorted(c for m in melds for c in m) == sorted(eleven) and dead == []


def test_R5_run_must_be_one_suit():
    assert deadwood(["4H", "5S", "6H"]) == 15    # 4 + 5 + 6


def test_R5_run_must_be_consecutive():
    assert deadwood(["4H", "5H", "7H"]) == 16    # 4 + 5 + 7
    assert deadwood(["4H", "5H", "7H", "8H"]) == 24


def test_R5_two_cards_are_not_a_run():
    assert deadwood(["4H", "5H"]) == 9


def test_R5_long_run_split_when_its_middle_goes_to_a_set():
    # 3H..9H (7 cards) + 6C 6D: taking 6H into the set 6C 6D 6H leaves 3H4H5H and 7H8H9H,
    # both runs: 0.  Keeping the 7-run leaves 6C 6D = 12.
    hand = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "6C", "6D"]
    assert deadwood(hand) == 0
    melds, _ = best_melds(hand)
    assert as_sets(melds) == {frozenset({"3H", "4H", "5H"}), frozenset({"7H", "8H", "9H"}),
                              frozenset({"6C", "6D", "6H"})}


# --- R6: one meld per card ------------------------------------------------------------------

def test_R6_card_in_one_meld_only():
    # 7H 8H 9H 7S 7C: run 7H8H9H leaves 7S+7C = 14; set 7C7H7S leaves 8H+9H = 17.  Never both.
    hand = ["7H", "8H", "9H", "7S", "7C"]
    assert deadwood(hand) == 14
    melds, dead = best_melds(hand)
    assert as_sets(melds) == {frozenset({"7H", "8H", "9H"})}
    assert sorted(dead) == ["7C", "7S"]


def test_R6_fourth_seven_lets_both_melds_stand():
    # with 7D: set 7C 7D 7S + run 7H 8H 9H = all melded
    hand = ["7H", "8H", "9H", "7S", "7C", "7D"]
    assert deadwood(hand) == 0
    melds, dead = best_melds(hand)
    assert as_sets(melds) == {frozenset({"7C", "7D", "7S"}), frozenset({"7H", "8H", "9H"})}
    assert dead == []


@settings(max_examples=300, deadline=None)
@given(any_hands)
def test_R6_best_melds_are_disjoint_valid_and_cover_the_hand(hand):
    melds, dead = best_melds(hand)
    check_arrangement(hand, melds, dead, deadwood(hand))


# --- R7: the least deadwood ---------------------------------------------------------------------

def test_R7_minimum_not_the_longest_run():
    # 3C 4C 5C 6C 6D 6H: the 4-run leaves 6D+6H = 12; 3C4C5C + set 6C6D6H leaves 0.
    assert deadwood(["3C", "4C", "5C", "6C", "6D", "6H"]) == 0


def test_R7_minimum_counts_points_not_cards():
    # 9H TH JH + TC TD: the run (3 cards) leaves TC+TD = 20; the set TC TD TH (3 cards)
    # leaves 9H+JH = 19.  The set wins by one point.
    hand = ["9H", "TH", "JH", "TC", "TD"]
    assert deadwood(hand) == 19
    melds, dead = best_melds(hand)
    assert as_sets(melds) == {frozenset({"TC", "TD", "TH"})} and sorted(dead) == ["9H", "JH"]


def test_R7_three_overlapping_sets_and_runs():
    # 4C 4D 4H 5C 5D 5H 6C 6H KS (KS never melds, 10):
    #   runs 4C5C6C + 4H5H6H leave 4D 5D: 4 + 5 + 10 = 19
    #   sets 4C4D4H + 5C5D5H leave 6C 6H: 6 + 6 + 10 = 22
    #   one set + one run is impossible: every run needs a 4 and a 5 of its suit, and
    #   with only 4C/4H and 5C/5H left after a set there is no third card for a run.
    #   -> 19
    hand = ["4C", "4D", "4H", "5H", "6H", "5C", "6C", "5D", "KS"]
    assert deadwood(hand) == 19


def test_R7_empty_hand():
    assert deadwood([]) == 0
    assert best_melds([]) == ([], [])


def test_R7_discard_deadwoods_worked_example():
    # AS 2S 3S 4S 5S + 6D 7D 8D 9D TD + KC (11 cards).  Deadwood after each discard:
    #   KC -> two 5-runs: 0
    #   AS, 5S, 6D, TD -> a 4-run stays, only KC dead: 10
    #   2S -> AS dead (1) + 3S4S5S + KC: 11;      4S -> AS2S3S + 5S dead (5) + KC: 15
    #   3S -> AS 2S (3) + 4S 5S (9) + KC: 22;    7D -> 6D dead (6) + 8D9DTD + KC: 16
    #   8D -> 6D 7D (13) + 9D TD (19) + KC: 42;  9D -> 6D7D8D + TD (10) + KC: 20
    hand = cards_of("AS 2S 3S 4S 5S 6D 7D 8D 9D TD KC")
    expected = {"KC": 0, "AS": 10, "5S": 10, "6D": 10, "TD": 10, "2S": 11, "4S": 15, "3S": 22,
                "7D": 16, "8D": 42, "9D": 20}
    got = discard_deadwoods(ref_mask(hand))
    assert {text(c): dw for c, dw in got.items()} == expected


def random_hands(rng: random.Random, deck: list[int], sizes, count: int):
    for i in range(count):
        yield rng.sample(deck, sizes[i % len(sizes)])


def _mismatches(pairs):
    return [(texts_of(h), got, want) for h, got, want in pairs if got != want]


def test_R7_deadwood_matches_brute_force_on_100k_random_hands():
    """The big seeded sweep: 50,000 ten-card and 50,000 eleven-card uniform hands."""
    rng = random.Random(SEED)
    deck = list(range(52))
    bad = []
    for hand in random_hands(rng, deck, (10, 11), 100_000):
        want = ref_deadwood(hand)
        if deadwood(hand) != want:
            bad.append((texts_of(hand), deadwood(hand), want))
            if len(bad) >= 5:
                break
    assert not bad, f"(hand, solver, reference): {bad}"


def test_R7_deadwood_matches_brute_force_on_meld_rich_hands():
    """Hands drawn from small decks, so sets and runs overlap and compete."""
    rng = random.Random(SEED + 1)
    bad = []
    for deck in DENSE_DECKS:
        for hand in random_hands(rng, deck, (10, 11, 9, 8, 7), 4_000):
            want = ref_deadwood(hand)
            if deadwood(hand) != want:
                bad.append((texts_of(hand), deadwood(hand), want))
    assert not bad[:5], f"(hand, solver, reference): {bad[:5]}"


def test_R7_text_and_int_forms_agree():
    rng = random.Random(SEED + 2)
    for hand in random_hands(rng, list(range(52)), (10, 11), 3_000):
        texts = texts_of(hand)
        want = deadwood(hand)
        assert deadwood(texts) == want
        assert deadwood([t.lower() for t in texts]) == want
        assert deadwood(tuple(hand)) == want
        assert deadwood(np.array(hand)) == want


def test_R7_best_melds_matches_brute_force_on_sweep():
    rng = random.Random(SEED + 3)
    hands_ = list(random_hands(rng, list(range(52)), (10, 11), 3_000))
    for deck in DENSE_DECKS:
        hands_ += list(random_hands(rng, deck, (10, 11), 600))
    for hand in hands_:
        want = ref_deadwood(hand)
        melds, dead = best_melds(hand)
        check_arrangement(hand, melds, dead, want)
        melds, dead = best_melds(texts_of(hand))
        check_arrangement(hand, [[card(t) for t in m] for m in melds], [card(t) for t in dead], want)


def test_R7_discard_deadwoods_equals_eleven_independent_solves():
    rng = random.Random(SEED + 4)
    hands_ = list(random_hands(rng, list(range(52)), (11,), 3_000))
    for deck in DENSE_DECKS:
        hands_ += list(random_hands(rng, deck, (11,), 400))
    for hand in hands_:
        want = {c: ref_deadwood([d for d in hand if d != c]) for c in hand}
        assert discard_deadwoods(ref_mask(hand)) == want, texts_of(hand)


@settings(max_examples=300, deadline=None)
@given(any_hands)
def test_R7_deadwood_equals_reference(hand):
    assert deadwood(hand) == ref_deadwood(hand)
    assert mask_deadwood(ref_mask(hand)) == ref_deadwood(hand)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(DENSE_DECKS).flatmap(
    lambda deck: st.lists(st.sampled_from(deck), unique=True, max_size=8)))
def test_R7_reference_agrees_with_partition_oracle(hand):
    """Checks the oracle itself: every carving of the hand into melds and dead cards."""
    assert ref_deadwood(hand) == partition_deadwood(hand) == deadwood(hand)


@settings(max_examples=200, deadline=None)
@given(hands.flatmap(lambda h: st.permutations(h)))
def test_R7_order_of_cards_does_not_matter(hand):
    base = deadwood(sorted(hand))
    assert deadwood(hand) == base
    assert deadwood(texts_of(hand)) == base
    melds, dead = best_melds(hand)
    assert sum(value(c) for c in dead) == base


@settings(max_examples=200, deadline=None)
@given(any_hands, st.permutations([0, 1, 2, 3]))
def test_R7_relabelling_suits_does_not_change_deadwood(hand, suit_map):
    relabelled = [suit_map[c // 13] * 13 + c % 13 for c in hand]
    assert deadwood(relabelled) == deadwood(hand)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 51), unique=True, min_size=1, max_size=11))
def test_R7_one_more_card_costs_at_most_its_value(hand):
    *rest, extra = hand
    assert deadwood(hand) <= deadwood(rest) + value(extra)
    assert deadwood(hand) <= sum(value(c) for c in hand)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.lists(st.integers(0, 51), unique=True, min_size=11, max_size=11),
                 st.sampled_from(DENSE_DECKS).flatmap(
                     lambda deck: st.lists(st.sampled_from(deck), unique=True, min_size=11, max_size=11))))
def test_R7_discard_deadwoods_equals_deadwood_of_each_ten(hand):
    got = discard_deadwoods(ref_mask(hand))
    assert set(got) == set(hand)
    for c in hand:
        assert got[c] == deadwood([d for d in hand if d != c])


# --- R15: gin ----------------------------------------------------------------------------------

def test_R15_two_five_card_runs_is_gin():
    hand = ["AS", "2S", "3S", "4S", "5S", "6D", "7D", "8D", "9D", "TD"]
    assert deadwood(hand) == 0
    melds, dead = best_melds(hand)
    # a 5-run cannot be cut into two runs (3 + 2), so the melds are exactly the two 5-runs
    assert dead == []
    assert as_sets(melds) == {frozenset(hand[:5]), frozenset(hand[5:])}


def test_R15_three_three_four_is_gin():
    hand = ["KC", "KD", "KH", "2C", "3C", "4C", "9H", "TH", "JH", "QH"]
    assert deadwood(hand) == 0
    melds, dead = best_melds(hand)
    assert dead == [] and len(melds) == 3


def test_R15_eleven_cards_all_melded():
    # 8C 8D 8S + 5H 6H 7H 8H + JC QC KC + AC: the AC cannot extend J-Q-K (no wrap-around)
    # and is dead: 1.  With 9H instead of AC: 8C8D8S, 5H..9H, JC QC KC, all 11 melded: 0.
    assert deadwood(["8C", "8D", "8S", "5H", "6H", "7H", "8H", "JC", "QC", "KC", "AC"]) == 1
    assert deadwood(["8C", "8D", "8S", "5H", "6H", "7H", "8H", "JC", "QC", "KC", "9H"]) == 0


# --- forms and input validation ------------------------------------------------------------------

def test_best_melds_text_in_text_out():
    melds, dead = best_melds(["7h", "8♥", "9H", "ks"])
    assert melds == [["7H", "8H", "9H"]] and dead == ["KS"]
    melds, dead = best_melds(["10S", "JS", "QS"])
    assert melds == [["TS", "JS", "QS"]] and dead == []


def test_best_melds_ints_in_ints_out():
    # 7H=32 8H=33 9H=34, KS=51
    melds, dead = best_melds([51, 33, 32, 34])
    assert as_sets(melds) == {frozenset({32, 33, 34})} and dead == [51]
    assert all(type(c) is int for m in melds for c in m + dead)
    melds, dead = best_melds(np.array([51, 33, 32, 34]))
    assert all(type(c) is int for m in melds for c in m + dead)
    assert as_sets(melds) == {frozenset({32, 33, 34})} and dead == [51]


@settings(max_examples=100, deadline=None)
@given(any_hands)
def test_best_melds_preserves_form(hand):
    melds, dead = best_melds(texts_of(hand))
    assert all(isinstance(c, str) and len(c) == 2 for m in melds for c in m + dead)
    int_melds, int_dead = best_melds(hand)
    assert all(type(c) is int for m in int_melds for c in m + int_dead)
    assert as_sets([[card(t) for t in m] for m in melds]) == as_sets(int_melds)
    assert sorted(card(t) for t in dead) == sorted(int_dead)


def test_any_iterable_is_accepted():
    # a generator must not be consumed twice
    assert deadwood(c for c in ["7H", "8H", "9H", "KS"]) == 10
    assert deadwood(iter([32, 33, 34, 51])) == 10
    assert deadwood({"7H", "8H", "9H", "KS"}) == 10
    assert best_melds(iter(["7H", "8H", "9H", "KS"])) == ([["7H", "8H", "9H"]], ["KS"])


@pytest.mark.parametrize("size", range(12))
def test_zero_to_eleven_cards_accepted(size):
    rng = random.Random(size)
    hand = rng.sample(range(52), size)
    assert deadwood(hand) == ref_deadwood(hand)
    melds, dead = best_melds(hand)
    check_arrangement(hand, melds, dead, ref_deadwood(hand))


@pytest.mark.parametrize("form", ["ints", "texts", "generator", "tuple"])
def test_twelve_cards_rejected(form):
    hand = list(range(0, 48, 4))          # 12 distinct cards
    assert len(hand) == 12
    make = {"ints": lambda: hand, "texts": lambda: texts_of(hand),
            "generator": lambda: (c for c in hand), "tuple": lambda: tuple(hand)}[form]
    with pytest.raises(ValueError):
        deadwood(make())
    with pytest.raises(ValueError):
        best_melds(make())


@pytest.mark.parametrize("hand", [["7H", "7H"], ["7H", "7h"], [32, "7H"], [5, 5], ["TS", "10♠", "JS"],
                                  ["AC", "2C", "3C", "AC"]])
def test_duplicates_rejected(hand):
    with pytest.raises(InvalidCardError, match="duplicate"):
        deadwood(hand)
    with pytest.raises(InvalidCardError, match="duplicate"):
        best_melds(hand)


def test_duplicates_rejected_even_with_twelve_entries():
    hand = list(range(11)) + [0]
    with pytest.raises(ValueError):
        deadwood(hand)
    with pytest.raises(ValueError):
        best_melds(hand)


@pytest.mark.parametrize("hand", [["ZZ"], ["7H", "1H"], [52], [-1], [None], ["7H", 3.5]])
def test_bad_cards_rejected(hand):
    with pytest.raises(InvalidCardError):
        deadwood(hand)
    with pytest.raises(InvalidCardError):
        best_melds(hand)


def test_noncanonical_spellings_accepted():
    # 10H JH QH is a run; 7h 7♦ 7S a set
    assert deadwood(["10h", "J♥", "qH", "7h", "7♦", "7S"]) == 0
    assert deadwood(["7H", 33, "9H"]) == 0      # 8H = 2*13+7 = 33


# --- the lower-level helpers ---------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(any_hands)
def test_all_melds_lists_every_meld_once(hand):
    got = all_melds(ref_mask(hand))
    assert len(got) == len(set(got))
    assert set(got) == {ref_mask(m) for m in candidate_melds(hand)}


def test_all_melds_hand_counts():
    # 4H 5H 6H 7H: 4-5-6, 5-6-7, 4-5-6-7
    assert len(all_melds(ref_mask(cards_of("4H 5H 6H 7H")))) == 3
    # four 7s: one 4-set and four 3-sets
    assert len(all_melds(ref_mask(cards_of("7C 7D 7H 7S")))) == 5
    # Q K A 2 of one suit: no meld at all
    assert all_melds(ref_mask(cards_of("QS KS AS 2S"))) == []


@settings(max_examples=200, deadline=None)
@given(any_hands)
def test_set_choices_are_every_family_of_sets(hand):
    sets = [m for m in candidate_melds(hand) if len({c % 13 for c in m}) == 1]
    want = {0}
    for k in range(1, 4):
        for family in combinations(sets, k):
            if all(a.isdisjoint(b) for a, b in combinations(family, 2)):
                want.add(ref_mask(c for m in family for c in m))
    got = set_choices(ref_mask(hand))
    assert len(got) == len(set(got))
    assert set(got) == want


def test_set_choices_counts():
    # three of a rank: none or the set (2); four: none, the 4-set, four 3-sets (6)
    assert len(set_choices(ref_mask(cards_of("7C 7D 7H")))) == 2
    assert len(set_choices(ref_mask(cards_of("7C 7D 7H 7S")))) == 6
    assert len(set_choices(ref_mask(cards_of("7C 7D 7H 7S 9C 9D 9S")))) == 12
    assert set_choices(ref_mask(cards_of("7C 7D 8H 8S"))) == [0]


@settings(max_examples=200, deadline=None)
@given(any_hands)
def test_mask_best_melds_is_a_best_arrangement(hand):
    melds, dead = mask_best_melds(ref_mask(hand))
    meld_cards = [[c for c in range(52) if m >> c & 1] for m in melds]
    dead_cards = [c for c in range(52) if dead >> c & 1]
    check_arrangement(hand, meld_cards, dead_cards, ref_deadwood(hand))


@settings(max_examples=150, deadline=None)
@given(any_hands)
def test_all_best_arrangements_match_reference(hand):
    got = all_best_arrangements(ref_mask(hand))
    as_families = [frozenset(frozenset(c for c in range(52) if m >> c & 1) for m in arr) for arr in got]
    assert len(as_families) == len(set(as_families))
    assert set(as_families) == ref_best_arrangements(hand)


def test_all_best_arrangements_hand_example():
    # 7C 7D 7H 8H 9H KS: 7H is in the set and in the run, so only one of them.
    # Run 7H8H9H leaves 7C 7D KS (24); set 7C7D7H leaves 8H 9H KS (27).  One best: the run.
    arrangements = all_best_arrangements(ref_mask(cards_of("7C 7D 7H 8H 9H KS")))
    assert [[texts_of(c for c in range(52) if m >> c & 1) for m in arr] for arr in arrangements] == \
        [[["7H", "8H", "9H"]]]
    # 4H..9H (6-run): the whole run, or split into 4H5H6H + 7H8H9H: two best arrangements
    assert len(all_best_arrangements(ref_mask(cards_of("4H 5H 6H 7H 8H 9H")))) == 2
