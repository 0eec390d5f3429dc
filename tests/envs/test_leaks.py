"""No information leak from the env's observations (DESIGN.md "Public contract"; R8, R12).

The central check (``test_observation_is_invariant_under_hidden_card_permutations``)
is a *counterfactual replay*: from a random mid-hand position we build another deal
that the observing seat cannot tell apart from the true one, replay the very same
actions on it through ``reset(options={"deal": ...})`` + ``step``, and require the
observer's observation and action mask to be byte-identical at every step.  If any
bit of the observation depended on the opponent's hidden cards or on the order of the
unseen stock, some permutation would change it.

Which cards may be permuted (observer ``s``, opponent ``o``), and why the replay stays
legal and indistinguishable for ``s``:

* A deal has three kinds of slots: ``hands[s]`` and the upcard (seen by ``s``),
  ``hands[o]`` (10 slots) and the stock (31 slots; slot ``i`` is the ``i``-th card
  drawn from the stock in the hand, whoever draws it).
* Fixed: ``hands[s]``, the upcard and every stock slot ``s`` drew (``s`` saw those
  cards, and where they were); and every card ``o`` discarded face up (``s`` saw it
  leave ``o``'s hand at a given moment, so it must be in ``o``'s hand at that moment:
  we keep it in its slot).  Cards ``o`` took from the discard pile need no rule: they
  were never in a dealt slot of ``o`` — they reached the pile from the upcard or from a
  discard, both fixed — and ``o`` takes the same public card in the replay.
* Permuted among themselves: every other slot of ``hands[o]`` and of the stock —
  ``o``'s dealt cards it still holds, the cards ``o`` drew from the stock and still
  holds (``s`` only saw that ``o`` drew, not what), and the undrawn stock.  A
  permutation keeps every count (``o`` still holds 10 or 11 cards, the stock keeps its
  size), and the result is still a permutation of the 52 cards.
* Legality: the sampled prefixes never contain a knock or big gin (they are
  mid-hand, the hand is not over), so every action of ``o`` is a pass, a draw, a take
  (none depends on ``o``'s cards) or a discard of a fixed card that ``o`` holds at
  that moment in the replay too.  ``s``'s hand, the pile and the stock size evolve
  exactly as before, so ``s``'s actions stay legal and no hand ends earlier (a dead
  hand or the turn limit depend only on counts).

``test_leak_check_catches_planted_leaks`` shows the check has teeth: an observation
with the opponent's hand, or the next stock card, appended to it fails it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
import pytest

from ginenv import Deal, decode, raw_env
from ginenv.game.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, TAKE_DISCARD

AGENTS = ("player_0", "player_1")
CONFIGS = (  # (ruleset, overrides): every preset plus two overridden rulesets
    ("pagat", {}),
    ("classic25", {}),
    ("oklahoma", {}),
    ("eaai", {}),
    ("pagat", {"big_gin": True, "knock_limit": 5}),
    ("eaai", {"max_turns_per_hand": 12, "target": 60}),
)
NUM_STATES = 1000
END_ACTION_PROBABILITY = 0.1  # a random policy that knocks rarely reaches deep positions


@dataclass
class HandRecord:
    """What happened in the current hand of a sampled env, as a test can know it."""

    config: tuple[str, dict]
    episode: str
    deal: Deal
    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    moves: list[tuple[int, int]] = field(default_factory=list)  # (seat, action)
    observations: list[tuple[bytes, bytes, bytes, bytes]] = field(default_factory=list)
    """Per position of the hand (before each move and at the end): obs/mask bytes of seat 0, seat 1."""
    picked_by: list[set[int]] = field(default_factory=lambda: [set(), set()])
    """Cards each seat took from the pile and still holds (tracked from public moves)."""


Observer = Callable[[object, str], tuple[bytes, bytes]]


def env_observer(env, agent: str) -> tuple[bytes, bytes]:
    obs = env.observe(agent)
    return obs["observation"].tobytes(), obs["action_mask"].tobytes()


def snapshot(env, observer: Observer) -> tuple[bytes, bytes, bytes, bytes]:
    return (*observer(env, AGENTS[0]), *observer(env, AGENTS[1]))


def make_env(record_or_config, episode: str):
    ruleset, overrides = record_or_config
    return raw_env(ruleset=ruleset, episode=episode, **overrides)


def sample_record(rng: np.random.Generator, observer: Observer = env_observer) -> Optional[HandRecord]:
    """Random play for a random number of steps; None if the episode ended first."""
    config = CONFIGS[int(rng.integers(len(CONFIGS)))]
    episode = ("hand", "game")[int(rng.integers(2))]
    env = make_env(config, episode)
    options: dict = {}
    scores, won = (0, 0), (0, 0)
    if episode == "game" and rng.random() < 0.5:
        target = env.ruleset.target
        scores = (int(rng.integers(target)), int(rng.integers(target)))
        won = (int(rng.integers(5)), int(rng.integers(5)))
        options = {"scores": list(scores), "hands_won": list(won)}
    env.reset(seed=int(rng.integers(2**31)), options=options)
    record = HandRecord(config, episode, env.hand.deal, scores, won)
    record.observations.append(snapshot(env, observer))
    steps = int(rng.integers(0, 64 if episode == "hand" else 180))
    for _ in range(steps):
        agent = env.agent_selection
        seat = AGENTS.index(agent)
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        quiet = [int(a) for a in legal if a < KNOCK_BASE]
        if quiet and rng.random() > END_ACTION_PROBABILITY:
            action = quiet[int(rng.integers(len(quiet)))]
        else:
            action = int(legal[int(rng.integers(len(legal)))])
        top = env.hand.top_discard
        env.step(action)
        if any(env.terminations.values()) or any(env.truncations.values()):
            return None
        result = env.infos[AGENTS[0]].get("hand_result")
        if result is not None:  # game mode: a new hand started in this step
            s, w = list(record.scores), list(record.hands_won)
            if result["winner"] is not None:
                winner = AGENTS.index(result["winner"])
                s[winner] += result["points"]
                w[winner] += 1
            record = HandRecord(config, episode, env.hand.deal, (s[0], s[1]), (w[0], w[1]))
            record.observations.append(snapshot(env, observer))
            continue
        record.moves.append((seat, action))
        if action == TAKE_DISCARD:
            record.picked_by[seat].add(top)
        elif DISCARD_BASE <= action < KNOCK_BASE:
            record.picked_by[seat].discard(action - DISCARD_BASE)
        record.observations.append(snapshot(env, observer))
    record.env = env  # type: ignore[attr-defined]
    return record


def permuted_deal(record: HandRecord, observer_seat: int, rng: np.random.Generator) -> tuple[dict, int]:
    """A deal ``observer_seat`` cannot tell from ``record.deal`` (see the module docstring).

    Returns the deal dict and how many of the opponent's unknown dealt cards changed.
    """
    deal, opp = record.deal, 1 - observer_seat
    drawn_by_observer: set[int] = set()
    opp_discards: set[int] = set()
    draws = 0
    for seat, action in record.moves:
        if action == DRAW_STOCK:
            if seat == observer_seat:
                drawn_by_observer.add(draws)
            draws += 1
        elif seat == opp and DISCARD_BASE <= action < KNOCK_BASE:
            opp_discards.add(action - DISCARD_BASE)
        assert action < KNOCK_BASE, "a mid-hand prefix never knocks"
    hands = [list(deal.hands[0]), list(deal.hands[1])]
    stock = list(deal.stock)
    slots = [("hand", j) for j in range(10) if hands[opp][j] not in opp_discards]
    slots += [("stock", i) for i in range(31) if i not in drawn_by_observer and stock[i] not in opp_discards]
    cards = [hands[opp][j] if kind == "hand" else stock[j] for kind, j in slots]
    shuffled = list(rng.permutation(cards)) if len(cards) > 1 else cards
    if len(cards) > 1 and shuffled == cards:
        shuffled = shuffled[1:] + shuffled[:1]
    for (kind, j), card in zip(slots, shuffled):
        (hands[opp] if kind == "hand" else stock)[j] = int(card)
    changed = sum(1 for j in range(10) if hands[opp][j] != deal.hands[opp][j])
    return {"dealer": deal.dealer, "hands": hands, "upcard": deal.upcard, "stock": stock}, changed


def replay_observations(record: HandRecord, deal: dict, observer: Observer = env_observer) -> list[tuple]:
    """The snapshots of a replay of ``record.moves`` on ``deal`` (same config, same match score)."""
    env = make_env(record.config, record.episode)
    options: dict = {"deal": deal}
    if record.episode == "game":
        options.update(scores=list(record.scores), hands_won=list(record.hands_won))
    env.reset(seed=0, options=options)
    out = [snapshot(env, observer)]
    for _, action in record.moves:
        env.step(action)  # an IllegalActionError here means the permutation broke the replay
        out.append(snapshot(env, observer))
    return out


def mismatch(record: HandRecord, replayed: list[tuple], seat: int) -> Optional[str]:
    """First step at which ``seat``'s observation or mask differs, or None."""
    assert len(replayed) == len(record.observations)
    for step, (want, got) in enumerate(zip(record.observations, replayed)):
        if want[2 * seat] != got[2 * seat]:
            return f"observation of {AGENTS[seat]} differs at step {step}"
        if want[2 * seat + 1] != got[2 * seat + 1]:
            return f"action mask of {AGENTS[seat]} differs at step {step}"
    return None


