"""The PettingZoo env ``gin_rummy_v1`` against the public contract of DESIGN.md.

Sections: seeding, pickling, rendering, the contract (agents, masks, illegal actions, deal
injection, mid-match options, hand/game results, rewards, kwargs validation) and the observation
decoder.  Rule numbers refer to docs/rules.md.  PettingZoo's own test suite runs in
``test_pettingzoo_interop.py``, the information-leak checks in ``test_leaks.py``.
"""
from __future__ import annotations

import pickle
import re
from typing import Any, Callable, Optional

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ginenv
from ginenv import IllegalActionError, Ruleset, action_text, deadwood, decode, parse_card, raw_env
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from ginenv.game.cards import CARD_TEXTS, mask_to_cards
from ginenv.game.core import DOUBLED

AGENTS = ("player_0", "player_1")
RULESETS = ("pagat", "classic25", "oklahoma", "eaai")
EPISODES = ("hand", "game")


# ----- helpers ------------------------------------------------------------
def cards(spec) -> list[int]:
    return [parse_card(c) for c in (spec.split() if isinstance(spec, str) else spec)]


def make_deal(dealer: int, hand0, hand1, upcard, stock_top=()) -> dict[str, Any]:
    """A deal dict: seat 0 holds ``hand0``, seat 1 ``hand1``; the stock starts with
    ``stock_top`` (drawn first) and continues with the unused cards in ascending order."""
    h0, h1, top, up = cards(hand0), cards(hand1), cards(stock_top), parse_card(upcard)
    used = set(h0) | set(h1) | set(top) | {up}
    return {"dealer": dealer, "hands": [h0, h1], "upcard": up, "stock": top + [c for c in range(52) if c not in used]}


def legal(env, agent: Optional[str] = None) -> list[int]:
    return np.flatnonzero(env.observe(agent or env.agent_selection)["action_mask"]).tolist()


def done(env) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


def eager(env) -> int:
    """Deterministic: take the upcard, draw from the stock, knock (or big gin) as soon as
    allowed, else discard the highest card id — ends games quickly."""
    actions = legal(env)
    return actions[-1] if actions[-1] > PASS else actions[0]


def random_quiet(rng: np.random.Generator, knock_probability: float = 0.1) -> Callable:
    """Random legal actions, knocking rarely (so hands get deep)."""
    def policy(env) -> int:
        actions = legal(env)
        quiet = [a for a in actions if a < KNOCK_BASE]
        if quiet and rng.random() > knock_probability:
            return quiet[int(rng.integers(len(quiet)))]
        return actions[int(rng.integers(len(actions)))]
    return policy


def draw_and_discard_drawn(env) -> int:
    """Pass the upcard, always draw from the stock and discard the card just drawn (never knocks)."""
    actions = legal(env)
    if PASS in actions:
        return PASS
    if DRAW_STOCK in actions:
        return DRAW_STOCK
    hand = env.unwrapped.hand
    drawn = hand.events[-1]["card"]
    return DISCARD_BASE + drawn


def run_episode(env, policy, on_step: Optional[Callable] = None, max_steps: int = 20000) -> dict[str, float]:
    """Play to the end; return each agent's summed rewards (checking zero-sum at every step)."""
    totals = {a: 0.0 for a in AGENTS}
    for _ in range(max_steps):
        if done(env):
            return totals
        agent = env.agent_selection
        action = policy(env)
        env.step(action)
        assert sum(env.rewards.values()) == pytest.approx(0, abs=1e-9), env.rewards
        for a in AGENTS:
            totals[a] += env.rewards[a]
        if on_step is not None:
            on_step(env, agent, action)
    raise AssertionError("episode did not end")


KNOCKER = "AC 2C 3C 4D 5D 6D 7S 8S 9S KH"
DEFENDER = "KC KD KS 4C TS 3D 5H 8H JC 9D"


# ----- seeding ---------------------------------------------------------------
@pytest.mark.parametrize("episode", EPISODES)
def test_R9_R10_seeded_reset_is_reproducible_and_seeds_differ(episode):
    def first_views(seed):
        env = ginenv.env(episode=episode)
        env.reset(seed=seed)
        return env.agent_selection, [env.observe(a)["observation"].tobytes() for a in AGENTS]
    assert first_views(3) == first_views(3)
    assert len({first_views(s)[1][0] for s in range(6)}) == 6
    env = ginenv.env(episode=episode)
    env.reset(seed=3)
    env.reset()  # no seed: the RNG goes on, a new deal
    assert [env.observe(a)["observation"].tobytes() for a in AGENTS] != first_views(3)[1]


# ----- pickling ----------------------------------------------------------
PICKLE_KWARGS = [
    dict(ruleset="oklahoma", episode="game", render_mode="ansi", reward_mode="points", reward_scale=0.5,
         gin_bonus=30, max_turns_per_hand=150),
    dict(ruleset=Ruleset.preset("classic25"), episode="hand", render_mode=None, reward_mode="win_loss",
         reward_scale=2.0, undercut_bonus=15),
    dict(ruleset="eaai", episode="game", render_mode="human", reward_mode="win_loss", knock_limit=7, target=40),
]


def _state(env) -> tuple:
    raw = env.unwrapped
    return (raw.agent_selection, list(raw.agents), dict(raw.rewards), dict(raw._cumulative_rewards),
            dict(raw.terminations), dict(raw.truncations), repr(raw.infos),
            [(raw.observe(a)["observation"].tobytes(), raw.observe(a)["action_mask"].tobytes()) for a in AGENTS])


