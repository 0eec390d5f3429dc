"""Collect the learner's decisions from the batched env (:class:`ginenv.envs.batched.BatchedGinEnv`).

Every env step takes one decision in every game: the learner's (its policy samples it, or with
``ppo.algorithm: dmc`` picks it epsilon-greedily, and the step is recorded) or the league
opponent's (a heuristic agent, a frozen snapshot, or in ``self`` games the learner again in the
other seat).  Buffers are ``[T, N]``: entry ``(t, i)`` is game ``i``'s decision at step ``t``
when the learner took it (``valid``), made by seat ``seat[t, i]``.  Rewards come per seat from
the env; each seat's reward is credited to **that seat's last recorded decision** (a hand often
ends on the other seat's move), and the end of an episode marks it ``done``.  :func:`train.training.gae.gae` then chains
each seat's decisions.

>>> import torch
>>> from agents.neural.policy import PolicyNet
>>> from train.training.config import LeagueConfig, RunConfig
>>> from train.training.league import League
>>> cfg = RunConfig()
>>> collector = Collector(cfg, PolicyNet(), League(LeagueConfig(opponents={"random": 1}), seed=0), num_envs=4)
>>> batch, stats = collector.collect(16, torch.Generator().manual_seed(0))
>>> batch.features.shape[1], bool(batch.masks[np.arange(len(batch.actions)), batch.actions].all())
(820, True)
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np
import torch

from agents.base import act_batch
from agents.neural.features import hand_deadwood
from agents.neural.masked import MaskedCategorical
from agents.neural.policy import FEATURES, PolicyNet, module_device
from agents.neural.precision import resolve_precision
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS
from ginenv.game.privileged import PRIVILEGED_SIZE
from train.training.config import RunConfig
from train.training.critic import PrivilegedCritic
from train.training.gae import gae
from train.training.league import SELF, SNAPSHOT, League


@dataclass
class Batch:
    """The trainable decisions of one rollout, flat (``B`` rows)."""

    features: np.ndarray
    """What the policy's ``head`` reads (:meth:`agents.neural.policy.PolicyNet.features`)."""
    masks: np.ndarray
    actions: np.ndarray
    logprobs: np.ndarray
    values: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    privileged: np.ndarray
    """What the privileged critic reads beside ``h`` (``[B, PRIVILEGED_SIZE]``; ``[B, 0]`` without one)."""
    old_probs: np.ndarray
    """With ``ppo.afterstate_coef``: the policy's probabilities of every action at the discard decisions
    (``[B, 108]``, rows of zeros elsewhere); ``[B, 0]`` without it."""
    action_advantages: np.ndarray
    """With ``ppo.afterstate_coef``: every legal action's afterstate value less their mean under
    ``old_probs`` (:meth:`Collector.afterstate_advantages`; ``[B, 108]``, zeros elsewhere); ``[B, 0]`` without it."""

    def __len__(self) -> int:
        return len(self.actions)

    def newest(self, count: int) -> "Batch":
        """The last ``count`` rows (all when fewer)."""
        return Batch(*(getattr(self, name)[-count:] for name in self.__dataclass_fields__))

    @staticmethod
    def concat(parts: Sequence["Batch"]) -> "Batch":
        """The rows of ``parts``, one after the other."""
        return Batch(*(np.concatenate([getattr(part, name) for part in parts]) for name in Batch.__dataclass_fields__))


