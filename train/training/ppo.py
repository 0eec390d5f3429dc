"""Self-play PPO for Gin Rummy, in the order the algorithm runs.

``train(cfg)`` loops: **collect** a rollout against the league (:mod:`train.training.collect`, on
:class:`ginenv.envs.batched.BatchedGinEnv`; in shards on Ray actors with ``rollout.backend: ray``,
:mod:`train.training.shards`) -> **advantages** by GAE per seat (:mod:`train.training.gae`)
-> **update** the masked policy with the clipped objective (:func:`ppo_update`) ->
**league** snapshot -> **log** to TensorBoard -> **evaluate** against heuristics
(:func:`train.evaluation.evaluate.evaluate`) -> **checkpoint** (:mod:`train.training.checkpoint`).

The pieces an agent needs to *act* live in :mod:`agents`: the network
(:class:`agents.neural.policy.PolicyNet`) and the masked distribution
(:class:`agents.neural.masked.MaskedCategorical`), so playing a trained policy never imports the
trainer.

Everything random comes from generators seeded by ``cfg.seed`` and saved in checkpoints,
so ``resume`` continues a killed run with bit-identical results.
"""
from __future__ import annotations

import json
import math
import signal
import sys
import threading
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents.neural.masked import MaskedCategorical
from agents.neural.policy import (
    VALUES,
    PolicyNet,
    load_policy,
    module_device,
    permute_suits,
    resolve_device,
    suit_permutations,
)
from agents.neural.precision import resolve_precision
from ginenv.game.actions import BIG_GIN, KNOCK_BASE
from ginenv.seeding import derive_seed
from train.evaluation.evaluate import evaluate
from train.evaluation.ratings import ELO_TAG, LADDER_ELO, anchored_elo
from train.training import checkpoint
from train.training import resume as resume_checks
from train.training.clone import clone
from train.training.collect import Batch, Collector
from train.training.config import ConfigError, PPOConfig, RunConfig, save_config, to_dict
from train.training.critic import PrivilegedCritic, make_critic, rename_privileged
from train.training.league import League
from train.training.ray_pool import RayPool
from train.training.shards import ShardedCollector


def make_collector(cfg: RunConfig, net: PolicyNet, league: League,
                   critic: Optional[PrivilegedCritic] = None) -> Union[Collector, ShardedCollector]:
    """The collector of ``rollout.backend``: a :class:`Collector` here, or shards on Ray actors."""
    if cfg.rollout.backend == "ray":
        return ShardedCollector(cfg, net, league, RayPool(cfg), critic)
    return Collector(cfg, net, league, critic=critic)


# ----- the update ---------------------------------------------------------------------------
def knock_entropy(dist: MaskedCategorical) -> torch.Tensor:
    """Mean entropy of knocking or not (the summed probability of the knocks against that of the other legal
    actions) over the rows where both are legal; 0 when no row is.  Computed from log-probabilities, so its
    gradient does not vanish when the policy is nearly sure.

    >>> mask = torch.zeros(2, 108, dtype=torch.bool); mask[:, [3, 4, 55]] = True; mask[1, 55] = False
    >>> round(float(knock_entropy(MaskedCategorical(torch.zeros(2, 108), mask))), 4)  # 1/3 knock in row 0
    0.6365
    """
    knock = torch.zeros(dist.mask.shape[-1], dtype=torch.bool, device=dist.mask.device)
    knock[KNOCK_BASE:BIG_GIN] = True
    knocks, others = dist.mask & knock, dist.mask & ~knock
    rows = knocks.any(-1) & others.any(-1)
    if not bool(rows.any()):
        return dist.log_probs_all.new_zeros(())
    log_probs = dist.log_probs_all[rows]
    log_knock = torch.logsumexp(log_probs.masked_fill(~knocks[rows], -torch.inf), dim=-1)
    log_other = torch.logsumexp(log_probs.masked_fill(~others[rows], -torch.inf), dim=-1)
    return -(log_knock.exp() * log_knock + log_other.exp() * log_other).mean()


def magnet_divergence(dist: MaskedCategorical, magnet_logits: torch.Tensor) -> torch.Tensor:
    """Mean KL(policy || magnet) over the rows, each over its legal actions (the magnet's logits masked
    alike): the penalty of ``ppo.magnet_coef``.  With a uniform magnet it is the entropy bonus's penalty
    (log of the legal count minus the entropy).

    >>> mask = torch.ones(1, 108, dtype=torch.bool)
    >>> round(float(magnet_divergence(MaskedCategorical(torch.zeros(1, 108), mask), torch.zeros(1, 108))), 6)
    0.0
    >>> mask[0, 2:] = False
    >>> policy = MaskedCategorical(torch.tensor([[0.0, 10.0] + [0.0] * 106]), mask)
    >>> round(float(magnet_divergence(policy, torch.zeros(1, 108))), 3)  # nearly sure of one of two: log 2
    0.693
    """
    magnet = MaskedCategorical(magnet_logits, dist.mask)
    gap = dist.log_probs_all - magnet.log_probs_all
    return torch.where(dist.mask, dist.probs * gap, torch.zeros_like(gap)).sum(-1).mean()


