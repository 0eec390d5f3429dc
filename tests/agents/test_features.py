"""The rule-derived policy inputs (agents.neural.features) against the engine's own rules."""
from __future__ import annotations

import numpy as np
import pytest

import ginenv
from agents.neural.features import hand_features
from agents.tactics import ALL_CARDS, OBSERVATION_LAYOUT, danger, holding_odds, prospect, read_seen
from ginenv.envs.batched import BatchedGinEnv


@pytest.fixture(scope="module")
def observations() -> np.ndarray:
    venv = BatchedGinEnv(64, ruleset="classic25", seed=9)
    obs, masks, _ = venv.reset()
    rng = np.random.default_rng(9)
    seen = [obs]
    for _ in range(24):
        obs, masks, *_ = venv.step([int(rng.choice(np.flatnonzero(m))) for m in masks])
        seen.append(obs)
    return np.concatenate(seen)


def test_deadwood_features_equal_the_meld_solver(observations):
    cards, rows = hand_features(observations)
    for i in range(0, len(observations), 7):
        view = ginenv.decode(observations[i])
        hand = list(view.hand)
        if len(hand) == 11:
            after = {c: ginenv.deadwood([x for x in hand if x != c]) for c in hand}
            assert {c: round(float(cards[i, 0, c]) * 100) for c in hand} == after
            assert round(float(rows[i, 0]) * 100) == min(after.values())
        else:
            now = ginenv.deadwood(hand)
            assert round(float(rows[i, 0]) * 100) == now and not cards[i, 0].any()
            top = view.top_discard
            if top is not None:
                taking = min(ginenv.deadwood([x for x in hand + [top] if x != c]) for c in hand + [top])
                assert round(float(rows[i, 1]) * 100) == taking


def test_run_pairs_and_set_mates_count_my_cards(observations):
    cards, _ = hand_features(observations[:40])
    for i in range(40):
        hand = set(ginenv.decode(observations[i]).hand)
        for card in range(52):
            suit, rank = divmod(card, 13)
            has = lambda r: 0 <= r < 13 and suit * 13 + r in hand  # noqa: E731
            pairs = has(rank - 2) * has(rank - 1) + has(rank - 1) * has(rank + 1) + has(rank + 1) * has(rank + 2)
            mates = sum(s * 13 + rank in hand for s in range(4) if s != suit)
            assert cards[i, 1, card] == pairs and cards[i, 2, card] == pytest.approx(mates / 3)


def test_discard_terms_are_greedys(observations):
    cards, _ = hand_features(observations)
    checked = 0
    for i in range(len(observations)):
        seen = read_seen(observations[i], OBSERVATION_LAYOUT)
        hand = [c for c in range(52) if seen.hand >> c & 1]
        if len(hand) != 11:
            assert not cards[i, 3:].any()
            continue
        odds = holding_odds(seen)
        unseen = ALL_CARDS & ~(seen.hand | seen.pile) & ~seen.opp_picked
        for c in hand:
            assert cards[i, 3, c] == pytest.approx(danger(c, odds), abs=1e-6)
            assert cards[i, 4, c] == pytest.approx(prospect(seen.hand & ~(1 << c), unseen) / 100, abs=1e-6)
        checked += 1
    assert checked > 100
