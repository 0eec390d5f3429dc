"""The single-agent wrapper ``ginenv.envs.single_agent.SingleAgentGinEnv``: Gymnasium API compliance,
opponents, seats, rewards equal to the AEC env's, and MaskablePPO on it."""
from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from ginenv import IllegalActionError, raw_env
from ginenv.envs.single_agent import SingleAgentGinEnv
from ginenv.game.actions import KNOCK_BASE, NUM_ACTIONS, TAKE_DISCARD
from ginenv.game.cards import parse_card

# Warnings of check_env that say nothing about the env: one built directly has no registered spec, so its
# alternative render modes go untested.
pytestmark = [pytest.mark.filterwarnings("ignore:.*maximum value is infinity"),
              pytest.mark.filterwarnings("ignore:.*No render fps was declared"),
              pytest.mark.filterwarnings("ignore:.*Not able to test alternative render modes")]


def first_legal(observation) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


def random_learner(seed: int):
    rng = np.random.default_rng(seed)
    return lambda env: int(rng.choice(np.flatnonzero(env.action_masks())))


class ActOpponent:
    """An object with the agents protocol: ``act(observation) -> int``."""

    def __init__(self) -> None:
        self.calls = self.resets = 0

    def act(self, observation) -> int:
        self.calls += 1
        return first_legal(observation)

    def reset(self) -> None:
        self.resets += 1


# ---------------------------------------------------------------------------------------
# Gymnasium API
@pytest.mark.parametrize("episode", ["hand", "game"])
@pytest.mark.parametrize("seat", ["player_0", "player_1", "random"])
def test_check_env_passes(episode, seat):
    # check_env steps arbitrary elements of action_space (most are illegal in any given
    # state), so it needs illegal_action="terminate"; the default mode raises instead.
    env = SingleAgentGinEnv(seat=seat, episode=episode, illegal_action="terminate", render_mode="ansi")
    check_env(env)


def test_check_env_cannot_pass_in_raise_mode():
    env = SingleAgentGinEnv(seat="player_0")
    env.action_space.seed(0)
    with pytest.raises(IllegalActionError):
        check_env(env, skip_render_check=True)


def test_spaces_and_masks():
    env = SingleAgentGinEnv()
    aec = raw_env()
    assert env.observation_space == aec.observation_space("player_0")["observation"]
    assert env.action_space.n == NUM_ACTIONS
    obs, info = env.reset(seed=3)
    assert obs in env.observation_space
    mask = env.action_masks()
    assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,) and mask.any()
    assert env.aec.agent_selection == info["agent"]
    np.testing.assert_array_equal(mask, env.aec.observe(info["agent"])["action_mask"].astype(bool))


def test_returned_observations_are_fresh_arrays():
    env = SingleAgentGinEnv(seat="player_1")
    policy = random_learner(0)
    seen = [env.reset(seed=5)[0]]
    for _ in range(6):
        obs, _, terminated, truncated, _ = env.step(policy(env))
        seen.append(obs)
        if terminated or truncated:
            break
    for i, a in enumerate(seen):
        for b in seen[i + 1:]:
            assert not np.shares_memory(a, b)


def test_illegal_action_raises_and_leaves_state_unchanged():
    env = SingleAgentGinEnv(seat="player_0")
    obs, _ = env.reset(seed=11)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    np.testing.assert_array_equal(env.action_masks(), mask)
    np.testing.assert_array_equal(env.aec.observe("player_0")["observation"], obs)
    env.step(int(np.flatnonzero(mask)[0]))  # the episode goes on


def test_illegal_action_terminate_mode():
    env = SingleAgentGinEnv(seat="player_0", illegal_action="terminate", illegal_reward=-5)
    env.reset(seed=11)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-5.0, True, False)
    assert info["illegal_action"] == illegal and "illegal action" in info["illegal_reason"]
    with pytest.raises(RuntimeError):
        env.step(0)


def test_constructor_validates_arguments():
    with pytest.raises(ValueError):
        SingleAgentGinEnv(seat="north")
    with pytest.raises(ValueError):
        SingleAgentGinEnv(illegal_action="ignore")
    with pytest.raises(ValueError):
        SingleAgentGinEnv(ruleset="no-such-ruleset")
    with pytest.raises(TypeError):
        SingleAgentGinEnv(opponent=42)
    with pytest.raises(ValueError, match="observation must be one of"):
        SingleAgentGinEnv(observation="dict")
    with pytest.raises(TypeError, match="render_mode must be None, 'ansi' or 'human'"):
        SingleAgentGinEnv(render_mode="rgb_array")
    with pytest.raises(ValueError):
        SingleAgentGinEnv().reset(seed=0, options={"seat": "south"})


def test_rule_overrides_and_render_pass_through():
    env = SingleAgentGinEnv(ruleset="classic25", gin_bonus=31, render_mode="ansi")
    assert env.aec.ruleset.gin_bonus == 31
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and text == env.aec.render()
    assert SingleAgentGinEnv().render() is None


