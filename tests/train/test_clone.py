"""Behaviour cloning's recording: chunks replay exactly, are kept and reused, do not depend on
the number of worker processes, and a run killed while recording resumes."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.base import act_batch
from ginenv.game.encoding import decode
from ginenv.seeding import derive_seed
from train.training.clone import UNLABELLED, Recording, record_chunk, record_decisions, replay_chunk
from train.training.config import load_config
from train.training.ppo import prepare_run, train

SMALL = ["clone.agent=simple", "clone.decisions=600", "clone.chunk=200", "env.num_envs=8", "seed=3",
         "eval.episode=hand"]


def _cfg(*extra: str):
    return load_config(None, [*SMALL, *extra])


def test_chunking_rounds_up_to_whole_steps_and_chunks():
    rec = Recording.of(_cfg())
    assert (rec.steps, rec.chunks, rec.decisions) == (25, 3, 600)
    rec = Recording.of(_cfg("clone.decisions=601"))
    assert rec.chunks == 4 and rec.decisions >= 601
    assert Recording.of(_cfg("clone.decisions=10")).decisions == 16  # one chunk of two steps of 8 games


def test_replayed_observations_are_the_ones_the_agent_saw():
    """Only actions are kept: replaying them must give back exactly what was played."""
    rec = Recording.of(_cfg())
    _, actions = record_chunk((rec, 1, None))
    agent = make_agent("simple", seed=derive_seed(rec.seed, 5, 1))
    venv = rec.env(1)
    obs, masks, _ = venv.reset()
    seen, legal = [], []
    for t in range(rec.steps):
        seen.append(obs)
        legal.append(masks)
        assert np.array_equal(act_batch(agent, obs, masks), actions[t])
        obs, masks, *_ = venv.step(actions[t])
    replayed_obs, replayed_masks, flat_actions, returns, finished = replay_chunk(rec, 1, actions, gamma=0.99)
    assert np.array_equal(replayed_obs, np.concatenate(seen))
    assert np.array_equal(replayed_masks, np.concatenate(legal))
    assert np.array_equal(flat_actions, actions.reshape(-1))
    assert np.all(replayed_masks[np.arange(len(flat_actions)), flat_actions] > 0)
    assert returns.shape == finished.shape == flat_actions.shape
    assert np.any(returns[finished] != 0) and not np.any(returns[~finished] != 0) and not finished[-8:].all()


def test_kept_chunks_are_reused_and_missing_ones_recorded(tmp_path, monkeypatch):
    cfg = _cfg()
    first = record_decisions(cfg, progress_bar=False, folder=tmp_path)
    (folder,) = tmp_path.iterdir()
    assert sorted(p.name for p in folder.glob("chunk_*.npy")) == [f"chunk_0000{k}.npy" for k in range(3)]
    assert json.loads((folder / "recording.json").read_text())["agent"] == "simple"
    (folder / "chunk_00001.npy").unlink()
    again = record_decisions(cfg, progress_bar=False, folder=tmp_path)
    for a, b in zip(first, again):
        assert np.array_equal(a, b)
    monkeypatch.setattr("train.training.clone.make_agent", _no_agent)  # every chunk is kept: nobody plays
    assert np.array_equal(record_decisions(cfg, progress_bar=False, folder=tmp_path)[2], first[2])


def _no_agent(*args, **kwargs):
    raise AssertionError("a kept chunk was played again")


def test_a_different_recording_gets_its_own_folder(tmp_path):
    record_decisions(_cfg(), progress_bar=False, folder=tmp_path)
    record_decisions(_cfg("env.ruleset=eaai"), progress_bar=False, folder=tmp_path)
    record_decisions(_cfg("clone.decisions=1000"), progress_bar=False, folder=tmp_path)  # more chunks, same key
    folders = sorted(tmp_path.iterdir())
    assert len(folders) == 2
    assert max(len(list(f.glob("chunk_*.npy"))) for f in folders) == 5


def test_decisions_do_not_depend_on_workers():
    one = record_decisions(_cfg(), progress_bar=False, workers=1)
    two = record_decisions(_cfg(), progress_bar=False, workers=2)
    for a, b in zip(one, two):
        assert np.array_equal(a, b)


def test_a_run_killed_while_recording_resumes_from_its_kept_chunks(tmp_path):
    cfg = _cfg("ppo.total_steps=64", "ppo.rollout_steps=8", "eval.every=0", "policy.hidden=16", "policy.card_dim=4",
               "clone.epochs=1")
    run = prepare_run(cfg, tmp_path)  # as if killed during cloning: a config, no checkpoint
    kept = run / "clone" / Recording.of(cfg).key()
    kept.mkdir(parents=True)
    record_chunk((Recording.of(cfg), 0, kept))
    train(None, resume=run, progress_bar=False)
    assert json.loads((run / "clone.json").read_text())["decisions"] == 600
    assert (run / "clone.pt").is_file() and (run / "final.pt").is_file()


def test_held_out_chunks_are_scored_not_trained_on():
    """``clone.held_out``: the last chunks of the agent's own recording, DAgger rows untouched."""
    from train.training.clone import split_held_out

    cfg = _cfg("clone.held_out=1", "clone.dagger=random", "clone.dagger_decisions=200")
    data = record_decisions(cfg, progress_bar=False)
    training, held_out = split_held_out(data, cfg)
    rec = Recording.of(cfg)
    own, chunk = rec.decisions, rec.steps * rec.num_envs
    assert np.array_equal(held_out[2], data[2][own - chunk:own])
    assert np.array_equal(training[2], np.concatenate([data[2][:own - chunk], data[2][own:]]))
    assert split_held_out(data, _cfg()) == (data, None)


