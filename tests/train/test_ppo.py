"""The PPO trainer: credit assignment, the update, checkpoints and exact resume, the CLI,
and a real learning check (the smoke config beats `random`)."""
from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.neural.masked import MaskedCategorical
from agents.neural.policy import Architecture, CheckpointError, PolicyNet, read_checkpoint
from ginenv.game.actions import BIG_GIN, KNOCK_BASE
from train.cli import main
from train.evaluation.evaluate import evaluate, format_report
from train.training.collect import Batch, Collector, RolloutStats, forbid_knocks
from train.training.config import ConfigError, load_config
from train.training.curves import plot
from train.training.league import League
from train.training.ppo import Trainer, ppo_update, train, warm_start

ROOT = Path(__file__).resolve().parents[2]
TINY = ["env.num_envs=8", "ppo.rollout_steps=12", "ppo.total_steps=1500", "ppo.minibatches=2", "ppo.epochs=2",
        "policy.hidden=16", "policy.card_dim=4", "league.opponents={self: 1, snapshot: 1, random: 1, simple: 1}",
        "league.snapshot_every=2", "league.max_snapshots=2", "league.prioritise=1.0", "shaping.deadwood=1.0",
        "checkpoint_every=3", "eval.every=4", "eval.games=2", "eval.episode=hand", "eval.opponents=[random]",
        "eval.best_against=random"]


def _tiny(*extra: str):
    return load_config(None, [*TINY, *extra])


def _net(cfg) -> PolicyNet:
    """A fresh network of ``cfg.policy`` drawn from seed 0, whatever tests ran before."""
    torch.manual_seed(0)
    return PolicyNet(cfg.policy)


def _collector(opponents: str) -> Collector:
    cfg = _tiny(f"league.opponents={opponents}", "env.num_envs=3")
    return Collector(cfg, _net(cfg), League(cfg.league, seed=0, architecture=cfg.policy))


def _selfplay(*extra: str) -> tuple[PolicyNet, Batch]:
    """A fresh network (seed 0) and 200 steps of 64 self-play games under ``_tiny(*extra)``: about 25
    decisions where the learner may knock."""
    cfg = _tiny("league.opponents={self: 1}", "env.num_envs=64", *extra)
    net = _net(cfg)
    batch, _ = Collector(cfg, net, League(cfg.league, seed=0, architecture=cfg.policy)).collect(
        200, torch.Generator().manual_seed(0))
    return net, batch


def test_a_seats_reward_goes_to_its_last_decision_even_when_the_other_seat_ended_the_hand():
    collector = _collector("{random: 1}")
    collector.learner_seat[:] = [0, 1, 0]
    steps = 5
    reward_buf = np.zeros((steps, 3), np.float32)
    done_buf = np.zeros((steps, 3), bool)
    last = np.array([[2, -1], [-1, 3], [4, -1]])
    rewards = np.array([[0.5, -0.5], [0.5, -0.5], [0.0, 0.0]], np.float32)
    ended = np.array([True, True, False])
    collector.episode_reward[:] = 0
    collector._credit(rewards, ended, [{"hand_result": {"outcome": "knock"}}] * 2 + [{}], last, reward_buf,
                      done_buf, RolloutStats())
    assert reward_buf[2, 0] == 0.5 and done_buf[2, 0]          # game 0: learner seat 0 won on any move
    assert reward_buf[3, 1] == -0.5 and done_buf[3, 1]         # game 1: learner seat 1 lost
    assert reward_buf.sum() == 0.0 and not done_buf[4, 2]       # game 2 goes on
    assert last[0, 0] == -1 and last[1, 1] == -1 and last[2, 0] == 4


def test_collected_actions_are_legal_and_learner_seats_only():
    collector = _collector("{greedy: 1}")
    batch, stats = collector.collect(40, torch.Generator().manual_seed(0))
    rows = np.arange(len(batch))
    assert len(batch) > 0 and batch.masks[rows, batch.actions].all()
    assert stats.decisions < 40 * 3  # the opponent's turns are not the learner's
    assert np.isfinite(batch.advantages).all() and np.isfinite(batch.returns).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=108, max_size=108), min_size=1, max_size=12),
       st.floats(0.0, 0.99), st.integers(0, 2**31))
