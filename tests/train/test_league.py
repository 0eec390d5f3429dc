"""The league: prioritised fictitious self-play (PFSP) over the frozen snapshots."""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.neural.masked import MaskedCategorical
from agents.neural.policy import Architecture, PolicyNet
from train.cli import main
from train.training.collect import Collector
from train.training.config import LeagueConfig, load_config
from train.training.league import SNAPSHOT, League, leaving

SMALL = Architecture(hidden=8, card_dim=2)


def _league(pfsp: float, snapshots: int, max_snapshots: int = 10, history: int = 0) -> League:
    league = League(LeagueConfig(opponents={"snapshot": 1}, pfsp=pfsp, max_snapshots=max_snapshots, history=history),
                    seed=3, architecture=SMALL)
    for k in range(snapshots):
        torch.manual_seed(k)
        league.add_snapshot(PolicyNet(SMALL).state_dict(), update=10 * (k + 1))
    return league


def _thinned(count: int, recent: int, history: int) -> list[int]:
    """The updates kept of ``count`` snapshots taken every update, a pool of ``recent + history``."""
    kept: list[int] = []
    for update in range(1, count + 1):
        kept.append(update)
        if len(kept) > recent + history:
            kept.pop(leaving(kept, history))
    return kept


@given(st.integers(1, 300), st.integers(1, 8))
def test_league_history_zero_keeps_only_the_most_recent_snapshots(count, recent):
    assert _thinned(count, recent, 0) == list(range(max(1, count - recent + 1), count + 1))


@given(st.integers(1, 300), st.integers(1, 8), st.integers(1, 10))
def test_league_history_keeps_the_recent_window_and_older_snapshots_spread_over_the_run(count, recent, history):
    kept = _thinned(count, recent, history)
    assert len(kept) == min(count, recent + history) and kept == sorted(kept)
    assert kept[-recent:] == list(range(max(1, count - recent + 1), count + 1))  # the recent window is whole
    if count > recent + history:  # full: no gap from the run's start to the recent window is twice the mean
        spread = np.diff([0, *kept[:history + 1]])
        assert spread.max() < 2 * spread.mean()


@given(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=20), min_size=2, max_size=6),
       st.floats(0.5, 4.0))
@settings(max_examples=60, deadline=None)
def test_pfsp_favours_the_snapshots_the_learner_beats_least(scores, power):
    league = _league(power, len(scores))
    for k, results in enumerate(scores):
        for score in results:
            league.record(league.names.index(SNAPSHOT), score, k)
    p = league.snapshot_probabilities()
    means = [np.mean(r) for r in scores]
    assert abs(p.sum() - 1) < 1e-12
    for i in range(len(scores)):
        for j in range(len(scores)):
            if means[i] < means[j]:
                assert p[i] > p[j]


def test_pfsp_draws_follow_the_probabilities_and_zero_draws_uniformly():
    league = _league(2.0, 3)
    for _ in range(50):
        league.record(0, 1.0, 0)  # the learner always beats snapshot 0
        league.record(0, 0.0, 2)  # and always loses to snapshot 2
    _, _, picks = league.draw(6000)
    shares = np.bincount(picks, minlength=3) / 6000
    assert np.allclose(shares, league.snapshot_probabilities(), atol=0.02)
    assert shares[2] > 0.6 and shares[0] < 0.01
    uniform = _league(0.0, 3)
    for _ in range(50):
        uniform.record(0, 1.0, 0)
    assert np.allclose(np.bincount(uniform.draw(6000)[2], minlength=3) / 6000, 1 / 3, atol=0.03)


def test_snapshot_results_follow_their_snapshot_out_of_the_pool_and_through_a_checkpoint():
    league = _league(1.0, 2, max_snapshots=2)
    league.record(0, 1.0, 0)
    league.record(0, 0.0, 1)
    league.add_snapshot(PolicyNet(SMALL).state_dict())  # the oldest (with its 1.0) leaves
    assert [list(r) for r in league.snapshot_results] == [[0.0], []]
    restored = _league(1.0, 0, max_snapshots=2)
    restored.load_state(league.state())
    assert [list(r) for r in restored.snapshot_results] == [[0.0], []]
    assert np.array_equal(restored.snapshot_probabilities(), league.snapshot_probabilities())
    assert Counter(restored.draw(100)[2].tolist()) == Counter(league.draw(100)[2].tolist())