@pytest.mark.parametrize("held_out", [3, 4])
def test_held_out_leaves_a_chunk_to_train_on(held_out):
    from train.training.config import ConfigError

    with pytest.raises(ConfigError, match="clone.held_out"):
        _cfg(f"clone.held_out={held_out}")  # 600 decisions in chunks of 200: 3 chunks


def test_a_cloning_run_logs_its_curve_by_epoch(tmp_path):
    """Each cloning epoch's loss and agreements go to TensorBoard (``clone/*``) and from there
    to ``clone_curves.csv``, apart from the PPO updates' ``curves.csv``."""
    from train.cli import main

    cfg = _cfg("ppo.total_steps=64", "ppo.rollout_steps=8", "eval.every=0", "policy.hidden=16", "policy.card_dim=4",
               "clone.epochs=3", "clone.held_out=1", "name=cloned")
    run = train(cfg, out=tmp_path, progress_bar=False)
    assert main(["curves", str(run)]) == 0
    rows = (run / "clone_curves.csv").read_text().splitlines()
    assert rows[0] == "epoch,clone/accuracy,clone/held_out_accuracy,clone/loss" and len(rows) == 4
    last = dict(zip(rows[0].split(","), map(float, rows[-1].split(","))))
    final = json.loads((run / "clone.json").read_text())
    assert final["held_out"] == 200 and final["decisions"] == 400
    assert last["clone/held_out_accuracy"] == pytest.approx(final["held_out_accuracy"], abs=1e-6)
    assert "clone/loss" not in (run / "curves.csv").read_text().splitlines()[0]


def test_dagger_positions_come_from_the_driver_and_labels_from_the_agent():
    """DAgger: the driver's actions move the games, the agent's choices in those positions are the targets."""
    rec = Recording.of(_cfg("clone.dagger=random", "clone.dagger_decisions=200"), dagger=0)
    assert rec.driver == "random" and rec.decisions == 200 and rec.key() != Recording.of(_cfg()).key()
    _, actions = record_chunk((rec, 0, None))
    assert actions.shape == (2, rec.steps, rec.num_envs)
    played, labels = actions
    teacher = make_agent("simple", seed=derive_seed(rec.seed, 5, 0))
    driver = make_agent("random", seed=derive_seed(rec.seed, 10, 0))
    venv = rec.env(0)
    obs, masks, _ = venv.reset()
    for t in range(rec.steps):
        assert np.array_equal(act_batch(teacher, obs, masks), labels[t])
        assert np.array_equal(act_batch(driver, obs, masks), played[t])
        obs, masks, *_ = venv.step(played[t])
    assert not np.array_equal(played, labels)
    replayed_obs, replayed_masks, targets, _, _ = replay_chunk(rec, 0, actions, gamma=0.99)
    assert np.array_equal(targets, labels.reshape(-1)) and len(replayed_obs) == labels.size
    assert np.all(replayed_masks[np.arange(len(targets)), targets] > 0)


