"""Small, pure statistics helpers (tested on their own, like fishtest's ``stats``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

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


def mean_interval_from_sums(n: int, total, total_squares, confidence: float = 0.95) -> Interval:
    """Return :func:`mean_interval` of n values given only their sum and sum of squares.

    total, total_squares: sum of the values and of their squares (ints or Fractions, for an
    exact variance; floats lose digits to cancellation when the spread is small). Lets a
    mean be computed over data read in batches, never all in memory.

    :raises ValueError: n < 2.
    """
    if n < 2:
        raise ValueError(f"a confidence interval needs at least 2 values, got {n}")
    mean = Fraction(total) / n
    var = (Fraction(total_squares) - mean * Fraction(total)) / (n - 1)
    sem = math.sqrt(max(0.0, float(var))) / math.sqrt(n)
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sem
    m = float(mean)
    return Interval(m, m - half, m + half, n, confidence)


def ratio_interval_from_sums(
    n: int, sum_y, sum_x, sum_yy, sum_xy, sum_xx, confidence: float = 0.95
) -> Interval:
    """Return :func:`ratio_interval` of n clusters given only sums over the clusters.

    sum_y, sum_x: sums of the numerators y and denominators x; sum_yy, sum_xy, sum_xx: of
    y*y, x*y, x*x (ints or Fractions give the residual sum of squares exactly:
    ``sum((y - R x)^2) = sum_yy - 2 R sum_xy + R^2 sum_xx``). Lets the interval be
    computed over data read in batches, never all in memory.

    :raises ValueError: fewer than two clusters, or a zero total denominator.
    """
    if n < 2:
        raise ValueError(f"a confidence interval needs at least 2 clusters, got {n}")
    if sum_x == 0:
        raise ValueError("the denominators add up to zero")
    ratio = Fraction(sum_y) / Fraction(sum_x)
    resid = Fraction(sum_yy) - 2 * ratio * Fraction(sum_xy) + ratio * ratio * Fraction(sum_xx)
    total = float(sum_x)
    se = math.sqrt(n / (n - 1) * max(0.0, float(resid))) / total
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * se
    r = float(ratio)
    return Interval(r, r - half, r + half, n, confidence)