@pytest.mark.parametrize("wrapped", [True, False])
@pytest.mark.parametrize("kwargs", PICKLE_KWARGS, ids=["okla-game", "classic-hand", "eaai-game"])
def test_pickle_round_trip_keeps_kwargs_and_state(kwargs, wrapped, capsys):
    make = ginenv.env if wrapped else raw_env
    expected_rules = ginenv.game.rules.resolve_ruleset(
        kwargs["ruleset"], **{k: v for k, v in kwargs.items()
                              if k not in ("ruleset", "episode", "render_mode", "reward_mode", "reward_scale")})
    fresh = pickle.loads(pickle.dumps(make(**kwargs)))  # before reset too
    fresh.reset(seed=11)
    env = make(**kwargs)
    env.reset(seed=11)
    assert _state(fresh) == _state(env)
    policy = random_quiet(np.random.default_rng(4), knock_probability=0.3)
    for _ in range(25):
        if done(env):
            break
        env.step(policy(env))
    copy = pickle.loads(pickle.dumps(env))
    assert type(copy) is type(env)
    raw, other = env.unwrapped, copy.unwrapped
    assert other.ruleset == raw.ruleset == expected_rules
    for name in ("episode", "render_mode", "reward_mode", "reward_scale"):
        assert getattr(other, name) == getattr(raw, name) == kwargs.get(name, {"reward_scale": 1.0}.get(name))
    assert other.hand == raw.hand
    assert _state(copy) == _state(env)
    # both go on identically, new hands (drawn from the pickled RNG) included
    trace = []
    for e in (env, copy):
        policy = random_quiet(np.random.default_rng(8), knock_probability=0.3)
        steps = []
        for _ in range(400):
            if done(e):
                break
            e.step(policy(e))
            steps.append(_state(e))
        trace.append(steps)
    assert trace[0] == trace[1]
    if kwargs["episode"] == "game":  # the continuation crossed into hands dealt after the pickle
        assert any("hand_result" in state[6] for state in trace[0])
    capsys.readouterr()


# ----- rendering ---------------------------------------------------------
def _check_mid_hand_text(text: str, env) -> None:
    hand = env.unwrapped.hand
    agent = env.agent_selection
    seat = AGENTS.index(agent)
    assert re.search(rf"(to act|turn)\W*{agent}", text), text
    assert re.search(r"stock\D{0,3}(\d+)", text).group(1) == str(len(hand.stock)), text
    top = CARD_TEXTS[hand.top_discard] if hand.top_discard is not None else "-"
    assert re.search(r"top discard\W{0,3}(\S+)", text).group(1) == top, text
    mine = [CARD_TEXTS[c] for c in hand.hand_cards(seat)]
    lines = [line for line in text.splitlines() if "deadwood" in line and all(c in line for c in mine)]
    assert lines, f"acting hand {mine} with its deadwood not shown:\n{text}"
    assert int(re.findall(r"\d+", lines[0])[-1]) == deadwood(mine)


def test_render_ansi_mid_hand_and_at_hand_end():
    for seed in range(6):
        env = ginenv.env(render_mode="ansi", ruleset=RULESETS[seed % 4])
        env.reset(seed=seed)
        policy = random_quiet(np.random.default_rng(seed), knock_probability=0.5)
        while not done(env):
            _check_mid_hand_text(env.render(), env)
            env.step(policy(env))
        text = env.render()
        hand = env.unwrapped.hand
        for seat in (0, 1):  # both hands shown at the end
            assert all(CARD_TEXTS[c] in text for c in hand.hand_cards(seat)), text
        _assert_result_shown(text, env.infos["player_0"]["hand_result"])


def test_render_ansi_game_mode_shows_scores_and_none_mode_returns_none():
    env = ginenv.env(render_mode="ansi", episode="game", ruleset="eaai", target=30)
    env.reset(seed=2, options={"scores": [12, 7]})
    assert re.search(r"\b12\b", env.render()) and re.search(r"\b7\b", env.render())
    run_episode(env, eager)
    scores = env.infos["player_0"]["game_result"]["scores"]
    text = env.render()
    assert all(re.search(rf"\b{s}\b", text) for s in scores), text
    quiet = ginenv.env()
    quiet.reset(seed=0)
    assert quiet.render() is None


def _assert_result_shown(text: str, result: dict) -> None:
    if result["winner"] is None:
        assert "dead" in text or "truncated" in text, text
    else:
        outcome = re.compile(result["outcome"].replace("_", "[ _]"), re.I)
        assert any(result["winner"] in line and re.search(rf"\b{result['points']}\b", line) and outcome.search(line)
                   for line in text.splitlines()), f"no score line for {result}:\n{text}"


def test_render_ansi_game_mode_shows_each_finished_hand():
    """In game mode the next hand starts in the step that ended a hand; render() right after
    that step must still show how the hand ended (both hands and the score line), else a
    "human" game never shows a showdown but the last one."""
    env = ginenv.env(render_mode="ansi", episode="game", ruleset="eaai", target=150)
    env.reset(seed=5)
    checked = 0
    while not done(env):
        env.step(eager(env))
        result = env.infos["player_0"].get("hand_result")
        if result is not None and not done(env):
            text = env.render()
            _assert_result_shown(text, result)
            for name in ("knocker_melds", "defender_melds"):
                assert all(card in text for meld in result[name] for card in meld), text
            checked += 1
    assert checked >= 2


def test_render_human_prints_the_ansi_text(capsys):
    human, ansi = ginenv.env(render_mode="human"), ginenv.env(render_mode="ansi")
    human.reset(seed=9)
    ansi.reset(seed=9)
    assert capsys.readouterr().out == ansi.render() + "\n"
    policy = random_quiet(np.random.default_rng(1))
    while not done(ansi):
        action = policy(ansi)
        ansi.step(action)
        human.step(action)
        printed = capsys.readouterr().out
        assert printed == ansi.render() + "\n"
        assert ansi.agent_selection in printed


