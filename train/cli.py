"""The ``ginrummy`` command line.

Sub-commands:

* ``simulate`` — play random legal hands through the engine and print how they ended.
* ``eval`` — agent A against agent B in mirrored pairs: win rate with a pair-cluster
  interval, sign test, per-hand figures (:mod:`train.evaluation.evaluate`).
* ``tournament`` — a round robin with Bradley–Terry ratings on the Elo scale, saved as
  JSON, CSV and PNG (:mod:`train.evaluation.tournament`).
* ``train`` — self-play PPO from a YAML config (:mod:`train.training.ppo`), or ``--resume`` a run.
* ``exploit`` — a best response trained against a frozen agent: its win rate over time
  (:mod:`train.training.exploit`).
* ``curves`` — a run's TensorBoard scalars as ``curves.csv`` and ``curves.png`` (:mod:`train.training.curves`).
* ``league`` — the opponent pool in a run's newest checkpoint: shares, snapshots, PFSP chances
  (:meth:`train.training.league.League.pool`).
* ``play`` — a person against an agent in the terminal (:mod:`train.play.terminal`).
* ``replay`` — recorded games told step by step (:mod:`train.play.replay`).
* ``serve`` — a local web page: play an agent, step through a replay file (:mod:`train.play.serve`).
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
from tqdm import tqdm

from ginenv.envs.aec import EPISODES
from ginenv.game.hand import HandState
from ginenv.game.rules import PRESETS, resolve_ruleset


def simulate(hands: int, ruleset: str, seed: int, progress: bool = True) -> dict:
    """Play ``hands`` uniformly random legal hands; return outcome counts and speed.

    >>> simulate(3, "pagat", 0, progress=False)["hands"]
    3
    """
    rules = resolve_ruleset(ruleset)
    rng = np.random.default_rng(seed)
    outcomes: Counter = Counter()
    decisions = 0
    start = time.perf_counter()
    for _ in tqdm(range(hands), desc="hands", disable=not progress, unit="hand"):
        state = HandState.random(rng, rules)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
        result = state.result
        outcomes["truncated" if result.truncated else result.outcome] += 1  # type: ignore[union-attr]
    elapsed = time.perf_counter() - start
    return {"hands": hands, "ruleset": rules.name, "seed": seed, "outcomes": dict(outcomes),
            "decisions": decisions, "decisions_per_s": decisions / elapsed if elapsed else float("inf")}


AGENT_HELP = ('agent spec "name" or "name:key=value,...", e.g. "random" or "montecarlo:samples=64" '
              "(see agents.make_agent)")


def _bounded(kind: type, minimum: float, label: str) -> Any:
    """An argparse type: ``kind(text)`` that must be at least ``minimum`` (``label`` names it)."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {label}, got {text!r}") from None
        if not (value >= minimum and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be a finite {label}, got {text}")
        return value
    parse.__name__ = label.replace(" ", "_")
    return parse


_positive_int = _bounded(int, 1, "positive integer")
_non_negative_int = _bounded(int, 0, "non-negative integer")
_non_negative_float = _bounded(float, 0.0, "non-negative number")
_positive_float = _bounded(float, 1e-6, "positive number")


def _check_writable_dir(path: str, option: str) -> None:
    """A ``ValueError`` naming ``option`` unless ``path`` is a writable folder or can be made
    one (its nearest existing ancestor is a writable folder); checked before any game."""
    target = Path(path).absolute()
    existing = next(p for p in (target, *target.parents) if p.exists())
    if not _writable_folder(existing):
        raise ValueError(f"{option} {path}: {existing} is not a writable folder")


def _check_writable_file(path: str, option: str) -> None:
    """A ``ValueError`` naming ``option`` unless the file ``path`` can be written (its folder
    exists and is writable; an existing file is a writable plain file)."""
    target = Path(path).absolute()
    if target.is_dir() or target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{option} {path}: not a writable file")
    if not _writable_folder(target.parent):
        raise ValueError(f"{option} {path}: the folder {target.parent} is not a writable folder")


def _writable_folder(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def _add_match_options(parser: argparse.ArgumentParser, games_help: str) -> None:
    parser.add_argument("--games", type=_positive_int, default=200, metavar="N",
                        help=games_help + " (default 200; an odd N is rounded up to whole mirrored pairs)")
    parser.add_argument("--ruleset", choices=sorted(PRESETS), default="pagat", help="rules preset (default pagat)")
    parser.add_argument("--episode", choices=EPISODES, default="game",
                        help="what one game is: a whole game to the target, or a single hand, where a dead "
                             "hand is a draw worth 1/2 (default game)")
    parser.add_argument("--seed", type=_non_negative_int, default=0, metavar="S",
                        help="evaluation seed: deals and agent seeds derive from it; the same seed gives the "
                             "same results for any --workers (default 0)")
    parser.add_argument("--workers", type=_positive_int, default=None, metavar="K",
                        help="processes to play in (default: all CPU cores; with --backend ray, the cluster's)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="play in local processes, or as Ray tasks on the cluster at RAY_ADDRESS (else a Ray "
                             "runtime on this machine; needs pip install -e '.[ray]'); the same results "
                             "(default local)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _add_game_options(parser: argparse.ArgumentParser, default_note: str, seed_help: str) -> None:
    """``--opponent``, ``--ruleset``, ``--episode`` and ``--seed`` of a person's game
    (``play`` and ``serve``); ``default_note`` follows the defaults' help."""
    parser.add_argument("--opponent", metavar="SPEC", default="greedy",
                        help=AGENT_HELP + f" (default greedy{default_note})")
    parser.add_argument("--ruleset", choices=sorted(PRESETS), default="pagat", help="rules preset (default pagat)")
    parser.add_argument("--episode", choices=EPISODES, default="game",
                        help="a whole game to the target, or a single hand (default game)")
    parser.add_argument("--seed", type=_non_negative_int, default=None, metavar="S", help=seed_help)


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ginrummy", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play random legal hands and print how they ended")
    sim.add_argument("--hands", type=_positive_int, default=2000, help="number of hands to play (default 2000)")
    sim.add_argument("--ruleset", choices=sorted(PRESETS), default="pagat", help="rules preset (default pagat)")
    sim.add_argument("--seed", type=_non_negative_int, default=0, help="seed of the shuffles and the random players")
    sim.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    ev = sub.add_parser(
        "eval", help="agent A against agent B in mirrored pairs",
        description="Play agent A against agent B in mirrored pairs (each deal stream twice, seats swapped) "
                    "and report A's win rate with a 95% pair-cluster confidence interval (Student t on the "
                    "pair means; Wilson over pairs when that is degenerate), an exact two-sided sign test over "
                    "the pairs one side won in both seats, points per hand, gin / undercut / dead-hand rates, "
                    "mean hand length and decisions per second.")
    ev.add_argument("agent_a", metavar="A", help=AGENT_HELP)
    ev.add_argument("agent_b", metavar="B", help="the opponent's agent spec")
    _add_match_options(ev, "games to play")
    ev.add_argument("--json", metavar="PATH", default=None, help="also write the full result to this JSON file")
    ev.add_argument("--replays", metavar="FILE", default=None,
                    help="write every game to this JSON-lines file (`ginrummy replay FILE` tells them)")

    tour = sub.add_parser(
        "tournament", help="round robin with Bradley-Terry (Elo-scale) ratings",
        description="Play every pair of agents in mirrored pairs, fit Bradley-Terry ratings on the Elo scale "
                    "(mean 1500; draws count as half wins) with 95% intervals, print the table and write "
                    "ratings.json, ratings.csv and ratings.png into --out-dir.")
    tour.add_argument("agents", metavar="AGENT", nargs="+", help=AGENT_HELP + "; at least two; a repeated spec "
                      "is labelled name#2, name#3, ...")
    _add_match_options(tour, "games per pairing")
    tour.add_argument("--replays", metavar="FILE", default=None,
                      help="write every game to this JSON-lines file (`ginrummy replay FILE` tells them)")
    tour.add_argument("--out-dir", metavar="DIR", default="tournament",
                      help="where to write ratings.json, ratings.csv and ratings.png (default ./tournament)")
    tour.add_argument("--intervals", choices=("bootstrap", "fisher"), default="bootstrap",
                      help="rating intervals: percentiles of a Bayesian bootstrap over mirrored pairs, or Wald "
                           "intervals from the Fisher information (default bootstrap)")
    tour.add_argument("--bootstrap", type=_positive_int, default=1000, metavar="N",
                      help="bootstrap samples (default 1000)")
    tour.add_argument("--prior", type=_non_negative_float, default=1.0, metavar="G",
                      help="virtual drawn games added to every pairing, keeping ratings finite when an agent "
                           "wins or loses everything (default 1; 0 = plain maximum likelihood)")

    tr = sub.add_parser(
        "train", help="self-play PPO training from a YAML config",
        description="Train a policy with self-play PPO. Outputs go to OUT/NAME: config.yaml (the resolved config), "
                    "tb/ (TensorBoard: tensorboard --logdir OUT), checkpoints/, best.pt, final.pt, eval.jsonl, "
                    "summary.json. --resume RUN_DIR continues a stopped run exactly where its last checkpoint "
                    "left it. `ginrummy train --list-keys` prints every config key with its meaning.")
    tr.add_argument("config", metavar="CONFIG", nargs="?", default=None,
                    help="YAML config (e.g. configs/smoke.yaml); omitted: all defaults")
    tr.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], dest="overrides",
                    help="override one key, e.g. --set ppo.lr=1e-4 (repeatable; the value is read as YAML)")
    tr.add_argument("--out", metavar="DIR", default="runs", help="folder of runs (default ./runs)")
    tr.add_argument("--name", metavar="NAME", default=None, help="run name (default: the config's name)")
    tr.add_argument("--resume", metavar="RUN_DIR", default=None,
                    help="continue this run from its newest checkpoint (no CONFIG; --set only for the keys that are "
                         "safe to change, e.g. eval.every, ppo.total_steps)")
    tr.add_argument("--stop-after", metavar="UPDATES", type=_positive_int, default=None,
                    help="stop (with a checkpoint) once the run has done this many updates in total; resume later")
    tr.add_argument("--time-limit", metavar="MINUTES", type=_positive_float, default=None,
                    help="stop cleanly (checkpoint, final.pt, summary.json, curves) after this many minutes of this "
                         "session; --resume goes on (default: the config's time_limit)")
    tr.add_argument("--list-keys", action="store_true", help="print every config key with its meaning and exit")
    tr.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    ex = sub.add_parser(
        "exploit", help="train a best response against a frozen agent and report how much it wins",
        description="Exploitability of an agent: train a fresh PPO learner whose only opponent is AGENT (fixed in "
                    "the other seat) for --minutes, evaluating it against AGENT every --eval-every updates "
                    "(games to the target, mirrored pairs, 95% intervals), then score the final exploiter over "
                    "--final-games games on fresh deals. Prints the win rate over time; the run (checkpoints, "
                    "TensorBoard, curves) is in OUT/NAME and the report in OUT/NAME/exploit.json.")
    ex.add_argument("agent", metavar="AGENT", help="the agent to exploit: " + AGENT_HELP)
    ex.add_argument("--minutes", type=_positive_float, default=60.0, metavar="M",
                    help="training time of the exploiter (default 60)")
    ex.add_argument("--ruleset", choices=sorted(PRESETS), default="pagat", help="rules preset (default pagat)")
    ex.add_argument("--games", type=_positive_int, default=100, metavar="N",
                    help="games of each evaluation during training (default 100)")
    ex.add_argument("--episode", choices=EPISODES, default="game",
                    help="what one game of the evaluations is: a whole game to the target, or a single hand "
                         "(default game)")
    ex.add_argument("--eval-every", type=_positive_int, default=25, metavar="U",
                    help="updates between evaluations (default 25)")
    ex.add_argument("--final-games", type=_positive_int, default=400, metavar="N",
                    help="games of the final exploiter's score (default 400)")
    ex.add_argument("--seed", type=_non_negative_int, default=0, metavar="S", help="seed of the run and the scores")
    ex.add_argument("--out", metavar="DIR", default="runs", help="folder of runs (default ./runs)")
    ex.add_argument("--name", metavar="NAME", default=None, help="run name (default exploit_AGENT)")
    ex.add_argument("--config", metavar="YAML", default=None,
                    help="base config of the learner (default: the trainer's defaults, privileged critic, deadwood "
                         "shaping); the league, evaluation and budget are set by this command")
    ex.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], dest="overrides",
                    help="override a config key, e.g. --set init=agents/weights/ppo.pt (repeatable)")
    ex.add_argument("--workers", type=_positive_int, default=None, metavar="K",
                    help="processes of the final score (default: all CPU cores)")
    ex.add_argument("--json", metavar="PATH", default=None, help="also write the report to this JSON file")
    ex.add_argument("--no-progress", action="store_true", help="hide the progress bars")

    be = sub.add_parser(
        "belief", help="train an opponent model (which cards the opponent holds) for rollout:belief=PATH",
        description="Record POSITIONS decisions of a policy playing both seats (actions drawn from it), each "
                    "labelled with the opponent's true hand, train a network that guesses that hand from the "
                    "observation alone, and save it to OUT. Prints its held-out loss beside the even guess of a "
                    "uniform deal of the unseen cards (the figure to beat).")
    be.add_argument("--out", metavar="PATH", required=True, help="the belief file to write")
    be.add_argument("--policy", metavar="PATH", default=None,
                    help="the policy whose games are recorded (default: the shipped ppo of the ruleset)")
    be.add_argument("--ruleset", choices=sorted(PRESETS), default="pagat", help="rules preset (default pagat)")
    be.add_argument("--positions", type=_positive_int, default=300_000, metavar="N",
                    help="decisions recorded (default 300000: about a minute, 870 MB)")
    be.add_argument("--epochs", type=_positive_int, default=4, metavar="E", help="passes over them (default 4)")
    be.add_argument("--hidden", type=_positive_int, default=128, metavar="W", help="layer width (default 128)")
    be.add_argument("--layers", type=_positive_int, default=2, metavar="L", help="hidden layers (default 2)")
    be.add_argument("--seed", type=_non_negative_int, default=0, metavar="S", help="seed of the games and the fit")
    be.add_argument("--most-likely", action="store_true",
                    help="record the policy's most likely actions (as ppo plays) instead of actions drawn from it")
    be.add_argument("--no-progress", action="store_true", help="hide the progress bars")

    cu = sub.add_parser("curves", help="export a run's learning curves to CSV and PNG",
                        description="Read RUN_DIR/tb and write RUN_DIR/curves.csv (one row per update, one column "
                                    "per TensorBoard tag) and RUN_DIR/curves.png (evaluation win rates with "
                                    "intervals, entropy, learner reward, hand outcomes); after a behaviour-cloning "
                                    "warm start also RUN_DIR/clone_curves.csv (one row per cloning epoch), "
                                    "drawn in the PNG too. Rows an earlier CSV holds and RUN_DIR/tb no longer does "
                                    "(a run folder copied without tb/ and resumed) are kept.")
    cu.add_argument("run_dir", metavar="RUN_DIR", help="a run folder written by `ginrummy train`")

    lg = sub.add_parser("league", help="the opponent pool in a run's newest checkpoint",
                        description="Read RUN_DIR/config.yaml and the newest full checkpoint in RUN_DIR/checkpoints "
                                    "and print the league the run trains against now: each opponent's share of new "
                                    "episodes and, for every snapshot (oldest first), the update it was taken after, "
                                    "the learner's recent episodes and mean score against it (1 win, 0.5 draw, 0 "
                                    "loss) and its chance of being drawn in a snapshot episode (PFSP).")
    lg.add_argument("run_dir", metavar="RUN_DIR", help="a run folder written by `ginrummy train`")
    lg.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")

    pl = sub.add_parser("play", help="play against an agent in the terminal",
                        description="Play Gin Rummy in the terminal against an agent. The screen shows your hand "
                                    "in its best melds with the deadwood count, the pile, the stock and what the "
                                    "opponent took or passed over; type help at the prompt for the commands. "
                                    "When the game (or with --episode hand the hand) is over, it asks whether "
                                    "to play another.")
    _add_game_options(pl, "", "seed of the first game: deals, seat draw and agent (the k-th game gets S + k; "
                              "default: fresh each time)")
    pl.add_argument("--seat", choices=("0", "1", "random"), default="random", help="your seat (default random)")
    pl.add_argument("--log", metavar="FILE", default=None,
                    help="append each game (or hand) to this JSON-lines file as its own record (replay them "
                         "with `ginrummy replay FILE`)")

    rp = sub.add_parser("replay", help="tell recorded games step by step",
                        description="Replay the games of a JSON-lines file written by `ginrummy play --log`: "
                                    "every hand from the deal, both hands open, move by move, with the result "
                                    "and the score recomputed from the moves. The whole file is checked against "
                                    "the engine first (moves, players, drawn cards, results, the target; at most "
                                    "64 MiB): a file that does not fit is refused, naming the line, with exit "
                                    "code 2.")
    rp.add_argument("file", metavar="FILE", help="a JSON-lines file of game records")
    rp.add_argument("--game", type=_positive_int, default=None, metavar="N",
                    help="only the N-th game of the file (default: all)")

    sv = sub.add_parser("serve", help="a local web page: play an agent, step through replays",
                        description="Serve a web page (standard library only) on which you play against an agent "
                                    "with clickable cards, and step through the games of a replay file with both "
                                    "hands shown. Open the address it prints; Ctrl-C stops it. Only that page "
                                    "may use the server: requests naming another host, coming from another "
                                    "site, not sent as JSON or without the page's token are refused (403, 415).")

    def port(text: str) -> int:
        """An argparse type: a TCP port number."""
        value = _non_negative_int(text)
        if value > 65535:
            raise argparse.ArgumentTypeError(f"must be a port number from 0 to 65535, got {text}")
        return value
    sv.add_argument("--port", type=port, default=8765, metavar="P",
                    help="port to listen on (default 8765; 0 picks a free one)")
    sv.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1: this machine only; the server has no login)")
    _add_game_options(sv, "; the page offers it and the shipped agents",
                      "seed of the first game: seat draw, deals and agent (the k-th game gets S + k; default: fresh "
                      "each time)")
    sv.add_argument("--replay", metavar="FILE", default=None,
                    help="a JSON-lines file of game records to step through (from play --log or eval --replays)")
    sv.add_argument("--decision-timeout", type=_positive_float, default=5.0, metavar="SECONDS",
                    help="how long a request waits for the opponent's moves before the page is told to ask again "
                         "(the agent goes on thinking; other games are served meanwhile; default 5)")
    return parser