@pytest.fixture(scope="module")
def records() -> list[HandRecord]:
    rng = np.random.default_rng(20240611)
    out: list[HandRecord] = []
    while len(out) < NUM_STATES:
        record = sample_record(rng)
        if record is not None:
            out.append(record)
    return out


def test_samples_cover_modes_rulesets_and_depths(records):
    """The sampled positions are varied enough for the leak checks to mean something."""
    assert len(records) >= NUM_STATES
    assert {(r.config[0], tuple(sorted(r.config[1])), r.episode) for r in records} == {
        (name, tuple(sorted(over)), episode) for name, over in CONFIGS for episode in ("hand", "game")}
    depths = [len(r.moves) for r in records]
    assert max(depths) >= 40 and sum(d >= 20 for d in depths) >= NUM_STATES // 4
    assert sum(1 for r in records if r.episode == "game" and r.scores != (0, 0)) >= 50
    assert sum(1 for r in records if any(a == TAKE_DISCARD for _, a in r.moves)) >= NUM_STATES // 4


def test_replay_of_the_true_deal_is_identical(records):
    """Sanity for the replay itself: the unpermuted deal reproduces both seats' views."""
    for record in records[:200]:
        deal = record.deal.to_dict()
        replayed = replay_observations(record, deal)
        assert replayed == record.observations


