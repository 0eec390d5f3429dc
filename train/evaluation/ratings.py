"""Bradley–Terry ratings on the Elo scale, with intervals.

Model: ``P(i beats j) = p_i / (p_i + p_j)``, ``p_i = exp(theta_i)``; a draw counts as half a
win for each side.  :func:`bradley_terry` fits ``theta`` by Newton's method with step
halving (the log-likelihood is concave), centred to mean 0.  On the Elo scale
``rating = 1500 + 400 * theta / ln 10``: a 400-point gap means 10:1 odds, and the mean
rating is 1500.

``prior`` adds that many virtual games, drawn (half a win each), between every two agents:
it keeps the fit finite when an agent won or lost everything, and shrinks the ratings a
little toward each other (with ``prior=0`` the plain maximum-likelihood fit, which exists
only when the win graph is strongly connected).

Intervals:

* :func:`fisher_intervals` — ``theta ± z * sqrt(diag(pinv(I)))``, ``I`` the Fisher
  information at the fit (independent games assumed).
* :func:`bootstrap_intervals` — percentile intervals from refits on reweighted mirrored
  pairs (a Bayesian bootstrap with the pair as the cluster).

>>> wins = np.array([[0, 30, 40], [20, 0, 30], [10, 20, 0]], dtype=float)
>>> [round(r) for r in elo(bradley_terry(wins))]
[1600, 1500, 1400]
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Mapping, Sequence

import numpy as np

ELO_BASE = 1500.0
ELO_PER_THETA = 400.0 / math.log(10.0)
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # A's mean score in a pair, per histogram bin


def elo(theta: np.ndarray) -> np.ndarray:
    """Log-strengths to Elo ratings (mean ``theta`` 0 maps to 1500)."""
    theta = np.asarray(theta, dtype=float)
    return ELO_BASE + ELO_PER_THETA * (theta - theta.mean())


def _strongly_connected(beats: np.ndarray) -> bool:
    reach = beats.astype(bool) | np.eye(len(beats), dtype=bool)
    for k in range(len(reach)):
        reach |= reach[:, k:k + 1] & reach[k:k + 1, :]
    return bool(reach.all())


def bradley_terry(wins: np.ndarray, prior: float = 0.0, tol: float = 1e-10, max_iter: int = 200,
                  init: "np.ndarray | None" = None) -> np.ndarray:
    """Fit Bradley–Terry log-strengths (mean 0) to ``wins[i, j]`` = games ``i`` won against ``j``.

    ``wins`` may be fractional (draws as halves); ``prior`` adds virtual drawn games
    between every two agents (see the module docstring).  Raises ``ValueError`` when the
    maximum-likelihood fit does not exist.  ``init`` (log-strengths) only speeds it up.

    >>> bradley_terry(np.array([[0, 2], [1, 0]])).round(4).tolist()  # odds 2:1
    [0.3466, -0.3466]
    """
    wins = np.array(wins, dtype=float)
    k = len(wins)
    if wins.ndim != 2 or wins.shape != (k, k) or k < 2:
        raise ValueError(f"wins must be a square matrix of at least 2 agents, got shape {wins.shape}")
    if (wins < 0).any() or not np.isfinite(wins).all() or prior < 0:
        raise ValueError("wins and prior must be finite and non-negative")
    off = ~np.eye(k, dtype=bool)
    wins = np.where(off, wins + prior / 2, 0.0)
    if not _strongly_connected(wins > 0):
        raise ValueError("no finite Bradley-Terry fit: some agents never lost (or never won) against the rest; "
                         "use prior > 0")
    theta = np.zeros(k) if init is None else np.asarray(init, dtype=float) - np.mean(init)
    loglik = _log_likelihood(wins, theta)
    for _ in range(max_iter):  # Newton on the concave log-likelihood, halving steps that overshoot
        weight = _pair_weights(wins, theta)
        gradient = wins.sum(axis=1) - (_win_probabilities(theta) * (wins + wins.T)).sum(axis=1)
        step = np.linalg.pinv(np.diag(weight.sum(axis=1)) - weight) @ gradient
        for _halving in range(60):
            candidate = theta + step
            new_loglik = _log_likelihood(wins, candidate)
            if new_loglik >= loglik - 1e-12:
                break
            step = step / 2
        theta, loglik = candidate - candidate.mean(), new_loglik
        if np.max(np.abs(step)) < tol:
            break
    return theta


def _win_probabilities(theta: np.ndarray) -> np.ndarray:
    """``q[i, j] = P(i beats j) = 1 / (1 + exp(theta_j - theta_i))``."""
    return 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))


def _pair_weights(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``n_ij q_ij (1 - q_ij)``: the off-diagonal Fisher information (zero diagonal)."""
    q = _win_probabilities(theta)
    return (wins + wins.T) * q * (1 - q) * ~np.eye(len(theta), dtype=bool)


def _log_likelihood(wins: np.ndarray, theta: np.ndarray) -> float:
    diff = theta[:, None] - theta[None, :]
    return float((wins * -np.logaddexp(0.0, -diff)).sum())