def test_league_history_survives_a_checkpoint_and_thins_alike_after_it():
    league = _league(1.0, 9, max_snapshots=2, history=3)
    assert league.snapshot_updates == [20, 40, 60, 80, 90]
    restored = _league(1.0, 0, max_snapshots=2, history=3)
    restored.load_state(league.state())
    for pool in (league, restored):
        torch.manual_seed(99)
        pool.add_snapshot(PolicyNet(SMALL).state_dict(), update=100)
    assert restored.snapshot_updates == league.snapshot_updates == [20, 40, 60, 90, 100]
    pairs = zip(league.snapshots, restored.snapshots)
    assert all(torch.equal(a["card_out.bias"], b["card_out.bias"]) for a, b in pairs)


def test_the_league_command_prints_the_pool_of_a_runs_newest_checkpoint(tmp_path, capsys):
    settings_ = ["env.num_envs=8", "ppo.rollout_steps=12", "ppo.total_steps=1200", "ppo.minibatches=2",
                 "ppo.epochs=1", "policy.hidden=16", "policy.card_dim=4", "league.opponents={self: 1, snapshot: 1}",
                 "league.snapshot_every=1", "league.max_snapshots=2", "league.history=3", "league.pfsp=1.0",
                 "checkpoint_every=4", "eval.every=0"]
    args = ["train", "--out", str(tmp_path), "--name", "pool", "--no-progress"]
    for item in settings_:
        args += ["--set", item]
    assert main(args) == 0
    capsys.readouterr()
    report_file = tmp_path / "pool.json"
    assert main(["league", str(tmp_path / "pool"), "--json", str(report_file)]) == 0
    out = capsys.readouterr().out
    report = json.loads(report_file.read_text())
    updates = [snap["update"] for snap in report["snapshots"]]
    assert len(updates) == 5 and updates[-2:] == [report["update"] - 1, report["update"]]  # the recent window
    assert updates == sorted(updates) and report["update"] >= 12
    assert sum(report["opponents"].values()) == pytest.approx(1.0)
    assert sum(snap["chance"] for snap in report["snapshots"]) == pytest.approx(1.0, abs=1e-3)
    assert f"at update {report['update']:,}" in out and "league.history 3" in out
    assert main(["league", str(tmp_path)]) == 2 and "not a run folder" in capsys.readouterr().err


def test_each_game_against_a_snapshot_is_played_with_that_snapshots_own_weights_on_its_own_position():
    """The collector reads the features of all snapshot games of a step at once; each game's action is the one its own
    snapshot draws on its own position (the snapshots drawing in turn from the run's generator)."""
    cfg = load_config(None, ["policy.hidden=8", "policy.card_dim=2", "env.num_envs=32",
                             "league.opponents={snapshot: 1}", "league.pfsp=0", "precision=fp32"])
    league = League(cfg.league, seed=3, architecture=cfg.policy)
    for k in range(4):  # weights scaled up, so that the snapshots' choices differ
        torch.manual_seed(k)
        net = PolicyNet(cfg.policy)
        with torch.no_grad():
            for parameter in net.parameters():
                parameter.mul_(5.0)
        league.add_snapshot(net.state_dict(), update=k)
    collector = Collector(cfg, PolicyNet(cfg.policy), league)
    generator, checked = torch.Generator().manual_seed(0), 0
    for _ in range(30):
        theirs = np.flatnonzero(collector.to_act != collector.learner_seat)
        reference = torch.Generator().set_state(generator.get_state())
        actions, expected = np.full(32, -1), np.full(32, -2)
        collector._opponent_actions(theirs, actions, generator)
        for snap in np.unique(collector.snapshot[theirs]):
            group = theirs[collector.snapshot[theirs] == snap]
            legal = torch.from_numpy(collector.masks[group] > 0)
            with torch.no_grad():
                logits, _ = league.snapshot_nets[snap](torch.from_numpy(collector.obs[group]), legal)
            expected[group] = MaskedCategorical(logits, legal).sample(reference).numpy()
        assert (actions[theirs] == expected[theirs]).all()
        checked += len(theirs)
        collector.collect(1, generator)
    assert checked > 200 and len(set(collector.snapshot)) == 4
