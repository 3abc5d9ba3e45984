"""Exact running totals for statistics over runs read in batches (bounded memory).

A report over millions of games cannot hold the games' rows; but every figure it gives
is a function of a few sums that can be added batch by batch, provided a batch never
splits a game (:func:`hsim.analysis.scan.game_batches` guarantees that):

- a ratio clustered by game (points per deal, moon rate, mean place: a ratio estimator
  with a cluster-robust interval, :func:`hsim.analysis.stats.ratio_interval`) needs, per
  group, the number of clusters and the sums of y, x, y*y, x*y, x*x over its clusters
  (:class:`RatioSums`);
- a mean with a t interval (game length, final score) the count, sum and sum of squares
  (:class:`Moments`);
- a Wilson interval two counts; a quantile of integer scores their histogram
  (:func:`nearest_quantiles`).

Sums are Python ints (or Fractions), so the figures are those of the in-memory
computation whatever the batching, to the last bits of floating-point rounding.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd

from hsim.analysis.stats import (
    Interval,
    mean_interval_from_sums,
    ratio_interval_from_sums,
)


def _dot(a: np.ndarray, b: np.ndarray):
    """Return sum(a * b) exactly: int64 when it cannot overflow, else Python ints (ints)
    or a Fraction of the float sum (floats)."""
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        if not len(a):
            return 0
        bound = int(np.abs(a).max()) * int(np.abs(b).max()) * len(a)
        if bound < 2**62:
            return int((a.astype(np.int64) * b.astype(np.int64)).sum())
        return sum(int(x) * int(y) for x, y in zip(a.tolist(), b.tolist(), strict=True))
    return Fraction(float((a * b).sum()))


def _exact(value):
    """Return a numpy sum as a Python int (or an exact Fraction of a float)."""
    value = value.item() if hasattr(value, "item") else value
    return value if isinstance(value, int) else Fraction(value)


@dataclasses.dataclass
class Moments:
    """Count, sum and sum of squares of values seen so far (exact)."""

    n: int = 0
    total: int | Fraction = 0
    squares: int | Fraction = 0

    def add(self, values, scale: int = 1) -> None:
        """Add values (an int or float array); each counts as ``value / scale``."""
        v = np.asarray(values)
        if not len(v):
            return
        total = _dot(v, np.ones(len(v), np.int64))
        sq = _dot(v, v)
        self.n += len(v)
        self.total += Fraction(total, scale) if scale != 1 else total
        self.squares += Fraction(sq, scale * scale) if scale != 1 else sq

    def interval(self, confidence: float = 0.95) -> Interval | None:
        """Return the mean with a t interval; NaN bounds for one value, None for none."""
        if self.n == 0:
            return None
        if self.n < 2:
            m = float(Fraction(self.total))
            return Interval(m, float("nan"), float("nan"), 1, confidence)
        return mean_interval_from_sums(self.n, self.total, self.squares, confidence)


@dataclasses.dataclass
class RatioSums:
    """Sums over clusters (games) of a ratio estimator: sum(y) / sum(x) (exact)."""

    n: int = 0
    sy: int | Fraction = 0
    sx: int | Fraction = 0
    syy: int | Fraction = 0
    sxy: int | Fraction = 0
    sxx: int | Fraction = 0

    def add_sums(self, n, sy, sx, syy, sxy, sxx) -> None:
        """Add the sums of more clusters."""
        self.n += int(n)
        self.sy += _exact(sy)
        self.sx += _exact(sx)
        self.syy += _exact(syy)
        self.sxy += _exact(sxy)
        self.sxx += _exact(sxx)

    def add(self, y, x) -> None:
        """Add clusters: y, x arrays of their numerators and denominators."""
        y = np.asarray(y)
        x = np.asarray(x)
        one = np.ones(len(x), np.int64)
        self.add_sums(len(x), _dot(y, one), _dot(x, one), _dot(y, y), _dot(x, y), _dot(x, x))

    def interval(self, confidence: float = 0.95) -> Interval | None:
        """Return the ratio with its clustered interval (NaN bounds for one cluster; None
        when there is no cluster or the denominators add up to zero)."""
        if self.n == 0 or self.sx == 0:
            return None
        if self.n < 2:
            r = float(Fraction(self.sy) / Fraction(self.sx))
            return Interval(r, float("nan"), float("nan"), 1, confidence)
        return ratio_interval_from_sums(
            self.n, self.sy, self.sx, self.syy, self.sxy, self.sxx, confidence
        )


def _game_codes(game: np.ndarray) -> tuple[np.ndarray, int]:
    """Return (a 0-based code per row, the number of games) of a game column; batches
    come sorted by game, which needs no hashing."""
    if len(game) and np.all(game[1:] >= game[:-1]):
        codes = np.concatenate([[0], np.cumsum(game[1:] != game[:-1])])
        return codes, int(codes[-1]) + 1
    codes, names = pd.factorize(game, sort=False)
    return codes.astype(np.int64), len(names)


def _codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Return (int64 codes, -1 for null; the values they stand for) of a column."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(np.int64), np.asarray(column.cat.categories, object)
    codes, uniques = pd.factorize(column, sort=False)
    return codes.astype(np.int64), np.asarray(uniques, object)


def _int(value: float):
    """Return a float sum of integers as an int (exact below 2**53), else a Fraction."""
    value = float(value)
    return int(value) if value.is_integer() else Fraction(value)


def _key(value):
    """Return a group key as a plain Python value (numpy scalars unwrapped)."""
    return value.item() if hasattr(value, "item") else value


class ClusteredRatios:
    """Ratios clustered by game, per group: ``sum(value) / rows`` for each value column.

    keys: the columns that name a group (e.g. ``["strategy"]``); values: the numerator
    columns (e.g. ``["points", "moon"]``); each row counts 1 in the denominator. Feed it
    frames holding whole games (a game split over two frames would count as two
    clusters); read the results with :meth:`interval` and :meth:`rows`.
    """

    def __init__(self, keys: list[str], values: list[str]):
        self.keys = list(keys)
        self.values = list(values)
        self.sums: dict[tuple, dict[str, RatioSums]] = {}

    def add(self, frame: pd.DataFrame) -> None:
        """Add a frame (columns game, the keys and the values) of whole games; rows whose
        key is null are left out."""
        if not len(frame):
            return
        values = {v: frame[v].to_numpy() for v in self.values if v in frame.columns}
        games, n_games = _game_codes(frame["game"].to_numpy())
        self.add_cells(games, n_games, [_codes(frame[c]) for c in self.keys], values)

    def add_cells(
        self,
        games: np.ndarray,
        n_games: int,
        keys: list[tuple[np.ndarray, np.ndarray]],
        values: dict[str, np.ndarray],
        rows: np.ndarray | None = None,
    ) -> None:
        """Add cells of whole games: each cell some rows of one game and one group.

        games: int64[m], the cell's game as a code 0..n_games-1; keys: per key column,
        (int64[m] codes, -1 for null; the values they stand for); values: per value
        column, float or int [m], the sum of its rows in the cell; rows: int[m], the rows
        in the cell (None: one each, cells are rows). Cells with a null key are left out.
        """
        if not len(games):
            return
        values = {v: w for v, w in values.items() if v in self.values}
        # Sums per (group, game) cluster with bincount over integer codes: one pass per
        # column in C, whatever the number of groups and games.
        code = np.zeros(len(games), np.int64)
        keep = np.ones(len(games), bool)
        names = []
        for codes, uniques in keys:
            keep &= codes >= 0
            code = code * len(uniques) + codes
            names.append(uniques)
        if not keep.all():
            code, games = code[keep], games[keep]
            rows = None if rows is None else rows[keep]
            values = {v: w[keep] for v, w in values.items()}
        span = int(np.prod([len(u) for u in names]))
        if span <= 4 * len(code) + 1024:  # few groups: number them without hashing
            seen = np.flatnonzero(np.bincount(code, minlength=span))
            index = np.zeros(span, np.int64)
            index[seen] = np.arange(len(seen))
            group_codes, groups = index[code], seen
        else:
            group_codes, groups = pd.factorize(code, sort=False)
        m = len(groups)
        ids = group_codes * n_games + games
        if m * n_games <= 4 * len(ids) + 1024:  # dense ids: count without hashing
            counts = np.bincount(ids, minlength=m * n_games)
            cluster_ids = np.flatnonzero(counts)
            remap = np.zeros(m * n_games, np.int64)
            remap[cluster_ids] = np.arange(len(cluster_ids))
            clusters = remap[ids]
        else:
            clusters, cluster_ids = pd.factorize(ids, sort=False)
        owner = cluster_ids // n_games  # the group of each cluster
        # float64 sums of integers are exact below 2**53
        if rows is None:
            x = np.bincount(clusters).astype(np.float64)
        else:
            x = np.bincount(clusters, weights=rows.astype(np.float64), minlength=len(cluster_ids))
        sums = {
            "n": np.bincount(owner, minlength=m),
            "sx": np.bincount(owner, weights=x, minlength=m),
            "sxx": np.bincount(owner, weights=x * x, minlength=m),
        }
        for v, w in values.items():
            y = np.bincount(clusters, weights=w.astype(np.float64), minlength=len(x))
            sums[v] = tuple(np.bincount(owner, weights=t, minlength=m) for t in (y, y * y, x * y))
        radix = [len(u) for u in names]
        for i, g in enumerate(groups):
            key = []
            rest = int(g)
            for r, u in zip(reversed(radix), reversed(names), strict=True):
                key.append(_key(u[rest % r]))
                rest //= r
            key = tuple(reversed(key))
            group = self.sums.setdefault(key, {})
            n, sx, sxx = sums["n"][i], _int(sums["sx"][i]), _int(sums["sxx"][i])
            group.setdefault(None, RatioSums()).add_sums(n, 0, sx, 0, 0, sxx)
            for v in values:
                sy, syy, sxy = (_int(t[i]) for t in sums[v])
                group.setdefault(v, RatioSums()).add_sums(n, sy, sx, syy, sxy, sxx)

    def add_dense(
        self, keys: list[tuple | None], x: np.ndarray, values: dict[str, np.ndarray]
    ) -> None:
        """Add clusters laid out densely: one row per game, one column per group.

        keys: per column, the group's key (a tuple of plain values; None: leave the
        column out); x: float64[G, K], the rows of each (game, group) cluster, 0 where
        the group has no row in the game (no cluster); values: per value column,
        float64[G, K], the sum of its rows in each cluster. Sums of integers, exact as
        :meth:`add_cells`' (below 2**53), and the same sums whatever the layout.
        """
        if not x.size:
            return
        values = {v: w for v, w in values.items() if v in self.values}
        n = np.count_nonzero(x > 0, axis=0)
        # einsum: column sums of products without a temporary array (integers, so any
        # order of the additions gives the same exact sums)
        sx, sxx = np.einsum("gk->k", x), np.einsum("gk,gk->k", x, x)
        sums = {
            v: (np.einsum("gk->k", w), np.einsum("gk,gk->k", w, w), np.einsum("gk,gk->k", x, w))
            for v, w in values.items()
        }
        for k in np.flatnonzero(n):
            key = keys[k]
            if key is None:
                continue
            group = self.sums.setdefault(key, {})
            count, cx, cxx = int(n[k]), _int(sx[k]), _int(sxx[k])
            group.setdefault(None, RatioSums()).add_sums(count, 0, cx, 0, 0, cxx)
            for v, (sy, syy, sxy) in sums.items():
                group.setdefault(v, RatioSums()).add_sums(
                    count, _int(sy[k]), cx, _int(syy[k]), _int(sxy[k]), cxx
                )

    def groups(self) -> list[tuple]:
        """Return the groups seen (tuples of key values), in no particular order."""
        return list(self.sums)

    def rows(self, key: tuple) -> int:
        """Return the rows seen for a group (the sum of the denominators)."""
        acc = self.sums.get(key, {}).get(None)
        return 0 if acc is None else int(acc.sx)

    def has(self, key: tuple, value: str) -> bool:
        """Return whether a value column was seen for a group."""
        return value in self.sums.get(key, {})

    def interval(self, key: tuple, value: str, confidence: float = 0.95) -> Interval | None:
        """Return the group's ratio of ``value`` with its interval (None: no rows)."""
        acc = self.sums.get(key, {}).get(value)
        return None if acc is None else acc.interval(confidence)


def nearest_quantiles(counts: Counter, quantiles) -> list:
    """Return the quantiles of values given as a histogram (value -> count), as
    ``pandas.Series.quantile(q, interpolation="nearest")`` gives them on the values
    themselves (numpy's ``nearest``: the order statistic ``round((n - 1) q)``, halves to
    even). Empty histogram: an empty list."""
    n = sum(counts.values())
    if n == 0:
        return []
    values = sorted(counts)
    cum = np.cumsum([counts[v] for v in values])
    # As pandas: q * 100 handed to numpy's percentile, which divides by 100 again.
    qs = np.true_divide(np.asarray(list(quantiles), dtype=float) * 100.0, 100)
    index = np.around((n - 1) * qs).astype(np.intp)
    return [values[int(np.searchsorted(cum, i, side="right"))] for i in index]
