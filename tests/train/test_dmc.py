"""Deep Monte Carlo (``ppo.algorithm: dmc``): epsilon-greedy choices, the recorded values, the
regression update, the config's refusals, and a real learning check from nothing."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.neural.policy import LOGITS, VALUES, PolicyNet, read_checkpoint
from agents.registry import make_agent
from train.evaluation.evaluate import evaluate
from train.training.checkpoint import save_policy
from train.training.collect import Collector, epsilon_greedy
from train.training.config import ConfigError, load_config
from train.training.league import League
from train.training.ppo import Trainer, dmc_update, train

ROOT = Path(__file__).resolve().parents[2]
TINY = ["env.num_envs=16", "ppo.rollout_steps=12", "ppo.total_steps=1500", "ppo.minibatches=2", "ppo.epochs=2",
        "policy.hidden=16", "policy.card_dim=4", "league.opponents={self: 1, snapshot: 1}", "league.snapshot_every=2",
        "shaping.deadwood=1.0", "eval.every=0", "eval.opponents=[random]", "eval.best_against=random",
        "ppo.algorithm=dmc", "precision=fp32"]


def _collector(*extra: str) -> tuple[Collector, PolicyNet]:
    cfg = load_config(None, [*TINY, *extra])
    torch.manual_seed(0)
    net = PolicyNet(cfg.policy)
    return Collector(cfg, net, League(cfg.league, seed=0, architecture=cfg.policy)), net


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=6, max_size=6).filter(any), min_size=1, max_size=10),
       st.integers(0, 2**31))
def test_epsilon_greedy_takes_the_best_legal_action_and_explores_only_legal_ones(legal_rows, seed):
    legal = torch.tensor(legal_rows)
    values = torch.randn(legal.shape, generator=torch.Generator().manual_seed(seed))
    best = epsilon_greedy(values, legal, 0.0, torch.Generator().manual_seed(seed))
    expected = values.masked_fill(~legal, float("-inf")).argmax(dim=1)
    assert torch.equal(best, expected)
    explored = torch.stack([epsilon_greedy(values, legal, 1.0, torch.Generator().manual_seed(seed + k))
                            for k in range(60)])
    assert bool(legal.gather(1, explored.T).all())


def test_epsilon_greedy_explores_about_epsilon_of_the_time():
    values = torch.arange(5.0).repeat(4000, 1)  # action 4 is best everywhere, all legal
    chosen = epsilon_greedy(values, torch.ones(4000, 5, dtype=torch.bool), 0.2, torch.Generator().manual_seed(1))
    not_best = float((chosen != 4).float().mean())
    assert abs(not_best - 0.2 * 4 / 5) < 0.03  # an explored draw hits the best action a fifth of the time


def test_the_collector_records_the_chosen_actions_value_and_plays_greedily_at_epsilon_0():
    collector, net = _collector("ppo.epsilon=0.0")
    batch, _ = collector.collect(30, torch.Generator().manual_seed(0))
    masks = torch.from_numpy(batch.masks)
    with torch.no_grad():
        logits, _ = net.read_out(torch.from_numpy(batch.features), net.encode(torch.from_numpy(batch.features)), masks)
    chosen = logits.gather(1, torch.from_numpy(batch.actions)[:, None])[:, 0]
    assert len(batch) > 0 and np.allclose(batch.values, chosen.numpy(), atol=1e-5)
    best = logits.masked_fill(~masks, float("-inf")).max(dim=1).values
    assert np.allclose(chosen.numpy(), best.numpy(), atol=1e-6)  # the best value (up to rounding: near ties)


def test_dmc_snapshots_play_their_best_value_at_epsilon_0():
    collector, net = _collector("ppo.epsilon=0.0")
    collector.league.add_snapshot(net.state_dict(), 1)
    games = np.arange(collector.num_envs)
    collector.opponent[:], collector.snapshot[:] = collector.league.names.index("snapshot"), 0
    actions = np.full(len(games), -1, dtype=np.int64)
    collector._opponent_actions(games, actions, torch.Generator().manual_seed(0))
    legal = torch.from_numpy(collector.masks > 0)
    with torch.no_grad():
        values, _ = net(torch.from_numpy(collector.obs), legal)
    best = values.masked_fill(~legal, float("-inf")).max(dim=1).values
    assert np.allclose(values.gather(1, torch.from_numpy(actions)[:, None])[:, 0].numpy(), best.numpy(), atol=1e-6)


def test_dmc_returns_are_monte_carlo_sums_of_a_seats_rewards():
    """gamma 1, no shaping, every value 0: each trainable decision's return is its seat's reward at the
    end of the hand (whole points) or 0 when the hand goes on past the rollout, whatever gae_lambda says
    (with lambda 0.5 the earlier decisions' returns would be halved step by step)."""
    collector, net = _collector("ppo.gamma=1.0", "shaping.deadwood=0.0", "ppo.gae_lambda=0.5",
                                "env.num_envs=4", "ppo.epsilon=1.0")
    for layer in (net.card_out, net.other_out):
        torch.nn.init.zeros_(layer.weight)
        torch.nn.init.zeros_(layer.bias)
    batch, stats = collector.collect(400, torch.Generator().manual_seed(3))
    points = batch.returns / collector.cfg.env.reward_scale
    assert stats.episodes > 0 and np.abs(points).max() >= 1
    assert np.allclose(points, np.round(points), atol=1e-4)


def test_dmc_update_moves_the_chosen_actions_values_towards_their_returns():
    collector, net = _collector()
    batch, _ = collector.collect(30, torch.Generator().manual_seed(0))
    batch.returns = np.where(batch.actions < 3, 1.0, -1.0).astype(np.float32)  # draws +1, discards and knocks -1
    features, actions = torch.from_numpy(batch.features), torch.from_numpy(batch.actions)[:, None]

    def error() -> float:
        with torch.no_grad():
            logits, _ = net.head(features, torch.from_numpy(batch.masks))
        return float(((logits.gather(1, actions)[:, 0].numpy() - batch.returns) ** 2).mean())

    before = error()
    cfg = load_config(None, [*TINY, "ppo.epochs=20"]).ppo
    metrics = dmc_update(net, torch.optim.Adam(net.parameters(), lr=1e-2), batch, cfg,
                         torch.Generator().manual_seed(2))
    assert error() < 0.8 * before
    assert {"value_loss", "q_mean", "explained_variance"} <= set(metrics)


@pytest.mark.parametrize("lever", ["critic.kind=privileged", "ppo.forbid_knock=0.2", "ppo.knock_ent_coef=0.1",
                                   "ppo.afterstate_coef=1.0", "ppo.magnet_coef=0.1", "ppo.critic_warmup=5",
                                   "clone.agent=simple"])
def test_dmc_refuses_the_policy_gradients_levers_and_cloning(lever):
    with pytest.raises(ConfigError, match="turn off " + lever.split("=")[0].replace(".", r"\.") + "$"):
        load_config(None, [*TINY, lever])


def test_a_bad_algorithm_or_epsilon_is_refused():
    for override in ("ppo.algorithm=dqn", "ppo.epsilon=1.5"):
        with pytest.raises(ConfigError, match=override.split("=")[0].replace(".", r"\.")):
            load_config(None, [override])


def test_dmc_selfplay_learns_from_nothing_to_beat_random(tmp_path):
    """Pure self-play with Deep Monte Carlo (no heuristic in the league, no cloning, no init) for 300k
    decisions: the greedy choice of its values then wins at least 75% of single hands against `random`,
    where an untrained network wins 27-56% (seeds 1 and 2). Measured in session 27 of issue 24: 93% with
    this seed (1), 77% and 87% with seeds 2 and 3; at 130k decisions 88%. It learns more slowly than the
    policy gradient (90% at 130k), as its ablation row says."""
    cfg = load_config(ROOT / "configs" / "experiments" / "selfplay_dmc.yaml", DMC_CI)
    assert set(cfg.league.opponents) <= {"self", "snapshot"} and cfg.clone.agent is None and cfg.init is None
    run = train(cfg, out=tmp_path, progress_bar=False)
    result = evaluate(f"ppo:path={run / 'final.pt'}", "random", games=200, episode="hand", seed=123, workers=1)
    assert result.wins_a / result.games >= 0.75, result.results_dict()


DMC_CI = ["env.num_envs=64", "ppo.total_steps=300000", "ppo.lr=0.001", "ppo.anneal_lr=false", "eval.every=0",
          "league.snapshot_every=5", "eval.opponents=[random]", "eval.best_against=random", "eval.games=2"]
"""configs/experiments/selfplay_dmc.yaml cut to CI size (about a minute), as the policy gradient's learning test cuts
its recipe."""


def test_a_dmc_policy_file_says_it_holds_values_and_refuses_to_be_sampled(tmp_path):
    trainer = Trainer(load_config(None, TINY), tmp_path)
    save_policy(trainer.net, tmp_path / "values.pt")
    assert trainer.net.outputs == VALUES and read_checkpoint(tmp_path / "values.pt")["outputs"] == VALUES
    assert make_agent(f"ppo:path={tmp_path / 'values.pt'}").net.outputs == VALUES  # greedy play is fine
    with pytest.raises(ValueError, match="holds action values"):
        make_agent(f"ppo:path={tmp_path / 'values.pt'},sample=true")
    policy = Trainer(load_config(None, [*TINY, "ppo.algorithm=ppo"]), tmp_path).net
    save_policy(policy, tmp_path / "logits.pt")
    assert "outputs" not in read_checkpoint(tmp_path / "logits.pt")  # a policy's file is as before
    assert make_agent(f"ppo:path={tmp_path / 'logits.pt'},sample=true").net.outputs == LOGITS
