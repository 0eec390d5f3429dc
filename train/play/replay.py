"""Game records (JSON lines) and readable accounts of hands, games and replays.

A *record* is one game as plain data: the players' agent specs by seat, the episode kind,
the ruleset and, per hand, the engine's event log (:meth:`ginenv.HandState.log`) with the
``hand_result`` the env reported.  :func:`replay_record` checks a record against the engine:
it rebuilds every hand from its deal and actions, compares the logged players, drawn cards
and results with the engine's, and rescores the game; :func:`account` tells a record step by
step.  ``ginrummy play --log``, ``eval --replays`` and ``tournament --replays`` write records;
``ginrummy replay`` and ``ginrummy serve --replay`` read them (:func:`read_records`), and refuse a
file that does not fit with a :class:`ReplayError` ``FILE:LINE: …`` before showing any of it.

>>> import numpy as np
>>> from ginenv import HandState
>>> hand = HandState.random(np.random.default_rng(0), "pagat")
>>> while not hand.is_over:
...     hand.apply_action(hand.legal_actions()[-1])
>>> record = game_record(["random", "greedy"], hand.ruleset, "hand", [hand.log()],
...                      [hand.result.to_dict()])
>>> replay_record(json.loads(json.dumps(record))).scores == rescore([hand.result])
True
>>> record["hands"][0]["log"]["events"][0]["player"] = 1   # an edited file
>>> replay_record(record, "games.jsonl:1")
Traceback (most recent call last):
...
train.play.replay.ReplayError: games.jsonl:1: cannot be replayed: hand 1, event 1 (pass): logged player_1, the \
engine has player_0
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence

from ginenv.envs.episode import AGENTS, EPISODES
from ginenv.game.actions import (
    BIG_GIN,
    DISCARD_BASE,
    DRAW_STOCK,
    KNOCK_BASE,
    NUM_ACTIONS,
    PASS,
    TAKE_DISCARD,
    IllegalActionError,
    action_text,
)
from ginenv.game.cards import CARD_TEXTS, NUM_CARDS
from ginenv.game.hand import HandState
from ginenv.game.match import GameResult, game_result, next_dealer
from ginenv.game.melds import mask_of
from ginenv.game.render import arranged, render_hand
from ginenv.game.result import HandResult
from ginenv.game.rules import Ruleset

FORMAT = "ginrummy-game/1"
"""The ``format`` field of every record."""
MAX_FILE_BYTES = 64 * 2**20
"""Largest replay file read (64 MiB): a longer one is refused at the line that passes it."""
MAX_LINE_BYTES = 16 * 2**20
"""Largest line of a replay file (16 MiB, its newline included)."""
MAX_DEPTH = 16
"""Deepest nesting of JSON arrays and objects in a line (a record nests 7 deep)."""
MAX_PLAYER_LENGTH = 1000
"""Longest agent spec in a record's ``players``."""
RECORD_KEYS = ("format", "players", "episode", "ruleset", "hands")
"""The keys of a record, all required."""
NEWER_RESULT_KEYS = ("layoff_targets",)
"""``hand_result`` keys newer than the first records: a logged result may lack them (older
files); every other key of the engine's ``hand_result`` it must hold, and all with the engine's values."""


class ReplayError(ValueError):
    """A replay file or game record that is refused, before anything of it is shown: the message
    is ``FILE:LINE: what is wrong`` (``record: …`` for a record checked on its own)."""


