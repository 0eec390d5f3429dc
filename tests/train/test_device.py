"""The ``device`` setting: where the network trains and plays (tested on the CPU; CUDA cases run where
a GPU is present)."""
from __future__ import annotations

import pytest
import torch

from agents import make_agent
from agents.neural.policy import device_problem, read_checkpoint, resolve_device
from train.training.config import ConfigError, load_config
from train.training.ppo import train

TINY = ["env.num_envs=8", "ppo.rollout_steps=12", "ppo.total_steps=400", "policy.hidden=16", "policy.card_dim=4",
        "league.opponents={self: 1, snapshot: 1, random: 1}", "league.snapshot_every=2", "critic.kind=privileged",
        "critic.hidden=16", "clone.agent=random", "clone.decisions=200", "clone.epochs=1", "eval.every=0",
        "eval.games=2", "eval.episode=hand", "eval.opponents=[random]", "eval.best_against=random", "threads=1"]
NO_CUDA = pytest.mark.skipif(torch.cuda.is_available(), reason="checks the refusal on a machine without CUDA")


def test_auto_is_the_cpu_here_and_trains_exactly_as_cpu(tmp_path):
    if torch.cuda.is_available() or torch.backends.mps.is_available():
        pytest.skip("auto picks the accelerator on this machine")
    assert resolve_device("auto") == torch.device("cpu")
    runs = [train(load_config(None, [*TINY, f"device={d}", f"name={d}"]), out=tmp_path, progress_bar=False)
            for d in ("cpu", "auto")]
    a, b = (read_checkpoint(run / "final.pt")["model"] for run in runs)
    assert all(torch.equal(a[k], b[k]) for k in a)


@NO_CUDA
@pytest.mark.parametrize("name", ["cuda", "cuda:0", "cuda:3"])
def test_asking_for_cuda_without_it_is_a_config_error(name):
    with pytest.raises(ConfigError, match=f"device: this machine's torch sees no CUDA device.*got '{name}'"):
        load_config(None, [f"device={name}"])
    with pytest.raises(ValueError, match="ppo: device"):
        make_agent(f"ppo:device={name}")


@pytest.mark.parametrize("name", ["gpu", "CUDA", "cuda:x", "", 0])
def test_unknown_device_names_are_refused(name):
    assert device_problem(name) == "must be one of auto, cpu, cuda, cuda:N, mps"
    with pytest.raises(ConfigError, match="device: must be one of"):
        load_config(None, [f"device={name!r}" if isinstance(name, str) else f"device={name}"])


def test_the_neural_agent_plays_on_the_cpu_device_like_the_default():
    import numpy as np

    import ginenv

    env = ginenv.env()
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    assert make_agent("ppo:device=cpu").act(obs) == make_agent("ppo").act(obs)
    assert np.array_equal(make_agent("ppo:device=auto").act_batch(obs["observation"][None], obs["action_mask"][None]),
                          make_agent("ppo").act_batch(obs["observation"][None], obs["action_mask"][None]))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_run_trains_and_plays_on_cuda(tmp_path):
    run = train(load_config(None, [*TINY, "device=cuda", "name=gpu"]), out=tmp_path, progress_bar=False)
    assert make_agent(f"ppo:path={run / 'final.pt'},device=cuda").net.trunk[0].weight.is_cuda