@dataclass
class RolloutStats:
    """What a rollout saw (for the logs)."""

    decisions: int = 0
    episodes: int = 0
    learner_points: list = field(default_factory=list)
    """Learner reward per finished episode against non-self opponents (env reward units)."""
    outcomes: dict = field(default_factory=dict)
    """Hand outcome -> count, over all hands that ended."""

    @staticmethod
    def merge(parts: Sequence["RolloutStats"]) -> "RolloutStats":
        """What ``parts`` saw together.

        >>> RolloutStats.merge([RolloutStats(3, 1, [1.0], {"gin": 1}), RolloutStats(2, 1, [-1.0], {"gin": 1})])
        RolloutStats(decisions=5, episodes=2, learner_points=[1.0, -1.0], outcomes={'gin': 2})
        """
        outcomes: Counter = Counter()
        for part in parts:
            outcomes.update(part.outcomes)
        return RolloutStats(sum(p.decisions for p in parts), sum(p.episodes for p in parts),
                            [x for p in parts for x in p.learner_points], dict(outcomes))


def forbid_knocks(masks: np.ndarray, chance: float, generator: torch.Generator) -> np.ndarray:
    """``masks`` (bool ``[B, 108]``) with each row's knocks (discarding face down; not big gin) made
    illegal with probability ``chance``, drawn for every row from ``generator``; a row keeps its knocks
    when nothing else would be legal.  The input is not changed.

    >>> masks = np.zeros((2, 108), dtype=bool); masks[:, [3, 55]] = True
    >>> out = forbid_knocks(masks, 0.99, torch.Generator().manual_seed(0))
    >>> out[:, 55].tolist(), out[:, 3].tolist(), masks[:, 55].tolist()
    ([False, False], [True, True], [True, True])
    """
    drawn = torch.rand(len(masks), generator=generator).numpy() < chance
    return without_knocks(masks, drawn)


