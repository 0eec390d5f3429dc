"""The shipped learned agent (`ppo` with no path: agents/weights/ppo.pt)."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from agents import make_agent
from agents.neural.policy import DEFAULT_CHECKPOINT, read_checkpoint
from ginenv import PRESETS
from train.evaluation.evaluate import evaluate
from train.training.clone import Recording, chunk_path
from train.training.config import load_config

ROOT = Path(__file__).resolve().parents[2]


def checksums(folder: str) -> dict[str, str]:
    """``models/FOLDER/SHA256SUMS`` (``sha256sum``'s format) as {path: digest}."""
    lines = (ROOT / "models" / folder / "SHA256SUMS").read_text().splitlines()
    return {path: digest for digest, path in (line.split("  ", 1) for line in lines)}


def test_the_shipped_checkpoint_is_small_policy_only_data():
    data = read_checkpoint(DEFAULT_CHECKPOINT)
    assert sorted(data) == ["format", "model", "model_sha256", "policy"]
    assert DEFAULT_CHECKPOINT.stat().st_size < 5_000_000
    assert make_agent("ppo").name == "ppo"


def test_the_committed_recipe_files_match_their_recorded_checksums():
    """models/ppo/SHA256SUMS ties the shipped weights (and every file its recipe needs) to the recipe:
    the shipped policy is what configs/ppo/5_ppo_games.yaml trained (its run's final.pt)."""
    sums = checksums("ppo")
    assert sums["agents/weights/ppo.pt"] == sums["models/ppo/5_ppo_games/final.pt"]
    for path, digest in sums.items():
        assert hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == digest, path
    assert (ROOT / "agents" / "weights" / "ppo.pt").resolve() == DEFAULT_CHECKPOINT.resolve()


def test_the_recipes_first_stage_finds_every_recording_it_replays():
    """Stage 1 replays committed recordings (hours of montecarlo labels): each recording it asks for
    is in its cache folder with every chunk, so rerunning the recipe records nothing anew."""
    cfg = load_config(ROOT / "configs" / "ppo" / "1_clone.yaml")
    recordings = [Recording.of(cfg)] + [Recording.of(cfg, i) for i in range(len(cfg.clone.rounds))]
    for rec in recordings:
        folder = ROOT / cfg.clone.cache / rec.key()
        assert [chunk_path(folder, k).is_file() for k in range(rec.chunks)] == [True] * rec.chunks, folder


@pytest.mark.parametrize("ruleset", sorted(PRESETS))
def test_the_shipped_agent_plays_legally_in_every_ruleset(ruleset):
    # evaluate raises IllegalActionError on any illegal action; whole games cover game mode
    result = evaluate("ppo", "greedy", games=2, ruleset=ruleset, episode="game", seed=3, workers=1)
    assert result.games == 2 and result.hands > 0


def test_the_shipped_agent_beats_random_in_95_percent_of_hands():
    result = evaluate("ppo", "random", games=60, episode="hand", seed=11, workers=1)
    assert result.wins_a / result.games >= 0.95, result.results_dict()


def test_the_shipped_selfplay_policy_is_observation_only_and_tied_to_its_run():
    """`selfplay` (agents/weights/selfplay.pt) holds the policy alone, none of the privileged critic's
    weights, and is a policy the committed from-scratch runs wrote (another file of the same digest in
    models/selfplay/SHA256SUMS, which holds that digest)."""
    from agents.neural.policy import SELFPLAY_CHECKPOINT, Architecture, PolicyNet

    data = read_checkpoint(SELFPLAY_CHECKPOINT)
    assert sorted(data) == ["format", "model", "model_sha256", "policy"]
    assert set(data["model"]) == set(PolicyNet(Architecture(**data["policy"])).state_dict())
    assert SELFPLAY_CHECKPOINT.stat().st_size < 5_000_000
    sums = checksums("selfplay")
    shipped = sums["agents/weights/selfplay.pt"]
    assert hashlib.sha256(SELFPLAY_CHECKPOINT.read_bytes()).hexdigest() == shipped
    sources = [path for path, digest in sums.items() if digest == shipped and path.startswith("models/selfplay/")]
    assert sources and all(hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == shipped for path in sources)
    agent = make_agent("selfplay")
    assert agent.name == "selfplay"
    result = evaluate("selfplay", "random", games=40, episode="hand", seed=11, workers=1)
    assert result.wins_a / result.games >= 0.9, result.results_dict()


def test_the_shipped_eaai_policy_is_its_recipes_policy_and_plays_under_eaai():
    """`ppo` under `eaai` plays agents/weights/ppo_eaai.pt, the policy configs/ppo_eaai/3_exploiter.yaml trained
    (models/ppo_eaai/SHA256SUMS: the same digest as the run's final.pt), policy-only data."""
    from agents.neural.policy import EAAI_CHECKPOINT, SHIPPED_POLICIES, shipped_checkpoint

    assert shipped_checkpoint("eaai") == EAAI_CHECKPOINT == SHIPPED_POLICIES["eaai"]
    assert shipped_checkpoint("pagat") == DEFAULT_CHECKPOINT
    sums = checksums("ppo_eaai")
    digest = hashlib.sha256(EAAI_CHECKPOINT.read_bytes()).hexdigest()
    assert sums["agents/weights/ppo_eaai.pt"] == sums["models/ppo_eaai/3_exploiter/final.pt"] == digest
    assert hashlib.sha256((ROOT / "models/ppo_eaai/3_exploiter/final.pt").read_bytes()).hexdigest() == digest
    assert sorted(read_checkpoint(EAAI_CHECKPOINT)) == ["format", "model", "model_sha256", "policy"]
    assert EAAI_CHECKPOINT.stat().st_size < 5_000_000
    result = evaluate("ppo", "random", games=40, ruleset="eaai", episode="hand", seed=11, workers=1)
    assert result.wins_a / result.games >= 0.9, result.results_dict()
