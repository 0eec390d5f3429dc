"""A run's TensorBoard scalars as a small CSV and a PNG of the learning curves.

``ginrummy curves RUN_DIR`` writes ``RUN_DIR/curves.csv`` (one row per update, one column
per tag) and ``RUN_DIR/curves.png`` (evaluation win rates with their intervals, entropy,
the learner's reward and hand outcomes), small enough to commit beside a checkpoint.  A run
that began with behaviour cloning also gets ``RUN_DIR/clone_curves.csv`` (one row per
cloning epoch: loss, training and held-out agreement), drawn in a third column of the PNG.
Rows the CSVs already hold and ``tb`` no longer does (a run folder copied without ``tb/`` and
resumed) are kept.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from train.evaluation.ratings import ELO_TAG, LADDER_ELO  # noqa: E402


def read_scalars(run_dir: Path, wall_time: bool = False) -> dict[str, dict[int, float]]:
    """``tag -> {step: value}`` from the run's ``tb`` folder (the last value wins on a step
    written twice, as after a resume); ``wall_time``: the UNIX time each value was written instead."""
    folder = Path(run_dir) / "tb"
    if not folder.is_dir():
        raise ValueError(f"no TensorBoard folder at {str(folder)!r}")
    scalars: dict[str, dict[int, float]] = {}
    for events in sorted(folder.glob("events.out.tfevents.*")):
        accumulator = EventAccumulator(str(events), size_guidance={"scalars": 0})
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            series = scalars.setdefault(tag, {})
            for event in accumulator.Scalars(tag):
                series[event.step] = event.wall_time if wall_time else event.value
    return scalars


def write_csv(scalars: dict[str, dict[int, float]], path: Path, step_name: str = "update") -> None:
    """One row per step, one column per tag (empty where a tag has no value)."""
    tags = sorted(scalars)
    steps = sorted({step for series in scalars.values() for step in series})
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow([step_name, *tags])
        for step in steps:
            writer.writerow([step, *(f"{scalars[t][step]:.6g}" if step in scalars[t] else "" for t in tags)])


def read_csv(path: Path) -> dict[str, dict[int, float]]:
    """``write_csv``'s inverse: ``tag -> {step: value}``, empty cells left out."""
    with open(path, newline="", encoding="utf-8") as stream:
        rows = csv.reader(stream)
        tags = next(rows)[1:]
        scalars: dict[str, dict[int, float]] = {tag: {} for tag in tags}
        for row in rows:
            for tag, cell in zip(tags, row[1:]):
                if cell:
                    scalars[tag][int(row[0])] = float(cell)
    return scalars


def plot(scalars: dict[str, dict[int, float]], path: Path, title: str) -> None:
    """Evaluation win rates (with 95% intervals), entropy, learner reward and outcomes by PPO
    update; the cloning epochs' agreement and loss when there are ``clone/`` tags (alone when
    the run has not done two updates yet)."""
    cloning = any(tag.startswith("clone/") for tag in scalars)
    updates = {step for tag, series in scalars.items() if not tag.startswith("clone/") for step in series}
    panels = []  # (tags, title, x axis), column by column, two panels a column
    if len(updates) > 1 or not cloning:
        panels += [(None, "evaluation win rate (95% interval)", "update"),
                   (["charts/learner_reward"], "learner reward per episode (non-self games)", "update"),
                   (["losses/entropy"], "policy entropy", "update"),
                   (sorted(t for t in scalars if t.startswith("charts/outcome_")), "hand outcomes", "update")]
        if ELO_TAG in scalars:
            panels += [(ELO_TAG, "Elo against the fixed ladder", "decisions trained on"),
                       (["charts/SPS"], "samples per second", "update")]
    if cloning:
        panels += [(["clone/accuracy", "clone/held_out_accuracy"], "cloning: agreement with the agent", "epoch"),
                   (["clone/loss"], "cloning: loss", "epoch")]
    columns = len(panels) // 2
    figure, axes = plt.subplots(2 if columns > 1 else 1, columns if columns > 1 else 2, squeeze=False,
                                figsize=(5.5 * max(columns, 2), 7 if columns > 1 else 3.8))
    for ax, (tags, name, x_name) in zip(axes.flatten(order="F" if columns > 1 else "C"), panels):
        if tags is None:
            _plot_win_rates(ax, scalars)
            continue
        if tags == ELO_TAG:
            _plot_elo(ax, scalars)
            continue
        for tag in tags:
            if tag in scalars:
                steps = sorted(scalars[tag])
                ax.plot(steps, [scalars[tag][s] for s in steps], lw=0.8, marker="o" if x_name == "epoch" else None,
                        label=tag.split("/")[-1])
        ax.set(title=name, xlabel=x_name)
        if len(tags) > 1:
            ax.legend(fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)


