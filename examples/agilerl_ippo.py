"""AgileRL IPPO on ``gin_rummy_v1.parallel_env``, masks read from ``info``, with one method fixed.

Shows: AgileRL's on-policy multi-agent path — a PettingZoo ``ParallelEnv`` in AgileRL's
``AsyncPettingZooVecEnv``, one ``IPPO`` agent (the seats ``player_0`` and ``player_1`` share one
actor and critic: AgileRL groups agents by the name before ``_``) and
``train_multi_agent_on_policy`` (a population of one, no evolution).  ``observation="vector"``
hands AgileRL the vector alone (it refuses observations that hold a mask); the legal moves come
from ``info["action_mask"]``, which ginenv puts in every info.

AgileRL 2.58's ``IPPO.extract_action_masks`` cannot read numpy masks, whatever the env: it tests
``None in group_masks`` on a list of arrays, which asks numpy for the truth value of an
element-wise comparison and raises ``ValueError`` for any mask longer than one entry (and
AgileRL's vector envs always stack the infos' masks into arrays).  :class:`MaskedIPPO` replaces
that one method: the same stacking, with the test for missing masks made per mask.  Nothing
else changes; the env raises on any illegal action (``illegal_action="raise"``), so a run that
finishes played legal moves only.  ``player_0``'s policy is then played against ``random``
(in either seat).

Run (about a minute)::

    pip install -e '.[examples]'          # agilerl
    python examples/agilerl_ippo.py --steps 4096
"""
from __future__ import annotations

import argparse
from typing import Any, Optional

import numpy as np
import torch
from agilerl.algorithms import IPPO
from agilerl.training.train_multi_agent_on_policy import train_multi_agent_on_policy
from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv
from common import agilerl_policy, report

from ginenv import gin_rummy_v1


class MaskedIPPO(IPPO):
    """AgileRL's ``IPPO`` with ``extract_action_masks`` able to read numpy masks (see the module doc)."""

    def extract_action_masks(self, infos: dict[str, Any]) -> dict[str, Optional[torch.Tensor]]:
        """Each agent group's masks from ``infos``, stacked in agent order (``None`` where no agent
        of the group has one; a group with some masks missing is an error, as in AgileRL)."""
        grouped: dict[str, list] = {group: [] for group in self.observation_space}
        for agent_id, info in infos.items():
            if isinstance(info, dict):
                group = self.get_group_id(agent_id) if self.has_grouped_agents() else agent_id
                grouped[group].append(info.get("action_mask"))
        masks: dict[str, Optional[torch.Tensor]] = {}
        for group, found in grouped.items():
            missing = [mask is None for mask in found]
            if any(missing) and not all(missing):
                raise ValueError(f"agent group {group!r}: some agents' infos hold an action_mask, others not")
            masks[group] = None if not found or all(missing) else torch.Tensor(np.array(found))
        return masks


def make_env() -> gin_rummy_v1.parallel_env:
    return gin_rummy_v1.parallel_env(observation="vector", info_lists=False, reward_mode="win_loss")


def train(steps: int, num_envs: int = 4, seed: int = 0, hidden: int = 128, learn_step: int = 512) -> MaskedIPPO:
    """A ``MaskedIPPO`` trained by ``train_multi_agent_on_policy`` for ``steps`` vector steps."""
    env = AsyncPettingZooVecEnv([make_env for _ in range(num_envs)])
    env.reset(seed=seed)
    agent_ids = list(env.possible_agents)
    agent = MaskedIPPO(observation_spaces=[env.single_observation_space(a) for a in agent_ids],
                       action_spaces=[env.single_action_space(a) for a in agent_ids], agent_ids=agent_ids,
                       net_config={"encoder_config": {"hidden_size": [hidden]}}, batch_size=128,
                       learn_step=learn_step)
    [agent], _ = train_multi_agent_on_policy(env, "gin_rummy_v1", "IPPO", [agent], sum_scores=False,
                                             max_steps=steps, evo_steps=steps, eval_loop=1, verbose=False)
    env.close()
    agent.set_training_mode(False)
    return agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4096, help="environment steps to train for")
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--games", type=int, default=200, help="evaluation hands against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    agent = train(args.steps, args.num_envs, args.seed)

    print(report("AgileRL IPPO", agilerl_policy(agent), agent.steps, games=args.games, seed=args.seed))


if __name__ == "__main__":
    main()
