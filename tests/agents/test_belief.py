"""The opponent model (:mod:`agents.neural.belief`) and the deals it drives (``rollout:belief=PATH``).

* The even guess is what a uniform deal says: the opponent's known picks certain, the cards the seat
  sees impossible, its other cards spread evenly over the unseen ones (10 in all).
* A fresh network starts at the even guess; saved and loaded it gives the same logits; foreign or
  missing files are refused by name.
* :func:`agents.search.positions.weighted_orders` deals the opponent cards in proportion to the
  model's weights, and the stock uniformly, every order a permutation of the unseen cards.
* ``rollout:belief=PATH`` deals every sample consistent with the observation, the opponent given the
  card the model is sure of.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from test_positions import assert_consistent, observations

import ginenv
from agents import make_agent
from agents.neural.belief import BeliefError, BeliefNet, even_guess, load_belief, save_belief
from agents.search.positions import OPPONENT, hand, weighted_orders


def test_the_even_guess_is_a_uniform_deal_of_the_unseen_cards() -> None:
    for observation in list(observations("pagat", range(2)))[::5]:
        view = ginenv.decode(observation)
        guess = even_guess(torch.as_tensor(observation["observation"][None]))[0].numpy()
        assert guess.sum() == pytest.approx(10.0, abs=1e-4)
        assert guess[list(view.opp_picked)].tolist() == [1.0] * len(view.opp_picked)
        seen = [*view.hand, *view.pile_rest, *([] if view.top_discard is None else [view.top_discard])]
        assert not guess[seen].any()
        unseen = sorted(set(range(52)) - set(seen) - set(view.opp_picked))
        assert np.allclose(guess[unseen], (10 - len(view.opp_picked)) / len(unseen))


def test_a_fresh_model_starts_at_the_even_guess_and_survives_a_file(tmp_path) -> None:
    torch.manual_seed(0)
    net = BeliefNet(hidden=32, layers=1).eval()
    obs = torch.as_tensor(np.stack([o["observation"] for o in list(observations("pagat", range(1)))[:8]]))
    with torch.no_grad():
        probs = torch.sigmoid(net(obs))
        assert torch.allclose(probs, even_guess(obs).clamp(1e-4, 1 - 1e-4), atol=0.01)
        save_belief(net, tmp_path / "belief.pt", note="test")
        assert torch.equal(load_belief(tmp_path / "belief.pt")(obs), net(obs))


def test_missing_and_foreign_belief_files_are_refused(tmp_path) -> None:
    with pytest.raises(BeliefError, match="does not exist"):
        load_belief(tmp_path / "none.pt")
    torch.save({"format": "something else"}, tmp_path / "other.pt")
    with pytest.raises(BeliefError, match="not a belief file"):
        load_belief(tmp_path / "other.pt")
    (tmp_path / "junk.pt").write_bytes(b"junk")
    with pytest.raises(BeliefError, match="not a readable belief file"):
        load_belief(tmp_path / "junk.pt")
    with pytest.raises(ValueError, match="rollout: belief: .*does not exist"):
        make_agent(f"rollout:belief={tmp_path / 'none.pt'}")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=2, max_size=40, unique=True), st.data())
def test_weighted_orders_are_permutations_of_the_unseen_cards(cards: list[int], data) -> None:
    hidden = data.draw(st.integers(0, len(cards)))
    logits = data.draw(st.lists(st.floats(-30, 30), min_size=52, max_size=52))
    orders = weighted_orders(np.array(logits), np.array(cards), hidden, np.random.default_rng(0), 5)
    assert orders.shape == (5, len(cards))
    for order in orders:
        assert sorted(order.tolist()) == sorted(cards)


def test_weighted_orders_deal_the_opponent_by_weight_and_the_stock_evenly() -> None:
    logits = np.zeros(52)
    logits[3] = np.log(3.0)  # card 3 three times as likely as card 5 to be the opponent's one card
    orders = weighted_orders(logits, np.array([3, 5, 8, 9]), 1, np.random.default_rng(1), 8000)
    share = {card: float(np.mean(orders[:, 0] == card)) for card in (3, 5, 8, 9)}
    assert share[3] == pytest.approx(0.5, abs=0.02) and share[5] == pytest.approx(1 / 6, abs=0.02)
    top_of_stock = orders[orders[:, 0] == 3, 1]
    for card in (5, 8, 9):
        assert np.mean(top_of_stock == card) == pytest.approx(1 / 3, abs=0.03)


def test_rollout_deals_the_opponent_the_card_its_model_is_sure_of(tmp_path) -> None:
    observation = next(o for o in observations("pagat", range(3)) if len(ginenv.decode(o).opp_discards) >= 3)
    view = ginenv.decode(observation)
    unseen = sorted(set(range(52)) - set(view.hand) - set(view.pile_rest) - {view.top_discard} - set(view.opp_picked))
    sure = unseen[0]
    net = BeliefNet(hidden=8, layers=1)
    with torch.no_grad():
        net.out.weight.zero_()
        net.out.bias.fill_(-30.0)
        net.out.bias[sure] = 30.0
    save_belief(net, tmp_path / "sure.pt")
    agent = make_agent(f"rollout:samples=16,belief={tmp_path / 'sure.pt'}", seed=0)
    rows = agent.samples_of(view, np.asarray(observation["action_mask"]),
                            np.asarray(observation["observation"], dtype=np.float32)[None])
    assert_consistent(rows, observation)
    assert all(hand(row, OPPONENT) >> sure & 1 for row in rows)

