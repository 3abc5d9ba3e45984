"""The batch runner: determinism across workers and chunks, safe output folders."""

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from hsim.engine.layout import D_SCORE
from hsim.model.rules import Rules, make_rules
from hsim.runner.config import RunConfig
from hsim.runner.manifest import read_journal
from hsim.runner.run import RunError, run_tournament
from hsim.runner.sink import SCHEMA_VERSION
from hsim.strategy.contract import StrategyError

PLAYERS = ("random", "lowcard", "random", "lowcard")


def _read(run_dir, dataset):
    return pd.read_parquet(Path(run_dir) / dataset)


def _run(tmp_path, name, workers, chunk_size, **kw):
    config = RunConfig(
        rules=kw.pop("rules", Rules()),
        players=kw.pop("players", PLAYERS),
        games=kw.pop("games", 60),
        seed=kw.pop("seed", 7),
        chunk_size=chunk_size,
        **kw,
    )
    return run_tournament(config, tmp_path / name, workers=workers, progress=False)


def test_deals_identical_for_any_workers_and_chunking(tmp_path):
    _run(tmp_path, "a", workers=1, chunk_size=60)
    _run(tmp_path, "b", workers=2, chunk_size=7)
    _run(tmp_path, "c", workers=2, chunk_size=25)
    a = _read(tmp_path / "a", "deals")
    assert len(a) > 60 * 4 and {"game", "deal", "seat"} <= set(a.columns)
    assert a[["game", "deal", "seat"]].apply(tuple, axis=1).is_monotonic_increasing
    for other in ("b", "c"):
        pd.testing.assert_frame_equal(a, _read(tmp_path / other, "deals"))
        pd.testing.assert_frame_equal(
            _read(tmp_path / "a", "games"), _read(tmp_path / other, "games")
        )
    assert len(list((tmp_path / "b" / "deals").glob("*.parquet"))) == 9


def test_other_seed_other_deals(tmp_path):
    _run(tmp_path, "a", workers=1, chunk_size=None, games=5)
    _run(tmp_path, "b", workers=1, chunk_size=None, games=5, seed=8)
    assert not _read(tmp_path / "a", "deals")["hand"].equals(_read(tmp_path / "b", "deals")["hand"])


def test_manifest_describes_the_run(tmp_path):
    result = _run(
        tmp_path, "a", workers=1, chunk_size=None, games=10, rules=Rules(omnibus=True, end_score=50)
    )
    m = json.loads((tmp_path / "a" / "run.json").read_text())
    assert m["status"] == "complete" and m["games_done"] == 10
    assert m["rules"]["string"] == "classic(omnibus=true,end_score=50)"
    assert m["rules"]["options"]["omnibus"] is True
    assert [p["spec"] for p in m["players"]] == list(PLAYERS)
    assert m["seed"] == 7 and m["schema_version"] == SCHEMA_VERSION == 7 and m["seed_scheme"] == 1
    assert {"hsim", "numba", "numpy", "pyarrow", "hsim_git"} <= set(m["versions"])
    assert result.summary[1]["strategy"] == "lowcard"
    games = _read(tmp_path / "a", "games")
    assert games["winner"].groupby(games["game"]).any().all()


def test_summary_matches_datasets(tmp_path):
    result = _run(tmp_path, "a", workers=1, chunk_size=4, games=20)
    deals = _read(tmp_path / "a", "deals")
    games = _read(tmp_path / "a", "games")
    for row in result.summary:
        d = deals[deals.seat == row["seat"]]
        g = games[games.seat == row["seat"]]
        assert row["mean_points_per_deal"] == pytest.approx(d.points.mean())
        assert row["win_rate"] == pytest.approx(g.winner.mean())
        assert row["moons"] == d.moon.sum()


def test_existing_folder_is_not_overwritten(tmp_path):
    _run(tmp_path, "a", workers=1, chunk_size=None, games=3)
    before = _read(tmp_path / "a", "deals")
    with pytest.raises(RunError, match="--overwrite"):
        _run(tmp_path, "a", workers=1, chunk_size=None, games=3, seed=99)
    pd.testing.assert_frame_equal(before, _read(tmp_path / "a", "deals"))
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=99)
    run_tournament(config, tmp_path / "a", workers=1, overwrite=True, progress=False)
    assert json.loads((tmp_path / "a" / "run.json").read_text())["seed"] == 99


