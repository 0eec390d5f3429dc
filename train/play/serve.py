"""A local web page to play an agent and to step through replays (``ginrummy serve``).

Standard library only: a :class:`http.server.ThreadingHTTPServer` serves the page in
``train/play/web/`` and a small JSON API; each game lives in memory as a :class:`train.play.terminal.Table`.
The rules stay in the game: the choices offered come from the person's action mask
(:func:`choices`), and a move is a terminal command (``"d 7H"``, ``"k"``, ``"take"``) that
:func:`train.play.terminal.resolve` checks, so an illegal one is a 400 with the terminal's message.

API (JSON in and out; an error is ``{"error": message}`` with status 400 or 404):

* ``GET /api/setup`` — the defaults, the rulesets and the replay file's games.
* ``POST /api/games`` ``{opponent, ruleset, episode, seed}`` (each optional) — a new game.
* ``GET /api/games/ID`` — the game as the person sees it (:func:`table_view`).
* ``POST /api/games/ID/move`` ``{"command": "d 7H"}`` — the person's move, then the agent's.
* ``POST /api/games/ID/next`` — the next hand, after a hand's summary.
* ``GET /api/replay/G/H`` — hand H of game G of the replay file (both from 1), step by step.
"""
from __future__ import annotations

import ipaddress
import json
import sys
import threading
from collections import OrderedDict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence
from urllib.parse import urlsplit

import numpy as np

import ginenv
from agents import make_agent
from ginenv.envs.aec import EPISODES
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, PASS, TAKE_DISCARD
from ginenv.game.cards import CARD_TEXTS
from ginenv.game.encoding import ObservationView
from ginenv.game.hand import HandState
from ginenv.game.melds import deadwood, mask_best_melds, mask_of, meld_sort_key, ordered_cards
from ginenv.game.rules import PRESETS
from train.play.replay import game_text, hand_text, move_text, player_names, read_records, replay_record, rescore
from train.play.terminal import Table, knock_options, parse_command, resolve

WEB = Path(__file__).with_name("web")
PAGES = {"/": ("index.html", "text/html"), "/app.js": ("app.js", "text/javascript"),
         "/style.css": ("style.css", "text/css")}
"""The static files by path: file name under :data:`WEB` and content type."""
MAX_BODY = 65536
MAX_GAMES = 100
"""Games kept in memory; the oldest is forgotten past this."""


class HttpError(Exception):
    """A request that cannot be answered: ``status`` and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


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
    """The table from the person's seat only: their hand, the pile, the stock, what the
    opponent took from the pile or passed over, and the legal moves."""
    return {"phase": view.phase, "your_turn": bool(mask.any()), "you_deal": view.is_dealer,
            "knock_limit": view.knock_limit, "hand": grouped(view.hand),
            "top": CARD_TEXTS[view.top_discard] if view.top_discard is not None else None,
            "pile_under": len(view.pile_rest), "stock": view.stock_size,
            "opp_picked": texts(view.opp_picked), "opp_declined": texts(view.opp_declined),
            "no_discard": CARD_TEXTS[view.no_discard] if view.no_discard is not None else None,
            "choices": choices(view, mask)}


def hand_end_view(hand: HandState, names: Sequence[str]) -> dict[str, Any]:
    """A finished hand: both hands in melds, the result (melds shown, layoffs, deadwood) and
    the score line of :func:`train.play.replay.hand_text`."""
    return {"hands": [{"name": names[seat], **grouped(hand.hand_cards(seat))} for seat in (0, 1)],
            "result": hand.result.to_dict(names),  # type: ignore[union-attr]
            "score": hand_text(hand, names).rsplit("\n", 1)[-1]}


def table_view(table: Table, news: Sequence[str]) -> dict[str, Any]:
    """What the page shows of a game: ``table`` (the person's seat) while a hand is on,
    ``hand_end`` between hands, ``game_end`` (text) when a game reached its target;
    ``news`` is what happened since the person's last move."""
    observation = table.observation()
    view, me, scores = ginenv.decode(observation), table.me, table.scores
    return {
        "opponent": table.names[1 - me], "ruleset": view.ruleset.name, "episode": table.env.episode,
        "hand_number": len(table.finished) + (0 if table.between_hands else 1), "news": list(news),
        "scores": [scores[me], scores[1 - me]], "target": table.env.ruleset.target, "over": table.over,
        "table": None if table.between_hands else seat_view(view, observation["action_mask"]),
        "hand_end": hand_end_view(table.finished[-1][0], table.names) if table.between_hands else None,
        "game_end": game_text(table.game, table.names) if table.game is not None else None}


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
            "stock": len(state.stock), "to_act": names[to_act] if to_act is not None else None,
            "hand_end": hand_end_view(state, names) if state.is_over else None}


