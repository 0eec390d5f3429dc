"""A local web page to play an agent and to step through replays (``ginrummy serve``).

Standard library only: a :class:`http.server.ThreadingHTTPServer` serves the page in
``train/play/web/`` and a small JSON API; each game lives in memory as a :class:`train.play.terminal.Table`.
The rules stay in the game: the choices offered come from the person's action mask
(:func:`choices`), and a move is a terminal command (``"d 7H"``, ``"k"``, ``"take"``) that
:func:`train.play.terminal.resolve` checks, so an illegal one is a 400 with the terminal's message.

API (JSON in and out; an error is ``{"error": message}`` with its status):

* ``GET /api/setup`` — the defaults, the opponents, the rulesets and the replay file's games.
* ``POST /api/games`` ``{opponent, ruleset, episode, seed}`` (each optional) — a new game.
* ``GET /api/games/ID`` — the game as the person sees it (:func:`table_view`).
* ``POST /api/games/ID/move`` ``{"command": "d 7H"}`` — the person's move, then the agent's.
* ``POST /api/games/ID/next`` — the next hand, after a hand's summary.
* ``POST /api/games/ID/hint`` — what :data:`HINT_AGENT` would do in the person's position, with the
  probability of each legal move (:func:`advice`, from the person's own observation only).
* ``GET /api/replay/G/H`` — hand H of game G of the replay file (both from 1), step by step.

Only this machine's page may use it (:class:`Handler`): the Host header must name the server
(the bound address, ``localhost`` or ``127.0.0.1``, with its port) and an Origin header its own
origin, else 403; a POST needs ``Content-Type: application/json`` (else 415) and the server's
secret token in :data:`TOKEN_HEADER` (else 403), which the page reads from its ``<meta>`` tag.
Game ids are random, the opponent is one of the server's list (:attr:`Site.opponents`), and a
body is at most :data:`MAX_BODY` bytes (413) nested at most :data:`MAX_DEPTH` deep (400). Each
game has its own lock and moves on a thread of its own: a request waits for the agent at most
``decision_timeout`` seconds, then gets a 503 with ``pending`` (the game's id) while the agent
goes on thinking; other games are served meanwhile. Every response carries :data:`SECURITY_HEADERS`.
"""
from __future__ import annotations

import ipaddress
import json
import re
import secrets
import sys
import threading
from collections import OrderedDict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import accumulate
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence
from urllib.parse import urlsplit

import numpy as np

import agents
import ginenv
from agents import make_agent
from ginenv.envs.aec import EPISODES
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.cards import CARD_TEXTS, NUM_CARDS, card_value
from ginenv.game.encoding import ObservationView
from ginenv.game.hand import HandState
from ginenv.game.match import GameResult
from ginenv.game.melds import deadwood, mask_best_melds, mask_of, meld_sort_key, ordered_cards
from ginenv.game.result import HandResult
from ginenv.game.rules import PRESETS
from train.play.replay import game_text, hand_text, move_text, player_names, read_records, replay_record, rescore
from train.play.terminal import Table, game_end_text, knock_options, parse_command, resolve

WEB = Path(__file__).with_name("web")
PAGES = {"/": ("index.html", "text/html"), "/app.js": ("app.js", "text/javascript"),
         "/style.css": ("style.css", "text/css")}
"""The static files by path: file name under :data:`WEB` and content type."""
TOKEN_PLACEHOLDER = b"{{token}}"
"""What the server's token replaces in ``index.html``."""
TOKEN_HEADER = "X-Ginrummy-Token"
MAX_BODY = 65536
DRAIN_LIMIT = 1 << 20
"""The longest refused body that is read and dropped before the answer (:meth:`Handler._drop`)."""
CONTENT_LENGTH = re.compile(r"[0-9]{1,15}")
MAX_DEPTH = 16
"""The deepest nesting of arrays and objects a body may have."""
MAX_GAMES = 100
"""Games kept in memory; the one left alone longest is forgotten past this."""
REQUEST_TIMEOUT = 10.0
"""Seconds a connection may take to send each part of its request before it is closed."""
SHIPPED = ("random", "simple", "greedy", "montecarlo", "ppo", "selfplay")
"""The agents the page offers besides the server's ``opponent``."""
WEIGHTS = {name: Path(agents.__file__).with_name("weights") / f"{name}.pt" for name in ("ppo", "selfplay")}
"""The weights files a shipped neural agent needs: it is offered only where its file is there."""
HINT_AGENT = "ppo"
"""The agent whose choices the page's hint shows (offered where it is one of the shipped opponents)."""
MOVE_WORDS = {DRAW_STOCK: "draw", TAKE_DISCARD: "take", PASS: "pass", BIG_GIN: "big gin"}
"""The moves that name no card of the person's hand: the word that is also their command."""
FIRST_PERSON = {"takes": "take", "passes": "pass", "goes": "go", "knocks,": "knock,", "discards": "discard"}
"""The verbs of :func:`train.play.replay.move_text` as the person's own (:func:`your_move`)."""
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                               "form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}
"""Headers of every response, the static files and the errors included."""
HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?")
"""A Host header's value (or an origin after ``http://``): the name or address, and the port."""
JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
BRACKETS = re.compile(r"[\[\]{}]")