# ----- contract: agents, spaces, masks -----------------------------------
def test_agents_spaces_and_mask_dtype():
    env = ginenv.env()
    env.reset(seed=0)
    assert env.possible_agents == list(AGENTS) and env.agents == list(AGENTS)
    assert env.metadata["name"] == "gin_rummy_v1"
    for agent in AGENTS:
        assert env.action_space(agent).n == NUM_ACTIONS == 108
        obs = env.observe(agent)
        assert set(obs) == {"observation", "action_mask"}
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (108,)
        assert obs["observation"].shape == (ginenv.OBSERVATION_SIZE,) and obs["observation"].dtype == np.float32
        assert env.observation_space(agent).contains(obs)


def _independent_legal(hand, rules) -> list[int]:
    """Legal ids from the rules (R11-R16) and the public deadwood(), not the engine's move generator."""
    seat = hand.current_player
    if hand.is_over:
        return []
    if hand.phase == "offer":
        return [TAKE_DISCARD, PASS]
    moves = [(e["action"], e.get("card")) for e in hand.events]
    if hand.phase == "draw":  # R11: after both passed, the non-dealer must draw from the stock
        both_passed = [a for a, _ in moves] == [PASS, PASS]
        return [DRAW_STOCK] if both_passed else [DRAW_STOCK, TAKE_DISCARD]
    mine = hand.hand_cards(seat)
    assert len(mine) == 11
    taken = moves[-1][1] if moves[-1][0] == TAKE_DISCARD else None  # R12
    allowed = [c for c in mine if c != taken]
    out = [DISCARD_BASE + c for c in allowed]
    out += [KNOCK_BASE + c for c in allowed if deadwood([x for x in mine if x != c]) <= hand.knock_limit]
    if rules.big_gin and deadwood(mine) == 0:
        out.append(BIG_GIN)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), ruleset=st.sampled_from(RULESETS + ("low_knock",)),
       knock_probability=st.sampled_from([0.0, 0.2, 1.0]))
