"""Cards: the public contract's text and integer forms (DESIGN.md) and R1-R3.

Expected values are written out from the contract by hand, never computed with
the module under test: index = suit * 13 + rank, suits C D H S, ranks A=0 .. K=12.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ginenv import InvalidCardError, card_text, card_value, parse_card, parse_cards
from ginenv.game.cards import (
    CARD_TEXTS,
    CARD_VALUES,
    NUM_CARDS,
    cards_to_mask,
    format_cards,
    make_card,
    mask_to_cards,
    rank_of,
    suit_of,
)

RANKS_BY_HAND = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]
SUITS_BY_HAND = ["C", "D", "H", "S"]
SYMBOLS_BY_HAND = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
#: R3 written out: A 1, 2-10 face value, J Q K 10.
VALUES_BY_HAND = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                  "T": 10, "J": 10, "Q": 10, "K": 10}
ALL_TEXTS = [r + s for s in SUITS_BY_HAND for r in RANKS_BY_HAND]   # in index order


# --- the contract's anchor points -------------------------------------------------

@pytest.mark.parametrize("text, index", [("AC", 0), ("KC", 12), ("AD", 13), ("KS", 51),
                                         ("7H", 32), ("TS", 48), ("2C", 1), ("QD", 24)])
def test_contract_examples(text, index):
    # "AC"=0, "KC"=12, "AD"=13, "KS"=51 from DESIGN.md; 7H = 2*13+6 = 32,
    # TS = 3*13+9 = 48, 2C = 0*13+1 = 1, QD = 1*13+11 = 24.
    assert parse_card(text) == index
    assert card_text(index) == text


def test_R1_deck_has_52_distinct_cards():
    assert NUM_CARDS == 52
    texts = [card_text(c) for c in range(52)]
    assert len(set(texts)) == 52
    assert sorted(parse_card(t) for t in texts) == list(range(52))
    assert sorted(texts) == sorted(ALL_TEXTS)


@pytest.mark.parametrize("index", range(52))
def test_round_trip_all_52(index):
    text = ALL_TEXTS[index]
    assert card_text(index) == text
    assert parse_card(text) == index
    assert parse_card(card_text(index)) == index
    assert card_text(parse_card(text)) == text
    assert CARD_TEXTS[index] == text


@pytest.mark.parametrize("index", range(52))
def test_alternative_spellings(index):
    text = ALL_TEXTS[index]
    r, s = text[0], text[1]
    ten = "10" if r == "T" else r
    spellings = {
        text.lower(),                        # "7h", "ts"
        ten + s,                             # "10H"
        (ten + s).lower(),                   # "10h"
        r + SYMBOLS_BY_HAND[s],              # "7♥", "T♠"
        ten + SYMBOLS_BY_HAND[s],            # "10♠"
        r.lower() + SYMBOLS_BY_HAND[s],      # "t♠", "q♥"
        r.lower() + s,                       # mixed case "qH"
        r + s.lower(),                       # mixed case "Qh"
    }
    for spelling in spellings:
        assert parse_card(spelling) == index, spelling
    # formatting is always the canonical two-character form
    assert card_text(parse_card(ten + SYMBOLS_BY_HAND[s])) == text


def test_ten_is_formatted_as_T():
    assert card_text(parse_card("10♥")) == "TH"
    assert [card_text(parse_card("10" + s)) for s in "CDHS"] == ["TC", "TD", "TH", "TS"]


def test_ints_pass_through_parse_card():
    import numpy as np

    assert [parse_card(i) for i in range(52)] == list(range(52))
    assert parse_card(np.int64(51)) == 51
    assert parse_card(np.int8(0)) == 0


# --- R2: order -----------------------------------------------------------------

def test_R2_ace_is_low_in_rank_order():
    # ranks A 2 3 ... K are 0..12 within every suit: the ace is the lowest card.
    for s, suit_char in enumerate(SUITS_BY_HAND):
        for r, rank_char in enumerate(RANKS_BY_HAND):
            card = parse_card(rank_char + suit_char)
            assert rank_of(card) == r
            assert suit_of(card) == s
            assert make_card(r, s) == card
    assert rank_of(parse_card("AS")) < rank_of(parse_card("2S")) < rank_of(parse_card("KS"))


def test_R2_suit_order_is_clubs_diamonds_hearts_spades():
    assert [suit_of(parse_card("A" + s)) for s in "CDHS"] == [0, 1, 2, 3]
    assert [parse_card("A" + s) for s in "CDHS"] == [0, 13, 26, 39]


# --- R3: values ----------------------------------------------------------------

@pytest.mark.parametrize("index", range(52))
def test_R3_point_values(index):
    text = ALL_TEXTS[index]
    assert card_value(index) == VALUES_BY_HAND[text[0]]
    assert CARD_VALUES[index] == VALUES_BY_HAND[text[0]]


def test_R3_face_cards_ten_ace_one():
    assert [card_value(parse_card(t)) for t in ("AH", "2H", "9H", "10H", "JH", "QH", "KH")] == \
        [1, 2, 9, 10, 10, 10, 10]
    # whole deck: 4 * (1+2+...+10 + 3*10) = 4 * 85 = 340
    assert sum(card_value(c) for c in range(52)) == 340


# --- errors --------------------------------------------------------------------

BAD_TEXTS = ["", " ", "7", "H", "1H", "11H", "0H", "ZH", "7X", "7HH", "HH7", "T10", "10", "1 0H",
             "7♡", "A♤", "A C", None]


@pytest.mark.parametrize("bad", BAD_TEXTS)
def test_bad_text_raises_invalid_card_error(bad):
    with pytest.raises(InvalidCardError):
        parse_card(bad)


@pytest.mark.parametrize("bad", [-1, 52, 100, 2**70, True, False, 7.0, 3.5, [7], (0,), b"7H"])
def test_bad_values_raise_value_error(bad):
    with pytest.raises(ValueError):
        parse_card(bad)


def test_invalid_card_error_is_a_value_error():
    assert issubclass(InvalidCardError, ValueError)
    with pytest.raises(ValueError, match="not a card"):
        parse_card("ZZ")
    with pytest.raises(ValueError, match="52"):
        parse_card(52)


def test_card_text_rejects_out_of_range():
    for bad in (-1, 52):
        with pytest.raises(InvalidCardError):
            card_text(bad)


@pytest.mark.parametrize("rank, suit", [(-1, 0), (13, 0), (0, -1), (0, 4)])
def test_make_card_rejects_out_of_range(rank, suit):
    with pytest.raises(InvalidCardError):
        make_card(rank, suit)


def test_parse_cards_rejects_duplicates_in_any_spelling():
    with pytest.raises(InvalidCardError, match="duplicate"):
        parse_cards(["7H", "7h"])
    with pytest.raises(InvalidCardError, match="duplicate"):
        parse_cards(["TS", 48])          # TS is 3*13+9 = 48
    with pytest.raises(InvalidCardError, match="duplicate"):
        parse_cards(["10♠", "TS"])
    assert parse_cards(["AC", "2c", 2, "4♣"]) == [0, 1, 2, 3]


# --- masks and formatting --------------------------------------------------------

def test_mask_helpers():
    # AC=0, 2C=1 ... bit c set for card c
    assert cards_to_mask([0, 2]) == 0b101
    assert cards_to_mask([]) == 0
    assert mask_to_cards(0b101) == [0, 2]
    assert mask_to_cards(1 << 51) == [51]
    assert format_cards([0, 51, 48]) == "AC KS TS"


@given(st.sets(st.integers(0, 51)))
def test_mask_round_trip(cards):
    assert mask_to_cards(cards_to_mask(cards)) == sorted(cards)
    assert cards_to_mask(cards) == sum(1 << c for c in cards)


@given(st.permutations(list(range(52))))
def test_parse_cards_round_trip_any_order(deck):
    texts = [card_text(c) for c in deck]
    assert parse_cards(texts) == deck
    assert parse_cards(t.lower() for t in texts) == deck
    assert format_cards(deck).split() == texts
