"""Suit renaming in the policy gradient's update (``ppo.rename_suits``): data augmentation by the rules'
symmetry.

* the critic's hidden cards are renamed by the same card map as the policy's input;
* each pass draws its own renaming of every decision, and the ratio of a renamed decision is taken to the
  probability the rollout recorded for the decision as played (its importance weight), bounded by dual clipping;
* the update makes the policy more alike across renamings than the same update without it;
* a run with it resumes exactly, and the config refuses the combinations it does not cover.
"""
from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.neural.masked import MaskedCategorical
from agents.neural.policy import PolicyNet, suit_permutations
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS
from ginenv.game.privileged import PRIVILEGED_CARDS, PRIVILEGED_SIZE
from train.training.checkpoint import latest_full
from train.training.collect import Batch, Collector
from train.training.config import ConfigError, RunConfig, load_config
from train.training.critic import PrivilegedCritic, make_critic, rename_privileged
from train.training.league import League
from train.training.ppo import Decisions, clipped_loss, pass_maps, ppo_update, renamed, train

TINY = ["policy.hidden=16", "policy.card_dim=4", "env.num_envs=16", "ppo.rollout_steps=24", "ppo.total_steps=100000",
        "ppo.minibatches=1", "ppo.epochs=1", "league.opponents={self: 1}", "critic.kind=privileged",
        "checkpoint_every=1", "eval.every=0", "eval.games=2", "eval.episode=hand", "eval.opponents=[random]",
        "eval.best_against=random", "threads=1", "precision=fp32"]


def _rollout(*extra: str) -> tuple[Batch, PolicyNet, PrivilegedCritic, RunConfig]:
    cfg = load_config(None, [*TINY, *extra])
    torch.manual_seed(0)
    net = PolicyNet(cfg.policy)
    critic = make_critic(cfg.critic, cfg.policy)
    collector = Collector(cfg, net, League(cfg.league, seed=0, architecture=cfg.policy), critic=critic)
    batch, _ = collector.collect(cfg.ppo.rollout_steps, torch.Generator().manual_seed(0))
    return batch, net, critic, cfg


def _decisions(batch: Batch) -> Decisions:
    return Decisions(*(torch.from_numpy(array) for array in (batch.features, batch.masks, batch.actions,
                                                               batch.privileged, batch.logprobs, batch.values)))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 23), st.integers(0, 2**31))
def test_renaming_the_hidden_cards_moves_each_card_block_by_the_map_and_keeps_the_deadwoods(pick, seed):
    vectors = torch.rand(3, PRIVILEGED_SIZE, generator=torch.Generator().manual_seed(seed))
    card_map = suit_permutations()[pick]
    out = rename_privileged(vectors, card_map.expand(3, -1))
    for start in range(0, PRIVILEGED_CARDS, 52):
        assert torch.equal(out[:, start + card_map], vectors[:, start:start + 52])  # card c's number is at map[c]
    assert torch.equal(out[:, PRIVILEGED_CARDS:], vectors[:, PRIVILEGED_CARDS:])
    assert rename_privileged(torch.zeros(3, 0), card_map.expand(3, -1)).shape == (3, 0)  # no privileged critic


def test_the_hidden_cards_and_the_policys_cards_are_renamed_alike():
    """In a real rollout no card is both in the seat's hand and the opponent's; after renaming, the renamed
    opponent's hand is still disjoint from the renamed hand, and the hand sizes are kept."""
    batch, *_ = _rollout()
    decisions = _decisions(batch)
    maps = suit_permutations()[torch.randint(24, (len(batch),), generator=torch.Generator().manual_seed(1))]
    after = renamed(decisions, maps)
    hand_before, hand_after = decisions.features[:, :52] > 0, after.features[:, :52] > 0  # channel 0: the hand
    theirs_before, theirs_after = decisions.privileged[:, :52] > 0, after.privileged[:, :52] > 0
    assert not bool((hand_after & theirs_after).any())
    assert torch.equal(hand_after.sum(1), hand_before.sum(1)) and torch.equal(theirs_after.sum(1),
                                                                              theirs_before.sum(1))
    rows = torch.arange(len(batch))[:, None]
    assert torch.equal(hand_after[rows, maps], hand_before) and torch.equal(theirs_after[rows, maps], theirs_before)
    assert torch.equal(after.logprobs, decisions.logprobs)  # renamed() leaves the old outputs to the caller


def test_each_pass_draws_its_own_renaming_of_every_decision():
    maps = pass_maps(8, 500, torch.Generator().manual_seed(2))
    orders = suit_permutations()
    assert maps.shape == (8, 500, 52)
    index = (maps[:, :, None, :] == orders[None, None]).all(-1).float().argmax(-1)  # which order each row is
    assert bool((orders[index] == maps).all())  # every row is one of the 24 orders
    assert len(index.unique()) == 24 and not torch.equal(index[0], index[1])
    assert torch.equal(maps, pass_maps(8, 500, torch.Generator().manual_seed(2)))  # the same seed, the same draws