class HttpError(Exception):
    """A request that cannot be answered: ``status`` and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Pending(HttpError):
    """A 503: game ``game_id`` is still busy with its agent's moves; ask for it again soon."""

    def __init__(self, game_id: str, message: str) -> None:
        super().__init__(HTTPStatus.SERVICE_UNAVAILABLE, message)
        self.game_id = game_id


def nesting(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (brackets in strings do not count).

    >>> nesting('{"a": [1, {"b": "]]"}]}'), nesting('"x"')
    (3, 0)
    """
    steps = [1 if bracket in "[{" else -1 for bracket in BRACKETS.findall(JSON_STRING.sub("", text))]
    return max(accumulate(steps), default=0)


def texts(cards: Iterable[int]) -> list[str]:
    """Card ints as their texts, in the given order."""
    return [CARD_TEXTS[c] for c in cards]


def grouped(cards: Sequence[int]) -> dict[str, Any]:
    """A hand in its best melds, then its deadwood cards and their count.

    >>> grouped(ginenv.parse_cards(["7H", "8H", "9H", "KD", "2C"]))
    {'melds': [['7H', '8H', '9H']], 'deadwood': ['2C', 'KD'], 'points': 12}
    """
    melds, dead = mask_best_melds(mask_of(cards))
    return {"melds": [texts(ordered_cards(m)) for m in sorted(melds, key=meld_sort_key)],
            "deadwood": texts(ordered_cards(dead)), "points": deadwood(cards)}


def shown(cards: Iterable[int]) -> list[str]:
    """Cards in display order (by rank, then suit) as texts."""
    return texts(ordered_cards(mask_of(cards)))


def choices(view: ObservationView, mask: np.ndarray) -> dict[str, Any]:
    """The person's legal moves, read from the action mask: flags for take, draw, pass, gin
    and big gin, the cards that may be discarded, and ``knock``: ``{card: deadwood left}``.

    >>> env = ginenv.raw_env(); env.reset(seed=0)
    >>> observation = env.observe(env.agent_selection)
    >>> choices(ginenv.decode(observation), observation["action_mask"])
    {'take': True, 'draw': False, 'pass': True, 'discard': [], 'knock': {}, 'gin': False, 'big_gin': False}
    """
    knocks = knock_options(view, mask)
    return {"take": bool(mask[TAKE_DISCARD]), "draw": bool(mask[DRAW_STOCK]), "pass": bool(mask[PASS]),
            "discard": [CARD_TEXTS[c] for c in range(52) if mask[DISCARD_BASE + c]],
            "knock": {CARD_TEXTS[c]: left for c, left in knocks.items()}, "gin": 0 in knocks.values(),
            "big_gin": bool(mask[BIG_GIN])}


def seat_view(view: ObservationView, mask: np.ndarray) -> dict[str, Any]:
    """The table from the person's seat only: their hand, the pile, the stock, how many cards the
    opponent holds and which of them it took from the pile, what it passed over, and the legal moves."""
    pile = len(view.pile_rest) + (view.top_discard is not None)
    return {"phase": view.phase, "your_turn": bool(mask.any()), "you_deal": view.is_dealer,
            "knock_limit": view.knock_limit, "hand": grouped(view.hand),
            "top": CARD_TEXTS[view.top_discard] if view.top_discard is not None else None,
            "pile_under": len(view.pile_rest), "stock": view.stock_size,
            "opp_cards": NUM_CARDS - len(view.hand) - view.stock_size - pile,
            "opp_picked": texts(view.opp_picked), "opp_declined": texts(view.opp_declined),
            "no_discard": CARD_TEXTS[view.no_discard] if view.no_discard is not None else None,
            "choices": choices(view, mask)}


def hand_end_view(hand: HandState, names: Sequence[str]) -> dict[str, Any]:
    """A finished hand: both hands as they were shown (:func:`shown_hands`), the result and the
    score line of :func:`train.play.replay.hand_text`."""
    return {"hands": shown_hands(hand, names), "result": hand.result.to_dict(names),  # type: ignore[union-attr]
            "score": hand_text(hand, names).rsplit("\n", 1)[-1]}


def shown_hands(hand: HandState, names: Sequence[str]) -> list[dict[str, Any]]:
    """Both hands of a finished hand, by seat: ``melds``, ``deadwood`` (cards), ``points`` (the
    deadwood after any layoffs), ``before`` (before them), ``role`` (``"knocker"``, ``"defender"``,
    or None when nobody knocked), ``laid_on`` (for each meld, the cards the defender laid off onto it)
    and ``laid_off`` (the defender's layoffs).  After a knock the melds are the ones shown at the table
    (the result's, which ``layoff_targets`` index); else each hand's best melds.

    >>> hand = HandState.random(np.random.default_rng(5))
    >>> while not hand.is_over:
    ...     hand.apply_action(hand.legal_actions()[-1])
    >>> knocker, defender = shown_hands(hand, ("you", "greedy"))
    >>> knocker["laid_on"], defender["laid_off"], defender["before"], defender["points"]
    ([['4H'], []], ['4H'], 68, 64)
    """
    result: HandResult = hand.result  # type: ignore[assignment]
    hands = [{"name": names[seat], "role": None, **grouped(hand.hand_cards(seat)), "laid_off": []} for seat in (0, 1)]
    for entry in hands:
        entry.update(before=entry["points"], laid_on=[[] for _ in entry["melds"]])
    if result.knocker is None:
        return hands
    laid_on: list[list[str]] = [[] for _ in result.knocker_melds]
    for card, meld in result.layoff_targets:
        if meld is not None:
            laid_on[meld].append(CARD_TEXTS[card])
    knocker, defender = result.knocker, 1 - result.knocker
    hands[knocker].update(role="knocker", melds=[shown(m) for m in result.knocker_melds], laid_on=laid_on,
                          deadwood=shown(result.knocker_deadwood_cards), points=result.knocker_deadwood,
                          before=result.knocker_deadwood)
    hands[defender].update(role="defender", melds=[shown(m) for m in result.defender_melds],
                           laid_on=[[] for _ in result.defender_melds], laid_off=shown(result.layoffs),
                           deadwood=shown(result.defender_deadwood_cards), points=result.defender_deadwood,
                           before=result.defender_deadwood + sum(map(card_value, result.layoffs)))
    return hands


def score_sheet(results: Sequence[HandResult], game: Optional[GameResult], names: Sequence[str],
                order: Sequence[int] = (0, 1)) -> dict[str, Any]:
    """The score sheet of a game, a column for each seat of ``order``: each hand's outcome, winner and
    points with the running totals and, once the game is over (``game``), the engine's points, boxes
    (hands won and box bonus), game bonus and final scores.

    >>> from ginenv.game.match import game_result
    >>> from ginenv.game.rules import Ruleset
    >>> results = [HandResult("knock", knocker=1, winner=1, points=60), HandResult("gin", knocker=1, winner=1,
    ...            points=45)]
    >>> sheet = score_sheet(results, game_result(Ruleset(), [0, 105], [0, 2]), ("A", "B"), order=(1, 0))
    >>> sheet["names"], sheet["rows"][1]["points"], sheet["rows"][1]["totals"], sheet["end"]["final"]
    (['B', 'A'], [45, 0], [105, 0], [345, 0])
    """
    def by_column(values: Sequence[int]) -> list[int]:
        return [int(values[seat]) for seat in order]
    rows = [{"hand": number, "outcome": result.outcome, "doubled": result.doubled,
             "winner": None if result.winner is None else names[result.winner],
             "points": by_column(rescore([result])), "totals": by_column(rescore(results[:number]))}
            for number, result in enumerate(results, 1)]
    end = None if game is None else {
        "winner": names[game.winner], "shutout": game.shutout, "points": by_column(game.scores),
        "hands_won": by_column(game.hands_won), "box_bonus": by_column(game.box_bonus),
        "game_bonus": by_column([game.game_bonus if seat == game.winner else 0 for seat in (0, 1)]),
        "final": by_column(game.final_scores)}
    return {"names": [names[seat] for seat in order], "rows": rows, "end": end}


def table_view(table: Table, news: Sequence[str], drawn: Optional[str] = None) -> dict[str, Any]:
    """What the page shows of a game: ``table`` (the person's seat, with ``drawn``: the card they
    just drew or took, until they discard) while a hand is on, ``hand_end`` between hands, ``sheet``
    (:func:`score_sheet`, the person's column first), ``game_end`` (text) when a game reached its
    target; ``news`` is what happened since the person's last move."""
    observation = table.observation()
    view, me, scores = ginenv.decode(observation), table.me, table.scores
    return {
        "opponent": table.names[1 - me], "ruleset": view.ruleset.name, "episode": table.env.episode,
        "hand_number": len(table.finished) + (0 if table.between_hands else 1), "news": list(news),
        "scores": [scores[me], scores[1 - me]], "target": table.env.ruleset.target, "over": table.over,
        "table": None if table.between_hands else {**seat_view(view, observation["action_mask"]), "drawn": drawn},
        "hand_end": hand_end_view(table.finished[-1][0], table.names) if table.between_hands else None,
        "sheet": score_sheet([hand.result for hand, _ in table.finished], table.game,  # type: ignore[misc]
                             table.names, (me, 1 - me)),
        "game_end": game_end_text(table.game, table.names) if table.game is not None else None}


def your_move(action: int, top: Optional[int]) -> list[str]:
    """The person's move for the page's log, in the first person; none for a draw from the stock
    (the table says which card was drawn).

    >>> your_move(DISCARD_BASE + 6, 20), your_move(PASS, 20), your_move(DRAW_STOCK, 20)
    (['you discard 7C'], ['you pass on the upcard 8D'], [])
    """
    if action == DRAW_STOCK:
        return []
    verb, rest = move_text(action, top).split(" ", 1)
    return [f"you {FIRST_PERSON[verb]} {rest}"]


def move_parts(action: int, view: ObservationView, knocks: dict[int, int]) -> dict[str, Any]:
    """A legal action of the person as the page shows and plays it: ``move`` (draw, take, pass,
    discard, knock, gin or big gin), the ``card`` it names (the pile's top for take, else the card
    discarded), ``left`` (the deadwood a knock leaves; ``knocks`` is :func:`knock_options`) and the
    terminal ``command`` that makes it."""
    if action in MOVE_WORDS:
        top = CARD_TEXTS[view.top_discard] if action == TAKE_DISCARD and view.top_discard is not None else None
        return {"move": MOVE_WORDS[action], "card": top, "left": None, "command": MOVE_WORDS[action]}
    if action >= KNOCK_BASE:
        card = action - KNOCK_BASE
        return {"move": "gin" if knocks[card] == 0 else "knock", "card": CARD_TEXTS[card], "left": knocks[card],
                "command": f"k {CARD_TEXTS[card]}"}
    card = action - DISCARD_BASE
    return {"move": "discard", "card": CARD_TEXTS[card], "left": None, "command": f"d {CARD_TEXTS[card]}"}


def advice(agent: Any, observation: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """What the neural ``agent`` (an :class:`agents.neural.policy.NeuralAgent`) would do in the
    position of ``observation``: every legal move (:func:`move_parts`) with the probability its
    policy gives it, the most likely first (the move it plays; the lower id first on a tie).  It
    reads the observation only, the seat's own view, so it cannot tell the opponent's hidden cards.

    >>> env = ginenv.raw_env(); env.reset(seed=0)
    >>> moves = advice(make_agent("ppo"), env.observe(env.agent_selection))
    >>> sorted(move["move"] for move in moves), round(sum(move["probability"] for move in moves), 6)
    (['pass', 'take'], 1.0)
    """
    mask = observation["action_mask"] > 0
    dist = agent.distribution(np.asarray(observation["observation"])[None], mask[None])
    probabilities = dist.probs[0]
    view = ginenv.decode(observation)
    knocks = knock_options(view, observation["action_mask"])
    legal = sorted(np.flatnonzero(mask).tolist(), key=lambda action: (-float(probabilities[action]), action))
    return [{"action": action, **move_parts(action, view, knocks), "probability": float(probabilities[action])}
            for action in legal]


def replay_steps(log: dict[str, Any], names: Sequence[str]) -> Iterator[dict[str, Any]]:
    """A recorded hand position by position, both hands open: the deal, then one step per
    move with the move in words; the last step of a finished hand has ``hand_end``."""
    state = HandState.replay({**log, "events": []})
    upcard = CARD_TEXTS[state.top_discard]  # type: ignore[index]
    yield _snapshot(state, names, f"{names[state.dealer]} deals; the upcard is {upcard}")
    for event in log["events"]:
        top = state.top_discard
        state.apply_action(event["action"])
        yield _snapshot(state, names, f"{names[event['player']]} {move_text(event['action'], top, event.get('card'))}")


def _snapshot(state: HandState, names: Sequence[str], text: str) -> dict[str, Any]:
    to_act = state.current_player
    return {"text": text, "hands": [grouped(state.hand_cards(seat)) for seat in (0, 1)],
            "top": CARD_TEXTS[state.top_discard] if state.top_discard is not None else None,
            "pile_under": max(len(state.pile) - 1, 0), "stock": len(state.stock),
            "to_act": names[to_act] if to_act is not None else None,
            "hand_end": hand_end_view(state, names) if state.is_over else None}


def replay_hand(record: dict[str, Any], number: int) -> dict[str, Any]:
    """Hand ``number`` (from 1) of a game record: its steps, the running score and score sheet
    after it, the game's target and, on the game's last hand, the game's end (text, when it reached the target)."""
    names, replayed = player_names(record["players"]), replay_record(record)
    last = number == len(record["hands"])
    results: list[HandResult] = [hand.result for hand in replayed.hands[:number]]  # type: ignore[misc]
    return {"names": list(names), "steps": list(replay_steps(record["hands"][number - 1]["log"], names)),
            "scores": rescore(results), "sheet": score_sheet(results, replayed.game if last else None, names),
            "target": replayed.hands[0].ruleset.target,
            "game_end": game_text(replayed.game, names) if last and replayed.game is not None else None}


def shipped_opponents() -> list[str]:
    """The shipped agents of :data:`SHIPPED`, a neural one only where its :data:`WEIGHTS` file is there."""
    return [name for name in SHIPPED if name not in WEIGHTS or WEIGHTS[name].is_file()]


class Game:
    """A game of the page: its table (None until it is dealt), what happened at its last move,
    the card the person just drew (until they discard) and the lock its moves hold."""

    def __init__(self) -> None:
        self.table: Optional[Table] = None
        self.news: list[str] = []
        self.drawn: Optional[str] = None
        self.lock = threading.Lock()


class Site:
    """The server's state: the defaults of a new game, the opponents offered, the games by id and
    the replays.  ``decision_timeout``: seconds a request waits for a game's agent (:class:`Pending` after)."""

    def __init__(self, *, opponent: str = "greedy", ruleset: str = "pagat", episode: str = "game",
                 seed: Optional[int] = None, replay: Optional[str] = None, decision_timeout: float = 5.0) -> None:
        make_agent(opponent)  # a bad spec fails now, not on the first page
        self.defaults = {"opponent": opponent, "ruleset": ruleset, "episode": episode}
        self.opponents = list(dict.fromkeys([opponent, *shipped_opponents()]))
        """The opponents a new game may have: the server's ``opponent`` and the shipped agents."""
        self.hint_agent = HINT_AGENT if HINT_AGENT in shipped_opponents() else None
        """The agent of the hint (:meth:`hint`); None where its weights are not installed."""
        self._adviser: Optional[Any] = None
        self._adviser_lock = threading.Lock()
        self.seed = seed
        self.decision_timeout = decision_timeout
        self.replay_file = replay
        self.replays = read_records(replay) if replay is not None else []
        """The replay file's records, each checked against the engine now (a bad file is a
        :class:`~train.play.replay.ReplayError` ``FILE:LINE: …`` before anything is served)."""
        self.games: OrderedDict[str, Game] = OrderedDict()
        self.started = 0
        self.lock = threading.Lock()
        """Held only while :attr:`games` and :attr:`started` change, never during a move."""

    def get(self, path: str) -> Any:
        """The answer to ``GET path``: a JSON-ready object."""
        parts = _parts(path)
        if parts == ["setup"]:
            return self.setup()
        if len(parts) == 2 and parts[0] == "games":
            game = self._game(parts[1])
            return self._in_turn(parts[1], game, lambda: self._view(parts[1], game))
        if len(parts) == 3 and parts[0] == "replay":
            return self.replay(_number(parts[1], "game"), _number(parts[2], "hand"))
        raise HttpError(HTTPStatus.NOT_FOUND, f"no such page: GET {path}")

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """The answer to ``POST path`` with the JSON object ``body``."""
        parts = _parts(path)
        if parts == ["games"]:
            return self.new_game(body)
        if len(parts) == 3 and parts[0] == "games" and parts[2] in ("move", "next"):
            return self.play(parts[1], _text(body, "command") if parts[2] == "move" else None)
        if len(parts) == 3 and parts[0] == "games" and parts[2] == "hint":
            return self.hint(parts[1])
        raise HttpError(HTTPStatus.NOT_FOUND, f"no such page: POST {path}")

    def setup(self) -> dict[str, Any]:
        """The defaults, the choices of a new game and the replay file's games."""
        games = [{"players": list(player_names(r["players"])), "episode": r["episode"], "ruleset": r["ruleset"]["name"],
                  "hands": len(r["hands"])} for r in self.replays]
        return {"defaults": self.defaults, "opponents": self.opponents, "rulesets": sorted(PRESETS),
                "episodes": list(EPISODES), "hint": self.hint_agent,
                "replay": {"file": Path(self.replay_file).name, "games": games} if self.replay_file else None}

    def new_game(self, body: dict[str, Any]) -> dict[str, Any]:
        """Start a game with the options of ``body`` (the defaults for those left out) under a
        random id; the k-th game without a seed gets the server's seed + k."""
        options = {key: _text(body, key) if key in body else value for key, value in self.defaults.items()}
        if options["opponent"] not in self.opponents:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"opponent must be one of {self.opponents}")
        if options["ruleset"] not in PRESETS:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"unknown ruleset {options['ruleset']!r}; one of {sorted(PRESETS)}")
        if options["episode"] not in EPISODES:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"episode must be one of {list(EPISODES)}")
        seed = body.get("seed")
        if seed is not None and (type(seed) is not int or seed < 0):
            raise HttpError(HTTPStatus.BAD_REQUEST, f"seed must be a non-negative integer, got {seed!r}")
        game_id, game = secrets.token_urlsafe(16), Game()
        with self.lock:
            if "seed" not in body and self.seed is not None:
                seed = self.seed + self.started
            self.started += 1
            self.games[game_id] = game
            while len(self.games) > MAX_GAMES:
                self.games.popitem(last=False)

        def deal() -> dict[str, Any]:
            try:
                game.table = Table(options["opponent"], ruleset=options["ruleset"], episode=options["episode"],
                                   seed=seed)
            except Exception:
                with self.lock:
                    self.games.pop(game_id, None)
                raise
            game.news = game.table.take_news()
            return self._view(game_id, game)
        return self._in_turn(game_id, game, deal)

    def play(self, game_id: str, command: Optional[str]) -> dict[str, Any]:
        """The person's ``command`` in game ``game_id`` (None: the next hand), then the agent's
        turns; the game's new view."""
        game = self._game(game_id)

        def move() -> dict[str, Any]:
            table, mine, drawn = _dealt(game), [], None
            if command is None:
                table.next_hand()
            else:
                observation = table.observation()
                view = ginenv.decode(observation)
                action = resolve(parse_command(command), view, observation["action_mask"])
                table.move(action)
                mine = your_move(action, view.top_discard)
                if action in (DRAW_STOCK, TAKE_DISCARD) and not table.between_hands:
                    [card] = set(ginenv.decode(table.observation()).hand) - set(view.hand)
                    drawn = CARD_TEXTS[card]
            game.news, game.drawn = mine + table.take_news(), drawn
            return self._view(game_id, game)
        return self._in_turn(game_id, game, move)

    def hint(self, game_id: str) -> dict[str, Any]:
        """What :attr:`hint_agent` would do in the person's position in game ``game_id``:
        ``{"agent": name, "moves": advice}`` (:func:`advice`, from the person's observation only);
        a 409 when it is not their turn, a 404 where the agent is not installed."""
        if self.hint_agent is None:
            raise HttpError(HTTPStatus.NOT_FOUND, f"no hint: the {HINT_AGENT} agent's weights are not installed")
        game = self._game(game_id)

        def advise() -> dict[str, Any]:
            observation = _dealt(game).observation()
            if not observation["action_mask"].any():
                raise HttpError(HTTPStatus.CONFLICT, "no hint now: it is not your turn")
            return {"agent": self.hint_agent, "moves": advice(self._hint_player(), observation)}
        return self._in_turn(game_id, game, advise)

    def _hint_player(self) -> Any:
        """The hint's agent, made on the first hint (loading its network takes a moment)."""
        with self._adviser_lock:
            if self._adviser is None:
                self._adviser = make_agent(self.hint_agent)  # type: ignore[arg-type]
            return self._adviser

    def replay(self, game: int, hand: int) -> dict[str, Any]:
        """Hand ``hand`` of game ``game`` of the replay file (both from 1)."""
        if not self.replays:
            raise HttpError(HTTPStatus.NOT_FOUND, "no replay file: start the server with --replay FILE")
        if game > len(self.replays):
            raise HttpError(HTTPStatus.NOT_FOUND, f"game {game}: the replay file holds {len(self.replays)} game(s)")
        record = self.replays[game - 1]
        if hand > len(record["hands"]):
            raise HttpError(HTTPStatus.NOT_FOUND, f"hand {hand}: game {game} has {len(record['hands'])} hand(s)")
        return replay_hand(record, hand)

    def _in_turn(self, game_id: str, game: Game, work: Callable[[], Any]) -> Any:
        """``work()`` run on a thread of its own while it holds ``game``'s lock; :class:`Pending`
        when the lock is not free, or the work not done, within :attr:`decision_timeout` (the work
        goes on, and the game answers once it is done)."""
        if not game.lock.acquire(timeout=self.decision_timeout):
            raise Pending(game_id, "the opponent is still thinking about an earlier move; the page asks again")
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def run() -> None:
            try:
                outcome["answer"] = work()
            except BaseException as err:  # noqa: BLE001  (raised again on the request's thread)
                outcome["error"] = err
            finally:
                game.lock.release()
                done.set()
        threading.Thread(target=run, name=f"game {game_id}", daemon=True).start()
        if not done.wait(self.decision_timeout):
            raise Pending(game_id, f"the opponent is still thinking after {self.decision_timeout:g} s; "
                                   "the page shows its move when it is done")
        if "error" in outcome:
            raise outcome["error"]
        return outcome["answer"]

    def _game(self, game_id: str) -> Game:
        with self.lock:
            if game_id not in self.games:
                raise HttpError(HTTPStatus.NOT_FOUND, "no such game (the server restarted?): start a new one")
            self.games.move_to_end(game_id)
            return self.games[game_id]

    def _view(self, game_id: str, game: Game) -> dict[str, Any]:
        return {"id": game_id, **table_view(_dealt(game), game.news, game.drawn)}


def _dealt(game: Game) -> Table:
    """The game's table; a 404 when its deal failed (the game is forgotten, but a request may
    have found it before)."""
    if game.table is None:
        raise HttpError(HTTPStatus.NOT_FOUND, "no such game: start a new one")
    return game.table


def _parts(path: str) -> list[str]:
    """The words of an API path after ``/api/``."""
    return [part for part in path.removeprefix("/api/").split("/") if part]


def _number(text: str, what: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise HttpError(HTTPStatus.BAD_REQUEST, f"{what} must be a number from 1, got {text!r}")
    return int(text)


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise HttpError(HTTPStatus.BAD_REQUEST, f"{key!r} must be a string, got {value!r}")
    return value


class Handler(BaseHTTPRequestHandler):
    """Static files from :data:`PAGES` and the JSON API of :class:`Site` (``server.site``), for
    requests that pass :meth:`_check`; :data:`SECURITY_HEADERS` on every response."""

    server: "Server"
    timeout = REQUEST_TIMEOUT
    _unread = False
    """Whether the POST's body is still to be read (:meth:`_drop` reads it before a refusal)."""

    def do_GET(self) -> None:  # noqa: N802  (http.server's name)
        self._respond(post=False)

    def do_POST(self) -> None:  # noqa: N802
        self._respond(post=True)

    def _respond(self, post: bool) -> None:
        """Check the request, then send the static file, or the API's answer as JSON, or the
        error as ``{"error": message}`` (with ``pending``, the game's id, on a 503)."""
        path, extra = urlsplit(self.path).path, {}
        self._unread = post
        try:
            self._check(post)
            if not post and path in PAGES:
                self._send(HTTPStatus.OK, self._page(PAGES[path][0]), PAGES[path][1])
                return
            site = self.server.site
            status, payload = HTTPStatus.OK, site.post(path, self._body()) if post else site.get(path)
        except HttpError as err:
            if self._unread:
                self._drop()
            status, payload = HTTPStatus(err.status), {"error": str(err)}
            if isinstance(err, Pending):
                payload["pending"], extra = err.game_id, {"Retry-After": "1"}
        except (ValueError, OSError) as err:   # a bad command or option
            status, payload = HTTPStatus.BAD_REQUEST, {"error": str(err)}
        except Exception as err:  # noqa: BLE001  (a bug: a message on the page, the traceback on the console)
            self.log_error("%s", f"{type(err).__name__}: {err}")
            status = HTTPStatus.INTERNAL_SERVER_ERROR
            payload = {"error": f"internal error ({type(err).__name__}: {err})"}
        self._send(status, json.dumps(payload).encode(), "application/json", extra)

    def _check(self, post: bool) -> None:
        """Refuse (403) a Host that does not name this server, an Origin that is not its own and,
        on a POST, a body that is not declared JSON (415) or a missing or wrong token (403)."""
        hosts, origins = self.headers.get_all("Host", []), self.headers.get_all("Origin", [])
        if len(hosts) != 1 or not self.server.names_it(hosts[0]):
            raise HttpError(HTTPStatus.FORBIDDEN, f"Host {', '.join(hosts) or '(none)'} is not this server: "
                                                  f"open {self.server.url}")
        if origins and (len(origins) > 1 or not origins[0].startswith("http://")
                        or not self.server.names_it(origins[0].removeprefix("http://"))):
            raise HttpError(HTTPStatus.FORBIDDEN, f"requests from {', '.join(origins)} are refused: "
                                                  "only this server's own page may call it")
        if not post:
            return
        if self.headers.get_content_type() != "application/json":
            raise HttpError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "the body must be sent as application/json")
        token = self.headers.get(TOKEN_HEADER, "")
        if not secrets.compare_digest(token.encode(), self.server.token.encode()):
            raise HttpError(HTTPStatus.FORBIDDEN, f"missing or wrong {TOKEN_HEADER}: reload the page")

    def _page(self, name: str) -> bytes:
        """A static file; ``index.html`` with the server's token in it."""
        return (WEB / name).read_bytes().replace(TOKEN_PLACEHOLDER, self.server.token.encode())

    def _body(self) -> dict[str, Any]:
        """The request's JSON object (empty when there is no body)."""
        if "Transfer-Encoding" in self.headers:
            raise HttpError(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length")
        length = self.headers.get("Content-Length", "0")
        if not CONTENT_LENGTH.fullmatch(length):
            raise HttpError(HTTPStatus.BAD_REQUEST, "Content-Length must be a number")
        size = int(length)
        if size > MAX_BODY:
            raise HttpError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body must be at most {MAX_BODY} bytes")
        self._unread = False
        try:
            raw = self.rfile.read(size)
        except TimeoutError:
            raise HttpError(HTTPStatus.REQUEST_TIMEOUT, f"the body did not come within {self.timeout:g} s") from None
        if len(raw) < size:
            raise HttpError(HTTPStatus.BAD_REQUEST, "the body is shorter than its Content-Length")
        try:
            text = raw.decode("utf-8")
            if nesting(text) > MAX_DEPTH:
                raise HttpError(HTTPStatus.BAD_REQUEST, f"the body is nested deeper than {MAX_DEPTH} levels")
            body = json.loads(text) if text.strip() else {}
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"the body is not JSON: {err}") from None
        if not isinstance(body, dict):
            raise HttpError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
        return body

    def _drop(self) -> None:
        """Read and forget the body of a refused POST when its Content-Length is at most
        :data:`DRAIN_LIMIT`, so that the client reads the answer rather than a connection reset;
        the connection closes after the answer."""
        self.close_connection = True
        length = self.headers.get("Content-Length", "0")
        if CONTENT_LENGTH.fullmatch(length) and int(length) <= DRAIN_LIMIT:
            try:
                self.rfile.read(int(length))
            except OSError:
                pass

    def _send(self, status: int, data: bytes, kind: str, headers: Optional[dict[str, str]] = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def end_headers(self) -> None:
        """:data:`SECURITY_HEADERS`, then the blank line (http.server's own error pages included)."""
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        super().end_headers()

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        """Only internal errors reach the console (each request would bury the address line)."""
        if code == HTTPStatus.INTERNAL_SERVER_ERROR:
            super().log_request(code, size)


class Server(ThreadingHTTPServer):
    """The HTTP server, holding the :class:`Site` and the page's secret ``token``; a thread per
    connection and a listen backlog of 128."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], site: Site) -> None:
        super().__init__(address, Handler)
        self.site = site
        self.token = secrets.token_urlsafe(32)
        bound = self.server_address[0]
        self.hosts = {"localhost", "127.0.0.1", address[0].lower(), bound}
        """The names a Host header may give (with the port); any IP address too when bound to all."""
        self.any_address = ipaddress.ip_address(bound).is_unspecified

    @property
    def url(self) -> str:
        """The page's address."""
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def names_it(self, host: str) -> bool:
        """Whether ``host`` (``name:port`` as in a Host header) is this server: one of :attr:`hosts`
        (or, bound to all addresses, any IP address) with the port it listens on; a DNS name that
        points here from outside (DNS rebinding) is not.

        >>> server = Server(("127.0.0.1", 0), Site(opponent="random"))
        >>> port = server.server_address[1]
        >>> server.names_it(f"localhost:{port}"), server.names_it(f"evil.example:{port}"), server.names_it("localhost")
        (True, False, False)
        >>> server.server_close()
        """
        match = HOST.fullmatch(host)
        if match is None or int(match.group(2) or 80) != self.server_address[1]:
            return False
        name = match.group(1).strip("[]").lower()
        return name in self.hosts or self.any_address and _is_address(name)


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def make_server(host: str = "127.0.0.1", port: int = 8765, **site_options: Any) -> Server:
    """A server bound to ``host:port`` (port 0: a free one), not yet serving; ``site_options``
    go to :class:`Site`."""
    return Server((host, port), Site(**site_options))


def serve(host: str = "127.0.0.1", port: int = 8765, **site_options: Any) -> None:
    """Serve the page until Ctrl-C (``ginrummy serve``)."""
    server = make_server(host, port, **site_options)
    if not ipaddress.ip_address(server.server_address[0]).is_loopback:
        print(f"warning: {host} is reachable from other machines; the server has no login", file=sys.stderr)
    print(f"serving {server.url} (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped")
    finally:
        server.server_close()
