"""``ginrummy serve``: the JSON API without a browser (fast), then the page in a real headless
Chromium driven by selenium: a scripted hand played by clicks at desktop width and at 390 px
(no sideways scrolling), the hint switched on and followed, and a replay stepped through.
The browser tests skip only where chromium or chromedriver is not installed (CI installs them:
``apt-get install chromium chromium-driver``)."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Optional

import numpy as np
import pytest

import ginenv
from agents import REGISTRY, RandomAgent, make_agent
from ginenv.game.actions import PASS
from ginenv.game.cards import card_value
from train.cli import _build_parser, main
from train.play import serve
from train.play.replay import read_records, replay_record, write_records
from train.play.screenshots import PHONE, Page, chromium, follow_hint, hint_on, set_viewport
from train.play.serve import MAX_BODY, TOKEN_HEADER, HttpError, Site, advice, make_server, shown_hands
from train.play.terminal import parse_command, resolve

ROOT = Path(__file__).resolve().parents[2]
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][CDHS]\b")
SEED = 7
"""With ``simple`` as the opponent, one hand: the scripted person passes, draws and discards
three times and then knocks (seven moves)."""
SERVER = {"opponent": "simple", "episode": "hand", "seed": SEED}
DESKTOP = (1100, 900)


def decide(table: dict[str, Any]) -> str:
    """The scripted person's command for a seat view: pass, else draw, else knock leaving the
    least deadwood, else discard the highest deadwood card."""
    choices = table["choices"]
    if choices["pass"] or choices["draw"]:
        return "pass" if choices["pass"] else "draw"
    if choices["knock"]:
        return "k " + min(choices["knock"], key=lambda card: (choices["knock"][card], card))
    return "d " + [card for card in table["hand"]["deadwood"] if card in choices["discard"]][-1]


def scripted_hand(site: Site) -> tuple[list[str], dict[str, Any]]:
    """Play a new game of ``site`` with :func:`decide`: the commands and the last view."""
    view, commands = site.new_game({}), []
    while view["table"] is not None:
        commands.append(decide(view["table"]))
        view = site.post(f"/api/games/{view['id']}/move", {"command": commands[-1]})
    return commands, view


def call(url: str, path: str, body: Any = None, data: Optional[bytes] = None, token: str = "",
         origin: Optional[str] = None) -> tuple[int, Any]:
    """``GET`` (no body) or ``POST`` the JSON ``body`` (or the raw ``data``) as the page does, with
    the page's ``token`` (and an ``origin``, when given): status and JSON answer."""
    if body is not None:
        data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json", TOKEN_HEADER: token, **({"Origin": origin} if origin else {})}
    request = urllib.request.Request(url.rstrip("/") + path, data=data, method="GET" if data is None else "POST",
                                     headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory) -> Path:
    """One game record: the scripted hand against ``simple`` (the person's seat is "human")."""
    site = Site(**SERVER)
    _, view = scripted_hand(site)
    path = tmp_path_factory.mktemp("replay") / "hand.jsonl"
    write_records(path, [site.games[view["id"]].table.record()])
    return path


