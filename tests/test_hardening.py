"""Issue 11: every public entry refuses bad input with a clear error before any state changes.

Each case is one table row: the call, the exception class, and a word the message must
contain (the parameter's name).  Cases that once crashed the interpreter in the compiled
core (a write past a hand's row, a read of a non-card) run in a child process, so a native
crash fails the test instead of killing pytest.
"""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ginenv.hand import HandState

GOOD = dict(dealer=0, hands=[list(range(10)), list(range(10, 20))], stock=list(range(21, 52)), pile=[20],
            current_player=1, phase="draw")
"""A valid position (seat 1 to draw, 31 stock cards)."""


def _short_stock(size: int, phase: str, **extra) -> dict:
    """``GOOD`` with only ``size`` stock cards, the rest on the pile (first upcard at the bottom)."""
    return {**GOOD, "stock": list(range(52 - size, 52)), "pile": list(range(20, 52 - size)), "phase": phase, **extra}


POSITIONS = [
    ({"phase": "offer", "passes": 2}, "passes"),  # was: writes past the row (double free)
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
    (_short_stock(0, "offer"), "offer"),  # was: pass, pass, draw reads a non-card; hand_cards loops
    (_short_stock(2, "offer"), "offer"),  # was: the forced draw allowed with 2 stock cards (R25)
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
        from ginenv.hand import HandState
        good = HandState.from_position(**{GOOD!r})
        for case in {cases!r}:
            try:
                state = HandState.from_position(**case)
            except ValueError as err:
                print(json.dumps(str(err)))
                continue
            for _ in range(200):  # play on: what the crash needed
                state.apply_action(state.legal_actions()[-1]) if not state.is_over else None
            print(json.dumps("accepted"))
        log = good.log()
        log["position"]["phase"], log["position"]["passes"] = "offer", 2
        log["events"] = [{{"player": 1, "action": 2}}] * 100
        try:
            HandState.replay(log)
            print(json.dumps("accepted"))
        except ValueError as err:
            print(json.dumps(str(err)))
    """)
    assert result.returncode == 0, result.stderr
    messages = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(messages) == len(words) + 1
    for message, word in zip(messages, words + ["passes"]):
        assert message.startswith("position:") and word in message, message


def _state_of(hand: HandState) -> dict:
    return json.loads(json.dumps(hand.to_state()))


def _edited(**row_values) -> dict:
    """A saved hand state with header fields of its row overwritten."""
    state = _state_of(HandState.from_position(**GOOD))
    for index, value in row_values.items():
        state["row"][int(index)] = value
    return state


@pytest.mark.parametrize("state, word", [
    ({**_edited(), "width": 10**13}, "width"),  # was: tries to allocate it
    ({**_edited(), "row": [1] * 10**4}, "width"),
    (_edited(**{"11": 7}), "row"),   # passes = 7 in a draw
    (_edited(**{"21": 10**6}), "event"),   # the event log far outside the row
    (_edited(**{"20": 10**6}), "event"),
    ({**_edited(), "deal": GOOD}, "deal"),
    ({"ruleset": {}}, "state"),
])
def test_edited_saved_hand_state_is_refused(state, word):
    with pytest.raises(ValueError, match=word):
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
    with pytest.raises(ValueError, match=word):
        HandState.replay(log)
