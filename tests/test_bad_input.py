"""Every public entry refuses bad input with a clear error before any state changes.

Each case is one table row: the call, the exception class, and a word the message must
contain (the parameter's name).  Cases that the compiled core could not survive unchecked (a
write past a hand's row, a read of a non-card) run in a child process, so a native crash fails
the test instead of killing pytest.
"""
import json
import subprocess
import sys
import textwrap
from functools import partial

import numpy as np
import pytest

from ginenv import Deal, IllegalActionError, LogError, PositionError
from ginenv.game.encoding import OBSERVATION_SIZE
from ginenv.game.hand import HandState

GOOD = dict(dealer=0, hands=[list(range(10)), list(range(10, 20))], stock=list(range(21, 52)), pile=[20],
            current_player=1, phase="draw")
"""A valid position (seat 1 to draw, 31 stock cards)."""


def _short_stock(size: int, phase: str, **extra) -> dict:
    """``GOOD`` with only ``size`` stock cards, the rest on the pile (first upcard at the bottom)."""
    return {**GOOD, "stock": list(range(52 - size, 52)), "pile": list(range(20, 52 - size)), "phase": phase, **extra}


POSITIONS = [
    ({"phase": "offer", "passes": 2}, "passes"),  # unchecked: a write past the row
    ({"phase": "offer", "passes": 3}, "passes"),
    ({"passes": -1}, "passes"),
    ({"passes": 1.0}, "passes"),
    ({"turns": -1}, "turns"),
    ({"turns": 10**12}, "turns"),
    ({"phase": "offer", "current_player": 0}, "offer"),
    ({"phase": "offer", "turns": 3}, "offer"),
    ({"forced_draw": "yes"}, "forced_draw"),
    ({"forced_draw": True, "turns": 4}, "forced_draw"),
    ({"current_player": 1.0}, "current_player"),
    ({"history": [(0.5, 3)]}, "history"),
]
SHORT_STOCKS = [
    (_short_stock(0, "offer"), "offer"),  # unchecked: pass, pass, draw reads a non-card
    (_short_stock(2, "offer"), "offer"),  # a forced draw with 2 stock cards left (R25)
    (_short_stock(2, "draw"), "R25"),
    (_short_stock(1, "discard", hands=[list(range(10)), list(range(10, 21))], pile=list(range(21, 51)),
                  stock=[51]), "R25"),
]


