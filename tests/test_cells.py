"""hsim.analysis.cells: the report summed per (game, seat, split) cell gives, to the last
bit, the figures of the frame path that sums every row with pandas."""

import dataclasses
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import hsim.analysis.report as report
from hsim.analysis.cells import (
    GameColumns,
    deal_cells,
    dictionary_codes,
    rescored_cells,
    table_cells,
)
from hsim.analysis.scan import open_run
from hsim.analysis.tally import ClusteredRatios
from hsim.model.rules import Rules, parse_rules
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament
from tests.synthetic_run import write_run

PLAYERS = ("random", "lowcard", "random", "lowcard")


def _run(root, name, **config):
    path = root / name
    run_tournament(RunConfig(**config), path, workers=1, progress=False)
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cells")
    return {
        "classic": _run(root, "c", rules=Rules(), players=PLAYERS, games=80, seed=8),
        "duplicate": _run(
            root, "d", rules=Rules(), players=PLAYERS, games=12, seed=3, duplicate=True
        ),
        "kierki3": _run(
            root, "k3", rules=parse_rules("kierki3"), players=("random",) * 3, games=8, seed=2
        ),
        "kierki": _run(root, "k", rules=parse_rules("kierki4"), players=PLAYERS, games=6, seed=4),
        "hearts5": _run(
            root, "h5", rules=parse_rules("hearts5"), players=PLAYERS + ("duck",), games=30, seed=6
        ),
        "hearts6": _run(
            root,
            "h6",
            rules=parse_rules("hearts6(omnibus=true)"),
            players=PLAYERS + ("duck", "random"),
            games=8,
            seed=7,
            duplicate=True,
        ),
        "score_also": _run(
            root,
            "s",
            rules=Rules(),
            players=PLAYERS,
            games=40,
            seed=5,
            score_also=(parse_rules("classic(end_score=150)"),),
        ),
    }


def _both(path, scoring=None, **extra):
    fast = report.report_tally(path, scoring, **extra)[0]
    slow = report.report_tally(path, scoring, cells=False, **extra)[0]
    return fast, slow


@pytest.mark.parametrize(
    "name", ["classic", "duplicate", "kierki3", "kierki", "score_also", "hearts5", "hearts6"]
)
@pytest.mark.parametrize("rows", [None, 301])  # the default batches, and many small ones
def test_cells_give_the_figures_of_every_row(runs, name, rows):
    fast, slow = _both(runs[name], **({} if rows is None else {"rows": rows}))
    assert fast == slow  # every float to the last bit, every count, every key


@pytest.mark.parametrize(
    "scoring",
    [
        "omnibus=true",
        "no_trick_bonus=no_points,end_score=80",
        "moon=new_moon",
        "end_score=150",
        "omnibus=true,omnibus_card=TD,omnibus_value=5",
        "moon=smart",
    ],
)
@pytest.mark.parametrize("name", ["classic", "duplicate", "score_also"])
def test_re_scored_cells_give_the_figures_of_the_re_scored_frames(runs, name, scoring):
    fast, slow = _both(runs[name], scoring, rows=997)
    assert fast == slow
    if scoring == "omnibus=true":
        assert fast["summary"]["censored"] > 0  # censored games are left out alike


def test_the_html_page_tally_keeps_the_game_histograms(runs):
    fast = report.report_tally(runs["classic"], plots="games")[1]
    slow = report.report_tally(runs["classic"], plots="games", cells=False)[1]
    assert fast.final_scores == slow.final_scores and fast.lengths == slow.lengths


def test_a_synthetic_schema_4_run_with_plain_strings(tmp_path):
    write_run(tmp_path / "r", 3000, games_per_part=700)
    fast, slow = _both(tmp_path / "r", rows=5000)
    assert fast == slow
    fast, slow = _both(tmp_path / "r", "end_score=70", rows=5000)
    assert fast == slow and fast["summary"]["censored"] > 0


def test_the_comparison_can_fail(runs, monkeypatch):
    # One cell's points off by one: the report must differ from the frames'.
    real = report.table_cells

    def off_by_one(*args):
        cells = real(*args)
        points = cells.sums["points"].copy()
        points[np.unravel_index(np.argmax(cells.rows), cells.rows.shape)] += 1
        return dataclasses.replace(cells, sums={**cells.sums, "points": points})

    monkeypatch.setattr(report, "table_cells", off_by_one)
    fast, slow = _both(runs["classic"])
    assert fast != slow


def _table(strategy, seat, game):
    n = len(game)
    return pa.table(
        {
            "game": pa.array(game, pa.int64()),
            "seat": pa.array(seat, pa.int8()),
            "player": pa.array(seat, pa.int8()),
            "strategy": pa.array(strategy).dictionary_encode(),
            "pass_direction": pa.array(["left"] * n).dictionary_encode(),
            "points": pa.array(np.arange(n), pa.int16()),
        }
    )


