"""Resuming a run safely: whose checkpoint it is, what may change, what a kill left behind.

* **Identity.** A new run writes ``run.json`` with a random ``run_id``; every full checkpoint
  carries it, and resuming refuses a checkpoint of another run (copied in by mistake).
  Checkpoints and runs made before identities existed have none and are not checked.
* **Config.** Every full checkpoint carries the config it was trained with. Resuming compares
  it with ``config.yaml``: an edit is refused, naming each key that differs, unless the key is
  one of :data:`SAFE_ON_RESUME` and the change is given on the command line
  (``ginrummy train --resume RUN --set eval.every=50``); such a change is written into
  ``config.yaml`` and appended to ``changes.log``.  Keys added to the trainer after a
  checkpoint was written count as equal when ``config.yaml`` keeps their default, or the value
  of :data:`BEFORE_IT_EXISTED` for the keys that name one.
* **Leftovers.** The temporary files of writes killed half-way are deleted; a run killed while
  writing its *first* checkpoint starts again from its config; ``eval.jsonl`` loses the rows of
  evaluations made after the checkpoint it resumes from (they are made again).
"""
from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any, Optional, Sequence

import yaml

from agents.neural.policy import CheckpointError
from train.training.config import ConfigError, RunConfig, load_config, save_config, to_dict

RUN_FILE = "run.json"
CHANGES_FILE = "changes.log"
SAFE_ON_RESUME = {
    "threads": "torch threads of this session (the numbers may differ in the last bits)",
    "device": "where the network runs (the numbers may differ in the last bits)",
    "precision": "the arithmetic of the network's products (fp32, or bfloat16 under autocast: the numbers differ "
                 "beyond the last bits; the games, the league and the schedule do not change)",
    "time_limit": "minutes of each session",
    "checkpoint_every": "how often checkpoints are written",
    "keep_checkpoints": "how many are kept",
    "ppo.total_steps": "where the run ends (with anneal_lr the learning rate decays to 0 at the new total)",
    "ppo.lr": "the learning rate of the updates from then on (with anneal_lr the schedule's start: the rate is "
              "lr * (1 - decisions / total_steps); Adam's moments are kept)",
    "ppo.ent_coef": "the entropy bonus of the updates from then on (e.g. a lower one to finish a run)",
    "ppo.ent_final": "where the entropy bonus ends (it goes linearly there from ent_coef over total_steps)",
    "ppo.gae_lambda": "GAE's lambda for the rollouts to come (lower: the advantages lean more on the critic)",
    "ppo.afterstate_coef": "the weight of the update that values every legal action of each discard (the rollouts "
                           "to come then also value the afterstates; no random draw changes)",
    "ppo.magnet_coef": "the weight of the magnet's divergence penalty from then on (a run without a magnet "
                       "starts one at the policy as it is)",
    "ppo.magnet_tau": "how fast the magnet follows the policy from then on",
    "ppo.epsilon": "the exploration of a dmc run's rollouts to come (the same random draws are made whatever it is)",
    "eval.every": "how often the policy is evaluated",
    "eval.games": "games per evaluation",
    "eval.opponents": "who the evaluations play",
    "eval.best_against": "which evaluation picks best.pt",
}
"""Keys ``--set`` may change on ``--resume``, with what each changes: none touches the games,
the league or the updates already made (the ``ppo.`` keys change those to come)."""
BEFORE_IT_EXISTED = {"precision": "fp32"}
"""Keys whose default is not what a run made before the key existed did: such a run's config
without the key means this value (its runs resume as they were trained)."""


def _utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def new_run_id(run_dir: Path) -> str:
    """Write ``run_dir/run.json`` with a fresh random ``run_id``; returns it."""
    run_id = uuid.uuid4().hex
    record = {"run_id": run_id, "created": _utc_now()}
    (run_dir / RUN_FILE).write_text(json.dumps(record) + "\n", encoding="utf-8")
    return run_id


def run_id_of(run_dir: Path) -> Optional[str]:
    """The ``run_id`` in ``run_dir/run.json`` (None for a run made before identities existed)."""
    path = run_dir / RUN_FILE
    if not path.is_file():
        return None
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["run_id"])
    except (ValueError, KeyError, TypeError) as err:
        raise ConfigError(f"{str(path)!r} is damaged ({err}); it names the run its checkpoints belong to") from None


