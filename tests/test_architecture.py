"""The layout is the architecture: imports run down the layers and never in a circle.

Every import statement counts, those inside functions too, so a circle cannot hide in a lazy import.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ginenv", "agents", "train")

LOWER_LAYERS_ONLY = {
    "ginenv": ("ginenv",),
    "ginenv.game": ("ginenv.game",),
    "ginenv.seeding": (),
    "ginenv.envs": ("ginenv.game", "ginenv.seeding", "ginenv.envs"),
    "agents": ("ginenv", "agents"),
    "train.cluster": (),
    "train.play": ("ginenv", "agents", "train.play"),
    "train.evaluation": ("ginenv", "agents", "train.cluster", "train.evaluation", "train.play.replay"),
    "train.training": ("ginenv", "agents", "train.cluster", "train.evaluation", "train.training"),
}
"""A module under each key may import project modules only under the prefixes listed."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def resolve(name: str) -> str:
    """The project module an imported name refers to (``a.b.c`` for ``from a.b import c`` when c is one)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def imports_of(module: str) -> set[str]:
    """The project modules ``module`` imports anywhere in its body (package ``__init__`` parents excluded)."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {resolve(name) for name in names if name.split(".")[0] in PACKAGES}
    return found - {"", module}


GRAPH = {module: imports_of(module) for module in MODULES}


def test_the_three_packages_are_found():
    assert {"ginenv.game.hand", "ginenv.envs.aec", "agents.base", "train.training.ppo", "train.cli"} <= set(GRAPH)


@pytest.mark.parametrize("layer", sorted(LOWER_LAYERS_ONLY))
def test_a_layer_imports_only_from_below(layer):
    allowed = LOWER_LAYERS_ONLY[layer]
    offending = {module: sorted(target for target in targets if not target.startswith(allowed))
                 for module, targets in GRAPH.items() if module == layer or module.startswith(layer + ".")}
    assert {module: targets for module, targets in offending.items() if targets} == {}


def test_no_import_circle():
    """A depth-first search over the whole graph finds no back edge (the first circle found is shown)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        stack.append(module)
        for target in sorted(GRAPH.get(module, ())):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state and (circle := visit(target)):
                return circle
        stack.pop()
        state[module] = 2
        return []

    circles = [circle for module in sorted(GRAPH) if module not in state and (circle := visit(module))]
    assert circles == []


def test_ginenv_plays_on_its_own_without_any_agent_package():
    """With no agent factory installed, the Gymnasium ids and the vector env still run (``random``
    is built in), a named opponent is a clear error, and nothing of agents or train was imported."""
    code = """
import sys
import gymnasium
import numpy as np
import ginenv.envs.opponents as opponents
opponents.entry_points = lambda group: []
import ginenv
env = gymnasium.make("GinRummy-v1")
env.reset(seed=0)
env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
envs = ginenv.GymVectorGinEnv(4)
envs.reset(seed=0)
envs.step(np.argmax(envs.action_masks(), axis=1))
try:
    ginenv.SingleAgentGinEnv("greedy")
except ValueError as err:
    assert "agent package" in str(err), err
else:
    raise AssertionError("a named opponent without an agent factory was accepted")
assert not [m for m in sys.modules if m.split(".")[0] in ("agents", "train")], sorted(sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