def test_overwrite_refuses_a_folder_that_is_not_a_run(tmp_path):
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=1)
    with pytest.raises(RunError, match="not an hsim run"):
        run_tournament(config, precious, workers=1, overwrite=True, progress=False)
    assert (precious / "notes.txt").read_text() == "keep me"


@pytest.mark.parametrize(
    "manifest", ['{"name": "my project"}', None], ids=["foreign-run-json", "no-run-json"]
)
def test_overwrite_refuses_a_folder_holding_what_hsim_did_not_write(tmp_path, manifest):
    # A project folder with its own run.json (or a run folder with the user's files in it)
    # is not emptied: only hsim's own entries may be deleted.
    precious = tmp_path / "project"
    (precious / "src").mkdir(parents=True)
    (precious / "src" / "main.c").write_text("int main;")
    if manifest is not None:
        (precious / "run.json").write_text(manifest)
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=1)
    with pytest.raises(RunError, match="not an hsim run folder .*src"):
        run_tournament(config, precious, workers=1, overwrite=True, progress=False)
    assert (precious / "src" / "main.c").read_text() == "int main;"
    if manifest is not None:
        assert (precious / "run.json").read_text() == manifest


@pytest.mark.parametrize(
    "mine",
    ["deals/notes.txt", "games/sub/x.txt", "plays/chess.pgn"],
    ids=["file", "folder", "bare"],
)
def test_overwrite_refuses_a_users_file_inside_a_dataset_folder(tmp_path, mine):
    run = tmp_path / "a"
    if mine != "plays/chess.pgn":
        _run(tmp_path, "a", workers=1, chunk_size=None, games=3)
    (run / mine).parent.mkdir(parents=True, exist_ok=True)
    (run / mine).write_text("keep me")
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=9)
    with pytest.raises(RunError, match="not an hsim run folder .*hsim does not write"):
        run_tournament(config, run, workers=1, overwrite=True, progress=False)
    assert (run / mine).read_text() == "keep me"


def test_overwrite_refuses_an_sprt_json_marker_in_a_run_json(tmp_path):
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "run.json").write_text('{"config": {"lr": 0.1}}')
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=1)
    with pytest.raises(RunError, match="run.json is not one hsim wrote"):
        run_tournament(config, folder, workers=1, overwrite=True, progress=False)


def test_overwrite_refuses_a_run_json_hsim_did_not_write(tmp_path):
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "run.json").write_text('{"name": "my project"}')
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=1)
    with pytest.raises(RunError, match="run.json is not one hsim wrote"):
        run_tournament(config, folder, workers=1, overwrite=True, progress=False)
    assert (folder / "run.json").read_text() == '{"name": "my project"}'


def test_overwrite_replaces_a_run_holding_the_files_hsim_leaves_there(tmp_path):
    # a traceback file of an unexpected error, a journal rewrite cut short
    _run(tmp_path, "a", workers=1, chunk_size=None, games=3)
    (tmp_path / "a" / "hsim-error-20261202-010000-123.txt").write_text("Traceback ...")
    (tmp_path / "a" / ".parts.jsonl.tmp").write_text("{")
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=8)
    run_tournament(config, tmp_path / "a", workers=1, overwrite=True, progress=False)
    assert json.loads((tmp_path / "a" / "run.json").read_text())["seed"] == 8
    assert not list((tmp_path / "a").glob("hsim-error-*"))


def test_overwrite_replaces_a_run_whose_run_json_is_damaged(tmp_path):
    _run(tmp_path, "a", workers=1, chunk_size=None, games=3)
    (tmp_path / "a" / "run.json").write_bytes(b'{"schema_vers\x00')
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=7)
    run_tournament(config, tmp_path / "a", workers=1, overwrite=True, progress=False)
    assert json.loads((tmp_path / "a" / "run.json").read_text())["seed"] == 7


def test_a_folder_left_before_its_manifest_was_written_is_taken_without_overwrite(tmp_path):
    # Out of disk space at the start, a run left only its manifest's temporary file; resume
    # said "start it again", which refused the folder as existing.
    folder = tmp_path / "run"
    (folder / "deals").mkdir(parents=True)
    (folder / ".run.json.tmp").write_text('{"schema_vers')
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=1)
    run_tournament(config, folder, workers=1, progress=False)
    assert json.loads((folder / "run.json").read_text())["status"] == "complete"
    assert not (folder / ".run.json.tmp").exists()


