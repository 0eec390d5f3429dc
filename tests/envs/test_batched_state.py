"""Exact save/restore of a BatchedGinEnv (get_state / set_state), and of the HandState and
MatchState it is built from: plain data only, every later step bit-identical, mismatches refused."""
import io

import numpy as np
import pytest
from deals import random_legal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginenv import PRESETS
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game.hand import HandState
from ginenv.game.match import MatchState
from ginenv.game.result import HandResult

PLAIN = (dict, list, str, int, float, bool, type(None))


def _assert_plain(value, where="state"):
    """Only dicts (str keys), lists, strs, ints, floats, bools and None, all the way down."""
    assert isinstance(value, PLAIN), f"{where} is a {type(value).__name__}"
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), f"{where} has key {key!r}"
            _assert_plain(item, f"{where}[{key!r}]")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _assert_plain(item, f"{where}[{i}]")


def _play(venv, current, rng, steps):
    """Step with random legal actions from ``current`` = ``(obs, masks, to_act)`` on; returns
    every output of every step as comparable values (array dtypes and bytes, infos: compare
    with ``np.testing.assert_equal``, they hold arrays) and the
    new ``(obs, masks, to_act)``."""
    trace = []
    for _ in range(steps):
        outputs = venv.step(random_legal(rng, current[1]))
        current = outputs[:3]
        trace.append([(a.dtype.str, a.tobytes()) for a in outputs[:6]] + [outputs[6]])
    return trace, current


def _started(kwargs, seed, steps):
    """A BatchedGinEnv after ``steps`` random steps, and its ``(obs, masks, to_act)``."""
    venv = BatchedGinEnv(**kwargs, seed=seed)
    return venv, _play(venv, venv.reset(), np.random.default_rng(seed), steps)[1]


def _assert_same(got, want):
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


SETTINGS = st.fixed_dictionaries({
    "num_envs": st.integers(1, 5),
    "ruleset": st.sampled_from(sorted(PRESETS)),
    "episode": st.sampled_from(["hand", "game"]),
    "reward_mode": st.sampled_from(["points", "win_loss"]),
    "reward_scale": st.sampled_from([1.0, 0.01]),
    "target": st.sampled_from([25, 100]),
    "max_turns_per_hand": st.sampled_from([6, 200]),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kwargs=SETTINGS, seed=st.integers(0, 2**31 - 1), before=st.integers(0, 120), after=st.integers(1, 120))
def test_restored_env_steps_bit_identically(kwargs, seed, before, after):
    """Random play for ``before`` steps, save, ``after`` more steps on the original, then the
    same on a fresh env (another seed) restored from the state: the same outputs at every step."""
    original, current = _started(kwargs, seed, before)
    state = original.get_state()
    _assert_plain(state)
    expected, _ = _play(original, current, np.random.default_rng(seed + 1), after)  # the state is a copy
    restored = BatchedGinEnv(**kwargs, seed=seed + 7)
    restored_current = restored.set_state(state)
    _assert_same(restored_current, current)
    np.testing.assert_equal(_play(restored, restored_current, np.random.default_rng(seed + 1), after)[0], expected)
    assert restored.get_state() == original.get_state()


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_state_survives_torch_weights_only_load(episode):
    torch = pytest.importorskip("torch")
    kwargs = {"num_envs": 3, "episode": episode, "target": 30}
    original, current = _started(kwargs, seed=4, steps=90)
    buffer = io.BytesIO()
    torch.save({"env": original.get_state()}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)["env"]
    assert loaded == original.get_state()
    restored = BatchedGinEnv(**kwargs)
    restored_current = restored.set_state(loaded)
    expected, _ = _play(original, current, np.random.default_rng(0), 60)
    np.testing.assert_equal(_play(restored, restored_current, np.random.default_rng(0), 60)[0], expected)


def test_state_moves_between_worker_counts():
    kwargs = {"num_envs": 4, "episode": "game", "target": 30}
    original, current = _started(kwargs, seed=9, steps=50)
    with BatchedGinEnv(**kwargs, num_workers=2) as two:
        two_current = two.set_state(original.get_state())
        _assert_same(two_current, current)
        assert two.get_state() == original.get_state()
        expected, current = _play(original, current, np.random.default_rng(2), 80)
        trace, two_current = _play(two, two_current, np.random.default_rng(2), 80)
        np.testing.assert_equal(trace, expected)
        back = BatchedGinEnv(**kwargs)
        back_current = back.set_state(two.get_state())
        expected, _ = _play(two, two_current, np.random.default_rng(3), 40)
        np.testing.assert_equal(_play(back, back_current, np.random.default_rng(3), 40)[0], expected)


@pytest.mark.parametrize("other, name", [
    ({"num_envs": 3}, "num_envs"),
    ({"ruleset": "classic25"}, "ruleset.name"),
    ({"gin_bonus": 30}, "ruleset.gin_bonus"),
    ({"episode": "game"}, "episode"),
    ({"reward_mode": "win_loss"}, "reward_mode"),
    ({"reward_scale": 0.5}, "reward_scale"),
])
def test_state_from_other_settings_is_refused_naming_the_setting(other, name):
    state = _started({"num_envs": 2}, seed=1, steps=5)[0].get_state()
    venv = BatchedGinEnv(**{"num_envs": 2, **other})
    with pytest.raises(ValueError, match=f"saved with {name}=.*has {name}="):
        venv.set_state(state)


@pytest.mark.parametrize("state", [None, [], {"games": []}, {"settings": {}, "games": []}])
def test_malformed_state_is_a_value_error(state):
    with pytest.raises(ValueError):
        BatchedGinEnv(2).set_state(state)


def test_get_state_before_reset_is_refused():
    with pytest.raises(RuntimeError, match="reset"):
        BatchedGinEnv(2).get_state()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), ruleset=st.sampled_from(sorted(PRESETS)), steps=st.integers(0, 200))
