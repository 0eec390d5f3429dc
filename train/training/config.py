"""The run config of the PPO trainer: dataclasses with a docstring per field, loaded from YAML.

A YAML file in ``configs/`` has exactly the sections and keys of :class:`RunConfig`; keys it
leaves out keep their defaults.  ``--set section.key=value`` overrides (the value is read as
YAML: ``--set ppo.lr=1e-4``, ``--set league.opponents="{self: 1, simple: 1}"``).  An unknown
key, a bad value, a file that is not UTF-8 YAML, a key given twice in a mapping, more than
:data:`MAX_ALIASES` YAML aliases (or aliases expanding past :data:`MAX_NODES` values) and rollouts
larger than the machine's memory (:func:`rollout_bytes`) raise :class:`ConfigError` before any
work starts, naming the file (``config file 'x.yaml': ``) or the override (``--set KEY=VALUE: ``)
and the key.

>>> cfg = load_config(None, ["ppo.lr=1e-4", "env.ruleset=eaai"])
>>> cfg.ppo.lr, cfg.env.ruleset, cfg.ppo.batch_size
(0.0001, 'eaai', 8192)
>>> load_config(None, ["ppo.lr=-1"])
Traceback (most recent call last):
...
train.training.config.ConfigError: --set ppo.lr=-1: ppo.lr: must be a number in (0, 1], got -1
"""
from __future__ import annotations

import ast
import inspect
import math
import os
import re
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Optional, Sequence, Union

import yaml

from agents.neural.policy import FEATURES, Architecture
from ginenv.envs.episode import REWARD_MODES
from ginenv.game.actions import NUM_ACTIONS
from ginenv.game.encoding import OBSERVATION_SIZE
from ginenv.game.privileged import PRIVILEGED_SIZE
from ginenv.game.rules import PRESETS, resolve_ruleset
from train.cluster import ray_missing


class ConfigError(ValueError):
    """A config key that does not exist or a value out of its range (the message names the key)."""


MAX_ALIASES = 100
"""Most YAML aliases (``*anchor``) a config file or a ``--set`` value may hold."""
MAX_NODES = 10_000
"""Most YAML values a config file or a ``--set`` value may expand to, each alias counted at its full size."""


class _Loader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses, with a ConfigError naming the line and before building any value, a key
    given twice in a mapping, more than :data:`MAX_ALIASES` aliases, a recursive alias and a document expanding to
    more than :data:`MAX_NODES` values (a "billion laughs" one)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.aliases = 0
        self.sizes: dict[yaml.Node, int] = {}  # node composed so far -> values it expands to

    def compose_node(self, parent: Optional[yaml.Node], index: Any) -> yaml.Node:
        """The next node, checked as the class says."""
        line = self.peek_event().start_mark.line + 1
        alias = self.check_event(yaml.AliasEvent)
        if alias:
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                raise ConfigError(f"more than {MAX_ALIASES} YAML aliases (line {line})")
        node = super().compose_node(parent, index)
        if node not in self.sizes:
            if alias:  # an alias to a node still being composed: one of its ancestors
                raise ConfigError(f"recursive YAML alias (line {line})")
            if isinstance(node, yaml.MappingNode):
                _refuse_duplicates(node)
            children = [] if isinstance(node, yaml.ScalarNode) else \
                [child for item in node.value for child in (item if isinstance(item, tuple) else (item,))]
            self.sizes[node] = 1 + sum(self.sizes[child] for child in children)
            if self.sizes[node] > MAX_NODES:
                raise ConfigError(f"YAML aliases expand to more than {MAX_NODES} values (line {line})")
        return node


def _refuse_duplicates(node: yaml.MappingNode) -> None:
    """A ConfigError naming the first scalar key ``node`` holds twice and its line (merge keys ``<<`` aside)."""
    seen: set[tuple[str, str]] = set()
    for key, _ in node.value:
        if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
            if (key.tag, key.value) in seen:
                raise ConfigError(f"duplicate key {key.value!r} (line {key.start_mark.line + 1})")
            seen.add((key.tag, key.value))


@dataclass(frozen=True)
class EnvConfig:
    """The games the learner plays (rollouts use :class:`ginenv.envs.batched.BatchedGinEnv`)."""

    ruleset: str = "pagat"
    """Ruleset preset: ``pagat``, ``classic25``, ``oklahoma`` or ``eaai``."""
    episode: str = "hand"
    """``"hand"`` (one hand per episode) or ``"game"`` (hands to the target)."""
    reward_mode: str = "points"
    """``"points"`` (signed hand points; game mode adds the bonuses at the end) or ``"win_loss"``."""
    reward_scale: float = 0.02
    """Multiplies ``points`` rewards (0.02: a 25-point hand is worth 0.5)."""
    num_envs: int = 128
    """Games stepped together; each rollout step takes one decision in each."""