def test_bad_player_spec_writes_nothing(tmp_path):
    config = RunConfig(
        rules=Rules(), players=("random", "nope", "random", "random"), games=3, seed=1
    )
    with pytest.raises(StrategyError):
        run_tournament(config, tmp_path / "x", workers=1, progress=False)
    assert not (tmp_path / "x").exists()


def test_the_first_games_rows_are_encoded_before_the_folder_is_touched(tmp_path, monkeypatch):
    # check_config encodes the first game's rows as parts, in memory: a failure of the
    # output path (here every encode) surfaces before any folder exists.
    import hsim.runner.run as runner

    encoded = []

    def refuse(dataset, table, schema_version=SCHEMA_VERSION):
        encoded.append((dataset, table.num_rows))
        raise OSError("no encoder")

    monkeypatch.setattr(runner, "encode_part", refuse)
    config = RunConfig(rules=Rules(), players=PLAYERS, games=3, seed=1, record="plays")
    with pytest.raises(OSError, match="no encoder"):
        run_tournament(config, tmp_path / "x", workers=2, progress=False)
    assert not (tmp_path / "x").exists()
    assert encoded and encoded[0][0] == "deals" and encoded[0][1] > 0


def _assert_stopped_cleanly(run_dir, status):
    m = json.loads((run_dir / "run.json").read_text())
    assert m["status"] == status
    assert not [p for p in run_dir.rglob("*") if p.name.startswith(".")]
    deals = _read(run_dir, "deals")
    done = sum(b - a for a, b in m["completed_ranges"])
    assert done == m["games_done"] and deals["game"].nunique() == done
    return m


@pytest.mark.parametrize("workers", [1, 2])
def test_failed_run_keeps_parts_and_says_so(tmp_path, py_bot, workers):
    crash = py_bot("Crashes", "holding=AS KS QS")
    config = RunConfig(
        rules=Rules(),
        players=("random", crash, "random", "random"),
        games=200,
        seed=1,
        chunk_size=4,
    )
    with pytest.raises(RunError, match=r"seat 1\).*in game \d+ of run seed 1") as err:
        run_tournament(config, tmp_path / "f", workers=workers, progress=False)
    game = int(re.search(r"in game (\d+)", str(err.value)).group(1))
    m = _assert_stopped_cleanly(tmp_path / "f", "failed")
    assert "boom" in m["error"] and game >= 4
    assert all(not a <= game < b for a, b in m["completed_ranges"])
    assert m["completed_ranges"][0][0] == 0


@pytest.mark.parametrize(
    "sig, workers", [(signal.SIGINT, 1), (signal.SIGINT, 2), (signal.SIGTERM, 2)]
)
def test_interrupted_run_is_readable_and_marked(tmp_path, py_bot, sig, workers):
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "hsim.cli",
        "tournament",
        "--games",
        "400",
        "--seed",
        "5",
        "--players",
        f"{py_bot('PyRandom', 'delay=0.0005')},random,random,random",
        "--chunk-size",
        "2",
        "--workers",
        str(workers),
        "--out",
        str(out),
        "--no-progress",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        # two chunks recorded (a part is on disk before the run records it in the journal)
        if len(read_journal(out)) >= 2 or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[sig], err
    assert "Traceback" not in err and "interrupted" in err
    m = _assert_stopped_cleanly(out, "interrupted")
    assert 0 < m["games_done"] < 400


def test_duplicate_gives_every_rotation_the_same_hands(tmp_path):
    result = _run(tmp_path, "d", workers=2, chunk_size=3, games=10, duplicate=True)
    deals = _read(tmp_path / "d", "deals")
    games = _read(tmp_path / "d", "games")
    assert result.games_done == 40 and sorted(deals.game.unique()) == list(range(40))
    assert set(deals.rotation) == {0, 1, 2, 3}
    assert (deals.game == deals.board * 4 + deals.rotation).all()
    assert (deals.player == (deals.seat + deals.rotation) % 4).all()
    assert (deals.strategy == deals.player.map(dict(enumerate(PLAYERS)))).all()
    # Same hands and pass directions, deal by deal, whoever sits where.
    per_board = deals.groupby(["board", "deal", "seat"])
    assert (per_board.hand.nunique() == 1).all()
    assert (per_board.pass_direction.nunique() == 1).all()
    first_deals = deals[deals.deal == 0].groupby("board").rotation.nunique()
    assert (first_deals == 4).all()
    # The players really move: lowcard sits at seat 0 in rotations 1 and 3.
    seat0 = deals[(deals.seat == 0) & (deals.deal == 0)].set_index(["board", "rotation"])
    assert seat0.loc[(0, 1), "strategy"] == "lowcard" and seat0.loc[(0, 0), "strategy"] == "random"
    assert len(games) == 40 * 4
    # Duplicate runs are deterministic across workers and chunks too.
    _run(tmp_path, "e", workers=1, chunk_size=10, games=10, duplicate=True)
    pd.testing.assert_frame_equal(deals, _read(tmp_path / "e", "deals"))


