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
  deadwood (:func:`lowers`).  ``k``: the knock leaving the least deadwood when a knock is
  legal (and, when the guide knocks, the best plain discard).  ``d``: the ``candidates``
  best plain discards in the rollout order (least deadwood left, then danger, value, …).
  A decision with one candidate is not searched.
* **Sampling.**  ``samples`` times: deal the cards I cannot see (all but my hand, the
  discard pile and the opponent's known picks) into the opponent's hidden cards (10 minus
  the known ones) and a stock of the observed size, and build the full hand with
  :meth:`ginenv.hand.HandState.from_position` (my seat, the phase, the card I may not
  discard, the opponent's known picks, discards and declines, the history; the observed
  knock limit; no Oklahoma doubling).  ``prior="kept"`` (default): the opponent has drawn
  about ``k = max(0, opponent discards - known picks)`` stock cards, so of ``hidden + k``
  random unknown cards they get the ``hidden`` best (:func:`keep_best`: drop one card at a
  time, the one leaving the least deadwood), the rest going back into a reshuffled stock —
  their hand has been improved for as many turns as they played; ``"uniform"``: a uniform
  deal.  With ``believe`` > 0 a deal is also kept only with probability
  ``(1 - believe) ** m``, ``m`` the cards they passed over or discarded that would make a
  meld with the hand it gives them (up to 20 tries).
* **Rollouts** (:func:`rollout`): every candidate is applied to every sampled hand (common
  random numbers) and the hand is played to its end, both seats taking a face-up card that
  makes a meld and lowers their deadwood, else drawing, and discarding the card leaving the
  least deadwood (then the higher value, the lower id); gin and big gin always; I (seat 0)
  knock by the same schedule as the guide, the opponent as soon as the knock limit allows
  (as ``greedy`` does).  Value: the hand's points under ``ruleset`` from my side (+ won,
  - lost, 0 dead).
* **Choice**: the guide's choice, unless other candidates beat it on the paired per-sample
  differences by more than ``margin`` standard errors; then the one of those with the best
  mean.  Randomness comes only from the agent's own seeded generator.

Parameters (by spec, e.g. ``"montecarlo:ruleset=classic25,samples=128"``): ``samples``
(default 64), ``candidates`` (default 2), ``margin`` (default 1.0), ``believe`` (default 0),
``search`` (default ``"tkd"``), ``prior`` (default ``"kept"``), ``knock_early`` /
``knock_late`` (default by ruleset, above) and ``ruleset`` (the scoring of the simulated
hands and of the knock defaults: a preset name, default ``"pagat"``; the observation does
not carry the bonuses, so name the ruleset played, e.g. ``montecarlo:ruleset=classic25``).

Measured against ``greedy``, whole games to 100, mirrored pairs, 95% pair-cluster intervals
(``benchmarks/strength_ladder.sh``; one core, defaults unless named; times with the engine
of commit 016a93d — the compiled core plays the same games at about 16-18 ms per decision):

* ``ginrummy eval montecarlo:ruleset=classic25 greedy --games 200 --ruleset classic25
  --seed 11 --workers 1``: 66.0% [60.4%, 71.6%] (pairs won in both seats 37-5), +3.18 points
  per hand, 21.4% of hands undercut by ``montecarlo``; 33.6 ms per decision.
* ``ginrummy eval montecarlo greedy --games 200 --ruleset pagat --seed 11 --workers 1``:
  50.5% [43.8%, 57.2%] (pairs won in both seats 23-22), +0.21 points per hand; 28.4 ms per
  decision — not stronger than ``greedy`` under ``pagat``.
* Development runs (single hands, ``python benchmarks/bench_agents.py SPEC greedy --pairs
  150 --ruleset pagat --episode hand --seed S``, points per hand with 95% intervals):
  ``S=10000``: ``montecarlo:prior=uniform,search=d`` -1.47 ± 0.97, ``search=t`` +0.31 ±
  0.77, ``search=k`` -0.01 ± 0.07; ``montecarlo:search=d`` (kept prior) +0.18 ± 0.84;
  ``S=30000``: ``montecarlo`` +0.81 ± 1.43.  Under ``pagat`` the search finds little
  over ``greedy``: its rollout policy (no one-draw lookahead, no danger term) is weaker than
  the guide it checks.

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
from ginenv.cards import CARD_VALUES
from ginenv.encoding import ObservationView, decode
from ginenv.hand import HandState
from ginenv.melds import discard_deadwoods, mask_deadwood
from ginenv.rules import PRESETS, resolve_ruleset

from .base import Observation, legal_actions, register
from .greedy import DEAD_HAND_STOCK, INITIAL_STOCK, GreedyAgent, Seen
from .simple import completes_meld

ME, OPPONENT = 0, 1
SEARCHES = "tkd"
"""Decisions that may be searched: t(ake or draw), k(nock or not), d(iscard which card)."""
PRIORS = ("uniform", "kept")


