"""Batched acting: ``act_batch`` of ``random``, ``simple`` and ``greedy`` returns, row by row,
what ``act`` returns (the seeded agents drawing in the same order), and the module-level
:func:`agents.base.act_batch` falls back to ``act`` for agents without it."""
from __future__ import annotations

import numpy as np
import pytest
from test_recorded_choices import MASKS, OBSERVATIONS

from agents import make_agent
from agents.base import act_batch

SPECS = ["random", "simple", "greedy", "greedy:lookahead=false,take=lower"]


def per_row(spec: str, observations: np.ndarray, masks: np.ndarray) -> list[int]:
    agent = make_agent(spec, seed=3)
    return [agent.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks)]


@pytest.mark.parametrize("spec", SPECS)
def test_act_batch_is_act_row_by_row(spec: str) -> None:
    batch = make_agent(spec, seed=3).act_batch(OBSERVATIONS, MASKS)
    assert batch.dtype == np.int64 and batch.shape == (len(MASKS),)
    assert batch.tolist() == per_row(spec, OBSERVATIONS, MASKS)


@pytest.mark.parametrize("spec", SPECS)
def test_act_batch_of_a_few_rows_and_of_none(spec: str) -> None:
    rows = slice(100, 107)
    assert make_agent(spec, seed=3).act_batch(OBSERVATIONS[rows], MASKS[rows]).tolist() == \
        per_row(spec, OBSERVATIONS[rows], MASKS[rows])
    assert make_agent(spec, seed=3).act_batch(OBSERVATIONS[:0], MASKS[:0]).tolist() == []


def test_act_batch_falls_back_to_act() -> None:
    rows = slice(0, 40, 8)
    assert not hasattr(make_agent("montecarlo:samples=2"), "act_batch")
    actions = act_batch(make_agent("montecarlo:samples=2", seed=3), OBSERVATIONS[rows], MASKS[rows])
    assert actions.dtype == np.int64 and actions.tolist() == per_row("montecarlo:samples=2", OBSERVATIONS[rows],
                                                                      MASKS[rows])
    assert act_batch(make_agent("greedy"), OBSERVATIONS[rows], MASKS[rows]).tolist() == \
        per_row("greedy", OBSERVATIONS[rows], MASKS[rows])


@pytest.mark.parametrize("spec", SPECS)
def test_a_row_without_legal_actions_is_a_value_error(spec: str) -> None:
    masks = MASKS[:3].copy()
    masks[1] = 0
    with pytest.raises(ValueError, match="row 1"):
        make_agent(spec, seed=0).act_batch(OBSERVATIONS[:3], masks)
    with pytest.raises(ValueError):
        make_agent(spec, seed=0).act({"observation": OBSERVATIONS[1], "action_mask": masks[1]})
