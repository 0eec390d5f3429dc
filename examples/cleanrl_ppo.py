"""CleanRL-style single-file PPO with action masking on ``GymVectorGinEnv`` (pure torch).

Shows: the whole algorithm in one file, the CleanRL way — rollouts from a Gymnasium vector env
(``gymnasium.make_vec("GinRummy-v1", num_envs=N)``: N one-hand games against ``--opponent``,
batched on one engine), masked categorical actions (illegal logits set to -1e8, the mask from
``infos["action_mask"]``), GAE and the clipped PPO update.  The env resets in the same step
(the next hand's first observation comes with ``terminated``), so a done step's value target
is its reward alone.  Rewards are ``win_loss`` (+1/-1 a hand).  CleanRL's own env construction,
a ``SyncVectorEnv`` of ``RecordEpisodeStatistics(gymnasium.make("GinRummy-v1"))``, works as well
(next-step autoreset, the mask in the same ``infos["action_mask"]``).

Run (about a minute)::

    pip install -e .
    python examples/cleanrl_ppo.py --steps 10240
"""
from __future__ import annotations

import argparse

import gymnasium
import numpy as np
import torch
from common import report
from torch import nn
from torch.distributions import Categorical

import ginenv  # noqa: F401  (registers the GinRummy-* ids)


class Agent(nn.Module):
    """Separate actor and critic MLPs; the actor's logits are masked to the legal actions."""

    def __init__(self, observations: int, actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(observations, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.actor = nn.Sequential(nn.Linear(observations, hidden), nn.Tanh(), nn.Linear(hidden, actions))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def distribution(self, obs: torch.Tensor, mask: torch.Tensor) -> Categorical:
        return Categorical(logits=self.actor(obs).masked_fill(~mask, -1e8))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_240, help="environment steps to train for")
    parser.add_argument("--num-envs", type=int, default=32)
    parser.add_argument("--rollout", type=int, default=64, help="steps per env between updates")
    parser.add_argument("--opponent", default="random", help="an agents.make_agent spec")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--games", type=int, default=200, help="evaluation hands against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)

    envs = gymnasium.make_vec("GinRummy-v1", num_envs=args.num_envs, opponent=args.opponent, reward_mode="win_loss")
    n, t = args.num_envs, args.rollout
    agent = Agent(envs.single_observation_space.shape[0], int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    obs_buf = torch.zeros((t, n, envs.single_observation_space.shape[0]))
    mask_buf = torch.zeros((t, n, int(envs.single_action_space.n)), dtype=torch.bool)
    actions, logprobs, rewards, dones, values = (torch.zeros((t, n)) for _ in range(5))

    obs_np, infos = envs.reset(seed=args.seed)
    obs, mask = torch.from_numpy(obs_np), torch.from_numpy(infos["action_mask"])
    step = 0
    while step < args.steps:
        for i in range(t):
            obs_buf[i], mask_buf[i] = obs, mask
            with torch.no_grad():
                dist = agent.distribution(obs, mask)
                action = dist.sample()
                values[i] = agent.value(obs)
            actions[i], logprobs[i] = action, dist.log_prob(action)
            obs_np, reward, terminated, truncated, infos = envs.step(action.numpy())
            rewards[i], dones[i] = torch.from_numpy(reward), torch.from_numpy(terminated | truncated).float()
            obs, mask = torch.from_numpy(obs_np), torch.from_numpy(infos["action_mask"])
        step += t * n

        # GAE: dones[i] means step i ended its episode (same-step autoreset), so no bootstrap past it.
        with torch.no_grad():
            next_value = agent.value(obs)
        advantages = torch.zeros((t, n))
        last = torch.zeros(n)
        for i in reversed(range(t)):
            following = next_value if i == t - 1 else values[i + 1]
            carry = 1.0 - dones[i]
            delta = rewards[i] + args.gamma * following * carry - values[i]
            last = delta + args.gamma * args.gae_lambda * carry * last
            advantages[i] = last
        returns = advantages + values

        b_obs, b_mask = obs_buf.reshape(t * n, -1), mask_buf.reshape(t * n, -1)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        for _ in range(args.epochs):
            for batch in torch.randperm(t * n).chunk(args.minibatches):
                dist = agent.distribution(b_obs[batch], b_mask[batch])
                ratio = (dist.log_prob(b_actions[batch]) - b_logprobs[batch]).exp()
                adv = b_advantages[batch]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - args.clip, 1 + args.clip) * adv).mean()
                value_loss = 0.5 * (agent.value(b_obs[batch]) - b_returns[batch]).pow(2).mean()
                loss = policy_loss + 0.5 * value_loss - args.entropy * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
    envs.close()

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = agent.distribution(torch.from_numpy(observations), torch.from_numpy(masks)).logits
        return logits.argmax(-1).numpy()

    print(report("CleanRL-style PPO", policy, step, games=args.games, seed=args.seed))


if __name__ == "__main__":
    main()
