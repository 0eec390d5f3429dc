"""Play Gin Rummy in the terminal against any agent (``ginrummy play``).

The person sees only their seat's view: the screen is built from the env's observation
(:func:`ginenv.decode`) and the opponent's public moves; the opponent's cards are shown
when a hand is over.  Commands are parsed by :func:`parse_command` (syntax) and turned
into an action id by :func:`resolve` (legality, with the reason when a command is not
legal now); both raise :class:`CommandError` with a message meant for the person.

>>> parse_command("d 10h")
Command(verb='discard', card=35)
>>> parse_command("Big Gin")
Command(verb='big_gin', card=None)
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import count
from typing import Any, Optional, Sequence, TextIO

import numpy as np

import ginenv
from agents import make_agent
from ginenv.envs.episode import AGENTS
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.cards import CARD_TEXTS, InvalidCardError, parse_card
from ginenv.game.encoding import ObservationView
from ginenv.game.hand import HandState
from ginenv.game.match import GameResult, game_result
from ginenv.game.melds import deadwood, mask_of
from ginenv.game.render import arranged
from train.play.replay import game_record, move_text, rescore, score_terms, write_records

HELP = """commands (case does not matter; 10H = TH):
  take / t        take the upcard or the top of the discard pile
  draw / s        draw from the stock
  pass / p        pass on the first upcard
  d 7H            discard 7H (a bare card, 7H, discards too)
  k 7H            knock, discarding 7H face down; k alone picks the discard leaving the least deadwood
  gin             knock with no deadwood left (gin 7H names the discard)
  big gin         go out with all 11 cards melded (rulesets that allow it)
  help / ?        this list
  quit / q        leave (Ctrl-D and Ctrl-C too)"""

VERBS = {"take": "take", "t": "take", "pile": "take", "draw": "draw", "s": "draw", "stock": "draw",
         "pass": "pass", "p": "pass", "discard": "discard", "d": "discard", "knock": "knock", "k": "knock",
         "gin": "gin", "g": "gin", "biggin": "big_gin", "help": "help", "h": "help", "?": "help",
         "quit": "quit", "q": "quit", "exit": "quit"}
NEXT_HAND = "press Enter for the next hand (q leaves) "
ANOTHER = "play another {}? [y/N] "
"""Asked when a hand (``--episode hand``) or a game is over, formatted with the episode."""
CARD_VERBS = ("discard", "knock", "gin")
"""Verbs that take a card (optional for knock and gin)."""


class CommandError(ValueError):
    """A command that cannot be read, or is not legal now; the message says what to do."""


@dataclass(frozen=True)
class Command:
    """A parsed command: ``verb`` (a value of :data:`VERBS`) and a card int or None."""

    verb: str
    card: Optional[int] = None


def _is_card(text: str) -> bool:
    try:
        parse_card(text)
    except InvalidCardError:
        return False
    return True


def _card(text: str) -> int:
    try:
        return parse_card(text)
    except InvalidCardError:
        raise CommandError(f"{text!r} is not a card: rank A 2-10 J Q K (or T) and suit C D H S, e.g. 7H, 10h, QS") \
            from None


def parse_command(text: str) -> Command:
    """Read one command line (syntax only; :func:`resolve` checks it against the position).

    >>> parse_command(" TAKE "), parse_command("k7s"), parse_command("kd")
    (Command(verb='take', card=None), Command(verb='knock', card=45), Command(verb='discard', card=25))
    >>> parse_command("dance")
    Traceback (most recent call last):
    ...
    train.play.terminal.CommandError: unknown command 'dance'; type help for the commands
    """
    words = " ".join(text.lower().split()).replace("big gin", "biggin").split()
    if not words:
        raise CommandError("type a command (help lists them)")
    head, rest = words[0], words[1:]
    if head not in VERBS:
        if len(words) == 1 and _is_card(head):
            return Command("discard", parse_card(head))
        if len(words) > 1 or head[0] not in "dk" or not _is_card(head[1:]):
            raise CommandError(f"unknown command {text.strip()!r}; type help for the commands")
        head, rest = head[0], [head[1:]]
    verb = VERBS[head]
    if len(rest) > 1 or (rest and verb not in CARD_VERBS):
        raise CommandError(f"{head} takes {'one card' if verb in CARD_VERBS else 'no card'}, e.g. "
                           + ("d 7H" if verb in CARD_VERBS else head))
    if verb == "discard" and not rest:
        raise CommandError("discard which card? e.g. d 7H")
    return Command(verb, _card(rest[0]) if rest else None)


def _left(view: ObservationView, card: int) -> int:
    """The deadwood left in the hand after discarding ``card``."""
    return deadwood([c for c in view.hand if c != card])


def _top(view: ObservationView) -> str:
    return CARD_TEXTS[view.top_discard] if view.top_discard is not None else "-"


def knock_options(view: ObservationView, mask: np.ndarray) -> dict[int, int]:
    """The legal knocks: ``{discard card: deadwood left}``."""
    return {card: _left(view, card) for card in range(52) if mask[KNOCK_BASE + card]}


def _check_discard(card: int, view: ObservationView) -> None:
    """:class:`CommandError` when ``card`` may not be discarded at all (face up or down)."""
    if card not in view.hand:
        raise CommandError(f"{CARD_TEXTS[card]} is not in your hand")
    if card == view.no_discard:
        raise CommandError(f"you just took {CARD_TEXTS[card]} from the pile: discard another card (R12)")


def _phase_hint(view: ObservationView, mask: np.ndarray) -> str:
    """What may be done now, in words (for error messages)."""
    top = _top(view)
    if view.phase == "offer":
        return f"the upcard {top} is offered to you: take or pass"
    if view.phase == "draw":
        return f"draw from the stock or take {top}" if mask[TAKE_DISCARD] else \
            "both passed the upcard: draw from the stock"
    return "discard a card (d 7H) or knock (k 7H)"


def _knock(command: Command, view: ObservationView, mask: np.ndarray) -> int:
    """The knock (or gin) ``command`` asks for."""
    options = knock_options(view, mask)
    if command.verb == "gin":
        options = {card: left for card, left in options.items() if left == 0}
    if command.card is None:
        if not options:
            least = min(_left(view, card) for card in view.hand)
            word = "gin" if command.verb == "gin" else f"knock (limit {view.knock_limit})"
            raise CommandError(f"no {word}: the best discard leaves {least} deadwood")
        card = min(options, key=lambda c: (options[c], -c))
    else:
        card = command.card
        _check_discard(card, view)
        if card not in options:
            limit = 0 if command.verb == "gin" else view.knock_limit
            raise CommandError(f"discarding {CARD_TEXTS[card]} leaves {_left(view, card)} deadwood, over the limit "
                               f"{limit}")
    return KNOCK_BASE + card


def resolve(command: Command, view: ObservationView, mask: np.ndarray) -> int:
    """The action id of a move command in this position, or :class:`CommandError` saying
    why it is not legal now (``help`` and ``quit`` are not moves)."""
    if command.verb in ("help", "quit"):
        raise ValueError(f"{command.verb} is not a move")
    fixed = {"take": TAKE_DISCARD, "draw": DRAW_STOCK, "pass": PASS, "big_gin": BIG_GIN}
    if command.verb in fixed:
        action = fixed[command.verb]
        if mask[action]:
            return action
        if command.verb == "big_gin" and view.phase == "discard":
            raise CommandError("big gin needs all 11 cards melded" if view.ruleset.big_gin else
                               f"big gin is not allowed in ruleset {view.ruleset.name}")
        raise CommandError(f"not now: {_phase_hint(view, mask)}")
    if view.phase != "discard":
        raise CommandError(f"not now: {_phase_hint(view, mask)}")
    if command.verb != "discard":
        return _knock(command, view, mask)
    _check_discard(command.card, view)  # type: ignore[arg-type]
    return DISCARD_BASE + command.card  # type: ignore[operator]


def _cards(cards: Sequence[int]) -> str:
    return " ".join(CARD_TEXTS[c] for c in sorted(cards, key=lambda c: (c % 13, c // 13))) or "-"


def choices_text(view: ObservationView, mask: np.ndarray) -> str:
    """The legal choices as commands.

    >>> env = ginenv.raw_env(); env.reset(seed=0)
    >>> observation = env.observe(env.agent_selection)
    >>> choices_text(ginenv.decode(observation), observation["action_mask"])
    'take TD | pass'
    """
    top = _top(view)
    if view.phase != "discard":
        named = {DRAW_STOCK: "draw", TAKE_DISCARD: f"take {top}", PASS: "pass"}
        return " | ".join(text for action, text in named.items() if mask[action])
    parts = ["d CARD" + (f" (not {CARD_TEXTS[view.no_discard]}, just taken)" if view.no_discard is not None else "")]
    knocks = knock_options(view, mask)
    if knocks:
        parts.append("k " + ", k ".join(f"{CARD_TEXTS[c]} ({left})" for c, left in sorted(knocks.items(),
                                                                                         key=lambda i: i[1])))
    if 0 in knocks.values():
        parts.append("gin")
    if mask[BIG_GIN]:
        parts.append("big gin")
    return " | ".join(parts)


def screen(view: ObservationView, mask: np.ndarray, names: Sequence[str], seat: int, hand_number: int,
           news: Sequence[str]) -> str:
    """What the person sees before a decision: the game's state from their seat only;
    ``news`` are lines on what happened since their last decision.

    >>> env = ginenv.raw_env(); env.reset(seed=0)
    >>> observation = env.observe(env.agent_selection)   # player_0: player_1 dealt
    >>> print(screen(ginenv.decode(observation), observation["action_mask"], ("you", "greedy"), 0, 1, []))
    hand 1 (pagat, knock limit 10) | greedy deals
    pile: TD on top, 0 under it | stock: 31 cards
    your hand: no melds | deadwood 2C 5C 6D 6S 8D 9D 9H TH JD KH = 75
    your move: take TD | pass
    """
    other = names[1 - seat]
    lines = [f"hand {hand_number} ({view.ruleset.name}, knock limit {view.knock_limit}) | "
             + ("you deal" if view.is_dealer else f"{other} deals")]
    if view.game_mode:
        lines[0] += f" | score: you {view.scores[0]}, {other} {view.scores[1]} (game to {view.target})"
    lines.extend(news)
    if view.opp_picked or view.opp_declined:
        lines.append(f"{other} holds from the pile: {_cards(view.opp_picked)} "
                     f"| passed over: {_cards(view.opp_declined)}")
    lines.append(f"pile: {_top(view)} on top, {len(view.pile_rest)} under it | stock: {view.stock_size} cards")
    lines.append(f"your hand: {arranged(mask_of(view.hand))}")
    lines.append(f"your move: {choices_text(view, mask)}")
    return "\n".join(lines)


class Quit(Exception):
    """The person left (quit, end of input, Ctrl-C)."""


def ask(stdin: TextIO, stdout: TextIO, prompt: str) -> str:
    """One line from the person (without its newline); :class:`Quit` at the end of input."""
    stdout.write(prompt)
    stdout.flush()
    line = stdin.readline()
    if not line:
        raise Quit
    return line.rstrip("\n")


def human_action(observation: dict[str, np.ndarray], stdin: TextIO, stdout: TextIO) -> int:
    """Ask until the person gives a legal move; ``help`` prints the commands, ``quit`` leaves."""
    view, mask = ginenv.decode(observation), observation["action_mask"]
    while True:
        try:
            command = parse_command(ask(stdin, stdout, "> "))
            if command.verb == "quit":
                raise Quit
            if command.verb == "help":
                stdout.write(HELP + f"\nnow: {choices_text(view, mask)}\n")
                continue
            return resolve(command, view, mask)
        except CommandError as err:
            stdout.write(f"{err}\n")


class Table:
    """A person's game (or hand) against the agent ``opponent``, moved on one decision at a
    time; the terminal (:func:`play`) and the web page (:mod:`train.play.serve`) drive it.

    The agent's turns are played as soon as it is to act.  ``seat`` is the person's
    (``"0"``, ``"1"`` or ``"random"``); ``seed`` fixes the seat draw, the deals and the agent.
    After each hand the table waits (``between_hands``) for :meth:`next_hand`; ``finished``
    holds the hands played with their ``hand_result`` infos, ``game`` the game's result once
    it is over.

    >>> table = Table("simple", episode="hand", seed=3, seat="0")
    >>> table.names, table.over, table.between_hands
    (('you', 'simple'), False, False)
    >>> while not table.over:
    ...     table.move(int(np.flatnonzero(table.observation()["action_mask"])[0]))
    >>> len(table.finished), table.between_hands
    (1, True)
    """

    def __init__(self, opponent: str, *, ruleset: str = "pagat", episode: str = "game", seed: Optional[int] = None,
                 seat: str = "random") -> None:
        rng = np.random.default_rng(seed)
        self.me = int(rng.integers(2)) if seat == "random" else int(seat)
        self.agent = make_agent(opponent, seed=int(rng.integers(2**31)))
        self.env = ginenv.raw_env(ruleset=ruleset, episode=episode)
        self.env.reset(seed=int(rng.integers(2**31)))
        names = ("you", opponent)
        self.names: tuple[str, str] = names if self.me == 0 else names[::-1]
        self.players = ["human", opponent] if self.me == 0 else [opponent, "human"]
        self.news: list[str] = []
        self.finished: list[tuple[HandState, dict[str, Any]]] = []
        self.game: Optional[GameResult] = None
        self.between_hands = False
        self.agent.reset()
        self._agent_turns()

    @property
    def over(self) -> bool:
        """Whether the episode (the game, or the single hand) has ended."""
        name = self.env.agent_selection
        return bool(self.env.terminations[name] or self.env.truncations[name])

    @property
    def scores(self) -> list[int]:
        """Running points by seat over the finished hands."""
        return rescore([hand.result for hand, _ in self.finished])  # type: ignore[misc]

    def observation(self) -> dict[str, np.ndarray]:
        """The person's observation (their action mask is all zeros when they are not to act)."""
        return self.env.observe(AGENTS[self.me])

    def take_news(self) -> list[str]:
        """What happened since the last call, in words (and forget it)."""
        news, self.news = self.news, []
        return news

    def record(self) -> dict[str, Any]:
        """The finished hands as a game record (:func:`train.play.replay.game_record`)."""
        return game_record(self.players, self.env.ruleset, self.env.episode, [hand.log() for hand, _ in self.finished],
                           [result for _, result in self.finished])

    def move(self, action: int) -> None:
        """The person's move (a legal action id), then the agent's turns."""
        if self.over or self.between_hands or AGENTS.index(self.env.agent_selection) != self.me:
            raise ValueError("it is not your turn")
        before = ginenv.decode(self.observation()).hand
        hand = self._step(action)
        if action == DRAW_STOCK and not hand.is_over:
            self.news.append(f"you drew {_cards(set(ginenv.decode(self.observation()).hand) - set(before))}")
        self._agent_turns()

    def next_hand(self) -> None:
        """Leave the finished hand's summary: the next hand of the game starts."""
        if self.over or not self.between_hands:
            raise ValueError("no hand is waiting to start")
        self.between_hands = False
        self.agent.reset()
        self._agent_turns()

    def _agent_turns(self) -> None:
        """The agent's moves until the person is to act or a hand ends."""
        while not (self.over or self.between_hands) and AGENTS.index(self.env.agent_selection) != self.me:
            observation = self.env.observe(self.env.agent_selection)
            action, top = self.agent.act(observation), self.env.hand.top_discard
            self._step(action)
            self.news.append(f"{self.names[1 - self.me]} {move_text(action, top)}")

    def _step(self, action: int) -> HandState:
        """Apply ``action`` of the seat to act; note a hand that ends.  Returns that hand."""
        name, hand = self.env.agent_selection, self.env.hand
        self.env.step(action)
        info = self.env.infos[name]
        if "hand_result" in info:
            self.finished.append((hand, info["hand_result"]))
            self.between_hands = True
            if "game_result" in info:
                self.game = game_result(self.env.ruleset, self.scores, info["game_result"]["hands_won"])
        return hand


