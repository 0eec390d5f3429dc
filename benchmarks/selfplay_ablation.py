"""The ablation of the from-scratch recipe (its first version, ``configs/experiments/selfplay_v1.yaml``):
one lever changed per row, every row at the same sample budget, each scored against ``simple`` on
the same deals (a script, not a test).

    python benchmarks/selfplay_ablation.py --out runs/ablation --decisions 3000000 --minutes 100
    python benchmarks/selfplay_ablation.py --out runs/ablation --table      # only the table so far

Rows run one after another, each as ``ginrummy train configs/experiments/selfplay_v1.yaml --set ...`` with
``ppo.total_steps`` = ``--decisions`` (the learning-rate schedule is scaled with it). The script
resumes: a finished row is skipped, an unfinished one goes on with ``--resume``, and
``--minutes`` stops the whole session cleanly, as do Ctrl-C and SIGTERM (rerun the same command
to go on; a second session on the same ``--out`` is refused). Each finished row
is then scored with ``evaluate(final.pt, "simple", games=--games, seed=--seed)`` (games to 100,
mirrored pairs); the run's own ``eval.jsonl`` (its evaluations every 75 updates) is its learning
curve. The table (with each row's command) is written to ``OUT/ablation.md`` and printed, the
curves to ``OUT/ablation.png``.
"""
from __future__ import annotations

import argparse
import fcntl
import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, Sequence

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
ROWS: dict[str, tuple[str, list[str]]] = {
    "recipe": ("the recipe's first version as it is", []),
    "critic_policy": ("value head of the policy instead of the privileged critic", ["critic.kind=policy"]),
    "uniform_snapshots": ("snapshots drawn uniformly (no PFSP)", ["league.pfsp=0"]),
    "self_only": ("no snapshots: the learner against itself only", ["league.opponents={self: 1}"]),
    "no_shaping": ("no deadwood shaping", ["shaping.deadwood=0"]),
    "batch_16k": ("256 games per rollout, 16,384 decisions per update", ["env.num_envs=256",
                                                                         "ppo.batch_size=16384"]),
    "wide_net": ("trunk of 512 units", ["policy.hidden=512"]),
    "win_loss": ("reward +-1 per hand instead of its points", ["env.reward_mode=win_loss"]),
    "high_entropy": ("entropy bonus 0.03 instead of 0.01", ["ppo.ent_coef=0.03"]),
    "two_epochs": ("2 passes over each batch instead of 4", ["ppo.epochs=2"]),
    "eight_epochs": ("8 passes over each batch instead of 4", ["ppo.epochs=8"]),
    "sixteen_epochs": ("16 passes over each batch instead of 4", ["ppo.epochs=16"]),
    "high_lr": ("learning rate 1e-3 instead of 3e-4", ["ppo.lr=0.001"]),
    "critic_deadwoods": ("the privileged critic also reads the deadwoods of the hidden cards",
                         ["critic.deadwoods=true"]),
    "low_lambda": ("GAE lambda 0.8 instead of 0.95 (more weight on the privileged critic)", ["ppo.gae_lambda=0.8"]),
    "whole_games": ("whole games to 100 with +-1 for the game's winner (discount 0.999) instead of single hands",
                    ["env.episode=game", "env.reward_mode=win_loss", "ppo.gamma=0.999"]),
    "belief": ("an opponent model: a head on the trunk guesses the opponent's hand (auxiliary loss, weight 0.5)",
               ["critic.belief=0.5"]),
    "forbid_knock": ("exploration of not knocking: at a quarter of the learner's decisions where it may knock, its "
                     "knocks are forbidden", ["ppo.forbid_knock=0.25"]),
    "knock_entropy": ("an entropy bonus on knocking or not (weight 0.1) beside not knocking forced at a quarter of "
                      "those decisions", ["ppo.knock_ent_coef=0.1", "ppo.forbid_knock=0.25"]),
    "hold_as_choice": ("not knocking forced at a quarter of those decisions and recorded as the policy's own choice "
                       "(ppo.forbid_as_choice), with an entropy bonus on knocking or not of weight 0.02",
                       ["ppo.knock_ent_coef=0.02", "ppo.forbid_knock=0.25", "ppo.forbid_as_choice=true"]),
}
"""Row name -> (what differs from the recipe, the overrides)."""
BASE = "configs/experiments/selfplay_v1.yaml"
"""The config every row starts from."""
EVAL = ["eval.every=75", "eval.games=40"]
"""The rows' own evaluations (their learning curves)."""


STOP_SIGNALS = ("SIGINT", "SIGTERM")


def run_row(name: str, out: Path, decisions: int, deadline: float) -> dict:
    """Train (or resume) one row until it is finished, the deadline passes or a signal stops it;
    returns its ``summary.json`` (``finished``, ``stopped_by``)."""
    from train.training.config import load_config
    from train.training.ppo import train

    run_dir = out / name
    minutes = max(0.1, (deadline - time.monotonic()) / 60)
    summary = run_dir / "summary.json"
    if summary.is_file():
        done = json.loads(summary.read_text())
        if done["finished"]:
            return done
    if (run_dir / "config.yaml").is_file():
        train(None, resume=run_dir, progress_bar=False, time_limit=minutes)
    else:
        train(load_config(ROOT / BASE, row_settings(name, decisions)), out=out, progress_bar=False,
              time_limit=minutes)
    return json.loads(summary.read_text())