@dataclass(frozen=True)
class PPOConfig:
    """The PPO update (CleanRL's names)."""

    total_steps: int = 2_000_000
    """Learner decisions to train on in the whole run."""
    rollout_steps: int = 64
    """Env steps per rollout; the batch holds the learner's decisions among ``rollout_steps * num_envs``."""
    lr: float = 3e-4
    """Adam learning rate (at the start, see ``anneal_lr``)."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``total_steps``."""
    gamma: float = 0.995
    """Discount per decision of the same seat."""
    gae_lambda: float = 0.95
    """GAE's lambda."""
    batch_size: int = 8192
    """Cap on the decisions per update (a rollout's trainable decisions, at most this many, newest kept)."""
    minibatches: int = 4
    """Minibatches per epoch."""
    epochs: int = 4
    """Passes over each batch."""
    clip: float = 0.2
    """Clipping range of the probability ratio."""
    clip_value: bool = False
    """Clip the value update as PPO2 does."""
    norm_adv: bool = True
    """Normalise advantages per minibatch."""
    ent_coef: float = 0.01
    """Entropy bonus weight (at the start, see ``ent_final``)."""
    ent_final: Optional[float] = None
    """With a value, the entropy bonus goes linearly from ``ent_coef`` at the start to this at ``total_steps``
    (a policy that explored widely early, sharp late: it then trains against a less noisy copy of itself);
    ``null``: ``ent_coef`` throughout."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Global gradient-norm clip."""
    target_kl: Optional[float] = None
    """Stop the epochs early once the approximate KL passes this (``null``: never)."""
    knock_ent_coef: float = 0.0
    """Weight of an entropy bonus on the choice to knock or not (all knocks against all other legal actions),
    averaged over the decisions where both are legal.  The plain entropy bonus is spent mostly on which card
    to play; this one keeps the policy from settling on knocking at every chance (or never) before it has
    learned what holding on is worth; ``0``: off."""
    forbid_knock: float = 0.0
    """Exploration of not knocking: the chance, at each learner decision where it may knock, that its knocks
    are taken out of the legal actions for that decision (it must discard without knocking; big gin stays
    legal).  The values then also learn what holding on is worth, so a policy that always knocks at once sees
    its knocks scored against that; ``0``: off (the random stream is then the same as without the key)."""
    afterstate_coef: float = 0.0
    """Weight of an update that values every legal action of each discard decision (discards, knocks, big gin)
    instead of the sampled one alone.  The rollout plays each in a copy of the game
    (:meth:`ginenv.envs.batched.BatchedGinEnv.afterstates`): a knock or gin is worth the hand's reward, a discard
    minus the critic's value of the opponent's next position (the privileged critic there reads the opponent's
    view and hidden cards; the shaping potential of the opponent's hand is added back).  The update adds PPO's
    clipped objective taken in expectation over all legal actions under the old policy, with these values' advantages
    over their old-policy mean (with ``norm_adv``, divided per minibatch by their root mean square under the old
    policy, as the sampled advantages are by their spread); per decision it weighs as much as the sampled term at
    ``1``.  It gives every card of a discard a signal free of the rest of the hand's noise, where the
    sampled advantage sees one card and all that noise.  Hand episodes only; ``0``: off."""
    magnet_coef: float = 0.0
    """Weight of a penalty on the policy's divergence KL(policy || magnet) from a *magnet* policy, the
    exponential moving average of its own past weights (``magnet_tau``): magnetic mirror descent, the
    regularised self-play that damps the cycling of plain policy gradients in two-player zero-sum games
    (Sokota et al. 2022; an EMA magnet: Maidment et al. 2026).  The entropy bonus is the same penalty with
    the uniform policy as the magnet.  ``0``: off."""
    magnet_tau: float = 0.01
    """How far the magnet's weights move towards the policy's after each update (``magnet_coef``): the
    magnet averages the policy over about ``1 / magnet_tau`` updates."""
    critic_warmup: int = 0
    """Updates at the start of the run that train the value function alone: no policy loss and no entropy bonus,
    and the value loss does not reach the policy's weights (its trunk included), so the policy does not move
    while a new critic learns its values (e.g. after ``init`` from another run's policy, whose critic is not
    carried over); ``0``: off."""
    forbid_as_choice: bool = False
    """With ``forbid_knock`` (a config error without it): record a decision whose knocks were taken out as if
    the policy had chosen to hold on among all its legal actions (the full mask, and the action's
    log-probability under it) instead of under the reduced mask. The update then moves the knock-or-hold split
    itself, with a strength that does not vanish when the policy is sure to knock: a held position worth more
    than the knock pushes it towards holding on, one worth less pushes it further towards the knock. Biased
    towards the held course's samples (they are not importance-weighted), in exchange for a signal; ``false``:
    the reduced mask."""
    algorithm: str = "ppo"
    """``ppo``: clipped policy gradient with a value function (every other key of this section).  ``dmc``: Deep
    Monte Carlo (Zha et al. 2021, DouZero): the policy network's action outputs are action values, trained by
    regression on each decision's Monte Carlo return (discount ``gamma``, no bootstrapping but at the end of a
    rollout; ``epochs`` passes of ``minibatches``), and the learner and its snapshots play ``epsilon``-greedily;
    a shipped policy plays the best value (the agents' greedy choice).  Every discard's value is learned against
    the others' directly, where the policy gradient sees the sampled card's advantage and the hand's noise.  The
    clip, entropy, GAE and value-head keys do nothing with ``dmc``; the levers of ``ppo`` only (a privileged
    critic, ``forbid_knock``, ``knock_ent_coef``, ``afterstate_coef``, ``magnet_coef``, ``critic_warmup``,
    ``rename_suits``) and ``clone.agent`` are config errors with it, and ``init`` should name a ``dmc`` run's
    policy (other policies' outputs are log-odds, not values).  A ``dmc`` policy file says its outputs are values;
    the ``ppo`` agent plays it greedily (its default) and refuses ``sample=true``."""
    epsilon: float = 0.03
    """With ``algorithm: dmc``: the chance that a learner or snapshot decision is drawn uniformly from the legal
    actions instead of taking the best value (exploration)."""
    rename_suits: bool = False
    """Data augmentation by the rules' symmetry: in every pass over the batch each decision is shown with its suits
    renamed by one of the 24 orders of the suits, drawn at random for that pass (its card channels, legal actions,
    action and the privileged critic's hidden cards alike; advantages and returns unchanged).  The probability ratio
    is taken to the probability the rollout recorded for the decision as played (by the symmetry, the chance of the
    renamed action at the renamed position: the ratio is the renamed sample's importance weight), and a negative
    advantage's term is bounded at three times the advantage (dual-clip PPO), since that ratio starts away from 1
    while the network is not yet alike across suits.  Each decision then teaches the policy about all the hands
    that differ from it only by suits, which a card network otherwise learns separately.  Needs ``policy.kind:
    cards``; not with ``afterstate_coef``, ``magnet_coef`` or ``algorithm: dmc``; ``false``: off (no random draws)."""


