"""The shipped learned agent (`ppo` with no path: agents/weights/ppo.pt)."""
from __future__ import annotations

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


@pytest.mark.parametrize("ruleset", sorted(PRESETS))
def test_the_shipped_agent_plays_legally_in_every_ruleset(ruleset):
    # evaluate raises IllegalActionError on any illegal action; whole games cover game mode
    result = evaluate("ppo", "greedy", games=2, ruleset=ruleset, episode="game", seed=3, workers=1)
    assert result.games == 2 and result.hands > 0


def test_the_shipped_agent_beats_random_in_95_percent_of_hands():
    result = evaluate("ppo", "random", games=60, episode="hand", seed=11, workers=1)
    assert result.wins_a / result.games >= 0.95, result.results_dict()
