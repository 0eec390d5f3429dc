"""``ginenv.envs.gym_vector.GymVectorGinEnv``: a Gymnasium VectorEnv of learners against an opponent on
one batched engine — same games as the single-agent env, same-step autoreset, seeding,
illegal actions, argument checks; and the batched engine's ``active`` / ``restart``."""
from __future__ import annotations

import numpy as np
import pytest
from deals import random_legal
from gymnasium.vector import AutoresetMode
from hypothesis import given, settings
from hypothesis import strategies as st

from ginenv import IllegalActionError
from ginenv.envs.batched import BatchedGinEnv
from ginenv.envs.gym_vector import GymVectorGinEnv
from ginenv.envs.single_agent import SingleAgentGinEnv
from ginenv.game.hand import HandState


def trace(envs: GymVectorGinEnv, seed: int, steps: int) -> list:
    """Everything ``envs`` returns over ``steps`` random legal steps after ``reset(seed)``."""
    obs, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = [obs.tobytes(), infos["agent"].tolist()]
    for _ in range(steps):
        obs, rewards, terminated, truncated, infos = envs.step(random_legal(rng, envs.action_masks()))
        out += [obs.tobytes(), rewards.tolist(), terminated.tolist(), truncated.tolist(), infos["agent"].tolist(),
                repr(infos.get("final_info"))]
    return out


# ---------------------------------------------------------------------------------------
# Gymnasium VectorEnv API
def test_spaces_are_the_single_agent_envs_batched():
    envs, single = GymVectorGinEnv(3), SingleAgentGinEnv()
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.observation_space.shape == (3, *single.observation_space.shape)
    assert envs.action_space.nvec.tolist() == [108] * 3
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP


def test_every_step_returns_learner_turns_with_masks_in_the_infos():
    envs = GymVectorGinEnv(16, "greedy")
    obs, infos = envs.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(200):
        masks = envs.action_masks()
        assert masks.any(axis=1).all() and infos["_action_mask"].all()
        np.testing.assert_array_equal(infos["action_mask"], masks)
        assert envs.observation_space.contains(obs)
        obs, rewards, terminated, truncated, infos = envs.step(random_legal(rng, masks))
        assert rewards.dtype == np.float32 and terminated.dtype == truncated.dtype == np.bool_


def test_an_ended_episode_reports_its_result_in_final_info_and_the_next_one_starts_at_once():
    envs = GymVectorGinEnv(32, "simple", seat="player_1")
    envs.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(150):
        obs, rewards, terminated, truncated, infos = envs.step(random_legal(rng, envs.action_masks()))
        done = terminated | truncated
        np.testing.assert_array_equal(infos.get("_final_info", np.zeros(32, bool)), done)
        for i in np.flatnonzero(done):
            ended += 1
            final = {key: values[i] for key, values in infos["final_info"].items()
                     if not key.startswith("_") and key != "hand_summary"}
            result = final["hand_result"]
            assert final["agent"] == "player_1"
            sign = 0 if result["winner"] is None else (1 if result["winner"] == "player_1" else -1)
            assert rewards[i] == sign * result["points"]  # hand mode, points: the hand's signed points
            assert infos["final_info"]["hand_summary"]["points"][i] == result["points"]
        assert envs.action_masks()[done].any(axis=1).all()  # the next episode waits for its learner
    assert ended > 20


def test_info_lists_false_leaves_the_fixed_shape_summaries_alone():
    def ended_infos(info_lists):
        envs = GymVectorGinEnv(16, "simple", info_lists=info_lists)
        envs.reset(seed=3)
        rng = np.random.default_rng(3)
        while True:
            *_, terminated, truncated, infos = envs.step(random_legal(rng, envs.action_masks()))
            if (terminated | truncated).any():
                return infos["final_info"]

    assert {"hand_result", "hand_summary"} <= set(ended_infos(True))
    final = ended_infos(False)
    assert "hand_summary" in final and not {"hand_result", "game_result"} & set(final)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32), seat=st.sampled_from(["player_0", "player_1", "random"]),
       opponent=st.sampled_from(["random", "simple", "greedy"]))
