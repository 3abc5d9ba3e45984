"""The SPRT statistics (hsim.analysis.sequential), on synthetic per-board values: no games."""

import math

import numpy as np
import pytest

from hsim.analysis.sequential import H0, H1, SequentialTest, llr_bounds, llr_normal

D0, D1, ALPHA, BETA = 0.0, 0.5, 0.05, 0.05
RUNS = 2000
BATCH = 8  # the runner's default look every 8 boards
MAX_BOARDS = 20_000


def _simulate(mean: float, sd: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Run RUNS sequential tests on normal per-board values; return verdicts and boards."""
    rng = np.random.default_rng(seed)
    verdicts, boards = [], []
    for _ in range(RUNS):
        test = SequentialTest(D0, D1, ALPHA, BETA, batch=BATCH)
        while test.verdict is None and test.n < MAX_BOARDS:
            test.add(rng.normal(mean, sd, 64))
        verdicts.append(test.verdict)
        boards.append(test.n)
    return np.array(verdicts), np.array(boards)


@pytest.mark.parametrize("sd", [1.0, 3.0])
def test_error_rates_by_simulation(sd):
    at_d0, n0 = _simulate(D0, sd, seed=1)
    at_d1, n1 = _simulate(D1, sd, seed=2)
    accept_h0 = float(np.mean(at_d0 == H0))
    accept_h1 = float(np.mean(at_d1 == H1))
    print(
        f"\nsd {sd}: at D0 H0 accepted {accept_h0:.3f}, mean boards {n0.mean():.1f}; "
        f"at D1 H1 accepted {accept_h1:.3f}, mean boards {n1.mean():.1f}"
    )
    assert (at_d0 != None).all() and (at_d1 != None).all()  # noqa: E711 - every run decided
    assert accept_h0 >= 1 - ALPHA - 0.02
    assert accept_h1 >= 1 - BETA - 0.02
    # Wald's approximation of the expected sample size, known variance: the simulated
    # mean must be of its order (the estimated variance and the batching add a little).
    drift = (D1 - D0) ** 2 / (2 * sd**2)
    wald = ((1 - ALPHA) * 2.944 - ALPHA * 2.944) / drift
    assert 0.5 * wald < n0.mean() < 2 * wald + 2 * BATCH


def test_bounds_and_llr():
    lower, upper = llr_bounds(0.05, 0.05)
    assert upper == pytest.approx(math.log(19)) and lower == pytest.approx(-math.log(19))
    lower, upper = llr_bounds(0.05, 0.1)
    assert upper == pytest.approx(math.log(0.9 / 0.05))
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    # n (D1 - D0)(2 x - D0 - D1) / (2 s^2)
    assert llr_normal(40, 0.3, 2.0, -0.3, 0.0) == pytest.approx(40 * 0.3 * 0.9 / 4)
    assert llr_normal(10, 0.0, 0.0, 0.0, 0.5) == -math.inf
    assert llr_normal(10, 1.0, 0.0, 0.0, 0.5) == math.inf
    for bad in (0, 0.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match="alpha"):
            llr_bounds(bad, 0.05)


def test_llr_is_evaluated_only_every_batch_whatever_the_feeding():
    values = np.random.default_rng(3).normal(0.4, 1.5, 400)
    one = SequentialTest(D0, D1, batch=10)
    for v in values:
        one.add([v])
    whole = SequentialTest(D0, D1, batch=10)
    whole.add(values)
    chunks = SequentialTest(D0, D1, batch=10)
    for part in np.array_split(values, 7):
        chunks.add(part)
    assert one.verdict is not None
    assert one.trace == whole.trace == chunks.trace
    assert (one.n, one.verdict) == (whole.n, whole.verdict) == (chunks.n, chunks.verdict)
    assert [n for n, _ in one.trace] == list(range(10, one.n + 1, 10))
    # The statistics are those of the first n values exactly.
    x = values[: one.n]
    assert one.mean == pytest.approx(x.mean())
    assert one.variance == pytest.approx(x.var(ddof=1))
    assert one.llr == pytest.approx(llr_normal(one.n, x.mean(), x.var(ddof=1), D0, D1))
    assert one.interval().n == one.n


def test_verdict_freezes_the_test():
    test = SequentialTest(D0, D1, batch=2)
    assert test.add([5.0, 5.5]) == H1
    n, trace = test.n, list(test.trace)
    assert test.add([-100.0] * 10) == H1
    assert test.n == n and test.trace == trace


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="D0 < D1"):
        SequentialTest(0.5, 0.0)
    with pytest.raises(ValueError, match="D0 < D1"):
        SequentialTest(0.0, float("inf"))
    with pytest.raises(ValueError, match="batch"):
        SequentialTest(0.0, 0.5, batch=0)
    with pytest.raises(ValueError, match="finite"):
        SequentialTest(0.0, 0.5).add([1.0, float("nan")])
