"""Round-robin tournaments: every pairing evaluated in mirrored pairs, Bradley–Terry ratings.

Each pairing ``(i, j)``, ``i < j``, plays :func:`train.evaluation.evaluate.run_plans`' mirrored pairs
with agent ``i`` as A, under its own seed derived from ``(seed, i, j)``.  Independent
pairings keep the bootstrap honest: with one seed for all pairings, copies of one
stochastic agent would replay the same games in every pairing, and the luck of seat B
would read as a ranking.  Ratings: :func:`train.evaluation.ratings.bradley_terry` on the Elo scale
(mean 1500), draws as half wins, with ``prior`` virtual drawn games per pairing; intervals
from a Bayesian bootstrap over mirrored pairs (default) or from the Fisher information.

Outputs (:func:`save`): ``ratings.json`` (settings, ratings, every pairing's summary, the
win-rate matrix; :func:`load` reads it back), ``ratings.csv`` (the ratings table), ``ratings.md``
(ratings, time per decision and the win-rate matrix as a Markdown table) and ``ratings.png``
(ratings with intervals beside the win-rate matrix).
"""
from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ginenv.game.checks import checked_float, checked_int
from ginenv.seeding import derive_seed
from train.evaluation.evaluate import (
    AgentSpec,
    EvalResult,
    MatchPlan,
    check_settings,
    resolve_workers,
    run_plans,
    spec_label,
    summarize,
)
from train.evaluation.ratings import (
    ELO_BASE,
    ELO_PER_THETA,
    bootstrap_intervals,
    bradley_terry,
    elo,
    fisher_intervals,
    wins_from_histograms,
)

INTERVALS = ("bootstrap", "fisher")
MAX_BOOTSTRAP = 100_000
"""Largest ``bootstrap_samples`` (each refits the ratings)."""
CSV_FIELDS = ("rank", "agent", "elo", "elo_low", "elo_high", "score", "games", "wins", "draws", "losses")


@dataclass
class TournamentResult:
    """Ratings (best first) and every pairing's :class:`~train.evaluation.evaluate.EvalResult`."""

    agents: list[str]  # labels, in the order given
    settings: dict[str, Any]
    ratings: list[dict[str, Any]]  # CSV_FIELDS, sorted by rating
    pairings: list[EvalResult]
    win_rate: list[list[Optional[float]]]  # win_rate[i][j]: agent i's score against j (None on the diagonal)
    elapsed_s: float

    def to_dict(self) -> dict[str, Any]:
        return {"agents": self.agents, "settings": self.settings, "ratings": self.ratings,
                "win_rate": self.win_rate, "pairings": [p.to_dict() for p in self.pairings],
                "elapsed_s": self.elapsed_s}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TournamentResult":
        """The inverse of :meth:`to_dict` (e.g. of a saved ``ratings.json``)."""
        return cls(list(data["agents"]), dict(data["settings"]), list(data["ratings"]),
                   [EvalResult(**pairing) for pairing in data["pairings"]], list(data["win_rate"]),
                   float(data["elapsed_s"]))

    def decision_ms(self) -> dict[str, float]:
        """Each agent's time per decision in this tournament, in milliseconds: the median over its
        pairings (a policy's positions of games played side by side share one forward pass, so its
        figure is the batched cost, far below the cost of one decision taken alone)."""
        times: dict[str, list[float]] = {label: [] for label in self.agents}
        for pairing in self.pairings:
            times[pairing.agent_a].append(pairing.act_ms_a)
            times[pairing.agent_b].append(pairing.act_ms_b)
        return {label: float(np.median(values)) if values else float("nan") for label, values in times.items()}


def unique_labels(specs: Sequence[AgentSpec]) -> list[str]:
    """Spec labels, a repeated one numbered ``#2``, ``#3`` …

    >>> unique_labels(["random", "greedy", "random"])
    ['random', 'greedy', 'random#2']
    """
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        label = spec_label(spec)
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return labels


