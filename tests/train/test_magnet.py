"""The magnet (``ppo.magnet_coef``, ``ppo.magnet_tau``): a penalty on KL(policy || magnet), the magnet an
exponential moving average of the policy's own weights (magnetic mirror descent with an EMA magnet).

* the penalty alone pulls the policy towards the magnet;
* the magnet's logits, taken once per update in chunks, are each row's own logits;
* after each update the magnet's weights move ``magnet_tau`` of the way to the policy's;
* a run with a magnet resumes exactly, and a magnet given on resume starts at the policy it resumes;
* a run from ``init`` starts its magnet at the init policy, not at fresh weights.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from agents.neural.masked import MaskedCategorical
from agents.neural.policy import PolicyNet, read_checkpoint
from train.cli import main
from train.training.checkpoint import latest_full
from train.training.collect import Collector
from train.training.config import LeagueConfig, load_config
from train.training.league import League
from train.training.ppo import Trainer, magnet_divergence, magnet_logits, ppo_update, train
from train.training.resume import CHANGES_FILE

TINY = ["policy.hidden=16", "policy.card_dim=4", "env.num_envs=8", "ppo.rollout_steps=12", "ppo.total_steps=100000",
        "ppo.minibatches=2", "ppo.epochs=2", "league.opponents={self: 1}", "checkpoint_every=1", "eval.every=0",
        "eval.games=2", "eval.episode=hand", "eval.opponents=[random]", "eval.best_against=random", "threads=1"]


def _divergence(net: PolicyNet, magnet: PolicyNet, features: torch.Tensor, masks: torch.Tensor) -> float:
    with torch.no_grad():
        logits, _ = net.head(features, masks)
        magnet_logits, _ = magnet.head(features, masks)
    return float(magnet_divergence(MaskedCategorical(logits, masks), magnet_logits))


def test_the_penalty_alone_pulls_the_policy_towards_the_magnet():
    cfg = load_config(None, TINY + ["ppo.magnet_coef=1.0", "ppo.ent_coef=0", "ppo.norm_adv=false", "ppo.lr=0.01"])
    torch.manual_seed(0)
    net, magnet = PolicyNet(cfg.policy), PolicyNet(cfg.policy)
    with torch.no_grad():
        for parameter in magnet.parameters():
            parameter.add_(torch.randn_like(parameter))
    batch, _ = Collector(cfg, net, League(LeagueConfig(opponents={"self": 1}), seed=0)).collect(
        12, torch.Generator().manual_seed(0))
    batch = replace(batch, advantages=np.zeros_like(batch.advantages))  # no signal but the magnet's
    features, masks = torch.from_numpy(batch.features), torch.from_numpy(batch.masks)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.ppo.lr)
    before = _divergence(net, magnet, features, masks)
    for _ in range(10):
        metrics = ppo_update(net, optimizer, batch, cfg.ppo, torch.Generator().manual_seed(1), magnet=magnet)
    assert metrics["magnet_kl"] > 0
    assert _divergence(net, magnet, features, masks) < 0.5 * before


def test_the_magnets_logits_taken_in_chunks_are_each_rows_own_logits():
    cfg = load_config(None, TINY)
    torch.manual_seed(0)
    magnet = PolicyNet(cfg.policy).eval()
    batch, _ = Collector(cfg, PolicyNet(cfg.policy), League(LeagueConfig(opponents={"self": 1}), seed=0)).collect(
        12, torch.Generator().manual_seed(0))
    features, masks = torch.from_numpy(batch.features), torch.from_numpy(batch.masks)
    with torch.no_grad():
        whole, _ = magnet.head(features, masks)
    for chunk in (1, 7, len(features), 10 * len(features)):
        assert torch.allclose(magnet_logits(magnet, features, masks, None, chunk), whole, atol=1e-5), chunk


def test_the_magnet_moves_a_share_tau_of_the_way_to_the_policy_after_each_update(tmp_path):
    cfg = load_config(None, TINY + ["ppo.magnet_coef=0.1", "ppo.magnet_tau=0.25", "name=ema"])
    start = Trainer(cfg, tmp_path)
    initial = {key: value.clone() for key, value in start.net.state_dict().items()}
    assert all(torch.equal(value, start.magnet.state_dict()[key]) for key, value in initial.items())
    start.close()
    run = train(cfg, out=tmp_path, progress_bar=False, stop_after=1)
    full = latest_full(run / "checkpoints")
    for key, value in initial.items():
        expected = value + 0.25 * (full["model"][key] - value)
        assert torch.allclose(full["magnet"][key], expected, atol=1e-6), key
    assert not all(torch.equal(value, full["model"][key]) for key, value in initial.items())


def test_a_run_with_a_magnet_resumes_exactly(tmp_path):
    overrides = TINY + ["ppo.magnet_coef=0.1", "ppo.magnet_tau=0.1"]
    whole = latest_full(train(load_config(None, overrides + ["name=whole"]), out=tmp_path, progress_bar=False,
                              stop_after=4) / "checkpoints")
    halves = train(load_config(None, overrides + ["name=halves"]), out=tmp_path, progress_bar=False, stop_after=2)
    train(None, resume=halves, progress_bar=False, stop_after=4)
    resumed = latest_full(halves / "checkpoints")
    for part in ("model", "magnet"):
        for key, value in whole[part].items():
            assert torch.equal(value, resumed[part][key]), (part, key)


def test_a_magnet_given_on_resume_starts_at_the_policy_it_resumes(tmp_path: Path, capsys):
    run = train(load_config(None, TINY + ["name=late"]), out=tmp_path, progress_bar=False, stop_after=2)
    assert "magnet" not in latest_full(run / "checkpoints")
    resumed_from = latest_full(run / "checkpoints")["model"]
    assert main(["train", "--resume", str(run), "--set", "ppo.magnet_coef=0.2", "--set", "ppo.magnet_tau=0.5",
                 "--stop-after", "3", "--no-progress"]) == 0
    assert "ppo.magnet_coef 0.0 -> 0.2" in (run / CHANGES_FILE).read_text()
    full = latest_full(run / "checkpoints")
    for key, value in resumed_from.items():
        assert torch.allclose(full["magnet"][key], value + 0.5 * (full["model"][key] - value), atol=1e-6), key


def test_a_run_from_init_starts_its_magnet_at_the_init_policy(tmp_path):
    source = train(load_config(None, TINY + ["name=source"]), out=tmp_path, progress_bar=False, stop_after=2)
    start = read_checkpoint(source / "final.pt")["model"]
    run = train(load_config(None, TINY + ["name=from_init", f"init={source / 'final.pt'}", "ppo.magnet_coef=0.1",
                                          "ppo.magnet_tau=0.5", "seed=9"]), out=tmp_path, progress_bar=False,
                stop_after=1)
    full = latest_full(run / "checkpoints")
    for key, value in start.items():
        assert torch.allclose(full["magnet"][key], value + 0.5 * (full["model"][key] - value), atol=1e-6), key
