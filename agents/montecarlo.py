"""``montecarlo``: a knock-scheduled ``greedy`` guide checked by determinized sampling with
fast rollouts (the strongest baseline).

Exact policy, everything read from :func:`ginenv.decode` of the observation:

* A single legal action is played at once; **big gin** when legal, then **gin** (a knock
  leaving no deadwood) when legal, are played without search.
* **Guide**: the ``greedy`` agent with this agent's knock schedule ``knock_early`` /
  ``knock_late`` (greedy's other parameters at their defaults).  The schedule defaults by
  the ``ruleset`` scoring (:func:`default_knock`): where an undercut costs 25 or more
  (``classic25``, ``eaai``, ``oklahoma``) ``(6, 0)`` — knock with at most 6 deadwood at the
  deal, falling to gin only when the stock runs out — else ``(10, 10)``, knock as soon as
  allowed.  (``greedy:knock_early=6,knock_late=0`` alone beat default ``greedy`` 63.2%
  [59.7%, 66.8%] under ``classic25``, 400 games, seed 7, and lost under ``pagat``.)
* **Candidates** (``search`` picks the decisions searched, default all three), greedy
  guide's choice first, duplicates removed.  ``t`` (offer / draw): the other of take the
  face-up card / pass or draw, where taking is a candidate only when it lowers my least
  deadwood (:func:`agents.rollout.lowers`).  ``k``: the knock leaving the least deadwood when a knock is
  legal (and, when the guide knocks, the best plain discard).  ``d``: the ``candidates``
  best plain discards in the rollout order (least deadwood left, then danger, value, …).
  A decision with one candidate is not searched.
* **Sampling** (:meth:`MonteCarloAgent.samples_of`).  ``samples`` times: deal the cards I
  cannot see (all but my hand, the discard pile and the opponent's known picks) into the
  opponent's hidden cards (10 minus the known ones) and a stock of the observed size, in a
  full hand that shows me exactly my observation (:meth:`ginenv.hand.HandState.from_position`:
  my seat, the phase, the card I may not discard, the opponent's known picks, discards and
  declines, the history; the observed knock limit; no Oklahoma doubling).
  ``prior="kept"`` (default): the opponent has drawn about ``k = max(0, opponent discards -
  known picks)`` stock cards, so it is dealt ``hidden`` random unknown cards and then draws
  ``k`` more one at a time, each time dropping the card that leaves the least deadwood
  (:func:`agents.rollout.improved`; never a known pick) — its hand has improved for as many
  turns as it played; the cards it does not hold go back into a reshuffled stock.
  ``"uniform"``: a uniform deal.
* **Rollouts** (:func:`agents.rollout.evaluate`, compiled): every candidate is applied to
  every sampled hand (common random numbers) and the hand is played to its end by the
  rollout policy of :mod:`agents.rollout` for both seats (take a face-up card that makes a
  meld and lowers the deadwood, else draw; discard the card leaving the least deadwood;
  gin and big gin always); I (seat 0) knock by the same schedule as the guide, the
  opponent as soon as the knock limit allows (as ``greedy`` does).  Value: the hand's
  points under ``ruleset`` from my side (+ won, - lost, 0 dead).
* **Choice**: the guide's choice, unless other candidates beat it on the paired per-sample
  differences by more than ``margin`` standard errors; then the one of those with the best
  mean.  Randomness comes only from the agent's own seeded generator.

Parameters (by spec, e.g. ``"montecarlo:ruleset=classic25,samples=128"``): ``samples``
(default 256), ``candidates`` (default 6), ``margin`` (default 1.0), ``search`` (default
``"tkd"``), ``prior`` (default ``"kept"``), ``knock_early`` / ``knock_late`` (default by
ruleset, above) and ``ruleset`` (the scoring of the simulated
hands and of the knock defaults: a preset name, default ``"pagat"``; the observation does
not carry the bonuses, so name the ruleset played, e.g. ``montecarlo:ruleset=classic25``).

Measured against ``greedy``, whole games to 100, mirrored pairs, 95% pair-cluster intervals
(``benchmarks/strength_ladder.sh``; defaults; 2 workers):

* ``ginrummy eval montecarlo greedy --games 400 --ruleset pagat --seed 11``: 59.8% [54.8%,
  64.7%] (pairs won in both seats 73-34, p = 2.1e-04), +1.39 points per hand; 5.8 ms per
  decision.
* ``ginrummy eval montecarlo:ruleset=classic25 greedy --games 400 --ruleset classic25
  --seed 11``: 73.2% [69.5%, 77.0%] (97-4, p = 3.4e-24), +5.04 points per hand; 6.0 ms per
  decision.

What made the difference (development runs): under ``classic25`` mostly the knock schedule
(``greedy:knock_early=6,knock_late=0`` alone beat ``greedy`` 63.2% [59.7%, 66.8%], 400
games, seed 7); under ``pagat`` the number of samples the compiled rollouts allow — the earlier
pure-Python version (64 samples, 2 discard candidates, the kept prior choosing from the
whole pool at once; about 30 ms per decision) gave 50.5% [43.8%, 57.2%] on the first 200
games of the same seed-11 run; single hands (``python benchmarks/bench_agents.py SPEC greedy
--pairs 300 --ruleset pagat --episode hand --seed 10000``): ``samples=256,candidates=6``
+2.35 ± 1.24 points per hand, ``samples=512,candidates=4`` +1.73 ± 1.19,
``samples=256,margin=0.5,candidates=4`` +2.46 ± 1.23.

>>> import ginenv
>>> env = ginenv.env(); env.reset(seed=0)
>>> agent = MonteCarloAgent(seed=0, samples=4)
>>> observation = env.observe(env.agent_selection)
>>> int(observation["action_mask"][agent.act(observation)])
1
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ginenv.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.encoding import ObservationView, decode
from ginenv.hand import HandState
from ginenv.melds import discard_deadwoods
from ginenv.rules import PRESETS, resolve_ruleset

from .base import Observation, legal_actions, register
from .greedy import GreedyAgent, Seen
from .rollout import Settings, deal_samples, evaluate, kept_deals, lowers

ME, OPPONENT = 0, 1
SEARCHES = "tkd"
"""Decisions that may be searched: t(ake or draw), k(nock or not), d(iscard which card)."""
PRIORS = ("uniform", "kept")


def default_knock(undercut_bonus: int) -> tuple[float, float]:
    """Default knock schedule (``knock_early``, ``knock_late``): as soon as allowed, (10, 10),
    unless undercuts cost 25 or more (``classic25``, ``eaai``, ``oklahoma``): (6, 0)."""
    return (6.0, 0.0) if undercut_bonus >= 25 else (10.0, 10.0)


class MonteCarloAgent:
    """``montecarlo``: determinized sampling with fast rollouts (policy in the module docstring).

    Args:
        seed: seeds the agent's own generator (the samples).
        samples: sampled hands per searched decision.
        candidates: plain discards searched besides greedy's choice and the knock.
        margin: standard errors by which a candidate must beat greedy's choice.
        ruleset: preset name whose scoring the simulated hands use.
    """

    def __init__(self, seed: Optional[int] = None, *, samples: int = 256, candidates: int = 6,
                 margin: float = 1.0, search: str = "tkd", prior: str = "kept",
                 ruleset: str = "pagat", knock_early: Optional[float] = None,
                 knock_late: Optional[float] = None) -> None:
        for key, value in (("samples", samples), ("candidates", candidates)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"montecarlo: {key} must be an int >= 1, got {value!r}")
        if ruleset not in PRESETS:
            raise ValueError(f"montecarlo: ruleset must be one of {sorted(PRESETS)}, got {ruleset!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or margin < 0:
            raise ValueError(f"montecarlo: margin must be a number >= 0, got {margin!r}")
        if not isinstance(search, str) or not set(search) <= set(SEARCHES):
            raise ValueError(f"montecarlo: search must be letters of {SEARCHES!r}, got {search!r}")
        for key, value in (("knock_early", knock_early), ("knock_late", knock_late)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise ValueError(f"montecarlo: {key} must be a number >= 0, got {value!r}")
        if prior not in PRIORS:
            raise ValueError(f"montecarlo: prior must be one of {PRIORS}, got {prior!r}")
        self.name = "montecarlo"
        self.search, self.prior = search, prior
        self.samples, self.candidates, self.margin = samples, candidates, float(margin)
        self.ruleset = resolve_ruleset(ruleset)
        early, late = default_knock(self.ruleset.undercut_bonus)
        self.knock = (early if knock_early is None else knock_early, late if knock_late is None else knock_late)
        self._rng = np.random.default_rng(seed)
        self._guide = GreedyAgent(knock_early=self.knock[0], knock_late=self.knock[1])
        self._settings = Settings.of(self.ruleset, *self.knock)
        self._cheap = GreedyAgent(lookahead=False)

    def act(self, observation: Observation) -> int:
        legal = legal_actions(observation).tolist()
        if len(legal) == 1:
            return legal[0]
        if BIG_GIN in legal:
            return BIG_GIN
        view = decode(observation)
        seen = Seen.from_view(view)
        after = discard_deadwoods(seen.hand_mask) if view.phase == "discard" else {}
        knock = GreedyAgent.knock_card(legal, after) if after else None
        if knock is not None and after[knock] == 0:
            return KNOCK_BASE + knock
        options = self.candidate_actions(seen, legal, after, knock)
        if len(options) == 1:
            return options[0]
        return options[self.pick(self.simulate(view, legal, options))]

    def simulate(self, view: ObservationView, legal: Sequence[int], options: Sequence[int]) -> np.ndarray:
        """Points from my side, ``[candidate, sample]``: each candidate applied to the same
        sampled hands (:meth:`samples_of`), then played out by :func:`agents.rollout.play_out`."""
        return evaluate(self.samples_of(view, legal), np.array(options, dtype=np.int64), self._settings)

    def samples_of(self, view: ObservationView, legal: Sequence[int]) -> np.ndarray:
        """``samples`` full hands consistent with the observation, me as seat 0, as core rows."""
        template = self.sample(view, legal)
        hidden, stock = 10 - len(view.opp_picked), view.stock_size
        known = sum(1 << c for c in view.opp_picked)
        unknown = np.array(sorted(set(template.hand_cards(1)) - set(view.opp_picked)) + template.stock, dtype=np.int64)
        orders = self._rng.permuted(np.tile(unknown, (self.samples, 1)), axis=1)
        draws = max(0, len(view.opp_discards) - len(view.opp_picked)) if self.prior == "kept" else 0
        if draws:
            reorders = self._rng.permuted(np.tile(np.arange(stock), (self.samples, 1)), axis=1)
            orders = kept_deals(orders, hidden, draws, known, reorders)
        return deal_samples(template.row, known, orders, hidden)

    def pick(self, values: np.ndarray) -> int:
        """Row of the chosen candidate: the best mean among those that beat row 0 (greedy's
        choice) by more than ``margin`` standard errors of the paired differences; else 0."""
        best, best_mean = 0, 0.0
        n = values.shape[1]
        for i in range(1, values.shape[0]):
            diff = values[i] - values[0]
            mean = float(diff.mean())
            error = float(diff.std(ddof=1)) / np.sqrt(n) if n > 1 else 0.0
            if mean > self.margin * error and mean > best_mean:
                best, best_mean = i, mean
        return best

    def candidate_actions(self, seen: Seen, legal: Sequence[int], after: dict[int, int],
                          knock: Optional[int]) -> list[int]:
        """The actions searched, greedy's choice first (see the module docstring)."""
        guide = self._guide.choose(seen, legal)
        if seen.phase in ("offer", "draw"):
            if "t" not in self.search:
                return [guide]
            if guide == TAKE_DISCARD:
                return [guide, PASS if PASS in legal else DRAW_STOCK]
            if TAKE_DISCARD in legal and seen.top_discard is not None and lowers(seen.hand_mask, seen.top_discard):
                return [guide, TAKE_DISCARD]
            return [guide]
        options = [guide]
        knocking = guide >= KNOCK_BASE
        if knock is not None and "k" in self.search:
            options.append(KNOCK_BASE + knock)
        width = self.candidates if "d" in self.search else 1 if knocking and "k" in self.search else 0
        discards = [a - DISCARD_BASE for a in legal if DISCARD_BASE <= a < KNOCK_BASE]
        key = self._cheap.discard_key(seen, after)
        options += [DISCARD_BASE + c for c in sorted(discards, key=key)[:width]]
        return list(dict.fromkeys(options))

    def sample(self, view: ObservationView, legal: Sequence[int]) -> HandState:
        """One full hand consistent with the observation, me as seat 0."""
        pile = [c for c in view.pile_rest] + ([view.top_discard] if view.top_discard is not None else [])
        known = set(view.hand) | set(pile) | set(view.opp_picked)
        unknown = [c for c in range(52) if c not in known]
        hidden = 10 - len(view.opp_picked)
        if hidden < 0 or len(unknown) != hidden + view.stock_size:
            raise ValueError(f"montecarlo: the observation is inconsistent ({len(unknown)} unknown cards for "
                             f"{hidden} hidden and a stock of {view.stock_size})")
        dealt = unknown  # any placement: samples_of() re-deals these cards
        mine = list(view.hand)
        state = HandState.from_position(
            dealer=ME if view.is_dealer else OPPONENT, hands=[mine, list(view.opp_picked) + dealt[:hidden]],
            stock=dealt[hidden:], pile=pile, current_player=ME, phase=view.phase, ruleset=self.ruleset,
            first_upcard=pile[0] if pile else (view.no_discard if view.no_discard is not None else mine[0]),
            taken=view.no_discard, forced_draw=view.phase == "draw" and TAKE_DISCARD not in legal,
            passes=1 if view.phase == "offer" and view.is_dealer else 0,
            picked=[(), view.opp_picked], discarded=[view.my_discards, view.opp_discards],
            declined=[(), view.opp_declined],
            history=[(OPPONENT if by_opp else ME, card) for by_opp, card in reversed(view.history)])
        state.knock_limit = view.knock_limit
        state.doubled = False
        return state

    def reset(self) -> None:
        pass


register("montecarlo", MonteCarloAgent)

__all__ = ["MonteCarloAgent", "default_knock"]