def test_the_same_seed_gives_the_same_episodes(seed, seat, opponent):
    first, second = GymVectorGinEnv(4, opponent, seat=seat), GymVectorGinEnv(4, opponent, seat=seat)
    assert trace(first, seed, 40) == trace(second, seed, 40)


@pytest.mark.parametrize("seat", ["player_0", "player_1"])
def test_each_game_plays_as_the_single_agent_env_on_the_same_deals(seat):
    """Game i deals from the i-th child of SeedSequence(seed), one hand per episode; replaying
    those deals in SingleAgentGinEnv against the same deterministic opponent, with the same
    learner actions, gives the same observations, rewards and ends."""
    n, seed = 4, 9
    envs = GymVectorGinEnv(n, "greedy", seat=seat)
    obs, _ = envs.reset(seed=seed)
    rngs = [np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(n)]
    singles = [SingleAgentGinEnv("greedy", seat=seat) for _ in range(n)]

    def start(i):
        while True:  # a deal that ends before the learner's turn is skipped by both
            deal = HandState.random(rngs[i]).deal.to_dict()
            try:
                return singles[i].reset(options={"deal": deal})[0]
            except ValueError:
                continue

    expected = [start(i) for i in range(n)]
    action_rng = np.random.default_rng(0)
    for _ in range(120):
        np.testing.assert_array_equal(obs, np.stack(expected))
        actions = random_legal(action_rng, envs.action_masks())
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        for i, single in enumerate(singles):
            expected[i], reward, single_terminated, single_truncated, info = single.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (reward, single_terminated, single_truncated)
            if single_terminated or single_truncated:  # the last sight and the summary, as the single env's
                assert infos["_final_obs"][i] and infos["final_info"]["hand_summary"]["_points"][i]
                np.testing.assert_array_equal(infos["final_obs"][i], expected[i])
                for key, value in info["hand_summary"].items():
                    np.testing.assert_array_equal(infos["final_info"]["hand_summary"][key][i], value)
                expected[i] = start(i)


def test_an_agent_object_can_be_the_opponent_and_plays_as_its_batched_form():
    """An object with only ``act`` is asked once per decision, always on its own turn, and the
    games go exactly as with the same choice made through ``act_batch``."""
    class FirstLegal:
        def __init__(self):
            self.asked = 0

        def act(self, observation):
            assert observation["action_mask"].any(), "asked to act when it is not its turn"
            self.asked += 1
            return int(np.flatnonzero(observation["action_mask"])[0])

    class FirstLegalBatched:
        def act(self, observation):
            raise AssertionError("act_batch is used when present")

        def act_batch(self, observations, masks):
            return np.argmax(masks != 0, axis=1)

    def play(opponent):
        envs = GymVectorGinEnv(4, opponent, seat="player_1")
        rng = np.random.default_rng(0)
        obs, _ = envs.reset(seed=0)
        trace = [obs]
        for _ in range(40):
            obs, rewards, *_ = envs.step(random_legal(rng, envs.action_masks()))
            trace += [obs, rewards]
        return trace

    single = FirstLegal()
    for a, b in zip(play(single), play(FirstLegalBatched())):
        np.testing.assert_array_equal(a, b)
    assert single.asked >= 4  # seat player_1: the opponent opens every game


# ---------------------------------------------------------------------------------------
# illegal actions and bad arguments
def test_an_illegal_action_raises_naming_the_env_and_changes_nothing():
    envs = GymVectorGinEnv(3)
    envs.reset(seed=2)
    before = envs.games.get_state()
    actions = random_legal(np.random.default_rng(0), envs.action_masks())
    actions[1] = int(np.flatnonzero(~envs.action_masks()[1])[0])
    with pytest.raises(IllegalActionError, match="env 1: illegal action"):
        envs.step(actions)
    assert envs.games.get_state() == before