def _plot_elo(ax: Any, scalars: dict[str, dict[int, float]]) -> None:
    """The policy's Elo against the ladder by decisions trained on, the ladder's ratings as lines."""
    elo, samples = scalars[ELO_TAG], scalars.get("charts/global_step", {})
    steps = sorted(elo)
    ax.plot([samples.get(s, float("nan")) for s in steps], [elo[s] for s in steps], marker="o", label="policy")
    for name, rating in LADDER_ELO.items():
        ax.axhline(rating, color="grey", lw=0.8, ls=":")
        ax.annotate(name, (0, rating), xycoords=("axes fraction", "data"), fontsize=7, va="bottom")
    ax.set(title="Elo against the fixed ladder", xlabel="decisions trained on")


def eval_opponent(tag: str) -> tuple[str, str]:
    """``(prefix, opponent)`` of an evaluation tag; the opponent's spec may hold a path.

    >>> eval_opponent("eval_games/ppo:path=runs/x/final.pt/win_rate_a")
    ('eval_games', 'ppo:path=runs/x/final.pt')
    """
    prefix, rest = tag.split("/", 1)
    return prefix, rest.rsplit("/", 1)[0]


def _plot_win_rates(ax: Any, scalars: dict[str, dict[int, float]]) -> None:
    """Each evaluation opponent's win rate by update, with its 95% interval (games or hands, as evaluated)."""
    for tag in sorted(t for t in scalars if t.startswith(("eval_games/", "eval_hands/")) and t.endswith("/win_rate_a")):
        prefix, opponent = eval_opponent(tag)
        steps = sorted(scalars[tag])
        ax.plot(steps, [scalars[tag][s] for s in steps], marker="o", label=f"vs {opponent} ({prefix[5:]})")
        low, high = scalars.get(f"{prefix}/{opponent}/ci_low", {}), scalars.get(f"{prefix}/{opponent}/ci_high", {})
        if low and high:
            ax.fill_between(steps, [low.get(s, float("nan")) for s in steps],
                            [high.get(s, float("nan")) for s in steps], alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set(title="evaluation win rate (95% interval)", xlabel="update", ylim=(0, 1))
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)


def export(run_dir: Path) -> tuple[Path, ...]:
    """Write ``curves.csv``, ``curves.png`` and (after cloning) ``clone_curves.csv`` into
    ``run_dir``; returns their paths. Rows of an earlier ``curves.csv`` that the ``tb`` folder no
    longer holds are kept (a run folder committed without ``tb/`` and resumed keeps its whole curve);
    where both hold a step, ``tb`` wins."""
    run_dir = Path(run_dir)
    csv_path, png_path, clone_path = run_dir / "curves.csv", run_dir / "curves.png", run_dir / "clone_curves.csv"
    earlier = [read_csv(path) for path in (csv_path, clone_path) if path.is_file()]
    scalars = {tag: series for written in earlier for tag, series in written.items()}
    for tag, series in read_scalars(run_dir).items():
        scalars.setdefault(tag, {}).update(series)
    cloning = {tag: series for tag, series in scalars.items() if tag.startswith("clone/")}
    write_csv({tag: series for tag, series in scalars.items() if tag not in cloning}, csv_path)
    plot(scalars, png_path, f"training run {run_dir.name}")
    if not cloning:
        return csv_path, png_path
    write_csv(cloning, clone_path, step_name="epoch")
    return csv_path, png_path, clone_path