@dataclass(frozen=True)
class LeagueConfig:
    """Who the learner plays against (:mod:`train.training.league`)."""

    opponents: dict = field(default_factory=lambda: {"self": 0.5, "snapshot": 0.2, "simple": 0.2, "random": 0.1})
    """Sampling weights of opponents per episode: ``self`` (the current policy in both seats), ``snapshot``
    (a frozen past policy) or any agent spec of :func:`agents.make_agent` (``random``, ``greedy:knock_late=5``...)."""
    snapshot_every: int = 10
    """Updates between frozen snapshots of the learner added to the pool."""
    max_snapshots: int = 10
    """The most recent snapshots kept (with ``history: 0`` the oldest leaves first)."""
    history: int = 0
    """Older snapshots kept besides the ``max_snapshots`` most recent, spread over the whole run: a
    snapshot that leaves the recent window joins them, and when they are one too many the one whose
    neighbours are closest in updates leaves (so they thin out evenly as the run goes on). 0: none."""
    prioritise: float = 0.0
    """0: sample by the weights; p > 0: multiply each weight by ``(1 - win rate + 0.05) ** p`` (recent
    episodes), favouring the opponents the learner beats least (one it nearly always beats all but vanishes)."""
    pfsp: float = 0.0
    """Prioritised fictitious self-play among the snapshots: 0 draws a snapshot uniformly; p > 0 draws
    snapshot ``k`` with weight ``(1 - w_k + 0.05) ** p``, ``w_k`` the learner's score in its recent episodes
    against it (0.5 before any), so the past selves that still beat the learner come back most."""


@dataclass(frozen=True)
class CriticConfig:
    """The value function PPO learns with (:mod:`train.training.critic`)."""

    kind: str = "policy"
    """``policy``: the policy network's own value head (it reads the observation); ``privileged``: a
    separate critic that also reads what the seat cannot see (the opponent's hand, the stock order),
    during training only.  The policy and the saved policy files are the same either way."""
    hidden: int = 256
    """Width of the privileged critic's hidden layers."""
    layers: int = 2
    """Hidden layers of the privileged critic."""
    deadwoods: bool = False
    """The privileged critic also reads three rule-derived numbers (the opponent's least deadwood,
    and the opponent's and the seat's own with the stock's next card added; see
    :mod:`ginenv.game.privileged`) beside the hidden cards; ``false``: the cards alone."""
    trunk: str = "shared"
    """What the privileged critic reads besides the hidden cards: ``shared``, the policy trunk's output, and
    its value loss trains that trunk too (the policy's features serve both); ``detached``, the same output,
    but the value loss stops at it (the policy's weights learn from the policy's loss alone); ``own``, the
    policy's input features, through its own layers (``hidden`` x ``layers``), so it shares nothing with
    the policy.  The policy files are the same either way."""
    belief: float = 0.0
    """Weight of an auxiliary loss that models the opponent (``0``: off; needs ``kind: privileged``): a
    head on the policy trunk's output predicts which cards the opponent holds, trained by binary
    cross-entropy against its true hand.  Its gradient shapes the trunk that the policy reads; the head
    itself lives with the privileged critic, so no policy file carries it and play needs no hidden card."""


@dataclass(frozen=True)
class ShapingConfig:
    """Optional reward shaping (off by default)."""

    deadwood: float = 0.0
    """Potential-based shaping by ``phi = -deadwood * reward_scale * deadwood(best 10 cards)``, which leaves
    the optimal policy unchanged (Ng et al. 1999); 0: off, 1: one point of reward scale per point."""


@dataclass(frozen=True)
class CloneConfig:
    """Optional behaviour-cloning warm start: imitate an agent before PPO."""

    agent: Optional[str] = None
    """Agent spec to imitate (e.g. ``simple``, ``greedy``); ``null`` skips cloning."""
    decisions: int = 50_000
    """Decisions of that agent (in self-play) to learn from."""
    epochs: int = 3
    """Passes over them."""
    lr: float = 1e-3
    """Adam learning rate of the cloning phase."""
    chunk: int = 20_000
    """Decisions recorded per chunk (rounded up to whole steps of ``env.num_envs`` games): the
    unit of work of a recording process and of what is kept on disk."""
    workers: int = 1
    """Processes recording chunks side by side (the decisions do not depend on it)."""
    cache: Optional[str] = None
    """Folder keeping the recorded actions, a sub-folder per recording (a killed recording resumes, runs
    of the same recording share it); ``null``: the run folder's ``clone/``."""
    knock_weight: float = 1.0
    """Weight in the cloning loss of the positions where knocking is legal (about 4% of
    decisions, and the costliest to get wrong)."""
    anneal_lr: bool = False
    """Decay the learning rate linearly to 0 over the cloning epochs."""
    augment: bool = False
    """Rename the suits of each training position at random (the rules treat suits alike): more positions
    from the same recording.  Needs ``policy.kind: cards``."""
    dagger: Optional[Union[str, list[Union[str, dict[str, Any]]]]] = None
    """DAgger rounds, games whose positions ``agent`` labels: a driver spec (an earlier clone), ``"A vs B"`` (only
    A's positions), a mapping ``{driver, opponent, agent, episode, decisions, chunk}`` or a list; ``null``: none."""
    dagger_decisions: int = 0
    """Labelled positions of each such extra recording (added to ``decisions``); an ``"A vs B"``
    round plays twice as many decisions, half of them ``B``'s."""
    held_out: int = 0
    """Chunks of the agent's own recording (its last ones) kept out of training and scored after each
    epoch (``clone/held_out_accuracy``); ``0``: none."""

    @property
    def rounds(self) -> list["DaggerRound"]:
        """``dagger`` as a list of rounds (empty without DAgger).

        >>> [r.driver for r in CloneConfig(dagger="random").rounds], CloneConfig().rounds
        (['random'], [])
        """
        entries = [] if self.dagger is None else [self.dagger] if isinstance(self.dagger, str) else self.dagger
        return [dagger_round(entry) for entry in entries]


class DaggerRound(NamedTuple):
    """One ``clone.dagger`` round; ``None``: the clone section's (or the env's) setting."""

    driver: str
    opponent: Optional[str] = None
    agent: Optional[str] = None
    episode: Optional[str] = None
    decisions: Optional[int] = None
    chunk: Optional[int] = None


def dagger_round(entry: Union[str, dict[str, Any]]) -> DaggerRound:
    """The round of a ``clone.dagger`` entry: ``"A"`` (``A`` in both seats), ``"A vs B"`` or
    a mapping of :class:`DaggerRound`'s fields (``driver`` required).

    >>> dagger_round("ppo vs simple")[:2], dagger_round("random")[:2]
    (('ppo', 'simple'), ('random', None))
    >>> dagger_round({"driver": "ppo", "agent": "montecarlo:value=game", "episode": "game"}).episode
    'game'
    """
    if isinstance(entry, dict):
        return DaggerRound(**entry)
    driver, vs, opponent = entry.partition(" vs ")
    return DaggerRound(driver.strip(), opponent.strip() if vs else None)


