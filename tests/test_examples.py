"""Each script in examples/ trains for a few thousand steps (or fewer) and prints its summary line.

The scripts run in a subprocess with this interpreter.  SB3 and the CleanRL-style script need
only the dev extra and run by default; the heavy libraries (``pip install -e '.[examples]'``)
are ``slow`` (``pytest -m slow tests/test_examples.py``) and skipped where not installed.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ONE_THREAD = {**os.environ, "OMP_NUM_THREADS": "1"}
"""The scripts' environment: their networks and batches are small, and torch's thread pool on a
busy machine made a layer 50x slower (0.16 ms -> 8 ms with 2 threads on 2 loaded cores)."""


def missing(*modules: str) -> bool:
    """Whether any of these top-level modules is not installed."""
    return any(importlib.util.find_spec(module) is None for module in modules)


def run_example(script: str, *args: str, timeout: float = 600) -> str:
    """Run ``examples/script`` with ``args``; its last output line."""
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *args], cwd=EXAMPLES.parent,
                          env=ONE_THREAD, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{script} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout.strip().splitlines()[-1]


def check_summary(line: str, library: str) -> None:
    """``line`` is ``library``'s summary of 20 evaluation hands (pass ``--games 20``)."""
    assert line.startswith(f"{library}: ") and "vs random over 20 hands: win rate" in line, line


@pytest.mark.skipif(missing("sb3_contrib"), reason="needs sb3-contrib: pip install -e '.[dev]'")
def test_sb3_maskable_ppo() -> None:
    line = run_example("sb3_maskable_ppo.py", "--steps", "2048", "--num-envs", "8", "--games", "20")
    check_summary(line, "sb3-contrib MaskablePPO")


def test_cleanrl_ppo() -> None:
    line = run_example("cleanrl_ppo.py", "--steps", "2048", "--num-envs", "8", "--rollout", "32", "--games", "20")
    check_summary(line, "CleanRL-style PPO")


@pytest.mark.slow
@pytest.mark.skipif(missing("ray", "tree"), reason="needs ray[rllib]: pip install -e '.[examples]'")
def test_rllib_ppo() -> None:
    check_summary(run_example("rllib_ppo.py", "--steps", "1000", "--batch", "500", "--games", "20"), "RLlib PPO")


@pytest.mark.slow
@pytest.mark.skipif(missing("tianshou"), reason="needs tianshou: pip install -e '.[examples]'")
def test_tianshou_dqn() -> None:
    line = run_example("tianshou_dqn.py", "--steps", "1000", "--num-envs", "4", "--games", "20")
    check_summary(line, "Tianshou DQN")


@pytest.mark.slow
@pytest.mark.skipif(missing("agilerl", "peft"), reason="needs agilerl (and peft, which it imports): "
                                                      "pip install -e '.[examples]'")
def test_agilerl_maddpg() -> None:
    check_summary(run_example("agilerl_maddpg.py", "--steps", "1000", "--num-envs", "2", "--games", "20"),
                  "AgileRL MADDPG")


@pytest.mark.skipif(missing("supersuit"), reason="needs supersuit: pip install -e '.[examples]'")
def test_supersuit_vector() -> None:
    line = run_example("supersuit_vector.py", "--steps", "2000", "--games", "2")
    assert line.startswith("SuperSuit: 2000 vector steps of 4 seat slots, observations (4, 2150)"), line