def rollout_takes(hand: int, card: int) -> bool:
    """Rollout rule for the face-up ``card``: take it when it makes a meld with the 10-card
    mask ``hand`` and lowers the least deadwood (the taken card may not be discarded)."""
    return completes_meld(hand, card) and lowers(hand, card)


def rollout_discard(hand: int, taken: int, threshold: float, big_gin: bool) -> int:
    """Rollout rule for the 11-card mask ``hand``: big gin if allowed, else the discard that
    leaves the least deadwood (then the higher value, then the lower id), as a knock when
    that deadwood is 0 or within ``threshold`` (at most the knock limit)."""
    after = discard_deadwoods(hand)
    card = min((c for c in after if c != taken), key=lambda c: (after[c], -CARD_VALUES[c], c))
    if after[card] > threshold and after[card] > 0:
        return DISCARD_BASE + card
    if big_gin and after[card] == 0 and mask_deadwood(hand) == 0:
        return BIG_GIN
    return KNOCK_BASE + card


def knock_threshold(early: float, late: float, stock_size: int, knock_limit: int) -> float:
    """The ``greedy`` knock threshold for ``knock_early``/``knock_late`` (no score terms)."""
    progress = min(1.0, max(0.0, (INITIAL_STOCK - stock_size) / (INITIAL_STOCK - DEAD_HAND_STOCK)))
    return min(early + (late - early) * progress, knock_limit)


def rollout(state: HandState, big_gin: bool = False, knock: tuple[float, float] = (10, 10)) -> int:
    """Play ``state`` to its end with the rollout rules for both seats (in place); the
    points from seat 0's side (+ won, - lost, 0 dead).  Seat 0 knocks by the schedule
    ``knock`` (``knock_early``, ``knock_late``), seat 1 as soon as the knock limit allows."""
    while not state.is_over:
        phase, seat = state.phase, state.current_player
        hand = state.hands[seat]
        if phase == "discard":
            limit = state.knock_limit if seat else knock_threshold(*knock, len(state.stock), state.knock_limit)
            action = rollout_discard(hand, state.taken, limit, big_gin)
        elif (phase == "offer" or state.legal_action_bits() >> TAKE_DISCARD & 1) and rollout_takes(hand, state.pile[-1]):
            action = TAKE_DISCARD
        else:
            action = PASS if phase == "offer" else DRAW_STOCK
        state.apply_action(action)
    return points_of(state)


def lowers(hand: int, card: int) -> bool:
    """Whether taking the face-up ``card`` into the 10-card mask ``hand`` lowers its least
    deadwood (the taken card may not be discarded)."""
    after = discard_deadwoods(hand | 1 << card)
    return min(v for c, v in after.items() if c != card) < mask_deadwood(hand)


def default_knock(undercut_bonus: int) -> tuple[float, float]:
    """Default knock schedule (``knock_early``, ``knock_late``): as soon as allowed, (10, 10),
    unless undercuts cost 25 or more (``classic25``, ``eaai``, ``oklahoma``): (6, 0)."""
    return (6.0, 0.0) if undercut_bonus >= 25 else (10.0, 10.0)


def keep_best(pool: Sequence[int], keep: int, held: int = 0) -> tuple[list[int], list[int]]:
    """Split ``pool`` into the ``keep`` cards a deadwood-minded player keeps and the rest.

    Cards are dropped one at a time, each time the one whose removal leaves the least
    deadwood of ``held`` (a mask of cards kept anyway) plus the pool (then the higher value,
    then the lower id): the rollout discard rule applied to everything seen at once.  Where
    the meld solver cannot take the whole pool (too many set choices, possible beyond 15
    cards), the pool is seen in order instead: the first ``keep`` cards, then one card at a
    time, dropping one by the same rule after each (as turn-by-turn play would).

    >>> from ginenv.cards import parse_card, card_text
    >>> kept, dropped = keep_best([parse_card(c) for c in "7H 8H 9H KS QD".split()], 3)
    >>> [card_text(c) for c in kept], [card_text(c) for c in dropped]
    (['7H', '8H', '9H'], ['QD', 'KS'])
    """
    try:
        mask, dropped = drop_worst(held | _mask_of(pool), held, len(pool) - keep)
    except ValueError:
        mask, dropped = held | _mask_of(pool[:keep]), []
        for card in pool[keep:]:
            mask, out = drop_worst(mask | 1 << card, held, 1)
            dropped += out
    return [c for c in pool if mask >> c & 1], dropped


def drop_worst(mask: int, held: int, count: int) -> tuple[int, list[int]]:
    """Drop ``count`` cards from ``mask`` one at a time, each the one (not in ``held``) whose
    removal leaves the least deadwood, then the higher value, then the lower id; returns the
    mask left and the dropped cards in order."""
    dropped: list[int] = []
    for _ in range(count):
        after = discard_deadwoods(mask)
        card = min((c for c in after if not held >> c & 1), key=lambda c: (after[c], -CARD_VALUES[c], c))
        mask &= ~(1 << card)
        dropped.append(card)
    return mask, dropped


