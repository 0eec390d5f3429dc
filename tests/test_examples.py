"""Each script in examples/ trains for a few thousand steps (or fewer) and prints its summary line.

The scripts run in a subprocess with this interpreter.  SB3 and the CleanRL-style script need
only the dev extra and run by default; the heavy libraries (``pip install -e '.[examples]'``)
are ``slow`` (``pytest -m slow tests/test_examples.py``) and skipped where not installed.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ONE_THREAD = {**os.environ, "OMP_NUM_THREADS": "1"}
"""The scripts' environment: one torch thread, since their networks and batches are small and extra
threads only contend on a busy machine."""


def missing(*modules: str) -> bool:
    """Whether any of these top-level modules is not installed."""
    return any(importlib.util.find_spec(module) is None for module in modules)


def run_example(script: str, *args: str, timeout: float = 600) -> str:
    """Run ``examples/script`` with ``args``; its last output line."""
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *args], cwd=EXAMPLES.parent,
                          env=ONE_THREAD, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{script} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout.strip().splitlines()[-1]


SUMMARY = re.compile(r"(?P<library>.+): (?P<steps>\d+) training steps; vs random over (?P<games>\d+) hands: "
                     r"win rate (?P<rate>[\d.]+), points/hand (?P<points>[+-][\d.]+)$")


def check_summary(line: str, library: str, steps: int) -> None:
    """``line`` is ``library``'s summary after at least ``steps`` training steps, of 20 evaluation hands
    (pass ``--games 20``) that its trained policy played to the end against ``random`` on an env that
    raises on any illegal action: the win rate is a count of 20 hands (a dead hand is half) and the
    points per hand lie within what a hand can score."""
    found = SUMMARY.match(line)
    assert found and found["library"] == library, line
    assert int(found["steps"]) >= steps and int(found["games"]) == 20, line
    rate, points = float(found["rate"]), float(found["points"])
    assert 0 <= rate <= 1 and abs(rate * 40 - round(rate * 40)) < 0.05, line  # halves of 1/20
    assert abs(points) <= 100, line


@pytest.mark.skipif(missing("sb3_contrib"), reason="needs sb3-contrib: pip install -e '.[dev]'")
def test_sb3_maskable_ppo() -> None:
    line = run_example("sb3_maskable_ppo.py", "--steps", "2048", "--num-envs", "8", "--games", "20")
    check_summary(line, "sb3-contrib MaskablePPO", 2048)


def test_cleanrl_ppo() -> None:
    line = run_example("cleanrl_ppo.py", "--steps", "2048", "--num-envs", "8", "--rollout", "32", "--games", "20")
    check_summary(line, "CleanRL-style PPO", 2048)


@pytest.mark.slow
@pytest.mark.skipif(missing("ray", "tree"), reason="needs ray[rllib]: pip install -e '.[examples]'")
def test_rllib_ppo() -> None:
    check_summary(run_example("rllib_ppo.py", "--steps", "1000", "--batch", "500", "--games", "20"), "RLlib PPO", 1000)


@pytest.mark.slow
@pytest.mark.skipif(missing("tianshou"), reason="needs tianshou: pip install -e '.[examples]'")
def test_tianshou_dqn() -> None:
    line = run_example("tianshou_dqn.py", "--steps", "1000", "--num-envs", "4", "--games", "20")
    check_summary(line, "Tianshou DQN", 1000)


@pytest.mark.slow
@pytest.mark.skipif(missing("agilerl", "peft"), reason="needs agilerl (and peft, which it imports): "
                                                      "pip install -e '.[examples]'")
@pytest.mark.parametrize("script, algorithm, steps", [("agilerl_maddpg.py", "MADDPG", 1000),
                                                      ("agilerl_ippo.py", "IPPO", 1024)])
def test_agilerl(script: str, algorithm: str, steps: int) -> None:
    check_summary(run_example(script, "--steps", str(steps), "--num-envs", "2", "--games", "20"),
                  f"AgileRL {algorithm}", steps)


@pytest.mark.skipif(missing("supersuit"), reason="needs supersuit: pip install -e '.[examples]'")
def test_supersuit_vector() -> None:
    line = run_example("supersuit_vector.py", "--steps", "2000", "--games", "2")
    assert line.startswith("SuperSuit: 2000 vector steps of 4 seat slots, observations (4, 2150)"), line
    found = re.search(r", (\d+) seat-episodes ended, mean final reward ([+-][\d.]+) ", line)
    assert found, line
    ended, mean = int(found[1]), float(found[2])
    assert ended > 0 and ended % 2 == 0 and mean == 0, line  # both seats end each game, with opposite rewards