def game_record(players: Sequence[str], ruleset: Ruleset, episode: str, hand_logs: Sequence[dict[str, Any]],
                hand_results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One game as JSON-ready data: ``players[seat]`` are agent specs (``"human"`` for a
    person), ``hand_logs`` the hands' event logs, ``hand_results`` their ``hand_result`` infos."""
    return {"format": FORMAT, "players": list(players), "episode": episode, "ruleset": ruleset.to_dict(),
            "hands": [{"log": log, "result": result} for log, result in zip(hand_logs, hand_results)]}


def write_records(path: str | Path, records: Iterable[dict[str, Any]], append: bool = False) -> None:
    """Write ``records`` to the JSON-lines file ``path``, one a line (``append``: after what
    the file holds)."""
    with open(path, "a" if append else "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(record) + "\n" for record in records)


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The game records of a JSON-lines file (blank lines skipped), each checked against the
    engine (:func:`replay_record`).  Anything wrong is a :class:`ReplayError` ``FILE:LINE: …``:
    a file over :data:`MAX_FILE_BYTES` or a line over :data:`MAX_LINE_BYTES` (refused as soon as
    reading passes the limit, so an endless file costs 16 MiB), a line that is not UTF-8 JSON or
    nests deeper than :data:`MAX_DEPTH`, and a record that does not replay (``…: game N: cannot
    be replayed: …``).  A file that cannot be opened is an ``OSError``."""
    records = []
    for number, line in _lines(path):
        where = f"{path}:{number}"
        record = _parsed(line, where)
        replay_record(record, f"{where}: game {len(records) + 1}")
        records.append(record)
    return records


def _lines(path: str | Path) -> list[tuple[int, bytes]]:
    """The non-blank lines of ``path`` with their numbers (from 1), read within the size limits."""
    lines, total = [], 0
    with open(path, "rb") as handle:
        for number, line in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""), 1):
            total += len(line)
            if len(line) > MAX_LINE_BYTES:
                raise ReplayError(f"{path}:{number}: the line is longer than {MAX_LINE_BYTES // 2**20} MiB, "
                                  "the most a replay line may hold")
            if total > MAX_FILE_BYTES:
                raise ReplayError(f"{path}:{number}: the file is longer than {MAX_FILE_BYTES // 2**20} MiB, "
                                  "the most a replay file may hold")
            if line.strip():
                lines.append((number, line))
    return lines


_ESCAPE = re.compile(rb"\\.", re.S)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_PAIR = re.compile(rb"\[\]|\{\}")


def _parsed(line: bytes, where: str) -> Any:
    """The JSON value of one line; text that is not UTF-8, nests deeper than :data:`MAX_DEPTH`
    (checked before the parser recurses into it) or is not JSON is a :class:`ReplayError`."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ReplayError(f"{where}: not UTF-8 text (byte {err.start + 1})") from None
    brackets = _STRING.sub(b"", _ESCAPE.sub(b"", line)).translate(None, _NOT_BRACKETS)
    for _ in range(MAX_DEPTH):  # each pass removes the innermost level of arrays and objects
        brackets, peeled = _PAIR.subn(b"", brackets)
        if not peeled:
            break
    if brackets:
        problem = f"nested deeper than {MAX_DEPTH} levels" if peeled else "not JSON (its brackets do not pair up)"
        raise ReplayError(f"{where}: {problem}")
    try:
        return json.loads(text)
    except ValueError as err:  # not JSON, or an int of more digits than Python converts
        raise ReplayError(f"{where}: not JSON ({err})") from None


def rescore(results: Sequence[HandResult]) -> list[int]:
    """Running points of both seats after these hands.

    >>> rescore([HandResult("knock", knocker=1, winner=1, points=8), HandResult("dead")])
    [0, 8]
    """
    scores = [0, 0]
    for result in results:
        if result.winner is not None:
            scores[result.winner] += result.points
    return scores


@dataclass(frozen=True)
class Replayed:
    """A record played again: every hand rebuilt from its log, and the scores recomputed."""

    hands: tuple[HandState, ...]
    scores: list[int]
    game: Optional[GameResult]
    """The game's result when the record reaches the target (game mode), else None."""


def replay_record(record: Any, where: str = "record") -> Replayed:
    """Check ``record`` against the engine and play it again.  Its format, players (two agent
    specs), episode kind and ruleset (every rule) are checked; every hand is rebuilt from its
    deal and actions, each logged move must be legal with the logged ``player`` and drawn
    ``card`` the engine's, the hand must be over with the logged ``hand_result`` the engine's;
    a game's hands must follow the dealer rule (R28) and stop at the target; a hand record holds
    one hand.  What does not fit is a :class:`ReplayError` ``WHERE: cannot be replayed: …``."""
    try:
        return _replayed(record)
    except ReplayError as err:
        raise ReplayError(f"{where}: cannot be replayed: {err}") from None


def _replayed(record: Any) -> Replayed:
    """:func:`replay_record` without the location in its errors."""
    if not isinstance(record, dict):
        raise ReplayError(f"not a game record: a JSON object with format {FORMAT!r} was expected, got {_kind(record)}")
    if record.get("format") != FORMAT:
        raise ReplayError(f"format must be {FORMAT!r}, got {_shown(record.get('format'))}")
    _check_keys(record, "", RECORD_KEYS)
    players, episode, hands = record["players"], record["episode"], record["hands"]
    if not (isinstance(players, list) and len(players) == 2 and all(map(_is_spec, players))):
        raise ReplayError(f"players must be two agent specs (printable text of 1..{MAX_PLAYER_LENGTH} characters), "
                          f"got {_shown(players)}")
    if not isinstance(episode, str) or episode not in EPISODES:
        raise ReplayError(f"episode must be one of {EPISODES}, got {_shown(episode)}")
    rules = _ruleset(record["ruleset"])
    if not isinstance(hands, list) or not hands:
        raise ReplayError(f"hands must be a non-empty list of hands, got {_shown(hands)}")
    if episode == "hand" and len(hands) != 1:
        raise ReplayError(f"a record of episode 'hand' holds one hand, this one {len(hands)}")
    states: list[HandState] = []
    scores = [0, 0]
    for number, hand in enumerate(hands, 1):
        label = f"hand {number}"
        if episode == "game" and max(scores) >= rules.target:
            raise ReplayError(f"{label}: the game was over after hand {number - 1} at {scores[0]} - {scores[1]} "
                              f"(target {rules.target})")
        _check_keys(hand, label, ("log", "result"))
        dealer = next_dealer(rules, states[-1].dealer, states[-1].result) if states else None  # type: ignore[arg-type]
        state = _replayed_hand(hand["log"], rules, label, dealer)
        result: HandResult = state.result  # type: ignore[assignment]
        _check_result(hand["result"], result, label)
        states.append(state)
        if result.winner is not None:
            scores[result.winner] += result.points
    game = None
    if episode == "game" and max(scores) >= rules.target:
        won = [sum(s.result.winner == seat for s in states) for seat in (0, 1)]  # type: ignore[union-attr]
        game = game_result(rules, scores, won)
    return Replayed(tuple(states), scores, game)


def _ruleset(data: Any) -> Ruleset:
    """A record's ruleset: every rule, as :meth:`Ruleset.to_dict` writes it."""
    if not isinstance(data, dict):
        raise ReplayError(f"ruleset must be an object (from Ruleset.to_dict()), got {_kind(data)}")
    try:
        rules = Ruleset.from_dict(data)
    except (TypeError, ValueError) as err:
        raise ReplayError(f"ruleset: {err}") from None
    missing = [key for key in rules.to_dict() if key not in data]
    if missing:
        raise ReplayError(f"ruleset: missing key {missing[0]!r} (a record lists every rule)")
    return rules


def _replayed_hand(log: Any, rules: Ruleset, label: str, dealer: Optional[int]) -> HandState:
    """One hand of a record rebuilt from its deal (by ``dealer`` unless None), move by move, each
    logged event checked against the engine's; the hand must be over."""
    _check_keys(log, f"{label}: log", ("ruleset", "deal", "events"))
    if not _same(log["ruleset"], rules.to_dict()):
        raise ReplayError(f"{label}: log: the ruleset is not the record's")
    events = log["events"]
    if not isinstance(events, list):
        raise ReplayError(f"{label}: log: events must be a list, got {_kind(events)}")
    try:
        state = HandState.replay({**log, "events": []})
    except ValueError as err:  # a deal that breaks the rules (PositionError)
        raise ReplayError(f"{label}: {err}") from None
    if dealer is not None and state.dealer != dealer:
        raise ReplayError(f"{label}: dealt by {AGENTS[state.dealer]}, but the dealer rule (R28, next_dealer "
                          f"{rules.next_dealer!r}) has {AGENTS[dealer]} deal it")
    for index, event in enumerate(events, 1):
        where = f"{label}, event {index}"
        _check_keys(event, where, ("player", "action"), ("card",))
        for key, high in (("player", 1), ("action", NUM_ACTIONS - 1), ("card", NUM_CARDS - 1)):
            if key in event and not _is_int(event[key], high):
                raise ReplayError(f"{where}: {key} must be an int 0..{high}, got {_shown(event[key])}")
        try:
            state.apply_action(event["action"])
        except IllegalActionError as err:
            raise ReplayError(f"{where}: {err}") from None
        played = state.events[-1]
        wrong = [key for key in ("player", "card") if event.get(key) != played.get(key)]
        if wrong:
            told = [f"logged {_event_field(key, event.get(key))}, the engine has {_event_field(key, played.get(key))}"
                    for key in wrong]
            raise ReplayError(f"{where} ({action_text(played['action'])}): {'; '.join(told)}")
    if not state.is_over:
        raise ReplayError(f"{label}: the log ends before the hand is over ({AGENTS[state.current_player]} "  # type: ignore[index]
                          f"to act in phase {state.phase!r})")
    return state


def _check_result(logged: Any, result: HandResult, label: str) -> None:
    """A logged ``hand_result`` must be the engine's (keys of :data:`NEWER_RESULT_KEYS` may be missing)."""
    expected = result.to_dict()
    _check_keys(logged, f"{label}: result", [key for key in expected if key not in NEWER_RESULT_KEYS],
                NEWER_RESULT_KEYS)
    for key, value in logged.items():
        if not _same(value, expected[key]):
            raise ReplayError(f"{label}: the logged result has {key} {_shown(value)}, the engine gives "
                              f"{_shown(expected[key])}")


def _check_keys(value: Any, name: str, required: Sequence[str], optional: Sequence[str] = ()) -> None:
    """``value`` must be a dict holding every key of ``required`` and no key outside ``optional``."""
    prefix = f"{name}: " if name else ""
    if not isinstance(value, dict):
        raise ReplayError(f"{prefix}must be an object, got {_kind(value)}")
    missing = [key for key in required if key not in value]
    if missing:
        raise ReplayError(f"{prefix}missing key {missing[0]!r}")
    unknown = [key for key in value if key not in required and key not in optional]
    if unknown:
        raise ReplayError(f"{prefix}unknown key {unknown[0]!r}")


def _is_int(value: Any, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= high


def _is_spec(player: Any) -> bool:
    return isinstance(player, str) and 0 < len(player) <= MAX_PLAYER_LENGTH and player.isprintable()


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON (``true`` is not ``1``, ``1.0`` is not ``1``)."""
    return json.dumps(a, sort_keys=True, default=repr) == json.dumps(b, sort_keys=True, default=repr)


def _kind(value: Any) -> str:
    """The JSON kind of a value, in words."""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    """A value as JSON, cut to 60 characters."""
    text = json.dumps(value, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."


def _event_field(key: str, value: Optional[int]) -> str:
    """A logged event's ``player`` or ``card``, in words."""
    if value is None:
        return f"no {key}"
    return AGENTS[value] if key == "player" else f"card {value} ({CARD_TEXTS[value]})"


def player_names(players: Sequence[str]) -> tuple[str, str]:
    """Names by seat for accounts: the seat's agent name and its spec.

    >>> player_names(["human", "montecarlo:samples=8"])
    ('player_0 (human)', 'player_1 (montecarlo:samples=8)')
    """
    return (f"{AGENTS[0]} ({players[0]})", f"{AGENTS[1]} ({players[1]})")


def move_text(action: int, top: Optional[int], drawn: Optional[int] = None) -> str:
    """What a move did, in words: ``top`` is the pile's top card before it, ``drawn`` the
    card drawn from the stock when it may be shown.

    >>> move_text(TAKE_DISCARD, 20), move_text(DRAW_STOCK, 20), move_text(DRAW_STOCK, 20, drawn=0)
    ('takes 8D from the pile', 'draws from the stock', 'draws AC from the stock')
    >>> move_text(KNOCK_BASE + 51, 20)
    'knocks, discarding KS face down'
    """
    top_text = CARD_TEXTS[top] if top is not None else "-"
    if action == DRAW_STOCK:
        return "draws " + (CARD_TEXTS[drawn] + " " if drawn is not None else "") + "from the stock"
    if action == TAKE_DISCARD:
        return f"takes {top_text} from the pile"
    if action == PASS:
        return f"passes on the upcard {top_text}"
    if action == BIG_GIN:
        return "goes big gin"
    if action >= KNOCK_BASE:
        return f"knocks, discarding {CARD_TEXTS[action - KNOCK_BASE]} face down"
    return f"discards {CARD_TEXTS[action - DISCARD_BASE]}"


def score_terms(result: HandResult, rules: Ruleset, names: Sequence[str]) -> tuple[str, int]:
    """How a hand's points were computed: the sum in words and its value, which equals
    ``result.points`` (a test checks it on many hands).

    >>> score_terms(HandResult("undercut", knocker=0, winner=1, points=12, knocker_deadwood=7,
    ...                        defender_deadwood=5), Ruleset(), ("A", "B"))
    ('undercut by B: deadwood of A 7 - deadwood of B 5 + undercut bonus 10', 12)
    """
    if result.knocker is None:
        return "truncated by the turn limit" if result.truncated else "dead hand", 0
    knocker, defender = names[result.knocker], names[1 - result.knocker]
    kd, dd = result.knocker_deadwood or 0, result.defender_deadwood or 0
    if result.outcome in ("gin", "big_gin"):
        bonus = rules.gin_bonus if result.outcome == "gin" else rules.big_gin_bonus
        label = result.outcome.replace("_", " ")
        text, value = f"{label} by {knocker}: {label} bonus {bonus} + deadwood of {defender} {dd}", bonus + dd
    elif result.outcome == "undercut":
        text = f"undercut by {defender}: deadwood of {knocker} {kd} - deadwood of {defender} {dd} + undercut bonus " \
               f"{rules.undercut_bonus}"
        value = kd - dd + rules.undercut_bonus
    else:
        text, value = f"knock by {knocker}: deadwood of {defender} {dd} - deadwood of {knocker} {kd}", dd - kd
    if result.doubled:
        return f"({text}) x 2 for the spade upcard", 2 * value
    return text, value


def hand_text(hand: HandState, names: Sequence[str]) -> str:
    """A finished hand: both hands, the melds and layoffs shown, and how the score came about."""
    result: HandResult = hand.result  # type: ignore[assignment]
    text, value = score_terms(result, hand.ruleset, names)
    score = f"score: {text} = {value} points to {names[result.winner]}" if result.winner is not None else \
        f"score: {text}, no points"
    return render_hand(hand, names) + "\n" + score


def game_text(game: GameResult, names: Sequence[str]) -> str:
    """The end of a game: running scores, the bonuses and the final scores.

    >>> print(game_text(game_result(Ruleset(), [104, 0], [3, 0]), ("A", "B")))
    game over: A wins (shutout)
      points 104 - 0, box bonus 60 - 0, game bonus 200 to A
      final score 364 - 0
    """
    return (f"game over: {names[game.winner]} wins" + (" (shutout)" if game.shutout else "") + "\n"
            f"  points {game.scores[0]} - {game.scores[1]}, box bonus {game.box_bonus[0]} - {game.box_bonus[1]}, "
            f"game bonus {game.game_bonus} to {names[game.winner]}\n"
            f"  final score {game.final_scores[0]} - {game.final_scores[1]}")


def hand_account(log: dict[str, Any], names: Sequence[str]) -> Iterator[str]:
    """A hand step by step from its event log, both hands open, ending with :func:`hand_text`
    when the hand is over.

    >>> import numpy as np
    >>> hand = HandState.random(np.random.default_rng(0), "pagat")
    >>> hand.apply_action(PASS)
    >>> print("\\n".join(hand_account(hand.log(), ("A", "B"))))
    B deals; the upcard is TD
      A: no melds | deadwood 2C 5C 6D 6S 8D 9D 9H TH JD KH = 75
      B: [QC QD QS] | deadwood 2H 3C 3H 4C 7C JC JH = 39
      A passes on the upcard TD
    """
    events = HandState.replay(log).events  # the engine's players and drawn cards, not the log's
    state = HandState.replay({**log, "events": []})
    yield f"{names[state.dealer]} deals; the upcard is {CARD_TEXTS[state.top_discard]}"  # type: ignore[index]
    for seat in (0, 1):
        yield f"  {names[seat]}: {arranged(mask_of(state.hand_cards(seat)))}"
    for event in events:
        top = state.top_discard
        state.apply_action(event["action"])
        yield f"  {names[event['player']]} {move_text(event['action'], top, event.get('card'))}"
    if state.is_over:
        yield hand_text(state, names)


def account(record: dict[str, Any]) -> Iterator[str]:
    """A whole record step by step: every hand (:func:`hand_account`), the running scores
    and, when the game reached the target, the bonuses; a record that does not replay is a
    :class:`ReplayError` before anything is told."""
    names = player_names(record["players"])
    replayed = replay_record(record)
    yield f"{record['episode']} of {names[0]} vs {names[1]}, ruleset {record['ruleset']['name']}"
    for number, hand in enumerate(record["hands"], 1):
        yield f"--- hand {number} ---"
        yield from hand_account(hand["log"], names)
        if record["episode"] == "game":
            scores = rescore([h.result for h in replayed.hands[:number]])  # type: ignore[misc]
            yield f"running score: {names[0]} {scores[0]} - {names[1]} {scores[1]}"
    if replayed.game is not None:
        yield game_text(replayed.game, names)
