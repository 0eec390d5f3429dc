"""GAE over interleaved seat streams and the masked categorical: the trainer's math."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.neural.masked import MaskedCategorical
from train.training.gae import gae


def _reference(rewards, values, dones, seat, valid, gamma, lam, phi):
    """Plain GAE, one seat stream at a time (the definition, written the slow way)."""
    steps, games = rewards.shape
    adv = np.zeros((steps, games))
    ok = np.zeros((steps, games), bool)
    for i in range(games):
        for s in (0, 1):
            idx = [t for t in range(steps) if valid[t, i] and seat[t, i] == s]
            running = 0.0
            for k in range(len(idx) - 1, -1, -1):
                t = idx[k]
                if dones[t, i]:
                    delta = rewards[t, i] - phi[t, i] - values[t, i]
                    running = delta
                elif k + 1 < len(idx):
                    n = idx[k + 1]
                    delta = rewards[t, i] + gamma * phi[n, i] - phi[t, i] + gamma * values[n, i] - values[t, i]
                    running = delta + gamma * lam * running
                else:  # the stream's last decision, episode still going: bootstrap only
                    running = 0.0
                    continue
                adv[t, i], ok[t, i] = running, True
    return adv, ok


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**31), steps=st.integers(1, 12), games=st.integers(1, 4),
       gamma=st.sampled_from([1.0, 0.99, 0.5]), lam=st.sampled_from([1.0, 0.95, 0.0]), shaped=st.booleans())
def test_gae_matches_the_per_stream_definition(seed, steps, games, gamma, lam, shaped):
    rng = np.random.default_rng(seed)
    rewards = rng.normal(size=(steps, games)).astype(np.float32)
    values = rng.normal(size=(steps, games)).astype(np.float32)
    dones = rng.random((steps, games)) < 0.2
    seat = rng.integers(0, 2, (steps, games))
    valid = rng.random((steps, games)) < 0.8
    phi = rng.normal(size=(steps, games)).astype(np.float32) if shaped else np.zeros((steps, games), np.float32)
    adv, ret, ok = gae(rewards, values, dones, seat, valid, gamma, lam, phi if shaped else None)
    want_adv, want_ok = _reference(rewards, values, dones & valid, seat, valid, gamma, lam, phi)
    assert (ok == (want_ok & valid)).all()
    np.testing.assert_allclose(adv[ok], want_adv[ok], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ret[ok], adv[ok] + values[ok], rtol=1e-5, atol=1e-5)
    assert not ok[~valid].any()


def test_potential_shaping_telescopes_over_an_episode():
    """With gamma = lam = 1 and zero values, the first decision's advantage is the episode's
    reward minus the first potential: shaping moves credit, never the total (Ng et al.)."""
    rewards = np.array([[0.0], [0.0], [0.0], [2.0]], np.float32)
    phi = np.array([[-0.3], [-0.1], [-0.2], [-0.05]], np.float32)
    dones = np.array([[0], [0], [0], [1]], bool)
    ones = np.ones((4, 1), bool)
    adv, _, _ = gae(rewards, np.zeros((4, 1), np.float32), dones, np.zeros((4, 1), int), ones, 1.0, 1.0, phi)
    assert adv[0, 0] == pytest.approx(2.0 - phi[0, 0])


def test_two_seats_of_one_game_chain_separately():
    # seat 0 decides at t=0 and t=2, seat 1 at t=1 and t=3; the hand ends after t=3:
    # each seat's reward sits on its own last decision.
    rewards = np.array([[0.0], [0.0], [1.0], [-1.0]], np.float32)
    dones = np.array([[0], [0], [1], [1]], bool)
    seat = np.array([[0], [1], [0], [1]])
    adv, _, ok = gae(rewards, np.zeros((4, 1), np.float32), dones, seat, np.ones((4, 1), bool), 1.0, 1.0)
    assert ok.all() and adv[:, 0].tolist() == [1.0, -1.0, 1.0, -1.0]


def test_stream_end_without_done_is_a_bootstrap_not_a_sample():
    values = np.array([[0.5], [0.7]], np.float32)
    adv, _, ok = gae(np.zeros((2, 1), np.float32), values, np.zeros((2, 1), bool), np.zeros((2, 1), int),
                     np.ones((2, 1), bool), 0.9, 0.95)
    assert ok[:, 0].tolist() == [True, False]
    assert adv[0, 0] == pytest.approx(0.9 * 0.7 - 0.5)


# ----- masked categorical ---------------------------------------------------------------------
masks = st.lists(st.booleans(), min_size=6, max_size=6).filter(any)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(masks, min_size=1, max_size=5), seed=st.integers(0, 2**31))
def test_masked_sampling_never_draws_an_illegal_action(rows, seed):
    mask = torch.tensor(rows)
    logits = torch.randn(mask.shape, generator=torch.Generator().manual_seed(seed)) * 10
    dist = MaskedCategorical(logits, mask)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(20):
        picks = dist.sample(generator)
        assert mask[torch.arange(len(rows)), picks].all()
    assert mask[torch.arange(len(rows)), dist.mode()].all()
    probs = dist.probs
    torch.testing.assert_close(probs, dist.log_probs_all.exp())
    assert torch.allclose(probs.sum(-1), torch.ones(len(rows)))
    assert (probs[~mask] == 0).all()
    legal = [torch.softmax(logits[i][mask[i]], 0) for i in range(len(rows))]
    want = torch.stack([-(p * p.log()).sum() for p in legal])
    assert torch.allclose(dist.entropy(), want, atol=1e-5)


def test_masked_sampling_follows_the_probabilities():
    logits = torch.log(torch.tensor([[0.2, 0.5, 0.3, 0.9]]))
    mask = torch.tensor([[True, True, True, False]])
    dist = MaskedCategorical(logits.expand(20000, 4), mask.expand(20000, 4))
    counts = torch.bincount(dist.sample(torch.Generator().manual_seed(1)), minlength=4).float() / 20000
    assert torch.allclose(counts, torch.tensor([0.2, 0.5, 0.3, 0.0]), atol=0.015)


def test_masked_gradient_is_finite_and_ignores_illegal_logits():
    logits = torch.zeros(1, 4, requires_grad=True)
    dist = MaskedCategorical(logits, torch.tensor([[True, False, True, False]]))
    (dist.log_prob(torch.tensor([0])) + dist.entropy()).sum().backward()
    assert torch.isfinite(logits.grad).all() and logits.grad[0, 1] == 0 and logits.grad[0, 3] == 0


def test_a_row_without_legal_actions_is_refused():
    with pytest.raises(ValueError, match="at least one legal action"):
        MaskedCategorical(torch.zeros(2, 3), torch.tensor([[True, False, False], [False, False, False]]))
