"""Replay files are checked against the engine before anything is told or served.

Each malformed case is one table row: how the file is made from a recorded game, the line the
error must name and a fragment of its message.  ``ginrummy replay`` and ``ginrummy serve
--replay`` both refuse every row with exit code 2 and ``FILE:LINE: …``, printing nothing else.
"""
from __future__ import annotations

import copy
import json
import os
from functools import cache
from typing import Any, Callable

import pytest

import train.play.replay
from ginenv import raw_env
from train.cli import main
from train.play.replay import ReplayError, account, game_record, hand_account, read_records, replay_record

Record = dict[str, Any]


def _played(episode: str, seed: int) -> Record:
    """A game (or hand) of two scripted players on the AEC env, recorded as ``ginrummy`` records it."""
    env = raw_env(ruleset="eaai", episode=episode)
    env.reset(seed=seed)
    logs, results = [], []
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        agent, hand = env.agent_selection, env.hand
        actions = hand.legal_actions()
        env.step(actions[-1] if actions[-1] > 2 else actions[0])   # knock when it may, else draw or pass
        if "hand_result" in env.infos[agent]:
            logs.append(hand.log())
            results.append(env.infos[agent]["hand_result"])
    return game_record(["random", "greedy"], env.ruleset, episode, logs, results)


@cache
def _recorded(episode: str = "game") -> str:
    """A recorded game of several hands (seed 3: 11 hands, some with layoffs) as one JSON line."""
    return json.dumps(_played(episode, 3))


def _game() -> Record:
    return json.loads(_recorded())


def _line(record: Any) -> bytes:
    return json.dumps(record).encode() + b"\n"


def _edited(change: Callable[[Record], Any]) -> Callable[[], bytes]:
    """A file of one line: the recorded game with ``change`` applied."""
    def make() -> bytes:
        record = _game()
        change(record)
        return _line(record)
    return make


def _events(record: Record, hand: int = 0) -> list[dict]:
    return record["hands"][hand]["log"]["events"]


def _drawn(record: Record) -> dict:
    """The first event of the game that drew a card from the stock."""
    return next(event for hand in record["hands"] for event in hand["log"]["events"] if "card" in event)


def _set_card(record: Record, card: int) -> None:
    event = _drawn(record)
    event["card"] = card if event["card"] != card else card + 1


def _with_target(record: Record, target: int) -> None:
    """The same hands under a lower target: the game is over early and goes on."""
    for rules in [record["ruleset"], *(hand["log"]["ruleset"] for hand in record["hands"])]:
        rules["target"] = target


def _second_dealer_swapped(record: Record) -> None:
    deal = record["hands"][1]["log"]["deal"]
    deal["dealer"] = 1 - deal["dealer"]


def _hand_with_two_hands(record: Record) -> None:
    record["episode"] = "hand"


def _delete(path: str) -> Callable[[Record], None]:
    """Delete the key at ``path`` (keys and indexes separated by dots)."""
    def change(record: Record) -> None:
        *parents, last = path.split(".")
        target: Any = record
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        del target[last]
    return change


def _set(path: str, value: Any) -> Callable[[Record], None]:
    """Set the key at ``path`` to ``value``."""
    def change(record: Record) -> None:
        *parents, last = path.split(".")
        target: Any = record
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[int(last) if isinstance(target, list) else last] = value
    return change


def _text(data: bytes) -> Callable[[], bytes]:
    return lambda: data


GOOD_THEN_BAD = lambda: _recorded().encode() + b"\n\n" + b'{"format": "ginrummy-game/1", "players": ["a", "b"]}\n'  # noqa: E731
ONE_HAND_TOO_MANY = _edited(lambda r: r["hands"].append(copy.deepcopy(r["hands"][-1])))