def test_observation_is_invariant_under_hidden_card_permutations(records):
    """R8/R12: no observation bit depends on the opponent's hidden cards or the unseen stock."""
    rng = np.random.default_rng(7)
    compared = changed_total = 0
    for index, record in enumerate(records):
        for seat in (0, 1):
            deal, changed = permuted_deal(record, seat, rng)
            changed_total += changed
            replayed = replay_observations(record, deal)
            problem = mismatch(record, replayed, seat)
            assert problem is None, (f"leak: {problem} (record {index}, {record.config}, {record.episode}, "
                                     f"moves {record.moves})")
            compared += len(replayed)
    assert compared >= 20 * NUM_STATES
    assert changed_total >= 5 * NUM_STATES  # the permutations really moved the opponent's cards


def _leaky(what: str) -> Observer:
    def observe(env, agent: str) -> tuple[bytes, bytes]:
        obs, mask = env_observer(env, agent)
        hand = env.hand
        if what == "opponent hand":
            extra = hand.hands[1 - AGENTS.index(agent)]
        else:  # the next stock card
            extra = hand.stock[-1] if hand.stock else -1
        return obs + int(extra).to_bytes(8, "little", signed=True), mask
    return observe


@pytest.mark.parametrize("what", ["opponent hand", "next stock card"])
def test_leak_check_catches_planted_leaks(what):
    """The replay check is able to fail: observations carrying hidden data are caught."""
    rng = np.random.default_rng(99)
    observer = _leaky(what)
    caught = tried = 0
    while tried < 60:
        record = sample_record(rng, observer)
        if record is None or len(record.moves) < 4:
            continue
        tried += 1
        seat = int(rng.integers(2))
        deal, _ = permuted_deal(record, seat, rng)
        caught += mismatch(record, replay_observations(record, deal, observer), seat) is not None
    assert caught >= 55