def test_terminate_mode_ends_only_the_offending_episode_with_the_illegal_reward():
    envs = GymVectorGinEnv(3, illegal_action="terminate", illegal_reward=-7.0)
    before, _ = envs.reset(seed=2)
    actions = random_legal(np.random.default_rng(0), envs.action_masks())
    actions[2] = 107 if not envs.action_masks()[2, 107] else 0
    obs, rewards, terminated, truncated, infos = envs.step(actions)
    assert terminated.tolist() == [False, False, True] and rewards[2] == -7.0
    assert infos["_final_obs"].tolist() == [False, False, True]
    np.testing.assert_array_equal(infos["final_obs"][2], before[2])  # the illegal action changed nothing
    assert infos["final_info"]["illegal_action"][2] == actions[2]
    assert "illegal action" in infos["final_info"]["illegal_reason"][2]
    assert int(envs.action_masks()[2].sum()) == 2  # dealt afresh: the upcard offer


@pytest.mark.parametrize("kwargs, error, match", [
    ({"seat": "north"}, ValueError, "seat must be one of"),
    ({"illegal_action": "ignore"}, ValueError, "illegal_action must be one of"),
    ({"render_mode": "ansi"}, ValueError, "render_mode must be None"),
    ({"render_mode": "rgb_array"}, TypeError, "render_mode must be None"),
    ({"observation": "rllib"}, ValueError, "observation must be 'vector'"),
    ({"info_lists": "no"}, ValueError, "info_lists must be True or False"),
    ({"opponent": 3}, TypeError, "opponent must be an agent spec"),
    ({"opponent": "nobody"}, ValueError, "unknown agent 'nobody'"),
    ({"num_envs": 0}, ValueError, "num_envs must be an int 1..100000"),
    ({"illegal_reward": float("nan")}, ValueError, "illegal_reward must be a finite number"),
])
def test_bad_arguments_are_refused_by_name(kwargs, error, match):
    with pytest.raises(error, match=match):
        GymVectorGinEnv(**{"num_envs": 2, **kwargs})


def test_bad_calls_are_refused_by_name():
    envs = GymVectorGinEnv(2)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step([0, 0])
    with pytest.raises(ValueError, match="options"):
        envs.reset(options={"seat": "player_0"})
    with pytest.raises(ValueError, match="seed must be an int"):
        envs.reset(seed=-1)
    envs.reset(seed=0)
    with pytest.raises(TypeError, match="actions must be integer"):
        envs.step([0.5, 1.0])
    with pytest.raises(ValueError, match=r"actions must have shape \(2,\)"):
        envs.step([1, 1, 1])


# ---------------------------------------------------------------------------------------
# the batched engine: moving some games only, restarting some
def test_inactive_games_stay_exactly_as_they_were():
    venv = BatchedGinEnv(4, seed=3)
    _, masks, _ = venv.reset()
    before = venv.get_state()["games"]
    active = np.array([True, False, True, False])
    obs, masks, to_act, rewards, *_ = venv.step(random_legal(np.random.default_rng(0), masks), active)
    after = venv.get_state()["games"]
    assert [after[i] == before[i] for i in range(4)] == [False, True, False, True]
    assert not rewards[~active].any()


def test_an_illegal_action_of_an_inactive_game_is_ignored_and_a_bad_active_refused():
    venv = BatchedGinEnv(2, seed=0)
    _, masks, _ = venv.reset()
    venv.step([int(np.flatnonzero(masks[0])[0]), 107], np.array([True, False]))
    with pytest.raises(ValueError, match="active must be a bool array"):
        venv.step([0, 0], [1, 0])


def test_restart_deals_the_named_games_afresh_and_refuses_bad_indices():
    venv = BatchedGinEnv(3, seed=0)
    _, masks, _ = venv.reset()
    venv.step(random_legal(np.random.default_rng(0), masks))
    before = venv.get_state()["games"]
    venv.restart([2])
    after = venv.get_state()["games"]
    assert after[:2] == before[:2] and after[2] != before[2]
    with pytest.raises(ValueError, match="games"):
        venv.restart([3])


def test_active_and_restart_give_the_same_results_with_worker_processes():
    def run(workers):
        with BatchedGinEnv(4, seed=6, num_workers=workers) as venv:
            _, masks, _ = venv.reset()
            rng, out = np.random.default_rng(2), []
            for t in range(30):
                result = venv.step(random_legal(rng, masks), rng.random(4) < 0.5)
                masks = result[1]
                if t % 10 == 9:
                    masks = venv.restart([t % 4])[1]
                out.append([array.tobytes() for array in result[:6]])
            return out

    assert run(1) == run(2)
