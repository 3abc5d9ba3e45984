"""Per-strategy report of a run: points per deal, win rate, places, moons, with intervals.

Hearts runs are broken down by pass direction; Kierki runs (docs/rules.md part B: 4 or 3
seats, higher scores better, no moon, ``points`` = ``deal_score``) by deal kind instead,
and their moon columns are left out.

Intervals (95% by default):

- points per deal, score per deal, moon rate, mean place, score per deal of a kind:
  ratio estimators with a cluster-robust t interval over games
  (:func:`hsim.analysis.stats.ratio_interval`), because deals of one game are
  correlated (and copies of a strategy share games);
- win rate and the place shares: Wilson intervals over seat-games (seat-games of one game
  are treated as independent; with several copies of a strategy at a table they are
  in fact negatively correlated, which makes these intervals a little wide).

Games censored under a re-scoring (their recorded deals ran out) are left out of the
win rate and places, and counted; above :data:`CENSORED_WARNING` of the games the report
carries a warning (the games left are biased toward short ones).

Memory: :func:`build_report` reads the run in batches of whole games
(:mod:`hsim.analysis.scan`), only the columns it needs, and keeps running sums
(:mod:`hsim.analysis.tally`), so its memory does not grow with the run; a re-scoring
re-scores each batch on its own. The frame functions (:func:`report_frames`,
:func:`strategy_rows`, …) give the same figures for frames already in memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from hsim.analysis.cells import (
    RESCORED_COLUMNS,
    DealCells,
    GameColumns,
    dictionary_codes,
    rescored_cells,
    rescores_as_cells,
    seat_clusters,
    table_cells,
)
from hsim.analysis.frames import (
    ANALYSIS_DEAL_COLUMNS,
    N_SEATS,
    Run,
    RunFolderError,
    SummaryTally,
    WinnerTally,
    _scoring_mask,
    _upgrade,
    as_rules,
    check_rescoring,
    compare_games,
    interval_dict,
    load_run,
    moon_rate,
    no_games_message,
    rescore_frames,
    rescore_run,
    safe_mean_interval,
    scoring_codes_mask,
)
from hsim.analysis.scan import BATCH_ROWS, RunFolder, aligned, open_run
from hsim.analysis.stats import wilson_interval
from hsim.analysis.tally import ClusteredRatios
from hsim.errors import HsimError, install_hint
from hsim.model.rules import (
    KIERKI_KINDS,
    Rules,
    RulesError,
    canonical,
    differences,
    format_value,
)
from hsim.runner.progress import progress_bar

#: A re-scoring that censors more than this share of the games carries a warning.
CENSORED_WARNING = 0.05
#: The deals columns the report reads (re-scoring reads ANALYSIS_DEAL_COLUMNS).
REPORT_DEAL_COLUMNS = ("player", "strategy", "pass_direction", "points", "moon", "deal_score",
                       "kind")  # fmt: skip
#: The games columns the report reads.
REPORT_GAME_COLUMNS = (
    "game", "board", "rotation", "seat", "player", "strategy", "scoring", "score", "place",
    "winner", "deals", "ended_by",
)  # fmt: skip
PASS_DIRECTIONS = ("left", "right", "across", "hold")
#: The deals columns a re-scoring reads.
_RESCORE_COLUMNS = ["game", "deal", "seat", "after_end", *ANALYSIS_DEAL_COLUMNS]


def _is_base(scoring: str | None) -> bool:
    return scoring is None or scoring.strip() == "base"


def report_rules(played: Rules, scoring: str | None) -> Rules | None:
    """Return the rules to re-score a run played under ``played`` for ``scoring``, or None
    when ``scoring`` is the run's own (None, ``base``, or a Kierki run's own rules).

    :raises RulesError: the scoring is invalid, changes play (docs/rules.md A1), or re-scores
        a Kierki run (Kierki has no scoring options; its own rules are its recorded games).
    """
    if _is_base(scoring):
        return None
    if not scoring.strip():
        raise RulesError(
            "--scoring is empty: give options such as omnibus=true, a rules string, or base"
        )
    rules = as_rules(scoring, played)
    if played.is_kierki and rules == played:
        return None
    check_rescoring(played, rules)
    return rules


def report_frames(run: Run, scoring: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (deals, games) to report ``run`` (frames in memory) under ``scoring``.

    scoring: None or ``base``: the deals as played (``after_end`` rows dropped) and the
    recorded games. Otherwise a rules string or ``name=value`` assignments on the played
    rules (scoring options only): the deals counted under that scoring, with its
    ``deal_score``, ``score`` and ``moon``, and its games, re-scored from the recorded
    deals (with ``censored`` games where the deals ran out).

    :raises RulesError: the scoring is invalid, changes play, or re-scores a Kierki run
        (Kierki has no scoring options; its own rules are its recorded games).
    """
    rules = report_rules(run.rules, scoring)
    if rules is None:
        games = run.games if run.scoring == "base" else run.games_for("base")
        return run.base_deals, games
    result = rescore_run(run, rules)
    deals = result.deals[result.deals["counted"].to_numpy(bool)]
    return deals, result.games


def report_batches(
    folder: RunFolder, scoring: str | None = None, rows: int = BATCH_ROWS
) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
    """Yield what :func:`report_frames` gives, batch by batch: (deals, games) frames of
    the same whole games, in game order, each of about ``rows`` deal rows.

    Reads only the columns the report needs; a re-scoring re-scores each batch on its
    own (a batch holds whole games, and a game's score depends on its deals alone).

    :raises RulesError: as :func:`report_frames`. :raises RunFolderError: the run holds
        no games, or a part is damaged.
    """
    if not folder.rows.get("games"):
        raise RunFolderError(no_games_message(folder))
    rules = report_rules(folder.rules, scoring)
    if rules is not None:
        deal_columns = _RESCORE_COLUMNS
    else:
        deal_columns = ["game", "seat", "after_end", *REPORT_DEAL_COLUMNS]
    deals = folder.batches("deals", deal_columns, rows)
    if rules is not None:
        for table in deals:
            yield _rescored_frames(table, rules, folder.rules)
        return
    for d, g in _played_tables(folder, deals, rows):
        yield _frame(d), g