def _flatten(data: dict[str, Any]) -> dict[str, Any]:
    """``{"section.key": value}`` (top-level keys as they are) from a config as plain data."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update({f"{key}.{name}": item for name, item in value.items()})
        else:
            out[key] = value
    return out


def config_differences(saved: dict[str, Any], current: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(key, saved value, current value)`` for every key that differs between two configs as plain
    data (:func:`train.training.config.to_dict`); a key one of them lacks counts as its default.

    >>> old, new = to_dict(load_config(None)), to_dict(load_config(None, ["ppo.lr=0.001"]))
    >>> config_differences(old, new)
    [('ppo.lr', 0.0003, 0.001)]
    >>> del old["critic"]  # written before the section existed: its defaults
    >>> config_differences(old, to_dict(load_config(None)))
    []
    """
    defaults = {**_flatten(to_dict(RunConfig())), **BEFORE_IT_EXISTED}
    a, b = _flatten(saved), _flatten(current)
    keys = sorted(set(a) | set(b), key=lambda k: list(defaults).index(k) if k in defaults else len(defaults))
    out = []
    for key in keys:
        old, new = a.get(key, defaults.get(key)), b.get(key, defaults.get(key))
        if _normal(old) != _normal(new):
            out.append((key, old, new))
    return out


def _normal(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def resume_config(run_dir: Path, overrides: Sequence[str] = ()) -> tuple[RunConfig, RunConfig]:
    """``(config as saved, config for this session)``: ``config.yaml`` of ``run_dir`` and the same
    with ``overrides`` applied, each of which must set a key of :data:`SAFE_ON_RESUME`."""
    path = run_dir / "config.yaml"
    if not path.is_file():
        raise ConfigError(f"--resume {str(run_dir)!r}: no run there (config.yaml is missing)")
    if not path.read_text(encoding="utf-8", errors="replace").strip():
        raise ConfigError(f"{str(path)!r} is empty: it must hold the run's config (every run writes it)")
    for item in overrides:
        key = item.partition("=")[0].strip()
        if key not in SAFE_ON_RESUME:
            raise ConfigError(f"--set {key}: cannot change when a run resumes (it would no longer be the run its "
                              f"checkpoints continue); keys that can: {sorted(SAFE_ON_RESUME)}")
    load_config(path)  # its errors first (the YAML checks guard the plain read below)
    keys = yaml.safe_load(path.read_text(encoding="utf-8"))
    older = [f"{key}={value}" for key, value in BEFORE_IT_EXISTED.items() if key not in keys]
    return load_config(path, older), load_config(path, [*older, *overrides])


def check_checkpoint(run_dir: Path, saved: dict[str, Any], cfg: RunConfig, where: str) -> None:
    """Refuse a checkpoint of another run, or one trained with another config than ``cfg``."""
    mine, theirs = run_id_of(run_dir), saved.get("run_id")
    if mine is not None and theirs is not None and mine != theirs:
        raise CheckpointError(f"checkpoint {where!r} belongs to another run (run_id {theirs}, this run is {mine}); "
                              "it cannot be resumed here")
    if mine is not None and theirs is None:
        raise CheckpointError(f"checkpoint {where!r} has no run_id, but this run has one ({mine}): it was not "
                              "written by this run")
    if "config" in saved:
        changed = config_differences(saved["config"], to_dict(cfg))
        if changed:
            listed = "; ".join(f"{key}: {old!r} in the checkpoint, {new!r} in config.yaml" for key, old, new in changed)
            raise ConfigError(f"config.yaml of {str(run_dir)!r} differs from the config its checkpoint {where!r} was "
                              f"trained with ({listed}); restore it (safe changes go on the command line: "
                              f"--set KEY=VALUE for {sorted(SAFE_ON_RESUME)})")


def apply_changes(run_dir: Path, before: RunConfig, after: RunConfig, update: int) -> list[str]:
    """Write ``after`` as the run's ``config.yaml`` and log each change in ``changes.log``; returns the lines."""
    lines = [f"{_utc_now()} update {update}: {key} {old!r} -> {new!r}"
             for key, old, new in config_differences(to_dict(before), to_dict(after))]
    if lines:
        save_config(after, run_dir / "config.yaml")
        with open(run_dir / CHANGES_FILE, "a", encoding="utf-8") as stream:
            stream.write("\n".join(lines) + "\n")
    return lines


def trim_eval_log(run_dir: Path, update: int) -> int:
    """Drop the rows of ``eval.jsonl`` made after ``update`` (a kill between an evaluation and the next
    checkpoint left them; the resumed run makes them again); returns how many were dropped."""
    path = run_dir / "eval.jsonl"
    if not path.is_file():
        return 0
    rows = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    kept = [line for line in rows if json.loads(line).get("update", 0) <= update]
    if len(kept) != len(rows):
        path.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    return len(rows) - len(kept)