def tournament(agents: Sequence[AgentSpec], games: int, ruleset: str = "pagat", episode: str = "game",
               seed: int = 0, workers: Optional[int] = None, progress: bool = False,
               env_kwargs: Optional[Mapping[str, Any]] = None, intervals: str = "bootstrap",
               bootstrap_samples: int = 1000, prior: float = 1.0, confidence: float = 0.95,
               replays: Optional[str] = None, backend: str = "local") -> TournamentResult:
    """Play a round robin of ``games`` games per pairing and rate the agents (``replays``:
    write every game to this JSON-lines file; ``backend``: ``"local"`` processes or ``"ray"``
    tasks, the same results; see :func:`train.evaluation.evaluate.run_plans`).

    ``games``, ``seed``, ``workers`` and ``confidence`` (the intervals' level) have the ranges
    of :func:`train.evaluation.evaluate.evaluate`; ``bootstrap_samples`` is an int ``1..MAX_BOOTSTRAP``,
    ``prior`` (virtual drawn games per pairing) a finite number ``>= 0``.

    >>> result = tournament(["random", "random"], games=2, episode="hand", workers=1, bootstrap_samples=20)
    >>> [row["agent"] for row in result.ratings] in (["random", "random#2"], ["random#2", "random"])
    True
    """
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least 2 agents, got {len(agents)}")
    if intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {INTERVALS}, got {intervals!r}")
    bootstrap_samples = checked_int("bootstrap_samples", bootstrap_samples, 1, MAX_BOOTSTRAP)
    prior = checked_float("prior", prior, 0.0, closed=True)
    pairs, seed, workers, confidence = check_settings(agents, games, ruleset, episode, seed, workers, env_kwargs,
                                                      backend, confidence)
    workers = resolve_workers(workers, backend)
    labels = unique_labels(agents)
    k = len(agents)
    index = [(i, j) for i in range(k) for j in range(i + 1, k)]
    plans = [MatchPlan(agents[i], agents[j], ruleset, episode, derive_seed(seed, i, j), dict(env_kwargs or {}))
             for i, j in index]
    start = time.perf_counter()
    records = run_plans(plans, pairs, workers, progress, desc="round robin pairs", replays=replays, backend=backend)
    elapsed = time.perf_counter() - start
    pairings = [summarize(plan, recs, elapsed, workers, confidence) for plan, recs in zip(plans, records)]
    for (i, j), result in zip(index, pairings):
        result.agent_a, result.agent_b = labels[i], labels[j]
    histograms = {ij: result.pair_histogram for ij, result in zip(index, pairings)}
    wins = wins_from_histograms(k, histograms)
    theta = bradley_terry(wins, prior=prior)
    rating = elo(theta)
    if intervals == "fisher":
        low, high = (ELO_BASE + ELO_PER_THETA * x for x in fisher_intervals(wins, theta, prior, confidence))
    else:
        low, high = bootstrap_intervals(k, histograms, prior, bootstrap_samples, seed, confidence)
    played = wins + wins.T
    draws = np.zeros(k)
    for (i, j), result in zip(index, pairings):
        draws[i] += result.draws
        draws[j] += result.draws
    rows = []
    for rank, i in enumerate(sorted(range(k), key=lambda a: -rating[a]), start=1):
        n = played[i].sum()
        rows.append({"rank": rank, "agent": labels[i], "elo": float(rating[i]), "elo_low": float(low[i]),
                     "elo_high": float(high[i]), "score": float(wins[i].sum() / n) if n else 0.0, "games": int(n),
                     "wins": int(round(wins[i].sum() - draws[i] / 2)), "draws": int(draws[i]),
                     "losses": int(round(wins[:, i].sum() - draws[i] / 2))})
    win_rate = [[None if i == j else float(wins[i, j] / played[i, j]) if played[i, j] else None for j in range(k)]
                for i in range(k)]
    settings = {"specs": [spec_label(a) for a in agents], "games_per_pairing": 2 * pairs, "ruleset": ruleset,
                "episode": episode, "seed": seed, "workers": workers, "env_kwargs": dict(env_kwargs or {}),
                "rating": "Bradley-Terry, Elo scale (mean 1500), draws as half wins",
                "prior_games": prior, "intervals": intervals, "confidence": confidence,
                **({"bootstrap_samples": bootstrap_samples} if intervals == "bootstrap" else {})}
    return TournamentResult(labels, settings, rows, pairings, win_rate, elapsed)


def format_table(result: TournamentResult) -> str:
    """The ratings table and the win-rate matrix as text."""
    level = f"{100 * result.settings['confidence']:g}%"
    width = max(len("agent"), *(len(a) for a in result.agents))
    lines = [f"{'rank':>4}  {'agent':<{width}}  {'Elo':>6}  {level + ' interval':>16}  {'score':>6}  "
             f"{'games':>6}  {'W-D-L':>13}"]
    for row in result.ratings:
        lines.append(f"{row['rank']:>4}  {row['agent']:<{width}}  {row['elo']:6.0f}  "
                     f"{'[' + format(row['elo_low'], '.0f') + ', ' + format(row['elo_high'], '.0f') + ']':>16}  "
                     f"{100 * row['score']:5.1f}%  {row['games']:>6}  "
                     f"{str(row['wins']) + '-' + str(row['draws']) + '-' + str(row['losses']):>13}")
    lines += ["", "score of the row agent against the column agent:",
              " " * (width + 2) + "  ".join(f"{a[:8]:>8}" for a in result.agents)]
    for label, row in zip(result.agents, result.win_rate):
        lines.append(f"{label:<{width}}  " + "  ".join(f"{'-':>8}" if x is None else f"{100 * x:7.1f}%" for x in row))
    return "\n".join(lines)