def _in_child(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (a native crash shows as a negative return code)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


def test_crashing_positions_and_logs_are_refused_in_a_child_process():
    """R11, R25: positions and replay logs the compiled core cannot play are refused first."""
    cases = [{**GOOD, **change} for change, _ in POSITIONS] + [case for case, _ in SHORT_STOCKS]
    words = [word for _, word in POSITIONS + SHORT_STOCKS]
    result = _in_child(f"""
        import json
        from ginenv.game.hand import HandState
        good = HandState.from_position(**{GOOD!r})
        for case in {cases!r}:
            try:
                state = HandState.from_position(**case)
            except ValueError as err:
                print(json.dumps([type(err).__name__, str(err)]))
                continue
            for _ in range(200):  # play on: what the crash needed
                state.apply_action(state.legal_actions()[-1]) if not state.is_over else None
            print(json.dumps(["accepted", ""]))
        log = good.log()
        log["position"]["phase"], log["position"]["passes"] = "offer", 2
        log["events"] = [{{"player": 1, "action": 2}}] * 100
        try:
            HandState.replay(log)
            print(json.dumps(["accepted", ""]))
        except ValueError as err:
            print(json.dumps([type(err).__name__, str(err)]))
    """)
    assert result.returncode == 0, result.stderr
    messages = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(messages) == len(words) + 1
    for (kind, message), word in zip(messages, words + ["passes"]):
        assert kind == "PositionError" and message.startswith("position:") and word in message, message


def _state_of(hand: HandState) -> dict:
    return json.loads(json.dumps(hand.to_state()))


def _edited(**row_values) -> dict:
    """A saved hand state with header fields of its row overwritten."""
    state = _state_of(HandState.from_position(**GOOD))
    for index, value in row_values.items():
        state["row"][int(index)] = value
    return state


@pytest.mark.parametrize("state, word", [
    ({**_edited(), "width": 10**13}, "width"),  # refused before anything is allocated
    ({**_edited(), "row": [1] * 10**4}, "width"),
    (_edited(**{"11": 7}), "row"),   # passes = 7 in a draw
    (_edited(**{"21": 10**6}), "event"),   # the event log far outside the row
    (_edited(**{"20": 10**6}), "event"),
    ({**_edited(), "deal": GOOD}, "deal"),
    ({"ruleset": {}}, "state"),
])
def test_edited_saved_hand_state_is_refused(state, word):
    with pytest.raises(LogError, match=word):
        HandState.from_state(state)


def test_saved_hand_state_round_trips_through_the_check():
    hand = HandState.random(np.random.default_rng(3), "oklahoma")
    for _ in range(9):
        hand.apply_action(hand.legal_actions()[0])
    assert HandState.from_state(_state_of(hand)) == hand


@pytest.mark.parametrize("log, word", [
    ([], "log"),
    ({"ruleset": {}}, "log"),
    ({"ruleset": {}, "events": [], "deal": None}, "deal"),
    ({"ruleset": {}, "events": [], "position": {**GOOD, "colour": 1}}, "colour"),
    ({"ruleset": {}, "events": [3], "position": GOOD}, "events"),
])
def test_malformed_replay_log_is_refused(log, word):
    with pytest.raises(LogError, match=word):
        HandState.replay(log)


def _deal(**change) -> dict:
    """A valid deal (seat 1 dealt 10..19) with ``change`` applied."""
    return {"dealer": 0, "hands": [list(range(10)), list(range(10, 20))], "upcard": 20, "stock": list(range(21, 52)),
            **change}


def _inconsistent_search_position():
    from dataclasses import replace

    from agents.search.positions import position
    from ginenv import decode, raw_env
    env = raw_env()
    env.reset(seed=0)
    view = decode(env.observe(env.agent_selection))
    return position(replace(view, stock_size=view.stock_size - 1))


REFUSED_STARTS = [   # (call, error class, the message's prefix and a word of it)
    (lambda: HandState.from_deal(**_deal(upcard=0)), PositionError, "deal: not a permutation"),
    (lambda: HandState.from_deal(**_deal(dealer=2)), PositionError, "deal: dealer"),
    (lambda: Deal.from_deck(list(range(51)), dealer=0), PositionError, "deal: the deck has 51"),
    (lambda: HandState.from_position(**{**GOOD, "pile": []}), PositionError, "position: hands, stock and pile"),
    (lambda: HandState.from_position(**{**GOOD, "current_player": 2}), PositionError, "position: dealer"),
    (_inconsistent_search_position, PositionError, "position: the observation is inconsistent"),
    (lambda: HandState.replay({"ruleset": {}, "events": [], "deal": _deal(stock=[])}), PositionError, "deal: stock"),
    (lambda: HandState.replay({"ruleset": {"gin_bonus": -1}, "events": [], "deal": _deal()}), LogError,
     "log: ruleset: gin_bonus"),
    (lambda: HandState.replay({"ruleset": {}, "events": [{"action": 0}], "deal": _deal()}), IllegalActionError,
     "illegal action 0"),   # the first decision is the upcard offer: no stock draw
    (lambda: HandState.from_state([]), LogError, "state: must be a dict"),
]


@pytest.mark.parametrize("call, error, prefix", REFUSED_STARTS, ids=[p for _, _, p in REFUSED_STARTS])
def test_bad_starts_and_records_raise_their_own_value_error_class(call, error, prefix):
    with pytest.raises(error) as refused:
        call()
    assert isinstance(refused.value, ValueError) and str(refused.value).startswith(prefix)


def test_a_refused_deal_in_reset_options_is_a_position_error_that_changes_nothing():
    from ginenv import raw_env
    aec = raw_env()
    aec.reset(seed=5)
    before = _aec_snapshot(aec)
    with pytest.raises(PositionError, match="deal: not a permutation"):
        aec.reset(seed=6, options={"deal": _deal(upcard=0)})
    assert _aec_snapshot(aec) == before


def test_the_error_classes_are_exported_value_errors():
    import ginenv
    assert ginenv.PositionError is PositionError and ginenv.LogError is LogError
    assert issubclass(PositionError, ValueError) and issubclass(LogError, ValueError)


# ----- silent acceptance and deep errors ------------------------------------------------------
def _make_agent(spec):
    from agents import make_agent
    return make_agent(spec)


def _batched(**kwargs):
    from ginenv.envs.batched import BatchedGinEnv
    return BatchedGinEnv(**{"num_envs": 2, **kwargs})


def _single(**kwargs):
    from ginenv.envs.single_agent import SingleAgentGinEnv
    return SingleAgentGinEnv(**kwargs)


def _ruleset(**kwargs):
    from ginenv import Ruleset
    return Ruleset(**kwargs)


def _card_value(card):
    from ginenv import card_value
    return card_value(card)


def _deadwood(cards):
    from ginenv import deadwood
    return deadwood(cards)


def _decode(observation):
    from ginenv import decode
    return decode(observation)


def _tournament(**kwargs):
    from train.evaluation.tournament import tournament
    return tournament(["random", "random"], **{"games": 2, "episode": "hand", "workers": 1, **kwargs})


def _evaluate(**kwargs):
    from train.evaluation.evaluate import evaluate
    return evaluate("random", "random", **{"games": 2, "episode": "hand", "workers": 1, **kwargs})


REFUSED = [
    (_tournament, dict(prior=float("inf")), ValueError, "prior"),   # refused before the fit
    (_tournament, dict(bootstrap_samples=10**9), ValueError, "bootstrap_samples"),
    (_evaluate, dict(seed=-1), ValueError, "seed"),
    (_evaluate, dict(games=2.5), ValueError, "games"),
    (_make_agent, (None,), TypeError, "spec"),
    (_make_agent, ("montecarlo:samples=1000000000",), ValueError, "samples"),
    (_make_agent, ("montecarlo:margin=nan",), ValueError, "margin"),
    (_make_agent, ("montecarlo:knock_early=inf",), ValueError, "knock_early"),
    (_make_agent, ("greedy:danger_weight=nan",), ValueError, "danger_weight"),
    (_make_agent, ("greedy:lookahead=1",), ValueError, "lookahead"),
    (_single, dict(illegal_reward=float("nan")), ValueError, "illegal_reward"),
    (_single, dict(reward_scale=float("inf")), ValueError, "reward_scale"),
    (_batched, dict(copy="no"), ValueError, "copy"),
    (_batched, dict(num_envs=0), ValueError, "num_envs"),
    (_batched, dict(num_envs=10**9), ValueError, "num_envs"),
    (_batched, dict(seed=-1), ValueError, "seed"),
    (_batched, dict(reward_scale=float("inf")), ValueError, "reward_scale"),
    (_batched, dict(reward_scale=float("nan")), ValueError, "reward_scale"),
    (_ruleset, dict(gin_bonus=2**63 - 1), ValueError, "gin_bonus"),
    (_ruleset, dict(target=10**30), ValueError, "target"),
    (_ruleset, dict(max_turns_per_hand=10**12), ValueError, "max_turns_per_hand"),
    (_ruleset, dict(big_gin=1), ValueError, "big_gin"),
    (_card_value, (-1,), ValueError, "card"),
    (_deadwood, ([1.0, 2.0],), ValueError, "card"),
    (_deadwood, ([True],), ValueError, "card"),
    (_deadwood, (None,), TypeError, "cards must be an iterable"),
    (_deadwood, (5,), TypeError, "cards must be an iterable"),
    (_decode, ({"obs": []},), ValueError, "'observation'"),
    (_decode, (np.zeros(OBSERVATION_SIZE, dtype=np.float32),), ValueError, "shutout"),   # no rules in it
]


@pytest.mark.parametrize("build, args, error, word", REFUSED, ids=[f"{b.__name__}-{a}" for b, a, _, _ in REFUSED])
def test_bad_argument_is_refused_naming_it(build, args, error, word):
    with pytest.raises(error, match=word):
        build(*args) if isinstance(args, tuple) else build(**args)


def _agent(name, **kwargs):
    from agents.base import RandomAgent
    from agents.heuristic import greedy, simple
    from agents.search import montecarlo
    classes = {"random": RandomAgent, "simple": simple.SimpleAgent, "greedy": greedy.GreedyAgent,
               "montecarlo": montecarlo.MonteCarloAgent}
    return classes[name](**kwargs)


def _ppo(**kwargs):
    from agents.neural.policy import NeuralAgent
    return NeuralAgent(**{"net": _tiny_net(), **kwargs})


def _tiny_net():
    from agents.neural.policy import Architecture, PolicyNet
    return PolicyNet(Architecture(hidden=8, layers=1, card_dim=4))


def _architecture(**kwargs):
    from agents.neural.policy import Architecture
    return Architecture(**kwargs)


def _rollout_settings(**kwargs):
    from agents.search.playout import Settings
    from ginenv import Ruleset
    return Settings.of(Ruleset(), **kwargs)


def _run_plans(**kwargs):
    from train.evaluation.evaluate import MatchPlan, run_plans
    return run_plans([MatchPlan("random", "random", episode="hand")], **{"pairs": 1, "workers": 1, **kwargs})


def _summarize(**kwargs):
    from train.evaluation.evaluate import MatchPlan, summarize
    return summarize(MatchPlan("random", "random", episode="hand"), [], 0.0, 1, **kwargs)


NAN, INF = float("nan"), float("inf")
CONFIDENCE = "confidence must be a finite number > 0.0 and <= 0.999999"
SEED = "seed must be an int 0..340282366920938463463374607431768211455"
RANGED = [   # the message names the parameter and its range; nothing was played or built
    *[(_tournament, dict(confidence=value), CONFIDENCE) for value in (NAN, INF, 1.0, 0.0, 1.5, "0.9")],
    *[(_evaluate, dict(confidence=value), CONFIDENCE) for value in (NAN, -INF, 1.0, np.float64(1.5))],
    (_summarize, dict(confidence=NAN), CONFIDENCE),
    (_tournament, dict(prior=NAN), "prior must be a finite number >= 0.0"),
    (_tournament, dict(games=10**12), "games must be an int 1..10000000"),
    (_tournament, dict(workers=10**6), "workers must be an int 1..4096"),
    (_evaluate, dict(games=10**12), "games must be an int 1..10000000"),
    (_evaluate, dict(workers=10**9), "workers must be an int 1..4096"),
    (_evaluate, dict(workers=2.0), "workers must be an int 1..4096"),
    (_evaluate, dict(seed=None), SEED),
    (_evaluate, dict(seed=1.5), SEED),
    (_run_plans, dict(pairs=10**12), "pairs must be an int 1..5000000"),   # before any task list is built
    (_run_plans, dict(pairs=0), "pairs must be an int 1..5000000"),
    (_run_plans, dict(workers=0), "workers must be an int 1..4096"),
    *[(partial(_agent, name), dict(seed=-1), f"{name}: {SEED}")
      for name in ("random", "simple", "greedy", "montecarlo")],
    (partial(_agent, "simple"), dict(seed=1.5), f"simple: {SEED}"),
    (partial(_agent, "greedy"), dict(knock_late=INF), "greedy: knock_late must be a finite number >= 0.0"),
    (partial(_agent, "greedy"), dict(behind_gap=-1), "greedy: behind_gap must be a finite number >= 0.0"),
    (partial(_agent, "montecarlo"), dict(candidates=0), "montecarlo: candidates must be an int 1..108"),
    (partial(_agent, "montecarlo"), dict(knock_late=NAN), "montecarlo: knock_late must be a finite number"),
    (_ppo, dict(seed=-1), f"ppo: {SEED}"),   # not taken modulo 2**63
    (_ppo, dict(threads=0), "ppo: threads must be an int 1..256"),
    (_ppo, dict(threads=2.0), "ppo: threads must be an int 1..256"),
    (_ppo, dict(sample="yes"), "ppo: sample must be True or False"),
    (_architecture, dict(hidden=0), "policy hidden must be an int 1..4096"),
    (_architecture, dict(layers=2.0), "policy layers must be an int 1..4096"),
    (_rollout_settings, dict(knock_early=NAN), "knock_early must be a finite number >= 0.0"),
    (_rollout_settings, dict(knock_late=-INF), "knock_late must be a finite number >= 0.0"),
]


@pytest.mark.parametrize("build, kwargs, message", RANGED, ids=[m.split(" must")[0] + f"-{k}" for _, k, m in RANGED])
def test_bad_number_is_refused_naming_it_and_its_range(build, kwargs, message, monkeypatch):
    import train.evaluation.evaluate
    monkeypatch.setattr(train.evaluation.evaluate, "play_pair", lambda *a, **k: pytest.fail("a game was played"))
    with pytest.raises(ValueError) as refused:
        build(**kwargs)
    assert message in str(refused.value)


def test_numpy_scalars_are_taken_by_evaluation_and_agents_as_python_numbers():
    from agents.neural.policy import Architecture
    result = _evaluate(games=np.int64(2), seed=np.uint32(1), workers=np.int64(1), confidence=np.float32(0.5))
    assert json.loads(json.dumps(result.to_dict()))["confidence"] == 0.5
    assert result.results_dict() == _evaluate(games=2, seed=1, workers=1, confidence=0.5).results_dict()
    settings = _tournament(seed=np.int64(2), confidence=np.float32(0.5), prior=np.float32(2),
                           bootstrap_samples=np.int64(5)).settings
    assert json.loads(json.dumps(settings))["seed"] == 2
    agent = _ppo(seed=np.int64(3), threads=np.int64(2), sample=np.bool_(True))
    assert (agent.threads, agent.sample) == (2, True) and type(agent.threads) is int
    assert type(Architecture(hidden=np.int64(8)).hidden) is int
    greedy = _agent("greedy", seed=np.int64(1), lookahead=np.bool_(False), danger_weight=np.float32(2))
    assert greedy.policy.lookahead is False and greedy.danger_weight == 2.0
    assert _rollout_settings(knock_early=np.float32(3), knock_late=np.int64(2))[1:] == (3.0, 2.0)
    assert _agent("montecarlo", seed=np.int64(4), samples=np.int64(8), margin=np.float32(0.5)).samples == 8


def test_numpy_scalars_count_as_the_python_numbers_they_hold():
    from ginenv import Ruleset, raw_env
    from ginenv.envs.batched import BatchedGinEnv
    rules = Ruleset(gin_bonus=np.int64(25), knock_limit=np.int32(7), big_gin=np.bool_(True))
    assert (type(rules.gin_bonus), type(rules.knock_limit), type(rules.big_gin)) == (int, int, bool)
    assert json.loads(json.dumps(rules.to_dict()))["gin_bonus"] == 25
    venv = BatchedGinEnv(np.int64(4), reward_scale=np.float32(0.5), seed=np.int64(3))
    assert venv.num_envs == 4 and venv.reward_scale == 0.5
    assert raw_env(reward_scale=np.float32(0.25)).reward_scale == 0.25


@pytest.mark.parametrize("actions, error", [
    (np.ones(2, dtype=bool), TypeError),     # not read as id 1 (take the upcard)
    (np.ones(2), TypeError),
    (np.array(["1", "2"]), TypeError),
    (np.array([None, None]), TypeError),
    (np.array([1, 2, 3]), ValueError),
])
def test_batched_step_refuses_non_integer_actions_and_changes_nothing(actions, error):
    venv = _batched(seed=0)
    venv.reset()
    before = venv.get_state()
    with pytest.raises(error, match="actions"):
        venv.step(actions)
    assert venv.get_state() == before


def test_batched_step_before_reset_is_a_clear_error():
    with pytest.raises(RuntimeError, match="reset"):
        _batched().step(np.ones(2, dtype=np.int64))


def test_aec_step_before_reset_is_a_clear_error():
    from ginenv import raw_env
    with pytest.raises(RuntimeError, match="reset"):
        raw_env().step(0)


def _aec_snapshot(aec) -> tuple:
    """What a refused reset must leave as it was: the generator and the hand."""
    return aec._np_random.bit_generator.state, json.dumps(aec.hand.log())


@pytest.mark.parametrize("kwargs, word", [
    ({"options": "deal"}, "options"),
    ({"options": {"deel": {}}}, "deel"),
    ({"options": {"score": [1, 2]}}, "score"),
    ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"options": {"scores": [10, 0]}}, "scores"),                # hand mode
    ({"options": {"deal": {"dealer": 0}}}, "deal"),
])
def test_aec_reset_refuses_bad_options_leaving_rng_and_hand_as_they_were(kwargs, word):
    from ginenv import raw_env
    aec = raw_env()
    aec.reset(seed=5)
    aec.step(aec.hand.legal_actions()[0])
    before = _aec_snapshot(aec)
    with pytest.raises(ValueError, match=word):
        aec.reset(**kwargs)
    assert _aec_snapshot(aec) == before


