"""``ppo.afterstate_coef``: the rollout values every legal action of each discard decision from its
afterstate, and the update moves each action's probability by that action's own advantage."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.neural.features import hand_deadwood
from agents.neural.masked import MaskedCategorical
from agents.neural.policy import PolicyNet
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, KNOCK_BASE
from train.training.collect import Batch, Collector
from train.training.config import ConfigError, load_config
from train.training.critic import make_critic
from train.training.league import League
from train.training.ppo import expected_clipped_loss, ppo_update

TINY = ["env.num_envs=32", "ppo.rollout_steps=12", "ppo.minibatches=2", "ppo.epochs=2", "policy.hidden=16",
        "policy.card_dim=4", "league.opponents={self: 1}", "shaping.deadwood=1.0", "critic.kind=privileged",
        "critic.hidden=16", "eval.opponents=[random]", "eval.best_against=random"]


def _collector(*extra: str) -> Collector:
    cfg = load_config(None, [*TINY, *extra])
    torch.manual_seed(0)
    net = PolicyNet(cfg.policy)
    return Collector(cfg, net, League(cfg.league, seed=0, architecture=cfg.policy),
                     critic=make_critic(cfg.critic, net.architecture))


def test_without_the_key_the_batch_carries_no_action_values():
    batch, _ = _collector().collect(30, torch.Generator().manual_seed(0))
    assert batch.old_probs.shape == (len(batch), 0) and batch.action_advantages.shape == (len(batch), 0)


def test_discard_decisions_and_only_they_carry_centred_values_of_their_legal_actions():
    batch, _ = _collector("ppo.afterstate_coef=1.0").collect(60, torch.Generator().manual_seed(0))
    discarding = batch.masks[:, DISCARD_BASE:].any(axis=1)
    valued = batch.old_probs.sum(axis=1) > 0
    assert discarding.sum() > 100 and np.array_equal(valued, discarding)
    assert not batch.action_advantages[~batch.masks].any()
    np.testing.assert_allclose(batch.old_probs[valued].sum(axis=1), 1.0, atol=1e-5)
    centred = (batch.old_probs * batch.action_advantages).sum(axis=1)
    np.testing.assert_allclose(centred, 0.0, atol=1e-5)
    assert batch.action_advantages[valued].std() > 0
    np.testing.assert_allclose(np.exp(batch.logprobs[valued]),  # the same policy sampled the action
                               batch.old_probs[valued, batch.actions[valued]], rtol=1e-4)


def test_a_knock_is_worth_its_hands_reward_and_a_discard_minus_the_critics_value_for_the_opponent():
    """Against a one-hot ``probs`` on action ``x`` the advantages are ``Q(a) - Q(x)``: for knocks the
    rewards of the hands they end, for discards minus the critic's value of the opponent's position
    plus the shaping potential of the opponent's hand."""
    collector = _collector("ppo.afterstate_coef=1.0")
    generator, checked = torch.Generator().manual_seed(0), 0
    for _ in range(80):
        masks = collector.masks > 0
        to_act = collector.to_act.astype(np.int64)
        games = np.flatnonzero(masks[:, KNOCK_BASE:BIG_GIN].sum(axis=1) >= 1)
        for game in games[:2]:
            legal = masks[game:game + 1]
            discards = DISCARD_BASE + np.flatnonzero(legal[0, DISCARD_BASE:KNOCK_BASE])
            knock = KNOCK_BASE + int(np.flatnonzero(legal[0, KNOCK_BASE:BIG_GIN])[0])
            base = int(discards[0])
            probs = np.zeros(legal.shape, dtype=np.float32)
            probs[0, base] = 1.0
            table = collector.afterstate_advantages(np.array([game]), to_act[[game]], legal, probs)[0]
            actions = np.array([knock, *discards])
            after = collector.venv.afterstates(np.full(actions.size, game), actions)
            assert after["ended"][0] and not after["ended"][1:].any()
            with torch.no_grad():
                h = collector.net.encode(collector.net.features(torch.from_numpy(after["obs"][1:])))
                theirs = collector.critic(h, torch.from_numpy(after["privileged"][1:])).numpy()
            potential = 0.02 * hand_deadwood(after["obs"][1:])
            q = np.concatenate([[after["rewards"][0, to_act[game]]], -theirs + potential])
            np.testing.assert_allclose(table[actions], q - q[1], atol=1e-4)
            checked += 1
        collector.collect(1, generator)
    assert checked >= 5


def test_expected_clipped_loss_is_ppos_surrogate_averaged_over_the_old_policy():
    generator = torch.Generator().manual_seed(0)
    old = torch.softmax(torch.randn(5, 7, generator=generator), dim=1)
    new = torch.softmax(torch.randn(5, 7, generator=generator), dim=1)
    advantages = torch.randn(5, 7, generator=generator)
    ratio = new / old
    clipped = torch.min(ratio * advantages, ratio.clamp(0.8, 1.2) * advantages)
    want = -(old * clipped).sum(dim=1).mean()
    assert float(expected_clipped_loss(new, old, advantages, 0.2)) == pytest.approx(float(want), rel=1e-6)
    zero_rows = expected_clipped_loss(new, torch.zeros_like(old), advantages, 0.2)
    assert float(zero_rows) == 0.0


@pytest.mark.parametrize("norm_adv", ["false", "true"])
def test_the_update_moves_each_discard_towards_the_better_valued_cards_without_any_sampled_advantage(norm_adv):
    """With every sampled advantage 0, only the all-action term can move the policy: the expected
    afterstate advantage under the updated policy (the objective it climbs) rises with the key and stays
    where it was with the key at 0."""
    collector = _collector("ppo.afterstate_coef=1.0")
    batch, _ = collector.collect(60, torch.Generator().manual_seed(0))
    rows = batch.old_probs.sum(axis=1) > 0
    batch = Batch(*(getattr(batch, name)[rows] for name in Batch.__dataclass_fields__))
    batch.advantages[:] = 0.0
    batch.action_advantages /= batch.action_advantages[batch.masks].std()  # a fresh critic's values are close
    features, masks = torch.from_numpy(batch.features), torch.from_numpy(batch.masks)
    advantages = torch.from_numpy(batch.action_advantages)
    gain = {}
    for coef in (0.0, 1.0):
        net = PolicyNet(collector.cfg.policy)
        net.load_state_dict(collector.net.state_dict())
        cfg = load_config(None, [*TINY, "ppo.ent_coef=0", "ppo.epochs=8", f"ppo.norm_adv={norm_adv}",
                                 f"ppo.afterstate_coef={coef}"]).ppo
        ppo_update(net, torch.optim.Adam(net.parameters(), lr=1e-2), batch, cfg, torch.Generator().manual_seed(1))
        with torch.no_grad():
            probs = MaskedCategorical(net.head(features, masks)[0], masks).probs
        gain[coef] = float((probs * advantages).sum(dim=1).mean())  # 0 under the old policy (centred)
    most = cfg.clip * float((torch.from_numpy(batch.old_probs) * advantages.abs()).sum(dim=1).mean())
    assert abs(gain[0.0]) < 0.01 * most
    assert gain[1.0] > 0.1 * most  # PPO's clip bounds the gain of one update by about `most`


def test_the_key_needs_hand_episodes():
    with pytest.raises(ConfigError, match="afterstate_coef.*episode 'hand'"):
        load_config(None, [*TINY, "ppo.afterstate_coef=1.0", "env.episode=game"])
