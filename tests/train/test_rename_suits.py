"""Suit renaming in the policy gradient's update (``ppo.rename_suits``): data augmentation by the rules'
symmetry.

* the critic's hidden cards are renamed by the same card map as the policy's input;
* each pass's ratio is taken against the networks before the update on the renamed decision, never the
  rollout's numbers for the decision as it was played;
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
from train.training.config import ConfigError, load_config
from train.training.critic import PrivilegedCritic, make_critic, rename_privileged
from train.training.league import League
from train.training.ppo import Decisions, ppo_update, renamed, renamed_passes, train

TINY = ["policy.hidden=16", "policy.card_dim=4", "env.num_envs=16", "ppo.rollout_steps=24", "ppo.total_steps=100000",
        "ppo.minibatches=1", "ppo.epochs=1", "league.opponents={self: 1}", "critic.kind=privileged",
        "checkpoint_every=1", "eval.every=0", "eval.games=2", "eval.episode=hand", "eval.opponents=[random]",
        "eval.best_against=random", "threads=1", "precision=fp32"]


def _rollout(*extra: str) -> tuple[Batch, PolicyNet, PrivilegedCritic, object]:
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


def test_the_old_outputs_of_each_pass_are_the_networks_on_the_renamed_decisions():
    batch, net, critic, cfg = _rollout()
    decisions = _decisions(batch)
    maps, logprobs, values = renamed_passes(net, critic, decisions, 3, torch.Generator().manual_seed(2), None, 50)
    assert maps.shape == (3, len(batch), 52) and logprobs.shape == values.shape == (3, len(batch))
    assert not torch.equal(maps[0], maps[1])
    for k in range(3):
        shown = renamed(decisions, maps[k])
        with torch.no_grad():
            h = net.encode(shown.features)
            logits, _ = net.read_out(shown.features, h, shown.masks)
            assert torch.allclose(logprobs[k], MaskedCategorical(logits, shown.masks).log_prob(shown.actions),
                                  atol=1e-5)
            assert torch.allclose(values[k], critic(h, shown.privileged, None, shown.features), atol=1e-5)
    identity = renamed_passes(net, critic, decisions, 1, torch.Generator().manual_seed(2), None, 50)[1][0]
    same = (maps[0] == suit_permutations()[0]).all(1)  # the rows of pass 0 that drew the identity
    assert bool(same.any())  # they reproduce the rollout's own numbers
    assert torch.allclose(identity[same], decisions.logprobs[same], atol=1e-4)


def test_the_ratio_is_taken_against_the_network_before_the_update_not_the_rollouts_numbers():
    """With the rollout's log-probabilities spoiled, the first minibatch of a renamed pass still starts at
    ratio 1 (no KL, nothing clipped); the same update without renaming reads the spoiled numbers."""
    batch, net, critic, cfg = _rollout()
    batch.logprobs[:] = -6.0
    state = {k: v.clone() for k, v in net.state_dict().items()}
    results = {}
    for rename in (True, False):
        net.load_state_dict(state)
        optimizer = torch.optim.Adam([*net.parameters(), *critic.parameters()], lr=1e-9)
        results[rename] = ppo_update(net, optimizer, batch, replace(cfg.ppo, rename_suits=rename),
                                     torch.Generator().manual_seed(3), critic)
    assert results[True]["approx_kl"] < 1e-5 and results[True]["clip_fraction"] == 0.0
    assert results[False]["approx_kl"] > 1.0 and results[False]["clip_fraction"] > 0.5


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