@torch.no_grad()
def magnet_logits(magnet: PolicyNet, features: torch.Tensor, masks: torch.Tensor, precision: Optional[torch.dtype],
                  chunk: int) -> torch.Tensor:
    """The magnet's logits for every row of an update's batch, ``chunk`` rows at a time: the magnet does not
    move during an update, so one pass serves all of its epochs."""
    return torch.cat([magnet.head(features[start:start + chunk], masks[start:start + chunk], precision)[0]
                      for start in range(0, len(features), chunk)])


@torch.no_grad()
def follow(magnet: PolicyNet, net: PolicyNet, tau: float) -> None:
    """Move each of ``magnet``'s weights a share ``tau`` of the way to ``net``'s (an exponential moving average).

    >>> a, b = PolicyNet(), PolicyNet()
    >>> follow(a, b, 1.0); all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters()))
    True
    """
    for mine, theirs in zip(magnet.parameters(), net.parameters()):
        mine.lerp_(theirs, tau)


def expected_clipped_loss(probs: torch.Tensor, old_probs: torch.Tensor, advantages: torch.Tensor,
                          clip: float) -> torch.Tensor:
    """PPO's clipped surrogate taken in expectation over every action under the old policy instead of
    at the sampled one, negated and averaged over the rows (``[B, A]`` inputs; a row of ``old_probs``
    all 0 adds nothing).  Its gradient moves each action's probability by its own advantage.

    >>> probs = torch.tensor([[0.5, 0.5]], requires_grad=True)
    >>> expected_clipped_loss(probs, torch.tensor([[0.5, 0.5]]), torch.tensor([[1.0, -1.0]]), 0.2).backward()
    >>> probs.grad.tolist()  # lower loss: more of the first action, less of the second
    [[-1.0, 1.0]]
    """
    ratio = probs / old_probs.clamp_min(1e-8)
    surrogate = torch.min(ratio * advantages, ratio.clamp(1 - clip, 1 + clip) * advantages)
    return -(old_probs * surrogate).sum(dim=1).mean()


def action_advantage_scale(old_probs: torch.Tensor, advantages: torch.Tensor) -> torch.Tensor:
    """The root mean square of ``advantages`` ``[B, A]`` under ``old_probs``, over the rows that have any
    (a floor of 1e-8): dividing by it puts the all-action advantages on the scale of normalised sampled ones.

    >>> float(action_advantage_scale(torch.tensor([[0.5, 0.5], [0.0, 0.0]]), torch.tensor([[2.0, -2.0], [0.0, 0.0]])))
    2.0
    """
    rows = old_probs.sum(dim=1) > 0
    if not bool(rows.any()):
        return torch.ones((), device=advantages.device)
    return ((old_probs * advantages ** 2).sum(dim=1)[rows].mean().sqrt()).clamp_min(1e-8)


def explained_variance(batch: Batch) -> float:
    """The share of the returns' variance that the rollout's recorded values explain (nan when the returns do
    not vary)."""
    variance = float(batch.returns.var())
    return float("nan") if variance == 0 else 1 - float(np.var(batch.returns - batch.values)) / variance


@dataclass(frozen=True)
class Decisions:
    """A minibatch's inputs to the update: the policy's ``features``, legal ``masks``, ``actions``, the critic's
    ``privileged`` vectors, and the rollout's ``logprobs`` of the actions and ``values``."""

    features: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    privileged: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor

    def rows(self, index: torch.Tensor) -> "Decisions":
        """The decisions at ``index``."""
        return Decisions(*(getattr(self, f.name)[index] for f in fields(self)))


def renamed(decisions: Decisions, maps: torch.Tensor) -> Decisions:
    """``decisions`` with the suits of row ``i`` renamed by card map ``maps[i]`` (``ppo.rename_suits``): the
    policy's input, legal actions, action and the critic's hidden cards.  The log-probabilities and values stay:
    the renamed action is drawn, by the rules' symmetry, with the probability the rollout recorded for the
    decision as played, so the ratio to it is the importance weight of the renamed sample."""
    features, masks, actions = permute_suits(decisions.features, decisions.masks, decisions.actions, maps)
    return replace(decisions, features=features, masks=masks, actions=actions,
                   privileged=rename_privileged(decisions.privileged, maps))