def test_forbid_knocks_takes_out_only_knocks_and_leaves_a_legal_action(rows, chance, seed):
    masks = np.array(rows)
    masks[:, 0] |= ~masks.any(axis=1)  # an observed mask always has a legal action
    out = forbid_knocks(masks, chance, torch.Generator().manual_seed(seed))
    knocks = slice(KNOCK_BASE, BIG_GIN)
    assert out.any(axis=1).all() and not (out & ~masks).any()
    assert np.array_equal(np.delete(out, np.s_[knocks], axis=1), np.delete(masks, np.s_[knocks], axis=1))
    kept, none = (out[:, knocks] == masks[:, knocks]).all(axis=1), ~out[:, knocks].any(axis=1)
    assert (kept | none).all()  # a row loses all its knocks or none
    if chance == 0.0:
        assert np.array_equal(out, masks)


def test_forbid_knock_keeps_the_learner_from_knocking_in_its_recorded_decisions():
    counts = []
    for chance in (0.0, 0.99):
        _, batch = _selfplay(f"ppo.forbid_knock={chance}")
        assert batch.masks[np.arange(len(batch)), batch.actions].all()  # the action is legal under the mask kept
        counts.append(int(batch.masks[:, KNOCK_BASE:BIG_GIN].any(axis=1).sum()))
    assert counts[0] >= 10 and counts[1] <= counts[0] // 5


def test_forbid_as_choice_records_forced_holds_under_the_full_mask_and_its_log_probabilities():
    net, batch = _selfplay("ppo.forbid_knock=0.99", "ppo.forbid_as_choice=true")
    may_knock = batch.masks[:, KNOCK_BASE:BIG_GIN].any(axis=1)
    knocked = (batch.actions >= KNOCK_BASE) & (batch.actions < BIG_GIN)
    assert may_knock.sum() >= 10 and knocked.sum() <= may_knock.sum() // 5  # knocks stay in the mask, seldom played
    with torch.no_grad():
        masks = torch.from_numpy(batch.masks)
        full = MaskedCategorical(net.head(torch.from_numpy(batch.features), masks)[0], masks)
    assert np.allclose(full.log_prob(torch.from_numpy(batch.actions)).numpy(), batch.logprobs, atol=1e-4)


def test_forbid_as_choice_needs_forbid_knock():
    with pytest.raises(ConfigError, match="forbid_as_choice.*forbid_knock"):
        load_config(None, ["ppo.forbid_as_choice=true"])
    assert load_config(None, ["ppo.forbid_as_choice=true", "ppo.forbid_knock=0.25"]).ppo.forbid_as_choice


def _sure_knocker() -> PolicyNet:
    """A fresh card network of ``_tiny()`` (seed 0) whose knock logit of every card is far above its discard's."""
    net = _net(_tiny())
    with torch.no_grad():
        net.card_out.bias[:] = torch.tensor([0.0, 5.0])
    return net


def _knock_share(net: PolicyNet, features: torch.Tensor, masks: torch.Tensor) -> float:
    """The mean probability ``net`` puts on the knocks."""
    with torch.no_grad():
        return float(MaskedCategorical(net.head(features, masks)[0], masks).probs[:, KNOCK_BASE:BIG_GIN].sum(1).mean())


def test_forbid_as_choice_lets_a_rewarded_hold_move_a_sure_knocker_towards_holding():
    """Forced holds with a positive advantage: recorded as a choice among all legal actions they pull a
    sure knocker back towards holding on (one update's move is bounded by PPO's clip: each forced hold's
    probability rises by at most a fifth); recorded under the reduced mask they barely can."""
    _, batch = _selfplay("ppo.forbid_knock=0.99", "ppo.forbid_as_choice=true")
    held = batch.masks[:, KNOCK_BASE:BIG_GIN].any(axis=1) & ((batch.actions < KNOCK_BASE) | (batch.actions >= BIG_GIN))
    batch = Batch(*(getattr(batch, name)[held] for name in Batch.__dataclass_fields__))
    batch.advantages[:] = 1.0
    full = torch.from_numpy(batch.masks.copy())
    reduced = full.clone()
    reduced[:, KNOCK_BASE:BIG_GIN] = False
    features, after = torch.from_numpy(batch.features), {}
    for name, recorded in (("choice", full), ("reduced", reduced)):
        net = _sure_knocker()
        with torch.no_grad():
            batch.masks = recorded.numpy()
            batch.logprobs = MaskedCategorical(net.head(features, recorded)[0], recorded).log_prob(
                torch.from_numpy(batch.actions)).numpy()
        assert _knock_share(net, features, full) > 0.9
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
        ppo_update(net, optimizer, batch, _tiny("ppo.ent_coef=0", "ppo.epochs=8", "ppo.norm_adv=false").ppo,
                   torch.Generator().manual_seed(1))
        after[name] = _knock_share(net, features, full)
    assert len(batch) >= 10
    assert after["choice"] < after["reduced"] - 0.05