def _says(names: Sequence[str], seat: int, verb: str) -> str:
    """``seat``'s name with ``verb`` agreeing: "you win", "greedy wins"."""
    return f"you {verb}" if names[seat] == "you" else f"{names[seat]} {verb}s"


def _melds(melds: Sequence[Sequence[int]]) -> str:
    return " ".join("[" + _cards(meld) + "]" for meld in melds) or "no melds"


def hand_end_text(hand: HandState, names: Sequence[str]) -> str:
    """A finished hand for the person: the result, both hands in melds, what was shown and
    laid off, and how the score came about; ``names`` by seat, the person's ``"you"``.

    >>> hand = HandState.random(np.random.default_rng(5))
    >>> while not hand.is_over:
    ...     hand.apply_action(hand.legal_actions()[-1])
    >>> print(hand_end_text(hand, ("you", "greedy")))
    hand over: knock, you score 54
    your hand: [AH 2H 3H] [TC TD TH TS] | deadwood AS 4S 5D = 10
    greedy's hand: no melds | deadwood 2S 3C 4H 6D 7C 7H 9H JH JS KC = 68
    you show [AH 2H 3H] [TC TD TH TS], deadwood 10
    greedy shows no melds, laying off 4H, deadwood 64
    score: knock by you: deadwood of greedy 64 - deadwood of you 10 = 54 points to you
    """
    result = hand.result
    if result is None:
        raise ValueError("the hand is not over")
    if result.winner is None:
        lines = ["hand over: " + ("truncated by the turn limit" if result.truncated else "dead hand") + ", no score"]
    else:
        lines = [f"hand over: {result.outcome.replace('_', ' ')}, {_says(names, result.winner, 'score')} "
                 f"{result.points}" + (" (doubled: spade upcard)" if result.doubled else "")]
    lines += [("your" if names[seat] == "you" else f"{names[seat]}'s") + f" hand: {arranged(hand.hands[seat])}"
              for seat in sorted((0, 1), key=lambda seat: names[seat] != "you")]
    if result.knocker is not None:
        knocker, defender = result.knocker, 1 - result.knocker
        lines.append(f"{_says(names, knocker, 'show')} {_melds(result.knocker_melds)}, deadwood "
                     f"{result.knocker_deadwood}")
        lines.append(f"{_says(names, defender, 'show')} {_melds(result.defender_melds)}, "
                     + (f"laying off {_cards(result.layoffs)}, " if result.layoffs else "")
                     + f"deadwood {result.defender_deadwood}")
    text, value = score_terms(result, hand.ruleset, names)
    lines.append(f"score: {text} = {value} points to {names[result.winner]}" if result.winner is not None else
                 f"score: {text}, no points")
    return "\n".join(lines)