@pytest.fixture
def server(replay_file):
    """A running server on a free port with :data:`SERVER`'s options and the replay file."""
    running = make_server(port=0, replay=str(replay_file), **SERVER)
    thread = threading.Thread(target=running.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.server_close()


# ----- the API, no browser ---------------------------------------------------------------

def test_the_view_shows_no_hidden_card_and_the_hand_ends_with_the_score():
    site = Site(**SERVER)
    view = site.new_game({})
    moves = 0
    while view["table"] is not None:
        table = site.games[view["id"]].table
        hidden = set(table.env.hand.hand_cards(1 - table.me)) - set(ginenv.decode(table.observation()).opp_picked)
        shown = {ginenv.parse_card(token) for token in CARD_TOKEN.findall(json.dumps(view))}
        assert not shown & hidden
        assert view["table"]["your_turn"] and sum(map(len, view["table"]["hand"]["melds"])) + len(
            view["table"]["hand"]["deadwood"]) in (10, 11)
        view = site.post(f"/api/games/{view['id']}/move", {"command": decide(view["table"])})
        moves += 1
    end = view["hand_end"]
    assert moves == 7 and view["over"] and view["game_end"] is None
    assert sorted(hand["name"] for hand in end["hands"]) == ["simple", "you"]
    assert end["score"].startswith("score: knock by you") and end["result"]["knocker"] == "you"
    with pytest.raises(ValueError, match="no hand is waiting"):
        site.post(f"/api/games/{view['id']}/next", {})


def test_the_same_seed_plays_the_same_hand_under_a_new_random_id():
    (commands, view), (again, other) = scripted_hand(Site(**SERVER)), scripted_hand(Site(**SERVER))
    assert commands == again and view.pop("id") != other.pop("id") and view == other


def test_a_game_waits_between_hands_and_keeps_the_running_score():
    site = Site(opponent="simple", episode="game", ruleset="eaai", seed=3)
    view, hands = site.new_game({}), 0
    while not view["over"]:
        sheet = view["sheet"]
        finished = hands + (view["hand_end"] is not None)
        assert sheet["names"] == ["you", "simple"] and len(sheet["rows"]) == finished and sheet["end"] is None
        assert sheet["rows"] == [] or sheet["rows"][-1]["totals"] == view["scores"]
        if view["hand_end"] is not None:
            hands += 1
            assert view["table"] is None and view["hand_number"] == hands and view["game_end"] is None
            view = site.post(f"/api/games/{view['id']}/next", {})
            continue
        view = site.post(f"/api/games/{view['id']}/move", {"command": decide(view["table"])})
    record = site.games[view["id"]].table.record()
    replayed, me = replay_record(record), record["players"].index("human")
    game = replayed.game
    assert view["scores"] == [replayed.scores[me], replayed.scores[1 - me]] and max(view["scores"]) >= view["target"]
    assert view["game_end"].startswith("game over") and len(record["hands"]) == hands + 1
    assert f"final score: you {game.final_scores[me]}, simple {game.final_scores[1 - me]}" in view["game_end"]

    # the score sheet: each hand's points (to its winner only) and the running totals, then the engine's bonuses
    sheet, mine = view["sheet"], lambda values: [values[me], values[1 - me]]
    assert [row["hand"] for row in sheet["rows"]] == list(range(1, hands + 2))
    assert [row["outcome"] for row in sheet["rows"]] == [hand.result.outcome for hand in replayed.hands]
    for row, hand in zip(sheet["rows"], replayed.hands):
        won = [hand.result.points if hand.result.winner == seat else 0 for seat in (me, 1 - me)]
        assert row["points"] == won and row["winner"] == (None if hand.result.winner is None else
                                                          table_names(me)[hand.result.winner])
    assert sheet["rows"][-1]["totals"] == view["scores"] == sheet["end"]["points"]
    assert sheet["end"] == {"winner": table_names(me)[game.winner], "shutout": game.shutout,
                            "points": mine(game.scores), "hands_won": mine(game.hands_won),
                            "box_bonus": mine(game.box_bonus), "final": mine(game.final_scores),
                            "game_bonus": mine([game.game_bonus * (seat == game.winner) for seat in (0, 1)])}
    assert sheet["end"]["final"] == [sum(column) for column in zip(
        sheet["end"]["points"], sheet["end"]["box_bonus"], sheet["end"]["game_bonus"])] or game.shutout

    site.replays = [record]
    told = site.replay(1, len(record["hands"]))
    final = f"final score {game.final_scores[0]} - {game.final_scores[1]}"
    assert told["scores"] == replayed.scores and final in told["game_end"] and told["target"] == view["target"]
    assert told["sheet"]["end"]["final"] == list(game.final_scores) and told["sheet"]["names"] == [
        f"player_{seat} ({spec})" for seat, spec in enumerate(record["players"])]
    first = site.replay(1, 1)
    assert first["game_end"] is None and first["sheet"]["end"] is None and len(first["sheet"]["rows"]) == 1


def table_names(me: int) -> tuple[str, str]:
    """The names by seat of a game against ``simple`` where the person sits in seat ``me``."""
    return ("you", "simple") if me == 0 else ("simple", "you")


def test_the_table_counts_the_opponents_cards_and_marks_the_card_drawn_until_the_discard():
    site = Site(**SERVER)
    view, draws = site.new_game({}), 0
    while view["table"] is not None:
        table = site.games[view["id"]].table
        assert view["table"]["opp_cards"] == len(table.env.hand.hand_cards(1 - table.me)) == 10
        command = decide(view["table"])
        view = site.post(f"/api/games/{view['id']}/move", {"command": command})
        if command.startswith("d "):
            assert view["news"][0] == f"you discard {command[2:]}"
        if view["table"] is None:
            break
        drawn = view["table"]["drawn"]
        if command == "draw":
            hand = view["table"]["hand"]
            assert drawn in sum(hand["melds"], hand["deadwood"]) and view["news"] == [f"you drew {drawn}"]
            with pytest.raises(ValueError, match="not now"):         # a refused move leaves the mark
                site.post(f"/api/games/{view['id']}/move", {"command": "pass"})
            assert site.get(f"/api/games/{view['id']}")["table"]["drawn"] == drawn
            draws += 1
        else:
            assert drawn is None
    assert draws == 3


def test_a_hands_end_shows_each_card_once_and_the_deadwood_before_and_after_the_layoffs():
    env, simple, layoffs = ginenv.raw_env(episode="hand"), make_agent("simple", seed=0), 0
    for seed in range(40):
        env.reset(seed=seed)
        hand = env.hand
        while not hand.is_over:
            env.step(simple.act(env.observe(env.agent_selection)))
        result, hands = hand.result, shown_hands(hand, ("you", "greedy"))
        for seat, shown in enumerate(hands):
            assert sorted(sum(shown["melds"], shown["deadwood"] + shown["laid_off"])) == sorted(
                ginenv.card_text(card) for card in hand.hand_cards(seat))
            assert len(shown["laid_on"]) == len(shown["melds"])
        if result.knocker is None:
            assert [shown["role"] for shown in hands] == [None, None]
            continue
        knocker, defender = hands[result.knocker], hands[1 - result.knocker]
        assert (knocker["role"], defender["role"]) == ("knocker", "defender")
        assert sorted(sum(knocker["laid_on"], [])) == sorted(defender["laid_off"]) == sorted(
            ginenv.card_text(card) for card in result.layoffs)
        assert knocker["points"] == knocker["before"] == result.knocker_deadwood
        assert defender["points"] == result.defender_deadwood
        assert defender["before"] == result.defender_deadwood + sum(card_value(card) for card in result.layoffs)
        layoffs += bool(result.layoffs)
    assert layoffs >= 5


def test_the_hint_gives_each_legal_move_its_probability_and_ppos_move_first():
    site, ppo = Site(**SERVER), make_agent("ppo")
    view, positions = site.new_game({}), 0
    while view["table"] is not None:
        observation = site.games[view["id"]].table.observation()
        hint = site.post(f"/api/games/{view['id']}/hint", {})
        moves, mask = hint["moves"], observation["action_mask"]
        assert hint["agent"] == "ppo" and [move["action"] for move in moves if mask[move["action"]]] == [
            move["action"] for move in moves] and len(moves) == int(mask.sum())
        probabilities = [move["probability"] for move in moves]
        assert abs(sum(probabilities) - 1) < 1e-5 and probabilities == sorted(probabilities, reverse=True)
        assert moves[0]["action"] == ppo.act(observation)
        for move in moves:      # each command plays its move
            assert resolve(parse_command(move["command"]), ginenv.decode(observation), mask) == move["action"]
        view = site.post(f"/api/games/{view['id']}/move", {"command": moves[0]["command"]})
        positions += 1
    assert positions > 3 and view["hand_end"] is not None
    with pytest.raises(HttpError, match="not your turn") as refused:
        site.post(f"/api/games/{view['id']}/hint", {})
    assert refused.value.status == 409


def test_the_hint_reads_the_persons_observation_only():
    """Deal the opponent ten other cards (from the stock) and let it make the same public move: the
    person's observation is the same, and so is the hint."""
    site = Site(**SERVER)
    view = site.new_game({})
    table = site.games[view["id"]].table
    hand, me, other = table.env.hand, table.me, 1 - table.me
    assert hand.phase == "offer" and hand.current_player == me
    before, hint = table.observation(), site.post(f"/api/games/{view['id']}/hint", {})
    stock, theirs = hand.stock[::-1], hand.hand_cards(other)   # the stock top first
    hands = {me: hand.hand_cards(me), other: stock[:10]}
    passed = hand.dealer == me                                 # offered the upcard first, the opponent passed
    table.env.reset(options={"deal": {"dealer": hand.dealer, "hands": [hands[0], hands[1]],
                                      "upcard": hand.top_discard, "stock": stock[10:] + theirs}})
    if passed:
        table.env.step(PASS)
    assert not set(table.env.hand.hand_cards(other)) & set(theirs)
    after = table.observation()
    assert all(np.array_equal(before[key], after[key]) for key in ("observation", "action_mask"))
    assert site.post(f"/api/games/{view['id']}/hint", {}) == hint
    assert advice(make_agent("ppo"), after) == hint["moves"]


def test_the_hint_is_refused_without_the_token_or_from_another_site(server):
    _, game = call(server.url, "/api/games", {}, token=server.token)
    path = f"/api/games/{game['id']}/hint"
    for token, origin in (("", None), ("guess", None), (server.token, "http://evil.example")):
        status, answer = call(server.url, path, {}, token=token, origin=origin)
        assert status == 403 and "ppo" not in json.dumps(answer), (token, origin)
    assert call(server.url, path)[0] == 404           # a GET: no such page
    status, hint = call(server.url, path, {}, token=server.token)
    assert status == 200 and {move["move"] for move in hint["moves"]} == {"take", "pass"}


def test_no_hint_is_offered_where_the_ppo_weights_are_not_installed(monkeypatch, tmp_path):
    monkeypatch.setitem(serve.WEIGHTS, "ppo", tmp_path / "missing.pt")
    site = Site(**SERVER)
    view = site.new_game({})
    assert site.setup()["hint"] is None and "ppo" not in site.opponents
    with pytest.raises(HttpError, match="not installed") as refused:
        site.post(f"/api/games/{view['id']}/hint", {})
    assert refused.value.status == 404


def test_replay_steps_show_both_hands_and_end_with_the_recorded_score(replay_file):
    [record] = read_records(replay_file)
    site = Site(replay=str(replay_file), **SERVER)
    players = [f"player_{seat} ({spec})" for seat, spec in enumerate(record["players"])]
    assert site.setup()["replay"]["games"] == [{"players": players, "episode": "hand", "ruleset": "pagat", "hands": 1}]
    told = site.get("/api/replay/1/1")
    steps, events = told["steps"], record["hands"][0]["log"]["events"]
    assert len(steps) == len(events) + 1 and "deals; the upcard is" in steps[0]["text"]
    for step in steps:
        sizes = [sum(map(len, hand["melds"])) + len(hand["deadwood"]) for hand in step["hands"]]
        assert sorted(sizes) in ([10, 10], [10, 11]) and step["stock"] <= 31
    assert steps[-1]["hand_end"]["result"] == replay_record(record).hands[0].result.to_dict(told["names"])
    assert all(step["hand_end"] is None for step in steps[:-1])


@pytest.mark.parametrize("path, body, status, words", [
    ("/api/games", {"episode": "match"}, 400, "episode must be one of"),
    ("/api/games", {"seed": -1}, 400, "non-negative integer"),
    ("/api/games", {"seed": "7"}, 400, "non-negative integer"),
    ("/api/games", {"opponent": "nobody"}, 400, "opponent must be one of ['simple', 'random', 'greedy'"),
    ("/api/games", {"ruleset": "xx"}, 400, "unknown ruleset"),
    ("/api/games", {"opponent": 3}, 400, "'opponent' must be a string"),
    ("/api/games/{id}/move", {"command": "dance"}, 400, "unknown command"),
    ("/api/games/{id}/move", {"command": "draw"}, 400, "not now: the upcard"),
    ("/api/games/{id}/move", {"command": "help"}, 400, "not a move"),
    ("/api/games/{id}/move", {}, 400, "'command' must be a string"),
    ("/api/games/{id}/next", {}, 400, "no hand is waiting"),
    ("/api/games/99/move", {"command": "pass"}, 404, "no such game"),
    ("/api/games/{id}/fold", {}, 404, "no such page"),
    ("/api/replay/0/1", None, 400, "game must be a number from 1"),
    ("/api/replay/2/1", None, 404, "holds 1 game"),
    ("/api/replay/1/x", None, 400, "hand must be a number"),
    ("/api/replay/1/2", None, 404, "has 1 hand"),
    ("/api/nothing", None, 404, "no such page"),
])
def test_bad_requests_get_a_status_and_a_message(server, path, body, status, words):
    code, game = call(server.url, "/api/games", {}, token=server.token)   # the upcard is offered to the person
    assert code == 200
    code, answer = call(server.url, path.format(id=game["id"]), body, token=server.token)
    assert code == status and words in answer["error"], answer


@pytest.mark.parametrize("data, words", [(b"{", "not JSON"), (b"[1]", "a JSON object"), (b"\xff", "not JSON")])
def test_a_body_that_is_not_a_json_object_is_refused(server, data, words):
    code, answer = call(server.url, "/api/games", data=data, token=server.token)
    assert code == 400 and words in answer["error"]


def test_a_too_long_body_and_a_bug_get_messages_not_tracebacks(server, monkeypatch):
    code, answer = call(server.url, "/api/games", data=b" " * (MAX_BODY + 1), token=server.token)
    assert code == 413 and answer == {"error": f"the body must be at most {MAX_BODY} bytes"}

    def broken(path):
        raise RuntimeError("a bug")
    monkeypatch.setattr(server.site, "get", broken)
    code, answer = call(server.url, "/api/setup")
    assert code == 500 and answer == {"error": "internal error (RuntimeError: a bug)"}


def test_the_page_and_its_files_are_served(server):
    for path, kind in (("", "text/html"), ("app.js", "text/javascript"), ("style.css", "text/css")):
        with urllib.request.urlopen(server.url + path, timeout=30) as answer:
            assert answer.headers["Content-Type"].startswith(kind) and answer.read()


def test_serve_runs_from_the_command_line_and_stops_on_ctrl_c():
    process = subprocess.Popen([sys.executable, "-m", "train.cli", "serve", "--port", "0", "--seed", "1"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # type: ignore[union-attr]
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line + process.stderr.read()  # type: ignore[union-attr]
        status, setup = call(url.group(0), "/api/setup")
        assert status == 200 and setup["defaults"]["opponent"] == "greedy" and setup["replay"] is None
        with urllib.request.urlopen(url.group(0), timeout=30) as page:
            token = re.search(r'name="ginrummy-token" content="([\w-]+)"', page.read().decode()).group(1)
        status, game = call(url.group(0), "/api/games", {"episode": "hand"}, token=token)
        assert status == 200 and game["opponent"] == "greedy"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        assert process.returncode == 0 and "stopped" in out and "Traceback" not in err
    finally:
        if process.poll() is None:
            process.kill()


def test_serve_refuses_bad_options_with_a_message(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "ginrummy-game/1", "players": ["a", "b"]}\n')
    assert main(["serve", "--replay", str(bad)]) == 2
    assert "game 1: cannot be replayed" in capsys.readouterr().err
    assert main(["serve", "--opponent", "nobody"]) == 2
    assert "unknown agent" in capsys.readouterr().err
    for option, value, words in (("--port", "99999", "must be a port number from 0 to 65535, got 99999"),
                                 ("--port", "http", "expected a non-negative integer"),
                                 ("--decision-timeout", "0", "must be a finite positive number")):
        with pytest.raises(SystemExit) as exit:
            main(["serve", option, value])
        assert exit.value.code == 2 and f"argument {option}: {words}" in capsys.readouterr().err


def test_serve_options_are_documented():
    sub = next(a for a in _build_parser()._actions if a.dest == "command").choices["serve"]
    text = sub.format_help()
    for option in ("--port", "--host", "--opponent", "--ruleset", "--episode", "--seed", "--replay",
                   "--decision-timeout"):
        assert re.search(rf"^\s+{option}\b.*\S", text, re.M), option


# ----- the page in a real browser -------------------------------------------------------

@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Chromium through chromedriver (skips where either is not installed)."""
    try:
        driver = chromium(tmp_path_factory.mktemp("chromium"))
    except RuntimeError as err:
        pytest.skip(str(err))
    yield driver
    driver.quit()


@pytest.fixture
def desktop(browser):
    """The browser with a desktop's viewport."""
    set_viewport(browser, *DESKTOP)
    return browser


def click_scripted_move(page: Page) -> str:
    """Make :func:`decide`'s move by clicks, reading the page only; returns it as a command."""
    if page.find("#pass").is_enabled() or page.find("#draw").is_enabled():
        command = "pass" if page.find("#pass").is_enabled() else "draw"
        page.click("#" + command)
        return command
    if page.find("#knock").is_enabled():
        page.find("#knock").click()     # knock mode: the cards that may go face down show the deadwood left
        left = {node.get_attribute("data-card"): int(node.find_element(page.by.CLASS_NAME, "left").text)
                for node in page.all("#hand button.card") if node.is_enabled()}
        card = min(left, key=lambda c: (left[c], c))
        page.click(f"#hand button.card[data-card='{card}']")
        return "k " + card
    card = page.all("#hand .dead button.card:enabled")[-1].get_attribute("data-card")
    page.click(f"#hand button.card[data-card='{card}']")
    return "d " + card


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "390px"])
def test_a_scripted_hand_played_by_clicks_shows_the_result(browser, server, size):
    set_viewport(browser, *size)
    expected, last = scripted_hand(Site(**SERVER))
    page = Page(browser, server.url, answers=3)
    assert page.find("#status").text.startswith("hand 1 (pagat, knock limit 10)")
    commands, news = [], []
    while page.find("#board").is_displayed() and len(commands) < 40:
        assert page.overflow() == 0                                   # no sideways scrolling, even at 390 px
        assert page.find("#opponent-count").text == "10 cards" and len(page.all("#opponent-hand .card")) == 10
        stock = int(page.find("#stock .pile").get_attribute("data-size"))
        assert page.find("#stock .count").text == str(stock) and len(page.all("#pile .card:not(.empty)")) == 1
        news.append(page.find("#news").text)
        assert not CARD_TOKEN.findall(news[-1]) and not CARD_TOKEN.findall(page.find("#log").text)  # suit signs
        drawn = page.all("#hand .card.drawn")
        if commands and commands[-1] == "draw":          # the card just drawn is marked until the discard
            assert len(drawn) == 1 and f"you drew {drawn[0].text.replace(chr(10), '')}" in news[-1]
        else:
            assert drawn == []
        commands.append(click_scripted_move(page))
        assert page.find("#error").text == ""
    assert commands == expected
    assert page.overflow() == 0
    summary, end = page.find("#hand-end"), last["hand_end"]
    assert summary.is_displayed() and not page.find("#next").is_displayed()
    assert end["score"] in summary.text and "simple" in summary.text and not CARD_TOKEN.findall(summary.text)
    seats = summary.find_elements(page.by.CSS_SELECTOR, ".seat")
    assert [seat.find_element(page.by.TAG_NAME, "h3").text.split(" ")[0] for seat in seats] == ["simple", "you"]
    assert len(summary.find_elements(page.by.CSS_SELECTOR, ".card")) == 20
    laid = [node.get_attribute("data-card") for node in summary.find_elements(page.by.CSS_SELECTOR, ".card.laid")]
    assert sorted(laid) == sorted(end["result"]["layoffs"])
    defender = next(hand for hand in end["hands"] if hand["role"] == "defender")
    assert f"deadwood {defender['before']} \u2192 {defender['points']} after layoffs" in summary.text
    assert "hand 1" in page.find("#log").text and end["score"] in page.find("#log").text
    assert not page.find("#sheet-box").is_displayed()                # one hand: no score sheet

    from selenium.webdriver.support.ui import Select

    opponents = Select(page.find("#opponent"))
    assert [option.get_attribute("value") for option in opponents.options] == server.site.opponents
    assert opponents.first_selected_option.text.startswith("simple")
    opponents.select_by_value("random")
    page.click("#new")
    assert page.find("#error").text == "" and page.find("#opponent-name").text == "random"
    assert page.overflow() == 0


def test_the_hint_is_off_until_switched_on_then_shows_ppos_moves_to_play(browser, server):
    set_viewport(browser, *PHONE)
    page = Page(browser, server.url, answers=3)
    assert not page.find("#hint-on").is_selected() and not page.find("#hint").is_displayed()
    assert page.find("#hint-toggle").text == "hint: what would ppo do?"
    hint_on(page)
    played = 0
    while page.find("#board").is_displayed():
        [game] = server.site.games.values()
        moves = advice(make_agent("ppo"), game.table.observation())
        buttons = page.all("#hint .hint-move")
        assert [button.get_attribute("data-command") for button in buttons] == [m["command"] for m in moves[:3]]
        shown = [float(node.text.rstrip("%")) for node in page.all("#hint .probability")]
        assert shown == [round(100 * m["probability"], 1) for m in moves[:3]]
        assert page.overflow() == 0
        assert follow_hint(page) == moves[0]["command"] and page.find("#error").text == ""
        played += 1
    assert played > 3 and page.find("#hand-end").is_displayed() and not page.find("#hint").is_displayed()
    page.click("#new")
    page.click_for_hint("#hint-on", answers=0)          # off again
    assert not page.find("#hint").is_displayed()


def test_a_replay_stepped_through_by_clicks(desktop, server, replay_file):
    [record] = read_records(replay_file)
    steps = len(record["hands"][0]["log"]["events"]) + 1
    page = Page(desktop, server.url, answers=3)
    page.find("#tab-replay").click()
    assert page.find("#replay").is_displayed() and not page.find("#play").is_displayed()
    assert page.find("#step").text == f"step 1 / {steps}" and "deals; the upcard is" in page.find("#move").text
    moves = [page.find("#move").text]
    for _ in range(steps - 1):
        page.find("#forward").click()
        moves.append(page.find("#move").text)
        seats = page.all("#replay-table .seat")
        assert [len(seat.find_elements(page.by.CSS_SELECTOR, ".card")) for seat in seats] in ([10, 10], [10, 11],
                                                                                             [11, 10])
    assert page.find("#step").text == f"step {steps} / {steps}" and not page.find("#forward").is_enabled()
    assert "score: knock by player_" in page.find("#replay-end").text
    assert len(set(moves)) > steps // 2 and "(human) knocks" in moves[-1]
    page.find("#back").click()
    assert page.find("#step").text == f"step {steps - 1} / {steps}" and page.find("#move").text == moves[-2]
    assert page.find("#replay-end").text == ""


class Waiting(RandomAgent):
    """``random``, but each decision first waits until :attr:`go` is set."""

    go = threading.Event()

    def act(self, observation: Any) -> int:
        self.go.wait(60)
        return super().act(observation)


def test_the_page_waits_for_a_slow_opponent_then_shows_its_move(desktop, monkeypatch):
    monkeypatch.setitem(REGISTRY, "waiting", Waiting)
    Waiting.go.clear()
    running = make_server(port=0, opponent="waiting", episode="hand", seed=1, decision_timeout=0.3)  # agent first
    threading.Thread(target=running.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        page = Page(desktop, running.url, answers=1)  # the setup; the new game waits for the agent
        page.wait.until(lambda d: "still thinking" in page.find("#error").text)
        Waiting.go.set()
        page.settle()
        assert page.find("#error").text == "" and page.find("#board").is_displayed()
        assert page.find("#news").text.startswith("waiting ")
    finally:
        Waiting.go.set()
        running.shutdown()
        running.server_close()