def format_markdown(result: TournamentResult) -> str:
    """The ratings and the win-rate matrix as one Markdown table: per agent (best first) its Elo with
    the interval, its time per decision (:meth:`TournamentResult.decision_ms`) and its score against
    every agent, in the order given."""
    s = result.settings
    position = {label: i for i, label in enumerate(result.agents)}
    cost = result.decision_ms()
    level = f"{100 * s['confidence']:g}%"
    lines = [f"| agent | Elo [{level}] | ms per decision | " + " | ".join(f"vs {a}" for a in result.agents) + " |",
             "|---|---|---|" + "---|" * len(result.agents)]
    for row in result.ratings:
        scores = result.win_rate[position[row["agent"]]]
        lines.append(f"| {row['agent']} | {row['elo']:.0f} [{row['elo_low']:.0f}, {row['elo_high']:.0f}] | "
                     f"{cost[row['agent']]:.3g} | "
                     + " | ".join("–" if x is None else f"{100 * x:.1f}%" for x in scores) + " |")
    lines.append("")
    lines.append(f"{s['games_per_pairing']} games per pairing (episode={s['episode']}, {s['ruleset']}, "
                 f"seed {s['seed']}); each cell is the row agent's score against the column agent, draws as half wins.")
    return "\n".join(lines) + "\n"


def load(path: "str | Path") -> TournamentResult:
    """A tournament saved by :func:`save`, from its ``ratings.json``."""
    return TournamentResult.from_dict(json.loads(Path(path).read_text()))


def save(result: TournamentResult, out_dir: "str | Path") -> dict[str, Path]:
    """Write ``ratings.json``, ``ratings.csv``, ``ratings.md`` (:func:`format_markdown`) and
    ``ratings.png`` into ``out_dir`` (created)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "ratings.json", "csv": out / "ratings.csv", "md": out / "ratings.md",
             "png": out / "ratings.png"}
    paths["json"].write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    paths["md"].write_text(format_markdown(result))
    with paths["csv"].open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(result.ratings)
    plot(result, paths["png"])
    return paths


def plot(result: TournamentResult, path: "str | Path") -> None:
    """Ratings with their intervals, beside the win-rate matrix, as a PNG (Agg, no display)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    k = len(result.agents)
    fig = Figure(figsize=(6 + 0.6 * k, 1.5 + 0.45 * k), layout="constrained")
    FigureCanvasAgg(fig)
    ax_rating, ax_matrix = fig.subplots(1, 2, width_ratios=[1, 1])
    rows = result.ratings[::-1]  # best at the top
    y = np.arange(len(rows))
    values = np.array([r["elo"] for r in rows])
    err = np.array([[r["elo"] - r["elo_low"] for r in rows], [r["elo_high"] - r["elo"] for r in rows]])
    ax_rating.errorbar(values, y, xerr=np.clip(err, 0, None), fmt="o", capsize=4)
    ax_rating.set_yticks(y, [r["agent"] for r in rows])
    ax_rating.axvline(ELO_BASE, color="grey", linewidth=0.8, linestyle=":")
    ax_rating.set_xlabel(f"Elo (Bradley–Terry), {100 * result.settings['confidence']:g}% {result.settings['intervals']}"
                         " interval")
    matrix = np.array([[np.nan if x is None else x for x in row] for row in result.win_rate], dtype=float)
    image = ax_matrix.imshow(matrix, vmin=0, vmax=1, cmap="RdBu")
    for i in range(k):
        for j in range(k):
            if not np.isnan(matrix[i, j]):
                ax_matrix.text(j, i, f"{100 * matrix[i, j]:.0f}", ha="center", va="center", fontsize=8)
    ax_matrix.set_xticks(range(k), result.agents, rotation=45, ha="right")
    ax_matrix.set_yticks(range(k), result.agents)
    ax_matrix.set_title("score of row vs column (%)", fontsize=9)
    fig.colorbar(image, ax=ax_matrix, shrink=0.8)
    s = result.settings
    fig.suptitle(f"round robin: {s['games_per_pairing']} games per pairing, {s['ruleset']}, "
                 f"episode={s['episode']}, seed {s['seed']}", fontsize=10)
    fig.savefig(path, dpi=100)
