"""The agents choose exactly the recorded choices: ``greedy`` (several parameter sets), ``simple``
(seeded by the decision's index) and ``montecarlo`` on every recorded observation of
``tests/data/recorded_choices.npz`` (see ``recorded_choices.py``)."""
from __future__ import annotations

import numpy as np
import pytest
from recorded_choices import GREEDY_SPECS, load

from agents import make_agent

OBSERVATIONS, MASKS, ACTIONS, RULESETS, EPISODES = load()


def _mismatches(spec: str, choose) -> list[int]:
    expected = ACTIONS[spec]
    return [i for i in range(len(expected)) if expected[i] >= 0 and choose(i) != expected[i]]


def _observation(i: int) -> dict[str, np.ndarray]:
    return {"observation": OBSERVATIONS[i], "action_mask": MASKS[i]}


def test_the_recording_is_varied() -> None:
    assert len(MASKS) > 5000 and set(RULESETS) == {"pagat", "classic25", "oklahoma", "eaai"}
    assert set(EPISODES) == {"hand", "game"}


@pytest.mark.parametrize("spec", GREEDY_SPECS)
def test_greedy_chooses_as_recorded(spec: str) -> None:
    agent = make_agent(spec)
    assert _mismatches(spec, lambda i: agent.act(_observation(i))) == []


def test_simple_chooses_as_recorded() -> None:
    assert _mismatches("simple", lambda i: make_agent("simple", seed=i).act(_observation(i))) == []


def test_montecarlo_chooses_as_recorded() -> None:
    """montecarlo reads the game's ruleset from the observation."""
    spec = "montecarlo:samples=8"
    assert _mismatches(spec, lambda i: make_agent(spec, seed=i).act(_observation(i))) == []
