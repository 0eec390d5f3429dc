"""``ginrummy play`` pieces as units: command parsing, legality messages, the screen (no
hidden card of the opponent on it), the score explanation, and the game loop on a scripted
input stream."""
from __future__ import annotations

import io
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ginenv
from agents import make_agent
from ginenv.envs.episode import AGENTS
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.cards import CARD_TEXTS
from train.cli import _build_parser, main
from train.play.replay import read_records, replay_record, score_terms
from train.play.terminal import ANOTHER, NEXT_HAND, Command, CommandError, parse_command, play, resolve, screen

ROOT = Path(__file__).resolve().parents[2]
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][CDHS]\b")
YES_NO = "? [y/N] "
"""How :data:`ANOTHER` ends, whatever the episode."""


@pytest.mark.parametrize("text, verb, card", [
    ("take", "take", None), (" T ", "take", None), ("DRAW", "draw", None), ("s", "draw", None),
    ("pass", "pass", None), ("d 7H", "discard", "7H"), ("d 10h", "discard", "TH"), ("discard qs", "discard", "QS"),
    ("7h", "discard", "7H"), ("d7h", "discard", "7H"), ("k 7H", "knock", "7H"), ("K", "knock", None),
    ("knock 10♥", "knock", "TH"), ("gin", "gin", None), ("gin 2c", "gin", "2C"), ("big gin", "big_gin", None),
    ("BIG  GIN", "big_gin", None), ("help", "help", None), ("?", "help", None), ("q", "quit", None),
    ("exit", "quit", None),
])
def test_commands_are_short_and_forgiving(text, verb, card):
    assert parse_command(text) == Command(verb, None if card is None else ginenv.parse_card(card))


@pytest.mark.parametrize("text, words", [
    ("", "help"), ("dance", "unknown command"), ("d", "which card"), ("d 1H", "not a card"),
    ("take 7H", "no card"), ("d 7H 8H", "one card"),
])
def test_unreadable_commands_say_what_to_do(text, words):
    with pytest.raises(CommandError, match=words):
        parse_command(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_any_text_parses_or_gets_a_message(text):
    try:
        parse_command(text)
    except CommandError as err:
        assert str(err)


def _positions(seed: int, count: int, ruleset: str = "pagat"):
    """(observation, hand) pairs of random play, every decision of ``count`` hands."""
    rng = np.random.default_rng(seed)
    env = ginenv.raw_env(ruleset=ruleset)
    for _ in range(count):
        env.reset(seed=int(rng.integers(2**31)))
        while not env.terminations[env.agent_selection]:
            observation = env.observe(env.agent_selection)
            yield observation, env.hand
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))


def _command_for(action: int) -> str:
    named = {DRAW_STOCK: "draw", TAKE_DISCARD: "take", PASS: "pass", BIG_GIN: "big gin"}
    if action in named:
        return named[action]
    return ("k " if action >= KNOCK_BASE else "d ") + CARD_TEXTS[(action - DISCARD_BASE) % (KNOCK_BASE - DISCARD_BASE)]


@pytest.mark.parametrize("ruleset", ["pagat", "oklahoma", "classic25"])
def test_every_legal_move_has_a_command_and_every_other_command_a_reason(ruleset):
    checked = 0
    for observation, hand in _positions(3, 3, ruleset):
        view, mask = ginenv.decode(observation), observation["action_mask"]
        legal = set(hand.legal_actions())
        for action in legal:
            assert resolve(parse_command(_command_for(action)), view, mask) == action
        for action in range(108):
            if action not in legal:
                with pytest.raises(CommandError):
                    resolve(parse_command(_command_for(action)), view, mask)
                checked += 1
    assert checked > 1000