def test_R11_R16_action_mask_has_exactly_the_legal_ids(seed, ruleset, knock_probability):
    kwargs = {"ruleset": "pagat", "knock_limit": 3, "big_gin": True} if ruleset == "low_knock" else {"ruleset": ruleset}
    env = raw_env(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    policy = random_quiet(rng, knock_probability)
    while not done(env):
        actor = env.agent_selection
        mask = env.observe(actor)["action_mask"]
        assert np.flatnonzero(mask).tolist() == sorted(_independent_legal(env.hand, env.ruleset))
        assert set(np.unique(mask)) <= {0, 1}
        other = AGENTS[1 - AGENTS.index(actor)]
        assert not env.observe(other)["action_mask"].any()
        env.step(policy(env))
    for agent in AGENTS:
        assert not env.observe(agent)["action_mask"].any()


def _meld_rich_deal(rng: np.random.Generator) -> dict[str, Any]:
    """player_1 (the non-dealer) gets random runs and sets plus filler: knocks and gin are common."""
    free, hand = set(range(52)), []
    size = int(rng.integers(7, 11))
    for _ in range(40):
        if len(hand) >= size:
            break
        if rng.random() < 0.5:
            suit, start, length = int(rng.integers(4)), int(rng.integers(11)), int(rng.integers(3, 6))
            meld = [suit * 13 + r for r in range(start, min(start + length, 13))]
        else:
            rank = int(rng.integers(13))
            meld = [s * 13 + rank for s in rng.permutation(4)[:int(rng.integers(3, 5))]]
        if len(meld) >= 3 and set(meld) <= free and len(hand) + len(meld) <= 10:
            hand += meld
            free -= set(meld)
    rest = [int(c) for c in rng.permutation(sorted(free))]
    filler = 10 - len(hand)
    hand, rest = hand + rest[:filler], rest[filler:]
    return {"dealer": 0, "hands": [rest[:10], hand], "upcard": rest[10], "stock": rest[11:]}


def test_R14_R16_masks_in_knockable_positions():
    """Positions built to be near gin: knock, gin and big-gin ids in the mask match the rules."""
    rng = np.random.default_rng(2024)
    seen = {"knock": 0, "gin": 0, "big_gin": 0}
    for i in range(300):
        kwargs = [{"ruleset": "pagat"}, {"ruleset": "classic25"}, {"ruleset": "oklahoma"},
                  {"ruleset": "eaai", "knock_limit": 0}][i % 4]
        env = raw_env(**kwargs)
        env.reset(options={"deal": _meld_rich_deal(rng)})
        for action in ([TAKE_DISCARD] if i % 2 else [PASS, PASS, DRAW_STOCK]):
            env.step(action)
        mask = np.flatnonzero(env.observe("player_1")["action_mask"]).tolist()
        assert mask == sorted(_independent_legal(env.hand, env.ruleset))
        knocks = [a - KNOCK_BASE for a in mask if KNOCK_BASE <= a < BIG_GIN]
        seen["knock"] += bool(knocks)
        mine = env.hand.hand_cards(1)
        seen["gin"] += any(deadwood([c for c in mine if c != k]) == 0 for k in knocks)
        seen["big_gin"] += BIG_GIN in mask
        if knocks:  # knocking really ends the hand with that deadwood
            card = knocks[int(rng.integers(len(knocks)))]
            env.step(KNOCK_BASE + card)
            result = env.infos["player_0"]["hand_result"]
            assert result["knocker"] == "player_1"
            assert result["knocker_deadwood"] == deadwood([c for c in mine if c != card]) <= env.hand.knock_limit
            assert result["outcome"] == ("gin" if result["knocker_deadwood"] == 0 else result["outcome"])
    assert seen["knock"] >= 60 and seen["gin"] >= 10 and seen["big_gin"] >= 2, seen


def test_observations_are_fresh_arrays():
    """A stored observation is not overwritten by later observe() or step() calls."""
    env = ginenv.env()
    env.reset(seed=5)
    first = {a: env.observe(a) for a in AGENTS}
    saved = {a: (o["observation"].copy(), o["action_mask"].copy()) for a, o in first.items()}
    policy = random_quiet(np.random.default_rng(0))
    for _ in range(6):
        env.step(policy(env))
        for a in AGENTS:
            env.observe(a)
    for a in AGENTS:
        assert np.array_equal(first[a]["observation"], saved[a][0])
        assert np.array_equal(first[a]["action_mask"], saved[a][1])
    assert first["player_0"]["observation"] is not first["player_1"]["observation"]


# ----- contract: illegal actions -----------------------------------------
@pytest.mark.parametrize("make", [ginenv.env, raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize("episode", EPISODES)
def test_illegal_action_raises_names_action_and_changes_nothing(make, episode):
    env = make(episode=episode, ruleset="classic25")
    env.reset(seed=21)
    rng = np.random.default_rng(21)
    policy = random_quiet(rng)
    tried = 0
    while not done(env) and tried < 60:
        ok = legal(env)
        bad = [a for a in range(NUM_ACTIONS) if a not in ok]
        for action in [bad[int(rng.integers(len(bad)))], np.int64(bad[0]), NUM_ACTIONS, -1, None, "3", 2.5]:
            state_before = _state(env)  # observes first: observe() may refresh caches
            hand_before = env.unwrapped.hand.clone()
            before = pickle.dumps(env.unwrapped)
            with pytest.raises(IllegalActionError) as info:
                env.step(action)
            assert isinstance(info.value, ValueError)
            message = str(info.value)
            assert repr(action) in message or str(action) in message, message
            if isinstance(action, (int, np.integer)) and 0 <= action < NUM_ACTIONS:
                assert action_text(int(action)) in message, message
            assert pickle.dumps(env.unwrapped) == before
            assert env.unwrapped.hand == hand_before
            assert _state(env) == state_before
            assert sum(env.rewards.values()) == 0
            tried += 1
        env.step(policy(env))  # a legal action still works afterwards
    assert tried >= 40


def test_R12_illegal_discard_of_the_taken_card_is_named():
    env = ginenv.env()
    env.reset(options={"deal": make_deal(0, DEFENDER, KNOCKER, "2H")})
    env.step(TAKE_DISCARD)  # player_1 takes the upcard 2H
    with pytest.raises(IllegalActionError, match=r"2H"):
        env.step(DISCARD_BASE + parse_card("2H"))
    with pytest.raises(IllegalActionError, match=r"QH"):  # not in the hand
        env.step(DISCARD_BASE + parse_card("QH"))
    env.step(DISCARD_BASE + parse_card("KH"))
    assert env.agent_selection == "player_0"


# ----- contract: deal injection ------------------------------------------
@pytest.mark.parametrize("dealer", [0, 1])
@pytest.mark.parametrize("episode", EPISODES)
def test_R10_R11_deal_injection_reproduces_the_position(dealer, episode):
    deal = make_deal(dealer, DEFENDER, KNOCKER, "2H", stock_top="QH QS")
    env = ginenv.env(episode=episode)
    env.reset(seed=123, options={"deal": deal})
    non_dealer = AGENTS[1 - dealer]
    assert env.agent_selection == non_dealer  # the first upcard offer goes to the non-dealer
    assert legal(env) == [TAKE_DISCARD, PASS]
    for seat, agent in enumerate(AGENTS):
        view = decode(env.observe(agent))
        assert list(view.hand) == sorted(deal["hands"][seat])
        assert view.top_discard == parse_card("2H") and view.pile_rest == ()
        assert view.stock_size == 31 and view.is_dealer == (seat == dealer)
    # the same deal given as text gives the same observations
    text = {"dealer": dealer, "hands": [[CARD_TEXTS[c] for c in h] for h in deal["hands"]],
            "upcard": "2h", "stock": [CARD_TEXTS[c] for c in deal["stock"]]}
    other = ginenv.env(episode=episode)
    other.reset(seed=999, options={"deal": text})
    assert _state(other) == _state(env)
    env.step(PASS)
    assert env.agent_selection == AGENTS[dealer] and legal(env) == [TAKE_DISCARD, PASS]
    env.step(PASS)
    assert env.agent_selection == non_dealer and legal(env) == [DRAW_STOCK]  # forced stock draw
    env.step(DRAW_STOCK)
    assert parse_card("QH") in decode(env.observe(non_dealer)).hand  # the stock's top card
    assert decode(env.observe(non_dealer)).stock_size == 30


def test_R11_dealer_takes_the_upcard_after_the_non_dealer_passed():
    env = ginenv.env()
    env.reset(options={"deal": make_deal(1, KNOCKER, DEFENDER, "2H")})
    env.step(PASS)  # player_0 (non-dealer) passes
    assert env.agent_selection == "player_1"
    env.step(TAKE_DISCARD)
    assert parse_card("2H") in decode(env.observe("player_1")).hand
    env.step(DISCARD_BASE + parse_card("KS"))
    assert env.agent_selection == "player_0" and legal(env) == [DRAW_STOCK, TAKE_DISCARD]


BAD_DEALS = {
    "duplicate card": lambda d: {**d, "hands": [d["hands"][0][:9] + [d["hands"][1][0]], d["hands"][1]]},
    "nine cards": lambda d: {**d, "hands": [d["hands"][0][:9], d["hands"][1]],
                             "stock": d["stock"] + [d["hands"][0][9]]},
    "short stock": lambda d: {**d, "stock": d["stock"][:30]},
    "bad card text": lambda d: {**d, "upcard": "1X"},
    "card out of range": lambda d: {**d, "upcard": 52},
    "dealer 2": lambda d: {**d, "dealer": 2},
    "missing key": lambda d: {k: v for k, v in d.items() if k != "stock"},
    "extra key": lambda d: {**d, "ruleset": "pagat"},
    "not a dict": lambda d: [d["hands"], d["upcard"]],
    "hands a string": lambda d: {**d, "hands": "AC 2C"},
    "dealer True": lambda d: {**d, "dealer": True},
    "upcard a list": lambda d: {**d, "upcard": [d["upcard"]]},
    "stock holds None": lambda d: {**d, "stock": d["stock"][:-1] + [None]},
}


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize("problem", sorted(BAD_DEALS))
def test_invalid_deal_is_a_value_error(problem, episode):
    deal = BAD_DEALS[problem](make_deal(0, DEFENDER, KNOCKER, "2H"))
    env = ginenv.env(episode=episode)
    with pytest.raises(ValueError):
        env.reset(options={"deal": deal})


# ----- contract: mid-match options ---------------------------------------
def test_R26_game_mode_starts_mid_match_from_options():
    env = ginenv.env(episode="game")
    env.reset(options={"scores": [95, 0], "hands_won": [3, 0], "deal": make_deal(1, KNOCKER, DEFENDER, "2H")})
    for seat, agent in enumerate(AGENTS):
        view = decode(env.observe(agent))
        assert view.scores == ((95, 0) if seat == 0 else (0, 95))
        assert view.hands_won == ((3, 0) if seat == 0 else (0, 3)) and view.target == 100
    totals = {a: 0.0 for a in AGENTS}
    for action in (TAKE_DISCARD, KNOCK_BASE + parse_card("KH")):  # player_0 takes 2H, knocks: +30
        env.step(action)
        for a in AGENTS:
            totals[a] += env.rewards[a]
    game = env.infos["player_1"]["game_result"]
    assert game == env.infos["player_0"]["game_result"]
    assert game["winner"] == "player_0" and game["scores"] == [125, 0] and game["hands_won"] == [4, 0]
    assert game["box_bonus"] == [80, 0] and game["game_bonus"] == 200  # shutout (R26, R27)
    assert game["final_scores"] == [405, 0]
    assert all(env.terminations.values())
    # rewards since the reset: the final margin minus the margin the game started with
    assert totals == {"player_0": 405 - 95, "player_1": -(405 - 95)}


@pytest.mark.parametrize("options", [{"scores": [10, 20]}, {"hands_won": [1, 0]},
                                     {"scores": [0, 0], "hands_won": [0, 0]}])
def test_match_options_are_a_value_error_in_hand_mode(options):
    with pytest.raises(ValueError):
        ginenv.env(episode="hand").reset(options=options)


@pytest.mark.parametrize("options", [{"scores": [100, 0]}, {"scores": [-1, 0]}, {"scores": [1, 2, 3]},
                                     {"hands_won": [-1, 0]}, {"scores": "10 20"}])
def test_bad_match_options_are_a_value_error(options):
    with pytest.raises(ValueError):
        ginenv.env(episode="game").reset(options=options)


# ----- contract: hand results --------------------------------------------
CONTRACT_FIELDS = {"outcome", "knocker", "winner", "points", "knocker_deadwood", "defender_deadwood", "layoffs",
                   "knocker_melds", "defender_melds"}


def _melds(melds) -> set[frozenset]:
    return {frozenset(m) for m in melds}


def _finish_scripted(env, actions) -> dict:
    totals = {a: 0 for a in AGENTS}
    for action in actions:
        assert not done(env) and "hand_result" not in env.infos[AGENTS[0]]
        env.step(action)
        assert sum(env.rewards.values()) == 0
        for a in AGENTS:
            totals[a] += env.rewards[a]
    return totals


SHOWDOWNS = {
    # R21 with R18 layoffs: knocker 2 (2H) vs defender 4+8+10+9 after laying off 4C, 3D, TS.
    "knock": ("pagat", make_deal(0, DEFENDER, KNOCKER, "2H"), [TAKE_DISCARD, KNOCK_BASE + parse_card("KH")],
              dict(outcome="knock", knocker="player_1", winner="player_1", points=30, knocker_deadwood=2,
                   defender_deadwood=32, layoffs={"4C", "3D", "TS"},
                   knocker_melds={"AC 2C 3C", "4D 5D 6D", "7S 8S 9S"}, defender_melds={"KC KD KS"})),
    # R23: gin, no layoffs (JS would fit the knocker's run): 20 + 49.
    "gin": ("pagat", make_deal(0, "KC KD KS 4C JS 3D 5H 8H JC 9D", KNOCKER, "TS"),
            [TAKE_DISCARD, KNOCK_BASE + parse_card("KH")],
            dict(outcome="gin", knocker="player_1", winner="player_1", points=69, knocker_deadwood=0,
                 defender_deadwood=49, layoffs=set(),
                 knocker_melds={"AC 2C 3C", "4D 5D 6D", "7S 8S 9S TS"}, defender_melds={"KC KD KS"})),
    # R22: knock with 10 (TH) against 2: defender scores 10 - 2 + 10.
    "undercut": ("pagat", make_deal(0, "KC KD KS 8C 8D 8H JC JD JH 2H", KNOCKER, "TH"),
                 [TAKE_DISCARD, KNOCK_BASE + parse_card("KH")],
                 dict(outcome="undercut", knocker="player_1", winner="player_0", points=18, knocker_deadwood=10,
                      defender_deadwood=2, layoffs=set(), knocker_melds={"AC 2C 3C", "4D 5D 6D", "7S 8S 9S"},
                      defender_melds={"KC KD KS", "8C 8D 8H", "JC JD JH"})),
    # R16/R24 (classic25): 11 melded cards after taking 7D, big gin 31 + 49.
    "big_gin": ("classic25", make_deal(0, "KC KD KS 4C JS 3D 5H 8H JC 9D", "AC 2C 3C 4D 5D 6D 7S 8S 9S TS", "7D"),
                [TAKE_DISCARD, BIG_GIN],
                dict(outcome="big_gin", knocker="player_1", winner="player_1", points=80, knocker_deadwood=0,
                     defender_deadwood=49, layoffs=set(),
                     knocker_melds={"AC 2C 3C", "4D 5D 6D 7D", "7S 8S 9S TS"}, defender_melds={"KC KD KS"})),
}


@pytest.mark.parametrize("make", [ginenv.env, raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize("case", sorted(SHOWDOWNS))
def test_R14_R24_hand_result_fields_and_rewards(case, make):
    ruleset, deal, actions, want = SHOWDOWNS[case]
    env = make(ruleset=ruleset)
    env.reset(options={"deal": deal})
    totals = _finish_scripted(env, actions)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    result = env.infos["player_0"]["hand_result"]
    assert env.infos["player_1"]["hand_result"] == result
    assert CONTRACT_FIELDS <= set(result)
    assert {k: result[k] for k in ("outcome", "knocker", "winner", "points", "knocker_deadwood",
                                   "defender_deadwood")} == {k: want[k] for k in ("outcome", "knocker", "winner",
                                                                                  "points", "knocker_deadwood",
                                                                                  "defender_deadwood")}
    assert isinstance(result["layoffs"], list) and set(result["layoffs"]) == want["layoffs"]
    assert len(result["layoffs"]) == len(want["layoffs"])
    for key in ("knocker_melds", "defender_melds"):
        assert isinstance(result[key], list) and all(isinstance(m, list) for m in result[key])
        assert _melds(result[key]) == {frozenset(m.split()) for m in want[key]}
    winner, loser = want["winner"], AGENTS[1 - AGENTS.index(want["winner"])]
    assert totals == {winner: want["points"], loser: -want["points"]}
    assert env.rewards == {winner: want["points"], loser: -want["points"]}  # reward at the ending step


def test_R24_oklahoma_spade_upcard_doubles_the_reward():
    """Oklahoma: the 2S upcard sets the knock limit to 2 and doubles the hand's points."""
    env = ginenv.env(ruleset="oklahoma")
    env.reset(options={"deal": make_deal(0, DEFENDER, KNOCKER, "2S")})
    assert decode(env.observe("player_1")).knock_limit == 2
    totals = _finish_scripted(env, [TAKE_DISCARD, KNOCK_BASE + parse_card("KH")])
    result = env.infos["player_0"]["hand_result"]
    assert (result["outcome"], result["knocker_deadwood"], result["defender_deadwood"]) == ("knock", 2, 32)
    assert result["points"] == 2 * 30 == totals["player_1"] == -totals["player_0"]


@pytest.mark.parametrize("episode", EPISODES)
def test_R25_dead_hand_result(episode):
    env = ginenv.env(episode=episode, ruleset="pagat")
    env.reset(seed=1, options={"deal": make_deal(0, DEFENDER, KNOCKER, "QH")})
    draws = 0
    while "hand_result" not in env.infos["player_0"]:
        action = draw_and_discard_drawn(env)
        draws += action == DRAW_STOCK
        env.step(action)
        assert sum(env.rewards.values()) == 0
    assert draws == 29  # the last two stock cards are never drawn
    result = env.infos["player_0"]["hand_result"]
    assert result == env.infos["player_1"]["hand_result"] and CONTRACT_FIELDS <= set(result)
    assert (result["outcome"], result["knocker"], result["winner"], result["points"]) == ("dead", None, None, 0)
    assert result["knocker_deadwood"] is None and result["defender_deadwood"] is None
    assert not result.get("truncated", False)
    assert env.rewards == {"player_0": 0, "player_1": 0}
    if episode == "hand":
        assert all(env.terminations.values()) and not any(env.truncations.values())
    else:  # R25/R28: the same dealer deals again, the game goes on
        assert not done(env)
        view = decode(env.observe("player_0"))
        assert view.is_dealer and view.stock_size == 31 and view.scores == (0, 0) and view.hands_won == (0, 0)


@pytest.mark.parametrize("episode", EPISODES)
def test_max_turns_per_hand_truncates(episode):
    env = ginenv.env(episode=episode, max_turns_per_hand=3)
    env.reset(seed=4)
    steps = 0
    while "hand_result" not in env.infos["player_0"]:
        env.step(draw_and_discard_drawn(env))
        steps += 1
    result = env.infos["player_1"]["hand_result"]
    assert result == env.infos["player_0"]["hand_result"] and CONTRACT_FIELDS <= set(result)
    assert result["truncated"] is True
    assert (result["knocker"], result["winner"], result["points"]) == (None, None, 0)
    assert result["knocker_deadwood"] is None and result["defender_deadwood"] is None
    assert env.rewards == {"player_0": 0, "player_1": 0}
    if episode == "hand":
        assert all(env.truncations.values()) and not any(env.terminations.values())
    else:
        assert not done(env) and decode(env.observe(env.agent_selection)).stock_size == 31


# ----- contract: games and rewards ----------------------------------------
def _game(ruleset: str, seed: int, reward_scale: float = 1.0, reward_mode: str = "points", **overrides):
    env = ginenv.env(ruleset=ruleset, episode="game", reward_scale=reward_scale, reward_mode=reward_mode, **overrides)
    env.reset(seed=seed)
    hands: list[dict] = []
    rewards_per_step: list[dict] = []
    rules = env.unwrapped.ruleset
    dealer = [decode(env.observe(a)).is_dealer for a in AGENTS].index(True)

    def on_step(e, agent, action):
        nonlocal dealer
        rewards_per_step.append(dict(e.rewards))
        if "hand_result" in e.infos["player_0"]:
            result = e.infos["player_0"]["hand_result"]
            assert e.infos["player_1"]["hand_result"] == result
            hands.append(result)
            if not done(e):  # R25/R28: who deals the next hand
                new_dealer = [decode(e.observe(a)).is_dealer for a in AGENTS].index(True)
                if result["winner"] is None:
                    assert new_dealer == dealer
                elif rules.next_dealer == "winner":
                    assert AGENTS[new_dealer] == result["winner"]
                else:
                    assert new_dealer == 1 - dealer
                dealer = new_dealer
        else:
            assert "hand_result" not in e.infos["player_1"] and "game_result" not in e.infos["player_0"]
    totals = run_episode(env, eager, on_step)
    return env, totals, hands, rewards_per_step


@pytest.mark.parametrize("ruleset", RULESETS)
def test_R26_R27_game_result_and_rewards_sum_to_the_final_margin(ruleset):
    env, totals, hands, _ = _game(ruleset, seed=7)
    rules = env.unwrapped.ruleset
    game = env.infos["player_0"]["game_result"]
    assert game == env.infos["player_1"]["game_result"]
    assert {"winner", "scores", "hands_won", "box_bonus", "final_scores", "game_bonus"} <= set(game)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    w = AGENTS.index(game["winner"])
    scores, won = [0, 0], [0, 0]
    for result in hands:  # the running totals follow from the hand results
        if result["winner"] is not None:
            scores[AGENTS.index(result["winner"])] += result["points"]
            won[AGENTS.index(result["winner"])] += 1
    assert game["scores"] == scores and game["hands_won"] == won
    assert scores[w] >= rules.target > scores[1 - w]
    assert game["box_bonus"] == [rules.box_bonus * n for n in won]
    final = game["final_scores"]
    assert final[1 - w] == scores[1 - w] + game["box_bonus"][1 - w]
    if not (scores[1 - w] == 0 and rules.shutout_mode == "double"):
        assert final[w] == scores[w] + game["box_bonus"][w] + game["game_bonus"]
    if scores[1 - w] > 0 or rules.shutout_mode == "none":
        assert game["game_bonus"] == rules.game_bonus
    assert totals[AGENTS[w]] == final[w] - final[1 - w] == -totals[AGENTS[1 - w]]
    assert totals["player_1"] == final[1] - final[0]


@pytest.mark.parametrize("ruleset", ["pagat", "oklahoma"])
def test_rewards_scale_linearly_with_reward_scale(ruleset):
    _, base, hands, per_step = _game(ruleset, seed=3)
    for scale in (0.01, 0.25, 3.0):
        _, scaled, hands_scaled, per_step_scaled = _game(ruleset, seed=3, reward_scale=scale)
        assert hands_scaled == hands
        for a in AGENTS:
            assert scaled[a] == pytest.approx(scale * base[a])
        for plain, step in zip(per_step, per_step_scaled, strict=True):
            for a in AGENTS:
                assert step[a] == pytest.approx(scale * plain[a])


def test_win_loss_rewards_in_game_mode():
    env, totals, hands, per_step = _game("eaai", seed=7, reward_mode="win_loss")
    winner = env.infos["player_0"]["game_result"]["winner"]
    assert totals == {winner: 1, AGENTS[1 - AGENTS.index(winner)]: -1}
    assert all(r == {a: 0 for a in AGENTS} for r in per_step[:-1])  # 0 per hand, +1/-1 at the end
    assert any(h["winner"] is not None for h in hands)


@pytest.mark.parametrize("case", ["knock", "undercut"])
def test_win_loss_rewards_in_hand_mode(case):
    ruleset, deal, actions, want = SHOWDOWNS[case]
    env = ginenv.env(ruleset=ruleset, reward_mode="win_loss", reward_scale=5.0)
    env.reset(options={"deal": deal})
    totals = _finish_scripted(env, actions)
    assert totals[want["winner"]] == 1 and sum(totals.values()) == 0
    env = ginenv.env(reward_mode="win_loss", max_turns_per_hand=2)
    env.reset(seed=0)
    assert run_episode(env, draw_and_discard_drawn) == {a: 0 for a in AGENTS}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), ruleset=st.sampled_from(RULESETS), episode=st.sampled_from(EPISODES),
       reward_mode=st.sampled_from(["points", "win_loss"]), knock_probability=st.sampled_from([0.1, 1.0]))
def test_rewards_are_zero_sum_at_every_step(seed, ruleset, episode, reward_mode, knock_probability):
    env = ginenv.env(ruleset=ruleset, episode=episode, reward_mode=reward_mode, reward_scale=0.01,
                     **({"target": 40} if episode == "game" else {}))
    env.reset(seed=seed)
    policy = random_quiet(np.random.default_rng(seed), knock_probability)
    for _ in range(600):
        if done(env):
            break
        env.step(policy(env))
        assert set(env.rewards) == set(AGENTS)
        assert sum(env.rewards.values()) == pytest.approx(0, abs=1e-12)
        assert env.last()[1] == env._cumulative_rewards[env.agent_selection]


# ----- contract: invalid kwargs -------------------------------------------
@pytest.mark.parametrize("make", [ginenv.env, raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize("kwargs", [
    {"episode": "match"}, {"episode": None}, {"render_mode": "rgb_array"}, {"render_mode": "text"},
    {"reward_mode": "score"}, {"reward_scale": 0}, {"reward_scale": -1.0}, {"reward_scale": "1"},
    {"ruleset": "vegas"}, {"ruleset": 3}, {"knock_limit": 11}, {"knock_limit": -1}, {"knock_limit": "ace"},
    {"gin_bonus": -5}, {"undercut_bonus": 2.5}, {"target": 0}, {"box_bonus": -1}, {"shutout_mode": "triple"},
    {"next_dealer": "loser"}, {"big_gin": "yes"}, {"max_turns_per_hand": 0}, {"no_such_rule": 1},
], ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_invalid_kwargs_are_a_value_error(make, kwargs):
    with pytest.raises(ValueError):
        make(**kwargs)


def test_rule_overrides_apply_on_top_of_the_preset():
    env = ginenv.env(ruleset="oklahoma", gin_bonus=40, target=60)
    rules = env.unwrapped.ruleset
    assert (rules.name, rules.gin_bonus, rules.target, rules.knock_limit) == ("oklahoma", 40, 60, "upcard")
    env = ginenv.env(ruleset="pagat", gin_bonus=40)
    env.reset(options={"deal": make_deal(0, "KC KD KS 4C JS 3D 5H 8H JC 9D", KNOCKER, "TS")})
    _finish_scripted(env, [TAKE_DISCARD, KNOCK_BASE + parse_card("KH")])
    assert env.infos["player_0"]["hand_result"]["points"] == 40 + 49


# ----- the decoder --------------------------------------------------------
class PublicRecord:
    """What both seats saw, rebuilt from the actions alone (independent of the engine's fields)."""

    def __init__(self) -> None:
        self.history: list[tuple[int, int]] = []
        self.picked = [set(), set()]
        self.discarded = [set(), set()]
        self.declined = [set(), set()]

    def update(self, seat: int, action: int, top: Optional[int]) -> None:
        if action in (PASS, DRAW_STOCK):
            self.declined[seat].add(top)
        elif action == TAKE_DISCARD:
            self.picked[seat].add(top)
        elif DISCARD_BASE <= action < KNOCK_BASE:
            card = action - DISCARD_BASE
            self.picked[seat].discard(card)
            self.discarded[seat].add(card)
            self.history.append((seat, card))
        elif KNOCK_BASE <= action < BIG_GIN:  # face down: no longer held, never shown as a discard
            self.picked[seat].discard(action - KNOCK_BASE)


def _check_view(view, hand, seat: int, record: PublicRecord, match: Optional[tuple]) -> None:
    opp = 1 - seat
    to_act = hand.current_player == seat
    assert view.hand == tuple(hand.hand_cards(seat))
    assert view.top_discard == hand.top_discard
    assert view.pile_rest == tuple(sorted(hand.pile[:-1]))
    assert view.history_length == len(hand.history) == len(record.history)
    want_history = tuple((who == opp, card) for who, card in reversed(record.history))[:32]
    assert view.history == want_history
    assert view.history == tuple((who == opp, card) for who, card in reversed(hand.history))[:32]
    assert view.my_discards == tuple(mask_to_cards(hand.discarded[seat])) == tuple(sorted(record.discarded[seat]))
    assert view.opp_discards == tuple(mask_to_cards(hand.discarded[opp])) == tuple(sorted(record.discarded[opp]))
    assert view.opp_picked == tuple(mask_to_cards(hand.picked[opp])) == tuple(sorted(record.picked[opp]))
    assert view.opp_declined == tuple(mask_to_cards(hand.declined[opp])) == tuple(sorted(record.declined[opp]))
    assert view.no_discard == (hand.taken if to_act and hand.taken >= 0 else None)
    assert view.stock_size == len(hand.stock)
    assert view.phase == (hand.phase if to_act else None) and view.my_turn == to_act
    assert view.is_dealer == (hand.dealer == seat)
    assert view.knock_limit == hand.knock_limit
    assert view.ruleset.with_overrides(name="x") == hand.ruleset.with_overrides(name="x")
    assert view.hand_doubled == bool(hand.row[DOUBLED]) and view.game_mode == (match is not None)
    if match is None:
        assert (view.scores, view.hands_won, view.target) == ((0, 0), (0, 0), 0)
    else:
        scores, won, target = match
        assert view.scores == (scores[seat], scores[opp]) and view.hands_won == (won[seat], won[opp])
        assert view.target == target


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), ruleset=st.sampled_from(RULESETS), episode=st.sampled_from(EPISODES),
       take_probability=st.sampled_from([0.0, 0.5, 0.9]), start=st.tuples(st.integers(0, 99), st.integers(0, 99),
                                                                          st.integers(0, 9), st.integers(0, 9)))
def test_decode_recovers_the_true_state(seed, ruleset, episode, take_probability, start):
    env = raw_env(ruleset=ruleset, episode=episode)
    options = {"scores": list(start[:2]), "hands_won": list(start[2:])} if episode == "game" else {}
    env.reset(seed=seed, options=options)
    rng = np.random.default_rng(seed)
    scores, won = list(start[:2]), list(start[2:])
    record = PublicRecord()
    for _ in range(150):
        match = (scores, won, env.ruleset.target) if episode == "game" else None
        for seat, agent in enumerate(AGENTS):
            obs = env.observe(agent)
            _check_view(decode(obs if seat else obs["observation"]), env.hand, seat, record, match)
        if done(env):
            break
        seat = AGENTS.index(env.agent_selection)
        actions = legal(env)
        if TAKE_DISCARD in actions and DRAW_STOCK in actions:
            action = TAKE_DISCARD if rng.random() < take_probability else DRAW_STOCK
        else:
            quiet = [a for a in actions if a < KNOCK_BASE]
            action = quiet[int(rng.integers(len(quiet)))] if quiet and rng.random() > 0.05 else actions[-1]
        top = env.hand.top_discard
        env.step(action)
        result = env.infos["player_0"].get("hand_result")
        if result is not None and result["winner"] is not None:
            scores[AGENTS.index(result["winner"])] += result["points"]
            won[AGENTS.index(result["winner"])] += 1
        if result is not None and not done(env):  # game mode: a new hand started
            record = PublicRecord()
        else:
            record.update(seat, action, top)


def test_decode_keeps_the_32_most_recent_discards_in_order():
    """Both players keep taking the discard: the history grows past its 32 rows."""
    env = raw_env(max_turns_per_hand=200)
    env.reset(seed=8)
    record = PublicRecord()
    while len(record.history) < 50:
        seat = AGENTS.index(env.agent_selection)
        actions = legal(env)
        action = TAKE_DISCARD if TAKE_DISCARD in actions else actions[0]
        top = env.hand.top_discard
        env.step(action)
        record.update(seat, action, top)
    for seat, agent in enumerate(AGENTS):
        view = decode(env.observe(agent))
        assert view.history_length == 50 and len(view.history) == 32
        assert view.history == tuple((who != seat, card) for who, card in reversed(record.history))[:32]
        _check_view(view, env.hand, seat, record, None)


def test_decode_rejects_a_wrong_shape():
    with pytest.raises(ValueError):
        decode(np.zeros(ginenv.OBSERVATION_SIZE + 1, dtype=np.float32))