def _started(kind: str):
    """An env of ``kind`` after a seeded reset (the AEC env also one step in)."""
    from ginenv import gin_rummy_v1, raw_env
    from ginenv.envs.gym_vector import GymVectorGinEnv
    makers = {"aec": raw_env, "parallel": gin_rummy_v1.parallel_env, "single": _single, "gym_vector": GymVectorGinEnv}
    env = makers[kind]()
    env.reset(seed=5)
    if kind == "aec":
        env.step(env.hand.legal_actions()[0])
    return env


def _reset_snapshot(env) -> str:
    """What a refused reset must leave as it was: generators, games, seats, done flags."""
    if hasattr(env, "games"):   # GymVectorGinEnv
        parts = [env.games.get_state(), env.np_random.bit_generator.state, env._seats.tolist()]
    else:
        aec = getattr(env, "aec", env)
        parts = [_aec_snapshot(aec), aec.agent_selection, getattr(env, "agents", None)]
        if hasattr(env, "_done"):   # SingleAgentGinEnv
            parts += [env.np_random.bit_generator.state, env._done, env.agent]
    return json.dumps(parts, default=str)


ENV_KINDS = ("aec", "parallel", "single", "gym_vector")
BAD_OPTIONS = [(options, word, kind) for kind in ENV_KINDS for options, word in [
    ({"colour": 1}, "'colour'"),          # refused though not close to a known key
    ({"deel": {}}, "'deel'"),
    ({1: 2}, "unknown key 1"),
    ({"render_mode": "ansi"}, "'render_mode'"),
    ("deal", "options"),
    ([("deal", None)], "options"),
]] + [({"seat": "player_0"}, "'seat'", kind) for kind in ("aec", "parallel", "gym_vector")] \
   + [({"options": 1}, "'options'", kind) for kind in ("single", "gym_vector")]