@dataclass(frozen=True)
class EvalConfig:
    """Periodic evaluation through :func:`train.evaluation.evaluate.evaluate` (mirrored pairs)."""

    every: int = 25
    """Updates between evaluations (0: only at the end)."""
    opponents: tuple = ("random", "simple", "greedy")
    """Agent specs to evaluate against."""
    games: int = 40
    """Games per opponent (an even number: mirrored pairs)."""
    episode: str = "game"
    """``"game"`` (games to the target, as ``ginrummy eval`` plays by default) or ``"hand"`` (single
    hands): what a game of the evaluation is; the console and the TensorBoard tags (``eval_games/``,
    ``eval_hands/``) say which."""
    best_against: str = "simple"
    """Opponent whose win rate picks the ``best.pt`` checkpoint."""


@dataclass(frozen=True)
class RolloutConfig:
    """Where rollouts are collected: in this process, or on Ray actors (:mod:`train.training.shards`)."""

    backend: str = "local"
    """``local``: one collector in the trainer's process; ``ray``: ``workers`` Ray actors, each with a copy of
    the policy and league (``pip install -e '.[ray]'``).  Reproducible for a given seed, backend and ``workers``."""
    workers: int = 2
    """Ray actors collecting rollouts (``ray`` only); each steps about ``env.num_envs / workers``
    games.  A worker that dies is started again from its last state and its rollout is replayed."""
    cpus_per_worker: float = 1.0
    """CPUs Ray reserves for each worker (``ray`` only); Ray gives torch in a worker that many
    threads (at least one)."""
    address: Optional[str] = None
    """Ray cluster to join (``ray`` only): ``auto``, ``HOST:6379`` or ``ray://HOST:10001``; ``null``:
    ``RAY_ADDRESS``, else the cluster ``ray start`` started here, else a Ray runtime in the trainer's process."""


@dataclass(frozen=True)
class RunConfig:
    """One training run.  Sections: ``env``, ``policy``, ``ppo``, ``league``, ``critic``, ``shaping``,
    ``clone``, ``eval``, ``rollout``."""

    name: str = "run"
    """Run name: outputs go to ``OUT/NAME`` (``OUT`` defaults to ``runs``)."""
    seed: int = 1
    """Seeds everything (games, sampling, minibatches, opponents); the same seed replays the run."""
    threads: int = 1
    """Torch CPU threads.  1 is the default because it is the fastest as soon as anything else shares the
    cores: the smoke run took 51 s with 1 thread and 254 s with 2 on a 2-core machine that was also training
    (oversubscribed threads slow small batches down many times over); give 2 on a machine that runs nothing else."""
    device: str = "auto"
    """Where the network, its updates and its inference in rollouts run: ``auto`` (CUDA when present, else
    Apple's MPS, else the CPU), ``cpu``, ``cuda``, ``cuda:N`` or ``mps``.  The engine, the rule-derived
    inputs and the league's snapshots stay on the CPU; a device this machine lacks is an error."""
    precision: str = "auto"
    """The arithmetic of the network's matrix products (:mod:`agents.neural.precision`): ``fp32``,
    ``bf16`` (mixed precision: bfloat16 products under autocast, float32 weights, optimizer, logits and
    losses) or ``auto`` (``bf16`` where the device multiplies bfloat16 in hardware: a CPU with AMX tiles or
    a CUDA device, about 1.5-2x the samples/s there; ``fp32`` elsewhere).  Runs made before this key
    existed resume in ``fp32``."""
    time_limit: Optional[float] = None
    """Minutes of training per session (``null``: none); at the limit the run stops cleanly after the update
    in progress, with a checkpoint, ``final.pt`` and ``summary.json``; ``--resume`` goes on.  ``--time-limit``
    overrides it."""
    checkpoint_every: int = 10
    """Updates between checkpoints."""
    keep_checkpoints: int = 3
    """Most recent checkpoints kept (``best.pt`` is kept apart)."""
    init: Optional[str] = None
    """Start from the weights of this checkpoint (any ``.pt`` of a run with the same ``policy``
    section, e.g. another run's ``best.pt``) instead of fresh ones; cloning is then skipped."""
    env: EnvConfig = field(default_factory=EnvConfig)
    policy: Architecture = field(default_factory=Architecture)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    league: LeagueConfig = field(default_factory=LeagueConfig)
    critic: CriticConfig = field(default_factory=CriticConfig)
    shaping: ShapingConfig = field(default_factory=ShapingConfig)
    clone: CloneConfig = field(default_factory=CloneConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)


# ----- validation -----------------------------------------------------------------------
def _int(low: int, high: int) -> Any:
    def check(value: Any) -> Optional[str]:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"must be an int in {low}..{high}"
        return None
    return check


def _number(low: float, high: float, *, open_low: bool = False) -> Any:
    def check(value: Any) -> Optional[str]:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if ok and (value > low if open_low else value >= low) and value <= high:
            return None
        return f"must be a number in {'(' if open_low else '['}{low:g}, {high:g}]"
    check.numeric = True  # type: ignore[attr-defined]
    return check