# ---------------------------------------------------------------------------------------
# Opponents and seats
def test_opponent_as_callable_and_as_act_object_play_the_same():
    calls = []

    def callable_opponent(observation):
        assert set(observation) == {"observation", "action_mask"}
        assert observation["action_mask"].any()  # only asked when it is its turn
        calls.append(1)
        return first_legal(observation)

    act_opponent = ActOpponent()
    runs = []
    for opponent in (callable_opponent, act_opponent):
        env = SingleAgentGinEnv(opponent, seat="player_1")
        policy = random_learner(7)
        obs, _ = env.reset(seed=4)
        trace = [obs]
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(policy(env))
            trace.append((obs, reward))
            done = terminated or truncated
        runs.append(trace)
    assert calls and act_opponent.calls == len(calls)
    assert len(runs[0]) == len(runs[1])
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    for (obs_a, rew_a), (obs_b, rew_b) in zip(runs[0][1:], runs[1][1:]):
        np.testing.assert_array_equal(obs_a, obs_b)
        assert rew_a == rew_b


def test_opponent_reset_is_called_at_the_start_of_every_hand():
    opponent = ActOpponent()
    env = SingleAgentGinEnv(opponent, seat="player_0", episode="game")
    env.reset(seed=3)
    policy = random_learner(3)
    hands, done = 0, False
    while not done:
        _, _, terminated, truncated, info = env.step(policy(env))
        hands += len(info.get("hand_results", []))
        done = terminated or truncated
    assert hands >= 2 and opponent.resets == hands  # at reset, then after every hand but the last


def test_agents_package_agent_as_opponent():
    agents = pytest.importorskip("agents")

    def run():
        env = SingleAgentGinEnv(agents.RandomAgent(seed=5), seat="random")
        policy, total = random_learner(5), []
        for seed in range(3):
            env.reset(seed=seed)
            done = False
            while not done:
                _, reward, terminated, truncated, _ = env.step(policy(env))
                total.append(reward)
                done = terminated or truncated
        return total

    assert run() == run()


def test_fixed_seat_is_kept():
    for seat in ("player_0", "player_1"):
        env = SingleAgentGinEnv(seat=seat)
        for seed in range(5):
            _, info = env.reset(seed=seed)
            assert info["agent"] == env.agent == seat == env.aec.agent_selection


def test_options_seat_fixes_one_episode():
    env = SingleAgentGinEnv(seat="random")
    assert {env.reset(seed=s, options={"seat": "player_1"})[1]["agent"] for s in range(8)} == {"player_1"}


def test_random_seat_varies_with_seed_and_is_reproducible():
    def seats_and_obs(seeds):
        env = SingleAgentGinEnv(seat="random")
        out = []
        for seed in seeds:
            obs, info = env.reset(seed=seed)
            out.append((info["agent"], obs))
        return out

    first, again = seats_and_obs(range(24)), seats_and_obs(range(24))
    assert {seat for seat, _ in first} == {"player_0", "player_1"}
    for (seat_a, obs_a), (seat_b, obs_b) in zip(first, again):
        assert seat_a == seat_b
        np.testing.assert_array_equal(obs_a, obs_b)
    # unseeded resets after a seeded one continue reproducibly too
    env_a, env_b = SingleAgentGinEnv(), SingleAgentGinEnv()
    env_a.reset(seed=99), env_b.reset(seed=99)
    assert [env_a.reset()[1]["agent"] for _ in range(10)] == [env_b.reset()[1]["agent"] for _ in range(10)]


def test_seed_gives_the_aec_env_deal():
    aec = raw_env()
    aec.reset(seed=21)
    first = aec.agent_selection  # the non-dealer: it acts before any opponent move
    env = SingleAgentGinEnv(seat=first)
    obs, _ = env.reset(seed=21)
    np.testing.assert_array_equal(obs, aec.observe(first)["observation"])
    assert env.aec.hand.hand_cards(0) == aec.hand.hand_cards(0)


# ---------------------------------------------------------------------------------------
# Rewards: the wrapper's rewards are the AEC env's, replayed action by action
@pytest.mark.parametrize("episode,reward_mode,reward_scale", [
    ("hand", "points", 1.0), ("hand", "win_loss", 1.0), ("game", "points", 0.01), ("game", "win_loss", 1.0)])