def test_knock_entropy_bonus_pulls_a_sure_knocker_back_towards_holding():
    """A policy that puts over 90% on knocking wherever it may knock, with no advantage to follow, moves
    clearly more probability back to holding on with ``ppo.knock_ent_coef`` than without it."""
    _, batch = _selfplay()
    knocks = batch.masks[:, KNOCK_BASE:BIG_GIN].any(axis=1)
    batch = Batch(*(getattr(batch, name)[knocks] for name in Batch.__dataclass_fields__))
    batch.advantages[:] = 0.0
    knock_share = {}
    for coef in (0.0, 1.0):
        net = _sure_knocker()
        with torch.no_grad():
            features, masks = torch.from_numpy(batch.features), torch.from_numpy(batch.masks)
            start = MaskedCategorical(net.head(features, masks)[0], masks)
            batch.logprobs = start.log_prob(torch.from_numpy(batch.actions)).numpy()
            assert float(start.probs[:, KNOCK_BASE:BIG_GIN].sum(dim=1).mean()) > 0.9
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
        ppo_update(net, optimizer, batch, _tiny("ppo.ent_coef=0", "ppo.epochs=8", f"ppo.knock_ent_coef={coef}").ppo,
                   torch.Generator().manual_seed(1))
        with torch.no_grad():
            probs = MaskedCategorical(net.head(features, masks)[0], masks).probs
        knock_share[coef] = float(probs[:, KNOCK_BASE:BIG_GIN].sum(dim=1).mean())
    assert len(batch) >= 10
    assert knock_share[1.0] < knock_share[0.0] - 0.1


def test_ppo_update_moves_probability_towards_advantaged_actions():
    torch.manual_seed(0)
    net = PolicyNet(Architecture(hidden=16, card_dim=4))
    collector = _collector("{random: 1}")
    batch, _ = collector.collect(20, torch.Generator().manual_seed(1))
    batch.advantages = np.where(np.arange(len(batch)) % 2 == 0, 1.0, -1.0).astype(np.float32)
    with torch.no_grad():
        logits, _ = net.head(torch.from_numpy(batch.features))
        dist = MaskedCategorical(logits, torch.from_numpy(batch.masks))
        batch.logprobs = dist.log_prob(torch.from_numpy(batch.actions)).numpy()
    before = batch.logprobs.copy()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    cfg = _tiny("ppo.epochs=4").ppo
    metrics = ppo_update(net, optimizer, batch, cfg, torch.Generator().manual_seed(2))
    with torch.no_grad():
        logits, _ = net.head(torch.from_numpy(batch.features))
        after = MaskedCategorical(logits, torch.from_numpy(batch.masks)).log_prob(torch.from_numpy(batch.actions))
    change = after.numpy() - before
    assert change[::2].mean() > 0 > change[1::2].mean()
    assert {"policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction", "explained_variance"} <= set(metrics)


def _parameters(run_dir: Path) -> dict:
    return read_checkpoint(run_dir / "final.pt")["model"]


def test_a_killed_and_resumed_run_ends_bit_identical(tmp_path):
    """Run A goes straight through.  Run B stops after update 7 and loses its newest
    checkpoint (as if killed between checkpoints 6 and 9), then resumes from update 6. The league keeps a
    history (its older snapshots thinned on both sides of the resume)."""
    cfg = _tiny("league.history=1")
    straight = train(cfg, out=tmp_path / "a", progress_bar=False)
    interrupted = train(cfg, out=tmp_path / "b", progress_bar=False, stop_after=7)
    checkpoints = sorted((interrupted / "checkpoints").glob("update_*.pt"))
    assert checkpoints[-1].name == "update_000007.pt"
    checkpoints[-1].unlink()
    resumed = train(None, resume=interrupted, progress_bar=False)
    a, b = _parameters(straight), _parameters(resumed)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    summary_a = json.loads((straight / "summary.json").read_text())
    summary_b = json.loads((resumed / "summary.json").read_text())
    assert summary_a == summary_b
    assert len(list((straight / "checkpoints").glob("*.pt"))) <= cfg.keep_checkpoints
    assert list((straight / "tb").glob("events.out.tfevents.*"))
    for name in ("config.yaml", "best.pt", "final.pt", "eval.jsonl", "summary.json"):
        assert (straight / name).is_file()