DUAL_CLIP = 3.0
"""With ``ppo.rename_suits``: the bound of dual-clip PPO (Ye et al. 2020) on a negative advantage's term, at this
many times the advantage.  A renamed decision's ratio starts away from 1 while the network is not alike across
suits; the bound keeps one such decision from taking over a minibatch's gradient."""


def clipped_loss(ratio: torch.Tensor, advantages: torch.Tensor, clip: float,
                 dual_clip: Optional[float] = None) -> torch.Tensor:
    """PPO's clipped surrogate per decision, negated (``[B]``); with ``dual_clip`` a negative advantage's loss is at
    most ``-dual_clip * advantage`` (no gradient once the ratio passes ``dual_clip``).

    >>> ratio, advantages = torch.tensor([10.0, 10.0, 1.0]), torch.tensor([-1.0, 1.0, -1.0])
    >>> clipped_loss(ratio, advantages, 0.2).tolist(), clipped_loss(ratio, advantages, 0.2, 3.0).tolist()
    ([10.0, -1.2000000476837158, 1.0], [3.0, -1.2000000476837158, 1.0])
    """
    loss = torch.max(-advantages * ratio, -advantages * ratio.clamp(1 - clip, 1 + clip))
    if dual_clip is None:
        return loss
    return torch.where(advantages < 0, torch.minimum(loss, -dual_clip * advantages), loss)


def pass_maps(passes: int, size: int, generator: torch.Generator) -> torch.Tensor:
    """For ``ppo.rename_suits``: the card maps ``[passes, size, 52]`` of each pass over a batch of ``size``
    decisions, one of the 24 orders of the suits per decision and pass, drawn from ``generator``."""
    maps = suit_permutations()
    return maps[torch.randint(len(maps), (passes, size), generator=generator)]