def _as_number(value: Any) -> Any:
    """YAML 1.1 reads ``1e-4`` as text: take such text as the number it spells."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _choice(*allowed: Any) -> Any:
    def check(value: Any) -> Optional[str]:
        return None if value in allowed else f"must be one of {list(allowed)}"
    return check


def _flag(value: Any) -> Optional[str]:
    return None if isinstance(value, bool) else "must be true or false"


def _device(value: Any) -> Optional[str]:
    from agents.neural.policy import device_problem

    return device_problem(value)


def _precision(value: Any) -> Optional[str]:
    from agents.neural.precision import precision_problem

    return precision_problem(value)


def _name(value: Any) -> Optional[str]:
    """None for a folder name (letters, digits, ``-``, ``_`` and ``.``, not starting with ``.``, at most 255
    bytes: no ``..``, no separator), else the error."""
    ok = (isinstance(value, str) and value and not value.startswith(".")
          and all(ch.isalnum() or ch in "-_." for ch in value) and len(value.encode("utf-8")) <= 255)
    return None if ok else ("must be a folder name of letters, digits, '-', '_' or '.', not starting with '.' "
                            "(at most 255 bytes)")


def _optional(check: Any) -> Any:
    def optional(value: Any) -> Optional[str]:
        return None if value is None else check(value)
    optional.numeric = getattr(check, "numeric", False)  # type: ignore[attr-defined]
    return optional


def _agent_spec(value: Any) -> Optional[str]:
    from agents import make_agent

    if not isinstance(value, str):
        return "must be an agent spec string"
    try:
        make_agent(value, seed=0)
    except ValueError as err:
        return f"is not a usable agent: {err}"
    return None


def _opponents(value: Any) -> Optional[str]:
    if not isinstance(value, dict) or not value:
        return "must be a non-empty mapping of opponent -> weight"
    for key, weight in value.items():
        if key not in ("self", "snapshot") and (error := _agent_spec(key)):
            return f"has an unknown opponent {key!r} ({error})"
        if _number(0, 1e6)(weight):
            return f"weight of {key!r} must be a number >= 0"
    if sum(value.values()) <= 0:
        return "needs a positive total weight"
    return None


def _backend(value: Any) -> Optional[str]:
    if value not in ("local", "ray"):
        return "must be one of ['local', 'ray']"
    if value == "ray":
        return ray_missing()
    return None


def _specs(value: Any) -> Optional[str]:
    if not isinstance(value, (list, tuple)):
        return "must be a list of agent specs"
    return next((f"entry {spec!r} {err}" for spec in value if (err := _agent_spec(spec))), None)


def clone_chunking(decisions: int, chunk: int, num_envs: int) -> tuple[int, int]:
    """``(steps, chunks)``: how a recording of ``decisions`` is cut, in whole steps of
    ``num_envs`` games, into chunks of about ``chunk`` decisions that cover it.

    >>> clone_chunking(600, 200, 8), clone_chunking(10, 200, 8)
    ((25, 3), (2, 1))
    """
    steps = math.ceil(min(chunk, decisions) / num_envs)
    return steps, math.ceil(decisions / (steps * num_envs))


def _drivers(value: Any) -> Optional[str]:
    if isinstance(value, (list, tuple)) and not value:
        return "must be an agent spec ('A' or 'A vs B') or a non-empty list of rounds"
    entries = list(value) if isinstance(value, (list, tuple)) else [value]
    return next((f"entry {entry!r}: {err}" for entry in entries if (err := _dagger_entry(entry))), None)


def _dagger_entry(entry: Any) -> Optional[str]:
    """The error of one ``clone.dagger`` round, or None."""
    if isinstance(entry, dict):
        unknown = set(entry) - set(DaggerRound._fields)
        if unknown or "driver" not in entry:
            return f"a round's keys are {list(DaggerRound._fields)}, driver required; got {sorted(entry)}"
        for key, check in (("episode", CHECKS["env.episode"]), ("decisions", CHECKS["clone.decisions"]),
                           ("chunk", CHECKS["clone.chunk"])):
            if entry.get(key) is not None and (error := check(entry[key])):
                return f"{key} {error}, got {entry[key]!r}"
    elif not isinstance(entry, str):
        return "must be an agent spec string ('A' or 'A vs B') or a mapping"
    round_ = dagger_round(entry)
    return next((f"{spec!r} {err}" for spec in (round_.driver, round_.opponent, round_.agent)
                 if spec is not None and (err := _agent_spec(spec))), None)


CHECKS: dict[str, Any] = {
    "name": _name, "seed": _int(0, 2**63 - 1), "threads": _int(1, 256), "device": _device, "precision": _precision,
    "time_limit": _optional(_number(0, 10**7, open_low=True)), "checkpoint_every": _int(1, 10**6),
    "keep_checkpoints": _int(1, 1000), "init": _optional(lambda v: None if isinstance(v, str) and v else
                                                          "must be a checkpoint path"),
    "env.ruleset": _choice(*PRESETS), "env.episode": _choice("hand", "game"), "env.reward_mode": _choice(*REWARD_MODES),
    "env.reward_scale": _number(0, 100, open_low=True), "env.num_envs": _int(1, 65536),
    "policy.kind": _choice("cards", "mlp"), "policy.hidden": _int(1, 4096), "policy.layers": _int(1, 16),
    "policy.card_dim": _int(1, 4096),
    "ppo.total_steps": _int(1, 10**12), "ppo.rollout_steps": _int(2, 100_000), "ppo.lr": _number(0, 1, open_low=True),
    "ppo.anneal_lr": _flag, "ppo.gamma": _number(0, 1), "ppo.gae_lambda": _number(0, 1),
    "ppo.batch_size": _int(1, 10**8), "ppo.minibatches": _int(1, 10**6), "ppo.epochs": _int(1, 1000),
    "ppo.clip": _number(0, 10, open_low=True), "ppo.clip_value": _flag, "ppo.norm_adv": _flag,
    "ppo.ent_coef": _number(0, 10), "ppo.ent_final": _optional(_number(0, 10)),
    "ppo.vf_coef": _number(0, 100), "ppo.max_grad_norm": _number(0, 1e6, open_low=True),
    "ppo.target_kl": _optional(_number(0, 100, open_low=True)), "ppo.forbid_knock": _number(0, 0.99),
    "ppo.forbid_as_choice": _flag, "ppo.critic_warmup": _int(0, 10**9),
    "ppo.magnet_coef": _number(0, 100), "ppo.magnet_tau": _number(0, 1, open_low=True),
    "ppo.knock_ent_coef": _number(0, 10), "ppo.afterstate_coef": _number(0, 10),
    "ppo.algorithm": _choice("ppo", "dmc"), "ppo.epsilon": _number(0, 1), "ppo.rename_suits": _flag,
    "league.opponents": _opponents, "league.snapshot_every": _int(1, 10**6), "league.max_snapshots": _int(1, 1000),
    "league.history": _int(0, 1000),
    "league.prioritise": _number(0, 100), "league.pfsp": _number(0, 100),
    "critic.kind": _choice("policy", "privileged"), "critic.hidden": _int(1, 4096), "critic.layers": _int(1, 16),
    "critic.deadwoods": _flag, "critic.trunk": _choice("shared", "detached", "own"),
    "critic.belief": _number(0, 100), "shaping.deadwood": _number(0, 100),
    "clone.agent": _optional(_agent_spec), "clone.decisions": _int(1, 10**8), "clone.epochs": _int(1, 1000),
    "clone.lr": _number(0, 1, open_low=True), "clone.chunk": _int(1, 10**7), "clone.workers": _int(1, 256),
    "clone.knock_weight": _number(0, 1000, open_low=True), "clone.anneal_lr": _flag, "clone.augment": _flag,
    "clone.dagger": _optional(_drivers), "clone.dagger_decisions": _int(0, 10**8),
    "clone.held_out": _int(0, 10**6),
    "clone.cache": _optional(lambda v: None if isinstance(v, str) and v else "must be a folder path"),
    "eval.every": _int(0, 10**6), "eval.opponents": _specs, "eval.games": _int(2, 10**6),
    "eval.episode": _choice("hand", "game"),
    "eval.best_against": lambda v: None if isinstance(v, str) else "must be a string",
    "rollout.backend": _backend, "rollout.workers": _int(1, 4096),
    "rollout.cpus_per_worker": _number(0, 1024, open_low=True),
    "rollout.address": _optional(lambda v: None if isinstance(v, str) and v else "must be a Ray address"),
}
"""Key -> check returning an error text (or None); every field of :class:`RunConfig` has one."""


def field_docs(cls: type = RunConfig, prefix: str = "") -> dict[str, str]:
    """``"section.key" -> docstring`` for every field (read from the class source).

    >>> field_docs()["ppo.clip"]
    'Clipping range of the probability ratio.'
    """
    docs: dict[str, str] = {}
    source = inspect.getsource(cls)
    tree = ast.parse(source)
    body = tree.body[0].body  # type: ignore[attr-defined]
    for node, after in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            docs[prefix + node.target.id] = " ".join(str(after.value.value).split())  # type: ignore[attr-defined]
    if cls is RunConfig:
        for name, section in _SECTIONS.items():
            docs.update(field_docs(section, f"{name}."))
    return docs


def keys_table() -> str:
    """Every key with its default and its doc as a Markdown table (the one docs/training.md shows).

    >>> keys_table().splitlines()[2]
    '| `name` | `run` | Run name: outputs go to `OUT/NAME` (`OUT` defaults to `runs`). |'
    """
    defaults = to_dict(RunConfig())
    lines = ["| key | default | meaning |", "|---|---|---|"]
    for key, doc in field_docs().items():
        section, _, name = key.rpartition(".")
        value = defaults[section][name] if section else defaults[name]
        lines.append(f"| `{key}` | `{_yaml_inline(value)}` | {_markdown(doc)} |")
    return "\n".join(lines)


def _yaml_inline(value: Any) -> str:
    """``value`` in YAML's inline form (``null``, ``true``, ``[a, b]``, ``{k: v}``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml_inline(v) for v in value) + "]"
    return str(value)


