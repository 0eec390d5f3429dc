"""AgileRL MADDPG on ``gin_rummy_v1.parallel_env``, masks read from ``info``.

Shows: AgileRL's multi-agent path as it is meant to be used — a PettingZoo ``ParallelEnv`` in
AgileRL's ``AsyncPettingZooVecEnv``, one ``MADDPG`` agent (an actor per seat, centralised
critics) and ``train_multi_agent_off_policy`` (a population of one, no evolution).  AgileRL
reads the legal actions from ``info["action_mask"]`` (which ginenv puts in every info) and
refuses observations that hold a mask, so ``observation="vector"`` hands it the observation
vector alone.  The parallel env is turn-based: the waiting seat's action is ignored and its
mask is all zero, so its transitions carry no decision (AgileRL still stores them).  Rewards
are ``win_loss``.  ``player_0``'s actor is then played against ``random`` (in either seat).

AgileRL 2.58's IPPO needs one of its methods replaced: its ``extract_action_masks`` tests
``None in masks`` on a list of numpy masks, which raises for any mask longer than one entry
(``agilerl_ippo.py`` shows the fix).

Run (about a minute)::

    pip install -e '.[examples]'          # agilerl
    python examples/agilerl_maddpg.py --steps 4000
"""
from __future__ import annotations

import argparse

from agilerl.algorithms import MADDPG
from agilerl.components.replay_buffer import ReplayBuffer
from agilerl.training.train_multi_agent_off_policy import train_multi_agent_off_policy
from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv
from common import agilerl_policy, report

from ginenv import gin_rummy_v1


def make_env() -> gin_rummy_v1.parallel_env:
    return gin_rummy_v1.parallel_env(observation="vector", info_lists=False, reward_mode="win_loss")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4_000, help="environment steps to train for")
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--games", type=int, default=200, help="evaluation hands against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = AsyncPettingZooVecEnv([make_env for _ in range(args.num_envs)])
    env.reset(seed=args.seed)
    agent_ids = list(env.possible_agents)
    agent = MADDPG(observation_spaces=[env.single_observation_space(a) for a in agent_ids],
                   action_spaces=[env.single_action_space(a) for a in agent_ids], agent_ids=agent_ids,
                   net_config={"encoder_config": {"hidden_size": [128]}}, batch_size=64,
                   vect_noise_dim=args.num_envs)
    [agent], _ = train_multi_agent_off_policy(env, "gin_rummy_v1", "MADDPG", [agent], ReplayBuffer(20_000),
                                              sum_scores=False, max_steps=args.steps, evo_steps=args.steps,
                                              eval_loop=1, verbose=False)
    env.close()
    agent.set_training_mode(False)

    print(report("AgileRL MADDPG", agilerl_policy(agent), agent.steps, games=args.games, seed=args.seed))


if __name__ == "__main__":
    main()
