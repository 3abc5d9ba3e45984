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
engine's cache (:mod:`hsim._jit`), editing the rest of the runner does not.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from hsim import _jit  # noqa: F401  (the cache folder, before anything compiles)
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
    D_TRICKS,
    D_TRUMP,
    D_TRUMP_CHOOSER,
    G_PLACE,
    G_SCORING,
    G_SEAT,
    G_WINNER,
)

#: The order of the arrays :func:`deal_columns` returns (its tuple, by name).
DEAL_COLUMN_ORDER = (
    "game", "board", "deal", "seat", "player", "strategy", "hand", "passed", "received",
    "hearts", "queen_spades", "jack_diamonds", "tricks", "points", "moon", "deal_score",
    "score", "after_end", "pass_direction", "moon_choice", "kind", "dealer", "trump",
    "trump_chooser", "lottery_place",
)  # fmt: skip

_I8 = types.int8[::1]
DEAL_COLUMNS_SIG = types.Tuple(
    (types.int64[::1], types.int64[::1], types.int16[::1], types.int8[::1], types.int8[::1])
    + (_I8, types.int64[::1], types.int64[::1], types.int64[::1], _I8)
    + (types.boolean[::1], types.boolean[::1], _I8, types.int16[::1], types.boolean[::1])
    + (types.int16[::1], types.int32[::1], types.boolean[::1], _I8, _I8)
    + (_I8, _I8, _I8, _I8, _I8)
)(types.int64[:, :], types.int64, types.int64, types.int64, _I8, _I8, _I8, _I8, _I8)


@njit(DEAL_COLUMNS_SIG, cache=True)
def deal_columns(rows, rotation, n, rotations, strategy, pass_dir, moon_choice, kind, trump):
    """Return the ``deals`` columns of ``rows`` as arrays, in :data:`DEAL_COLUMN_ORDER`.

    rows: int64[m, >= DEAL_COLS], one row per seat per deal. rotation, n, rotations: the
    seating (:mod:`hsim.seating`): player = (seat + rotation) % n, game = board *
    rotations + rotation when rotations > 1, else board. strategy, pass_dir,
    moon_choice, kind, trump: int8 lookup tables from a code (player index, pass
    direction, ...) to its dictionary index, whose last entry is what code -1 (none)
    maps to. Each array has m entries: int64 game, board, hand, passed, received; int16
    deal, points, deal_score; int32 score; bool queen_spades, jack_diamonds, moon,
    after_end; int8 the rest (raw codes for dealer, trump_chooser, lottery_place).
    """
    m = rows.shape[0]
    game = np.empty(m, np.int64)
    board = np.empty(m, np.int64)
    deal = np.empty(m, np.int16)
    seat = np.empty(m, np.int8)
    player = np.empty(m, np.int8)
    strategy_at = np.empty(m, np.int8)
    hand = np.empty(m, np.int64)
    passed = np.empty(m, np.int64)
    received = np.empty(m, np.int64)
    hearts = np.empty(m, np.int8)
    queen_spades = np.empty(m, np.bool_)
    jack_diamonds = np.empty(m, np.bool_)
    tricks = np.empty(m, np.int8)
    points = np.empty(m, np.int16)
    moon = np.empty(m, np.bool_)
    deal_score = np.empty(m, np.int16)
    score = np.empty(m, np.int32)
    after_end = np.empty(m, np.bool_)
    pass_at = np.empty(m, np.int8)
    moon_choice_at = np.empty(m, np.int8)
    kind_at = np.empty(m, np.int8)
    dealer = np.empty(m, np.int8)
    trump_at = np.empty(m, np.int8)
    trump_chooser = np.empty(m, np.int8)
    lottery_place = np.empty(m, np.int8)
    for i in range(m):
        row = rows[i]
        b = row[D_GAME]
        s = row[D_SEAT]
        p = (s + rotation) % n
        board[i] = b
        game[i] = b * rotations + rotation if rotations > 1 else b
        deal[i] = row[D_DEAL]
        seat[i] = s
        player[i] = p
        strategy_at[i] = strategy[p]
        hand[i] = row[D_HAND]
        passed[i] = row[D_PASSED]
        received[i] = row[D_RECEIVED]
        hearts[i] = row[D_HEARTS]
        queen_spades[i] = row[D_QUEEN_SPADES] != 0
        jack_diamonds[i] = row[D_JACK_DIAMONDS] != 0
        tricks[i] = row[D_TRICKS]
        points[i] = row[D_POINTS]
        moon[i] = row[D_MOON] != 0
        deal_score[i] = row[D_DEAL_SCORE]
        score[i] = row[D_SCORE]
        after_end[i] = row[D_AFTER_END] != 0
        pass_at[i] = pass_dir[row[D_PASS_DIR]]
        moon_choice_at[i] = moon_choice[row[D_MOON_CHOICE]]
        kind_at[i] = kind[row[D_KIND]]
        dealer[i] = row[D_DEALER]
        trump_at[i] = trump[row[D_TRUMP]]
        trump_chooser[i] = row[D_TRUMP_CHOOSER]
        lottery_place[i] = row[D_LOTTERY_PLACE]
    return (
        game, board, deal, seat, player, strategy_at, hand, passed, received, hearts,
        queen_spades, jack_diamonds, tricks, points, moon, deal_score, score, after_end,
        pass_at, moon_choice_at, kind_at, dealer, trump_at, trump_chooser, lottery_place,
    )  # fmt: skip


#: The columns of :func:`chunk_sums`, per player.
SUM_POINTS, SUM_DEALS, SUM_WINS, SUM_MOONS, SUM_GAMES, SUM_PLACES = range(6)
SUMMARY_COLS = 6


@njit(
    types.int64[:, ::1](types.int64[:, :], types.int64[:, :], types.int64, types.int64),
    cache=True,
)
def chunk_sums(deals, games, rotation, n):
    """Return the summary sums of one rotation's rows: int64[n players, SUMMARY_COLS],
    per player the base game's penalty points, deals, wins, moons shot, games and sum
    of places (deal rows dealt after the base game's end, and other scorings' game rows,
    left out).

    deals: int64[m, >= DEAL_COLS] deal rows; games: int64[k, >= GAME_COLS] game rows.
    rotation, n: the seating (player = (seat + rotation) % n).
    """
    out = np.zeros((n, SUMMARY_COLS), np.int64)
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
    return out
