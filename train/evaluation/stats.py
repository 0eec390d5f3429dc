"""Small exact statistics for the evaluation harness (no scipy).

* :func:`sign_test` — exact two-sided binomial sign test (p = 1/2), with :func:`math.comb`.
* :func:`t_quantile` — Student t quantiles from the closed-form t CDF for integer degrees
  of freedom (Abramowitz & Stegun 26.7.3-4), by bisection; a Cornish-Fisher expansion
  above 1000 degrees of freedom (error below 1e-9 there).
* :func:`wilson_interval` — the Wilson score interval of a proportion.
* :func:`pair_cluster_interval` — the interval on a win rate measured in mirrored pairs.

>>> sign_test(0, 10) == 2 / 1024
True
>>> round(t_quantile(0.975, 9), 4)
2.2622
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import NamedTuple, Sequence

_CORNISH_FISHER_DF = 1000


def sign_test(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` fair coin flips.

    ``p = min(1, 2 * P(X <= min(k, n - k)))`` with ``X ~ Binomial(n, 1/2)``; 1 when ``n == 0``.

    >>> sign_test(5, 20) == 2 * 21700 / 2**20  # 0.041389...
    True
    >>> sign_test(3, 6)
    1.0
    """
    if not (isinstance(n, int) and isinstance(k, int)) or n < 0 or not 0 <= k <= n:
        raise ValueError(f"sign_test needs integers 0 <= k <= n, got k={k!r}, n={n!r}")
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1))
    return min(1.0, 2 * tail / 2**n)  # int / int is correctly rounded for any size


def _t_central(theta: float, df: int) -> float:
    """``P(|T| <= sqrt(df) * tan(theta))`` for ``T ~ t(df)``, integer ``df >= 1`` (A&S 26.7.3-4)."""
    c, s = math.cos(theta), math.sin(theta)
    c2 = c * c
    if df % 2:
        if df == 1:
            return 2 * theta / math.pi
        total = term = c
        for k in range(3, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        return 2 / math.pi * (theta + s * total)
    total = term = 1.0
    for k in range(2, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return s * total


def t_quantile(q: float, df: int) -> float:
    """The ``q`` quantile (``0.5 < q < 1``) of Student's t with ``df >= 1`` degrees of freedom.

    >>> round(t_quantile(0.975, 1), 4), round(t_quantile(0.975, 2), 4), round(t_quantile(0.975, 30), 4)
    (12.7062, 4.3027, 2.0423)
    """
    if not 0.5 < q < 1:
        raise ValueError(f"q must be in (0.5, 1), got {q!r}")
    if not isinstance(df, int) or df < 1:
        raise ValueError(f"df must be a positive integer, got {df!r}")
    if df > _CORNISH_FISHER_DF:
        z = NormalDist().inv_cdf(q)
        return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
    central = 2 * q - 1
    lo, hi = 0.0, math.pi / 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if _t_central(mid, df) < central:
            lo = mid
        else:
            hi = mid
    return math.sqrt(df) * math.tan((lo + hi) / 2)


def wilson_interval(p_hat: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p_hat`` observed over ``n`` trials.

    >>> tuple(round(x, 4) for x in wilson_interval(1.0, 10))
    (0.7225, 1.0)
    """
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    z2 = z * z
    center = (p_hat + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p_hat * (1 - p_hat) / n + z2 / (4 * n * n))
    return (0.0 if p_hat <= 0 else max(0.0, center - half)), (1.0 if p_hat >= 1 else min(1.0, center + half))


class Interval(NamedTuple):
    """A point estimate with its confidence interval and how it was computed."""

    estimate: float
    low: float
    high: float
    method: str


def pair_cluster_interval(pair_means: Sequence[float], confidence: float = 0.95) -> Interval:
    """Confidence interval of a win rate measured over mirrored pairs (the pair is the cluster).

    Each entry is one pair's mean score of the same side over its two games (1 win,
    1/2 draw, 0 loss), so it is one of 0, 1/4, 1/2, 3/4, 1.  The two games of a pair share
    a deal stream and are not independent; the pairs are.  The estimate is the mean of the
    pair means, and the interval is Student's t on them:
    ``mean ± t(0.5 + confidence/2, n - 1) * sd / sqrt(n)`` (``sd`` with ``n - 1``), clipped
    to [0, 1].  When that is degenerate — fewer than two pairs, or every pair mean equal
    (e.g. one side won every game) — the Wilson score interval over ``n`` pairs is used
    instead, so a clean sweep of 10 pairs reports [0.72, 1] and not [1, 1].

    >>> iv = pair_cluster_interval([1.0, 0.5, 0.5, 0.0, 0.75, 0.25])
    >>> round(iv.estimate, 4), round(iv.low, 4), round(iv.high, 4), iv.method
    (0.5, 0.129, 0.871, 't')
    """
    n = len(pair_means)
    if n == 0:
        raise ValueError("no pairs to compute an interval from")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    mean = math.fsum(pair_means) / n
    if n >= 2:
        var = math.fsum((x - mean) ** 2 for x in pair_means) / (n - 1)
        if var > 0:
            half = t_quantile(0.5 + confidence / 2, n - 1) * math.sqrt(var / n)
            return Interval(mean, max(0.0, mean - half), min(1.0, mean + half), "t")
    low, high = wilson_interval(mean, n, confidence)
    return Interval(mean, low, high, "wilson")