def test_resume_errors_name_the_file(tmp_path):
    run = train(_tiny("ppo.total_steps=200", "eval.every=0"), out=tmp_path, progress_bar=False)
    newest = sorted((run / "checkpoints").glob("update_*.pt"))[-1]
    newest.write_bytes(newest.read_bytes()[:100])
    with pytest.raises(CheckpointError, match=newest.name):
        train(None, resume=run, progress_bar=False)
    for path in (run / "checkpoints").glob("*.pt"):
        path.unlink()
    with pytest.raises(CheckpointError, match="no checkpoint to resume from"):
        train(None, resume=run, progress_bar=False)


def test_init_starts_from_a_checkpoints_weights(tmp_path):
    first = train(_tiny("ppo.total_steps=200", "eval.every=0"), out=tmp_path, progress_bar=False)
    cfg = _tiny("name=second", f"init={first / 'final.pt'}", "clone.agent=simple")
    trainer = Trainer(cfg, tmp_path)
    warm_start(trainer)
    stored = read_checkpoint(first / "final.pt")["model"]
    assert all(torch.equal(stored[k], v) for k, v in trainer.net.state_dict().items())
    assert not (tmp_path / "clone.json").exists()  # init wins over cloning
    with pytest.raises(ConfigError, match="init"):
        load_config(None, [*TINY, "policy.hidden=32", f"init={first / 'final.pt'}"])
    with pytest.raises(ConfigError, match="init.*does not exist"):
        load_config(None, [*TINY, f"init={tmp_path / 'nope.pt'}"])


def test_cli_train_writes_a_run_and_refuses_bad_keys(tmp_path, capsys):
    args = ["train", "--out", str(tmp_path), "--name", "cli", "--no-progress"]
    for item in TINY + ["ppo.total_steps=200", "eval.every=0"]:
        args += ["--set", item]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "vs random: win rate" in out
    assert f"evaluate it: ginrummy eval ppo:path={tmp_path / 'cli' / 'final.pt'} simple --games 200\n" in out
    assert (tmp_path / "cli" / "config.yaml").is_file()
    assert main(args) == 2 and "already holds a run" in capsys.readouterr().err
    assert main(["train", "--set", "ppo.nope=1"]) == 2 and "ppo.nope" in capsys.readouterr().err
    assert main(["train", "--resume", str(tmp_path / "cli"), "--set", "ppo.epochs=2"]) == 2
    assert main(["train", "--list-keys"]) == 0 and "ppo.clip" in capsys.readouterr().out
    assert main(["curves", str(tmp_path / "cli")]) == 0
    rows = (tmp_path / "cli" / "curves.csv").read_text().splitlines()
    assert rows[0].startswith("update,") and "losses/entropy" in rows[0] and len(rows) >= 2
    header, last = rows[0].split(","), rows[-1].split(",")
    shares = [float(last[i]) for i, tag in enumerate(header) if tag.startswith("charts/share_")]
    assert len(shares) == 4 and sum(shares) == pytest.approx(1.0)  # self, snapshot, random, simple
    assert (tmp_path / "cli" / "curves.png").stat().st_size > 1000
    eaai = [*args[:4], "eaai", *args[5:], "--set", "env.ruleset=eaai"]
    assert main(eaai) == 0  # the command it prints plays the run's rules
    assert f"ginrummy eval ppo:path={tmp_path / 'eaai' / 'final.pt'} simple --games 200 --ruleset eaai" in \
        capsys.readouterr().out
    assert main(["curves", str(tmp_path / "nothing")]) == 2