def test_illegal_commands_name_the_reason():
    hands = [["7H", "8H", "9H", "KC", "KD", "KS", "2C", "3D", "AS", "5C"],
             ["AC", "AD", "AH", "4C", "6C", "8C", "TC", "JD", "QH", "5S"]]
    stock = [c for c in CARD_TEXTS if c not in hands[0] + hands[1] + ["2H"]]
    env = ginenv.raw_env()
    env.reset(options={"deal": {"dealer": 0, "hands": hands, "upcard": "2H", "stock": stock}})
    env.step(PASS)                       # player_1 passes the upcard
    observation = env.observe("player_0")
    view, mask = ginenv.decode(observation), observation["action_mask"]

    def message(text):
        with pytest.raises(CommandError) as err:
            resolve(parse_command(text), view, mask)
        return str(err.value)

    assert "take or pass" in message("draw")
    assert resolve(parse_command("t"), view, mask) == TAKE_DISCARD
    env.step(TAKE_DISCARD)               # player_0 takes the 2H: deadwood 2C 2H 3D AS 5C = 13
    observation = env.observe("player_0")
    view, mask = ginenv.decode(observation), observation["action_mask"]
    assert "just took 2H" in message("d 2h")
    assert "not in your hand" in message("d AD")
    assert "over the limit 10" in message("k 2c")
    assert "no gin" in message("gin")
    assert "not allowed" in message("big gin")
    assert "discard a card" in message("take")
    assert resolve(parse_command("k"), view, mask) == KNOCK_BASE + ginenv.parse_card("5C")  # least deadwood: 8


def test_the_screen_shows_no_hidden_card_of_the_opponent():
    for observation, hand in _positions(7, 4):
        seat = hand.current_player
        view, mask = ginenv.decode(observation), observation["action_mask"]
        text = screen(view, mask, ("you", "greedy") if seat == 0 else ("greedy", "you"), seat, 1, [])
        hidden = set(hand.hand_cards(1 - seat)) - set(view.opp_picked)
        shown = {ginenv.parse_card(token) for token in CARD_TOKEN.findall(text)}
        assert not shown & hidden, text
        assert set(view.hand) <= shown


def test_the_score_explanation_adds_up_to_the_points():
    players, outcomes = (make_agent("greedy", seed=1), make_agent("simple", seed=2)), set()
    for ruleset in ("pagat", "oklahoma", "classic25"):
        env = ginenv.raw_env(ruleset=ruleset)
        for seed in range(60):
            env.reset(seed=seed)
            while not env.terminations[env.agent_selection]:
                agent = env.agent_selection
                env.step(players[AGENTS.index(agent)].act(env.observe(agent)))
            result = env.hand.result
            text, value = score_terms(result, env.ruleset, ("A", "B"))
            assert value == result.points, text
            outcomes.add(result.outcome + (" x2" if result.doubled else ""))
    assert {"knock", "undercut", "gin", "knock x2"} <= outcomes, outcomes


class Scripted(io.StringIO):
    """A person who passes, draws, knocks when possible and else discards the highest
    deadwood card, reading the screen written to ``out``; ``extra`` lines go first.  Asked
    to play another, they give the next of ``again``, then end the input."""

    def __init__(self, out: io.StringIO, extra=(), again=()):
        super().__init__()
        self.out, self.extra, self.again = out, list(extra), list(again)

    def readline(self, *args):
        if self.extra:
            return self.extra.pop(0) + "\n"
        if self.out.getvalue().endswith(YES_NO):
            return self.again.pop(0) + "\n" if self.again else ""
        return reply(self.out.getvalue()) + "\n"


def reply(text: str) -> str:
    """The scripted person's answer to the screen ``text`` (no to playing another)."""
    if text.endswith(NEXT_HAND):
        return ""
    if text.endswith(YES_NO):
        return "n"
    choices = text[text.rfind("your move:"):].splitlines()[0]
    if "pass" in choices:
        return "pass"
    if "draw" in choices:
        return "draw"
    if " k " in choices or "gin" in choices:
        return "k"
    hand = text[text.rfind("your hand:"):].splitlines()[0]
    return "d " + CARD_TOKEN.findall(hand.split("deadwood")[-1])[-1]