def _rescored_frames(table: pa.Table, rules: Rules, played: Rules):
    """Return (the counted deals, the games) of a batch of deal rows re-scored."""
    result = rescore_frames(_frame(table), rules, played)
    counted = result.deals["counted"].to_numpy(bool)
    return result.deals[counted], result.games


def _played_tables(
    folder: RunFolder, deals: Iterator[pa.Table], rows: int
) -> Iterator[tuple[pa.Table | None, pd.DataFrame]]:
    """Yield (the deals of the games as played, a pyarrow table without the ``after_end``
    rows; their games rows of the played scoring, a frame) batch by batch."""
    games = folder.batches("games", REPORT_GAME_COLUMNS, rows)
    for d, g in aligned(deals, games):
        g = _frame(g)
        if d is not None and "after_end" in d.column_names:
            d = d.filter(pc.invert(d.column("after_end")))
        if len(g):
            g = g[_scoring_mask(g, folder.rules, folder.rules)]
            g = g.assign(censored=False)
        yield d, g


def _report_tables(folder: RunFolder, rows: int = BATCH_ROWS, tally: ReportTally | None = None):
    """Yield what :func:`report_batches` gives without a re-scoring, as pyarrow tables:
    (the deals of whole games, ``after_end`` rows included; the games rows of those
    games, of the played scoring, as :func:`played_games` gives them), for
    :meth:`ReportTally.add_table`. With ``tally``, only the deals columns it reads (no
    ``player`` without a breakdown by player; the split column of its game)."""
    deal_columns = ["game", "seat", "after_end", *REPORT_DEAL_COLUMNS]
    game_columns = REPORT_GAME_COLUMNS
    if tally is not None:
        other = "pass_direction" if tally.kierki else "kind"
        skip = {other, *(() if "player" in tally.keys else ("player",))}
        deal_columns = [c for c in deal_columns if c not in skip]
        game_columns = [c for c in game_columns if c not in ("board", "rotation")]
    deals = folder.batches("deals", deal_columns, rows)
    games = folder.batches("games", game_columns, rows)
    for d, g in aligned(deals, games):
        yield d, played_games(g, folder.rules)


def played_games(table: pa.Table | None, rules: Rules) -> GameColumns | pd.DataFrame:
    """Return the games rows of a batch (a pyarrow table) scored as played under
    ``rules`` (a ``--score-also`` run's other scorings left out), uncensored: as
    :class:`hsim.analysis.cells.GameColumns`, or as a frame (``censored`` added) when the
    table does not fit them."""
    if table is not None and len(table):
        keep = None
        if "scoring" in table.column_names:
            codes, names = dictionary_codes(table.column("scoring"))
            keep = scoring_codes_mask(codes, list(names), rules, rules)
        columns = GameColumns.of_table(table, keep)
        if columns is not None:
            return columns
    g = _frame(table)
    if len(g):
        g = g[_scoring_mask(g, rules, rules)]
    return g.assign(censored=False)


def _frame(table) -> pd.DataFrame:
    """Return a batch as pandas, schema-1 columns added (a run without ``player``)."""
    if table is None:
        return pd.DataFrame()
    frame = table.to_pandas()
    return frame if "player" in frame.columns else _upgrade(frame)


def _wilson(k: int, n: int) -> dict[str, float] | None:
    return interval_dict(wilson_interval(k, n)) if n else None


def _done(games: pd.DataFrame) -> pd.DataFrame:
    return games[~games["censored"].to_numpy(bool)] if "censored" in games else games