def test_the_entropy_bonus_goes_from_ent_coef_to_ent_final_over_the_run(tmp_path):
    """``ppo.ent_final``: the bonus of each update is on the straight line from ``ent_coef`` (first update)
    towards ``ent_final`` (at ``total_steps``), logged as ``charts/ent_coef``; a negative one is refused."""
    cfg = _tiny("ppo.total_steps=600", "eval.every=0", "ppo.ent_coef=0.04", "ppo.ent_final=0.01")
    run = train(cfg, out=tmp_path, progress_bar=False)
    assert main(["curves", str(run)]) == 0
    rows = list(csv.DictReader((run / "curves.csv").open()))
    bonus = [float(row["charts/ent_coef"]) for row in rows]
    steps = [0.0] + [float(row["charts/global_step"]) for row in rows][:-1]  # decisions before each update
    assert bonus[0] == pytest.approx(0.04) and len(bonus) >= 3
    assert bonus == pytest.approx([0.04 - 0.03 * min(1.0, s / 600) for s in steps])
    assert all(a > b for a, b in zip(bonus, bonus[1:]))
    with pytest.raises(ConfigError, match="ppo.ent_final"):
        _tiny("ppo.ent_final=-0.1")


def test_a_run_resumed_without_its_tensorboard_folder_keeps_its_whole_curve(tmp_path):
    """A run folder committed without ``tb/`` (models/README) and resumed: ``curves.csv`` still holds
    every update, the earlier ones from the CSV the first session wrote, the later ones from the new
    TensorBoard events."""
    import shutil

    run = train(_tiny("ppo.total_steps=400", "eval.every=0"), out=tmp_path, progress_bar=False)
    first = list(csv.DictReader((run / "curves.csv").open()))
    shutil.rmtree(run / "tb")
    train(None, resume=run, resume_overrides=["ppo.total_steps=800"], progress_bar=False)
    rows = list(csv.DictReader((run / "curves.csv").open()))
    updates = [int(row["update"]) for row in rows]
    assert updates == list(range(1, len(rows) + 1)) and len(rows) > len(first) >= 2
    assert [{tag: row[tag] for tag in first[0]} for row in rows[:len(first)]] == first


def test_curves_plot_an_opponent_whose_spec_holds_a_path(tmp_path):
    """An evaluation against ``ppo:path=...`` (a league's exploiter) gives tags with more slashes."""
    spec = "ppo:path=models/exploit/x/final.pt"
    scalars = {f"eval_games/{spec}/{name}": {1: value, 2: value} for name, value in
               [("win_rate_a", 0.5), ("ci_low", 0.4), ("ci_high", 0.6)]}
    plot(scalars, tmp_path / "curves.png", "run")
    assert (tmp_path / "curves.png").stat().st_size > 1000


def test_smoke_config_learns_to_beat_random(tmp_path):
    """The learning check of configs/smoke.yaml: after its short run the greedy policy wins
    at least 80% of single hands against `random` (a dead hand is not a win)."""
    run = train(load_config(ROOT / "configs" / "smoke.yaml"), out=tmp_path, progress_bar=False)
    result = evaluate(f"ppo:path={run / 'final.pt'}", "random", games=200, episode="hand", seed=123, workers=1)
    assert result.wins_a / result.games >= 0.80, result.results_dict()


def _write_config(path: Path, overrides: list[str]) -> Path:
    data: dict = {}
    for item in overrides:
        key, _, raw = item.partition("=")
        section, _, name = key.rpartition(".")
        value = yaml.safe_load(raw)
        (data.setdefault(section, {}) if section else data)[name] = value
    path.write_text(yaml.safe_dump(data, sort_keys=False))  # the order of league.opponents matters
    return path