@pytest.mark.parametrize("episode, seat", [("hand", "0"), ("game", "1")])
def test_a_scripted_game_ends_with_the_scores_and_replays_to_them(tmp_path, episode, seat):
    out, log = io.StringIO(), tmp_path / "games.jsonl"
    play("random", ruleset="eaai", episode=episode, seed=4, seat=seat, stdin=Scripted(out, ["xyz", "help"]),
         stdout=out, log=str(log))
    text = out.getvalue()
    assert "unknown command 'xyz'" in text and "commands (case does not matter" in text
    assert "score: " in text and "Traceback" not in text
    if episode == "game":
        assert "game over" in text and "running score" in text
    [record] = read_records(log)
    assert record["players"][int(seat)] == "human"
    replayed = replay_record(record)
    assert [h.result.to_dict() for h in replayed.hands] == [hand["result"] for hand in record["hands"]]
    if episode == "game":
        scores = replayed.game.final_scores
        assert f"final score: you {scores[int(seat)]}, random {scores[1 - int(seat)]}" in text
    assert text.endswith(f"{ANOTHER.format(episode)}\nbye\n")   # end of input: no other one


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_players_are_named_plainly_without_debug_lines(episode):
    for seat in "01":
        out = io.StringIO()
        play("greedy", ruleset="eaai", episode=episode, seed=2, seat=seat, stdin=Scripted(out), stdout=out)
        text = out.getvalue()
        assert "hand over: " in text and "your hand: " in text and "greedy" in text
        assert not re.search(r"player_[01]|to act:|\bhuman\b", text), text


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_yes_plays_another_with_the_next_seed_and_no_ends(tmp_path, episode):
    out, log = io.StringIO(), tmp_path / "two.jsonl"
    play("simple", ruleset="eaai", episode=episode, seed=6, stdin=Scripted(out, again=["y", "no"]), stdout=out,
         log=str(log))
    text = out.getvalue()
    assert text.count(ANOTHER.format(episode)) == 2 and text.endswith(f"{ANOTHER.format(episode)}bye\n")
    assert text.count(f"{episode} written to {log}") == 2
    assert text.count("\nhand 1 (eaai") >= 2 and text.count("hand over: ") >= 2
    first, second = read_records(log)
    out, alone = io.StringIO(), tmp_path / "seed7.jsonl"
    play("simple", ruleset="eaai", episode=episode, seed=7, stdin=Scripted(out), stdout=out, log=str(alone))
    assert read_records(alone) == [second] and first != second
    if episode == "hand":
        assert len(first["hands"]) == len(second["hands"]) == 1


def test_quit_and_end_of_input_leave_cleanly(tmp_path):
    for stdin in (io.StringIO("quit\n"), io.StringIO("")):
        out = io.StringIO()
        play("random", seed=1, seat="0", stdin=stdin, stdout=out, log=str(tmp_path / "none.jsonl"))
        assert out.getvalue().endswith("bye\n")
    assert (tmp_path / "none.jsonl").read_text() == ""   # no finished hand: nothing written


def test_quit_between_hands_keeps_the_finished_hand(tmp_path):
    out, log = io.StringIO(), tmp_path / "left.jsonl"

    class LeaveAfterAHand(Scripted):
        def readline(self, *args):
            return "q\n" if self.out.getvalue().endswith(NEXT_HAND) else super().readline()

    play("random", seed=4, seat="1", stdin=LeaveAfterAHand(out), stdout=out, log=str(log))
    assert out.getvalue().endswith(f"game written to {log}\n\nbye\n") and YES_NO not in out.getvalue()
    [record] = read_records(log)
    assert len(record["hands"]) == 1 and replay_record(record).game is None


