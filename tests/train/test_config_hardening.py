"""Run configs refuse dangerous or malformed YAML before any work, naming the file or the --set override."""
from __future__ import annotations

import os
import string
import time
from dataclasses import replace
from pathlib import Path
from typing import Union

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.neural.policy import Architecture
from ginenv.game.privileged import PRIVILEGED_SIZE
from train.training import config
from train.training.config import ConfigError, CriticConfig, EnvConfig, PPOConfig, RunConfig, load_config

LEVELS = [f"{name}: &{name} [" + ", ".join([f"*{below}"] * 10) + "]" for below, name in zip("abcdefghi", "bcdefghij")]
BILLION_LAUGHS = "\n".join(['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]', *LEVELS])
"""Half a KB of YAML expanding to 10**10 strings: each level holds ten aliases of the one below (90 in all)."""
LAUGHS_OVERRIDE = "eval.opponents=[" + ", ".join(line.split(": ", 1)[1] for line in BILLION_LAUGHS.splitlines()) + "]"
"""The same as one ``--set`` value."""
ALIASES = "[&a random, " + ", ".join(["*a"] * 101) + "]"
"""A short list with 101 aliases (and no expansion to speak of)."""
HUGE = ["env.num_envs=65536", "ppo.rollout_steps=100000"]
"""Rollouts of about 20.6 TiB."""

Source = Union[str, bytes, list]
"""A config file's text or bytes, or ``--set`` overrides (a list)."""


def _load(source: Source, tmp_path: Path) -> RunConfig:
    """The config ``source`` gives (a file is written to ``tmp_path``)."""
    if isinstance(source, list):
        return load_config(None, source)
    path = tmp_path / "config.yaml"
    path.write_bytes(source if isinstance(source, bytes) else source.encode("utf-8"))
    return load_config(path)


def _prefix(source: Source, tmp_path: Path) -> str:
    """What an error about ``source`` starts with: the file, or each override given."""
    if isinstance(source, list):
        return "--set " + ", --set ".join(source) + ": "
    return f"config file {str(tmp_path / 'config.yaml')!r}: "


def _refusal(source: Source, tmp_path: Path) -> str:
    """The message of the ConfigError ``source`` raises."""
    with pytest.raises(ConfigError) as info:
        _load(source, tmp_path)
    return str(info.value)


@pytest.mark.parametrize("source, fragment", [
    (BILLION_LAUGHS, "YAML aliases expand to more than 10000 values (line 4)"),
    (f"eval:\n  opponents: {ALIASES}\n", "more than 100 YAML aliases (line 2)"),
    ("eval: &e {opponents: [*e]}\n", "recursive YAML alias (line 1)"),
    ("name: a\nname: b\n", "duplicate key 'name' (line 2)"),
    ("ppo:\n  lr: 0.1\n  epochs: 2\n  lr: 0.2\n", "duplicate key 'lr' (line 4)"),
    ("league:\n  opponents:\n    self: 1\n    'self': 2\n", "duplicate key 'self' (line 4)"),
    ("ppo:\n  <<: {lr: 0.1, lr: 0.2}\n", "duplicate key 'lr' (line 2)"),
    (b"name: caf\xe9\n", "not valid UTF-8 (invalid continuation byte at byte 9)"),
    ("ppo: [1, 2\n", "not valid YAML"),
    ("[1, 2]\n", "must hold a mapping of sections, got list"),
    ("name: ..\n", "name: must be a folder name"),
    ("name: .\n", "name: must be a folder name"),
    ("name: .hidden\n", "name: must be a folder name"),
    ("name: a/b\n", "name: must be a folder name"),
    ("name: a\\b\n", "name: must be a folder name"),
    ("name: ''\n", "name: must be a folder name"),
    (f"name: {'a' * 256}\n", "name: must be a folder name"),
    ("ppo:\n  learning_rate: 0.1\n", "unknown config key(s) ['ppo.learning_rate']"),
    ("ppo:\n  1: 2\n", "unknown config key(s) ['ppo.1']"),
    ("ppo:\n  lr: -1\n", "ppo.lr: must be a number in (0, 1], got -1"),
    ("eval:\n  opponents: [random]\n  best_against: greedy\n", "eval.best_against: must be one of eval.opponents"),
    ("env:\n  num_envs: 65536\nppo:\n  rollout_steps: 100000\n",
     "env.num_envs (65536) x ppo.rollout_steps (100000): a rollout needs about 21069.9 GiB, more than this machine's"),
    ([LAUGHS_OVERRIDE], "eval.opponents: YAML aliases expand to more than 10000 values (line 1)"),
    ([f"eval.opponents={ALIASES}"], "eval.opponents: more than 100 YAML aliases (line 1)"),
    (["league.opponents={self: 1, self: 2}"], "league.opponents: duplicate key 'self' (line 1)"),
    (["name=.."], "name: must be a folder name"),
    (["name=."], "name: must be a folder name"),
    (["name=.x"], "name: must be a folder name"),
    (["name=a/b"], "name: must be a folder name"),
    (["ppo.lr=-1"], "ppo.lr: must be a number in (0, 1], got -1"),
    (["ppo.learning_rate=1"], "unknown config key(s) ['ppo.learning_rate']"),
    (["ppo"], "must be section.key=value"),
    (HUGE, "env.num_envs (65536) x ppo.rollout_steps (100000): a rollout needs about 21069.9 GiB"),
], ids=lambda value: repr(value)[:40])
def test_bad_configs_are_refused_naming_the_file_or_override(source: Source, fragment: str, tmp_path: Path) -> None:
    message = _refusal(source, tmp_path)
    assert message.startswith(_prefix(source, tmp_path)) and fragment in message


