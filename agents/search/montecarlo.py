"""``montecarlo``: a knock-scheduled ``greedy`` guide checked by determinized sampling with
fast rollouts (the strongest baseline).

Exact policy, everything read from the observation (:func:`ginenv.decode`, the rules
included), with the rules of :mod:`agents.tactics` and the positions of
:mod:`agents.search.positions`:

* A single legal action is played at once; **big gin** when legal, then **gin** (a knock
  leaving no deadwood) when legal, are played without search.
* **Guide**: the ``greedy`` agent with this agent's knock schedule ``knock_early`` /
  ``knock_late`` (greedy's other parameters at their defaults).  The schedule defaults by
  the observed ruleset's scoring (:func:`default_knock`): where an undercut costs 25 or more
  (``classic25``, ``eaai``, ``oklahoma``) ``(6, 0)`` — knock with at most 6 deadwood at the
  deal, falling to gin only when the stock runs out — else ``(10, 10)``, knock as soon as
  allowed.  ``guide``: another agent's choice instead (e.g. ``"ppo"``: the search then
  improves on a trained policy); the candidates below are still greedy's.
* **Candidates** (``search`` picks the decisions searched, default all three), the guide's
  choice first, duplicates removed.  ``t`` (offer / draw): the other of take the face-up
  card / pass or draw, taking only when it lowers my least deadwood
  (:func:`agents.tactics.lowers`).  ``k``: the knock leaving the least deadwood when a knock
  is legal (and, when the guide knocks, the best plain discard).  ``d``: the ``candidates``
  best plain discards in greedy's order without lookahead
  (:func:`agents.tactics.rank_discards`).  A decision with one candidate is not searched.
* **Sampling** (:meth:`MonteCarloAgent.samples_of`).  ``samples`` times: deal the cards I
  cannot see (all but my hand, the discard pile and the opponent's known picks) into the
  opponent's ``hidden`` cards (10 minus its known picks) and a stock of the observed size,
  in a full hand that shows me exactly my observation (:func:`agents.search.positions.position`).
  ``prior="kept"`` (default): the opponent has drawn about ``k = max(0, opponent discards -
  known picks)`` stock cards, so it is dealt ``hidden`` random unknown cards and then draws
  ``k`` more one at a time, each time dropping the card that leaves the least deadwood (never
  a known pick; :func:`agents.search.playout.improved`); the cards it does not hold go back
  into a reshuffled stock.  ``"uniform"``: a uniform deal.
* **Rollouts** (:func:`agents.search.playout.evaluate`, compiled): every candidate is applied
  to every sampled hand (common random numbers) and the hand is played to its end by the
  rollout policy of :mod:`agents.search.playout` for both seats; I (seat 0) knock by the
  guide's schedule, the opponent as soon as the knock limit allows.  Value (``value``):
  ``"points"`` (default), the hand's points under the observed ruleset from my side (+ won,
  - lost, 0 dead); ``"game"``, in a game to a target, the chance of winning the game from
  the running scores that hand leaves (:mod:`agents.search.equity`; hand points in hand mode).
* **Choice**: the guide's choice, unless other candidates beat it on the paired per-sample
  differences by more than ``margin`` standard errors; then the one of those with the best
  mean.  Randomness comes only from the agent's own seeded generator.

Parameters (by spec, e.g. ``"montecarlo:samples=128"``): ``samples`` (default 256),
``candidates`` (default 6), ``margin`` (default 1.0), ``search`` (default ``"tkd"``),
``prior`` (default ``"kept"``), ``value`` (default ``"points"``), ``knock_early`` /
``knock_late`` (default by ruleset, above), ``guide`` (default ``None``: greedy).  Its
strength is in ``docs/agents.md``; the runs behind these defaults are in
``docs/experiments/baselines.md``.

>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> agent = MonteCarloAgent(seed=0, samples=4)
>>> observation = env.observe(env.agent_selection)
>>> int(observation["action_mask"][agent.act(observation)])
1
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from agents.base import Observation, legal_actions, parse_spec
from agents.heuristic.greedy import GreedyAgent, choose
from agents.search.equity import game_values, win_table
from agents.search.playout import Settings, evaluate, kept_deals
from agents.search.positions import (
    deal,
    forced,
    known_mask,
    position,
    shuffles,
    unknown_cards,
    unknown_count,
    weighted_orders,
)
from agents.tactics import (
    ALL_CARDS,
    DISCARD,
    NONE,
    OBSERVATION_LAYOUT,
    Seen,
    best_discard,
    legal_words,
    lowers,
    rank_discards,
    read_seen,
)
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from ginenv.game.checks import checked_float, checked_int, checked_seed
from ginenv.game.encoding import ObservationView, decode
from ginenv.game.rules import Ruleset

SEARCHES = "tkd"
"""Decisions that may be searched: t(ake or draw), k(nock or not), d(iscard which card)."""
PRIORS = ("uniform", "kept")
VALUES = ("points", "game")
"""What a rollout's end is worth: the hand's points, or the chance of winning the game."""
MAX_SAMPLES = 100_000
"""Largest ``samples`` (the sampled hands of one decision are held at once)."""


def default_knock(undercut_bonus: int) -> tuple[float, float]:
    """Default knock schedule (``knock_early``, ``knock_late``): as soon as allowed, (10, 10),
    unless undercuts cost 25 or more (``classic25``, ``eaai``, ``oklahoma``): (6, 0)."""
    return (6.0, 0.0) if undercut_bonus >= 25 else (10.0, 10.0)


class MonteCarloAgent:
    """``montecarlo``: determinized sampling with fast rollouts (policy in the module docstring).

    Args:
        seed: seeds the agent's own generator (the samples): ``None`` or an int ``0..2**128 - 1``.
        samples: sampled hands per searched decision (1..``MAX_SAMPLES``).
        candidates: plain discards searched besides greedy's choice and the knock (1..108).
        margin: standard errors by which a candidate must beat greedy's choice (finite, ``>= 0``).
        search: the decisions searched (letters of ``"tkd"``).
        prior: how the opponent's unknown cards are sampled, ``"kept"`` or ``"uniform"``.
        value: ``"points"`` (a rollout is worth its hand points) or ``"game"`` (the chance of
            winning the game from the scores it leaves; points in hand mode).
        knock_early, knock_late: my knock schedule (finite, ``>= 0``; default ``None``: by the
            observed ruleset).
        guide: agent spec whose choice is the guide's (e.g. ``"ppo"``, a trained policy: search
            as policy improvement); default ``None``: ``greedy`` with my knock schedule.
        agent_factory: builds the guide from its spec (``make_agent`` passes itself).
    """

    def __init__(self, seed: Optional[int] = None, *, samples: int = 256, candidates: int = 6,
                 margin: float = 1.0, search: str = "tkd", prior: str = "kept", value: str = "points",
                 knock_early: Optional[float] = None, knock_late: Optional[float] = None,
                 guide: Optional[str] = None, agent_factory: Optional[Callable[..., Any]] = None) -> None:
        samples = checked_int("montecarlo: samples", samples, 1, MAX_SAMPLES)
        candidates = checked_int("montecarlo: candidates", candidates, 1, NUM_ACTIONS)
        margin = checked_float("montecarlo: margin", margin, 0.0, closed=True)
        if not isinstance(search, str) or not set(search) <= set(SEARCHES):
            raise ValueError(f"montecarlo: search must be letters of {SEARCHES!r}, got {search!r}")
        knock_early, knock_late = (None if number is None else checked_float(f"montecarlo: {key}", number, 0.0,
                                                                             closed=True)
                                   for key, number in (("knock_early", knock_early), ("knock_late", knock_late)))
        if prior not in PRIORS:
            raise ValueError(f"montecarlo: prior must be one of {PRIORS}, got {prior!r}")
        if value not in VALUES:
            raise ValueError(f"montecarlo: value must be one of {VALUES}, got {value!r}")
        self.name = "montecarlo"
        self.search, self.prior, self.value = search, prior, value
        self.samples, self.candidates, self.margin = samples, candidates, margin
        self.knock_early, self.knock_late = knock_early, knock_late
        self._rng = np.random.default_rng(checked_seed(seed, "montecarlo: seed"))
        self._guide = None if guide is None else _guide_agent(guide, int(self._rng.integers(2**63)), agent_factory)

    def knock(self, ruleset: Ruleset) -> tuple[float, float]:
        """My knock schedule ``(knock_early, knock_late)`` under ``ruleset``."""
        early, late = default_knock(ruleset.undercut_bonus)
        return (float(early if self.knock_early is None else self.knock_early),
                float(late if self.knock_late is None else self.knock_late))

    def act(self, observation: Observation) -> int:
        legal = legal_actions(observation).tolist()
        if len(legal) == 1:
            return legal[0]
        if BIG_GIN in legal:
            return BIG_GIN
        mask = np.asarray(observation["action_mask"])
        seen = read_seen(np.asarray(observation["observation"]), OBSERVATION_LAYOUT)
        low, knocks = legal_words(mask)
        knock, left = best_discard(seen.hand, ~knocks) if seen.phase == DISCARD else (NONE, NONE)
        if knock != NONE and left == 0:
            return KNOCK_BASE + knock
        view = decode(observation)
        settings = Settings.of(view.ruleset, *self.knock(view.ruleset))
        guide = None if self._guide is None else int(self._guide.act(observation))
        options = self.candidate_actions(seen, low, knocks, knock, settings, guide)
        if len(options) == 1:
            return options[0]
        rows = self.samples_of(view, mask)
        return options[self.pick(self.worth(view, evaluate(rows, np.array(options, dtype=np.int64), settings)))]

    def worth(self, view: ObservationView, points: np.ndarray) -> np.ndarray:
        """:func:`worth` by this agent's ``value``."""
        return worth(view, points, self.value)

    def samples_of(self, view: ObservationView, mask: np.ndarray) -> np.ndarray:
        """:func:`sample_hands` with this agent's generator, ``samples`` and ``prior``."""
        return sample_hands(view, mask, self._rng, self.samples, self.prior)

    def pick(self, values: np.ndarray) -> int:
        """:func:`pick` with this agent's ``margin`` (row 0 is the guide's choice)."""
        return pick(values, self.margin)

    def candidate_actions(self, seen: Seen, low: int, knocks: int, knock: int, settings: Settings,
                          guide: Optional[int] = None) -> list[int]:
        """The actions searched, the guide's choice first (``guide``, else greedy's; see the
        module docstring); ``low`` and ``knocks`` are the legal actions
        (:func:`agents.tactics.legal_words`), ``knock`` the best knock card or ``NONE``."""
        if guide is None:
            guide = choose(seen, low, knocks, GUIDE._replace(knock_early=settings.knock_early,
                                                             knock_late=settings.knock_late))
        if seen.phase != DISCARD:
            if "t" not in self.search:
                return [guide]
            if guide == TAKE_DISCARD:
                return [guide, PASS if low >> PASS & 1 else DRAW_STOCK]
            if low >> TAKE_DISCARD & 1 and seen.top_discard != NONE and lowers(seen.hand, seen.top_discard):
                return [guide, TAKE_DISCARD]
            return [guide]
        options = [guide]
        knocking = guide >= KNOCK_BASE
        if knock != NONE and "k" in self.search:
            options.append(KNOCK_BASE + knock)
        width = self.candidates if "d" in self.search else 1 if knocking and "k" in self.search else 0
        discards = rank_discards(seen, low >> DISCARD_BASE & ALL_CARDS, False, 0.0, 0.0)
        options += [DISCARD_BASE + int(c) for c in discards[:width]]
        return list(dict.fromkeys(options))

    def reset(self) -> None:
        pass