def fisher_intervals(wins: np.ndarray, theta: np.ndarray, prior: float = 0.0,
                     confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wald intervals ``(low, high)`` of ``theta`` from the Fisher information (mean-0 constraint).

    ``I[i, i] = sum_j n_ij q_ij (1 - q_ij)``, ``I[i, j] = -n_ij q_ij (1 - q_ij)`` with
    ``q_ij = P(i beats j)``; the covariance of the centred ``theta`` is ``pinv(I)``.
    """
    wins = np.array(wins, dtype=float)
    wins = np.where(~np.eye(len(wins), dtype=bool), wins + prior / 2, 0.0)
    weight = _pair_weights(wins, np.asarray(theta, dtype=float))
    info = np.diag(weight.sum(axis=1)) - weight
    se = np.sqrt(np.clip(np.diag(np.linalg.pinv(info)), 0.0, None))
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    return theta - z * se, theta + z * se


def wins_from_histograms(k: int, histograms: Mapping[tuple[int, int], Sequence[int]]) -> np.ndarray:
    """The win matrix of a round robin from each pairing's pair histogram.

    ``histograms[(i, j)][b]`` is the number of mirrored pairs in which agent ``i`` scored
    ``b / 4`` on average over its two games (agent ``j`` scored the rest); each pair is
    two games, a draw half a win each.
    """
    wins = np.zeros((k, k))
    for (i, j), hist in histograms.items():
        hist = np.asarray(hist, dtype=float)
        wins[i, j] += 2 * (hist * PAIR_SCORES).sum()
        wins[j, i] += 2 * (hist * (1 - PAIR_SCORES)).sum()
    return wins


def bootstrap_intervals(k: int, histograms: Mapping[tuple[int, int], Sequence[int]], prior: float = 1.0,
                        samples: int = 1000, seed: int = 0,
                        confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals ``(low, high)`` of the Elo ratings from a Bayesian bootstrap over pairs.

    Rubin's Bayesian bootstrap, cluster = the mirrored pair: each sample gives every
    pairing's pairs — its histogram plus the prior's ``prior`` virtual drawn games as
    ``prior / 2`` tied pairs — Dirichlet weights, rebuilds the win matrix and refits (the
    prior is then not added again).  With many pairs this is the ordinary pair bootstrap;
    unlike it, a pairing one agent swept still varies (through the virtual pairs), so an
    unbeaten or winless agent does not get a zero-width interval.
    """
    if samples < 1:
        raise ValueError(f"samples must be positive, got {samples!r}")
    rng = np.random.default_rng(seed)
    keys = sorted(histograms)
    center = bradley_terry(wins_from_histograms(k, histograms), prior=prior)
    virtual = np.array([0.0, 0.0, prior / 2, 0.0, 0.0])
    counts = {key: np.asarray(histograms[key], dtype=float) + virtual for key in keys}
    draws = np.empty((samples, k))
    for s in range(samples):
        resampled = {}
        for key in keys:
            alpha = counts[key]
            weights = np.zeros_like(alpha)
            present = alpha > 0
            if present.any():
                weights[present] = rng.dirichlet(alpha[present])
            resampled[key] = weights * alpha.sum()
        draws[s] = elo(bradley_terry(wins_from_histograms(k, resampled), tol=1e-8, init=center))
    tail = (1 - confidence) / 2
    return np.quantile(draws, tail, axis=0), np.quantile(draws, 1 - tail, axis=0)


LADDER_ELO = {"random": 702.0, "simple": 1500.0, "greedy": 1562.0}
"""Fixed Elo ratings of the heuristic ladder in games to 100 under ``pagat``, ``simple`` = 1500:
``greedy`` from its 58.9% against ``simple`` (800 games, seed 2, the README's strength table);
``random`` from the lower end of ``simple``'s interval against it (99.0%; it won all 800 games, so
its true gap is at least this wide)."""
ELO_TAG = "eval_games/elo_vs_ladder"
"""The TensorBoard tag under which the trainer logs :func:`anchored_elo` against :data:`LADDER_ELO`."""


def anchored_elo(results: Mapping[str, tuple[float, int]], anchors: Mapping[str, float] = LADDER_ELO,
                 prior: float = 1.0) -> float:
    """The Elo rating of one agent from its ``results`` against agents of fixed rating:
    ``{name: (score, games)}`` (a draw scores half), names missing from ``anchors`` ignored.
    The maximum-likelihood rating under the Elo model, with ``prior`` virtual drawn games
    against each anchor played (keeping it finite after all wins or all losses); nan when no
    result names an anchor.

    >>> round(anchored_elo({"simple": (50, 100), "ppo": (90, 100)}))  # ppo is no anchor: ignored
    1500
    >>> round(anchored_elo({"simple": (75, 100)}, prior=0))  # 3:1 odds: 191 points above
    1691
    """
    rows = [(anchors[name], score + prior / 2, games + prior) for name, (score, games) in results.items()
            if name in anchors and games + prior > 0]
    if not rows:
        return float("nan")
    rating = float(np.mean([anchor for anchor, _, _ in rows]))
    for _ in range(100):
        expected = [games / (1 + 10 ** ((anchor - rating) / 400)) for anchor, _, games in rows]
        gradient = sum(score for _, score, _ in rows) - sum(expected)
        slope = sum(e * (1 - e / games) for e, (_, _, games) in zip(expected, rows)) * math.log(10) / 400
        step = float(np.clip(gradient / max(slope, 1e-12), -400, 400))
        rating += step
        if abs(step) < 1e-9:
            break
    return rating