def test_non_acting_agent_sees_its_own_view_with_a_zero_mask(records):
    """PettingZoo convention: observe(agent not to act) is that agent's view, mask all zero;
    the acting agent's mask has exactly the legal ids."""
    for record in records:
        env = record.env  # type: ignore[attr-defined]
        hand = env.hand
        actor = AGENTS.index(env.agent_selection)
        assert hand.current_player == actor
        for seat, agent in enumerate(AGENTS):
            obs = env.observe(agent)
            assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (NUM_ACTIONS,)
            view = decode(obs)
            assert list(view.hand) == hand.hand_cards(seat)
            assert view.is_dealer == (hand.dealer == seat)
            if seat == actor:
                assert np.flatnonzero(obs["action_mask"]).tolist() == hand.legal_actions()
                assert view.my_turn and view.phase == hand.phase
            else:
                assert not obs["action_mask"].any()
                assert not view.my_turn and view.phase is None and view.no_discard is None


def test_decoded_view_never_contains_the_opponents_hidden_cards(records):
    """Only cards the opponent took from the pile (and still holds) may show up as theirs."""
    for record in records:
        env = record.env  # type: ignore[attr-defined]
        for seat, agent in enumerate(AGENTS):
            opp = 1 - seat
            view = decode(env.observe(agent))
            known = record.picked_by[opp]
            hidden = set(env.hand.hand_cards(opp)) - known
            assert known <= set(env.hand.hand_cards(opp))
            assert set(view.opp_picked) == known
            shown = (set(view.hand) | set(view.pile_rest) | set(view.my_discards) | set(view.opp_discards)
                     | set(view.opp_picked) | set(view.opp_declined) | {c for _, c in view.history}
                     | {view.top_discard, view.no_discard})
            assert not hidden & shown, f"{agent} sees hidden opponent cards {sorted(hidden & shown)}"


def test_observation_of_the_stock_draw_does_not_reveal_the_card_to_the_opponent():
    """A direct case: the same position with two different drawn cards looks the same to
    the player who did not draw."""
    base = list(range(52))
    hands = [base[0:10], base[10:20]]
    upcard, stock = 20, base[21:]
    other_stock = [stock[5]] + stock[1:5] + [stock[0]] + stock[6:]
    views = []
    for s in (stock, other_stock):
        env = raw_env()
        env.reset(options={"deal": {"dealer": 0, "hands": hands, "upcard": upcard, "stock": s}})
        env.step(2)  # player_1 passes
        env.step(2)  # player_0 passes
        env.step(DRAW_STOCK)  # player_1 draws stock[0]
        views.append((env.observe("player_0")["observation"].tobytes(),
                      env.observe("player_1")["observation"].tobytes()))
    assert views[0][0] == views[1][0]
    assert views[0][1] != views[1][1]  # the drawer does see its card
