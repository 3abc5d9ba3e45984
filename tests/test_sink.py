"""The Arrow arrays the sink builds from buffers; the compiled deal columns and chunk sums."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from hsim.engine import layout
from hsim.engine.layout import (
    D_AFTER_END,
    D_DEAL,
    D_GAME,
    D_HAND,
    D_MOON,
    D_POINTS,
    D_SCORE,
    D_SEAT,
    G_GAME,
    G_PLACE,
    G_SCORING,
    G_SEAT,
    G_WINNER,
)
from hsim.model.rules import Rules, make_rules
from hsim.play.games import play_range
from hsim.runner import sink
from hsim.runner.narrow import (
    DEAL_BLOCKS,
    SUM_GAMES,
    SUMMARY_COLS,
    add_chunk_sums,
    deal_columns,
)
from hsim.runner.sink import arrow_array, deals_table, games_table
from hsim.strategy.loader import load_players

TYPES = [
    (pa.int8(), np.int8),
    (pa.int16(), np.int16),
    (pa.int32(), np.int32),
    (pa.int64(), np.int64),
    (pa.bool_(), np.bool_),
]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), which=st.sampled_from(range(len(TYPES))), n=st.integers(0, 70))
def test_arrow_array_equals_pyarrows_own_conversion(data, which, n):
    arrow_type, dtype = TYPES[which]
    values = data.draw(hnp.arrays(dtype, n))
    nulls = data.draw(st.none() | hnp.arrays(np.bool_, n))
    got = arrow_array(values, arrow_type, nulls)
    got.validate(full=True)
    want = pa.array(values, arrow_type, mask=nulls)
    assert got.equals(want)
    assert got.null_count == (0 if nulls is None else int(nulls.sum()))


def test_arrow_array_of_a_strided_view_takes_the_viewed_values():
    rows = np.arange(40, dtype=np.int64).reshape(10, 4)
    assert arrow_array(rows[:, 2], pa.int64()).to_pylist() == list(range(2, 40, 4))
    assert arrow_array(rows[:, 1] % 3 == 0, pa.bool_()).to_pylist() == [
        v % 3 == 0 for v in range(1, 40, 4)
    ]


def _rows(rules, games=30):
    players = load_players(["random"] * rules.players, rules)
    return play_range(rules, players, 5, 0, games)


def test_deal_columns_are_the_rows_values_for_hearts_and_kierki():
    for rules in (Rules(), make_rules("kierki4")):
        deals, _ = _rows(rules)
        n = rules.players
        for rotation, duplicate in ((0, False), (1, True)):
            table = deals_table(deals, [f"p{i}" for i in range(n)], rotation, duplicate)
            table.validate(full=True)
            cols = table.to_pydict()
            board = deals[:, D_GAME]
            game = board * n + rotation if duplicate else board
            assert cols["game"] == game.tolist()
            assert cols["board"] == board.tolist()
            assert cols["deal"] == deals[:, D_DEAL].tolist()
            assert cols["hand"] == deals[:, D_HAND].tolist()
            assert cols["points"] == deals[:, D_POINTS].tolist()
            assert cols["score"] == deals[:, D_SCORE].tolist()
            player = (deals[:, D_SEAT] + rotation) % n
            assert cols["player"] == player.tolist()
            assert cols["strategy"] == [f"p{p}" for p in player]


#: The deal row's column of each ``deals`` column that is a row value as it is.
_AS_STORED = {
    "deal": "D_DEAL", "hand": "D_HAND", "passed": "D_PASSED", "received": "D_RECEIVED",
    "hearts": "D_HEARTS", "queen_spades": "D_QUEEN_SPADES",
    "jack_diamonds": "D_JACK_DIAMONDS", "taken": "D_TAKEN", "tricks": "D_TRICKS",
    "points": "D_POINTS",
    "moon": "D_MOON", "deal_score": "D_DEAL_SCORE", "score": "D_SCORE",
    "after_end": "D_AFTER_END", "dealer": "D_DEALER", "trump_chooser": "D_TRUMP_CHOOSER",
    "lottery_place": "D_LOTTERY_PLACE", "seat": "D_SEAT",
}  # fmt: skip
#: The columns mapped through a lookup table, and the deal row's column of their code.
_LOOKED_UP = {
    "pass_direction": "D_PASS_DIR", "moon_choice": "D_MOON_CHOICE", "kind": "D_KIND",
    "trump": "D_TRUMP",
}  # fmt: skip


def test_deal_columns_equal_numpys_column_by_column():
    rng = np.random.default_rng(3)
    names = [name for _, block in DEAL_BLOCKS for name in block]
    assert len(names) == len(set(names)) == len(_AS_STORED) + len(_LOOKED_UP) + 4
    for rules in (Rules(), make_rules("kierki4"), make_rules("kierki3")):
        deals, _ = _rows(rules, 12)
        n = rules.players
        for rotation, rotations in ((0, 1), (1, n), (n - 1, n)):
            tables = [rng.integers(-1, 100, 12, dtype=np.int8) for _ in range(5)]
            got = deal_columns(deals, rotation, n, rotations, *tables)
            assert list(got) == names
            player = (deals[:, D_SEAT] + rotation) % n
            board = deals[:, D_GAME]
            want = {
                "game": board * rotations + rotation if rotations > 1 else board,
                "board": board,
                "player": player,
                "strategy": tables[0][player],
            }
            for name, column in _AS_STORED.items():
                want[name] = deals[:, getattr(layout, column)]
            for table, (name, column) in zip(tables[1:], _LOOKED_UP.items(), strict=True):
                want[name] = table[deals[:, getattr(layout, column)]]
            for dtype, block in DEAL_BLOCKS:
                for name in block:
                    assert got[name].dtype == dtype and got[name].flags.c_contiguous, name
                    assert np.array_equal(got[name], want[name].astype(dtype)), name


def test_a_tournament_imports_no_pandas_numba_array_allocation_or_unasked_tqdm(tmp_path):
    # pa.array imports pandas (~0.2 s a worker); the sink builds arrays from buffers. A
    # cached kernel that allocates arrays imports numba.np.arrayobj as it loads (~30 ms
    # of every start): the deal columns are filled into blocks numpy allocates. Without
    # a progress bar tqdm (~5 ms) is not imported.
    code = (
        "import sys\n"
        "from hsim.model.rules import Rules\n"
        "from hsim.runner.run import RunConfig, run_tournament\n"
        "config = RunConfig(Rules(), ('random',) * 4, games=3, seed=1)\n"
        f"run_tournament(config, {str(tmp_path / 'run')!r}, progress=False)\n"
        "print(*(m in sys.modules for m in ('pandas', 'numba.np.arrayobj', 'tqdm')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "False"]
    assert (tmp_path / "run" / "deals").is_dir() and (tmp_path / "run" / "games").is_dir()


def test_games_table_copies_rows_that_are_written_again():
    _, games = _rows(Rules(), 4)
    rows = games.copy()
    table = games_table(rows, ["random"] * 4)
    before = table.to_pydict()
    rows[:] = -7  # the buffer a next chunk plays into
    assert table.to_pydict() == before


def _numpy_sums(deals, games, rotation, n):
    """The summary sums by weighted bincounts (the runner's former code)."""
    base_deal = deals[:, D_AFTER_END] == 0
    base_game = games[:, G_SCORING] == 0
    d_player = (deals[:, D_SEAT] + rotation) % n
    g_player = (games[:, G_SEAT] + rotation) % n
    return np.stack(
        (
            np.bincount(d_player, deals[:, D_POINTS] * base_deal, n),
            np.bincount(d_player, base_deal, n),
            np.bincount(g_player, games[:, G_WINNER] * base_game, n),
            np.bincount(d_player, deals[:, D_MOON] * base_deal, n),
            np.bincount(g_player, base_game, n),
            np.bincount(g_player, games[:, G_PLACE] * base_game, n),
        ),
        axis=1,
    ).astype(np.int64)


def _sums(deals, games, rotation, n, out=None):
    out = np.zeros((n, SUMMARY_COLS), np.int64) if out is None else out
    add_chunk_sums(deals, games, rotation, out)
    return out


def test_chunk_sums_leave_out_deals_after_the_end_and_other_scorings():
    rules = Rules()
    longer = make_rules("classic", ["end_score=150"])
    deals, games = play_range(rules, load_players(["random"] * 4), 9, 0, 40, (longer,))
    assert (deals[:, D_AFTER_END] != 0).any() and (games[:, G_SCORING] != 0).any()
    for rotation in range(4):
        got = _sums(deals, games, rotation, 4)
        assert np.array_equal(got, _numpy_sums(deals, games, rotation, 4))
    assert got[:, SUM_GAMES].sum() == 40 * 4
    assert np.array_equal(_sums(deals, games, 3, 4, got.copy()), 2 * got)  # added to out
    deals3, games3 = _rows(make_rules("kierki3"), 5)
    assert np.array_equal(_sums(deals3, games3, 2, 3), _numpy_sums(deals3, games3, 2, 3))


def test_games_table_names_each_rows_scoring():
    rules = Rules()
    others = (make_rules("classic", ["end_score=50"]), make_rules("classic", ["omnibus=true"]))
    _, games = play_range(rules, load_players(["random"] * 4), 2, 0, 6, others)
    names = ["base", "end_score=50", "omnibus=true"]
    table = games_table(games, ["random"] * 4, scorings=names)
    table.validate(full=True)
    assert table.schema.field("scoring").type == pa.string()
    ordered = games[np.lexsort((games[:, G_SEAT], games[:, G_SCORING], games[:, G_GAME]))]
    assert table.column("scoring").to_pylist() == [names[c] for c in ordered[:, G_SCORING]]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(max_size=6), min_size=1, max_size=5),
    st.lists(st.integers(0, 4), max_size=40),
)
def test_string_column_is_each_rows_name(names, picks):
    codes = np.array([p % len(names) for p in picks], np.int64)
    column = sink._string_column(codes, names)
    assert column.type == pa.string()
    assert column.to_pylist() == [names[c] for c in codes]
    column.validate(full=True)


def test_typed_nulls_are_slices_of_the_right_length_and_type(monkeypatch):
    monkeypatch.setattr(sink, "_NULLS", {})
    schema = sink.DEALS_SCHEMA
    for n in (5, 3, 40, 0, 12):
        for column in ("kind", "dealer", "trump"):
            nulls = sink._no_values(column, schema, n)
            assert len(nulls) == n and nulls.null_count == n
            assert nulls.type == schema.field(column).type
    assert len(sink._NULLS[schema.field("dealer").type]) >= 40
