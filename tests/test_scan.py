"""Reading run folders in batches of whole games (hsim.analysis.scan)."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hsim.analysis.scan import RunFolderError, aligned, game_batches, open_run
from hsim.runner.sink import part_name
from tests.synthetic_run import manifest


def _part(folder, games, rows_per_game=3, start_value=0):
    game = np.repeat(np.asarray(games, np.int64), rows_per_game)
    table = pa.table({"game": game, "value": np.arange(len(game)) + start_value})
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, folder / part_name(int(min(games))))


def _run(path, parts):
    for games in parts:
        _part(path / "deals", games)
        _part(path / "games", games, rows_per_game=1)
    (path / "run.json").write_text(json.dumps(manifest(100)))
    return path


@pytest.mark.parametrize("rows", [1, 2, 4, 7, 30, 10**6])
def test_batches_hold_whole_games_in_order(tmp_path, rows):
    run = open_run(_run(tmp_path / "r", [range(0, 5), range(5, 12), range(12, 13)]))
    batches = list(run.batches("deals", ["value"], rows=rows))
    games = [b.column("game").to_numpy() for b in batches]
    assert np.array_equal(np.concatenate(games), np.repeat(np.arange(13), 3))
    seen = [set(g) for g in games]
    for a, b in zip(seen, seen[1:], strict=False):
        assert max(a) < min(b)  # no game in two batches
    if rows >= 10**6:
        assert len(batches) == 1


def test_parts_are_read_in_game_order_whatever_their_names(tmp_path):
    path = _run(tmp_path / "r", [range(0, 4)])
    _part(path / "deals", range(4, 8))
    (path / "deals" / part_name(4)).rename(path / "deals" / "aaa.parquet")
    run = open_run(path)
    games = np.concatenate([b.column("game").to_numpy() for b in run.batches("deals")])
    assert np.array_equal(games, np.repeat(np.arange(8), 3))


def test_an_unsorted_small_part_is_sorted_and_overlapping_parts_are_refused(tmp_path):
    path = tmp_path / "r"
    _part(path / "deals", [3, 1, 2])
    (path / "games").mkdir()
    (path / "run.json").write_text(json.dumps(manifest(100)))
    games = np.concatenate([b.column("game").to_numpy() for b in open_run(path).batches("deals")])
    assert np.array_equal(games, np.repeat([1, 2, 3], 3))
    table = pa.table({"game": np.array([2, 5], np.int64), "value": [0, 1]})
    pq.write_table(table, path / "deals" / "part-999.parquet")
    with pytest.raises(RunFolderError, match="overlap"):
        list(open_run(path).batches("deals"))


def test_a_large_unsorted_part_is_refused(tmp_path):
    path = tmp_path / "d"
    _part(path, [3, 1, 2])
    with pytest.raises(RunFolderError, match="not sorted by game"):
        list(game_batches([path / part_name(1)], rows=2))


def test_damaged_and_missing_folders_are_clear_errors(tmp_path):
    with pytest.raises(RunFolderError, match="not an hsim run folder"):
        open_run(tmp_path)
    (tmp_path / "run.json").write_text("{not json")
    with pytest.raises(RunFolderError, match="not valid JSON"):
        open_run(tmp_path)
    for name in ("deals", "games"):
        (tmp_path / name).mkdir()
    for bad in ({}, {**manifest(10), "rules": {"options": {"no_such_option": 1}}}):
        (tmp_path / "run.json").write_text(json.dumps(bad))
        with pytest.raises(RunFolderError, match="field"):
            open_run(tmp_path)
    path = _run(tmp_path / "r", [range(0, 3)])
    (path / "deals" / part_name(0)).write_bytes(b"PAR1 truncated")
    with pytest.raises(RunFolderError, match="not a readable Parquet file"):
        open_run(path)
    (path / "deals" / part_name(0)).unlink()
    (path / "deals").rmdir()
    with pytest.raises(RunFolderError, match="no deals dataset"):
        open_run(path)


def test_aligned_pairs_the_same_games(tmp_path):
    a = open_run(_run(tmp_path / "a", [range(0, 6), range(6, 10)]))
    b = open_run(_run(tmp_path / "b", [range(0, 3), range(3, 7), range(7, 9)]))
    pairs = list(aligned(a.batches("deals", rows=4), b.batches("games", rows=5)))
    for x, y in pairs:
        gx = set(x.column("game").to_pylist()) if x is not None else set()
        gy = set(y.column("game").to_pylist()) if y is not None else set()
        assert gy <= gx  # every game of b is in a; game 9 is only in a
    got_a = np.concatenate([x.column("game").to_numpy() for x, _ in pairs if x is not None])
    got_b = np.concatenate([y.column("game").to_numpy() for _, y in pairs if y is not None])
    assert np.array_equal(got_a, np.repeat(np.arange(10), 3))
    assert np.array_equal(got_b, np.arange(9))


def test_parts_of_different_schemas_are_joined_in_one_form(tmp_path):
    # One part as schema 7 writes it (int8 dictionary, never null), one as schema 4 did
    # (plain strings, nullable): a batch holding both reads as one table.
    path = tmp_path / "r"
    for dataset in ("deals", "games"):
        (path / dataset).mkdir(parents=True)
    (path / "run.json").write_text(json.dumps(manifest(100)))
    new = pa.table(
        {"game": pa.array([0, 0, 1], pa.int64()), "strategy": pa.array(["a", "b", "a"])},
        schema=pa.schema([pa.field("game", pa.int64(), False),
                          pa.field("strategy", pa.dictionary(pa.int8(), pa.string()), False)]),
    )  # fmt: skip
    new = new.set_column(1, "strategy", new.column("strategy").cast(new.schema[1].type))
    old = pa.table({"game": pa.array([2, 3], pa.int64()), "strategy": ["b", None]})
    pq.write_table(new, path / "deals" / part_name(0))
    pq.write_table(old, path / "deals" / part_name(2))
    run = open_run(path)
    for rows in (2, 10**6):
        batches = list(run.batches("deals", ["strategy"], rows=rows))
        joined = pa.concat_tables([b.cast(batches[-1].schema) for b in batches])
        assert joined.column("game").to_pylist() == [0, 0, 1, 2, 3]
        assert joined.column("strategy").to_pylist() == ["a", "b", "a", "b", None]
    one = list(run.batches("deals", ["strategy"], rows=10**6))
    assert len(one) == 1 and pa.types.is_dictionary(one[0].schema.field("strategy").type)