def _run_play(args: argparse.Namespace) -> int:
    from train.play.terminal import play

    play(args.opponent, ruleset=args.ruleset, episode=args.episode, seed=args.seed, seat=args.seat,
         stdin=sys.stdin, stdout=sys.stdout, log=args.log)
    return 0


def _run_replay(args: argparse.Namespace) -> int:
    from train.play.replay import account, read_records

    records = read_records(args.file)
    if args.game is not None and args.game > len(records):
        raise ValueError(f"--game {args.game}: {args.file} holds {len(records)} game(s)")
    chosen = records if args.game is None else [records[args.game - 1]]
    for record in chosen:
        print("\n".join(account(record)))
    return 0


def _run_serve(args: argparse.Namespace) -> int:
    from train.play.serve import serve

    serve(args.host, args.port, opponent=args.opponent, ruleset=args.ruleset, episode=args.episode, seed=args.seed,
          replay=args.replay, decision_timeout=args.decision_timeout)
    return 0


def _run_exploit(args: argparse.Namespace) -> int:
    from train.training.exploit import exploit, format_report

    if args.json:
        _check_writable_file(args.json, "--json")
    report = exploit(args.agent, minutes=args.minutes, ruleset=args.ruleset, seed=args.seed, games=args.games,
                     eval_every=args.eval_every, final_games=args.final_games, out=Path(args.out), name=args.name,
                     config=args.config, overrides=args.overrides, workers=args.workers, episode=args.episode,
                     progress_bar=not args.no_progress)
    print(format_report(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


def _run_belief(args: argparse.Namespace) -> int:
    from train.training.belief import train_belief

    _check_writable_file(args.out, "--out")
    figures = train_belief(Path(args.out), policy=args.policy, positions=args.positions, epochs=args.epochs,
                           hidden=args.hidden, layers=args.layers, seed=args.seed, ruleset=args.ruleset,
                           sample=not args.most_likely, progress_bar=not args.no_progress)
    print(f"opponent model {args.out}: held-out loss {figures['held_out_loss']:.4f} (the even guess of a uniform "
          f"deal {figures['even_loss']:.4f}, a guess blind to the observation {figures['blind_loss']:.4f}; "
          f"{figures['positions']:,.0f} positions)")
    return 0


def _run_curves(args: argparse.Namespace) -> int:
    from train.training.curves import export

    paths = export(args.run_dir)
    print("written: " + ", ".join(str(p) for p in paths))
    return 0


def _run_league(args: argparse.Namespace) -> int:
    from train.training.checkpoint import latest_full
    from train.training.config import load_config
    from train.training.league import League

    run_dir = Path(args.run_dir)
    if not (run_dir / "config.yaml").is_file():
        raise ValueError(f"{str(run_dir)!r} is not a run folder (no config.yaml)")
    if args.json:
        _check_writable_file(args.json, "--json")
    cfg = load_config(run_dir / "config.yaml")
    data = latest_full(run_dir / "checkpoints")
    if data is None:
        raise ValueError(f"no full checkpoint in {str(run_dir / 'checkpoints')!r} yet")
    league = League(cfg.league, cfg.seed, cfg.policy)
    league.load_state(data["league"], data["update"])
    report = {"run": str(run_dir), "update": data["update"], "decisions": data["global_step"], **league.pool()}
    print(f"league of {run_dir} at update {report['update']:,} ({report['decisions']:,} decisions)")
    print("share of new episodes: " + ", ".join(f"{name} {share:.1%}" for name, share in report["opponents"].items()))
    print(f"{len(report['snapshots'])} snapshots (league.max_snapshots {cfg.league.max_snapshots}, "
          f"league.history {cfg.league.history}, league.pfsp {cfg.league.pfsp:g}):")
    print(f"{'taken after update':>18} {'episodes':>9} {'learner score':>14} {'chance':>8}")
    for snap in report["snapshots"]:
        update = "?" if snap["update"] is None else f"{snap['update']:,}"
        score = "-" if snap["score"] is None else f"{snap['score']:.3f}"
        print(f"{update:>18} {snap['episodes']:>9} {score:>14} {snap['chance']:>8.1%}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
        print(f"written: {args.json}")
    return 0


def _run_train(args: argparse.Namespace) -> int:
    from train.training.config import field_docs, load_config, to_dict
    from train.training.ppo import train

    if args.list_keys:
        defaults = to_dict(load_config(None))
        for key, doc in field_docs().items():
            section, _, name = key.rpartition(".")
            value = defaults[section][name] if section else defaults[name]
            print(f"{key} (default {value!r}): {doc}")
        return 0
    if args.resume is not None:
        if args.config is not None or args.name is not None:
            raise ValueError("--resume continues a run with its saved config: drop CONFIG and --name "
                             "(--set may change only the keys that are safe to change, see docs/training.md)")
        cfg = None
    else:
        overrides = list(args.overrides) + ([f"name={args.name}"] if args.name is not None else [])
        cfg = load_config(args.config, overrides)
    run_dir = train(cfg, out=Path(args.out), resume=Path(args.resume) if args.resume else None,  # type: ignore[arg-type]
                    progress_bar=not args.no_progress, stop_after=args.stop_after, time_limit=args.time_limit,
                    resume_overrides=args.overrides if args.resume else ())
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    state = "finished" if summary["finished"] else f"stopped ({summary['stopped_by']})"
    print(f"run {run_dir} {state}: {summary['update']} updates, {summary['global_step']:,} decisions trained on")
    for opponent, result in summary.get("eval", {}).get("results", {}).items():
        print(f"  vs {opponent}: win rate {result['win_rate_a']:.1%} [{result['ci_low']:.1%}, {result['ci_high']:.1%}]"
              f" over {result['games']} {result['episode']}s, points per hand {result['points_per_hand_a']:+.1f}")
    print(f"  policy: {run_dir / 'final.pt'}")
    ruleset = load_config(str(run_dir / "config.yaml"), []).env.ruleset
    rules = "" if ruleset == "pagat" else f" --ruleset {ruleset}"
    print(f"  evaluate it: ginrummy eval ppo:path={run_dir / 'final.pt'} simple --games 200{rules}")
    if not summary["finished"]:
        print(f"  go on: ginrummy train --resume {run_dir}")
    print(f"  TensorBoard: tensorboard --logdir {run_dir.parent}")
    return SIGNAL_EXIT.get(summary["stopped_by"], 0)


def _run_eval(args: argparse.Namespace) -> int:
    from train.evaluation.evaluate import evaluate, format_report

    if args.json:
        _check_writable_file(args.json, "--json")
    result = evaluate(args.agent_a, args.agent_b, args.games, ruleset=args.ruleset, episode=args.episode,
                      seed=args.seed, workers=args.workers, progress=not args.no_progress, replays=args.replays,
                      backend=args.backend)
    print(format_report(result))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result.to_dict(), handle, indent=2)
            handle.write("\n")
        print(f"  written to {args.json}")
    if args.replays:
        print(f"  games written to {args.replays}")
    return 0


def _run_tournament(args: argparse.Namespace) -> int:
    from train.evaluation.tournament import format_table, save, tournament

    _check_writable_dir(args.out_dir, "--out-dir")
    result = tournament(args.agents, args.games, ruleset=args.ruleset, episode=args.episode, seed=args.seed,
                        workers=args.workers, progress=not args.no_progress, intervals=args.intervals,
                        bootstrap_samples=args.bootstrap, prior=args.prior, replays=args.replays,
                        backend=args.backend)
    s = result.settings
    print(f"round robin of {len(result.agents)} agents: {s['games_per_pairing']} games per pairing "
          f"({s['ruleset']}, episode={s['episode']}, seed {s['seed']}, {s['workers']} workers, "
          f"{result.elapsed_s:.1f} s)")
    print(format_table(result))
    paths = save(result, args.out_dir)
    print("written: " + ", ".join([str(p) for p in paths.values()] + ([args.replays] if args.replays else [])))
    return 0


SIGNAL_EXIT = {"SIGINT": 130, "SIGTERM": 143}
"""Exit status of ``ginrummy train`` stopped cleanly by a signal (128 + its number, as shells report it)."""


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``ginrummy`` console script."""
    args = _build_parser().parse_args(argv)
    if args.command == "simulate":
        report = simulate(args.hands, args.ruleset, args.seed, progress=not args.no_progress)
        print(f"{report['hands']} random hands under {report['ruleset']} (seed {report['seed']}):")
        for outcome, count in sorted(report["outcomes"].items()):
            print(f"  {outcome:10s} {count:7d}  {count / report['hands']:6.1%}")
        print(f"  {report['decisions']} decisions, {report['decisions_per_s']:,.0f} decisions/s")
        return 0
    commands = {"eval": _run_eval, "tournament": _run_tournament, "train": _run_train, "exploit": _run_exploit,
                "belief": _run_belief, "curves": _run_curves, "league": _run_league, "play": _run_play,
                "replay": _run_replay, "serve": _run_serve}
    try:
        return commands[args.command](args)
    except (ValueError, OSError) as err:
        print(f"ginrummy {args.command}: error: {err}", file=sys.stderr)
        return 2


def run() -> None:
    """The ``ginrummy`` console script: :func:`main`, then exit with its status.  An evaluation's fork
    server is ended at once (:func:`~train.evaluation.evaluate.stop_worker_server`), and what the
    command made is frozen for the garbage collector (:func:`gc.freeze`), so the interpreter's last
    collections skip it: with torch loaded each would otherwise take about a third of a second."""
    status = main()
    if "train.evaluation.evaluate" in sys.modules:  # it ran an evaluation: its fork server may run
        sys.modules["train.evaluation.evaluate"].stop_worker_server()
    gc.freeze()
    raise SystemExit(status)


if __name__ == "__main__":
    run()
