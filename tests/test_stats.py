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