def worth(view: ObservationView, points: np.ndarray, value: str) -> np.ndarray:
    """What rollouts' hand ``points`` (from the searcher's side) are worth by ``value``: the points
    themselves (``"points"``, and always in hand mode), or with ``"game"`` the chance of winning the
    game from the scores each leaves (:mod:`agents.search.equity`)."""
    if value == "points" or not view.game_mode:
        return points
    return game_values(win_table(view.ruleset), view.scores, points)


def sample_hands(view: ObservationView, mask: np.ndarray, rng: np.random.Generator, count: int,
                 prior: str, logits: Optional[np.ndarray] = None) -> np.ndarray:
    """``count`` full hands consistent with the observation ``view`` (``mask``: its action mask),
    the searcher as seat 0, as :mod:`agents.search.positions` positions; the opponent's unknown cards
    dealt by ``prior`` (``"kept"`` or ``"uniform"``, see the module docstring) with ``rng``, or, given
    an opponent model's ``logits`` (52, :mod:`agents.neural.belief`), drawn by their weights
    (:func:`agents.search.positions.weighted_orders`; ``prior`` is then not used)."""
    template = position(view, forced(view, mask)).row
    known, hidden = known_mask(view), unknown_count(view)
    unknown = unknown_cards(template, known)
    if logits is not None:
        return deal(template, known, weighted_orders(logits, unknown, hidden, rng, count), hidden)
    orders = shuffles(unknown, rng, count)
    draws = max(0, len(view.opp_discards) - len(view.opp_picked)) if prior == "kept" else 0
    if draws:
        orders = kept_deals(orders, hidden, draws, known, shuffles(np.arange(view.stock_size), rng, count))
    return deal(template, known, orders, hidden)


