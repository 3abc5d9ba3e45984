"""A batch of deal rows summed per cell (game, seat, pass direction or deal kind), in numpy.

Every figure the report gives about deals is a sum over games of sums over a game's
rows (:mod:`hsim.analysis.tally`), and within one game a seat has one player and one
strategy. So a batch's rows can first be summed per (game, seat, split value) cell:
about 16 cells a game instead of about 46 rows, in a few ``bincount`` passes over the
batch's columns straight from Arrow, without pandas. The tallies then sum the cells;
the sums are integers either way, so the figures are those of the rows to the last bit.

:func:`table_cells` reads a pyarrow table of deal rows; :func:`deal_cells` takes numpy
columns (a re-scoring's). Both return None when the batch does not fit the cell form
(a column missing or holding nulls, rows not sorted by game, a seat that changes player
or strategy within a game): the caller then sums the rows themselves.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from hsim.analysis.rescoring import rescore
from hsim.model.rules import Rules

SEATS = 4  # a re-scored run is Hearts: four seats

#: (int64 codes, -1 for null; the values they stand for, an object array)
Codes = tuple[np.ndarray, np.ndarray]


@dataclasses.dataclass
class DealCells:
    """Deal rows summed per cell.

    games: int64[G], the game ids in order. seats: S, one more than the largest seat.
    split: the values of the split column (pass direction or deal kind), D of them.
    rows: int64[G, S, D + 1], the rows in each cell (the last slot: split value null).
    sums: per value column, float64[G, S, D + 1], the sum of its rows in each cell
    (exact: integers below 2**53). strategy, player: int64[G, S], the seat's strategy
    code (into ``strategies``) and player number in the game (-1 where it has no row).
    """

    games: np.ndarray
    seats: int
    split: np.ndarray
    rows: np.ndarray
    sums: dict[str, np.ndarray]
    strategy: np.ndarray
    strategies: np.ndarray
    player: np.ndarray

    def by_seat(self) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Return the (game, seat) cells present: (flat index into [G, S], rows, sums)."""
        rows = self.rows.sum(axis=2).ravel()
        present = np.flatnonzero(rows)
        sums = {v: s.sum(axis=2).ravel()[present] for v, s in self.sums.items()}
        return present, rows[present], sums

    def seat_keys(self, by: str, present: np.ndarray) -> Codes:
        """Return the codes of ``by`` (strategy, seat or player) for (game, seat) cells
        ``present`` (flat indices into [G, S])."""
        if by == "strategy":
            return self.strategy.ravel()[present], self.strategies
        if by == "seat":
            return present % self.seats, _ints(self.seats)
        if by == "player":
            return self.player.ravel()[present], _ints(int(self.player.max()) + 1)
        raise ValueError(f"no cells by {by!r}")

    def game_totals(self) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
        """Return per game: rows int64[G], the value sums, and the largest seat with a row
        (-1 for a game without rows)."""
        rows = self.rows.sum(axis=2)
        seen = rows > 0
        top = np.where(seen.any(axis=1), self.seats - 1 - np.argmax(seen[:, ::-1], axis=1), -1)
        sums = {v: s.sum(axis=(1, 2)) for v, s in self.sums.items()}
        return rows.sum(axis=1), sums, top


def _ints(n: int) -> np.ndarray:
    return np.array(range(n), dtype=object)


def deal_cells(
    game: np.ndarray,
    seat: np.ndarray,
    player: np.ndarray,
    strategy: Codes,
    split: Codes,
    values: dict[str, np.ndarray],
) -> DealCells | None:
    """Sum deal rows per (game, seat, split value) cell (see :class:`DealCells`).

    game, seat, player: int[n] per row, rows sorted by game; strategy, split: (codes, the
    values they stand for) per row, code -1 for null; values: per value column, int, bool
    or float [n]. Returns None when a seat or player is negative, the rows are not sorted
    by game, or a seat's player or strategy changes within a game.
    """
    game = np.asarray(game)
    n = len(game)
    if not n:
        return None
    if np.any(game[1:] < game[:-1]):
        return None
    seat = np.asarray(seat, np.int64)
    player = np.asarray(player, np.int64)
    if seat.min() < 0 or player.min() < 0 or strategy[0].min() < 0:
        return None
    starts = np.flatnonzero(game[1:] != game[:-1]) + 1
    code = np.zeros(n, np.int64)
    code[starts] = 1
    code = np.cumsum(code)
    games = game[np.concatenate([[0], starts])].astype(np.int64)
    g, s = len(games), int(seat.max()) + 1
    gs = code * s + seat
    per_seat = {}
    for name, column in (("strategy", strategy[0]), ("player", player)):
        at = np.full(g * s, -1, np.int64)
        at[gs] = column
        if not np.array_equal(at[gs], column):
            return None  # the seat changed player or strategy within a game
        per_seat[name] = at.reshape(g, s)
    split_codes, split_names = split
    d = len(split_names)
    cell = gs * (d + 1) + np.where(split_codes < 0, d, split_codes)
    size = g * s * (d + 1)
    rows = np.bincount(cell, minlength=size).reshape(g, s, d + 1)
    sums = {
        v: np.bincount(cell, weights=np.asarray(w, np.float64), minlength=size).reshape(g, s, d + 1)
        for v, w in values.items()
    }
    return DealCells(
        games,
        s,
        split_names,
        rows,
        sums,
        per_seat["strategy"],
        strategy[1],
        per_seat["player"],
    )


