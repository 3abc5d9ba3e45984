"""The interval code against known values."""

import math

import pytest

from hsim.analysis.stats import mean_interval, wilson_interval


def test_wilson_known_values():
    # Wilson (1927) / Newcombe (1998) example: 81 of 263 -> 0.2553 .. 0.3662 at 95%.
    ci = wilson_interval(81, 263)
    assert ci.estimate == pytest.approx(81 / 263)
    assert ci.low == pytest.approx(0.2553, abs=1e-4)
    assert ci.high == pytest.approx(0.3662, abs=1e-4)
    # 0 of 10: the lower bound is 0 and the upper bound is z^2 / (n + z^2).
    ci = wilson_interval(0, 10)
    z2 = 1.959963984540054**2
    assert ci.low == 0 and ci.high == pytest.approx(z2 / (10 + z2))


def test_mean_interval_known_values():
    # mean 3, sd 1.5811 (1..5), n 5: t(0.975, 4) = 2.776445 -> half width 1.963243.
    ci = mean_interval([1, 2, 3, 4, 5])
    assert ci.estimate == 3
    assert (ci.high - ci.low) / 2 == pytest.approx(
        2.776445 * math.sqrt(2.5) / math.sqrt(5), rel=1e-6
    )
    assert ci.excludes_zero() and not mean_interval([-1, 0, 1, 2]).excludes_zero()


def test_bad_input():
    with pytest.raises(ValueError):
        mean_interval([1.0])
    with pytest.raises(ValueError):
        wilson_interval(5, 3)


def test_intervals_from_sums_equal_those_from_the_values():
    from fractions import Fraction

    import numpy as np

    from hsim.analysis.stats import (
        mean_interval_from_sums,
        ratio_interval,
        ratio_interval_from_sums,
    )

    rng = np.random.default_rng(4)
    y = rng.integers(-30, 300, 500)
    x = rng.integers(1, 14, 500)
    want = ratio_interval(y, x)
    got = ratio_interval_from_sums(
        500, int(y.sum()), int(x.sum()), int(y @ y), int(x @ y), int(x @ x)
    )
    for key in ("estimate", "low", "high", "n"):
        assert getattr(got, key) == pytest.approx(getattr(want, key), rel=1e-12)
    want = mean_interval(y / 4)
    got = mean_interval_from_sums(500, Fraction(int(y.sum()), 4), Fraction(int(y @ y), 16))
    for key in ("estimate", "low", "high", "n"):
        assert getattr(got, key) == pytest.approx(getattr(want, key), rel=1e-12)
    # Exact sums: a tiny spread around a large mean keeps its width (floats would not).
    big = [10**12, 10**12 + 1, 10**12 + 2]
    got = mean_interval_from_sums(3, sum(big), sum(v * v for v in big))
    assert (got.high - got.low) / 2 == pytest.approx(4.302653 / math.sqrt(3), rel=1e-4)
    with pytest.raises(ValueError):
        mean_interval_from_sums(1, 1, 1)
    with pytest.raises(ValueError):
        ratio_interval_from_sums(3, 1, 0, 1, 0, 0)