def without_knocks(masks: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``masks`` (``[B, 108]``) with the knocks (discarding face down; not big gin) made illegal in the
    rows picked by ``rows`` (bool ``[B]``), except where nothing else would be legal.  The input is not changed.

    >>> masks = np.zeros((3, 108), dtype=bool); masks[:, [3, 55]] = True; masks[2, 3] = False
    >>> without_knocks(masks, np.array([True, False, True]))[:, 55].tolist()
    [False, True, True]
    """
    others = masks.copy()
    others[:, KNOCK_BASE:BIG_GIN] = 0
    drop = rows & masks[:, KNOCK_BASE:BIG_GIN].any(axis=1) & others.any(axis=1)
    return np.where(drop[:, None], others, masks)


def epsilon_greedy(values: torch.Tensor, legal: torch.Tensor, epsilon: float,
                   generator: torch.Generator) -> torch.Tensor:
    """Each row's legal action of the highest value (``values [B, A]``, ``legal`` bool ``[B, A]``), or, with
    chance ``epsilon``, a legal action drawn uniformly (int64 ``[B]``).

    >>> v = torch.tensor([[0.0, 5.0, 1.0]]); legal = torch.tensor([[True, False, True]])
    >>> int(epsilon_greedy(v, legal, 0.0, torch.Generator().manual_seed(0))[0])
    2
    """
    best = values.masked_fill(~legal, float("-inf")).argmax(dim=1)
    uniform = MaskedCategorical(torch.zeros_like(values), legal).sample(generator)
    explore = torch.rand(len(values), generator=generator) < epsilon
    return torch.where(explore, uniform, best)


class Collector:
    """Steps ``num_envs`` games against the league and keeps their state between rollouts.

    With a ``critic`` (:class:`train.training.critic.PrivilegedCritic`) the recorded values are
    its estimates from the trunk's output and the env's privileged vector; the policy samples
    from the observation alone either way.  The networks' trunks run in ``cfg.precision``
    (:mod:`agents.neural.precision`), resolved for the learner's device and for the CPU, where the
    snapshots play."""

    def __init__(self, cfg: RunConfig, net: PolicyNet, league: League, num_envs: Optional[int] = None,
                 critic: Optional[PrivilegedCritic] = None) -> None:
        self.cfg, self.net, self.league, self.critic = cfg, net, league, critic
        e = cfg.env
        self.num_envs = num_envs or e.num_envs
        self.venv = BatchedGinEnv(self.num_envs, ruleset=e.ruleset, episode=e.episode, reward_mode=e.reward_mode,
                                 reward_scale=e.reward_scale, copy=False, summaries=False)
        self.obs, self.masks, self.to_act = self.venv.reset(seed=cfg.seed)
        self.opponent, self.learner_seat, self.snapshot = league.draw(self.num_envs)
        self.episode_reward = np.zeros((self.num_envs, 2))
        self._self_index = league.names.index(SELF) if SELF in league.names else -1
        self.precision = resolve_precision(cfg.precision, module_device(net))
        self.snapshot_precision = resolve_precision(cfg.precision, torch.device("cpu"))
        self.dmc = cfg.ppo.algorithm == "dmc"

    # ----- state for exact resume ----------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Plain data: the env's state and each game's opponent assignment."""
        return {"env": self.venv.get_state(), "opponent": self.opponent.tolist(),
                "learner_seat": self.learner_seat.tolist(), "snapshot": self.snapshot.tolist(),
                "episode_reward": self.episode_reward.tolist()}

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state` (same config)."""
        self.obs, self.masks, self.to_act = self.venv.set_state(state["env"])
        self.opponent = np.array(state["opponent"], dtype=np.int64)
        self.learner_seat = np.array(state["learner_seat"], dtype=np.int64)
        self.snapshot = np.array(state["snapshot"], dtype=np.int64)
        self.episode_reward = np.array(state["episode_reward"], dtype=np.float64)

    def close(self) -> None:
        """Stop the env's worker processes, if any."""
        self.venv.close()

    # ----- one rollout ----------------------------------------------------------------------
    def collect(self, steps: int, generator: torch.Generator) -> tuple[Batch, RolloutStats]:
        """Play ``steps`` env steps; returns the trainable learner decisions and stats."""
        n = self.num_envs
        feature_buf = np.zeros((steps, n, FEATURES[self.net.architecture.kind]), dtype=np.float32)
        mask_buf = np.zeros((steps, n, self.masks.shape[1]), dtype=bool)
        action_buf = np.zeros((steps, n), dtype=np.int64)
        logp_buf = np.zeros((steps, n), dtype=np.float32)
        value_buf = np.zeros((steps, n), dtype=np.float32)
        privileged_buf = np.zeros((steps, n, PRIVILEGED_SIZE if self.critic is not None else 0), dtype=np.float32)
        every = NUM_ACTIONS if self.cfg.ppo.afterstate_coef else 0
        old_prob_buf = np.zeros((steps, n, every), dtype=np.float32)
        action_adv_buf = np.zeros((steps, n, every), dtype=np.float32)
        reward_buf = np.zeros((steps, n), dtype=np.float32)
        done_buf = np.zeros((steps, n), dtype=bool)
        seat_buf = np.zeros((steps, n), dtype=np.int64)
        valid = np.zeros((steps, n), dtype=bool)
        phi_buf = np.zeros((steps, n), dtype=np.float32)
        last = np.full((n, 2), -1, dtype=np.int64)  # each seat's last recorded step in this rollout
        stats = RolloutStats()
        shaping = self.cfg.shaping.deadwood * self.cfg.env.reward_scale
        device = module_device(self.net)
        for t in range(steps):
            to_act = self.to_act.astype(np.int64)
            learner = (self.opponent == self._self_index) | (to_act == self.learner_seat)
            actions = np.zeros(n, dtype=np.int64)
            mine = np.flatnonzero(learner)
            if mine.size:
                obs = self.obs[mine]
                masks = full = self.masks[mine] > 0
                if self.cfg.ppo.forbid_knock:
                    masks = forbid_knocks(full, self.cfg.ppo.forbid_knock, generator)
                recorded = full if self.cfg.ppo.forbid_as_choice else masks
                with torch.no_grad():
                    features = self.net.features(torch.from_numpy(obs))  # on the CPU (compiled rules)
                    on_device = features.to(device)
                    h = self.net.encode(on_device, self.precision)
                    logits, values = self.net.read_out(on_device, h, torch.from_numpy(full))
                    chosen = self._choose(logits.cpu(), torch.from_numpy(masks), generator)
                    under_recorded = MaskedCategorical(logits.cpu(), torch.from_numpy(recorded))
                    logp = under_recorded.log_prob(chosen)
                    if self.dmc:  # the recorded value is the chosen action's: the return it is regressed on
                        values = logits.cpu().gather(1, chosen[:, None])[:, 0]
                    if self.critic is not None:  # the hidden cards reach the critic's value only
                        privileged_buf[t, mine] = self.venv.privileged()[mine]
                        values = self.critic(h, torch.from_numpy(privileged_buf[t, mine]).to(device), self.precision,
                                             on_device)
                    values = values.cpu()
                    if every:
                        discarding = mine[full[:, DISCARD_BASE:].any(axis=1)]
                        if discarding.size:
                            rows = np.searchsorted(mine, discarding)
                            probs = under_recorded.probs[rows].numpy()
                            old_prob_buf[t, discarding] = probs
                            action_adv_buf[t, discarding] = self.afterstate_advantages(
                                discarding, to_act[discarding], full[rows], probs)
                actions[mine] = chosen.numpy()
                feature_buf[t, mine], mask_buf[t, mine] = features.numpy(), recorded
                action_buf[t, mine], logp_buf[t, mine], value_buf[t, mine] = actions[mine], logp.numpy(), values.numpy()
                seat_buf[t, mine], valid[t, mine] = to_act[mine], True
                if shaping:
                    phi_buf[t, mine] = -shaping * hand_deadwood(obs)
                last[mine, to_act[mine]] = t
            self._opponent_actions(np.flatnonzero(~learner), actions, generator)
            self.obs, self.masks, self.to_act, rewards, terminated, truncated, infos = self.venv.step(actions)
            self._credit(rewards, terminated | truncated, infos, last, reward_buf, done_buf, stats)
        stats.decisions = int(valid.sum())
        lam = 1.0 if self.dmc else self.cfg.ppo.gae_lambda  # Monte Carlo returns for the action values
        advantages, returns, trainable = gae(reward_buf, value_buf, done_buf, seat_buf, valid, self.cfg.ppo.gamma,
                                             lam, phi_buf if shaping else None)
        pick = trainable.reshape(-1)
        flat = lambda a: a.reshape(steps * n, *a.shape[2:])[pick]  # noqa: E731  (step-major order kept)
        batch = Batch(flat(feature_buf), flat(mask_buf), flat(action_buf), flat(logp_buf), flat(value_buf),
                      flat(advantages), flat(returns), flat(privileged_buf), flat(old_prob_buf), flat(action_adv_buf))
        return batch, stats

    def _choose(self, logits: torch.Tensor, legal: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        """The learner's or a snapshot's actions: sampled from the policy (``ppo``), or ``epsilon``-greedy on the
        outputs read as action values (``dmc``)."""
        if self.dmc:
            return epsilon_greedy(logits, legal, self.cfg.ppo.epsilon, generator)
        return MaskedCategorical(logits, legal).sample(generator)

    def afterstate_advantages(self, games: np.ndarray, seats: np.ndarray, legal: np.ndarray,
                              probs: np.ndarray) -> np.ndarray:
        """``[G, 108]``: for the seat ``seats[g]`` to act in game ``games[g]``, the value of each legal action
        (``legal[g]``) less their mean under ``probs[g]``; 0 for the other actions.

        Each action is played in a copy of the game (:meth:`BatchedGinEnv.afterstates`).  One that ends the
        hand is worth its reward to the seat; otherwise the opponent is to act and the action is worth minus
        the critic's value of the opponent's position (the privileged critic reads the opponent's view and
        what it cannot see, so no hidden card reaches the policy) plus the shaping potential of the
        opponent's hand, which the shaped values leave out (the same for every action of a decision)."""
        pair_game, pair_action = np.nonzero(legal)
        after = self.venv.afterstates(games[pair_game], pair_action)
        values = after["rewards"][np.arange(pair_game.size), seats[pair_game]].astype(np.float32)
        going = np.flatnonzero(~after["ended"])
        if going.size:
            device = module_device(self.net)
            with torch.no_grad():
                features = self.net.features(torch.from_numpy(after["obs"][going]))
                on_device = features.to(device)
                h = self.net.encode(on_device, self.precision)
                if self.critic is not None:
                    theirs = self.critic(h, torch.from_numpy(after["privileged"][going]).to(device), self.precision,
                                         on_device)
                else:
                    _, theirs = self.net.read_out(on_device, h, torch.from_numpy(after["masks"][going] > 0))
            shaping = self.cfg.shaping.deadwood * self.cfg.env.reward_scale
            values[going] = -theirs.float().cpu().numpy() + shaping * hand_deadwood(after["obs"][going])
        table = np.zeros(legal.shape, dtype=np.float32)
        table[pair_game, pair_action] = values
        mean = (probs * table).sum(axis=1, keepdims=True)
        return np.where(legal, table - mean, 0.0).astype(np.float32)

    def _opponent_actions(self, games: np.ndarray, actions: np.ndarray, generator: torch.Generator) -> None:
        """Fill ``actions[games]`` with the league opponents' choices (grouped per opponent)."""
        for index, name in enumerate(self.league.names):
            chosen = games[self.opponent[games] == index]
            if not chosen.size:
                continue
            if name == SNAPSHOT:  # the snapshots share the learner's architecture: its features serve them all
                with torch.no_grad():
                    features = self.net.features(torch.from_numpy(self.obs[chosen]))
                    for snap in np.unique(self.snapshot[chosen]):
                        rows = np.flatnonzero(self.snapshot[chosen] == snap)
                        group = chosen[rows]
                        legal = torch.from_numpy(self.masks[group] > 0)
                        logits, _ = self.league.snapshot_nets[int(snap)].head(features[rows], legal,
                                                                               self.snapshot_precision)
                        actions[group] = self._choose(logits, legal, generator).numpy()
            else:
                actions[chosen] = act_batch(self.league.agents[name], self.obs[chosen], self.masks[chosen])

    def _credit(self, rewards: np.ndarray, ended: np.ndarray, infos: list, last: np.ndarray,
                reward_buf: np.ndarray, done_buf: np.ndarray, stats: RolloutStats) -> None:
        """Credit each seat's reward to its last decision; settle ended episodes."""
        self.episode_reward += rewards
        is_self = self.opponent == self._self_index
        for seat in (0, 1):
            learns = is_self | (self.learner_seat == seat)
            has = learns & (last[:, seat] >= 0)
            games = np.flatnonzero(has)
            reward_buf[last[games, seat], games] += rewards[games, seat]
            finished = np.flatnonzero(has & ended)
            done_buf[last[finished, seat], finished] = True
            last[np.flatnonzero(learns & ended), seat] = -1  # a new episode: no decision yet
        for info in infos:
            if "hand_result" in info:
                outcome = info["hand_result"]["outcome"]
                stats.outcomes[outcome] = stats.outcomes.get(outcome, 0) + 1
        ended_games = np.flatnonzero(ended)
        if not ended_games.size:
            return
        stats.episodes += int(ended_games.size)
        for i in ended_games:
            if not is_self[i]:
                mine = self.episode_reward[i, self.learner_seat[i]]
                stats.learner_points.append(float(mine))
                self.league.record(int(self.opponent[i]), 1.0 if mine > 0 else 0.5 if mine == 0 else 0.0,
                                   int(self.snapshot[i]))
        self.episode_reward[ended_games] = 0.0
        self.opponent[ended_games], self.learner_seat[ended_games], self.snapshot[ended_games] = \
            self.league.draw(int(ended_games.size))
