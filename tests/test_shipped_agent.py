"""The shipped learned agent (`ppo` with no path: agents/weights/ppo.pt)."""
from __future__ import annotations

from pathlib import Path

import pytest

from agents import make_agent
from agents.neural import DEFAULT_CHECKPOINT, read_checkpoint
from ginenv import PRESETS
from train.evaluate import evaluate


def test_the_shipped_checkpoint_is_small_policy_only_data():
    data = read_checkpoint(DEFAULT_CHECKPOINT)
    assert sorted(data) == ["format", "model", "policy"]
    assert DEFAULT_CHECKPOINT.stat().st_size < 5_000_000
    assert make_agent("ppo").name == "ppo"


def test_the_shipped_checkpoint_is_the_last_training_stages_committed_policy():
    # README "Strength of the learned agent": the four stages end in models/pagat_dagger3_ppo3/final.pt
    last_stage = Path(__file__).resolve().parents[1] / "models" / "pagat_dagger3_ppo3" / "final.pt"
    assert DEFAULT_CHECKPOINT.read_bytes() == last_stage.read_bytes()


@pytest.mark.parametrize("ruleset", sorted(PRESETS))
def test_the_shipped_agent_plays_legally_in_every_ruleset(ruleset):
    # evaluate raises IllegalActionError on any illegal action; whole games cover game mode
    result = evaluate("ppo", "greedy", games=2, ruleset=ruleset, episode="game", seed=3, workers=1)
    assert result.games == 2 and result.hands > 0


def test_the_shipped_agent_beats_random_in_95_percent_of_hands():
    result = evaluate("ppo", "random", games=60, episode="hand", seed=11, workers=1)
    assert result.wins_a / result.games >= 0.95, result.results_dict()