def test_replay_of_a_duplicate_run(tmp_path):
    from hsim.analysis.replay import replay_run

    _run(tmp_path, "d", workers=1, chunk_size=None, games=3, duplicate=True)
    deals = _read(tmp_path / "d", "deals")
    for game in (1, 6, 11):
        _, _, records, _, _ = replay_run(tmp_path / "d", game)
        want = deals[deals.game == game]
        assert [int(x) for r in records for x in r.rows[:, D_SCORE]] == want.score.tolist()


@pytest.mark.parametrize(
    ("preset", "players"),
    [
        ("kierki4", ("random", "lowcard", "random", "lowcard")),
        ("kierki3", ("random", "lowcard", "random")),
    ],
)
def test_kierki_runs_are_identical_for_any_workers_and_duplicate_seats_rotate(
    tmp_path, preset, players
):
    """Kierki runs (docs/rules.md part B) through the same runner: 3 or 4 seats per deal, the
    same rows whatever the workers and chunks, and duplicate boards in n rotations."""
    rules = make_rules(preset)
    n = rules.players
    kw = {"rules": rules, "players": players, "games": 12, "duplicate": True}
    _run(tmp_path, "a", workers=1, chunk_size=12, **kw)
    _run(tmp_path, "b", workers=2, chunk_size=5, **kw)
    a = _read(tmp_path / "a", "deals")
    pd.testing.assert_frame_equal(a, _read(tmp_path / "b", "deals"))
    pd.testing.assert_frame_equal(_read(tmp_path / "a", "games"), _read(tmp_path / "b", "games"))
    deals_per_game = 11 if n == 4 else 10  # docs/rules.md B1, without the rebel
    assert len(a) == 12 * n * deals_per_game * n  # boards x rotations x deals x seats
    assert a["game"].max() == 12 * n - 1
    assert (a["player"] == (a["seat"] + a["rotation"]) % n).all()
    # every rotation of a board is dealt the same hands, seat by seat
    hands = a.groupby(["board", "deal", "seat"])["hand"].nunique()
    assert (hands == 1).all()
    assert set(a["kind"]) == {"tricks", "hearts", "queens", "men", "king_of_hearts",
                              "seventh_and_last", "trump", "lottery"}  # fmt: skip
    assert a["pass_direction"].isna().all()
    m = json.loads((tmp_path / "a" / "run.json").read_text())
    assert m["rules"]["options"]["players"] == n and m["rules"]["string"] == preset


def test_the_pool_starts_before_the_first_game_is_played(monkeypatch):
    # Workers start (spawn, imports, cache load) while the parent plays its check game.
    # Spawned, as where forking is not safe (a forked pool starts after the game, with
    # its code loaded): whether this test process may fork depends on the threads other
    # tests left running.
    from hsim.runner import run as runner
    from hsim.runner.pool import stop_executor

    monkeypatch.setenv("HSIM_START_METHOD", "spawn")
    config = RunConfig(rules=Rules(), players=PLAYERS, games=4, seed=1)
    assert runner.start_pool(config, 1) is None  # one worker: the run plays in-process
    seen = []
    real = runner.play_range

    def play_range(*args, **kwargs):
        seen.append(len(pool[0]._processes) if pool else 0)
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "play_range", play_range)
    pool: list = []
    runner.check_config(config, 2, pool)
    try:
        assert len(pool) == 1 and seen == [2]  # both workers spawned before the game
        assert pool[0].submit(sum, (1, 2)).result(timeout=60) == 3
    finally:
        stop_executor(pool[0], kill=True)