def test_the_ratio_of_a_renamed_decision_is_taken_to_the_rollouts_probability_of_the_decision_as_played():
    """One pass, one minibatch, a step too small to matter: the update's approximate KL is that of the network's
    probability of each renamed action at its renamed position against the rollout's recorded probability."""
    batch, net, critic, cfg = _rollout()
    with torch.no_grad():  # a network unlike the rollout's, so that the ratios are not 1
        for parameter in net.parameters():
            parameter.add_(0.3 * torch.randn(parameter.shape, generator=torch.Generator().manual_seed(9)))
    maps = pass_maps(1, len(batch), torch.Generator().manual_seed(3))[0]
    shown = renamed(_decisions(batch), maps)
    with torch.no_grad():
        logits, _ = net.head(shown.features, shown.masks)
        logratio = MaskedCategorical(logits, shown.masks).log_prob(shown.actions) - shown.logprobs
    expected = float(((logratio.exp() - 1) - logratio).mean())
    optimizer = torch.optim.Adam([*net.parameters(), *critic.parameters()], lr=1e-9)
    metrics = ppo_update(net, optimizer, batch, replace(cfg.ppo, rename_suits=True), torch.Generator().manual_seed(3),
                         critic)
    assert expected > 1e-3
    assert metrics["approx_kl"] == pytest.approx(expected, rel=1e-3)


def test_dual_clip_bounds_a_negative_advantages_term_and_its_gradient():
    ratio = torch.tensor([0.5, 1.0, 2.0, 5.0, 5.0], requires_grad=True)
    advantages = torch.tensor([-1.0, -1.0, -1.0, -1.0, 1.0])
    loss = clipped_loss(ratio, advantages, 0.2, 3.0)
    assert loss.tolist() == pytest.approx([0.8, 1.0, 2.0, 3.0, -1.2])
    loss.sum().backward()
    assert ratio.grad.tolist() == pytest.approx([0.0, 1.0, 1.0, 0.0, 0.0])  # past 3: no push further down


def _asymmetry(net: PolicyNet, decisions: Decisions, maps: torch.Tensor) -> float:
    """Mean total-variation distance between the policy at a position and at its renaming (actions renamed back)."""
    with torch.no_grad():
        probs = MaskedCategorical(net.head(decisions.features, decisions.masks)[0], decisions.masks).probs
        shown = renamed(decisions, maps)
        moved = MaskedCategorical(net.head(shown.features, shown.masks)[0], shown.masks).probs
        every = torch.arange(NUM_ACTIONS)
        base = torch.where(every >= KNOCK_BASE, KNOCK_BASE, DISCARD_BASE)
        on_card = (every >= DISCARD_BASE) & (every < BIG_GIN)
        images = torch.where(on_card, base + maps[:, (every - base).clamp(0, 51)], every)  # [B, 108]
        back = moved.gather(1, images)  # the renamed policy's probability of each action's image
    return float(0.5 * (probs - back).abs().sum(1).mean())


def test_renaming_makes_the_policy_more_alike_across_renamings():
    """An untrained network is near uniform, so alike everywhere; the same updates on the same batch leave it
    much less alike across renamings without renaming than with it."""
    batch, net, critic, cfg = _rollout("ppo.epochs=8", "ppo.minibatches=2", "ppo.lr=0.001")
    decisions = _decisions(batch)
    probe = suit_permutations()[torch.randint(1, 24, (len(batch),), generator=torch.Generator().manual_seed(4))]
    state = {k: v.clone() for k, v in net.state_dict().items()}
    critic_state = {k: v.clone() for k, v in critic.state_dict().items()}
    after = {}
    for rename in (True, False):
        net.load_state_dict(state)
        critic.load_state_dict(critic_state)
        optimizer = torch.optim.Adam([*net.parameters(), *critic.parameters()], lr=1e-3)
        for k in range(6):
            ppo_update(net, optimizer, batch, replace(cfg.ppo, rename_suits=rename),
                       torch.Generator().manual_seed(5 + k), critic)
        after[rename] = _asymmetry(net, decisions, probe)
    assert after[True] < 0.6 * after[False], after  # measured: 0.022 against 0.055


def test_a_run_that_renames_suits_resumes_exactly(tmp_path):
    overrides = TINY + ["ppo.rename_suits=true", "ppo.epochs=2", "ppo.minibatches=2"]
    whole = latest_full(train(load_config(None, overrides + ["name=whole"]), out=tmp_path, progress_bar=False,
                              stop_after=4) / "checkpoints")
    halves = train(load_config(None, overrides + ["name=halves"]), out=tmp_path, progress_bar=False, stop_after=2)
    train(None, resume=halves, progress_bar=False, stop_after=4)
    resumed = latest_full(halves / "checkpoints")
    for key, value in whole["model"].items():
        assert torch.equal(value, resumed["model"][key]), key


@pytest.mark.parametrize("extra, named", [
    (["policy.kind=mlp"], "policy.kind"), (["ppo.afterstate_coef=1.0"], "ppo.afterstate_coef"),
    (["ppo.magnet_coef=0.1"], "ppo.magnet_coef"), (["ppo.algorithm=dmc", "critic.kind=policy"], "ppo.rename_suits")])
def test_the_config_refuses_what_renaming_does_not_cover(extra, named):
    with pytest.raises(ConfigError, match=named):
        load_config(None, [*TINY, "ppo.rename_suits=true", *extra])
    load_config(None, [*TINY, *extra])  # each is fine without renaming
    assert load_config(None, TINY).ppo.rename_suits is False  # off by default