def ppo_update(net: PolicyNet, optimizer: torch.optim.Optimizer, batch: Batch, cfg: PPOConfig,
               generator: torch.Generator, critic: Optional[PrivilegedCritic] = None,
               precision: Optional[torch.dtype] = None, critic_only: bool = False,
               magnet: Optional[PolicyNet] = None) -> dict[str, float]:
    """``cfg.epochs`` passes of clipped-PPO minibatch updates over ``batch``; returns the
    mean losses, entropy, approximate KL, clip fraction and explained variance.  With a
    ``critic`` the value loss trains it (on ``batch.privileged``) instead of ``net``'s value head,
    and with ``critic.belief`` its belief head's loss joins the total (reported as ``belief_loss``); with
    ``cfg.knock_ent_coef`` so does the bonus of :func:`knock_entropy` (reported as ``knock_entropy``), and with
    ``cfg.afterstate_coef`` the all-action term of :func:`expected_clipped_loss` (``afterstate_loss``).
    ``precision``: the autocast dtype of the trunks' products (:mod:`agents.neural.precision`;
    None: float32); the logits, values, losses and gradients are float32 either way.  ``critic_only``: the
    value loss alone, and it does not reach the policy's weights (``ppo.critic_warmup``).  With a ``magnet``
    and ``cfg.magnet_coef`` the penalty of :func:`magnet_divergence` joins the total (``magnet_kl``).  With
    ``cfg.rename_suits`` each pass shows every decision with its suits renamed (:func:`pass_maps`, :func:`renamed`),
    its ratio taken to the probability the rollout recorded for the decision as played, and its clipped loss bounded
    as dual-clip PPO's (:data:`DUAL_CLIP`)."""
    device = module_device(net)
    b_features, b_masks, b_actions, b_logprobs, b_advantages, b_returns, b_values, b_privileged, b_old_probs, \
        b_action_adv = (torch.from_numpy(array).to(device) for array in (
            batch.features, batch.masks, batch.actions, batch.logprobs, batch.advantages, batch.returns, batch.values,
            batch.privileged, batch.old_probs, batch.action_advantages))
    all_actions = cfg.afterstate_coef > 0 and b_old_probs.shape[1] > 0
    parameters = [p for group in optimizer.param_groups for p in group["params"]]
    size = len(batch)
    mb_size = max(1, math.ceil(size / cfg.minibatches))
    believing = critic is not None and critic.belief > 0
    attracted = magnet is not None and cfg.magnet_coef > 0
    sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clip_fraction": 0.0,
            **({"belief_loss": 0.0} if believing else {}), **({"knock_entropy": 0.0} if cfg.knock_ent_coef else {}),
            **({"afterstate_loss": 0.0} if all_actions else {}), **({"magnet_kl": 0.0} if attracted else {})}
    b_magnet_logits = magnet_logits(magnet, b_features, b_masks, precision, mb_size) \
        if attracted and not critic_only else None
    recorded = Decisions(b_features, b_masks, b_actions, b_privileged, b_logprobs, b_values)
    maps = pass_maps(cfg.epochs, size, generator).to(device) if cfg.rename_suits else None
    count = 0
    for epoch in range(cfg.epochs):
        order = torch.randperm(size, generator=generator).to(device)
        kl_epoch = []
        for start in range(0, size, mb_size):
            mb = order[start:start + mb_size]
            shown = recorded.rows(mb)
            if maps is not None:
                shown = renamed(shown, maps[epoch, mb])
            features = shown.features
            h = net.encode(features, precision)
            if critic_only:
                h = h.detach()
            logits, values = net.read_out(features, h, shown.masks)
            if critic is not None:
                values = critic(h, shown.privileged, precision, features)
            dist = MaskedCategorical(logits, shown.masks)
            logratio = dist.log_prob(shown.actions) - shown.logprobs
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clip_fraction = ((ratio - 1.0).abs() > cfg.clip).float().mean()
            mb_adv = b_advantages[mb]
            if cfg.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            policy_loss = clipped_loss(ratio, mb_adv, cfg.clip, DUAL_CLIP if maps is not None else None).mean()
            if cfg.clip_value:
                clipped = shown.values + (values - shown.values).clamp(-cfg.clip, cfg.clip)
                value_loss = 0.5 * torch.max((values - b_returns[mb]) ** 2, (clipped - b_returns[mb]) ** 2).mean()
            else:
                value_loss = 0.5 * ((values - b_returns[mb]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = policy_loss - cfg.ent_coef * entropy + cfg.vf_coef * value_loss
            if critic_only:
                loss = cfg.vf_coef * value_loss
            elif cfg.knock_ent_coef:
                split = knock_entropy(dist)
                loss = loss - cfg.knock_ent_coef * split
                sums["knock_entropy"] += float(split.detach())
            if all_actions and not critic_only:
                mb_action_adv = b_action_adv[mb]
                if cfg.norm_adv:
                    mb_action_adv = mb_action_adv / action_advantage_scale(b_old_probs[mb], mb_action_adv)
                every = expected_clipped_loss(dist.probs, b_old_probs[mb], mb_action_adv, cfg.clip)
                loss = loss + cfg.afterstate_coef * every
                sums["afterstate_loss"] += float(every.detach())
            if b_magnet_logits is not None:
                divergence = magnet_divergence(dist, b_magnet_logits[mb])
                loss = loss + cfg.magnet_coef * divergence
                sums["magnet_kl"] += float(divergence.detach())
            if believing and not critic_only:
                belief_loss = critic.belief_loss(h, shown.privileged)
                loss = loss + critic.belief * belief_loss
                sums["belief_loss"] += float(belief_loss.detach())
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, cfg.max_grad_norm)
            optimizer.step()
            for key, value in (("policy_loss", policy_loss), ("value_loss", value_loss), ("entropy", entropy),
                               ("approx_kl", approx_kl), ("clip_fraction", clip_fraction)):
                sums[key] += float(value.detach())
            count += 1
            kl_epoch.append(float(approx_kl))
        if cfg.target_kl is not None and np.mean(kl_epoch) > cfg.target_kl:
            break
    metrics = {key: value / max(count, 1) for key, value in sums.items()}
    metrics["explained_variance"] = explained_variance(batch)
    return metrics


def dmc_update(net: PolicyNet, optimizer: torch.optim.Optimizer, batch: Batch, cfg: PPOConfig,
               generator: torch.Generator, precision: Optional[torch.dtype] = None) -> dict[str, float]:
    """Deep Monte Carlo (``ppo.algorithm: dmc``): ``cfg.epochs`` passes of minibatch regressions of the chosen
    action's output (its value) on the decision's return, ``0.5 * (Q(s, a) - G) ** 2``; returns the mean
    ``value_loss``, the mean value of the chosen actions ``q_mean`` and the ``explained_variance`` of the
    returns by the values recorded in the rollout.  The value head is not trained (nothing reads it)."""
    device = module_device(net)
    b_features, b_masks, b_actions, b_returns = (torch.from_numpy(array).to(device) for array in (
        batch.features, batch.masks, batch.actions, batch.returns))
    parameters = [p for group in optimizer.param_groups for p in group["params"]]
    size = len(batch)
    mb_size = max(1, math.ceil(size / cfg.minibatches))
    sums, count = {"value_loss": 0.0, "q_mean": 0.0}, 0
    for _ in range(cfg.epochs):
        order = torch.randperm(size, generator=generator).to(device)
        for start in range(0, size, mb_size):
            mb = order[start:start + mb_size]
            features = b_features[mb]
            logits, _ = net.read_out(features, net.encode(features, precision), b_masks[mb])
            chosen = logits.gather(1, b_actions[mb, None])[:, 0]
            loss = 0.5 * ((chosen - b_returns[mb]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, cfg.max_grad_norm)
            optimizer.step()
            sums["value_loss"] += float(loss.detach())
            sums["q_mean"] += float(chosen.detach().mean())
            count += 1
    metrics = {key: value / max(count, 1) for key, value in sums.items()}
    metrics["explained_variance"] = explained_variance(batch)
    return metrics


# ----- the run --------------------------------------------------------------------------------
@dataclass
class Progress:
    """Counters saved with every checkpoint."""

    update: int = 0
    global_step: int = 0
    """Learner decisions trained on so far."""
    best: float = -1.0
    """Best evaluation win rate against ``eval.best_against`` so far."""


def learning_rate(cfg: PPOConfig, global_step: int) -> float:
    """The learning rate after ``global_step`` decisions (linear decay when ``anneal_lr``).

    >>> learning_rate(PPOConfig(lr=1e-3, total_steps=100), 25)
    0.00075
    """
    if not cfg.anneal_lr:
        return cfg.lr
    return cfg.lr * max(0.0, 1.0 - global_step / cfg.total_steps)


def entropy_coef(cfg: PPOConfig, global_step: int) -> float:
    """The entropy bonus after ``global_step`` decisions: ``ent_coef``, or with ``ent_final`` the linear way
    from one to the other over ``total_steps`` (held at ``ent_final`` past it).

    >>> entropy_coef(PPOConfig(ent_coef=0.03, ent_final=0.01, total_steps=100), 25)
    0.025
    >>> entropy_coef(PPOConfig(ent_coef=0.03, total_steps=100), 25)
    0.03
    """
    if cfg.ent_final is None:
        return cfg.ent_coef
    done = min(1.0, global_step / cfg.total_steps)
    return cfg.ent_coef + (cfg.ent_final - cfg.ent_coef) * done


class Trainer:
    """One run: the network, optimizer, league, collector and generators, and its folder."""

    def __init__(self, cfg: RunConfig, run_dir: Path) -> None:
        self.cfg, self.run_dir = cfg, run_dir
        torch.set_num_threads(cfg.threads)
        torch.manual_seed(derive_seed(cfg.seed, 0))
        self.device = resolve_device(cfg.device)
        self.precision = resolve_precision(cfg.precision, self.device)
        self.net = PolicyNet(cfg.policy).to(self.device)
        if cfg.ppo.algorithm == "dmc":
            self.net.outputs = VALUES
        self.critic = make_critic(cfg.critic, cfg.policy)
        if self.critic is not None:
            self.critic.to(self.device)
        learned = [*self.net.parameters(), *(self.critic.parameters() if self.critic is not None else ())]
        self.optimizer = torch.optim.Adam(learned, lr=cfg.ppo.lr, eps=1e-5)
        self.magnet = self._new_magnet() if cfg.ppo.magnet_coef > 0 else None
        self.league = League(cfg.league, cfg.seed, cfg.policy)
        self.collector = make_collector(cfg, self.net, self.league, self.critic)
        self.generator = torch.Generator().manual_seed(derive_seed(cfg.seed, 3))
        self.progress = Progress()
        self.last_eval: dict[str, Any] = {}
        self.run_id = resume_checks.run_id_of(run_dir)

    # checkpoint data
    def state(self) -> dict[str, Any]:
        return {**checkpoint.policy_data(self.net), "config": to_dict(self.cfg),
                "optimizer": self.optimizer.state_dict(), "update": self.progress.update,
                "global_step": self.progress.global_step, "best": self.progress.best,
                "league": self.league.state(), "collector": self.collector.state(),
                "generator": self.generator.get_state(), "eval": self.last_eval,
                **({"run_id": self.run_id} if self.run_id is not None else {}),
                **({"critic": self.critic.state_dict()} if self.critic is not None else {}),
                **({"magnet": self.magnet.state_dict()} if self.magnet is not None else {})}

    def _new_magnet(self) -> PolicyNet:
        """A magnet (``ppo.magnet_coef``) at the policy's present weights, outside the optimizer."""
        magnet = PolicyNet(self.cfg.policy).to(self.device)
        magnet.load_state_dict(self.net.state_dict())
        return magnet.requires_grad_(False).eval()

    def load(self, data: dict[str, Any]) -> None:
        self.net.load_state_dict(data["model"])
        if self.critic is not None:
            self.critic.load_state_dict(data["critic"])
        if self.magnet is not None:  # a run given a magnet on resume starts it at the policy it resumes
            self.magnet.load_state_dict(data.get("magnet", data["model"]))
        self.optimizer.load_state_dict(data["optimizer"])
        self.progress = Progress(data["update"], data["global_step"], data["best"])
        self.league.load_state(data["league"], data["update"])
        self.collector.load_state(data["collector"])
        self.generator.set_state(data["generator"])
        self.last_eval = data.get("eval", {})

    def save(self) -> Path:
        return checkpoint.save_full(self.state(), self.run_dir / "checkpoints", self.progress.update,
                                    self.cfg.keep_checkpoints)

    def close(self) -> None:
        """Stop the collector's workers (Ray actors with ``rollout.backend: ray``)."""
        self.collector.close()

    # one iteration
    def iteration(self) -> dict[str, float]:
        cfg, progress = self.cfg, self.progress
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate(cfg.ppo, progress.global_step)
        self.league.reseed_agents(progress.update)
        started = time.perf_counter()
        self.net.eval()
        batch, stats = self.collector.collect(cfg.ppo.rollout_steps, self.generator)
        batch = batch.newest(cfg.ppo.batch_size)
        collected = time.perf_counter()
        self.net.train()
        ent_coef = entropy_coef(cfg.ppo, progress.global_step)
        if not len(batch):
            metrics = {}
        elif cfg.ppo.algorithm == "dmc":
            metrics = dmc_update(self.net, self.optimizer, batch, cfg.ppo, self.generator, self.precision)
        else:
            metrics = ppo_update(self.net, self.optimizer, batch, replace(cfg.ppo, ent_coef=ent_coef), self.generator,
                                 self.critic, self.precision, critic_only=progress.update < cfg.ppo.critic_warmup,
                                 magnet=self.magnet)
        if self.magnet is not None:
            follow(self.magnet, self.net, cfg.ppo.magnet_tau)
        finished = time.perf_counter()
        progress.update += 1
        progress.global_step += len(batch)
        if progress.update % cfg.league.snapshot_every == 0:
            self.league.add_snapshot(self.net.state_dict(), progress.update)
        hands = sum(stats.outcomes.values())
        metrics.update({
            "learning_rate": self.optimizer.param_groups[0]["lr"], "samples": float(len(batch)),
            **({"epsilon": cfg.ppo.epsilon} if cfg.ppo.algorithm == "dmc" else {"ent_coef": ent_coef}),
            "global_step": float(progress.global_step),
            "SPS": len(batch) / max(finished - started, 1e-9),
            "rollout_SPS": stats.decisions / max(collected - started, 1e-9),
            "episodes": float(stats.episodes),
            "learner_reward": float(np.mean(stats.learner_points)) if stats.learner_points else float("nan"),
            **{f"outcome_{k}": v / hands for k, v in stats.outcomes.items()},
            **{f"win_rate_{name}": self.league.win_rate(name) for name in self.league.names if name != "self"},
            **{f"share_{name}": float(p) for name, p in zip(self.league.names, self.league.probabilities())},
        })
        return metrics

    def evaluate(self) -> dict[str, Any]:
        """Evaluate the current policy against ``eval.opponents`` (writes ``latest_policy.pt``)."""
        cfg = self.cfg
        policy = self.run_dir / "latest_policy.pt"
        checkpoint.save_policy(self.net, policy)
        results = {}
        for opponent in cfg.eval.opponents:
            result = evaluate({"name": "ppo", "path": str(policy)}, opponent, games=cfg.eval.games,
                              ruleset=cfg.env.ruleset, episode=cfg.eval.episode, seed=derive_seed(cfg.seed, 4),
                              workers=1)
            results[opponent] = {**result.results_dict(), "agent_a": f"ppo:path={policy.name}"}  # run-relative
        self.last_eval = {"update": self.progress.update, "global_step": self.progress.global_step,
                          "results": results, **ladder_rating(results, cfg)}
        score = results[cfg.eval.best_against]["win_rate_a"]
        if score > self.progress.best:
            self.progress.best = score
            checkpoint.save_policy(self.net, self.run_dir / "best.pt")
        with open(self.run_dir / "eval.jsonl", "a", encoding="utf-8") as stream:
            stream.write(json.dumps(self.last_eval) + "\n")
        return results


def _log(writer: SummaryWriter, metrics: dict[str, float], step: int) -> None:
    losses = {"policy_loss", "value_loss", "belief_loss", "entropy", "knock_entropy", "afterstate_loss", "magnet_kl",
              "approx_kl", "clip_fraction", "explained_variance"}
    for key, value in metrics.items():
        if value == value:  # skip nan
            writer.add_scalar(("losses/" if key in losses else "charts/") + key, value, step)


def _log_clone(writer: SummaryWriter, metrics: dict[str, Any]) -> None:
    """A cloning epoch's figures as ``clone/*`` scalars, at step = epoch."""
    for key in ("loss", "accuracy", "held_out_accuracy"):
        if key in metrics:
            writer.add_scalar(f"clone/{key}", metrics[key], metrics["epoch"])


def ladder_rating(results: dict[str, Any], cfg: RunConfig) -> dict[str, float]:
    """``{"elo": rating}`` of the evaluated policy against the fixed ladder
    (:data:`train.evaluation.ratings.LADDER_ELO`, measured in games to 100 under ``pagat``), when the
    evaluation played such games against at least one ladder agent; else ``{}``."""
    if cfg.env.ruleset != "pagat" or cfg.eval.episode != "game":
        return {}
    scores = {name: (r["win_rate_a"] * r["games"], r["games"]) for name, r in results.items() if name in LADDER_ELO}
    return {"elo": anchored_elo(scores)} if scores else {}


def eval_prefix(episode: str) -> str:
    """The TensorBoard prefix of evaluations of that episode kind: ``eval_games`` or ``eval_hands``."""
    return f"eval_{episode}s"


def _log_eval(writer: SummaryWriter, evaluation: dict[str, Any], step: int) -> None:
    for opponent, result in evaluation["results"].items():
        prefix = eval_prefix(result["episode"])
        tag = opponent.replace(":", "_").replace(",", "_").replace("=", "-")
        for key in ("win_rate_a", "ci_low", "ci_high", "points_per_hand_a", "gin_rate_a", "undercut_rate_a",
                    "undercut_rate_b", "dead_rate"):
            writer.add_scalar(f"{prefix}/{tag}/{key}", result[key], step)
    if "elo" in evaluation:
        writer.add_scalar(ELO_TAG, evaluation["elo"], step)


def prepare_run(cfg: RunConfig, out: Path) -> Path:
    """Create ``out/NAME`` and save the resolved config there; an existing run is an error."""
    run_dir = out / cfg.name
    if (run_dir / "config.yaml").exists():
        raise ConfigError(f"run folder {str(run_dir)!r} already holds a run; use --resume {run_dir} or another name")
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(cfg, run_dir / "config.yaml")
    resume_checks.new_run_id(run_dir)
    return run_dir


def train(cfg: Optional[RunConfig], out: Path = Path("runs"), resume: Optional[Path] = None, progress_bar: bool = True,
          stop_after: Optional[int] = None, time_limit: Optional[float] = None,
          resume_overrides: Sequence[str] = ()) -> Path:
    """Run (or resume) training; returns the run folder.

    ``resume`` is a run folder: its saved config and newest full checkpoint are used (``cfg``
    is ignored) after the checks of :mod:`train.training.resume` (the checkpoint's run and config;
    ``resume_overrides`` may change only its safe keys); a run stopped before its first checkpoint
    starts again from its config (a behaviour-cloning warm start reuses the decisions it had
    recorded).  The session ends at
    ``ppo.total_steps``, or earlier: after ``stop_after`` updates in total, once ``time_limit``
    minutes (default: the config's ``time_limit``) have passed in this session, or at SIGINT /
    SIGTERM (a second one aborts at once).  Every end finishes the update in progress and writes
    a full checkpoint, ``final.pt`` (the policy as it stands), ``summary.json`` (with
    ``stopped_by``) and the curves, so that ``resume`` continues exactly.
    """
    saved = None
    if resume is not None:
        run_dir = Path(resume)
        cfg, saved = _resume(run_dir, resume_overrides)
    elif cfg is None:
        raise ValueError("train needs a config or a run to resume")
    else:
        run_dir = prepare_run(cfg, Path(out))
    limit = time_limit if time_limit is not None else cfg.time_limit
    deadline = None if limit is None else time.monotonic() + 60.0 * limit
    trainer = Trainer(cfg, run_dir)
    if saved is not None:
        trainer.load(saved)
    else:
        warm_start(trainer, progress_bar)
    p = trainer.progress
    writer = SummaryWriter(str(run_dir / "tb"), purge_step=p.update if p.update else None)
    bar = tqdm(total=cfg.ppo.total_steps, initial=min(p.global_step, cfg.ppo.total_steps), unit="dec",
               disable=not progress_bar, dynamic_ncols=True, desc=cfg.name)
    stop = StopSignals()
    stopped_by = "total_steps"
    saved_at = p.update
    try:
        while p.global_step < cfg.ppo.total_steps:
            if stop_after is not None and p.update >= stop_after:
                stopped_by = "stop_after"
                break
            if deadline is not None and time.monotonic() >= deadline:
                stopped_by = "time_limit"
                break
            if stop.received:
                stopped_by = stop.received
                break
            before = p.global_step
            metrics = trainer.iteration()
            _log(writer, metrics, p.update)
            bar.update(min(p.global_step, cfg.ppo.total_steps) - min(before, cfg.ppo.total_steps))
            done = p.global_step >= cfg.ppo.total_steps
            if (cfg.eval.every and p.update % cfg.eval.every == 0) or done:
                trainer.evaluate()
                _log_eval(writer, trainer.last_eval, p.update)
            if p.update % cfg.checkpoint_every == 0:
                trainer.save()
                saved_at = p.update
            bar.set_postfix(_headline(metrics, trainer.last_eval), refresh=False)
        if p.update != saved_at or not checkpoint.list_checkpoints(run_dir / "checkpoints"):
            trainer.save()
        checkpoint.save_policy(trainer.net, run_dir / "final.pt")
    finally:
        stop.restore()
        bar.close()
        writer.close()
        trainer.close()
    summary = {"update": p.update, "global_step": p.global_step, "finished": p.global_step >= cfg.ppo.total_steps,
               "stopped_by": stopped_by, "best_win_rate": p.best, "eval": trainer.last_eval}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    from train.training.curves import export  # matplotlib only when a run ends

    export(run_dir)
    return run_dir


class StopSignals:
    """While it is installed, SIGINT and SIGTERM ask the training loop to stop after the update in
    progress (``received`` names the signal); a second one aborts at once (KeyboardInterrupt).
    Installed only in the main thread (elsewhere Python allows no handlers, and it does nothing)."""

    def __init__(self) -> None:
        self.received: Optional[str] = None
        self._previous: dict[int, Any] = {}
        if threading.current_thread() is threading.main_thread():
            for number in (signal.SIGINT, signal.SIGTERM):
                self._previous[number] = signal.signal(number, self._handle)

    def _handle(self, number: int, frame: Any) -> None:
        if self.received is not None:
            self.restore()
            raise KeyboardInterrupt
        self.received = signal.Signals(number).name
        print(f"\n{self.received}: stopping after this update with a checkpoint (again to abort)", file=sys.stderr)

    def restore(self) -> None:
        """Put the handlers back as they were."""
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous = {}


def _resume(run_dir: Path, overrides: Sequence[str]) -> tuple[RunConfig, Optional[dict[str, Any]]]:
    """The config and newest full checkpoint (None: start from the config) a resumed session goes on
    from, after :mod:`train.training.resume`'s checks and clean-up; logs the safe changes it applies."""
    saved_cfg, cfg = resume_checks.resume_config(run_dir, overrides)
    folder = run_dir / "checkpoints"
    half_written = checkpoint.remove_stale_temporaries(folder)
    checkpoint.remove_stale_temporaries(run_dir)
    saved = checkpoint.latest_full(folder)
    if saved is None:
        if folder.exists() and not half_written:
            raise checkpoint.CheckpointError(f"no checkpoint to resume from in {str(folder)!r}")
        update = 0  # killed before (or while writing) its first checkpoint: it starts again from its config
    else:
        resume_checks.check_checkpoint(run_dir, saved, saved_cfg, str(checkpoint.list_checkpoints(folder)[-1]))
        resume_checks.trim_eval_log(run_dir, saved["update"])
        update = saved["update"]
    for line in resume_checks.apply_changes(run_dir, saved_cfg, cfg, update):
        print(f"changed on resume: {line}", file=sys.stderr)
    return cfg, saved


def warm_start(trainer: Trainer, progress_bar: bool = False) -> None:
    """A new run's first weights: ``init``'s checkpoint, else a behaviour-cloned policy when
    ``clone.agent`` is set (its figures go to ``clone.json`` and, epoch by epoch, to TensorBoard's
    ``clone/`` scalars; its weights to ``clone.pt``), else the
    fresh ones.  A magnet (``ppo.magnet_coef``) starts at those weights."""
    cfg = trainer.cfg
    if cfg.init is not None:
        trainer.net.load_state_dict(load_policy(cfg.init).state_dict())
    elif cfg.clone.agent is not None:
        folder = Path(cfg.clone.cache) if cfg.clone.cache else trainer.run_dir / "clone"
        with SummaryWriter(str(trainer.run_dir / "tb")) as writer:
            metrics = clone(trainer.net, cfg, progress_bar, folder, on_epoch=lambda m: _log_clone(writer, m))
        (trainer.run_dir / "clone.json").write_text(json.dumps(metrics, indent=1), encoding="utf-8")
        checkpoint.save_policy(trainer.net, trainer.run_dir / "clone.pt")
    if trainer.magnet is not None:  # the magnet starts where the policy starts
        trainer.magnet.load_state_dict(trainer.net.state_dict())


def _headline(metrics: dict[str, float], last_eval: dict[str, Any]) -> dict[str, str]:
    shown = {"SPS": f"{metrics.get('SPS', 0):.0f}", "ent": f"{metrics.get('entropy', float('nan')):.2f}"}
    for opponent, result in last_eval.get("results", {}).items():
        shown[opponent.split(":")[0]] = f"{100 * result['win_rate_a']:.0f}%"
    return shown