def _markdown(doc: str) -> str:
    """A field doc as Markdown: reST roles and double backquotes as code, ``|`` escaped for a table cell."""
    doc = re.sub(r":(?:func|class|mod|meth|data):`~?([^`]+)`", r"``\1``", doc)
    return doc.replace("``", "`").replace("|", "\\|")


_SECTIONS: dict[str, type] = {"env": EnvConfig, "policy": Architecture, "ppo": PPOConfig, "league": LeagueConfig,
                              "critic": CriticConfig, "shaping": ShapingConfig, "clone": CloneConfig,
                              "eval": EvalConfig, "rollout": RolloutConfig}


@contextmanager
def _blame(origin: dict[str, str], *keys: str) -> Iterator[None]:
    """Prefix the message of a ConfigError raised inside with where ``keys`` and the keys under them came from:
    their entries in ``origin`` (key -> ``config file 'x.yaml'`` or ``--set KEY=VALUE``), if any."""
    try:
        yield
    except ConfigError as err:
        sources = dict.fromkeys(source for key, source in origin.items()
                                if any(key == k or key.startswith(k + ".") for k in keys))
        if not sources:
            raise
        raise ConfigError(f"{', '.join(sources)}: {err}") from None


def _record(origin: dict[str, str], key: str, value: Any, where: str) -> None:
    """Note in ``origin`` that ``key`` and, ``value`` being a mapping, each key of it come from ``where``."""
    for stale in [k for k in origin if k.startswith(key + ".")]:
        del origin[stale]
    origin[key] = where
    if isinstance(value, dict):
        origin.update({f"{key}.{inner}": where for inner in value})


def _refuse_unknown(kind: type, data: dict[str, Any], prefix: str, origin: dict[str, str]) -> None:
    """A ConfigError naming every key of ``data`` that is not a field of ``kind`` (and where they came from)."""
    known = {f.name for f in fields(kind)}
    unknown = sorted(f"{prefix}{key}" for key in data if key not in known)
    if unknown:
        where = f" in {prefix[:-1]}" if prefix else ""
        with _blame(origin, *unknown):
            raise ConfigError(f"unknown config key(s) {unknown}; known{where}: {sorted(known)}")


def _build(data: dict[str, Any], origin: dict[str, str]) -> RunConfig:
    """A RunConfig from nested plain data, every key checked (an error says where the key came from, see
    :func:`_blame`)."""
    _refuse_unknown(RunConfig, data, "", origin)
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in _SECTIONS:
            values[key] = _section(key, value, origin)
        else:
            with _blame(origin, key):
                values[key] = _checked(key, value)
    return RunConfig(**values)


def _section(name: str, value: Any, origin: dict[str, str]) -> Any:
    kind = _SECTIONS[name]
    if value is None:
        return kind()
    if not isinstance(value, dict):
        with _blame(origin, name):
            raise ConfigError(f"{name}: must be a mapping of keys, got {value!r}")
    _refuse_unknown(kind, value, f"{name}.", origin)
    checked: dict[str, Any] = {}
    for key, item in value.items():
        with _blame(origin, f"{name}.{key}"):
            checked[key] = _checked(f"{name}.{key}", item)
    if name == "eval" and "opponents" in checked:
        checked["opponents"] = tuple(checked["opponents"])
    return kind(**checked)