def test_a_signalled_run_stops_cleanly_and_resumes_bit_identical(tmp_path):
    """SIGTERM in the middle of a real ``ginrummy train``: the update in progress finishes, the run
    writes a checkpoint, final.pt, summary.json and its curves and exits 143; resumed, it ends
    exactly as a run that was never stopped."""
    overrides = [*TINY, "ppo.total_steps=3000", "eval.every=0", "checkpoint_every=2", "keep_checkpoints=100"]
    config = _write_config(tmp_path / "tiny.yaml", overrides)
    command = [sys.executable, "-m", "train.cli", "train", str(config), "--out", str(tmp_path), "--name", "stopped",
               "--no-progress"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run = tmp_path / "stopped"
    deadline = time.monotonic() + 120
    while len(list((run / "checkpoints").glob("update_*.pt"))) < 2:  # a few updates done
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 143, err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["stopped_by"] == "SIGTERM" and not summary["finished"] and summary["update"] >= 3
    assert "SIGTERM: stopping after this update" in err and f"--resume {run}" in out
    assert f"ppo:path={run / 'final.pt'} simple" in out
    assert (run / "final.pt").is_file() and (run / "curves.png").is_file()
    assert read_checkpoint(sorted((run / "checkpoints").glob("update_*.pt"))[-1])["update"] == summary["update"]
    train(None, resume=run, progress_bar=False)
    straight = train(load_config(None, overrides + ["name=straight"]), out=tmp_path, progress_bar=False)
    a, b = _parameters(straight), _parameters(run)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert json.loads((run / "summary.json").read_text())["stopped_by"] == "total_steps"


def test_a_time_limit_stops_the_session_with_everything_written(tmp_path):
    cfg = _tiny("ppo.total_steps=3000", "eval.every=0", "time_limit=0.0001")
    run = train(cfg, out=tmp_path, progress_bar=False)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["stopped_by"] == "time_limit" and not summary["finished"]
    assert (run / "final.pt").is_file() and sorted((run / "checkpoints").glob("update_*.pt"))
    train(None, resume=run, progress_bar=False, time_limit=10)
    assert json.loads((run / "summary.json").read_text())["finished"]


SELFPLAY_CI = ["env.num_envs=64", "ppo.total_steps=130000", "ppo.lr=0.001", "ppo.anneal_lr=false", "eval.every=0",
               "league.snapshot_every=5", "eval.opponents=[random]", "eval.best_against=random", "eval.games=2"]
"""configs/selfplay.yaml cut to CI size: the same league (itself and PFSP snapshots only), critic and shaping."""


def test_selfplay_recipe_learns_from_nothing_to_beat_random(tmp_path):
    """Pure self-play (no heuristic in the league, no cloning, no init) for 130k decisions: the
    greedy policy then wins at least 90% of single hands against `random`."""
    cfg = load_config(ROOT / "configs" / "selfplay.yaml", SELFPLAY_CI)
    assert set(cfg.league.opponents) <= {"self", "snapshot"} and cfg.clone.agent is None and cfg.init is None
    run = train(cfg, out=tmp_path, progress_bar=False)
    result = evaluate(f"ppo:path={run / 'final.pt'}", "random", games=200, episode="hand", seed=123, workers=1)
    print(format_report(result))
    assert result.wins_a / result.games >= 0.90, result.results_dict()


SELFPLAY_SLOW = ["eval.every=0", "eval.opponents=[simple]", "eval.best_against=simple", "precision=bf16", "threads=2"]
"""configs/selfplay.yaml as it is (24M decisions, the learning rate annealed to 0 over them), without the
run's own evaluations, in bfloat16 on two threads like version 11's own run of the recipe: 1 h 55 min on the
2-core development machine (AMX); that run's policy scores 55.3% [54.0, 56.6] on this test's hands
(models/selfplay/v11/hands_simple_s24020_24M.txt). Version 3's recipe passed it in session 14 (53.2% [51.8,
54.5], 2 h 13 min on one core); 8M decisions of it were not enough (50.1% [48.7, 51.4] of single hands,
docs/experiments/selfplay.md). Elsewhere bfloat16 is emulated and slower."""


@pytest.mark.slow
def test_a_longer_selfplay_run_beats_simple_in_single_hands(tmp_path):
    """The from-scratch recipe (no heuristic ever in its league) trained to the end of its schedule: its
    policy then beats `simple` in single hands, the lower end of the 95% interval over 4,000 hands
    above 50% (seed 24020, fixed in docs/experiments/selfplay.md before the first run)."""
    cfg = load_config(ROOT / "configs" / "selfplay.yaml", SELFPLAY_SLOW)
    assert set(cfg.league.opponents) <= {"self", "snapshot"} and cfg.clone.agent is None and cfg.init is None
    run = train(cfg, out=tmp_path, progress_bar=False)
    result = evaluate(f"ppo:path={run / 'final.pt'}", "simple", games=4000, episode="hand", seed=24020)
    print(format_report(result))
    assert result.ci_low > 0.5, result.results_dict()