def test_a_seat_that_changes_strategy_within_a_game_is_left_to_the_frames():
    ok = _table(["a", "b", "a", "b"], [0, 1, 0, 1], [1, 1, 1, 1])
    assert table_cells(ok, "pass_direction", ["points"]) is not None
    changed = _table(["a", "b", "b", "b"], [0, 1, 0, 1], [1, 1, 1, 1])
    assert table_cells(changed, "pass_direction", ["points"]) is None
    unsorted = _table(["a", "b", "a", "b"], [0, 1, 0, 1], [2, 2, 1, 1])
    assert table_cells(unsorted, "pass_direction", ["points"]) is None
    assert table_cells(ok.drop_columns(["player"]), "pass_direction", ["points"]) is None


def test_rescored_cells_refuse_rows_out_of_seat_order(runs):
    folder = open_run(runs["classic"])
    table = next(folder.batches("deals", None))
    rules = parse_rules("classic(omnibus=true)")
    assert rescored_cells(table, rules, folder.rules) is not None
    swapped = table.take(np.r_[1, 0, np.arange(2, len(table))])
    assert rescored_cells(swapped, rules, folder.rules) is None


def test_cell_sums_are_the_row_sums_exactly():
    rng = np.random.default_rng(7)
    n_games, seats, deals = 500, 4, 13
    game = np.repeat(np.arange(n_games) * 3 + 10, seats * deals)
    seat = np.tile(np.arange(seats), n_games * deals)
    direction = np.tile(np.repeat(np.arange(deals) % 4, seats), n_games)
    strategy = np.tile(np.array([0, 1, 0, 2]), n_games * deals)
    # values up to 2**16 a row: the sums of squares reach 2**50, below float64's 2**53
    points = rng.integers(0, 2**16, len(game))
    names = np.array(["x", "y", "z"], dtype=object)
    dirs = np.array(["left", "right", "across", "hold"], dtype=object)
    cells = deal_cells(game, seat, seat, (strategy, names), (direction, dirs), {"p": points})
    rows = ClusteredRatios(["strategy"], ["p"])
    rows.add(pd.DataFrame({"game": game, "strategy": names[strategy], "p": points}))
    summed = ClusteredRatios(["strategy"], ["p"])
    present, counts, sums = cells.by_seat()
    keys = [cells.seat_keys("strategy", present)]
    summed.add_cells(present // cells.seats, len(cells.games), keys, sums, counts)
    assert summed.sums == rows.sums  # RatioSums of Python ints: exact, not approximately
    for key in rows.groups():
        acc = rows.sums[key]["p"]
        assert isinstance(acc.syy, int) and acc.syy > 2**40


def test_dictionary_codes_of_chunks_with_their_own_dictionaries():
    column = pa.chunked_array(
        [
            pa.array(["b", None, "a"]).dictionary_encode(),
            pa.array(["c", "a"]).dictionary_encode(),
        ]
    )
    codes, names = dictionary_codes(column)
    assert [None if c < 0 else names[c] for c in codes] == ["b", None, "a", "c", "a"]


# ------------------------------------------- deals summed per deal, games as columns


def _row_path(monkeypatch):
    """Make deal_cells sum every row (the per-deal path refused)."""
    import hsim.analysis.cells as cells_module

    monkeypatch.setattr(cells_module, "_deal_cells_by_deal", lambda *args: None)


@pytest.mark.parametrize("name", ["classic", "duplicate", "kierki3", "score_also", "hearts6"])
def test_cells_summed_per_deal_equal_the_cells_of_every_row(runs, name, monkeypatch):
    folder = open_run(runs[name])
    split = "kind" if folder.rules.is_kierki else "pass_direction"
    tables = list(folder.batches("deals", None, rows=101))
    import hsim.analysis.cells as cells_module

    real, taken = cells_module._deal_cells_by_deal, []

    def spy(*args):
        taken.append(real(*args) is not None)
        return real(*args)

    monkeypatch.setattr(cells_module, "_deal_cells_by_deal", spy)
    by_deal = [table_cells(t, split, ["points", "deal_score", "moon"]) for t in tables]
    assert len(by_deal) > 1 and all(taken)  # the per-deal sums were used
    _row_path(monkeypatch)
    by_row = [table_cells(t, split, ["points", "deal_score", "moon"]) for t in tables]
    for a, b in zip(by_deal, by_row, strict=True):
        assert np.array_equal(a.games, b.games) and a.seats == b.seats
        assert np.array_equal(a.rows, b.rows) and list(a.split) == list(b.split)
        assert np.array_equal(a.strategy, b.strategy) and np.array_equal(a.player, b.player)
        assert a.sums.keys() == b.sums.keys()
        for v in a.sums:
            assert np.array_equal(a.sums[v], b.sums[v]), v


def test_deals_out_of_seat_order_are_summed_row_by_row():
    # A deal whose seats come 1, 0: not the layout a run writes; the per-deal sums refuse
    # it and the rows are summed one by one, to the same cells.
    ok = _table(["a", "b", "a", "b"], [0, 1, 0, 1], [1, 1, 1, 1])
    swapped = ok.take([1, 0, 2, 3])
    a = table_cells(ok, "pass_direction", ["points"])
    b = table_cells(swapped, "pass_direction", ["points"])
    assert np.array_equal(a.rows, b.rows)
    assert np.array_equal(b.sums["points"][0, :, 0], [0 + 2, 1 + 3])  # seat 0: rows 0, 2


@pytest.mark.parametrize("name", ["classic", "duplicate", "kierki", "score_also", "hearts5"])
@pytest.mark.parametrize("scoring", [None, "end_score=80"])
def test_the_report_json_and_text_equal_the_frame_path(runs, name, scoring):
    # The frame path (cells=False) sums every row in pandas: the reference the fast path
    # must give to the last digit, as JSON and as the text hsim report prints.
    if scoring and "kierki" in name:
        scoring = None  # Kierki has no scoring options
    fast, slow = _both(runs[name], scoring, rows=997)
    assert json.dumps(fast) == json.dumps(slow)
    assert report.format_report(fast) == report.format_report(slow)


def test_game_columns_give_the_summary_of_the_games_frame(runs):
    from hsim.analysis.frames import SummaryTally

    folder = open_run(runs["score_also"])
    for table in folder.batches("games", None, rows=301):
        columns = report.played_games(table, folder.rules)
        assert isinstance(columns, GameColumns)
        frame = report.played_games(table.drop_columns(["ended_by"]), folder.rules)
        assert isinstance(frame, pd.DataFrame)  # a column missing: a frame
        rows = table.to_pandas()
        rows = rows[rows["scoring"] == "base"].assign(censored=False)
        assert np.array_equal(columns.game, rows["game"]) and len(columns) < len(table)
        a, b = SummaryTally(folder.rules), SummaryTally(folder.rules)
        a.add_columns(columns)
        b.add_games(rows)
        assert json.dumps(a.result()) == json.dumps(b.result())  # NaN bounds alike
        assert list(a.ended_by) == list(b.ended_by) and a.scores == b.scores


def test_game_columns_refuse_nulls_and_games_out_of_order():
    table = pa.table(
        {
            "game": pa.array([2, 2, 1, 1], pa.int64()),
            "seat": pa.array([0, 1, 0, 1], pa.int8()),
            "strategy": pa.array(["a", "b", "a", "b"]).dictionary_encode(),
            "score": pa.array([1, 2, 3, 4], pa.int32()),
            "place": pa.array([1, 2, 1, 2], pa.int8()),
            "winner": pa.array([True, False, True, False]),
            "deals": pa.array([3, 3, 4, 4], pa.int16()),
            "ended_by": pa.array(["end_score"] * 4).dictionary_encode(),
        }
    )
    assert GameColumns.of_table(table) is None  # game 2 before game 1
    ordered = table.take([2, 3, 0, 1])
    columns = GameColumns.of_table(ordered)
    assert list(columns.game) == [1, 1, 2, 2] and list(columns.player) == [0, 1, 0, 1]
    assert list(columns.starts()) == [0, 2] and list(columns.game_codes()) == [0, 0, 1, 1]
    score = ordered.column("score").to_pylist()
    nulls = ordered.set_column(3, "score", pa.array(score[:3] + [None], pa.int32()))
    assert GameColumns.of_table(nulls) is None


@pytest.mark.parametrize("shape", [(), (5,)])
def test_seat_clusters_by_one_hot_equal_those_by_bincount(monkeypatch, shape):
    import hsim.analysis.cells as cells_module

    rng = np.random.default_rng(5)
    g, s, width = 50, 4, 6
    x = rng.integers(0, 9, (g, s, *shape)).astype(float)
    y = {"p": rng.integers(-30, 30, (g, s, *shape)).astype(float)}
    codes = rng.integers(-1, width, (g, s))
    one_hot = cells_module.seat_clusters(x, y, codes, width)
    monkeypatch.setattr(cells_module, "ONE_HOT_GROUPS", 0)
    counted = cells_module.seat_clusters(x, y, codes, width)
    assert np.array_equal(one_hot[0], counted[0]) and np.array_equal(
        one_hot[1]["p"], counted[1]["p"]
    )
    want = np.zeros((g, width, *shape))
    for i in range(g):
        for j in range(s):
            if codes[i, j] >= 0:
                want[i, codes[i, j]] += y["p"][i, j]
    assert np.array_equal(one_hot[1]["p"], want)
