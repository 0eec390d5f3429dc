"""The batched API: same engine and encoder as the AEC env, auto-reset, zero-sum, worker-count independent."""
import numpy as np
import pytest
from deals import random_legal

import ginenv
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game.hand import HandState


def test_batched_observations_equal_the_aec_env_for_the_same_deal():
    """Game i of the batched env shuffles with the i-th child seed; replaying its deal in the
    AEC env with the same actions gives the same observation and mask at every decision."""
    n, seed = 3, 17
    venv = BatchedGinEnv(n, seed=seed, final_observations=True)
    obs, masks, to_act = venv.reset()
    rngs = [np.random.default_rng(c) for c in np.random.SeedSequence(seed).spawn(n)]
    deals = [HandState.random(r).deal.to_dict() for r in rngs]
    envs = []
    for deal in deals:
        env = ginenv.env()
        env.reset(options={"deal": deal})
        envs.append(env)
    rng = np.random.default_rng(0)
    live = [True] * n
    for _ in range(60):
        for i, env in enumerate(envs):
            if not live[i]:
                continue
            agent = env.agent_selection
            assert agent == f"player_{to_act[i]}"
            view = env.observe(agent)
            np.testing.assert_array_equal(view["observation"], obs[i])
            np.testing.assert_array_equal(view["action_mask"], masks[i])
        actions = random_legal(rng, masks)
        for i, env in enumerate(envs):
            if live[i]:
                env.step(int(actions[i]))
                live[i] = not any(env.terminations.values()) and not any(env.truncations.values())
        obs, masks, to_act, rewards, terminated, truncated, infos = venv.step(actions)
        for i in range(n):
            if terminated[i] or truncated[i]:
                assert not live[i]
                assert infos[i]["hand_result"] == envs[i].infos["player_0"]["hand_result"]
                np.testing.assert_equal(infos[i]["hand_summary"], envs[i].infos["player_0"]["hand_summary"])
                for seat, agent in enumerate(envs[i].possible_agents):  # the episode's last sight, both seats
                    np.testing.assert_array_equal(infos[i]["final_observation"][seat],
                                                  envs[i].observe(agent)["observation"])
                assert rewards[i, 0] == envs[i].rewards["player_0"]
        if not any(live):
            break


def test_final_observations_come_only_when_asked_for_and_only_at_an_episodes_end():
    for finals in (False, True):
        venv = BatchedGinEnv(4, episode="game", seed=2, final_observations=finals)
        _, masks, _ = venv.reset()
        rng, ends = np.random.default_rng(0), 0
        while ends < 3:
            *_, masks, _, _, terminated, truncated, infos = venv.step(random_legal(rng, masks))
            for i, info in enumerate(infos):
                if info:  # a hand ended; the game (the episode) may go on
                    assert ("final_observation" in info) == (finals and bool(terminated[i] or truncated[i]))
                    ends += bool(terminated[i] or truncated[i])
    with pytest.raises(ValueError, match="final_observations"):
        BatchedGinEnv(2, final_observations="yes")


@pytest.mark.parametrize("workers", [1, 2])
def test_summaries_can_be_left_out_and_nothing_else_changes(workers):
    """``summaries=False``: the same games and ``hand_result``/``game_result``, without the
    fixed-shape ``hand_summary``/``game_summary``."""
    def run(summaries):
        with BatchedGinEnv(4, episode="game", seed=5, num_workers=workers, summaries=summaries) as venv:
            _, masks, _ = venv.reset()
            rng, trace = np.random.default_rng(1), []
            for _ in range(300):
                obs, masks, _, rewards, _, _, infos = venv.step(random_legal(rng, masks))
                trace.append((obs, rewards, infos))
        return trace

    with_them, without = run(True), run(False)
    ended = 0
    for (obs_a, rewards_a, infos_a), (obs_b, rewards_b, infos_b) in zip(with_them, without):
        assert np.array_equal(obs_a, obs_b) and np.array_equal(rewards_a, rewards_b)
        for a, b in zip(infos_a, infos_b):
            assert {k: v for k, v in a.items() if not k.endswith("_summary")} == b
            assert ("hand_summary" in a) == bool(a) and not any(k.endswith("_summary") for k in b)
            ended += bool(a)
    assert ended > 0
    with pytest.raises(ValueError, match="summaries"):
        BatchedGinEnv(2, summaries=1)


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_results_do_not_depend_on_the_worker_count(episode):
    def run(workers):
        trace = []
        with BatchedGinEnv(6, seed=5, episode=episode, num_workers=workers, target=30, final_observations=True) as venv:
            _, masks, _ = venv.reset()
            rng = np.random.default_rng(1)
            for _ in range(150):
                obs, masks, to_act, rewards, terminated, truncated, infos = venv.step(random_legal(rng, masks))
                trace.append((obs.tobytes(), masks.tobytes(), rewards.tobytes(), terminated.tobytes(), infos))
        return trace

    trace = run(1)
    assert episode == "game" or any("final_observation" in info for *_, infos in trace for info in infos)
    np.testing.assert_equal(run(2), trace)  # infos hold arrays: compared item by item


def test_rewards_are_zero_sum_and_finished_games_reset_at_once():
    venv = BatchedGinEnv(8, seed=2, reward_scale=0.5)
    _, masks, _ = venv.reset()
    rng = np.random.default_rng(3)
    finished = 0
    for _ in range(400):
        obs, masks, to_act, rewards, terminated, truncated, infos = venv.step(random_legal(rng, masks))
        np.testing.assert_array_equal(rewards[:, 0], -rewards[:, 1])
        for i in np.flatnonzero(terminated | truncated):
            finished += 1
            result = infos[i]["hand_result"]
            expected = 0 if result["winner"] is None else 0.5 * result["points"]
            assert abs(rewards[i]).max() == expected
            assert masks[i].sum() == 2 and obs[i][ginenv.game.encoding.SLICES["stock_size"]][0] == 1.0  # a fresh offer
    assert finished > 0


def test_invalid_arguments_are_value_errors():
    with pytest.raises(ValueError, match="num_envs"):
        BatchedGinEnv(0)
    with pytest.raises(ValueError, match="episode"):
        BatchedGinEnv(2, episode="set")
    with pytest.raises(ValueError, match="num_workers"):
        BatchedGinEnv(2, num_workers=3)
    venv = BatchedGinEnv(2, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match="shape"):
        venv.step([0])
    with pytest.raises(ginenv.IllegalActionError):
        venv.step([0, 0])  # the opening offer allows only take (1) or pass (2)