MALFORMED = [   # (id, file contents, line named, message fragment)
    ("only-format", _text(b'{"format":"ginrummy-game/1"}\n'), 1, "missing key 'players'"),
    ("no-players", _edited(_delete("players")), 1, "missing key 'players'"),
    ("no-hands", _edited(_delete("hands")), 1, "missing key 'hands'"),
    ("no-log", _edited(_delete("hands.0.log")), 1, "hand 1: missing key 'log'"),
    ("no-event-player", _edited(_delete("hands.0.log.events.0.player")), 1, "hand 1, event 1: missing key 'player'"),
    ("no-ruleset-name", _edited(_delete("ruleset.name")), 1, "ruleset: missing key 'name'"),
    ("player-9", _edited(_set("hands.0.log.events.0.player", 9)), 1, "player must be an int 0..1, got 9"),
    ("player-true", _edited(_set("hands.0.log.events.0.player", True)), 1, "player must be an int 0..1, got true"),
    ("card-99", _edited(lambda r: _drawn(r).update(card=99)), 1, "card must be an int 0..51, got 99"),
    ("card-edited", _edited(lambda r: _set_card(r, 0)), 1, "logged card 0 (AC), the engine has card"),
    ("action-edited", _edited(_set("hands.0.log.events.0.action", 0)), 1, "hand 1, event 1: illegal action 0"),
    ("deep", _text(b"[" * 100_000), 1, "not JSON (its brackets do not pair up)"),
    ("deep-balanced", _text(b"[" * 100_000 + b"]" * 100_000), 1, "nested deeper than 16 levels"),
    ("deep-in-a-string-is-fine", _text(b'{"format": "' + b"[" * 1000 + b'"}\n'), 1, "format must be"),
    ("past-the-target", _edited(lambda r: _with_target(r, 1)), 1, "the game was over after hand"),
    ("episode-match", _edited(_set("episode", "match")), 1, "episode must be one of ('hand', 'game'), got \"match\""),
    ("format-2", _edited(_set("format", "ginrummy-game/2")), 1, "format must be 'ginrummy-game/1'"),
    ("not-json", _text(b"{oops\n"), 1, "not JSON"),
    ("not-utf8", _text(b"\xff\n"), 1, "not UTF-8"),
    ("not-an-object", _text(b"[1]\n"), 1, "not a game record"),
    ("huge-int", _text(b'{"format": ' + b"9" * 5000 + b"}\n"), 1, "not JSON"),
    ("players-not-text", _edited(_set("players", [1, "greedy"])), 1, "players must be two agent specs"),
    ("players-escapes", _edited(_set("players", ["\x1b[2J", "greedy"])), 1, "players must be two agent specs"),
    ("unknown-key", _edited(_set("colour", 1)), 1, "unknown key 'colour'"),
    ("bad-ruleset", _edited(_set("ruleset.gin_bonus", -1)), 1, "ruleset: gin_bonus must be an int 0..1000"),
    ("log-ruleset", _edited(_set("hands.0.log.ruleset.gin_bonus", 0)), 1, "hand 1: log: the ruleset is not"),
    ("bad-deal", _edited(_set("hands.0.log.deal.upcard", 99)), 1, "hand 1: deal: card index 99 out of range"),
    ("log-cut-short", _edited(lambda r: _events(r).pop()), 1, "hand 1: the log ends before the hand is over"),
    ("event-after-the-end", _edited(lambda r: _events(r).append(dict(_events(r)[-1]))), 1, "the hand is over"),
    ("result-points", _edited(lambda r: r["hands"][0]["result"].update(points=1000)), 1,
     "hand 1: the logged result has points 1000, the engine gives"),
    ("result-unknown-key", _edited(_set("hands.0.result.colour", 1)), 1, "hand 1: result: unknown key 'colour'"),
    ("result-missing-key", _edited(_delete("hands.0.result.winner")), 1, "hand 1: result: missing key 'winner'"),
    ("wrong-dealer", _edited(_second_dealer_swapped), 1, "hand 2: dealt by"),
    ("hand-record-of-many-hands", _edited(_hand_with_two_hands), 1, "a record of episode 'hand' holds one hand"),
    ("no-hand", _edited(_set("hands", [])), 1, "hands must be a non-empty list"),
    ("one-hand-too-many", ONE_HAND_TOO_MANY, 1, "hand 12: the game was over after hand 11"),
    ("second-record", GOOD_THEN_BAD, 3, "game 2: cannot be replayed: missing key 'episode'"),
]


@pytest.mark.parametrize("command", ["replay", "serve"])
@pytest.mark.parametrize("make, line, fragment", [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED])
def test_a_malformed_replay_file_is_refused_naming_file_and_line(command, make, line, fragment, tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_bytes(make())
    argv = ["replay", str(path)] if command == "replay" else ["serve", "--port", "0", "--replay", str(path)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"ginrummy {command}: error: {path}:{line}: ") and fragment in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("command", ["replay", "serve"])
def test_an_endless_file_is_refused_at_the_line_limit(command, capsys):
    argv = ["replay", "/dev/zero"] if command == "replay" else ["serve", "--port", "0", "--replay", "/dev/zero"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (f"ginrummy {command}: error: /dev/zero:1: the line is longer than 16 MiB, "
                                       "the most a replay line may hold\n")


def test_a_file_over_the_size_limit_is_refused_at_the_line_that_passes_it(tmp_path, monkeypatch):
    path = tmp_path / "games.jsonl"
    path.write_text((_recorded() + "\n") * 3)
    monkeypatch.setattr(train.play.replay, "MAX_FILE_BYTES", 2 * len(_recorded()) + 10)
    with pytest.raises(ReplayError, match=f"^{path}:3: the file is longer than"):
        read_records(path)


def test_a_missing_file_is_an_os_error_with_exit_2(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 2
    assert "No such file" in capsys.readouterr().err


@pytest.mark.parametrize("episode", ["game", "hand"])
def test_a_recorded_game_validates_and_replays_unchanged(episode, tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_text(_recorded(episode) + "\n\n" + _recorded(episode) + "\n")
    records = read_records(path)
    assert records == [json.loads(_recorded(episode))] * 2
    replayed = replay_record(records[0])
    assert [hand.result.to_dict() for hand in replayed.hands] == [hand["result"] for hand in records[0]["hands"]]
    assert (replayed.game is not None) == (episode == "game")
    assert main(["replay", str(path), "--game", "2"]) == 0
    told = capsys.readouterr().out
    assert told.count("--- hand ") == len(records[0]["hands"]) and ("game over" in told) == (episode == "game")


def test_a_record_written_before_layoff_targets_is_still_read(tmp_path):
    record = _game()
    for hand in record["hands"]:
        del hand["result"]["layoff_targets"]
    path = tmp_path / "old.jsonl"
    path.write_bytes(_line(record))
    assert read_records(path) == [record]


def test_a_record_checked_on_its_own_is_named_record_and_account_tells_nothing_of_it():
    record = _game()
    _set_card(record, 0)
    with pytest.raises(ReplayError, match="^record: cannot be replayed: hand 1, event"):
        replay_record(record)
    with pytest.raises(ReplayError, match="^record: cannot be replayed"):
        next(account(record))


def test_a_hand_account_tells_the_engine_s_cards_not_the_log_s():
    record = _game()
    log = record["hands"][0]["log"]
    told = list(hand_account(log, ("A", "B")))
    _set_card(record, 0)
    assert list(hand_account(log, ("A", "B"))) == told