def row_settings(name: str, decisions: int) -> list[str]:
    """The ``KEY=VALUE`` settings of row ``name`` on top of :data:`BASE`."""
    return [f"name={name}", f"ppo.total_steps={decisions}", *EVAL, *ROWS[name][1]]


@contextmanager
def only_session(out: Path) -> Iterator[None]:
    """Hold ``OUT/.lock`` for the session: a second session on the same folder (which would train
    the same row from two processes) is refused with a message."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SystemExit(f"{out} is in use by another selfplay_ablation.py session; stop that one first") from None
        yield


def score(run_dir: Path, games: int, seed: int) -> Optional[dict]:
    """The finished row's figures against ``simple`` (kept in ``score.json`` once measured)."""
    from train.evaluation.evaluate import evaluate

    kept = run_dir / "score.json"
    if kept.is_file():
        return json.loads(kept.read_text())
    result = evaluate(f"ppo:path={run_dir / 'final.pt'}", "simple", games=games, seed=seed, workers=2).results_dict()
    kept.write_text(json.dumps(result, indent=1))
    return result


def curve(run_dir: Path) -> list[tuple[int, float]]:
    """(decisions, win rate against ``simple``) at each of the row's own evaluations."""
    path = run_dir / "eval.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
    return [(row["global_step"], row["results"]["simple"]["win_rate_a"]) for row in rows if "simple" in row["results"]]


def command(name: str, decisions: int) -> str:
    """The ``ginrummy train`` line that trains row ``name`` by itself."""
    return f"ginrummy train {BASE} " + " ".join(f"--set '{item}'" for item in row_settings(name, decisions))


def table(out: Path) -> str:
    """The Markdown table of every row measured so far, its learning curve, and each row's command."""
    lines = ["| row | what differs | decisions | vs simple (games) | 95% interval | points per hand | "
             "curve vs simple (own evaluations, 40 games) |",
             "|---|---|---|---|---|---|---|"]
    commands = []
    for name, (what, _) in ROWS.items():
        kept, summary = out / name / "score.json", out / name / "summary.json"
        if not kept.is_file():
            continue
        result, done = json.loads(kept.read_text()), json.loads(summary.read_text())
        points = " ".join(f"{rate:.0%}" for _, rate in curve(out / name))
        lines.append(f"| `{name}` | {what} | {done['global_step']:,} | {result['win_rate_a']:.1%} | "
                     f"[{result['ci_low']:.1%}, {result['ci_high']:.1%}] | {result['points_per_hand_a']:+.2f} | "
                     f"{points} |")
        budget = yaml.safe_load((out / name / "config.yaml").read_text())["ppo"]["total_steps"]
        commands.append(f"{name}: {command(name, budget)}")
    return "\n".join(lines) + ("\n\n```\n" + "\n".join(commands) + "\n```" if commands else "")


def plot(out: Path) -> Path:
    """``OUT/ablation.png``: every row's learning curve against ``simple``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    colours = plt.get_cmap("tab20").colors  # one colour per row (the default cycle has ten)
    for index, name in enumerate(ROWS):
        points = curve(out / name)
        if points:
            ax.plot([step / 1e6 for step, _ in points], [rate for _, rate in points], marker="os^D"[index % 4],
                    color=colours[index % len(colours)], label=name)
    ax.set(xlabel="decisions trained on (millions)", ylabel="games won against simple",
           title=f"{BASE}, one lever per row", ylim=(0, 1))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    path = out / "ablation.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def main(argv: Optional[Sequence[str]] = None) -> str:
    """Run, score and tabulate the rows (see the module docstring)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/ablation"), help="folder of the rows' runs")
    parser.add_argument("--decisions", type=int, default=3_000_000, help="sample budget of every row")
    parser.add_argument("--minutes", type=float, default=60.0, help="stop this session after that long")
    parser.add_argument("--games", type=int, default=400, help="games of each row's score against simple")
    parser.add_argument("--seed", type=int, default=24100, help="seed of the scores (the same deals for every row)")
    parser.add_argument("--rows", nargs="*", default=list(ROWS), choices=list(ROWS), help="rows to run")
    parser.add_argument("--table", action="store_true", help="only print the table of what is measured")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + 60 * args.minutes
    if not args.table:
        with only_session(args.out):
            for name in args.rows:
                if time.monotonic() >= deadline:
                    break
                summary = run_row(name, args.out, args.decisions, deadline)
                if summary["finished"]:
                    score(args.out / name, args.games, args.seed)
                elif summary["stopped_by"] in STOP_SIGNALS:  # Ctrl-C or kill stops the whole session
                    break
    text = table(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ablation.md").write_text(text + "\n")
    plot(args.out)
    print(text)
    return text


if __name__ == "__main__":
    main()