def test_rewards_match_the_aec_env(episode, reward_mode, reward_scale):
    kwargs = dict(episode=episode, reward_mode=reward_mode, reward_scale=reward_scale)
    log: list[tuple[str, int]] = []
    opponent_rng = np.random.default_rng(1)

    def opponent(observation):
        action = int(opponent_rng.choice(np.flatnonzero(observation["action_mask"])))
        log.append(("opponent", action))
        return action

    env = SingleAgentGinEnv(opponent, seat="random", **kwargs)
    policy = random_learner(2)
    compared = 0
    for seed in range(6 if episode == "hand" else 2):
        log.clear()
        _, info = env.reset(seed=seed)
        if info["skipped_episodes"]:
            continue  # re-dealt: not a plain replay of reset(seed)
        learner = info["agent"]
        spans, rewards, done, last_info = [len(log)], [], False, info
        while not done:
            action = policy(env)
            log.append(("learner", action))
            _, reward, terminated, truncated, last_info = env.step(action)
            spans.append(len(log))
            rewards.append(reward)
            done = terminated or truncated

        aec = raw_env(**kwargs)
        aec.reset(seed=seed)
        step_rewards = []
        for who, action in log:
            assert (aec.agent_selection == learner) == (who == "learner")
            aec.step(action)
            step_rewards.append(aec.rewards[learner])
        assert aec.terminations[learner] or aec.truncations[learner]
        pre_reset = sum(step_rewards[:spans[0]])
        expected = [sum(step_rewards[a:b]) for a, b in zip(spans[:-1], spans[1:])]
        expected[0] += pre_reset
        assert rewards == pytest.approx(expected)
        assert sum(rewards) == pytest.approx(sum(step_rewards))
        if episode == "game":
            game = last_info["game_result"]
            seat = int(learner[-1])
            if reward_mode == "points":
                margin = game["final_scores"][seat] - game["final_scores"][1 - seat]
                assert sum(rewards) == pytest.approx(reward_scale * margin)
            else:
                assert sum(rewards) == (1 if game["winner"] == learner else -1)
        else:
            assert "hand_result" in last_info
        compared += 1
    assert compared >= 2


def gin_on_first_turn_deal():
    """player_1 (non-dealer, the opponent) holds AC-TC, takes the upcard JC and goes gin by
    knocking with AC face down (2C-JC is a 10-card run) before player_0 has a turn."""
    opp = [parse_card(t) for t in "AC 2C 3C 4C 5C 6C 7C 8C 9C TC".split()]
    learner = [parse_card(t) for t in "AD 3D 5D 7D 9D JD KD 2H 4H 6H".split()]
    upcard = parse_card("JC")
    stock = [c for c in range(52) if c not in set(opp + learner + [upcard])]
    return {"dealer": 0, "hands": [learner, opp], "upcard": upcard, "stock": stock}


def gin_opponent(observation):
    mask = observation["action_mask"]
    knock_ac = KNOCK_BASE + parse_card("AC")
    if mask[knock_ac]:
        return knock_ac
    if mask[TAKE_DISCARD]:
        return TAKE_DISCARD
    return first_legal(observation)


def test_hand_ended_before_the_learners_first_turn():
    deal = gin_on_first_turn_deal()
    # hand mode: nothing left to play with that deal
    with pytest.raises(ValueError, match="before player_0 has a turn"):
        SingleAgentGinEnv(gin_opponent, seat="player_0").reset(seed=0, options={"deal": deal})
    # game mode: the hand is reported at reset and its reward arrives with the first step
    env = SingleAgentGinEnv(gin_opponent, seat="player_0", episode="game")
    _, info = env.reset(seed=0, options={"deal": deal})
    result = info["hand_result"]
    assert result["outcome"] == "gin" and result["winner"] == "player_1"
    assert info["hand_results"] == [result]
    assert env.action_masks().any() and env.aec.agent_selection == "player_0"
    _, reward, _, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert reward <= -result["points"] < 0


def knock_at_once_opponent(observation):
    """Takes the upcard and knocks whenever it can."""
    legal = np.flatnonzero(observation["action_mask"])
    knocks = legal[legal >= KNOCK_BASE]
    if knocks.size:
        return int(knocks[0])
    return TAKE_DISCARD if observation["action_mask"][TAKE_DISCARD] else int(legal[0])


def test_episode_over_before_first_turn_is_redealt_reproducibly():
    env = SingleAgentGinEnv(knock_at_once_opponent, seat="player_0")
    for seed in range(2000):
        obs, info = env.reset(seed=seed)
        assert env.action_masks().any() and env.aec.agent_selection == "player_0"
        if info["skipped_episodes"]:
            break
    else:
        pytest.fail("no seed needed a re-deal")
    again, info_again = SingleAgentGinEnv(knock_at_once_opponent, seat="player_0").reset(seed=seed)
    assert info_again["skipped_episodes"] == info["skipped_episodes"]
    np.testing.assert_array_equal(again, obs)


# ---------------------------------------------------------------------------------------
# MaskablePPO
def test_maskable_ppo_runs_a_few_thousand_steps():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    env = SingleAgentGinEnv(seat="random", reward_scale=0.01)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: extra threads only contend (10x slower on 2 cores)
    try:
        model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0,
                                        device="cpu", verbose=0)
        model.learn(total_timesteps=2048)
    finally:
        torch.set_num_threads(threads)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=0)
    for _ in range(20):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert env.action_masks()[int(action)]
        obs, _, terminated, truncated, _ = env.step(int(action))
        if terminated or truncated:
            obs, _ = env.reset()