@pytest.mark.parametrize("source", [BILLION_LAUGHS, [LAUGHS_OVERRIDE]], ids=["file", "override"])
def test_a_billion_laughs_is_refused_at_once_without_expanding_it(source: Source, tmp_path: Path) -> None:
    start = time.monotonic()
    message = _refusal(source, tmp_path)
    assert time.monotonic() - start < 5  # a generous bound: it takes milliseconds
    assert len(message) < len(LAUGHS_OVERRIDE) + 200


@pytest.mark.parametrize("source", ["", "# only a comment\n", "\n  \n# a\n# b\n", "ppo:\n", "env: {}\n"])
def test_empty_files_and_sections_keep_the_defaults(source: str, tmp_path: Path) -> None:
    assert _load(source, tmp_path) == RunConfig()


def test_merge_keys_are_not_duplicates_and_an_empty_section_takes_overrides(tmp_path: Path) -> None:
    assert _load("ppo:\n  <<: {lr: 0.001, epochs: 2}\n  lr: 0.002\n", tmp_path).ppo.lr == 0.002
    path = tmp_path / "config.yaml"
    path.write_text("ppo:\n")
    assert load_config(path, ["ppo.epochs=3"]).ppo.epochs == 3


def test_errors_name_the_source_of_each_key_involved(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("ppo:\n  lr: -1\neval:\n  opponents: [random]\n")
    file = f"config file {str(path)!r}"
    assert load_config(path, ["ppo.lr=0.1", "eval.best_against=random"]).ppo.lr == 0.1  # the override wins
    with pytest.raises(ConfigError) as info:
        load_config(path, ["ppo.lr=0.1", "eval.best_against=greedy"])
    assert str(info.value).startswith(f"{file}, --set eval.best_against=greedy: eval.best_against:")
    with pytest.raises(ConfigError) as info:
        load_config(path, ["eval.best_against=random", "ppo={lr: -2}"])  # a whole section replaces the file's
    assert str(info.value).startswith("--set ppo={lr: -2}: ppo.lr: must be")


def test_memory_check_uses_the_physical_memory_where_known(monkeypatch: pytest.MonkeyPatch) -> None:
    need = config.rollout_bytes(RunConfig())
    monkeypatch.setattr(config, "_physical_memory", lambda: need)
    assert load_config(None) == RunConfig()
    monkeypatch.setattr(config, "_physical_memory", lambda: need - 1)
    with pytest.raises(ConfigError, match=r"env\.num_envs \(128\) x ppo\.rollout_steps \(64\)"):
        load_config(None)
    monkeypatch.setattr(config, "_physical_memory", lambda: None)
    assert load_config(None, HUGE).env.num_envs == 65536


def test_physical_memory_is_unknown_without_sysconf(monkeypatch: pytest.MonkeyPatch) -> None:
    assert config._physical_memory() > 0
    monkeypatch.setattr(os, "sysconf", lambda name: -1)
    assert config._physical_memory() is None
    monkeypatch.delattr(os, "sysconf")
    assert config._physical_memory() is None


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 65536), st.integers(2, 100_000), st.sampled_from(["cards", "mlp"]))
def test_rollout_bytes_grow_with_each_entry(num_envs: int, steps: int, kind: str) -> None:
    """Bytes are linear in the games, and the privileged critic adds its float32 vector to each entry."""
    cfg = RunConfig(env=EnvConfig(num_envs=num_envs), ppo=PPOConfig(rollout_steps=steps),
                    policy=Architecture(kind=kind))
    privileged, one = replace(cfg, critic=CriticConfig(kind="privileged")), replace(cfg, env=EnvConfig(num_envs=1))
    assert config.rollout_bytes(cfg) == num_envs * config.rollout_bytes(one)
    assert config.rollout_bytes(privileged) - config.rollout_bytes(cfg) == num_envs * steps * PRIVILEGED_SIZE * 4


NAME_CHARACTERS = string.ascii_letters + string.digits + "-_.éßΩ"


@settings(max_examples=50, deadline=None)
@given(first=st.sampled_from(NAME_CHARACTERS.replace(".", "")), rest=st.text(NAME_CHARACTERS, max_size=60))
def test_folder_names_round_trip_and_hidden_ones_are_refused(first: str, rest: str,
                                                             tmp_path_factory: pytest.TempPathFactory) -> None:
    """Any name of letters, digits, '-', '_' and '.' not starting with '.' loads as written; with a '.' in front
    it is refused."""
    path = tmp_path_factory.getbasetemp() / "name.yaml"
    path.write_text(yaml.safe_dump({"name": first + rest}))
    assert load_config(path).name == first + rest
    path.write_text(yaml.safe_dump({"name": "." + first + rest}))
    with pytest.raises(ConfigError, match="name: must be a folder name"):
        load_config(path)
