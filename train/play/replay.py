"""Game records (JSON lines) and readable accounts of hands, games and replays.

A *record* is one game as plain data: the players' agent specs by seat, the episode kind,
the ruleset and, per hand, the engine's event log (:meth:`ginenv.HandState.log`) with the
``hand_result`` the env reported.  :func:`replay_record` rebuilds every hand from its log
(:meth:`ginenv.HandState.replay`) and rescores it; :func:`account` tells a record step by
step.  ``ginrummy play --log``, ``eval --replays`` and ``tournament --replays`` write records;
``ginrummy replay`` reads them.

>>> import numpy as np
>>> from ginenv import HandState
>>> hand = HandState.random(np.random.default_rng(0), "pagat")
>>> while not hand.is_over:
...     hand.apply_action(hand.legal_actions()[-1])
>>> record = game_record(["random", "greedy"], hand.ruleset, "hand", [hand.log()],
...                      [hand.result.to_dict()])
>>> replay_record(json.loads(json.dumps(record))).scores == rescore([hand.result])
True
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence

from ginenv.envs.episode import AGENTS
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.cards import CARD_TEXTS
from ginenv.game.hand import HandState
from ginenv.game.match import GameResult, game_result
from ginenv.game.melds import mask_of
from ginenv.game.render import arranged, render_hand
from ginenv.game.result import HandResult
from ginenv.game.rules import Ruleset

FORMAT = "ginrummy-game/1"
"""The ``format`` field of every record."""


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
    """The records of a JSON-lines file; a line that is not a record is a ``ValueError``
    naming the line."""
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}, line {number}: not JSON ({err})") from None
            if not isinstance(record, dict) or record.get("format") != FORMAT:
                raise ValueError(f"{path}, line {number}: not a game record (format {FORMAT!r})")
            records.append(record)
    return records


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


def replay_record(record: dict[str, Any]) -> Replayed:
    """Rebuild every hand of ``record`` from its event log and score the game again."""
    hands = tuple(HandState.replay(hand["log"]) for hand in record["hands"])
    results = [hand.result for hand in hands]
    scores = rescore(results)  # type: ignore[arg-type]
    rules = Ruleset.from_dict(record["ruleset"])
    game = None
    if record["episode"] == "game" and max(scores) >= rules.target:
        won = [sum(r.winner == seat for r in results) for seat in (0, 1)]  # type: ignore[union-attr]
        game = game_result(rules, scores, won)
    return Replayed(hands, scores, game)


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
    state = HandState.replay({**log, "events": []})
    yield f"{names[state.dealer]} deals; the upcard is {CARD_TEXTS[state.top_discard]}"  # type: ignore[index]
    for seat in (0, 1):
        yield f"  {names[seat]}: {arranged(mask_of(state.hand_cards(seat)))}"
    for event in log["events"]:
        top = state.top_discard
        state.apply_action(event["action"])
        yield f"  {names[event['player']]} {move_text(event['action'], top, event.get('card'))}"
    if state.is_over:
        yield hand_text(state, names)


def account(record: dict[str, Any]) -> Iterator[str]:
    """A whole record step by step: every hand (:func:`hand_account`), the running scores
    and, when the game reached the target, the bonuses."""
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
