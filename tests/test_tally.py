"""Running sums over batches give the figures of the whole data at once."""

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from hsim.analysis.stats import ratio_interval
from hsim.analysis.tally import ClusteredRatios, Moments, RatioSums, nearest_quantiles


def _frame(games=300, seed=0):
    rng = np.random.default_rng(seed)
    rows = rng.integers(8, 20, games) * 4
    game = np.repeat(np.arange(games) * 7 + 3, rows)  # game ids need not be 0..n-1
    n = len(game)
    return pd.DataFrame(
        {
            "game": game,
            "strategy": pd.Categorical(rng.choice(["a", "b", "c"], n)),
            "seat": rng.integers(0, 4, n).astype(np.int8),
            "points": rng.integers(0, 27, n).astype(np.int16),
            "moon": rng.random(n) < 0.02,
        }
    )


def test_clustered_ratios_over_batches_equal_the_whole_frame():
    frame = _frame()
    whole = ClusteredRatios(["strategy", "seat"], ["points", "moon"])
    whole.add(frame)
    batched = ClusteredRatios(["strategy", "seat"], ["points", "moon"])
    cuts = np.flatnonzero(np.diff(frame["game"].to_numpy())) + 1
    for part in np.split(np.arange(len(frame)), cuts[::17]):  # whole games per batch
        batched.add(frame.iloc[part])
    assert sorted(whole.groups()) == sorted(batched.groups())
    for key in whole.groups():
        strategy, seat = key
        d = frame[(frame["strategy"] == strategy) & (frame["seat"] == seat)]
        per = d.groupby("game")["points"].agg(["sum", "size"])
        want = ratio_interval(per["sum"], per["size"])
        for tally in (whole, batched):
            got = tally.interval(key, "points")
            assert got.n == want.n and tally.rows(key) == len(d)
            assert got.estimate == pytest.approx(want.estimate, rel=1e-12)
            assert got.low == pytest.approx(want.low, rel=1e-12)


def test_a_game_split_over_two_batches_would_count_twice():
    frame = _frame(games=2)
    split = ClusteredRatios([], ["points"])
    half = len(frame) // 4
    split.add(frame.iloc[:half])
    split.add(frame.iloc[half:])
    assert split.interval((), "points").n == 3  # hence batches of whole games


def test_moments_and_ratio_sums_at_the_edges():
    assert Moments().interval() is None and RatioSums().interval() is None
    m = Moments()
    m.add(np.array([7]))
    one = m.interval()
    assert one.estimate == 7 and np.isnan(one.low) and one.n == 1
    r = RatioSums()
    r.add(np.array([0, 0]), np.array([0, 0]))
    assert r.interval() is None  # no denominator
    big = RatioSums()
    big.add(np.array([2**62, 2**62], dtype=np.uint64), np.array([1, 1]))
    assert big.interval().estimate == pytest.approx(2.0**62)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 10, 21, 40, 101, 1000])
def test_nearest_quantiles_match_pandas(n):
    rng = np.random.default_rng(n)
    values = pd.Series(rng.integers(-40, 140, n))
    qs = [0, 0.05, 0.125, 0.25, 0.5, 0.75, 0.875, 0.95, 1]
    want = values.quantile(qs, interpolation="nearest").tolist()
    assert nearest_quantiles(Counter(values.tolist()), qs) == want
    assert nearest_quantiles(Counter(), qs) == []


def test_dense_clusters_give_the_sums_of_the_cells_exactly():
    # The same clusters given as cells (add_cells) and laid out densely, one row per
    # game and one column per group (add_dense): the same RatioSums, Python ints.
    frame = _frame(games=400, seed=3)
    by_cells = ClusteredRatios(["strategy"], ["points", "moon"])
    by_cells.add(frame)
    game, n_games = pd.factorize(frame["game"])
    code = frame["strategy"].cat.codes.to_numpy()
    names = list(frame["strategy"].cat.categories)
    at = game * len(names) + code
    size = len(n_games) * len(names)
    x = np.bincount(at, minlength=size).reshape(-1, len(names)).astype(float)
    values = {
        v: np.bincount(at, weights=frame[v].to_numpy(float), minlength=size).reshape(x.shape)
        for v in ("points", "moon")
    }
    dense = ClusteredRatios(["strategy"], ["points", "moon"])
    dense.add_dense([(n,) for n in names[:-1]] + [None], x, values)  # the last one left out
    assert set(dense.groups()) == {(n,) for n in names[:-1]}
    for key in dense.groups():
        for v in (None, "points", "moon"):
            got, want = dense.sums[key][v], by_cells.sums[key][v]
            assert got == want and isinstance(got.syy, int), (key, v)
    x[0, 0] += 1  # one more row in one cluster: the sums must differ
    other = ClusteredRatios(["strategy"], ["points"])
    other.add_dense([(n,) for n in names], x, values)
    assert other.sums[(names[0],)][None] != by_cells.sums[(names[0],)][None]