def _mask_of(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def points_of(state: HandState) -> int:
    """The points of a finished hand from seat 0's side."""
    result = state.result
    if result is None or result.winner is None:
        return 0
    return result.points if result.winner == ME else -result.points


class MonteCarloAgent:
    """``montecarlo``: determinized sampling with fast rollouts (policy in the module docstring).

    Args:
        seed: seeds the agent's own generator (the samples).
        samples: sampled hands per searched decision.
        candidates: plain discards searched besides greedy's choice and the knock.
        margin: standard errors by which a candidate must beat greedy's choice.
        believe: strength of the behaviour filter on the samples (0: uniform).
        ruleset: preset name whose scoring the simulated hands use.
    """

    def __init__(self, seed: Optional[int] = None, *, samples: int = 64, candidates: int = 2,
                 margin: float = 1.0, believe: float = 0.0, search: str = "tkd", prior: str = "kept",
                 ruleset: str = "pagat", knock_early: Optional[float] = None,
                 knock_late: Optional[float] = None) -> None:
        for key, value in (("samples", samples), ("candidates", candidates)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"montecarlo: {key} must be an int >= 1, got {value!r}")
        if ruleset not in PRESETS:
            raise ValueError(f"montecarlo: ruleset must be one of {sorted(PRESETS)}, got {ruleset!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or margin < 0:
            raise ValueError(f"montecarlo: margin must be a number >= 0, got {margin!r}")
        if isinstance(believe, bool) or not isinstance(believe, (int, float)) or not 0 <= believe <= 1:
            raise ValueError(f"montecarlo: believe must be a number in 0..1, got {believe!r}")
        if not isinstance(search, str) or not set(search) <= set(SEARCHES):
            raise ValueError(f"montecarlo: search must be letters of {SEARCHES!r}, got {search!r}")
        for key, value in (("knock_early", knock_early), ("knock_late", knock_late)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise ValueError(f"montecarlo: {key} must be a number >= 0, got {value!r}")
        if prior not in PRIORS:
            raise ValueError(f"montecarlo: prior must be one of {PRIORS}, got {prior!r}")
        self.name = "montecarlo"
        self.search, self.prior = search, prior
        self.samples, self.candidates, self.margin, self.believe = samples, candidates, float(margin), float(believe)
        self.ruleset = resolve_ruleset(ruleset)
        early, late = default_knock(self.ruleset.undercut_bonus)
        self.knock = (early if knock_early is None else knock_early, late if knock_late is None else knock_late)
        self._rng = np.random.default_rng(seed)
        self._guide = GreedyAgent(knock_early=self.knock[0], knock_late=self.knock[1])
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
        sampled hands, then the hand played out by :func:`rollout`."""
        values = np.zeros((len(options), self.samples))
        big_gin = bool(self.ruleset.big_gin)
        for s in range(self.samples):
            state = self.sample(view, legal)
            for i, action in enumerate(options):
                simulated = state.clone()
                simulated.apply_action(action)
                values[i, s] = rollout(simulated, big_gin, self.knock)
        return values

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
        dealt = self._deal_unknown(view, unknown, hidden)
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

    def _deal_unknown(self, view: ObservationView, unknown: list[int], hidden: int) -> list[int]:
        """The unknown cards in a random order (the first ``hidden`` go to the opponent).

        With ``believe`` > 0, an order is accepted with probability ``(1 - believe) ** k``,
        ``k`` the cards the opponent passed over or discarded that would make a meld with the
        hand it gets; up to 20 tries, then the last order is kept."""
        known = 0
        for card in view.opp_picked:
            known |= 1 << card
        gone = view.opp_declined + view.opp_discards
        draws = max(0, len(view.opp_discards) - len(view.opp_picked)) if self.prior == "kept" else 0
        for _ in range(20):
            dealt = [unknown[i] for i in self._rng.permutation(len(unknown))]
            if draws:
                seen = min(len(dealt), hidden + draws)
                kept, dropped = keep_best(dealt[:seen], hidden, known)
                stock = dropped + dealt[seen:]
                dealt = kept + [stock[i] for i in self._rng.permutation(len(stock))]
            if self.believe <= 0 or not gone:
                return dealt
            hand = known
            for card in dealt[:hidden]:
                hand |= 1 << card
            misses = sum(completes_meld(hand, card) for card in gone)
            if misses == 0 or self._rng.random() < (1.0 - self.believe) ** misses:
                return dealt
        return dealt

    def reset(self) -> None:
        pass


register("montecarlo", MonteCarloAgent)

__all__ = ["MonteCarloAgent", "lowers", "rollout", "rollout_discard", "rollout_takes"]
