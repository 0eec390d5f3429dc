"""Seeded fuzz of the batched env: random hands in every ruleset and episode mode,
with illegal actions mixed in.  After every step: each game's 52 cards are all in place once,
each mask is exactly the hand's legal actions, rewards are zero-sum and agree with the
hand's result; an illegal action raises and changes no game.  One short run repeats this
with numba's bounds checks compiled into every kernel (a debug build in a fresh cache)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ginenv import PRESETS, IllegalActionError
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game.actions import NUM_ACTIONS

GAMES, STEPS, BAD_RATE = 16, 1000, 0.1
OUTCOMES = {"knock", "gin", "big_gin", "undercut", "dead"}


def _check_games(venv: BatchedGinEnv, masks: np.ndarray) -> None:
    """Card conservation and masks equal to the legal actions, for every game."""
    for i, episode in enumerate(venv._batch._episodes):
        hand = episode.hand
        cards = hand.hand_cards(0) + hand.hand_cards(1) + hand.stock + hand.pile
        assert sorted(cards) == list(range(52)), f"game {i}: cards lost or doubled"
        assert np.flatnonzero(masks[i]).tolist() == hand.legal_actions(), f"game {i}: mask is not the legal actions"


def _check_rewards(rewards: np.ndarray, infos: list, episode: str) -> None:
    """Zero-sum rewards; in hand mode the winner gets the hand's points."""
    np.testing.assert_array_equal(rewards[:, 0], -rewards[:, 1])
    for i, info in enumerate(infos):
        if not info:
            assert not rewards[i].any(), f"game {i}: a reward without a finished hand"
            continue
        result = info["hand_result"]
        assert result["outcome"] in OUTCOMES and result["points"] >= 0
        if result["winner"] is None:
            assert result["points"] == 0
        elif episode == "hand":
            assert rewards[i, int(result["winner"][-1])] == result["points"]


def _bad_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    """An illegal id for this mask, or one outside 0..107."""
    illegal = np.flatnonzero(mask == 0)
    return int(rng.choice(illegal)) if rng.random() < 0.7 else int(rng.choice([-1, NUM_ACTIONS, 10**6]))


@pytest.mark.parametrize("episode", ["hand", "game"])
@pytest.mark.parametrize("ruleset", sorted(PRESETS))
def test_fuzz_batched_env_keeps_its_invariants(ruleset, episode):
    _fuzz(ruleset, episode, GAMES, STEPS)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", sorted(PRESETS))
def test_fuzz_long_run(ruleset):
    """Over 100,000 hands across the four rulesets (``pytest -m slow``)."""
    _fuzz(ruleset, "hand", 64, 25_000)


def _fuzz(ruleset: str, episode: str, games: int, steps: int) -> None:
    """Play ``steps`` batched steps of ``games`` games, checking every invariant after each."""
    rng = np.random.default_rng([sorted(PRESETS).index(ruleset), len(episode), games])
    venv = BatchedGinEnv(games, ruleset=ruleset, episode=episode, seed=11)
    _, masks, _ = venv.reset()
    ended = 0
    for _ in range(steps):
        _check_games(venv, masks)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)
        if rng.random() < BAD_RATE:
            bad, game = actions.copy(), rng.integers(games)
            bad[game] = _bad_action(rng, masks[game])
            rows = venv._batch._rows.copy()
            with pytest.raises(IllegalActionError, match=f"game {game}"):
                venv.step(bad)
            np.testing.assert_array_equal(venv._batch._rows, rows)
        _, masks, _, rewards, _, _, infos = venv.step(actions)
        _check_rewards(rewards, infos, episode)
        ended += sum(1 for info in infos if info)
    assert ended > games


def test_fuzz_with_bounds_checked_kernels(tmp_path):
    """A kernel indexing outside an array raises instead of reading or writing memory."""
    code = ("import test_batched_fuzz as fuzz; "
            "fuzz._fuzz('oklahoma', 'game', 4, 400); fuzz._fuzz('classic25', 'hand', 4, 400)")
    path = [str(Path(__file__).parent), str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join(path)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