def dictionary_codes(column: pa.ChunkedArray | pa.Array) -> Codes:
    """Return (int64 codes, -1 for null; the values as an object array) of a string or
    dictionary column."""
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    column = column.unify_dictionaries()
    if column.num_chunks == 0:
        return np.zeros(0, np.int64), np.array([], dtype=object)
    names = column.chunk(0).dictionary.to_pylist()
    indices = pa.chunked_array(
        [pc.fill_null(c.indices.cast(pa.int64()), -1) for c in column.chunks], pa.int64()
    )
    return indices.to_numpy(), np.array(names, dtype=object)


def table_cells(table: pa.Table, split: str, values: list[str]) -> DealCells | None:
    """Sum a pyarrow table of deal rows (sorted by game) per cell: :func:`deal_cells` of
    its columns game, seat, player, strategy, ``split`` and ``values`` (those it has).
    Returns None when a column other than ``split`` is missing or holds nulls."""
    names = set(table.column_names)
    need = ["game", "seat", "player", "strategy"]
    if not set(need) <= names or split not in names or not len(table):
        return None
    present = [v for v in values if v in names]
    if any(table.column(c).null_count for c in [*need, *present]):
        return None
    return deal_cells(
        table.column("game").to_numpy(),
        table.column("seat").to_numpy(),
        table.column("player").to_numpy(),
        dictionary_codes(table.column("strategy")),
        dictionary_codes(table.column(split)),
        {v: table.column(v).to_numpy() for v in present},
    )


#: ``ended_by`` names by code (index -1: censored), as :class:`hsim.analysis.frames.Rescoring`.
_ENDED_NAMES = np.array(["end_score", "max_deals", "censored"], dtype=object)


def rescored_cells(
    table: pa.Table, rules: Rules, played: Rules, split: str = "pass_direction"
) -> tuple[DealCells, pd.DataFrame] | None:
    """Re-score a pyarrow table of deal rows of whole games under ``rules`` (the
    engine's kernels, :func:`hsim.analysis.rescoring.rescore`) and return (its counted
    deals as cells, with the recorded points and the re-scored deal_score and moon; its
    games rows: game, seat, player, strategy, score, place, winner, deals, ended_by,
    censored), the figures :func:`hsim.analysis.frames.rescore_frames` gives.

    Returns None when the table does not fit (a column missing or holding nulls, rows
    not sorted by game, deal and seat 0..3, a New Moon run, whose recorded choices
    :func:`hsim.analysis.frames.deal_facts` reads, a bonus card other than the JD, whose
    taker the ``taken`` column gives): re-score the frame instead.
    """
    need = ["game", "deal", "seat", "player", "strategy", "points", "tricks", "jack_diamonds"]
    names = set(table.column_names)
    if played.moon == "new_moon" or not set(need) <= names or split not in names:
        return None
    if rules.omnibus_card != "JD":  # its taker is read from ``taken``
        return None
    if not len(table) or any(table.column(c).null_count for c in need):
        return None
    game = table.column("game").to_numpy()
    deal = table.column("deal").to_numpy().astype(np.int64)
    seat = table.column("seat").to_numpy().astype(np.int64)
    n = len(game) // SEATS
    if len(game) % SEATS or not np.array_equal(seat, np.tile(np.arange(SEATS), n)):
        return None
    g4, d4 = game[::SEATS], deal[::SEATS]
    if np.any(game.reshape(n, SEATS) != g4[:, None]) or np.any(
        deal.reshape(n, SEATS) != d4[:, None]
    ):
        return None
    later = (g4[1:] > g4[:-1]) | ((g4[1:] == g4[:-1]) & (d4[1:] > d4[:-1]))
    if not later.all():
        return None
    points = table.column("points").to_numpy().astype(np.int64).reshape(n, SEATS)
    tricks = table.column("tricks").to_numpy().astype(np.int64).reshape(n, SEATS)
    jack_rows = table.column("jack_diamonds").to_numpy().reshape(n, SEATS)
    jack = np.where(jack_rows.any(axis=1), jack_rows.argmax(axis=1), -1)
    result = rescore(rules, g4, points, tricks, jack)
    counted = np.repeat(result.counted, SEATS)
    moon = np.repeat(result.shooter, SEATS) == seat
    strategy = dictionary_codes(table.column("strategy"))
    player = table.column("player").to_numpy().astype(np.int64)
    cells = deal_cells(
        game[counted],
        seat[counted],
        player[counted],
        (strategy[0][counted], strategy[1]),
        tuple_codes(dictionary_codes(table.column(split)), counted),
        {
            "points": points.ravel()[counted],
            "deal_score": result.deal_score.ravel()[counted],
            "moon": moon[counted],
        },
    )
    if cells is None:
        return None
    # The seats of a game as its first deal has them.
    first = np.flatnonzero(np.concatenate([[True], g4[1:] != g4[:-1]])) * SEATS
    rows = (first[:, None] + np.arange(SEATS)).ravel()
    final = result.final
    censored = result.ended_by < 0
    place = 1 + (final[:, None, :] < final[:, :, None]).sum(axis=2)
    games = pd.DataFrame(
        {
            "game": np.repeat(result.games, SEATS),
            "seat": np.tile(np.arange(SEATS, dtype=np.int8), len(result.games)),
            "player": player[rows],
            "strategy": pd.Categorical.from_codes(strategy[0][rows], strategy[1]),
            "score": final.ravel(),
            "place": place.ravel(),
            "winner": (final == final.min(axis=1, keepdims=True)).ravel(),
            "deals": np.repeat(result.deals, SEATS),
            "ended_by": _ENDED_NAMES[np.repeat(result.ended_by, SEATS)],
            "censored": np.repeat(censored, SEATS),
        }
    )
    return cells, games


def tuple_codes(codes: Codes, keep: np.ndarray) -> Codes:
    """Return ``codes`` of the rows ``keep`` only."""
    return codes[0][keep], codes[1]
