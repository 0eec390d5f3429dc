"""The run config: YAML in, every key checked and documented, overrides by --set."""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
import yaml

from train.training.config import CHECKS, ConfigError, RunConfig, field_docs, load_config, to_dict

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").rglob("*.yaml"))


def _all_keys() -> set[str]:
    defaults = to_dict(RunConfig())
    return {f"{k}.{inner}" if isinstance(v, dict) and k != "league" or (k == "league" and inner != "") else k
            for k, v in defaults.items() for inner in (v if isinstance(v, dict) else [""])} - {""}


def test_every_key_has_a_check_and_a_docstring():
    keys = {key.rstrip(".") for key in _all_keys()}
    assert keys == set(CHECKS)
    docs = field_docs()
    missing = sorted(k for k in keys if not docs.get(k))
    assert not missing, f"undocumented config keys: {missing}"


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_load(path):
    cfg = load_config(path)
    raw = yaml.safe_load(path.read_text())
    assert cfg.name == raw["name"]


def test_overrides_are_read_as_yaml():
    cfg = load_config(None, ["ppo.lr=1e-4", "league.opponents={self: 1, greedy: 2}", "eval.opponents=[random]",
                             "eval.best_against=random", "clone.agent=simple", "ppo.target_kl=null"])
    assert cfg.ppo.lr == 1e-4 and cfg.league.opponents == {"self": 1, "greedy": 2}
    assert cfg.eval.opponents == ("random",) and cfg.clone.agent == "simple" and cfg.ppo.target_kl is None


@pytest.mark.parametrize("override, key", [
    ("ppo.lrr=1", "ppo.lrr"),
    ("nosuch.lr=1", "nosuch.lr"),
    ("ppo.lr=-1", "ppo.lr"),
    ("ppo.lr=.nan", "ppo.lr"),
    ("ppo.gamma=1.5", "ppo.gamma"),
    ("env.num_envs=0", "env.num_envs"),
    ("env.num_envs=2.5", "env.num_envs"),
    ("env.ruleset=hoyle", "env.ruleset"),
    ("env.episode=match", "env.episode"),
    ("ppo.anneal_lr=maybe", "ppo.anneal_lr"),
    ("policy.kind=transformer", "policy.kind"),
    ("league.opponents={self: 1, grandmaster: 1}", "league.opponents"),
    ("league.opponents={self: -1}", "league.opponents"),
    ("eval.opponents=[random, nobody]", "eval.opponents"),
    ("eval.best_against=greedy", "eval.best_against"),
    ("clone.agent=nobody", "clone.agent"),
    ("name=a/b", "name"),
    ("seed=-3", "seed"),
])
def test_bad_keys_and_values_name_the_key(override, key):
    extra = ["eval.opponents=[random]", "eval.best_against=random"] if key == "eval.best_against" else []
    with pytest.raises(ConfigError, match=key.replace(".", r"\.").replace("[", r"\[")):
        load_config(None, extra + [override])


def test_unknown_key_in_a_yaml_file_names_it(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nppo:\n  learning_rate: 0.1\n")
    with pytest.raises(ConfigError, match="ppo.learning_rate"):
        load_config(path)


def test_missing_or_malformed_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    (tmp_path / "bad.yaml").write_text("ppo: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(tmp_path / "bad.yaml")


def test_saved_config_reloads_to_the_same_config(tmp_path):
    cfg = load_config(None, ["ppo.lr=2e-4", "league.opponents={self: 1, random: 1}"])
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(to_dict(cfg)))
    assert load_config(path) == cfg


def test_config_sections_are_the_documented_ones():
    assert [f.name for f in fields(RunConfig)][-9:] == ["env", "policy", "ppo", "league", "critic", "shaping",
                                                         "clone", "eval", "rollout"]