@pytest.mark.parametrize("options, word, kind", BAD_OPTIONS)
def test_reset_refuses_every_unknown_option_by_name_and_changes_nothing(options, word, kind):
    env = _started(kind)
    before = _reset_snapshot(env)
    with pytest.raises(ValueError, match="allowed keys") as refused:
        env.reset(seed=9, options=options)
    assert word in str(refused.value)
    assert _reset_snapshot(env) == before


@pytest.mark.parametrize("kind", ["aec", "parallel"])
def test_pettingzoo_probe_option_is_accepted_and_ignored(kind):
    """PettingZoo's api_test and parallel_api_test call ``reset(seed=0, options={"options": 1})``."""
    probed, plain = _started(kind), _started(kind)
    probed.reset(seed=3, options={"options": 1})
    plain.reset(seed=3)
    assert _reset_snapshot(probed) == _reset_snapshot(plain)


def test_game_mode_reset_with_bad_scores_keeps_the_generator():
    from ginenv import raw_env
    aec = raw_env(episode="game")
    aec.reset(seed=1)
    before = _aec_snapshot(aec)
    with pytest.raises(ValueError, match="scores"):
        aec.reset(options={"scores": [10**6, 0]})
    assert _aec_snapshot(aec) == before


def test_single_agent_env_is_done_when_the_opponent_fails_during_reset():
    failing = []

    def opponent(observation):
        if failing:
            raise RuntimeError("opponent crashed")
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = _single(opponent=opponent)
    env.reset(seed=0)   # a started episode: step would be allowed
    failing.append(True)
    for seed in range(1, 40):   # until the opponent acts first and fails
        try:
            env.reset(seed=seed)
        except RuntimeError:
            break
    else:
        pytest.fail("the opponent never acted during reset")
    with pytest.raises(RuntimeError, match="reset"):   # not played in the opponent's seat
        env.step(0)


