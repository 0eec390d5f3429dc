"""``rollout``: a trained policy improved by search, with rollouts that the policy plays itself.

Everything is read from the observation (:func:`ginenv.decode`); the policy is a
:class:`~agents.neural.policy.NeuralAgent` (``path``, or the shipped policy of the observed ruleset).

* A single legal action is played at once.
* **Candidates**: the policy's ``candidates`` most likely legal actions, its own choice first.  When
  only one is left, it is played without search.
* **Sampling**: ``samples`` full hands consistent with the observation, the searcher as seat 0
  (:func:`agents.search.montecarlo.sample_hands`, ``prior`` as for ``montecarlo``); with ``belief``
  (an opponent model's file, :mod:`agents.neural.belief`) the opponent's unseen cards are drawn by
  the model's guess from the observation instead of by ``prior``.
* **Rollouts**: every candidate is applied to every sampled hand (common random numbers), and
  each hand is played to its end by the policy for both seats, its most likely action each time
  (``sample=true``: an action drawn from the policy, with the agent's own seeded generator).
  All the hands of one decision move together: one compiled call encodes every position to act
  (:func:`ginenv.game.encoding.write_some`), one forward pass decides them, one compiled call
  applies the actions (:func:`ginenv.game.core.apply_some`).
* **Value** (``value``): the hand's points from my side (``"points"``, default), or in a game to a
  target the chance of winning the game from the scores each hand leaves (``"game"``;
  :func:`agents.search.montecarlo.worth`).
* **Choice**: the policy's own choice, unless other candidates beat it on the paired per-sample
  differences by more than ``margin`` standard errors; then the best of those by mean
  (:func:`agents.search.montecarlo.pick`).

The searcher's opponent in the rollouts is the same policy, dealt the cards the searcher cannot
see; so the search improves on the policy against players like itself.  Randomness comes only
from the agent's own seeded generator (the sampled hands).  A decision costs one forward pass per
step of the longest rollout (about 20 steps early in a hand): about 70 ms at the defaults on one
core of the 2-core development machine, the other core busy.

>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> agent = RolloutAgent(seed=0, samples=4)
>>> observation = env.observe(env.agent_selection)
>>> int(observation["action_mask"][agent.act(observation)])
1
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import torch

from agents.base import Observation, legal_actions
from agents.neural.belief import BeliefError, load_belief
from agents.neural.policy import NeuralAgent
from agents.search.montecarlo import PRIORS, VALUES, pick, sample_hands, worth
from agents.search.positions import ME, Rules, points
from ginenv.game import core
from ginenv.game.actions import NUM_ACTIONS
from ginenv.game.checks import checked_float, checked_int, checked_seed
from ginenv.game.encoding import OBSERVATION_SIZE, MatchInfo, ObservationView, decode, rules_vector, write_some

MAX_SAMPLES = 4096
"""Largest ``samples`` (every rollout of a decision is held and decided at once)."""


class RolloutAgent:
    """``rollout``: a policy's choice checked by determinized rollouts of that policy (module docstring).

    Args:
        seed: seeds the agent's own generator (the sampled hands): ``None`` or an int ``0..2**128 - 1``.
        path: the policy file; default ``None``: the shipped policy of the observed ruleset (as ``ppo``).
        samples: sampled hands per searched decision (1..``MAX_SAMPLES``).
        candidates: the policy's most likely legal actions searched (1..108; 1 plays the policy).
        margin: standard errors by which a candidate must beat the policy's choice (finite, ``>= 0``).
        prior: how the opponent's unknown cards are dealt, ``"kept"`` or ``"uniform"``.
        value: ``"points"`` or ``"game"`` (see the module docstring).
        sample: draw the rollouts' actions from the policy instead of taking the most likely one.
        belief: an opponent model's file (:func:`agents.neural.belief.load_belief`) whose guess deals
            the opponent's unseen cards; default ``None``: ``prior``.
        threads, precision: the policy's torch threads and arithmetic (as for ``ppo``).
    """

    def __init__(self, seed: Optional[int] = None, *, path: Optional[str] = None, samples: int = 32,
                 candidates: int = 3, margin: float = 1.0, prior: str = "kept", value: str = "points",
                 sample: bool = False, belief: Optional[str] = None, threads: int = 1,
                 precision: str = "auto") -> None:
        self.samples = checked_int("rollout: samples", samples, 1, MAX_SAMPLES)
        self.candidates = checked_int("rollout: candidates", candidates, 1, NUM_ACTIONS)
        self.margin = checked_float("rollout: margin", margin, 0.0, closed=True)
        if prior not in PRIORS:
            raise ValueError(f"rollout: prior must be one of {PRIORS}, got {prior!r}")
        if value not in VALUES:
            raise ValueError(f"rollout: value must be one of {VALUES}, got {value!r}")
        self.prior, self.value = prior, value
        self.name = "rollout"
        self._rng = np.random.default_rng(checked_seed(seed, "rollout: seed"))
        try:
            policy_seed = int(self._rng.integers(2**63)) if sample else None  # drawn only when it is used
            self.policy = NeuralAgent(policy_seed, path=path, sample=sample, threads=threads, precision=precision)
        except ValueError as err:
            raise ValueError(f"rollout: {str(err).removeprefix('ppo: ')}") from None
        try:
            self.belief = None if belief is None else load_belief(belief)
        except BeliefError as err:
            raise ValueError(f"rollout: belief: {err}") from None

    def act(self, observation: Observation) -> int:
        legal = legal_actions(observation)
        if len(legal) == 1:
            return int(legal[0])
        obs = np.asarray(observation["observation"], dtype=np.float32)[None]
        mask = np.asarray(observation["action_mask"])
        options = self.candidate_actions(obs, mask)
        if len(options) == 1:
            return options[0]
        view = decode(observation)
        points = self.play_out(view, self.samples_of(view, mask, obs), options)
        return options[pick(worth(view, points, self.value), self.margin)]

    def samples_of(self, view: ObservationView, mask: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """:func:`agents.search.montecarlo.sample_hands` with this agent's generator, ``samples`` and
        ``prior``, or its opponent model's guess for ``obs [1, OBS]``."""
        logits = None
        if self.belief is not None:
            with torch.inference_mode():
                logits = self.belief(torch.from_numpy(obs)).double().numpy()[0]
        return sample_hands(view, mask, self._rng, self.samples, self.prior, logits)

    def candidate_actions(self, obs: np.ndarray, mask: np.ndarray) -> list[int]:
        """The policy's ``candidates`` most likely legal actions for ``obs [1, OBS]``, most likely first."""
        probs = self.policy.distribution(obs, mask[None]).probs[0].numpy()
        legal = np.flatnonzero(mask)
        ranked = legal[np.argsort(-probs[legal], kind="stable")]
        return [int(action) for action in ranked[:self.candidates]]

    def play_out(self, view: ObservationView, hands: np.ndarray, options: list[int]) -> np.ndarray:
        """``[len(options), len(hands)]`` hand points from my side (seat 0): option ``k`` applied to
        every sampled hand, each hand then played to its end by the policy for both seats."""
        rules = Rules.of(view.ruleset)
        count = len(options) * len(hands)
        rows = np.tile(hands, (len(options), 1))
        ended = np.empty(count, dtype=np.int64)
        core.apply_some(rows, np.arange(count), np.repeat(np.array(options, dtype=np.int64), len(hands)),
                        rules.max_turns, ended)
        match = MatchInfo(view.scores, view.hands_won, view.target).as_array()
        matches, encoded = np.tile(match, (count, 1)), rules_vector(view.ruleset)
        obs = np.zeros((count, OBSERVATION_SIZE), dtype=np.float32)
        masks = np.zeros((count, NUM_ACTIONS), dtype=np.int8)
        seats = np.empty(count, dtype=np.int64)
        playing = np.flatnonzero(rows[:, core.PHASE] != core.OVER)
        while playing.size:
            write_some(rows, matches, encoded, rules.big_gin, playing, obs, masks, seats)
            actions = self.policy.act_batch(obs[playing], masks[playing])
            core.apply_some(rows, playing, actions, rules.max_turns, ended)
            playing = playing[rows[playing, core.PHASE] != core.OVER]
        won = np.array([points(row, rules, ME) for row in rows], dtype=np.float64)
        return won.reshape(len(options), len(hands))

    def reset(self) -> None:
        pass


__all__ = ["RolloutAgent", "MAX_SAMPLES"]