class KeyTally:
    """:func:`strategy_rows` over batches: the rows of one breakdown (``by`` is
    ``strategy``, ``seat`` or ``player``) from (deals, games) batches of whole games.

    seats: players at the table (3 to 6); moons: count moons (Hearts).
    """

    def __init__(self, by: str = "strategy", seats: int = N_SEATS, moons: bool = True):
        self.by = by
        self.seats = seats
        self.moons = moons
        values = ["points", "deal_score"] + (["moon"] if moons else [])
        self.deals = ClusteredRatios([by], values)
        self.places = ClusteredRatios([by], ["place"])
        self.all_games: Counter = Counter()
        self.wins: Counter = Counter()
        self.place_counts: Counter = Counter()
        self.strategies: dict[Any, set] = {}

    def add(self, deals: pd.DataFrame, games: pd.DataFrame) -> None:
        """Add a batch: the counted deals and the games rows of the same whole games."""
        by = self.by
        if len(deals):
            self.deals.add(deals)
        if not len(games):
            return
        self.all_games.update(_counts(games, by))
        if by != "strategy":
            pairs = games.groupby([by, "strategy"], observed=True).size()
            for key, name in pairs.index:
                self.strategies.setdefault(_plain(key), set()).add(str(name))
        done = _done(games)
        if not len(done):
            return
        done = done.assign(place=done["place"].astype(np.int64))
        self.places.add(done)
        won = done[done["winner"].astype(bool).to_numpy()]
        self.wins.update(_counts(won, by))
        per = done.groupby([by, "place"], observed=True).size()
        for (key, place), n in per.items():
            self.place_counts[(_plain(key), int(place))] += int(n)

    def add_columns(self, games: GameColumns) -> None:
        """Add the games rows of a batch of whole games as numpy columns: what :meth:`add`
        adds from them, counted with ``bincount`` over codes, the places' clusters laid
        out densely (one row per game, one column per value of ``by``)."""
        if not len(games):
            return
        codes, names = self._codes(games)
        cast = str if self.by == "strategy" else _plain
        _count(self.all_games, codes, names, cast)
        if self.by != "strategy":
            pairs = games.strategy
            width = len(pairs[1])
            both = np.flatnonzero(np.bincount(codes * width + pairs[0]))
            for code in both:
                key = _plain(names[code // width])
                self.strategies.setdefault(key, set()).add(str(pairs[1][code % width]))
        done = ~games.censored
        if not done.any():
            return
        if not done.all():
            games, codes = games.take(done), codes[done]
        starts, game = games.starts(), games.game_codes()
        width = len(names)
        keys = [(_plain(name),) for name in names]
        place = games.place
        cluster, size = game * width + codes, len(starts) * width
        x = np.bincount(cluster, minlength=size).astype(np.float64).reshape(-1, width)
        y = np.bincount(cluster, weights=place, minlength=size).reshape(-1, width)
        self.places.add_dense(keys, x, {"place": y})
        _count(self.wins, codes[games.winner], names, cast)
        top = int(place.max()) + 1
        per = np.bincount(codes * top + place)
        for code in np.flatnonzero(per):
            key = (_plain(names[code // top]), int(code % top))
            self.place_counts[key] += int(per[code])

    def _codes(self, games: GameColumns) -> tuple[np.ndarray, np.ndarray]:
        if self.by == "strategy":
            return games.strategy
        column = games.seat if self.by == "seat" else games.player
        return column, np.array(range(int(column.max()) + 1), dtype=object)

    def add_dense_cells(self, cells: DealCells, x: np.ndarray, y: dict[str, np.ndarray]) -> None:
        """Add the counted deals of whole games as cells (:mod:`hsim.analysis.cells`): what
        :meth:`add` adds from them, clusters laid out densely.

        x: float64[G, S], the rows of each (game, seat) of ``cells``; y: per value, its
        sums, float64[G, S]."""
        if self.by == "seat":
            keys = [(s,) for s in range(cells.seats)]
            self.deals.add_dense(keys, x, y)
            return
        codes, names = cells.seat_keys(self.by, np.arange(cells.rows.shape[0] * cells.seats))
        xs, ys = seat_clusters(x, y, codes.reshape(x.shape), len(names))
        self.deals.add_dense([(_plain(name),) for name in names], xs, ys)

    def keys(self) -> list:
        """Return the values of ``by`` seen, sorted."""
        seen = {k[0] for k in self.deals.groups()} | set(self.all_games)
        return sorted(seen)

    def rows(self) -> list[dict]:
        """Return the rows of :func:`strategy_rows`."""
        out = []
        for value in self.keys():
            key = (value,)
            n = self.places.rows(key)
            seat_deals = self.deals.rows(key)
            row: dict[str, Any] = {self.by: value}
            if self.by != "strategy":
                row["strategies"] = sorted(self.strategies.get(value, ()))
            row.update(
                {
                    "seat_games": n,
                    "seat_deals": seat_deals,
                    "censored": self.all_games.get(value, 0) - n,
                    "points_per_deal": self._ratio(key, "points") if seat_deals else None,
                    "score_per_deal": self._ratio(key, "deal_score") if seat_deals else None,
                    **(
                        {"moon_rate": self._ratio(key, "moon") if seat_deals else None}
                        if self.moons
                        else {}
                    ),
                    "win_rate": _wilson(self.wins.get(value, 0), n),
                    "mean_place": interval_dict(self.places.interval(key, "place")) if n else None,
                    "places": {
                        str(p): _wilson(self.place_counts.get((value, p), 0), n)
                        for p in range(1, self.seats + 1)
                    },
                }
            )
            out.append(row)
        return out

    def _ratio(self, key: tuple, value: str) -> dict | None:
        if not self.deals.has(key, value):
            return None
        return interval_dict(self.deals.interval(key, value))


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def _count(counter: Counter, codes: np.ndarray, names: np.ndarray, cast) -> None:
    """Add to ``counter`` the rows of each code (nulls, -1, left out), keyed by name."""
    per = np.bincount(codes[codes >= 0], minlength=len(names))
    for code in np.flatnonzero(per):
        counter[cast(names[code])] += int(per[code])


def _counts(frame: pd.DataFrame, by: str) -> dict:
    cast = str if by == "strategy" else _plain
    return {cast(k): int(v) for k, v in frame[by].value_counts().items() if v}


class SplitTally:
    """:func:`pass_direction_rows` / :func:`kind_rows` over batches: per (``by`` value,
    ``column`` value), seat_deals and the ``values`` ratios, clustered by game."""

    def __init__(self, by: str, column: str, order: tuple, values: dict[str, str]):
        self.by, self.column, self.order, self.values = by, column, order, values
        self.ratios = ClusteredRatios([by, column], list(dict.fromkeys(values.values())))

    def add(self, deals: pd.DataFrame) -> None:
        """Add the counted deals of whole games."""
        if not len(deals):
            return
        self.ratios.add(deals)

    def add_dense_cells(self, cells: DealCells) -> None:
        """Add the counted deals of whole games as cells (``by`` must be strategy): what
        :meth:`add` adds from them, clusters laid out densely (one row per game, one
        column per strategy and split value)."""
        g, s, width = cells.rows.shape
        k = len(cells.strategies)
        x, y = seat_clusters(cells.rows.astype(np.float64), cells.sums, cells.strategy, k)
        x, y = x.reshape(g, k * width), {v: w.reshape(g, k * width) for v, w in y.items()}
        # the last slot of each strategy: split value null, left out as add_cells does
        keys = [
            None if d == width - 1 else (_plain(cells.strategies[i]), _plain(cells.split[d]))
            for i in range(k)
            for d in range(width)
        ]
        self.ratios.add_dense(keys, x, y)

    def rows(self) -> list[dict]:
        """Return the rows, sorted by ``by``, then ``column`` in ``order`` (values not in
        it last, by name)."""
        rank = {value: i for i, value in enumerate(self.order)}
        rows = []
        for key in self.ratios.groups():
            value, group = key
            row = {self.by: value, self.column: group, "seat_deals": self.ratios.rows(key)}
            for name, v in self.values.items():
                has = self.ratios.has(key, v)
                row[name] = interval_dict(self.ratios.interval(key, v)) if has else None
            rows.append(row)
        rows.sort(
            key=lambda r: (str(r[self.by]), rank.get(r[self.column], len(rank)), r[self.column])
        )
        return rows

    def mean(self, key: tuple, value: str) -> float:
        """Return the plain mean of ``value`` over a group's rows (NaN when none)."""
        acc = self.ratios.sums.get(key, {}).get(value)
        if acc is None or not acc.sx:
            return float("nan")
        return float(acc.sy / acc.sx)


def _pass_tally(by: str = "strategy") -> SplitTally:
    values = {"points_per_deal": "points", "moon_rate": "moon"}
    return SplitTally(by, "pass_direction", PASS_DIRECTIONS, values)


def _kind_tally(by: str = "strategy") -> SplitTally:
    return SplitTally(by, "kind", KIERKI_KINDS, {"score_per_deal": "deal_score"})


def strategy_rows(
    deals: pd.DataFrame, games: pd.DataFrame, by: str = "strategy", rules: Rules | None = None
) -> list[dict]:
    """Return one dict per value of ``by`` (``strategy``, ``seat`` or ``player``), sorted.

    rules: the rules of the games (None: Hearts), for the seat count and the moons.
    Keys: the ``by`` value; strategies (the specs seen, for seat/player); seat_games,
    seat_deals (int); censored (seat-games left out); points_per_deal, score_per_deal
    (``deal_score``: after moon and bonuses; in Kierki the same as points), moon_rate
    (moons shot per seat-deal; Hearts only), mean_place: ``{estimate, low, high, n}``
    clustered by game; win_rate: Wilson; places: share of seat-games in place 1..seats
    (``{"1": {...}, ...}``, Wilson). :class:`KeyTally` gives the same over batches.
    """
    seats = N_SEATS if rules is None else rules.players
    tally = KeyTally(by, seats, rules is None or not rules.is_kierki)
    tally.add(deals, games)
    return tally.rows()


def pass_direction_rows(deals: pd.DataFrame, by: str = "strategy") -> list[dict]:
    """Return one dict per (``by`` value, pass direction): seat_deals, points_per_deal and
    moon_rate (intervals clustered by game). Directions in the order left, right,
    across, hold."""
    tally = _pass_tally(by)
    tally.add(deals)
    return tally.rows()


def kind_rows(deals: pd.DataFrame, by: str = "strategy") -> list[dict]:
    """Return one dict per (``by`` value, Kierki deal kind): seat_deals (int) and
    score_per_deal (mean ``deal_score``, the seat's signed points for the deal, with an
    interval clustered by game). Kinds in the order they are played (docs/rules.md B1).
    """
    tally = _kind_tally(by)
    tally.add(deals)
    return tally.rows()


class ReportTally:
    """Everything :func:`build_report` and :func:`plot_report` need, summed over
    (deals, games) batches of whole games (:func:`report_batches`).

    rules: the rules the games are scored under; duplicate: add the by-player rows;
    plots: also keep the histograms the charts draw (``"games"``: only the final scores
    and game lengths, not the points per deal).
    """

    def __init__(self, rules: Rules, duplicate: bool = False, plots: bool | str = False):
        self.rules = rules
        self.kierki = rules.is_kierki
        moons = not self.kierki
        self.summary = SummaryTally(rules, moons=True)
        self.keys = {
            by: KeyTally(by, rules.players, moons)
            for by in ("strategy", "seat", *(("player",) if duplicate else ()))
        }
        self.split = _kind_tally() if self.kierki else _pass_tally()
        self.plots = plots
        self.final_scores: dict[str, Counter] = {}
        self.lengths: Counter = Counter()
        self.points: dict[str, Counter] = {}
        #: The rules the run was played under (set by :func:`report_tally`).
        self.played = rules

    def add(self, deals: pd.DataFrame, games: pd.DataFrame) -> None:
        """Add a batch (counted deals and games rows of the same whole games)."""
        self.summary.add(games, deals)
        for tally in self.keys.values():
            tally.add(deals, games)
        self.split.add(deals)
        if self.plots:
            self._add_plots(deals, games)

    def add_table(self, deals: pa.Table | None, games: GameColumns | pd.DataFrame) -> None:
        """Add a batch: the deals of whole games as a pyarrow table (``after_end`` rows
        are left out), the games rows of the same games (uncensored, of the scoring
        reported). Sums the deals per cell (:mod:`hsim.analysis.cells`), or as frames
        with :meth:`add` when the batch does not fit the cell form or the charts need
        every deal's points."""
        cells = None
        if (
            self.plots in (False, "games")
            and deals is not None
            and len(deals)
            and isinstance(games, GameColumns)
        ):
            split = self.split.column
            players = "player" in self.keys
            cells = table_cells(deals, split, ["points", "deal_score", "moon"], players)
        if cells is None:
            if isinstance(games, GameColumns):
                games = games.frame()
            if deals is not None and "after_end" in deals.column_names:
                deals = deals.filter(pc.invert(deals.column("after_end")))
            self.add(_frame(deals) if deals is not None else pd.DataFrame(), games)
            return
        self.add_cells(cells, games)

    def add_cells(self, cells: DealCells, games: GameColumns) -> None:
        """Add a batch: the counted deals as cells, the games rows of the same whole
        games (:meth:`add` with the deals summed per cell and the games as numpy
        columns)."""
        self.summary.add_columns(games)
        if self.summary.moons and len(games):
            rows, sums, top = cells.game_totals()
            keep = rows > 0
            if games.censored.any():
                keep &= np.isin(cells.games, np.unique(games.game[~games.censored]))
            if keep.any() and "moon" in sums:
                seats = int(top[keep].max()) + 1
                moons = sums["moon"][keep].astype(np.int64)
                self.summary.add_moons(moons, rows[keep], seats)
        # einsum: sums over the short last axis (split values) quicker than sum(axis=2)
        x = np.einsum("gsd->gs", cells.rows).astype(np.float64)
        y = {v: np.einsum("gsd->gs", w) for v, w in cells.sums.items()}
        for tally in self.keys.values():
            tally.add_columns(games)
            tally.add_dense_cells(cells, x, y)
        self.split.add_dense_cells(cells)
        if self.plots:
            self._add_plots(pd.DataFrame(), games.frame())

    def _add_plots(self, deals: pd.DataFrame, games: pd.DataFrame) -> None:
        done = _done(games) if len(games) else games
        if len(done):
            for name, g in done.groupby(done["strategy"].astype(str)):
                self.final_scores.setdefault(name, Counter()).update(
                    g["score"].value_counts().to_dict()
                )
            self.lengths.update(done.groupby("game")["deals"].first().value_counts().to_dict())
        if len(deals) and not self.kierki and self.plots != "games":
            for name, d in deals.groupby(deals["strategy"].astype(str)):
                self.points.setdefault(name, Counter()).update(d["points"].value_counts().to_dict())


def build_report(
    run: RunFolder | Run | str | Path, scoring: str | None = None, rows: int = BATCH_ROWS
) -> dict[str, Any]:
    """Return the whole report of ``run`` under ``scoring`` as a JSON-ready dict.

    run: a run folder (opened with :func:`hsim.analysis.scan.open_run`, or its path; a
    loaded :class:`Run` is read again from its folder). Reads the run in batches of about
    ``rows`` deal rows (:func:`report_batches`): memory does not grow with the run.
    Keys: run, status, rules, scoring, seed, players, duplicate; summary (see
    :func:`hsim.analysis.frames.games_summary`); strategies (:func:`strategy_rows`);
    by_pass_direction (:func:`pass_direction_rows`; Hearts) or by_kind
    (:func:`kind_rows`; Kierki); by_seat (:func:`strategy_rows` by seat; in duplicate
    play every player sits at every seat, so see by_player too); warnings (list of
    strings: a re-scoring that censored more than 5% of the games, see
    :func:`censoring_warnings`).

    :raises RulesError: ``scoring`` is invalid, changes play, or re-scores a Kierki run.
    :raises RunFolderError: not a run folder, no games, or a damaged part.
    """
    return report_run(run, scoring, rows=rows)[0]


def report_run(
    run: RunFolder | Run | str | Path,
    scoring: str | None = None,
    plot_dir: str | Path | None = None,
    rows: int = BATCH_ROWS,
    progress: bool = False,
) -> tuple[dict[str, Any], list[Path]]:
    """Return (the report of :func:`build_report`, the chart files written) in one pass
    over the run: with ``plot_dir``, the charts of :func:`plot_report` are written there.
    progress: show a bar of the games read on stderr.

    :raises RulesError: as :func:`build_report`. :raises RunFolderError: as
        :func:`build_report`. :raises PlotUnavailable: ``plot_dir`` without matplotlib.
        :raises OSError: the charts could not be written.
    """
    out, tally = report_tally(run, scoring, plot_dir is not None, rows, progress)
    charts = [] if plot_dir is None else plot_report(tally, plot_dir, tally.played)
    return out, charts


def report_tally(
    run: RunFolder | Run | str | Path,
    scoring: str | None = None,
    plots: bool | str = False,
    rows: int = BATCH_ROWS,
    progress: bool = False,
    cells: bool = True,
) -> tuple[dict[str, Any], ReportTally]:
    """Return (the report of :func:`build_report`, the filled :class:`ReportTally`) in one
    pass over the run; plots: keep the histograms (for :func:`plot_report`), or with
    ``"games"`` only those of whole games, final scores and lengths (the HTML page of
    :mod:`hsim.analysis.pages`: the points per deal, counted over every deal row, are most
    of the cost). The tally's ``played`` is the run's own rules. cells: sum the deals per
    (game, seat, pass direction) cell first (:mod:`hsim.analysis.cells`; the same figures
    in a fraction of the time); False sums pandas frames of every row, the reference the
    tests hold the cells to.

    :raises RulesError: as :func:`build_report`. :raises RunFolderError: as
        :func:`build_report`.
    """
    folder = _folder(run)
    rescoring = report_rules(folder.rules, scoring)
    rules = folder.rules if rescoring is None else rescoring
    duplicate = bool(folder.manifest.get("duplicate", False))
    tally = ReportTally(rules, duplicate, plots=plots)
    tally.played = folder.rules
    scorings = 1 + len(folder.manifest.get("score_also") or [])
    total = folder.rows.get("games", 0) // (folder.rules.players * scorings)
    bar = progress_bar(total, progress and total > 0)
    if not cells:
        for deals, games in report_batches(folder, scoring, rows):
            tally.add(deals, games)
            bar.update(int(games["game"].nunique()) if len(games) else 0)
    elif rescoring is None:
        if not folder.rows.get("games"):
            raise RunFolderError(no_games_message(folder))
        for deals, games in _report_tables(folder, rows, tally):
            tally.add_table(deals, games)
            bar.update(_game_count(games))
    else:
        cells_only = tally.plots in (False, "games") and rescores_as_cells(rescoring, folder.rules)
        if cells_only:  # the columns the cells need; a batch that does not fit: start again
            columns = [*RESCORED_COLUMNS, tally.split.column]
            if not _add_rescored(tally, folder, rescoring, columns, rows, bar, cells_only):
                tally = ReportTally(rules, duplicate, plots=plots)
                tally.played = folder.rules
                bar.close()
                bar = progress_bar(total, progress and total > 0)
                cells_only = False
        if not cells_only:
            _add_rescored(tally, folder, rescoring, _RESCORE_COLUMNS, rows, bar, False)
    bar.close()
    return report_dict(folder, tally, rules, rescored=rescoring is not None), tally


def _add_rescored(
    tally: ReportTally,
    folder: RunFolder,
    rules: Rules,
    columns: list[str],
    rows: int,
    bar,
    cells_only: bool,
) -> bool:
    """Re-score ``folder``'s deals (``columns`` of them) batch by batch under ``rules``
    into ``tally``, as cells where a batch fits (:func:`rescored_cells`), else as frames;
    with ``cells_only``, stop at the first batch that does not fit and return False."""
    for table in folder.batches("deals", columns, rows):
        fast = None
        if tally.plots in (False, "games"):
            fast = rescored_cells(table, rules, folder.rules, tally.split.column)
        if fast is None:
            if cells_only:
                return False
            tally.add(*_rescored_frames(table, rules, folder.rules))
            bar.update(len(np.unique(table.column("game").to_numpy())))
        else:
            tally.add_cells(*fast)
            bar.update(_game_count(fast[1]))
    return True


def _game_count(games: GameColumns | pd.DataFrame) -> int:
    if isinstance(games, GameColumns):
        return len(games.starts())
    return int(games["game"].nunique()) if len(games) else 0


def report_dict(
    folder: RunFolder, tally: ReportTally, rules: Rules, rescored: bool = False
) -> dict[str, Any]:
    """Return the report of :func:`build_report` from a filled :class:`ReportTally` of
    ``folder`` under ``rules`` (the run's own rules, or with ``rescored`` a re-scoring's,
    which leaves out the run's ``--score-also`` comparisons)."""
    duplicate = bool(folder.manifest.get("duplicate", False))
    played = canonical(folder.rules, folder.manifest.get("rules", {}).get("preset"))
    summary = tally.summary.result()
    out: dict[str, Any] = {
        "run": str(folder.path),
        "status": folder.manifest.get("status"),
        "rules": played,
        # The played rules are named as the run named them, so that they read as such.
        "scoring": played if rules == folder.rules else canonical(rules),
        "seed": folder.manifest.get("seed"),
        "players": [p.get("spec") for p in folder.manifest.get("players", [])],
        "duplicate": duplicate,
        "summary": summary,
        "strategies": tally.keys["strategy"].rows(),
    }
    out["by_kind" if rules.is_kierki else "by_pass_direction"] = tally.split.rows()
    out["by_seat"] = tally.keys["seat"].rows()
    if duplicate:
        out["by_player"] = tally.keys["player"].rows()
    out["warnings"] = censoring_warnings(summary, folder.rules, rules)
    if not rescored and not rules.is_kierki and len(folder.manifest.get("score_also") or []):
        out["score_also"] = score_also_changes(folder.path)
    return out


#: What a winner change is (``hsim report`` on a ``--score-also`` run, compare-rules).
WINNER_CHANGE_DEFINITION = (
    "a game's winner set (the seats with the lowest final score, co-winners of a tie "
    "included) differs between the played scoring and the other one"
)


def score_also_changes(run_dir, confidence: float = 0.95) -> list[dict[str, Any]]:
    """Return, for each extra scoring of a ``--score-also`` run, what it changes against
    the played scoring on the same deals: one dict per scoring, in the run's order.

    Keys: scoring (rules string); winner_change (:meth:`WinnerChange.to_dict
    <hsim.analysis.frames.WinnerChange.to_dict>`: games, compared, changed, share with a
    Wilson interval; a change as :data:`WINNER_CHANGE_DEFINITION` says, so a tie that
    becomes a single winner counts as a change); game_length (deals per game under the
    played scoring, under this one, and their difference per game with a t interval);
    moon_rate (moons per deal counted in the games under each scoring, clustered by game:
    deals played on after a game ended do not count for it). Intervals at ``confidence``.
    Holds the run's deals in memory (one row per seat per deal).

    :raises RunFolderError: not a run folder, or no games.
    """
    run = load_run(run_dir)
    base_games = run.games
    played_moons = moon_rate(run.base_deals, confidence=confidence)
    out = []
    for label in run.scorings:
        if label == "base":
            continue
        games = run.games_for(label)
        compared = compare_games(base_games, games)
        tally = WinnerTally()
        tally.add(compared)
        per_game = compared[compared["seat"] == 0]
        lengths = per_game["deals_b"].to_numpy(float) - per_game["deals_a"].to_numpy(float)
        moons = moon_rate(rescore_run(run, label).deals, confidence=confidence)
        out.append(
            {
                "scoring": label,
                "winner_change": tally.winner_change(confidence).to_dict(),
                "game_length": {
                    "played": interval_dict(safe_mean_interval(per_game["deals_a"], confidence)),
                    "scoring": interval_dict(safe_mean_interval(per_game["deals_b"], confidence)),
                    "difference": interval_dict(safe_mean_interval(lengths, confidence)),
                },
                "moon_rate": {
                    "played": interval_dict(played_moons),
                    "scoring": interval_dict(moons),
                },
            }
        )
    return out


def format_score_also(rows: list[dict[str, Any]]) -> list[str]:
    """Return the lines ``hsim report`` prints for :func:`score_also_changes`."""
    if not rows:
        return []
    lines = [
        "",
        "other scorings of the same deals (--score-also): how often the winner changes",
        f"{'scoring':<40} {'winner changed':>22} {'games':>9} "
        f"{'deals/game change':>18} {'moons/deal':>27}",
    ]
    for r in rows:
        wc = r["winner_change"]
        share = wc["share"]
        pct = (
            "-"
            if share is None
            else (f"{share['estimate']:.1%} [{share['low']:.1%}, {share['high']:.1%}]")
        )
        moons = r["moon_rate"]
        moon_text = f"{_iv(moons['played'], 4)} -> {_iv(moons['scoring'], 4)}"
        lines.append(
            f"{r['scoring'][:40]:<40} {pct:>22} {wc['compared']:>9,} "
            f"{_signed(r['game_length']['difference']):>18} {moon_text:>27}"
        )
    lines.append(f"(winner changed: {WINNER_CHANGE_DEFINITION}; [95% Wilson interval])")
    return lines


def _signed(d: dict | None) -> str:
    if d is None:
        return "-"
    half = (d["high"] - d["low"]) / 2
    return f"{d['estimate']:+.2f}" + ("" if np.isnan(half) else f" ± {half:.2f}")


def censoring_warnings(summary: dict[str, Any], played: Rules, rules: Rules) -> list[str]:
    """Return the warning for a re-scoring (``rules``, of a run played under ``played``)
    that censored more than :data:`CENSORED_WARNING` of the games: a list of one string,
    or empty. summary: the report's (:func:`hsim.analysis.frames.games_summary`)."""
    censored, kept = summary["censored"], summary["games"]
    total = censored + kept
    if not total or censored <= CENSORED_WARNING * total:
        return []
    options = ",".join(f"{n}={format_value(v)}" for n, v in differences(played, rules).items())
    return [
        f"{censored:,} of {total:,} games ({censored / total:.1%}) are censored under "
        f"{canonical(rules)}: the run's game ended before the re-scored one would have, so "
        "its recorded deals ran out. The figures come from the "
        f"{kept:,} games that did end, which are biased toward short games. For an "
        "unbiased answer, play the games with this scoring recorded alongside: "
        f"hsim tournament ... --score-also {options} (deals go on until every scoring's "
        "game has ended), then report with --scoring " + options
    ]


def _folder(run) -> RunFolder:
    if isinstance(run, RunFolder):
        return run
    return open_run(run.path if isinstance(run, Run) else run)


def _iv(d: dict | None, digits: int = 3) -> str:
    if d is None:
        return "-"
    half = (d["high"] - d["low"]) / 2
    if np.isnan(half):
        return f"{d['estimate']:.{digits}f}"
    return f"{d['estimate']:.{digits}f} ± {half:.{digits}f}"


def format_report(rep: dict[str, Any]) -> list[str]:
    """Return the report as lines of text (what ``hsim report`` prints)."""
    s = rep["summary"]
    kierki = "by_kind" in rep  # Kierki: no moons, points = score, by deal kind
    moons = "" if kierki else f"; moons per deal {_iv(s.get('moon_rate'), 4)}"
    lines = [
        f"run {rep['run']} ({rep['status']}); rules {rep['rules']}; seed {rep['seed']}",
        f"scoring: {rep['scoring']}" + ("" if rep["scoring"] == rep["rules"] else " (re-scored)"),
        f"games {s['games']:,}"
        + (f" (+{s['censored']:,} censored: the recorded deals ran out)" if s["censored"] else "")
        + f"; deals per game {_iv(s['game_length'], 2)}{moons}; ended by "
        + ", ".join(f"{k} {v:,}" for k, v in s["ended_by"].items()),
        f"final score: mean {_iv(s['final_score'], 2)}, winner's {_iv(s['winning_score'], 2)}; "
        "quantiles "
        + " ".join(f"q{float(q) * 100:g}={v:g}" for q, v in s["score_quantiles"].items()),
        "(± 95% intervals: per-deal rates clustered by game, win rates Wilson)"
        if not kierki
        else "(± 95% intervals: per-deal rates clustered by game, win rates Wilson; "
        "Kierki: the highest score wins)",
        "",
    ]
    places = list(rep["strategies"][0]["places"]) if rep["strategies"] else list("1234")
    ordinals = "/".join(f"{p}{_SUFFIX.get(p, 'th')}" for p in places)
    if kierki:
        head = (
            f"{'strategy':<24} {'score/deal':>15} {'win rate':>15} {'mean place':>15} "
            f"{ordinals:>19}"
        )
    else:
        head = (
            f"{'strategy':<24} {'points/deal':>15} {'score/deal':>15} {'win rate':>15} "
            f"{'mean place':>15} {ordinals:>19} {'moons/deal':>17}"
        )
    lines.append(head)
    for r in rep["strategies"]:
        lines.append(_row(str(r["strategy"]), r, kierki))
    lines += ["", "by seat:", head.replace("strategy", "seat    ", 1)]
    for r in rep["by_seat"]:
        lines.append(_row(f"{r['seat']} {'/'.join(r['strategies'])}", r, kierki))
    if "by_player" in rep:
        lines += ["", "by player:", head.replace("strategy", "player  ", 1)]
        for r in rep["by_player"]:
            lines.append(_row(f"{r['player']} {'/'.join(r['strategies'])}", r, kierki))
    if kierki:
        lines += ["", "by deal kind:", f"{'strategy':<24} {'kind':<16} {'score/deal':>17}"]
        for r in rep["by_kind"]:
            lines.append(f"{str(r['strategy']):<24} {r['kind']:<16} {_iv(r['score_per_deal']):>17}")
        return lines
    lines += [
        "",
        "by pass direction:",
        f"{'strategy':<24} {'direction':<9} {'points/deal':>15} {'moons/deal':>17}",
    ]
    for r in rep["by_pass_direction"]:
        lines.append(
            f"{str(r['strategy']):<24} {r['pass_direction']:<9} "
            f"{_iv(r['points_per_deal']):>15} {_iv(r['moon_rate'], 5):>17}"
        )
    return lines + format_score_also(rep.get("score_also", []))


_SUFFIX = {"1": "st", "2": "nd", "3": "rd"}


def _row(label: str, r: dict, kierki: bool = False) -> str:
    places = "/".join(
        f"{r['places'][p]['estimate']:.2f}" if r["places"][p] else "-" for p in r["places"]
    )
    if kierki:
        return (
            f"{label[:24]:<24} {_iv(r['score_per_deal']):>15} {_iv(r['win_rate']):>15} "
            f"{_iv(r['mean_place']):>15} {places:>19}"
        )
    return (
        f"{label[:24]:<24} {_iv(r['points_per_deal']):>15} {_iv(r['score_per_deal']):>15} "
        f"{_iv(r['win_rate']):>15} {_iv(r['mean_place']):>15} {places:>19} "
        f"{_iv(r['moon_rate'], 5):>17}"
    )


class PlotUnavailable(HsimError, RuntimeError):
    """matplotlib is not installed; the message says how to install it."""


def plot_report(tally: ReportTally, out_dir, rules: Rules | None = None) -> list[Path]:
    """Write PNG charts of a report to ``out_dir`` (created) and return their paths.

    tally: a :class:`ReportTally` made with ``plots=True`` and filled (by
    :func:`build_report`). final_scores.png: histogram of final game scores per
    strategy; game_length.png: games by number of deals; then for Hearts (``rules`` None
    or Hearts) points_per_deal.png: share of deals by raw points taken, per strategy;
    for Kierki score_by_kind.png: mean score per deal of each deal kind, per strategy.
    Censored games are left out.

    :raises PlotUnavailable: matplotlib is missing.
    :raises ValueError: the tally kept no histograms (made without ``plots=True``).
    """
    try:
        # deferred: matplotlib is the optional [plot] extra
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailable(
            f"--plot needs matplotlib, which is not installed: {install_hint('plot')}"
        ) from None
    if not tally.plots:
        raise ValueError("plot_report needs a ReportTally made with plots=True")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    kierki = rules is not None and rules.is_kierki

    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    seen = [v for c in tally.final_scores.values() for v in c]
    high = int(max(seen)) if seen else 1
    low = min(0, int(min(seen))) if seen else 0
    step = 25 if kierki else 5  # Kierki scores run to the thousands, in steps of 5
    bins = np.arange(low, high + step + 1, step)
    for name in sorted(tally.final_scores):
        counts = tally.final_scores[name]
        values = np.array(sorted(counts), dtype=float)
        weights = np.array([counts[v] for v in sorted(counts)], dtype=float)
        ax.hist(
            values,
            bins=bins,
            weights=weights,
            histtype="step",
            density=True,
            label=name,
            linewidth=1.5,
        )
    ax.set(
        xlabel="final game score",
        ylabel="share of seat-games per point",
        title="Final scores by strategy",
    )
    ax.legend()
    paths.append(_save(fig, out / "final_scores.png"))

    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    lengths = sorted(tally.lengths)
    total = sum(tally.lengths.values()) or 1
    ax.bar(lengths, [tally.lengths[k] / total for k in lengths])
    ax.set(xlabel="deals in the game", ylabel="share of games", title="Game length")
    paths.append(_save(fig, out / "game_length.png"))

    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    if kierki:
        names = sorted({str(k[0]) for k in tally.split.ratios.groups()})
        width = 0.8 / max(1, len(names))
        present = {k[1] for k in tally.split.ratios.groups()}
        kinds = [k for k in KIERKI_KINDS if k in present]
        for i, name in enumerate(names):
            values = [tally.split.mean((name, k), "deal_score") for k in kinds]
            ax.bar(np.arange(len(kinds)) + i * width, values, width=width, label=name)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(np.arange(len(kinds)) + width * (len(names) - 1) / 2, kinds, rotation=30)
        ax.set(ylabel="mean score per deal", title="Score per deal by deal kind and strategy")
        ax.legend()
        paths.append(_save(fig, out / "score_by_kind.png"))
        return paths
    names = sorted(tally.points)
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        counts = tally.points[name]
        n = sum(counts.values()) or 1
        share = [counts.get(p, 0) / n for p in range(27)]
        ax.bar(np.arange(27) + i * width, share, width=width, label=name)
    ax.set_yscale("log")
    ax.set(
        xlabel="raw points taken in a deal",
        ylabel="share of seat-deals",
        title="Points per deal by strategy",
    )
    ax.legend()
    paths.append(_save(fig, out / "points_per_deal.png"))
    return paths


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path