def _checked(key: str, value: Any) -> Any:
    """``value`` for ``key`` (numbers written as text converted), or a ConfigError naming the key."""
    check = CHECKS[key]
    if getattr(check, "numeric", False):
        value = _as_number(value)
    error = check(value)
    if error:
        raise ConfigError(f"{key}: {error}, got {value!r}")
    return value


def to_dict(cfg: RunConfig) -> dict[str, Any]:
    """Plain nested data (what the run saves as ``config.yaml``)."""
    data = asdict(cfg)
    data["eval"]["opponents"] = list(cfg.eval.opponents)
    return data


def save_config(cfg: RunConfig, path: Path) -> None:
    """Write ``cfg`` as YAML to ``path`` (a run's ``config.yaml``; keys in their declared order,
    since the order of ``league.opponents`` matters), readable again by :func:`load_config`."""
    path.write_text(yaml.safe_dump(to_dict(cfg), sort_keys=False), encoding="utf-8")


def rollout_bytes(cfg: RunConfig) -> int:
    """Bytes one rollout allocates, roughly: per entry (step, game) the buffers of
    :meth:`train.training.collect.Collector.collect` hold the features (``FEATURES[policy.kind]`` float32), the
    mask (``NUM_ACTIONS`` bools), about 64 bytes of numbers and, with ``critic.kind: privileged``, the
    privileged vector (``PRIVILEGED_SIZE`` float32); the batched env holds an observation (float32) per game.

    >>> rollout_bytes(RunConfig()), rollout_bytes(RunConfig(critic=CriticConfig(kind="privileged")))
    (29379584, 32885760)
    >>> round(rollout_bytes(RunConfig(env=EnvConfig(num_envs=65536), ppo=PPOConfig(rollout_steps=100_000))) / 2**40, 1)
    20.6
    """
    entry = FEATURES[cfg.policy.kind] * 4 + NUM_ACTIONS + 64
    if cfg.critic.kind == "privileged":
        entry += PRIVILEGED_SIZE * 4
    return cfg.env.num_envs * (cfg.ppo.rollout_steps * entry + OBSERVATION_SIZE * 4)


def _physical_memory() -> Optional[int]:
    """This machine's physical memory in bytes, or None where the system does not say."""
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # no os.sysconf (Windows), or no such setting
        return None
    return pages * page_size if pages > 0 and page_size > 0 else None


def _check_memory(cfg: RunConfig) -> None:
    """A ConfigError when :func:`rollout_bytes` passes the physical memory (no check where it is unknown)."""
    need, memory = rollout_bytes(cfg), _physical_memory()
    if memory is not None and need > memory:
        raise ConfigError(f"env.num_envs ({cfg.env.num_envs}) x ppo.rollout_steps ({cfg.ppo.rollout_steps}): "
                          f"a rollout needs about {need / 2**30:.1f} GiB, more than this machine's "
                          f"{memory / 2**30:.1f} GiB of memory")


def _apply_override(data: dict[str, Any], origin: dict[str, str], item: str) -> None:
    """Set in ``data`` the key ``item`` (``KEY=VALUE``, the value read as YAML) names, noting it in ``origin``;
    a malformed one is a ConfigError naming ``--set item``."""
    where = f"--set {item}"
    key, eq, raw = item.partition("=")
    if not eq or not key:
        raise ConfigError(f"{where}: must be section.key=value")
    parts = key.strip().split(".")
    if len(parts) > 2 or (len(parts) == 2 and parts[0] not in _SECTIONS):
        raise ConfigError(f"{where}: unknown config key {key!r}; sections: {sorted(_SECTIONS)}")
    try:
        value = yaml.load(raw, Loader=_Loader) if raw.strip() else None
    except yaml.YAMLError as err:
        raise ConfigError(f"{where}: {key}: value {raw!r} is not valid YAML ({err})") from None
    except ConfigError as err:
        raise ConfigError(f"{where}: {key}: {err}") from None
    if len(parts) == 1:
        data[parts[0]] = value
        _record(origin, parts[0], value, where)
        return
    section = data.get(parts[0])
    if section is None:
        section = data[parts[0]] = {}
    if isinstance(section, dict):  # otherwise the section is refused as the file has it
        section[parts[1]] = value
        origin[".".join(parts)] = where


def _read(path: Path) -> dict[str, Any]:
    """The sections and keys of the config file at ``path`` (none when it is empty or only comments), or a
    ConfigError naming the file."""
    where = f"config file {str(path)!r}"
    if not path.is_file():
        raise ConfigError(f"{where}: does not exist")
    try:
        loaded = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except UnicodeDecodeError as err:
        raise ConfigError(f"{where}: not valid UTF-8 ({err.reason} at byte {err.start})") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{where}: not valid YAML: {err}") from None
    except ConfigError as err:
        raise ConfigError(f"{where}: {err}") from None
    if loaded is not None and not isinstance(loaded, dict):
        raise ConfigError(f"{where}: must hold a mapping of sections, got {type(loaded).__name__}")
    return {key: (dict(value) if isinstance(value, dict) else value) for key, value in (loaded or {}).items()}


