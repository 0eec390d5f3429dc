"""Training the opponent model (:mod:`train.training.belief`, ``ginrummy belief``).

* The labels are the opponent's true hand at each recorded decision, and the even guess recorded
  beside them is right about every card it is sure of.
* A model fitted on recorded self-play guesses the held-out positions' hands better than the even
  guess of a uniform deal (a learning test: the figure the searches' priors stand for).
* The command writes a file that ``rollout:belief=PATH`` loads.
"""
from __future__ import annotations

import numpy as np
import torch

from agents import make_agent
from agents.neural.belief import BeliefNet, load_belief
from train.cli import main
from train.training.belief import fit, record


def test_labels_are_ten_cards_and_the_even_guess_is_right_where_it_is_sure() -> None:
    data = record(None, positions=2000, num_envs=16, seed=1, progress_bar=False)
    assert (data.labels.sum(axis=1) == 10).all()
    assert data.labels[data.even == 0].max() == 0 and data.labels[data.even == 1].min() == 1
    assert np.isclose(data.even.astype(np.float64).sum(axis=1), 10, atol=0.05).all()


def test_a_fitted_model_beats_the_even_guess_on_held_out_positions() -> None:
    data = record(None, positions=20_000, num_envs=256, seed=2, progress_bar=False)
    figures = fit(BeliefNet(hidden=128), data, epochs=3, seed=0, progress_bar=False)
    assert figures["held_out_loss"] < figures["even_loss"] - 0.01 < figures["blind_loss"], figures


def test_the_belief_command_writes_a_file_rollout_loads(tmp_path, capsys) -> None:
    out = tmp_path / "belief.pt"
    assert main(["belief", "--out", str(out), "--positions", "1000", "--epochs", "1", "--hidden", "16", "--most-likely",
                 "--no-progress"]) == 0
    assert "held-out loss" in capsys.readouterr().out
    assert load_belief(out).hidden == 16
    assert torch.load(out, weights_only=True)["notes"]["sample"] is False  # --most-likely was recorded
    assert make_agent(f"rollout:samples=2,belief={out}", seed=0).belief is not None
    assert main(["belief", "--out", str(tmp_path)]) == 2  # a folder is no file
