"""The sequential probability ratio test (SPRT) of ``hsim sprt``: small and pure.

The test is the generalised SPRT under the normal approximation that fishtest uses for
its "normalised" tests, applied to one value per duplicate board (the candidate's
advantage in points per deal, positive when the candidate did better). With ``n`` boards,
mean ``x̄`` and sample variance ``s²``::

    LLR = n (D1 - D0) (2 x̄ - D0 - D1) / (2 s²)

H1 (advantage ``D1``) is accepted when ``LLR >= ln((1 - β) / α)``, H0 (advantage ``D0``)
when ``LLR <= ln(β / (1 - α))``; in between, play on. The LLR is evaluated only after
every ``batch`` boards, on the first ``n`` boards in board order, so the verdict and the
board count where it falls depend on the values alone, not on how they arrived.

>>> test = SequentialTest(0.0, 0.5, batch=4)
>>> round(test.upper, 3), round(test.lower, 3)
(2.944, -2.944)
>>> test.add([3.0, 2.0, 4.0, 3.5]), test.n
('H1', 4)
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from hsim.analysis.stats import Interval, mean_interval

H0, H1 = "H0", "H1"


def llr_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Return the (lower, upper) LLR bounds of a test with error rates ``alpha`` (accepting
    H1 when H0 holds) and ``beta`` (accepting H0 when H1 holds): ``ln(β / (1 - α))`` and
    ``ln((1 - β) / α)``.

    :raises ValueError: ``alpha`` or ``beta`` outside (0, 0.5).
    """
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not (isinstance(value, (int, float)) and 0 < value < 0.5):
            raise ValueError(f"{name} must be a probability in (0, 0.5), got {value!r}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr_normal(n: int, mean: float, variance: float, d0: float, d1: float) -> float:
    """Return the log-likelihood ratio of H1 (mean ``d1``) over H0 (mean ``d0``) for ``n``
    values with ``mean`` and sample ``variance``, under the normal approximation.

    A variance of 0 (every value equal) makes the evidence certain: +inf above the
    midpoint of ``d0`` and ``d1``, -inf below, 0 on it.

    >>> llr_normal(100, 0.25, 1.0, 0.0, 0.5)
    0.0
    >>> llr_normal(100, 0.5, 1.0, 0.0, 0.5)
    12.5
    """
    numerator = n * (d1 - d0) * (2 * mean - d0 - d1)
    if variance > 0:
        return numerator / (2 * variance)
    return math.copysign(math.inf, numerator) if numerator else 0.0


def check_bounds(d0: float, d1: float) -> None:
    """Refuse hypotheses that are not finite with ``d0 < d1``.

    :raises ValueError: saying what to give instead.
    """
    if not (math.isfinite(d0) and math.isfinite(d1)) or d0 >= d1:
        raise ValueError(
            f"bounds {d0:g},{d1:g}: give D0,D1 with D0 < D1, both finite (points per deal, "
            "e.g. 0,0.3 to show a gain or -0.3,0 to show no regression)"
        )


class SequentialTest:
    """An SPRT fed one value per board, in board order.

    d0, d1: the advantage (points per deal) under H0 and H1, ``d0 < d1``. alpha, beta: the
    error rates. batch: boards between two evaluations of the LLR (the first after
    ``batch`` boards, and never before 2). After a verdict, further values are ignored.

    Attributes: ``n`` (boards the test used), ``llr`` (after the last evaluation),
    ``verdict`` (``"H1"``, ``"H0"`` or None), ``trace`` (a list of (boards, LLR), one per
    evaluation), ``lower`` and ``upper`` (the LLR bounds).

    :raises ValueError: bad bounds, error rates or batch (constructor); a value that is not
        finite (:meth:`add`).
    """

    def __init__(
        self, d0: float, d1: float, alpha: float = 0.05, beta: float = 0.05, batch: int = 1
    ) -> None:
        check_bounds(d0, d1)
        if not (isinstance(batch, int) and batch >= 1):
            raise ValueError(f"batch must be a whole number of boards >= 1, got {batch!r}")
        self.d0, self.d1, self.alpha, self.beta, self.batch = d0, d1, alpha, beta, batch
        self.lower, self.upper = llr_bounds(alpha, beta)
        self.n = 0
        self.llr = 0.0
        self.verdict: str | None = None
        self.trace: list[tuple[int, float]] = []
        self._values: list[np.ndarray] = []
        self._pending = np.empty(0)
        self._sum = 0.0
        self._sumsq = 0.0

    def add(self, values: Iterable[float]) -> str | None:
        """Feed the next boards' values (in board order); return the verdict, if any.

        :raises ValueError: a value is nan or infinite.
        """
        x = np.asarray(values, dtype=float).ravel()
        if not np.isfinite(x).all():
            raise ValueError("per-board values must be finite numbers (got nan or inf)")
        if self.verdict is not None:
            return self.verdict
        pending = np.concatenate((self._pending, x))
        while self.verdict is None:
            # The next look: the next multiple of batch, and at least 2 boards.
            target = max(2, (self.n // self.batch + 1) * self.batch)
            need = target - self.n
            if len(pending) < need:
                break
            self._take(pending[:need])
            pending = pending[need:]
            self._evaluate()
        self._pending = pending if self.verdict is None else np.empty(0)
        return self.verdict

    def finish(self) -> str | None:
        """Take the values fed since the last look and look once more (the last look of a
        test stopped at a board count that is not a multiple of ``batch``); return the
        verdict, if any.
        """
        if self.verdict is None and len(self._pending) and self.n + len(self._pending) >= 2:
            self._take(self._pending)
            self._pending = np.empty(0)
            self._evaluate()
        return self.verdict

    def _take(self, x: np.ndarray) -> None:
        self._values.append(x)
        self.n += len(x)
        self._sum += float(x.sum())
        self._sumsq += float(x @ x)

    @property
    def mean(self) -> float:
        """The mean of the values the test used (nan before any)."""
        return self._sum / self.n if self.n else math.nan

    @property
    def variance(self) -> float:
        """The sample variance (n - 1 denominator) of the values used (nan below 2)."""
        if self.n < 2:
            return math.nan
        return max(0.0, (self._sumsq - self.n * self.mean**2) / (self.n - 1))

    def _evaluate(self) -> None:
        self.llr = llr_normal(self.n, self.mean, self.variance, self.d0, self.d1)
        self.trace.append((self.n, self.llr))
        if self.llr >= self.upper:
            self.verdict = H1
        elif self.llr <= self.lower:
            self.verdict = H0

    def values(self) -> np.ndarray:
        """Return the values the test used, in board order (float64[n])."""
        return np.concatenate(self._values) if self._values else np.empty(0)

    def interval(self, confidence: float = 0.95) -> Interval:
        """Return the mean advantage with its Student-t interval over the boards used.

        :raises ValueError: fewer than two boards used.
        """
        return mean_interval(self.values(), confidence)