def test_dagger_against_an_opponent_labels_only_the_drivers_positions():
    """``"A vs B"``: A plays seat ``i % 2`` of game ``i``, B the other seat; the agent labels
    A's positions only, and only those are replayed as training positions."""
    rec = Recording.of(_cfg("clone.dagger=random vs greedy", "clone.dagger_decisions=200"), dagger=0)
    assert (rec.driver, rec.opponent, rec.decisions) == ("random", "greedy", 400)
    _, actions = record_chunk((rec, 0, None))
    played, labels = actions
    teacher = make_agent("simple", seed=derive_seed(rec.seed, 5, 0))
    driver = make_agent("random", seed=derive_seed(rec.seed, 10, 0))
    opponent = make_agent("greedy", seed=derive_seed(rec.seed, 12, 0))
    venv = rec.env(0)
    obs, masks, to_act = venv.reset()
    seats, positions = np.arange(rec.num_envs) % 2, []
    for t in range(rec.steps):
        mine = to_act == seats
        assert np.array_equal(act_batch(teacher, obs[mine], masks[mine]), labels[t, mine])
        assert np.array_equal(act_batch(driver, obs[mine], masks[mine]), played[t, mine])
        assert np.array_equal(act_batch(opponent, obs[~mine], masks[~mine]), played[t, ~mine])
        assert np.all(labels[t, ~mine] == UNLABELLED)
        positions.append(obs[mine])
        obs, masks, to_act, *_ = venv.step(played[t])
    replayed_obs, replayed_masks, targets, returns, finished = replay_chunk(rec, 0, actions, gamma=0.99)
    assert np.array_equal(replayed_obs, np.concatenate(positions))
    assert np.array_equal(targets, labels[labels != UNLABELLED]) and 0 < len(targets) < labels.size
    assert len(returns) == len(finished) == len(targets)
    assert np.all(replayed_masks[np.arange(len(targets)), targets] > 0)


@pytest.mark.parametrize("entry", ["random vs nonsense", "nonsense vs random"])
def test_dagger_opponents_are_checked(entry):
    from train.training.config import ConfigError

    with pytest.raises(ConfigError, match="clone.dagger"):
        _cfg(f"clone.dagger=[{entry}]", "clone.dagger_decisions=100")


def test_the_opponent_is_part_of_a_dagger_recording():
    keys = {Recording.of(_cfg(f"clone.dagger={entry}", "clone.dagger_decisions=100"), dagger=0).key()
            for entry in ("random", "random vs simple", "random vs greedy")}
    assert len(keys) == 3


def test_dagger_decisions_are_added_to_the_agents_own(tmp_path):
    cfg = _cfg("clone.dagger=random", "clone.dagger_decisions=200")
    own = record_decisions(_cfg(), progress_bar=False)
    both = record_decisions(cfg, progress_bar=False, folder=tmp_path)
    assert len(both[2]) == len(own[2]) + 200 and np.array_equal(both[2][:len(own[2])], own[2])
    assert len(list(tmp_path.iterdir())) == 2  # the agent's own games and the driver's are kept apart


def test_a_retrained_driver_is_a_new_dagger_recording(tmp_path):
    from agents.neural.policy import Architecture, PolicyNet
    from train.training.checkpoint import save_policy

    weights = tmp_path / "driver.pt"
    save_policy(PolicyNet(Architecture(hidden=8)), weights)
    cfg = _cfg(f"clone.dagger=ppo:path={weights}", "clone.dagger_decisions=100")
    first = Recording.of(cfg, dagger=0).key()
    save_policy(PolicyNet(Architecture(hidden=16)), weights)
    assert Recording.of(cfg, dagger=0).key() != first


def test_dagger_rounds_are_recordings_of_their_own_on_deals_of_their_own(tmp_path):
    """A list of drivers (DAgger rounds): one recording per driver, each on its own deals; adding
    a round leaves the earlier rounds' recordings (and their kept chunks) as they were."""
    one = _cfg("clone.dagger=random", "clone.dagger_decisions=200")
    two = _cfg("clone.dagger=[random, simple]", "clone.dagger_decisions=200")
    assert [r.driver for r in two.clone.rounds] == ["random", "simple"] and len(one.clone.rounds) == 1
    first, second = Recording.of(two, dagger=0), Recording.of(two, dagger=1)
    assert first == Recording.of(one, dagger=0) and first.key() == Recording.of(one, dagger=0).key()
    assert (second.driver, second.round) == ("simple", 1) and second.key() != first.key()
    assert not np.array_equal(first.env(0).reset()[0], second.env(0).reset()[0])
    both = record_decisions(two, progress_bar=False, folder=tmp_path)
    assert len(both[2]) == Recording.of(two).decisions + 400
    assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 3


