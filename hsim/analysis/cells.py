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
        rows = np.einsum("gsd->gs", self.rows)  # einsum: quicker over a short last axis
        seen = rows > 0
        top = np.where(seen.any(axis=1), self.seats - 1 - np.argmax(seen[:, ::-1], axis=1), -1)
        sums = {v: np.einsum("gsd->g", s) for v, s in self.sums.items()}
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
    keep: np.ndarray | None = None,
) -> DealCells | None:
    """Sum deal rows per (game, seat, split value) cell (see :class:`DealCells`).

    game, seat, player: int[n] per row, rows sorted by game (player None: the seat, as
    in a run that is not duplicate); strategy, split: (codes, the
    values they stand for) per row, code -1 for null; values: per value column, int, bool
    or float [n]; keep: bool[n], the rows to sum (None: all; a game whose rows are all
    left out keeps its place in ``games``, with no rows). Returns None when a seat or
    player is negative, the rows are not sorted by game, or a seat's player or strategy
    changes within a game.
    """
    game = np.asarray(game)
    n = len(game)
    if not n:
        return None
    if np.any(game[1:] < game[:-1]):
        return None
    by_deal = _deal_cells_by_deal(game, seat, player, strategy, split, values, keep)
    if by_deal is not None:
        return by_deal
    seat = np.asarray(seat, np.int64)
    player = seat if player is None else np.asarray(player, np.int64)
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
    if keep is not None and not keep.all():
        cell = np.where(keep, cell, size)  # the rows left out, summed past the end
    rows = np.bincount(cell, minlength=size + 1)[:size].reshape(g, s, d + 1)
    sums = {
        v: np.bincount(cell, weights=w, minlength=size + 1)[:size].reshape(g, s, d + 1)
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


def _deal_cells_by_deal(game, seat, player, strategy, split, values, keep) -> DealCells | None:
    """:func:`deal_cells` of rows laid out as a run writes them: each deal S rows, seats
    0..S-1 in order, with one split value and one ``keep`` per deal. Sums each seat's
    column per (game, split value) over the deals (n / S rows each) instead of every row
    per cell; the same sums. Returns None when the rows are not laid out so (the caller
    then sums every row), or as :func:`deal_cells` does."""
    seat = np.asarray(seat)
    s = int(seat[: min(len(seat), 64)].max()) + 1
    n = len(game)
    if s < 1 or n % s:
        return None
    deals = n // s
    if not np.array_equal(seat.reshape(deals, s), np.broadcast_to(np.arange(s), (deals, s))):
        return None
    # The rows are sorted by game, so a deal whose first and last rows are of one game
    # lies wholly in it.
    if not np.array_equal(game[::s], game[s - 1 :: s]):
        return None  # a deal's rows span two games
    per_deal_game = game[::s]
    first = np.flatnonzero(np.concatenate([[True], per_deal_game[1:] != per_deal_game[:-1]]))
    code = np.zeros(deals, np.int64)
    code[first[1:]] = 1
    code = np.cumsum(code)
    games = game[first * s].astype(np.int64)
    g = len(games)
    per_seat = {}
    columns = [("strategy", strategy[0])] + ([("player", player)] if player is not None else [])
    for name, column in columns:
        column = np.asarray(column).reshape(deals, s)
        at = column[first]
        if at.min() < 0 or not np.array_equal(column, at[code]):
            return None  # the seat changed player or strategy within a game (or a null)
        per_seat[name] = at.astype(np.int64)
    split_codes, split_names = split
    by_deal = np.asarray(split_codes).reshape(deals, s)
    one = by_deal[:, 0]
    if not np.array_equal(by_deal, np.broadcast_to(one[:, None], (deals, s))):
        return None
    d = len(split_names)
    cell = code * (d + 1) + np.where(one < 0, d, one)
    size = g * (d + 1)
    if keep is not None:
        kept = np.asarray(keep).reshape(deals, s)
        if not np.array_equal(kept, np.broadcast_to(kept[:, :1], (deals, s))):
            return None
        if not kept.all():
            cell = np.where(kept[:, 0], cell, size)
    per_deal = np.bincount(cell, minlength=size + 1)[:size].reshape(g, 1, d + 1)
    rows = np.broadcast_to(per_deal, (g, s, d + 1)).copy()
    sums = {}
    for v, w in values.items():
        w = np.asarray(w).reshape(deals, s)
        sums[v] = np.empty((g, s, d + 1))
        for k in range(s):
            column = np.bincount(cell, weights=w[:, k], minlength=size + 1)[:size]
            sums[v][:, k, :] = column.reshape(g, d + 1)
    player_at = per_seat.get("player")
    if player_at is None:  # no player column: the player is the seat
        player_at = np.broadcast_to(np.arange(s, dtype=np.int64), (g, s)).copy()
    strategy_at = per_seat["strategy"]
    return DealCells(games, s, split_names, rows, sums, strategy_at, strategy[1], player_at)


def dictionary_codes(column: pa.ChunkedArray | pa.Array, wide: bool = True) -> Codes:
    """Return (int64 codes, -1 for null; the values as an object array) of a string or
    dictionary column. wide False: the codes may come in the integer type the column
    stores them in (int8 for a run's columns), to compare, not to compute with."""
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    chunks = column.chunks
    if (
        chunks
        and not column.null_count
        and all(c.dictionary.equals(chunks[0].dictionary) for c in chunks[1:])
    ):  # one dictionary (a run's parts share theirs): the indices as they are
        indices = [c.indices.to_numpy() for c in chunks]
        codes = indices[0] if len(indices) == 1 else np.concatenate(indices)
        if wide:
            codes = codes.astype(np.int64)
        return codes, np.array(chunks[0].dictionary.to_pylist(), dtype=object)
    column = column.unify_dictionaries()
    if column.num_chunks == 0:
        return np.zeros(0, np.int64), np.array([], dtype=object)
    names = column.chunk(0).dictionary.to_pylist()
    indices = pa.chunked_array(
        [pc.fill_null(c.indices.cast(pa.int64()), -1) for c in column.chunks], pa.int64()
    )
    return indices.to_numpy(), np.array(names, dtype=object)


def table_cells(
    table: pa.Table, split: str, values: list[str], players: bool = True
) -> DealCells | None:
    """Sum a pyarrow table of deal rows (sorted by game) per cell: :func:`deal_cells` of
    its columns game, seat, player, strategy, ``split`` and ``values`` (those it has),
    leaving out the rows whose ``after_end`` is true (deals played after the game ended).
    Returns None when a column other than ``split`` is missing or holds nulls.
    players: read the ``player`` column (False: the cells' players are the seats, for
    a report without a breakdown by player)."""
    names = set(table.column_names)
    need = ["game", "seat", "strategy", *(["player"] if players else [])]
    if not set(need) <= names or split not in names or not len(table):
        return None
    present = [v for v in values if v in names]
    skip = "after_end" in names
    if any(table.column(c).null_count for c in [*need, *present, *(["after_end"] * skip)]):
        return None
    keep = None
    if skip:
        keep = ~table.column("after_end").to_numpy(zero_copy_only=False).astype(bool, copy=False)
    return deal_cells(
        table.column("game").to_numpy(),
        table.column("seat").to_numpy(),
        table.column("player").to_numpy() if players else None,
        dictionary_codes(table.column("strategy"), wide=False),
        dictionary_codes(table.column(split), wide=False),
        {v: table.column(v).to_numpy(zero_copy_only=False) for v in present},
        keep,
    )


#: The deals columns :func:`rescored_cells` reads, besides the split column.
RESCORED_COLUMNS = ("game", "deal", "seat", "player", "strategy", "points", "tricks",
                    "jack_diamonds")  # fmt: skip


def rescores_as_cells(rules: Rules, played: Rules) -> bool:
    """Return whether :func:`rescored_cells` can re-score a run played under ``played``
    for ``rules`` (batches that fit its form): not a New Moon run, the JD the bonus card."""
    return played.moon != "new_moon" and rules.omnibus_card == "JD"


#: ``ended_by`` names by code (index -1: censored), as :class:`hsim.analysis.frames.Rescoring`.
_ENDED_NAMES = np.array(["end_score", "max_deals", "censored"], dtype=object)


def rescored_cells(
    table: pa.Table, rules: Rules, played: Rules, split: str = "pass_direction"
) -> tuple[DealCells, GameColumns] | None:
    """Re-score a pyarrow table of deal rows of whole games under ``rules`` (the
    engine's kernels, :func:`hsim.analysis.rescoring.rescore`) and return (its counted
    deals as cells, with the recorded points and the re-scored deal_score and moon; its
    games rows as :class:`GameColumns`), the figures
    :func:`hsim.analysis.frames.rescore_frames` gives.

    Returns None when the table does not fit (a column missing or holding nulls, rows
    not sorted by game, deal and seat 0..3, a New Moon run, whose recorded choices
    :func:`hsim.analysis.frames.deal_facts` reads, a bonus card other than the JD, whose
    taker the ``taken`` column gives): re-score the frame instead.
    """
    need = list(RESCORED_COLUMNS)
    names = set(table.column_names)
    if not rescores_as_cells(rules, played) or not set(need) <= names or split not in names:
        return None
    if not len(table) or any(table.column(c).null_count for c in need):
        return None
    # integer columns in the type the run stores them (int8, int16): compared, not summed
    game = table.column("game").to_numpy()
    deal = table.column("deal").to_numpy()
    seat = table.column("seat").to_numpy()
    n = len(game) // SEATS
    if len(game) % SEATS or not np.array_equal(
        seat.reshape(n, SEATS), np.broadcast_to(np.arange(SEATS), (n, SEATS))
    ):
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
    strategy = dictionary_codes(table.column("strategy"), wide=False)
    player = table.column("player").to_numpy()
    cells = deal_cells(
        game,
        seat,
        player,
        strategy,
        dictionary_codes(table.column(split), wide=False),
        {"points": points.ravel(), "deal_score": result.deal_score.ravel(), "moon": moon},
        counted,
    )
    if cells is None:
        return None
    # The seats of a game as its first deal has them.
    first = np.flatnonzero(np.concatenate([[True], g4[1:] != g4[:-1]])) * SEATS
    rows = (first[:, None] + np.arange(SEATS)).ravel()
    final = result.final
    censored = result.ended_by < 0
    place = 1 + (final[:, None, :] < final[:, :, None]).sum(axis=2)
    games = GameColumns(
        np.repeat(result.games, SEATS),
        np.tile(np.arange(SEATS, dtype=np.int64), len(result.games)),
        player[rows].astype(np.int64),
        (strategy[0][rows].astype(np.int64), strategy[1]),
        final.ravel(),
        place.ravel(),
        (final == final.min(axis=1, keepdims=True)).ravel(),
        np.repeat(result.deals, SEATS),
        # ended_by codes 0 end_score, 1 max_deals, -1 censored: the last name
        (np.repeat(result.ended_by, SEATS) % len(_ENDED_NAMES), _ENDED_NAMES),
        np.repeat(censored, SEATS),
    )
    return cells, games


#: The games columns :class:`GameColumns` holds (``player`` may be missing: a schema-1
#: run's player is its seat).
GAME_COLUMNS = ("game", "seat", "strategy", "score", "place", "winner", "deals", "ended_by")


@dataclasses.dataclass
class GameColumns:
    """A batch of games rows as numpy columns: m rows, a game's rows together, games in
    ascending order.

    game, seat, player, score, place, deals: int64[m]; winner, censored: bool[m];
    strategy, ended_by: :data:`Codes` (no code -1: no nulls).
    """

    game: np.ndarray
    seat: np.ndarray
    player: np.ndarray
    strategy: Codes
    score: np.ndarray
    place: np.ndarray
    winner: np.ndarray
    deals: np.ndarray
    ended_by: Codes
    censored: np.ndarray

    def __len__(self) -> int:
        return len(self.game)

    @classmethod
    def of_table(cls, table: pa.Table | None, keep: np.ndarray | None = None):
        """Return the rows ``keep`` (bool[m]; None: all) of a pyarrow table of games rows,
        uncensored, or None when it does not fit: a column of :data:`GAME_COLUMNS`
        missing or holding nulls, or games out of order."""
        if table is None:
            return None
        names = set(table.column_names)
        if not set(GAME_COLUMNS) <= names:
            return None
        if any(table.column(c).null_count for c in GAME_COLUMNS):
            return None
        if keep is not None and not keep.all():
            table = table.filter(pa.array(keep))
        player = "player" if "player" in names and not table.column("player").null_count else "seat"
        game = table.column("game").to_numpy()
        if np.any(game[1:] < game[:-1]):
            return None
        ints = {
            c: table.column(c).to_numpy().astype(np.int64, copy=False)
            for c in ("seat", "score", "place", "deals")
        }
        if len(game) and (ints["seat"].min() < 0 or ints["place"].min() < 0):
            return None
        players = table.column(player).to_numpy().astype(np.int64, copy=False)
        if len(game) and players.min() < 0:
            return None
        return cls(
            game.astype(np.int64, copy=False),
            ints["seat"],
            players,
            dictionary_codes(table.column("strategy")),
            ints["score"],
            ints["place"],
            table.column("winner").to_numpy(zero_copy_only=False).astype(bool, copy=False),
            ints["deals"],
            dictionary_codes(table.column("ended_by")),
            np.zeros(len(game), bool),
        )

    def take(self, keep: np.ndarray) -> GameColumns:
        """Return the rows ``keep`` (bool[m])."""
        return GameColumns(
            *(
                (f[0][keep], f[1]) if isinstance(f, tuple) else f[keep]
                for f in (getattr(self, n.name) for n in dataclasses.fields(self))
            )
        )

    def starts(self) -> np.ndarray:
        """Return the index of each game's first row, int64[games]."""
        if "_starts" not in self.__dict__:
            game = self.game
            first = np.concatenate([[True], game[1:] != game[:-1]]) if len(game) else game
            self.__dict__["_starts"] = np.flatnonzero(first)
        return self.__dict__["_starts"]

    def game_codes(self) -> np.ndarray:
        """Return each row's game as a code 0..games-1 (int64[m], in game order)."""
        if "_codes" not in self.__dict__:
            code = np.zeros(len(self.game), np.int64)
            code[self.starts()[1:]] = 1
            self.__dict__["_codes"] = np.cumsum(code)
        return self.__dict__["_codes"]

    def frame(self) -> pd.DataFrame:
        """Return the rows as a games frame (strategy and ended_by categorical)."""
        return pd.DataFrame(
            {
                "game": self.game,
                "seat": self.seat,
                "player": self.player,
                "strategy": pd.Categorical.from_codes(*self.strategy),
                "score": self.score,
                "place": self.place,
                "winner": self.winner,
                "deals": self.deals,
                "ended_by": pd.Categorical.from_codes(*self.ended_by),
                "censored": self.censored,
            }
        )


#: Up to this many groups, :func:`seat_clusters` sums seats with a one-hot einsum.
ONE_HOT_GROUPS = 64


def seat_clusters(
    cells_x: np.ndarray, cells_y: dict[str, np.ndarray], codes: np.ndarray, width: int
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Sum the seats of each game into (game, group) clusters laid out densely.

    cells_x: float64[G, S, ...], the rows of each seat's cells; cells_y: per value, its
    sums, the same shape; codes: int[G, S], each seat's group 0..width-1 (-1: none).
    Returns (x float64[G, width, ...], the values the same shape): sums of integers,
    exact. Few groups: a one-hot einsum; many: :func:`dense_clusters`.
    """
    g, s = codes.shape
    if width > ONE_HOT_GROUPS:
        rest = cells_x.shape[2:]
        span = int(np.prod(rest, dtype=np.int64)) if rest else 1
        inner = np.arange(span)
        flat = np.where(codes[:, :, None] >= 0, codes[:, :, None] * span + inner, -1)

        def lay(w):
            return w.reshape(g, s * span)

        x, y = dense_clusters(
            lay(cells_x), {v: lay(w) for v, w in cells_y.items()}, flat.reshape(g, -1),
            width * span,
        )  # fmt: skip
        return x.reshape(g, width, *rest), {v: w.reshape(g, width, *rest) for v, w in y.items()}
    one_hot = (codes[:, :, None] == np.arange(width)).astype(np.float64)
    if cells_x.ndim == 2:

        def total(w):
            return np.einsum("gs,gsk->gk", w, one_hot)
    else:  # per game a [width, S] x [S, rest] product: batched matmul, quicker than einsum
        one_hot = one_hot.transpose(0, 2, 1)
        rest = cells_x.shape[2:]

        def total(w):
            return np.matmul(one_hot, w.reshape(g, s, -1)).reshape(g, width, *rest)

    return total(cells_x), {v: total(w) for v, w in cells_y.items()}


def dense_clusters(
    cells_x: np.ndarray, cells_y: dict[str, np.ndarray], codes: np.ndarray, width: int
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Sum cells into (game, group) clusters laid out densely.

    cells_x: float64[G, C], the rows of each cell; cells_y: per value, float64[G, C], its
    sums; codes: int64[G, C], each cell's group 0..width-1 (-1: the cell has no row, or
    belongs to no group). Returns (x float64[G, width], the values float64[G, width]).
    """
    g = cells_x.shape[0]
    index = np.where(codes >= 0, np.arange(g, dtype=np.int64)[:, None] * width + codes, g * width)
    index = index.ravel()
    size = g * width + 1

    def total(w):
        return np.bincount(index, weights=w.ravel(), minlength=size)[:-1].reshape(g, width)

    return total(cells_x), {v: total(w) for v, w in cells_y.items()}