def test_hand_state_round_trip(seed, ruleset, steps):
    """Any hand, finished ones too (the result is scored again from the row)."""
    rng = np.random.default_rng(seed)
    hand = HandState.random(rng, ruleset)
    for _ in range(steps):
        if hand.is_over:
            break
        actions = hand.legal_actions()
        hand.apply_action(actions[rng.integers(len(actions))])
    state = hand.to_state()
    _assert_plain(state)
    again = HandState.from_state(state)
    assert again == hand and again.row.tobytes() == hand.row.tobytes()


def test_hand_state_round_trip_from_a_position():
    hand = HandState.from_position(dealer=0, hands=[list(range(10)), list(range(10, 20))],
                                   stock=list(range(21, 52)), pile=[20], current_player=1, phase="draw")
    hand.apply_action(0)
    again = HandState.from_state(hand.to_state())
    assert again == hand and again.log() == hand.log()


def test_match_state_round_trip_keeps_the_played_hands_unless_told_not_to():
    rng = np.random.default_rng(5)
    match = MatchState(rng, "eaai")
    while len(match.hand_results) < 3:
        actions = match.legal_actions()
        match.apply_action(actions[-1] if actions[-1] > 2 else actions[0])
    state = match.to_state()
    _assert_plain(state)
    other_rng = np.random.default_rng()
    other_rng.bit_generator.state = rng.bit_generator.state
    again = MatchState.from_state(state, other_rng)
    assert (again.scores, again.hands_won, again.hand_logs) == (match.scores, match.hands_won, match.hand_logs)
    assert again.hand_results == match.hand_results and all(isinstance(r, HandResult) for r in again.hand_results)
    assert again.hand == match.hand and again.result == match.result
    brief = MatchState.from_state(match.to_state(history=False), rng)
    assert (brief.scores, brief.hands_won, brief.hand, brief.hand_results, brief.hand_logs) == (
        match.scores, match.hands_won, match.hand, [], [])
    while not match.is_over:  # later hands are dealt alike
        actions = match.legal_actions()
        action = actions[-1] if actions[-1] > 2 else actions[0]
        match.apply_action(action)
        again.apply_action(action)
        assert again.hand == match.hand
    assert again.result == match.result
