"""Small, pure statistics helpers (tested on their own, like fishtest's ``stats``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Interval:
    """An estimate with a two-sided confidence interval: ``low <= estimate <= high``."""

    estimate: float
    low: float
    high: float
    n: int
    confidence: float = 0.95

    def excludes_zero(self) -> bool:
        """Return whether the interval lies strictly on one side of 0."""
        return self.low > 0 or self.high < 0

    def __str__(self) -> str:
        half = (self.high - self.low) / 2
        return f"{self.estimate:+.3f} ± {half:.3f}"


def mean_interval(values, confidence: float = 0.95) -> Interval:
    """Return the mean of ``values`` with a Student-t confidence interval.

    values: independent observations (e.g. one per duplicate board). Needs n >= 2.

    :raises ValueError: fewer than two values.
    """
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n < 2:
        raise ValueError(f"a confidence interval needs at least 2 values, got {n}")
    mean = float(x.mean())
    sem = float(x.std(ddof=1)) / math.sqrt(n)
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sem
    return Interval(mean, mean - half, mean + half, n, confidence)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Return the share ``successes / n`` with its Wilson score interval.

    :raises ValueError: n < 1 or successes outside 0..n.
    """
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n >= 1, got {successes} of {n}")
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), n, confidence)


def ratio_interval(numerators, denominators, confidence: float = 0.95) -> Interval:
    """Return ``sum(numerators) / sum(denominators)`` with a cluster-robust t interval.

    Each pair is one independent cluster (e.g. one game: the points its deals scored and
    the number of deals), so the observations inside a cluster may be correlated. The
    standard error is the delta-method (linearised) one of a ratio estimator,
    ``sqrt(n / (n - 1) * sum((y - R x)^2)) / sum(x)``, with a Student-t quantile on n - 1
    degrees of freedom; with equal denominators it equals :func:`mean_interval` of
    ``y / x``.

    :raises ValueError: fewer than two clusters, different lengths, or a zero total
        denominator.
    """
    y = np.asarray(numerators, dtype=float)
    x = np.asarray(denominators, dtype=float)
    n = len(x)
    if len(y) != n:
        raise ValueError(f"numerators and denominators differ in length: {len(y)} and {n}")
    if n < 2:
        raise ValueError(f"a confidence interval needs at least 2 clusters, got {n}")
    total = float(x.sum())
    if total == 0:
        raise ValueError("the denominators add up to zero")
    ratio = float(y.sum()) / total
    resid = y - ratio * x
    se = math.sqrt(n / (n - 1) * float(resid @ resid)) / total
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * se
    return Interval(ratio, ratio - half, ratio + half, n, confidence)