def pick(values: np.ndarray, margin: float) -> int:
    """Row of the chosen candidate of ``values [candidates, samples]``: the best mean among those
    that beat row 0 (the default choice) by more than ``margin`` standard errors of the paired
    differences; else 0.

    >>> pick(np.array([[0.0, 0.0, 0.0], [1.0, 1.1, 0.9]]), 1.0)
    1
    """
    best, best_mean = 0, 0.0
    n = values.shape[1]
    for i in range(1, values.shape[0]):
        diff = values[i] - values[0]
        mean = float(diff.mean())
        error = float(diff.std(ddof=1)) / np.sqrt(n) if n > 1 else 0.0
        if mean > margin * error and mean > best_mean:
            best, best_mean = i, mean
    return best


def _guide_agent(spec: str, seed: int, agent_factory: Optional[Callable[..., Any]]) -> Any:
    """The agent of a ``guide`` spec (``montecarlo`` itself is refused: no nested searches)."""
    if not isinstance(spec, str) or parse_spec(spec)[0] == "montecarlo":
        raise ValueError(f"montecarlo: guide must be an agent spec other than montecarlo, got {spec!r}")
    if agent_factory is None:
        raise ValueError("montecarlo: a guide spec needs agent_factory (agents.make_agent passes itself)")
    return agent_factory(spec, seed=seed)


GUIDE = GreedyAgent().policy
"""greedy's default policy; the guide replaces its knock schedule with mine."""


__all__ = ["MonteCarloAgent", "default_knock", "pick", "sample_hands", "worth"]
