"""Resume you can trust: a run's identity and config, leftovers of kills, I/O errors, damaged policy files.

Each case prepares a run folder the way a careless user or a crash would leave it, then resumes it.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
import yaml

from agents.neural.policy import CheckpointError, PolicyNet, read_checkpoint
from train.cli import main
from train.training import checkpoint
from train.training.config import ConfigError, load_config
from train.training.ppo import train
from train.training.resume import CHANGES_FILE, SAFE_ON_RESUME

TINY = ["env.num_envs=8", "ppo.rollout_steps=12", "ppo.total_steps=1500", "ppo.minibatches=2", "ppo.epochs=2",
        "policy.hidden=16", "policy.card_dim=4", "league.opponents={self: 1, snapshot: 1, random: 1}",
        "league.snapshot_every=2", "checkpoint_every=3", "eval.every=2", "eval.games=2", "eval.episode=hand",
        "eval.opponents=[random]", "eval.best_against=random", "threads=1"]


def _run(tmp_path: Path, name: str, stop_after: int = 4, *extra: str) -> Path:
    return train(load_config(None, [*TINY, f"name={name}", *extra]), out=tmp_path, progress_bar=False,
                 stop_after=stop_after)


def _edit_config(run: Path, section: str, key: str, value) -> None:
    data = yaml.safe_load((run / "config.yaml").read_text())
    data[section][key] = value
    (run / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


def test_a_checkpoint_of_another_run_is_refused(tmp_path):
    mine, other = _run(tmp_path, "mine"), _run(tmp_path, "other", 6)
    newest = checkpoint.list_checkpoints(other / "checkpoints")[-1]
    shutil.copy(newest, mine / "checkpoints" / newest.name)
    with pytest.raises(CheckpointError, match="belongs to another run"):
        train(None, resume=mine, progress_bar=False)


@pytest.mark.parametrize("section, key, value, named", [
    ("ppo", "lr", 0.01, "ppo.lr"),
    ("policy", "hidden", 32, "policy.hidden"),          # another architecture: no RuntimeError traceback
    ("league", "opponents", {"self": 1}, "league.opponents"),
])
def test_an_edited_config_is_refused_naming_the_key(tmp_path, section, key, value, named):
    run = _run(tmp_path, "edited")
    _edit_config(run, section, key, value)
    with pytest.raises(ConfigError, match=f"{named}: .* in the checkpoint"):
        train(None, resume=run, progress_bar=False)


def test_an_empty_config_is_refused(tmp_path):
    run = _run(tmp_path, "empty")
    (run / "config.yaml").write_text("")
    with pytest.raises(ConfigError, match="is empty"):
        train(None, resume=run, progress_bar=False)


def test_a_safe_change_on_the_command_line_is_applied_and_logged(tmp_path, capsys):
    run = _run(tmp_path, "safe")
    assert main(["train", "--resume", str(run), "--set", "eval.every=3", "--set", "ppo.total_steps=1000",
                 "--set", "ppo.ent_coef=0.005", "--set", "ppo.gae_lambda=0.8", "--set", "ppo.lr=0.0001",
                 "--no-progress"]) == 0
    assert "changed on resume" in capsys.readouterr().err
    log = (run / CHANGES_FILE).read_text()
    assert "eval.every 2 -> 3" in log and "ppo.total_steps 1500 -> 1000" in log and "ppo.ent_coef" in log
    assert load_config(run / "config.yaml").eval.every == 3
    assert load_config(run / "config.yaml").ppo.ent_coef == 0.005
    assert "ppo.gae_lambda 0.95 -> 0.8" in log and load_config(run / "config.yaml").ppo.gae_lambda == 0.8
    assert "ppo.lr 0.0003 -> 0.0001" in log and load_config(run / "config.yaml").ppo.lr == 0.0001
    assert main(["train", "--resume", str(run), "--set", "ppo.epochs=2"]) == 2
    assert "cannot change when a run resumes" in capsys.readouterr().err
    assert set(SAFE_ON_RESUME) >= {"eval.every", "ppo.total_steps", "threads", "time_limit"}


def test_a_kill_during_the_first_checkpoint_write_does_not_leave_a_stuck_run(tmp_path):
    straight = _run(tmp_path, "straight", 4)
    killed = _run(tmp_path, "killed", 2)  # no checkpoint yet (checkpoint_every=3), only the stop's one
    for path in checkpoint.list_checkpoints(killed / "checkpoints"):  # as if the first write had died half-way
        path.rename(path.with_name(f".{path.name}.k1ll3d"))
    (killed / "final.pt").unlink()
    (killed / "eval.jsonl").unlink()
    train(None, resume=killed, progress_bar=False, stop_after=4)
    assert not [p for p in (killed / "checkpoints").iterdir() if p.name.startswith(".")]
    a, b = read_checkpoint(straight / "final.pt")["model"], read_checkpoint(killed / "final.pt")["model"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_stale_temporaries_are_removed_and_eval_log_has_no_duplicates_after_a_kill(tmp_path):
    straight = _run(tmp_path, "straight", 12)
    killed = _run(tmp_path, "killed", 8)  # evaluations at 2, 4, 6, 8; checkpoints at 3, 6 and the stop's 8
    checkpoint.list_checkpoints(killed / "checkpoints")[-1].unlink()  # killed after evaluation 8, before its checkpoint
    (killed / "checkpoints" / ".update_000009.pt.tmp123").write_bytes(b"half")
    (killed / ".best.pt.tmp456").write_bytes(b"half")
    train(None, resume=killed, progress_bar=False, stop_after=12)
    assert not list((killed / "checkpoints").glob(".*")) and not list(killed.glob(".best.pt.*"))
    rows = [json.loads(line) for line in (killed / "eval.jsonl").read_text().splitlines()]
    assert [row["update"] for row in rows] == [2, 4, 6, 8, 10, 12]
    assert rows == [json.loads(line) for line in (straight / "eval.jsonl").read_text().splitlines()]


def test_a_failed_write_is_an_error_naming_the_file_with_exit_status_2(tmp_path, monkeypatch, capsys):
    def full_disk(*args, **kwargs):
        raise RuntimeError("PytorchStreamWriter failed writing file data/3: file write failed")

    monkeypatch.setattr(torch, "save", full_disk)
    with pytest.raises(OSError, match="could not write .*full/latest_policy.pt.*file write failed"):
        _run(tmp_path, "full")
    assert not list((tmp_path / "full").glob(".*"))  # no half-written file left
    args = ["train", "--out", str(tmp_path), "--name", "cli", "--no-progress"]
    for item in TINY:
        args += ["--set", item]
    assert main(args) == 2 and "could not write" in capsys.readouterr().err


def _policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "p.pt"
    checkpoint.save_policy(PolicyNet(load_config(None, TINY).policy), path)
    return path


def test_a_policy_with_nan_weights_is_refused_by_init_and_by_the_agent(tmp_path):
    path = _policy_file(tmp_path)
    data = torch.load(path, weights_only=True)
    data["model"]["trunk.0.weight"][0, 0] = float("nan")
    del data["model_sha256"]
    torch.save(data, path)
    with pytest.raises(CheckpointError, match="NaN or infinite weights .*trunk.0.weight"):
        read_checkpoint(path)
    with pytest.raises(ConfigError, match="init"):
        load_config(None, [*TINY, f"init={path}"])
    assert main(["eval", f"ppo:path={path}", "random", "--games", "2"]) == 2


def test_a_flipped_byte_in_the_tensor_data_is_caught(tmp_path):
    path = _policy_file(tmp_path)
    data = torch.load(path, weights_only=True)
    needle = data["model"]["trunk.0.weight"][3].numpy().tobytes()[:16]
    raw = bytearray(path.read_bytes())
    at = raw.find(needle)
    assert at > 0
    raw[at + 1] ^= 0x10
    path.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match=r"corrupt|could not be read"):
        read_checkpoint(path)