def load_config(path: Union[str, Path, None], overrides: Sequence[str] = ()) -> RunConfig:
    """The config in the YAML file at ``path`` (``None``: all defaults) with ``overrides`` applied; what it refuses
    is a ConfigError naming the key and the file or the ``--set`` override it came from."""
    data: dict[str, Any] = {}
    origin: dict[str, str] = {}
    if path is not None:
        data = _read(Path(path))
        for key, value in data.items():
            _record(origin, str(key), value, f"config file {str(path)!r}")
    for item in overrides:
        _apply_override(data, origin, item)
    cfg = _build(data, origin)
    with _blame(origin, "eval.best_against", "eval.opponents"):
        if cfg.eval.best_against not in cfg.eval.opponents:
            raise ConfigError(f"eval.best_against: must be one of eval.opponents {list(cfg.eval.opponents)}, "
                              f"got {cfg.eval.best_against!r}")
    with _blame(origin, "rollout.backend", "rollout.workers", "env.num_envs"):
        if cfg.rollout.backend == "ray" and cfg.rollout.workers > cfg.env.num_envs:
            raise ConfigError(f"rollout.workers: must be at most env.num_envs ({cfg.env.num_envs}) so that every "
                              f"worker has a game, got {cfg.rollout.workers}")
    with _blame(origin, "clone.dagger", "clone.dagger_decisions", "clone.agent"):
        unpaired = (cfg.clone.dagger is None) != (cfg.clone.dagger_decisions == 0)
        if unpaired or (cfg.clone.dagger and not cfg.clone.agent):
            raise ConfigError("clone.dagger and clone.dagger_decisions go together, and need clone.agent (the "
                              f"labeller); got agent={cfg.clone.agent!r}, dagger={cfg.clone.dagger!r}, "
                              f"dagger_decisions={cfg.clone.dagger_decisions}")
    with _blame(origin, "clone.held_out", "clone.decisions", "clone.chunk", "env.num_envs"):
        _, chunks = clone_chunking(cfg.clone.decisions, cfg.clone.chunk, cfg.env.num_envs)
        if cfg.clone.held_out >= chunks:
            raise ConfigError(f"clone.held_out: must leave at least one of the {chunks} chunks of clone.decisions "
                              f"for training, got {cfg.clone.held_out}")
    with _blame(origin, "critic.trunk", "critic.kind"):
        if cfg.critic.trunk != "shared" and cfg.critic.kind != "privileged":
            raise ConfigError("critic.trunk: needs critic.kind 'privileged' (the policy's own value head reads "
                              f"its trunk), got {cfg.critic.kind!r}")
    with _blame(origin, "critic.belief", "critic.kind"):
        if cfg.critic.belief > 0 and cfg.critic.kind != "privileged":
            raise ConfigError("critic.belief: needs critic.kind 'privileged' (the head learns from the hidden "
                              f"cards that only the privileged critic's batch carries), got {cfg.critic.kind!r}")
    with _blame(origin, "ppo.forbid_as_choice", "ppo.forbid_knock"):
        if cfg.ppo.forbid_as_choice and not cfg.ppo.forbid_knock:
            raise ConfigError("ppo.forbid_as_choice: needs ppo.forbid_knock above 0 (it changes how the holds that "
                              "forbid_knock forces are recorded; without them it does nothing)")
    with _blame(origin, "ppo.afterstate_coef", "env.episode"):
        if cfg.ppo.afterstate_coef and cfg.env.episode != "hand":
            raise ConfigError("ppo.afterstate_coef: needs env.episode 'hand' (a hand's end in a game to a target "
                              f"would also need the game's bonuses), got {cfg.env.episode!r}")
    with _blame(origin, "ppo.algorithm", *DMC_EXCLUDES):
        _check_dmc(cfg)
    with _blame(origin, "ppo.rename_suits", "policy.kind", "ppo.afterstate_coef", "ppo.magnet_coef"):
        _check_rename_suits(cfg)
    with _blame(origin, "clone.augment", "policy.kind"):
        if cfg.clone.augment and cfg.policy.kind != "cards":
            raise ConfigError("clone.augment: needs policy.kind 'cards' (its card channels are renamed), "
                              f"got {cfg.policy.kind!r}")
    resolve_ruleset(cfg.env.ruleset)
    with _blame(origin, "env.num_envs", "ppo.rollout_steps"):
        _check_memory(cfg)
    if cfg.init is not None:
        with _blame(origin, "init", "policy"):
            _check_init(cfg.init, cfg.policy)
    return cfg


DMC_EXCLUDES = ("critic.kind", "ppo.forbid_knock", "ppo.knock_ent_coef", "ppo.afterstate_coef", "ppo.magnet_coef",
                "ppo.critic_warmup", "clone.agent", "ppo.rename_suits")
"""The keys of ``ppo`` levers that ``ppo.algorithm: dmc`` refuses when they are on."""


def _check_dmc(cfg: RunConfig) -> None:
    """``ppo.algorithm: dmc`` with a lever of the policy gradient on is a config error naming the keys."""
    if cfg.ppo.algorithm != "dmc":
        return
    on = {"critic.kind": cfg.critic.kind != "policy", "ppo.forbid_knock": cfg.ppo.forbid_knock > 0,
          "ppo.knock_ent_coef": cfg.ppo.knock_ent_coef > 0, "ppo.afterstate_coef": cfg.ppo.afterstate_coef > 0,
          "ppo.magnet_coef": cfg.ppo.magnet_coef > 0, "ppo.critic_warmup": cfg.ppo.critic_warmup > 0,
          "clone.agent": cfg.clone.agent is not None, "ppo.rename_suits": cfg.ppo.rename_suits}
    if any(on.values()):
        raise ConfigError("ppo.algorithm: 'dmc' learns action values, without a critic, the policy gradient's "
                          "levers or cloning (a clone's outputs are log-odds, not values); turn off "
                          f"{', '.join(key for key, value in on.items() if value)}")


def _check_rename_suits(cfg: RunConfig) -> None:
    """``ppo.rename_suits`` needs a card network, and does not rename the all-action or magnet terms."""
    if not cfg.ppo.rename_suits:
        return
    if cfg.policy.kind != "cards":
        raise ConfigError(f"ppo.rename_suits: needs policy.kind 'cards' (its card channels are renamed), "
                          f"got {cfg.policy.kind!r}")
    on = [key for key, value in (("ppo.afterstate_coef", cfg.ppo.afterstate_coef),
                                 ("ppo.magnet_coef", cfg.ppo.magnet_coef)) if value > 0]
    if on:
        raise ConfigError(f"ppo.rename_suits: renames the sampled decisions only; turn off {', '.join(on)}")


def _check_init(path: str, policy: Architecture) -> None:
    """``init`` must name a readable checkpoint of the same architecture."""
    from agents.neural.policy import CheckpointError, read_checkpoint

    try:
        stored = read_checkpoint(path).get("policy")
    except CheckpointError as err:
        raise ConfigError(f"init: {err}") from None
    if stored != asdict(policy):
        raise ConfigError(f"init: {path!r} holds a policy {stored}, "
                          f"but the config's policy section is {asdict(policy)}")

