"""The privileged critic (``critic.kind: privileged``): the value reads the hidden cards, the policy never does.

* ``test_privileged_vector_*``: :mod:`ginenv.game.privileged` holds exactly the opponent's hand
  and the stock order of the seat to act.
* ``test_policy_is_blind_to_resampled_hidden_cards``: the counterfactual check of
  ``tests/envs/test_leaks.py`` applied to the trainer's networks: from random mid-hand positions,
  a deal the acting seat cannot tell apart (its opponent's unseen cards and the stock permuted)
  gives the same observation and the same policy logits, while the privileged vector and the
  critic's value change.
* ``test_rollout_actions_do_not_depend_on_the_privileged_vector``: a rollout whose env returns
  garbage as the privileged vector samples the very same actions with the same probabilities;
  only the recorded values differ (no path from that vector into the policy's input).
* ``test_policy_files_hold_no_critic``: ``final.pt`` / ``best.pt`` are the plain policy; the
  critic (with ``critic.belief`` its belief head too) lives only in the full checkpoints, and a
  resumed run picks it up exactly.
* ``test_the_belief_head_learns_the_opponents_hand``: with ``critic.belief`` PPO's updates teach the
  head to guess the opponent's hand better than any guess blind to the observation.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from envs.test_leaks import AGENTS, make_env, permuted_deal, sample_record

from agents.neural.policy import PolicyNet, read_checkpoint
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game import core
from ginenv.game.melds import deadwood
from ginenv.game.privileged import PRIVILEGED_CARDS, PRIVILEGED_SIZE, write_privileged
from train.training.checkpoint import latest_full
from train.training.collect import Collector
from train.training.config import ConfigError, CriticConfig, LeagueConfig, load_config
from train.training.critic import PrivilegedCritic, make_critic
from train.training.league import League
from train.training.ppo import Trainer, ppo_update, train

TINY = ["policy.hidden=32", "policy.card_dim=4", "critic.hidden=32", "env.num_envs=8", "ppo.rollout_steps=16",
        "eval.every=0", "eval.games=2", "eval.episode=hand", "eval.opponents=[random]", "eval.best_against=random",
        "threads=1"]


def privileged_of(row: np.ndarray, seat: int) -> np.ndarray:
    out = np.zeros(PRIVILEGED_SIZE, dtype=np.float32)
    write_privileged(row, seat, out)
    return out


def test_privileged_vector_holds_the_opponents_hand_the_stock_order_and_the_deadwoods():
    venv = BatchedGinEnv(16, seed=3)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = venv._buffers["masks"]
        venv.step([int(rng.choice(np.flatnonzero(m))) for m in masks])
    rows, to_act = venv._batch._rows, venv._buffers["to_act"]
    vectors = venv.privileged()
    for i in range(16):
        row, seat = rows[i], int(to_act[i])
        opponent = [c for c in range(52) if row[core.HAND + 1 - seat] >> c & 1]
        assert np.flatnonzero(vectors[i, :52]).tolist() == opponent
        stock = row[core.STOCK:core.STOCK + row[core.STOCK_LEN]].tolist()
        assert sorted(np.flatnonzero(vectors[i, 52:PRIVILEGED_CARDS]).tolist()) == sorted(stock)
        assert vectors[i, 52 + stock[-1]] == 1.0  # the next card drawn
        order = sorted(stock, key=lambda card: -vectors[i, 52 + card])
        assert order == stock[::-1]
        mine = [c for c in range(52) if row[core.HAND + seat] >> c & 1]
        expected = [best_ten(opponent), best_ten([*opponent, stock[-1]]),
                    best_ten([*mine, stock[-1]] if len(mine) == 10 else mine)]
        assert np.allclose(vectors[i, PRIVILEGED_CARDS:] * 100, expected)


def best_ten(cards):
    """The least deadwood of the best 10 of ``cards`` (10 or 11 of them), at most 100."""
    return min(min(deadwood(cards[:k] + cards[k + 1:]) for k in range(len(cards))) if len(cards) > 10
               else deadwood(cards), 100)


def test_privileged_vector_is_zero_for_a_hand_that_is_over():
    out = np.ones((1, PRIVILEGED_SIZE), dtype=np.float32)
    row = core.new_row(*core.capacities(20))
    row[core.CURRENT] = -1
    from ginenv.game.privileged import write_privileged_many

    write_privileged_many(row[None], out)
    assert not out.any()


@pytest.fixture(scope="module", params=["shared", "own"])
def networks(request):
    torch.manual_seed(0)
    net = PolicyNet().eval()
    critic = make_critic(CriticConfig(kind="privileged", trunk=request.param), net.architecture).eval()
    return net, critic


def test_policy_is_blind_to_resampled_hidden_cards(networks):
    net, critic = networks
    rng = np.random.default_rng(77)
    checked = changed_value = 0
    while checked < 60:
        record = sample_record(rng)
        if record is None or not record.moves:
            continue
        env = record.env
        seat = AGENTS.index(env.agent_selection)
        deal, _ = permuted_deal(record, seat, rng)
        other = make_env(record.config, record.episode)
        options: dict = {"deal": deal}
        if record.episode == "game":
            options.update(scores=list(record.scores), hands_won=list(record.hands_won))
        other.reset(seed=0, options=options)
        for _, action in record.moves:
            other.step(action)
        true_obs = env.observe(AGENTS[seat])["observation"]
        counterfactual_obs = other.observe(AGENTS[seat])["observation"]
        assert true_obs.tobytes() == counterfactual_obs.tobytes()
        true_hidden, other_hidden = privileged_of(env.hand.row, seat), privileged_of(other.hand.row, seat)
        if np.array_equal(true_hidden, other_hidden):
            continue  # nothing unseen to permute
        with torch.no_grad():
            obs = torch.from_numpy(np.stack([true_obs, counterfactual_obs]))
            features = net.features(obs)
            h = net.encode(features)
            logits, _ = net.read_out(features, h)
            values = critic(h, torch.from_numpy(np.stack([true_hidden, other_hidden])), None, features)
        assert torch.equal(logits[0], logits[1])
        changed_value += bool(values[0] != values[1])
        checked += 1
    assert changed_value == checked  # the critic does read the hidden cards


def test_rollout_actions_do_not_depend_on_the_privileged_vector(networks, monkeypatch):
    net, critic = networks
    cfg = load_config(None, TINY + ["critic.kind=privileged"])
    league = League(LeagueConfig(opponents={"self": 1}), seed=0)
    honest = Collector(cfg, net, league, critic=critic)
    fooled = Collector(cfg, net, League(LeagueConfig(opponents={"self": 1}), seed=0), critic=critic)
    noise = np.random.default_rng(1)
    monkeypatch.setattr(fooled.venv, "privileged",
                        lambda: noise.random((cfg.env.num_envs, PRIVILEGED_SIZE), dtype=np.float32))
    first, _ = honest.collect(32, torch.Generator().manual_seed(5))
    second, _ = fooled.collect(32, torch.Generator().manual_seed(5))
    assert len(first) > 100 and first.privileged.shape == (len(first), PRIVILEGED_SIZE)
    for name in ("features", "masks", "actions", "logprobs"):
        assert np.array_equal(getattr(first, name), getattr(second, name)), name
    assert not np.allclose(first.values, second.values)
    assert not np.allclose(first.privileged, second.privileged)


def test_without_a_privileged_critic_the_batch_carries_no_hidden_cards():
    cfg = load_config(None, TINY)
    collector = Collector(cfg, PolicyNet(cfg.policy), League(LeagueConfig(opponents={"self": 1}), seed=0))
    batch, _ = collector.collect(8, torch.Generator().manual_seed(0))
    assert batch.privileged.shape == (len(batch), 0)


@pytest.mark.parametrize("belief", [0.0, 0.5])
def test_policy_files_hold_no_critic_and_resume_restores_it(tmp_path, belief):
    overrides = TINY + ["critic.kind=privileged", "league.opponents={self: 1, snapshot: 1}", "league.pfsp=1.0",
                        "league.snapshot_every=1", "checkpoint_every=2", "ppo.total_steps=100000",
                        f"critic.belief={belief}"]
    run = train(load_config(None, overrides + ["name=whole"]), out=tmp_path, progress_bar=False, stop_after=4)
    policy = read_checkpoint(run / "final.pt")
    assert sorted(policy) == ["format", "model", "model_sha256", "policy"]
    assert set(policy["model"]) == set(PolicyNet(load_config(None, TINY).policy).state_dict())
    assert not any(key.startswith("critic") or "body" in key for key in policy["model"])
    full = latest_full(run / "checkpoints")
    assert "critic" in full and full["update"] == 4
    assert any(key.startswith("belief_out") for key in full["critic"]) == (belief > 0)
    halves = train(load_config(None, overrides + ["name=halves"]), out=tmp_path, progress_bar=False, stop_after=2)
    train(None, resume=halves, progress_bar=False, stop_after=4)
    resumed = latest_full(halves / "checkpoints")
    for key, value in full["critic"].items():
        assert torch.equal(value, resumed["critic"][key]), key
    for key, value in full["model"].items():
        assert torch.equal(value, resumed["model"][key]), key


def test_privileged_vectors_are_the_same_with_worker_processes():
    """The vector is encoded on request, in the process that holds the games: with ``num_workers``
    the same as in one process."""
    alone, split = BatchedGinEnv(6, seed=3), BatchedGinEnv(6, seed=3, num_workers=2)
    try:
        alone.reset(), split.reset()
        rng = np.random.default_rng(0)
        for _ in range(30):
            masks = alone.step([int(rng.choice(np.flatnonzero(m))) for m in alone._buffers["masks"]])[1]
            split.step(np.array([int(a) for a in alone._buffers["actions"]]))
            assert np.array_equal(alone.privileged(), split.privileged())
        assert masks.shape == (6, 108) and alone.privileged()[:, :52].sum(axis=1).min() >= 10
    finally:
        split.close()


def test_the_critic_reads_the_deadwoods_only_with_critic_deadwoods():
    torch.manual_seed(0)
    h, privileged = torch.rand(4, 32), torch.rand(4, PRIVILEGED_SIZE)
    other = privileged.clone()
    other[:, PRIVILEGED_CARDS:] = torch.rand(4, PRIVILEGED_SIZE - PRIVILEGED_CARDS)
    cards_only = PrivilegedCritic(CriticConfig(kind="privileged", hidden=16), trunk_width=32)
    with_deadwoods = PrivilegedCritic(CriticConfig(kind="privileged", hidden=16, deadwoods=True), trunk_width=32)
    assert (cards_only.reads, with_deadwoods.reads) == (PRIVILEGED_CARDS, PRIVILEGED_SIZE)
    with torch.no_grad():
        assert torch.equal(cards_only(h, privileged), cards_only(h, other))
        assert not torch.equal(with_deadwoods(h, privileged), with_deadwoods(h, other))
    assert load_config(None, ["critic.kind=privileged", "critic.deadwoods=true"]).critic.deadwoods


def test_the_belief_head_learns_the_opponents_hand():
    """The best guess that ignores the observation, each card held with probability 10/52, scores a
    binary cross-entropy of about 0.49; one that reads the seat's own hand and the discard pile does
    better.  A fresh head starts at log 2 = 0.69."""
    cfg = load_config(None, TINY + ["critic.kind=privileged", "critic.belief=1.0", "ppo.lr=0.003"])
    torch.manual_seed(0)
    net = PolicyNet(cfg.policy)
    critic = PrivilegedCritic(cfg.critic, cfg.policy.hidden)
    optimizer = torch.optim.Adam([*net.parameters(), *critic.parameters()], lr=cfg.ppo.lr)
    collector = Collector(cfg, net, League(LeagueConfig(opponents={"self": 1}), seed=0), critic=critic)
    generator = torch.Generator().manual_seed(0)
    losses = []
    for _ in range(40):
        batch, _ = collector.collect(cfg.ppo.rollout_steps, generator)
        losses.append(ppo_update(net, optimizer, batch, cfg.ppo, generator, critic)["belief_loss"])
    blind = -(10 / 52 * np.log(10 / 52) + 42 / 52 * np.log(42 / 52))
    assert losses[0] > blind and np.mean(losses[-5:]) < blind - 0.05, losses


def test_belief_needs_the_privileged_critic():
    with pytest.raises(ConfigError, match="critic.belief"):
        load_config(None, ["critic.belief=1.0"])
    assert load_config(None, []).critic.belief == 0.0  # off unless asked for


@pytest.mark.parametrize("trunk, reaches_policy", [("shared", True), ("detached", False), ("own", False)])
def test_critic_trunk_decides_whether_the_value_loss_reaches_the_policy(trunk, reaches_policy):
    cfg = load_config(None, TINY + ["critic.kind=privileged", f"critic.trunk={trunk}"])
    torch.manual_seed(0)
    net = PolicyNet(cfg.policy)
    critic = make_critic(cfg.critic, cfg.policy)
    collector = Collector(cfg, net, League(LeagueConfig(opponents={"self": 1}), seed=0), critic=critic)
    batch, _ = collector.collect(8, torch.Generator().manual_seed(0))
    features = torch.from_numpy(batch.features)
    values = critic(net.encode(features), torch.from_numpy(batch.privileged), None, features)
    ((values - torch.from_numpy(batch.returns)) ** 2).mean().backward()
    def moved(module: torch.nn.Module) -> bool:
        return any(p.grad is not None and bool(p.grad.abs().sum() > 0) for p in module.parameters())
    assert moved(critic.body)
    assert moved(net.trunk) == reaches_policy


def test_critic_trunk_needs_the_privileged_critic():
    with pytest.raises(ConfigError, match="critic.trunk"):
        load_config(None, ["critic.trunk=own"])
    with pytest.raises(ConfigError, match="critic.trunk"):
        load_config(None, ["critic.kind=privileged", "critic.trunk=separate"])
    assert load_config(None, []).critic.trunk == "shared"


@pytest.mark.parametrize("trunk", ["shared", "own"])
def test_critic_warmup_trains_the_critic_and_leaves_the_policy_where_it_was(tmp_path, trunk):
    overrides = TINY + ["critic.kind=privileged", f"critic.trunk={trunk}", "league.opponents={self: 1}",
                        "ppo.total_steps=100000", "checkpoint_every=2"]
    before = load_config(None, overrides + ["name=before", "ppo.critic_warmup=2"])
    start = Trainer(before, tmp_path)
    policy, critic = start.net.state_dict(), start.critic.state_dict()
    start.close()
    warm = train(before, out=tmp_path, progress_bar=False, stop_after=2)
    trained = latest_full(warm / "checkpoints")
    for key, value in policy.items():
        assert torch.equal(value, trained["model"][key]), key
    assert not all(torch.equal(value, trained["critic"][key]) for key, value in critic.items())
    moved = train(load_config(None, overrides + ["name=moved", "ppo.critic_warmup=1"]), out=tmp_path,
                  progress_bar=False, stop_after=2)
    after = latest_full(moved / "checkpoints")["model"]
    assert not all(torch.equal(value, after[key]) for key, value in policy.items())