# ----- the command line -------------------------------------------------------------------------
@pytest.mark.parametrize("argv, word", [
    (["simulate", "--seed", "-1", "--hands", "1"], "--seed"),
    (["simulate", "--hands", "0"], "--hands"),
    (["tournament", "random", "random", "--prior", "inf"], "--prior"),
    (["tournament", "random", "random", "--prior", "nan"], "--prior"),
])
def test_cli_refuses_bad_numbers_with_a_usage_error(argv, word, capsys):
    from train.cli import main
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2 and word in capsys.readouterr().err


@pytest.mark.parametrize("argv, option", [
    (["eval", "random", "random", "--json", "{tmp}/missing/out.json"], "--json"),
    (["eval", "random", "random", "--json", "{tmp}"], "--json"),
    (["tournament", "random", "random", "--out-dir", "{tmp}/file.txt/sub"], "--out-dir"),
])
def test_cli_checks_output_paths_before_any_game(argv, option, tmp_path, capsys, monkeypatch):
    import train.evaluation.evaluate
    (tmp_path / "file.txt").write_text("x")
    monkeypatch.setattr(train.evaluation.evaluate, "play_pair", lambda *a, **k: pytest.fail("a game was played"))
    from train.cli import main
    assert main([arg.format(tmp=tmp_path) for arg in argv] + ["--games", "2", "--no-progress"]) == 2
    assert option in capsys.readouterr().err
