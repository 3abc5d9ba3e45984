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