def test_a_dagger_round_may_have_its_own_labeller_episode_and_size(tmp_path):
    """A mapping round: its own labeller, episode and number of labelled positions; the other
    rounds keep the clone section's (and their keys)."""
    plain = _cfg("clone.dagger=random", "clone.dagger_decisions=200")
    cfg = _cfg("clone.dagger=[random, {driver: simple, agent: greedy, episode: game, decisions: 396, chunk: 400}]",
               "clone.dagger_decisions=200")
    first, second = Recording.of(cfg, dagger=0), Recording.of(cfg, dagger=1)
    assert first.key() == Recording.of(plain, dagger=0).key()
    assert (second.agent, second.env_kwargs["episode"], second.driver) == ("greedy", "game", "simple")
    assert (second.decisions, second.chunks) == (400, 1)  # 396 rounded up to whole steps of 8 games
    _, actions = record_chunk((second, 0, None))
    obs, masks, labels, *_ = replay_chunk(second, 0, actions, 0.99)
    labeller = make_agent("greedy")
    assert np.array_equal(labels, [labeller.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks)])
    views = [decode({"observation": o, "action_mask": m}) for o, m in zip(obs, masks)]
    assert all(view.game_mode for view in views) and any(view.scores != (0, 0) for view in views)


@pytest.mark.parametrize("value", ["[]", "[random, nonsense]", "[{agent: greedy}]", "[{driver: random, colour: red}]",
                                   "[{driver: random, episode: match}]", "[{driver: random, decisions: 0}]",
                                   "[{driver: random, chunk: 0.5}]", "[{driver: random, agent: nonsense}]", "[3]"])
def test_dagger_drivers_are_checked(value):
    from train.training.config import ConfigError

    with pytest.raises(ConfigError, match="clone.dagger"):
        _cfg(f"clone.dagger={value}", "clone.dagger_decisions=100")


@pytest.mark.parametrize("extra", [["clone.dagger=random"], ["clone.dagger_decisions=100"],
                                   ["clone.agent=null", "clone.dagger=random", "clone.dagger_decisions=100"]])
def test_dagger_settings_go_together(extra):
    from train.training.config import ConfigError

    with pytest.raises(ConfigError, match="clone.dagger"):
        _cfg(*extra)


def test_augmentation_needs_the_card_network():
    from train.training.config import ConfigError

    with pytest.raises(ConfigError, match="clone.augment"):
        _cfg("clone.augment=true", "policy.kind=mlp")


def test_held_out_agreement_is_scored_and_augmented_cloning_learns():
    """Cloning ``simple`` with renamed suits still learns it: most held-out decisions agree."""
    from agents.neural.policy import Architecture, PolicyNet
    from train.training.clone import features_of, fit

    cfg = _cfg("clone.augment=true", "clone.epochs=3", "clone.decisions=2400", "clone.chunk=800")
    net = PolicyNet(Architecture(hidden=64))
    data = record_decisions(cfg, progress_bar=False, observe=lambda obs: features_of(net, obs))
    obs, *rest = replay_chunk(Recording.of(cfg), 7, record_chunk((Recording.of(cfg), 7, None))[1], 0.99)
    assert data[0].shape == (2400, net.features(torch.from_numpy(obs[:1])).shape[1])
    metrics = fit(net, data, cfg, progress_bar=False, held_out=(features_of(net, obs), *rest))
    assert metrics["held_out_accuracy"] > 0.6  # a uniform legal choice agrees about a third of the time


@pytest.mark.parametrize("key, value", [("clone.knock_weight", "0"), ("clone.augment", "2"), ("clone.chunk", "0"),
                                        ("clone.workers", "0"), ("clone.cache", "''")])
def test_bad_clone_settings_are_named(key, value):
    from train.training.config import ConfigError

    with pytest.raises(ConfigError, match=key):
        _cfg(f"{key}={value}")