def replay_hand(record: dict[str, Any], number: int) -> dict[str, Any]:
    """Hand ``number`` (from 1) of a game record: its steps, the running score after it
    and, on the game's last hand, the game's end (text, when it reached the target)."""
    names, replayed = player_names(record["players"]), replay_record(record)
    last = number == len(record["hands"])
    return {"names": list(names), "steps": list(replay_steps(record["hands"][number - 1]["log"], names)),
            "scores": rescore([hand.result for hand in replayed.hands[:number]]),  # type: ignore[misc]
            "game_end": game_text(replayed.game, names) if last and replayed.game is not None else None}


def load_replays(path: str) -> list[dict[str, Any]]:
    """The game records of ``path``, each checked to replay (a ``ValueError`` names the game
    that does not)."""
    records = read_records(path)
    for number, record in enumerate(records, 1):
        try:
            replay_record(record)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise ValueError(f"{path}, game {number}: cannot be replayed ({type(err).__name__}: {err})") from None
    return records


class Site:
    """The server's state: the defaults of a new game, the games by id and the replays."""

    def __init__(self, *, opponent: str = "greedy", ruleset: str = "pagat", episode: str = "game",
                 seed: Optional[int] = None, replay: Optional[str] = None) -> None:
        make_agent(opponent)  # a bad spec fails now, not on the first page
        self.defaults = {"opponent": opponent, "ruleset": ruleset, "episode": episode}
        self.seed = seed
        self.replay_file = replay
        self.replays = load_replays(replay) if replay is not None else []
        self.games: OrderedDict[str, tuple[Table, list[str]]] = OrderedDict()
        self.started = 0
        self.lock = threading.Lock()

    def get(self, path: str) -> Any:
        """The answer to ``GET path``: a JSON-ready object."""
        parts = _parts(path)
        with self.lock:
            if parts == ["setup"]:
                return self.setup()
            if len(parts) == 2 and parts[0] == "games":
                return self._view(parts[1])
            if len(parts) == 3 and parts[0] == "replay":
                return self.replay(_number(parts[1], "game"), _number(parts[2], "hand"))
        raise HttpError(HTTPStatus.NOT_FOUND, f"no such page: GET {path}")

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """The answer to ``POST path`` with the JSON object ``body``."""
        parts = _parts(path)
        with self.lock:
            if parts == ["games"]:
                return self.new_game(body)
            if len(parts) == 3 and parts[0] == "games" and parts[2] in ("move", "next"):
                return self.play(parts[1], _text(body, "command") if parts[2] == "move" else None)
        raise HttpError(HTTPStatus.NOT_FOUND, f"no such page: POST {path}")

    def setup(self) -> dict[str, Any]:
        """The defaults, the choices of a new game and the replay file's games."""
        games = [{"players": list(player_names(r["players"])), "episode": r["episode"], "ruleset": r["ruleset"]["name"],
                  "hands": len(r["hands"])} for r in self.replays]
        return {"defaults": self.defaults, "rulesets": sorted(PRESETS), "episodes": list(EPISODES),
                "replay": {"file": Path(self.replay_file).name, "games": games} if self.replay_file else None}

    def new_game(self, body: dict[str, Any]) -> dict[str, Any]:
        """Start a game with the options of ``body`` (the defaults for those left out); the
        k-th game without a seed gets the server's seed + k."""
        options = {key: _text(body, key) if key in body else value for key, value in self.defaults.items()}
        if options["episode"] not in EPISODES:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"episode must be one of {list(EPISODES)}")
        seed = body.get("seed", None if self.seed is None else self.seed + self.started)
        if seed is not None and (type(seed) is not int or seed < 0):
            raise HttpError(HTTPStatus.BAD_REQUEST, f"seed must be a non-negative integer, got {seed!r}")
        table = Table(options["opponent"], ruleset=options["ruleset"], episode=options["episode"], seed=seed)
        self.started += 1
        game_id = str(self.started)
        self.games[game_id] = (table, table.take_news())
        while len(self.games) > MAX_GAMES:
            self.games.popitem(last=False)
        return self._view(game_id)

    def play(self, game_id: str, command: Optional[str]) -> dict[str, Any]:
        """The person's ``command`` in game ``game_id`` (None: the next hand), then the agent's
        turns; the game's new view."""
        table, _ = self._game(game_id)
        if command is None:
            table.next_hand()
        else:
            observation = table.observation()
            table.move(resolve(parse_command(command), ginenv.decode(observation), observation["action_mask"]))
        self.games[game_id] = (table, table.take_news())
        return self._view(game_id)

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

    def _game(self, game_id: str) -> tuple[Table, list[str]]:
        if game_id not in self.games:
            raise HttpError(HTTPStatus.NOT_FOUND, f"no game {game_id!r} (the server restarted?): start a new one")
        return self.games[game_id]

    def _view(self, game_id: str) -> dict[str, Any]:
        table, news = self._game(game_id)
        return {"id": game_id, **table_view(table, news)}


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
    """Static files from :data:`PAGES` and the JSON API of :class:`Site` (``server.site``)."""

    server: "Server"

    def do_GET(self) -> None:  # noqa: N802  (http.server's name)
        path = urlsplit(self.path).path
        if path in PAGES:
            name, kind = PAGES[path]
            self._send(HTTPStatus.OK, (WEB / name).read_bytes(), kind)
        else:
            self._api(lambda: self.server.site.get(path))

    def do_POST(self) -> None:  # noqa: N802
        self._api(lambda: self.server.site.post(urlsplit(self.path).path, self._body()))

    def _body(self) -> dict[str, Any]:
        """The request's JSON object (empty when there is no body)."""
        length = self.headers.get("Content-Length", "0")
        if not length.isdigit() or int(length) > MAX_BODY:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"Content-Length must be a number up to {MAX_BODY}")
        raw = self.rfile.read(int(length))
        try:
            body = json.loads(raw) if raw.strip() else {}
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"the body is not JSON: {err}") from None
        if not isinstance(body, dict):
            raise HttpError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
        return body

    def _api(self, answer: Any) -> None:
        """Send ``answer()`` as JSON, or its error as ``{"error": message}``."""
        try:
            status, payload = HTTPStatus.OK, answer()
        except HttpError as err:
            status, payload = HTTPStatus(err.status), {"error": str(err)}
        except (ValueError, OSError) as err:   # a bad command, option or agent spec
            status, payload = HTTPStatus.BAD_REQUEST, {"error": str(err)}
        except Exception as err:  # noqa: BLE001  (a bug: a message on the page, the traceback on the console)
            self.log_error("%s", f"{type(err).__name__}: {err}")
            status = HTTPStatus.INTERNAL_SERVER_ERROR
            payload = {"error": f"internal error ({type(err).__name__}: {err})"}
        self._send(status, json.dumps(payload).encode(), "application/json")

    def _send(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        """Only server errors reach the console (each request would bury the address line)."""
        if isinstance(code, int) and code >= 500:
            super().log_request(code, size)


class Server(ThreadingHTTPServer):
    """The HTTP server, holding the :class:`Site`."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], site: Site) -> None:
        super().__init__(address, Handler)
        self.site = site

    @property
    def url(self) -> str:
        """The page's address."""
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"


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