def _in_terminal(args, answer, timeout=120.0):
    """Run ``ginrummy ARGS`` on a pseudo-terminal; ``answer(text_so_far)`` gives the bytes to
    type at each prompt (``"> "``, the next-hand prompt or :data:`ANOTHER`).  Returns (exit code, output)."""
    master, slave = os.openpty()
    process = subprocess.Popen([sys.executable, "-m", "train.cli", *args], stdin=slave, stdout=slave, stderr=slave,
                               cwd=ROOT, start_new_session=True)
    os.close(slave)
    text, deadline = "", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not select.select([master], [], [], 0.5)[0]:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:          # EIO: the program closed the terminal
                break
            text += chunk.decode("utf-8", "replace")
            if text.endswith(("> ", NEXT_HAND, YES_NO)):
                typed = answer(text, process)
                if typed:
                    os.write(master, typed)
        return process.wait(timeout=max(1.0, deadline - time.monotonic())), text
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)


def test_a_scripted_hand_in_a_real_terminal(tmp_path):
    log, answers = tmp_path / "hand.jsonl", ["d xx", "?"]

    def answer(text, process):
        return ((answers.pop(0) if answers else reply(text)) + "\n").encode()

    code, text = _in_terminal(["play", "--opponent", "random", "--episode", "hand", "--seed", "2", "--seat", "0",
                               "--log", str(log)], answer)
    assert code == 0, text
    assert "your hand: " in text and "your move: " in text and "'xx' is not a card" in text and "commands (" in text
    assert "score: " in text and "Traceback" not in text and "player_0" not in text and "to act:" not in text
    assert text.rstrip().endswith("bye")
    [record] = read_records(log)
    code, told = _in_terminal(["replay", str(log), "--game", "1"], lambda text, process: b"")
    assert code == 0 and told.count("player_0 (human) ") >= len(record["hands"][0]["log"]["events"]) // 2
    assert "score: " in told


@pytest.mark.parametrize("leave", ["ctrl-c", "ctrl-d"])
def test_ctrl_c_and_ctrl_d_leave_cleanly(leave):
    def answer(text, process):
        if leave == "ctrl-c":
            process.send_signal(signal.SIGINT)
            return b""
        return b"\x04"

    code, text = _in_terminal(["play", "--opponent", "random", "--seed", "1"], answer)
    assert code == 0 and "bye" in text and "Traceback" not in text, text


@pytest.mark.parametrize("command, options", [
    ("play", ["--opponent", "--ruleset", "--episode", "--seed", "--seat", "--log"]), ("replay", ["--game"]),
    ("eval", ["--replays"]), ("tournament", ["--replays"]),
])
def test_play_and_replay_options_are_documented(command, options):
    sub = next(a for a in _build_parser()._actions if a.dest == "command").choices[command]
    text = sub.format_help()
    for option in options:
        assert re.search(rf"^\s+{option}\b.*\S", text, re.M), option
    assert all(action.help for action in sub._actions)


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_eval_replays_reproduce_the_scores(tmp_path, capsys, episode):
    path = tmp_path / "eval.jsonl"
    assert main(["eval", "greedy", "simple", "--games", "4", "--episode", episode, "--ruleset", "eaai",
                 "--workers", "1", "--no-progress", "--replays", str(path)]) == 0
    records = read_records(path)
    assert [r["players"] for r in records] == [["greedy", "simple"], ["simple", "greedy"]] * 2
    for record in records:
        replayed = replay_record(record)
        assert [h.result.to_dict() for h in replayed.hands] == [hand["result"] for hand in record["hands"]]
        assert (replayed.game is not None) == (episode == "game")
    capsys.readouterr()
    assert main(["replay", str(path), "--game", "2"]) == 0
    told = capsys.readouterr().out
    assert told.startswith(f"{episode} of player_0 (simple) vs player_1 (greedy)") and "score: " in told


def test_tournament_replays_every_game_of_every_pairing(tmp_path, capsys):
    path = tmp_path / "round.jsonl"
    assert main(["tournament", "random", "simple", "greedy", "--games", "2", "--episode", "hand", "--workers", "1",
                 "--bootstrap", "20", "--no-progress", "--out-dir", str(tmp_path / "t"), "--replays", str(path)]) == 0
    records = read_records(path)
    assert len(records) == 3 * 2 and str(path) in capsys.readouterr().out
    for record in records:
        assert [h.result.to_dict() for h in replay_record(record).hands] == [h["result"] for h in record["hands"]]
