"""The compiled core (ginenv/game/core.py): row capacities, rows moved into batch arrays, and
the legal-action words against the rules' definition of a knock."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ginenv import HandState
from ginenv.game import core
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, KNOCK_BASE, TAKE_DISCARD
from ginenv.game.melds import mask_deadwood
from ginenv.game.rules import resolve_ruleset


def pile_taker(state: HandState, rng: np.random.Generator) -> int:
    """Takes the discard whenever it may (the longest hands: the stock barely shrinks),
    else a random legal action but never a knock (so hands run into the safeguard)."""
    legal = [a for a in state.legal_actions() if a < KNOCK_BASE]
    if TAKE_DISCARD in legal:
        return TAKE_DISCARD
    return legal[rng.integers(len(legal))]


def history_capacity(state: HandState) -> int:
    return int(state.row[core.EVENTS_AT]) - core.HISTORY


@given(max_turns=st.integers(1, 12), seed=st.integers(0, 10_000))
@settings(max_examples=150, deadline=None)
def test_rows_hold_the_longest_hands_the_safeguard_allows(max_turns: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    state = HandState.random(rng, resolve_ruleset("pagat", max_turns_per_hand=max_turns))
    history_room, events_room = core.capacities(max_turns)
    while not state.is_over:
        state.apply_action(pile_taker(state, rng))
        assert len(state.history) <= history_room and len(state.events) <= events_room
    assert state.row.shape[0] == core.HISTORY + history_room + events_room
    assert HandState.replay(state.log()) == state


@given(turns=st.integers(0, 8), max_turns=st.integers(1, 6), seed=st.integers(0, 10_000))
@settings(max_examples=100, deadline=None)
def test_positions_with_long_histories_fit_their_rows(turns: int, max_turns: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52).tolist()
    history = [(i % 2, card) for i, card in enumerate(deck[41:51])]  # 10 earlier discards
    state = HandState.from_position(
        dealer=0, hands=[deck[:11], deck[11:21]], stock=deck[21:41], pile=deck[41:], current_player=0,
        phase="discard", turns=turns, history=history,
        ruleset=resolve_ruleset("pagat", max_turns_per_hand=max_turns))
    while not state.is_over:
        state.apply_action(pile_taker(state, rng))
    assert state.history[:10] == history
    assert len(state.history) <= history_capacity(state)
    assert state.result.truncated == (state.turns >= max_turns and state.result.outcome == "dead"
                                      and len(state.stock) > 2)
    assert HandState.replay(state.log()) == state


def test_a_state_moved_into_a_batch_row_plays_on_there() -> None:
    rng = np.random.default_rng(4)
    state = HandState.random(rng)
    twin = state.clone()
    batch = np.zeros((3, state.row.shape[0]), dtype=np.int64)
    state.move_to(batch[1])
    while not state.is_over:
        action = state.legal_actions()[0]
        state.apply_action(action)
        twin.apply_action(action)
    assert state == twin
    assert np.array_equal(batch[1], state.row) and not batch[0].any() and not batch[2].any()


def test_apply_many_steps_every_row_as_apply_action_does() -> None:
    rng = np.random.default_rng(8)
    states = [HandState.random(rng) for _ in range(4)]
    twins = [s.clone() for s in states]
    rows = np.zeros((4, states[0].row.shape[0]), dtype=np.int64)
    for state, row in zip(states, rows):
        state.move_to(row)
    ended = np.zeros(4, dtype=np.int64)
    steps = 0
    while not ended.any():
        actions = np.array([rng.choice(s.legal_actions()) for s in states])
        core.apply_many(rows, actions, 200, ended)
        for twin, action in zip(twins, actions):
            twin.apply_action(int(action))
        assert rows.tolist() == [t.row.tolist() for t in twins]
        steps += 1
    assert ended.tolist() == [int(t.row[core.ENDED]) for t in twins] and steps > 10


@given(seed=st.integers(0, 100_000), limit=st.integers(0, 10))
@settings(max_examples=300, deadline=None)
def test_knock_bits_are_exactly_the_discards_leaving_deadwood_within_the_limit(seed: int, limit: int) -> None:
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52).tolist()
    taken = deck[int(rng.integers(11))] if rng.random() < 0.5 else None
    state = HandState.from_position(dealer=1, hands=[deck[:11], deck[11:21]], stock=deck[21:51], pile=deck[51:],
                                    current_player=0, phase="discard", taken=taken, ruleset="eaai")
    state.knock_limit = limit
    hand = state.hands[0]
    legal = set(state.legal_actions())
    for card in deck[:11]:
        may_discard = card != taken
        assert (DISCARD_BASE + card in legal) == may_discard
        assert (KNOCK_BASE + card in legal) == (may_discard and mask_deadwood(hand & ~(1 << card)) <= limit)
    assert (BIG_GIN in legal) == (mask_deadwood(hand) == 0)
    assert all(DISCARD_BASE + c not in legal and KNOCK_BASE + c not in legal for c in deck[11:])