def game_end_text(game: GameResult, names: Sequence[str]) -> str:
    """The end of a game for the person: who won, the points and bonuses, the final scores;
    ``names`` by seat, the person's ``"you"``.

    >>> from ginenv.game.rules import Ruleset
    >>> print(game_end_text(game_result(Ruleset(), [0, 104], [0, 3]), ("greedy", "you")))
    game over: you win (shutout)
      points: you 104, greedy 0 | box bonus: you 60, greedy 0 | game bonus 200 to you
      final score: you 364, greedy 0
    """
    me = names.index("you")

    def both(values: Sequence[int]) -> str:
        return f"you {values[me]}, {names[1 - me]} {values[1 - me]}"
    return (f"game over: {_says(names, game.winner, 'win')}" + (" (shutout)" if game.shutout else "") + "\n"
            f"  points: {both(game.scores)} | box bonus: {both(game.box_bonus)} | game bonus {game.game_bonus} to "
            f"{names[game.winner]}\n  final score: {both(game.final_scores)}")


def play(opponent: str, *, ruleset: str = "pagat", episode: str = "game", seed: Optional[int] = None,
         seat: str = "random", stdin: TextIO, stdout: TextIO, log: Optional[str] = None) -> None:
    """Games (or hands) of a person against the agent ``opponent`` in the terminal (the
    arguments as :class:`Table`'s), another one after each while the person answers yes
    to :data:`ANOTHER`, the k-th with seed ``seed + k``.  ``log``: append each game to
    this JSON-lines file as its own record (also one left early, when a hand of it was
    finished)."""
    if log is not None:
        open(log, "a", encoding="utf-8").close()  # an unwritable path fails now, not after the game
    try:
        for number in count():
            table = Table(opponent, ruleset=ruleset, episode=episode, seed=None if seed is None else seed + number,
                          seat=seat)
            try:
                _play_game(table, stdin, stdout)
            finally:
                if log is not None and table.finished:
                    write_records(log, [table.record()], append=True)
                    stdout.write(f"{episode} written to {log}\n")
            if ask(stdin, stdout, ANOTHER.format(episode)).strip().lower() not in ("y", "yes"):
                break
    except (Quit, KeyboardInterrupt):
        stdout.write("\n")
    stdout.write("bye\n")


def _play_game(table: Table, stdin: TextIO, stdout: TextIO) -> None:
    """The terminal's loop: the person's screens and moves, each hand's summary, until the
    episode ends."""
    names, other = table.names, table.names[1 - table.me]
    while True:
        if not table.between_hands:
            observation = table.observation()
            stdout.write("\n" + screen(ginenv.decode(observation), observation["action_mask"], table.names, table.me,
                                       len(table.finished) + 1, table.take_news()) + "\n")
            table.move(human_action(observation, stdin, stdout))
            continue
        hand = table.finished[-1][0]
        stdout.write("\n" + "".join(line + "\n" for line in table.take_news()) + hand_end_text(hand, names) + "\n")
        if table.env.episode == "game":
            scores = table.scores
            stdout.write(f"running score: you {scores[table.me]}, {other} {scores[1 - table.me]}\n")
        if table.game is not None:
            stdout.write(game_end_text(table.game, names) + "\n")
        if table.over:
            return
        if VERBS.get(ask(stdin, stdout, NEXT_HAND).strip().lower()) == "quit":
            raise Quit
        table.next_hand()
