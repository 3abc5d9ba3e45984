"""The engine's int64 deal rows narrowed to the ``deals`` columns' types in one compiled pass
(and a chunk's summary sums in another).

A deal row (:mod:`hsim.engine.layout`, D_* columns) holds every fact as int64; the
``deals`` dataset stores each at its own width (``results/README.md``). Taking the
columns out one by one with numpy reads the row-major rows once per column (a strided
gather each, about 6 ms for a chunk of 2,000 random games, measured); this kernel reads
each row once and writes every column, contiguous, at its width. The string columns come
out as dictionary indices (int8, -1 for none) through lookup tables that
:func:`hsim.runner.sink.deals_table` builds from the names.

It lives in a module of its own because it is compiled: editing it recompiles the
engine's cache (:mod:`hsim.engine._numba`), editing the rest of the runner does not.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from hsim.engine import _numba  # noqa: F401  (the cache folder, before anything compiles)
from hsim.engine.layout import (
    D_AFTER_END,
    D_DEAL,
    D_DEAL_SCORE,
    D_DEALER,
    D_GAME,
    D_HAND,
    D_HEARTS,
    D_JACK_DIAMONDS,
    D_KIND,
    D_LOTTERY_PLACE,
    D_MOON,
    D_MOON_CHOICE,
    D_PASS_DIR,
    D_PASSED,
    D_POINTS,
    D_QUEEN_SPADES,
    D_RECEIVED,
    D_SCORE,
    D_SEAT,
    D_TAKEN,
    D_TRICKS,
    D_TRUMP,
    D_TRUMP_CHOOSER,
    G_PLACE,
    G_SCORING,
    G_SEAT,
    G_WINNER,
)

# The ``deals`` columns by type: each type's columns are the rows of one block (an
# array [columns, m], allocated in Python: the kernel allocates nothing, so loading it
# from the cache imports none of numba's array-allocation code, ~30 ms of every start).
# The kernel writes row k of a block at the k-th name of its tuple here.
I64_COLUMNS = ("game", "board", "hand", "passed", "received", "taken")
GAME, BOARD, HAND, PASSED, RECEIVED, TAKEN = range(6)
I16_COLUMNS = ("deal", "points", "deal_score")
DEAL, POINTS, DEAL_SCORE = range(3)
I32_COLUMNS = ("score",)
SCORE = 0
BOOL_COLUMNS = ("queen_spades", "jack_diamonds", "moon", "after_end")
QUEEN_SPADES, JACK_DIAMONDS, MOON, AFTER_END = range(4)
I8_COLUMNS = (
    "seat", "player", "strategy", "hearts", "tricks", "pass_direction", "moon_choice",
    "kind", "dealer", "trump", "trump_chooser", "lottery_place",
)  # fmt: skip
(SEAT, PLAYER, STRATEGY, HEARTS, TRICKS, PASS_DIRECTION, MOON_CHOICE, KIND, DEALER, TRUMP,
 TRUMP_CHOOSER, LOTTERY_PLACE) = range(12)  # fmt: skip
#: (dtype, column names) of each block, in the order :func:`fill_deal_columns` takes them.
DEAL_BLOCKS = (
    (np.int64, I64_COLUMNS),
    (np.int16, I16_COLUMNS),
    (np.int32, I32_COLUMNS),
    (np.bool_, BOOL_COLUMNS),
    (np.int8, I8_COLUMNS),
)

_I8 = types.int8[::1]
FILL_DEAL_COLUMNS_SIG = types.void(
    types.int64[:, :], types.int64, types.int64, types.int64, _I8, _I8, _I8, _I8, _I8,
    types.int64[:, ::1], types.int16[:, ::1], types.int32[:, ::1], types.boolean[:, ::1],
    types.int8[:, ::1],
)  # fmt: skip


@njit(FILL_DEAL_COLUMNS_SIG, cache=True)
def fill_deal_columns(
    rows, rotation, n, rotations, strategy, pass_dir, moon_choice, kind, trump,
    i64, i16, i32, b1, i8,
):  # fmt: skip
    """Write the ``deals`` columns of ``rows`` into the blocks of :data:`DEAL_BLOCKS`
    (``i64`` int64[6, m] ... ``i8`` int8[12, m]; column ``k`` of a block's names is its
    row ``k``).

    rows: int64[m, >= DEAL_COLS], one row per seat per deal. rotation, n, rotations: the
    seating (:mod:`hsim.model.seating`): player = (seat + rotation) % n, game = board *
    rotations + rotation when rotations > 1, else board. strategy, pass_dir,
    moon_choice, kind, trump: int8 lookup tables from a code (player index, pass
    direction, ...) to its dictionary index, whose last entry is what code -1 (none)
    maps to. dealer, trump_chooser and lottery_place are written as their raw codes.
    Each block must have its names' count of rows and m columns (:func:`deal_columns`
    makes them so): the kernel does not check bounds.
    """
    for i in range(rows.shape[0]):
        row = rows[i]
        b = row[D_GAME]
        s = row[D_SEAT]
        p = (s + rotation) % n
        i64[GAME, i] = b * rotations + rotation if rotations > 1 else b
        i64[BOARD, i] = b
        i64[HAND, i] = row[D_HAND]
        i64[PASSED, i] = row[D_PASSED]
        i64[RECEIVED, i] = row[D_RECEIVED]
        i64[TAKEN, i] = row[D_TAKEN]
        i16[DEAL, i] = row[D_DEAL]
        i16[POINTS, i] = row[D_POINTS]
        i16[DEAL_SCORE, i] = row[D_DEAL_SCORE]
        i32[SCORE, i] = row[D_SCORE]
        b1[QUEEN_SPADES, i] = row[D_QUEEN_SPADES] != 0
        b1[JACK_DIAMONDS, i] = row[D_JACK_DIAMONDS] != 0
        b1[MOON, i] = row[D_MOON] != 0
        b1[AFTER_END, i] = row[D_AFTER_END] != 0
        i8[SEAT, i] = s
        i8[PLAYER, i] = p
        i8[STRATEGY, i] = strategy[p]
        i8[HEARTS, i] = row[D_HEARTS]
        i8[TRICKS, i] = row[D_TRICKS]
        i8[PASS_DIRECTION, i] = pass_dir[row[D_PASS_DIR]]
        i8[MOON_CHOICE, i] = moon_choice[row[D_MOON_CHOICE]]
        i8[KIND, i] = kind[row[D_KIND]]
        i8[DEALER, i] = row[D_DEALER]
        i8[TRUMP, i] = trump[row[D_TRUMP]]
        i8[TRUMP_CHOOSER, i] = row[D_TRUMP_CHOOSER]
        i8[LOTTERY_PLACE, i] = row[D_LOTTERY_PLACE]


def deal_columns(
    rows, rotation, n, rotations, strategy, pass_dir, moon_choice, kind, trump
) -> dict[str, np.ndarray]:
    """Return the ``deals`` columns of ``rows`` by name, each a contiguous array of m
    entries (a row of a new block of its type, :data:`DEAL_BLOCKS`): int64 game, board,
    hand, passed, received, taken; int16 deal, points, deal_score; int32 score; bool
    queen_spades, jack_diamonds, moon, after_end; int8 the rest. Arguments as
    :func:`fill_deal_columns`.
    """
    m = rows.shape[0]
    blocks = [np.empty((len(names), m), dtype) for dtype, names in DEAL_BLOCKS]
    fill_deal_columns(
        rows, rotation, n, rotations, strategy, pass_dir, moon_choice, kind, trump, *blocks
    )
    return {
        name: block[k]
        for block, (_, names) in zip(blocks, DEAL_BLOCKS, strict=True)
        for k, name in enumerate(names)
    }


#: The columns of the summary sums (:func:`add_chunk_sums`), per player.
SUM_POINTS, SUM_DEALS, SUM_WINS, SUM_MOONS, SUM_GAMES, SUM_PLACES = range(6)
SUMMARY_COLS = 6


@njit(
    types.void(types.int64[:, :], types.int64[:, :], types.int64, types.int64[:, ::1]),
    cache=True,
)
def add_chunk_sums(deals, games, rotation, out):
    """Add the summary sums of one rotation's rows to ``out``: int64[n players,
    SUMMARY_COLS], per player the base game's penalty points, deals, wins, moons shot,
    games and sum of places (deal rows dealt after the base game's end, and other
    scorings' game rows, left out).

    deals: int64[m, >= DEAL_COLS] deal rows; games: int64[k, >= GAME_COLS] game rows.
    rotation: the seating (player = (seat + rotation) % n, n = ``out``'s rows).
    """
    n = out.shape[0]
    for i in range(deals.shape[0]):
        row = deals[i]
        if row[D_AFTER_END] == 0:
            p = (row[D_SEAT] + rotation) % n
            out[p, SUM_POINTS] += row[D_POINTS]
            out[p, SUM_DEALS] += 1
            out[p, SUM_MOONS] += row[D_MOON] != 0
    for i in range(games.shape[0]):
        row = games[i]
        if row[G_SCORING] == 0:
            p = (row[G_SEAT] + rotation) % n
            out[p, SUM_WINS] += row[G_WINNER] != 0
            out[p, SUM_GAMES] += 1
            out[p, SUM_PLACES] += row[G_PLACE]
