"""``--record games|deals|plays``: what each mode writes, and that the plays are the game.

The plays of a run are rebuilt into each deal's facts with hsim's own rules code (the
engine's trick winner, card points, Kierki trick points and lottery scores) and compared
with the deals dataset; the datasets do not depend on the worker count; games-only runs
are refused by the commands that read deals; resume, verify and a run.json of schema 4
keep working.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.engine.hearts import (
    HEARTS_MASK,
    JACK_DIAMONDS,
    QUEEN_SPADES,
    card_points,
    score_deal,
)
from hsim.engine.kierki import (
    KIND_LOTTERY,
    KIND_NAMES,
    hand_size,
    lottery_place_score,
    trick_points,
    trick_winner,
)
from hsim.engine.layout import R_TRUMP_TRICK_VALUE
from hsim.errors import ConfigError
from hsim.model.rules import make_rules
from hsim.runner import run as runner
from hsim.runner.columns import SCHEMAS, written_schema
from hsim.runner.config import RunConfig, validate
from hsim.runner.manifest import JOURNAL
from hsim.runner.resume import resume_run
from hsim.runner.run import run_tournament
from hsim.runner.verify import RunCheckError, require_complete, verify_run

HEARTS_PLAYERS = ("heuristic", "random", "duck", "lowcard")
TRUMPS = {"C": 0, "D": 1, "S": 2, "H": 3, "none": -1}
CHOICES = {"add": 1, "subtract": 2}


def _play(tmp_path, name, preset="classic", options=(), players=HEARTS_PLAYERS, **kw):
    kw.setdefault("games", 6)
    kw.setdefault("chunk_size", 3)
    workers = kw.pop("workers", 1)
    overwrite = kw.pop("overwrite", False)
    config = RunConfig(make_rules(preset, options), players, seed=11, **kw)
    run_tournament(config, tmp_path / name, workers, overwrite, progress=False)
    return tmp_path / name


def _read(run: Path, dataset: str) -> pd.DataFrame:
    return pd.read_parquet(run / dataset)


def _deal_groups(plays: pd.DataFrame, deals: pd.DataFrame):
    plays = plays.sort_values(["game", "deal", "play"])
    rows = deals.set_index(["game", "deal", "seat"]).sort_index()
    for (game, deal), p in plays.groupby(["game", "deal"], sort=True):
        yield game, deal, p, rows.loc[(game, deal)]


def _check_hearts(run: Path, rules) -> int:
    plays, deals = _read(run, "plays"), _read(run, "deals")
    vector = rules.to_array()
    checked = 0
    for game, deal, p, d in _deal_groups(plays, deals):
        assert list(p["play"]) == list(range(52)) and (p["trick"] == p["play"] // 4).all()
        # every seat plays its hand after the pass
        for seat in range(4):
            held = int(d.hand[seat]) & ~int(d.passed[seat]) | int(d.received[seat])
            mine = p[p.seat == seat].card.to_numpy()
            assert sum(1 << int(c) for c in mine) == held and len(mine) == 13
        points = np.zeros(4, np.int64)
        tricks = np.zeros(4, np.int64)
        taken = [0] * 4
        leader = int(p.leader.iloc[0])
        for t in range(13):
            trick = p[p.trick == t]
            cards = trick.card.to_numpy(np.int64)
            assert int(trick.seat.iloc[0]) == leader == int(trick.leader.iloc[0])
            assert list(trick.position) == [0, 1, 2, 3]
            assert list(trick.seat) == [(leader + k) % 4 for k in range(4)]
            winner = int(trick.seat.iloc[trick_winner(cards, 4, -1)])
            assert (trick.winner == winner).all()
            mask = sum(1 << int(c) for c in cards)
            points[winner] += card_points(mask)
            tricks[winner] += 1
            taken[winner] |= mask
            leader = winner
        assert list(d.points) == list(points) and list(d.tricks) == list(tricks)
        assert list(d.hearts) == [bin(m & HEARTS_MASK).count("1") for m in taken]
        assert list(d.queen_spades) == [bool(m >> QUEEN_SPADES & 1) for m in taken]
        jack = [bool(m >> JACK_DIAMONDS & 1) for m in taken]
        assert list(d.jack_diamonds) == jack
        # the deal's scores, from the rebuilt facts and the scores before it
        before = np.zeros(4, np.int64)
        if deal > 0:
            before = deals[(deals.game == game) & (deals.deal == deal - 1)]
            before = before.sort_values("seat").score.to_numpy(np.int64)
        choice = max(CHOICES.get(c, 0) for c in d.moon_choice.astype(object))
        deal_score, scores = np.zeros(4, np.int64), np.zeros(4, np.int64)
        taker = jack.index(True) if any(jack) else -1
        score_deal(vector, points, tricks, taker, before, choice, deal_score, scores)
        assert list(d.deal_score) == list(deal_score)
        if not d.after_end.any():
            assert list(d.score) == list(scores)
        checked += 1
    return checked


def _check_kierki(run: Path, rules) -> dict[str, int]:
    plays, deals = _read(run, "plays"), _read(run, "deals")
    n = rules.players
    value = int(rules.to_array()[R_TRUMP_TRICK_VALUE])
    seen = {"tricks": 0, "lottery": 0}
    for _, _, p, d in _deal_groups(plays, deals):
        kind = KIND_NAMES.index(str(d.kind.iloc[0]))
        points = np.zeros(n, np.int64)
        for seat in range(n):  # every card played was the seat's
            mine = sum(1 << int(c) for c in p[p.seat == seat].card)
            assert mine & ~int(d.hand[seat]) == 0
        if kind == KIND_LOTTERY:
            assert p[["trick", "position", "leader", "winner"]].isna().all().all()
            left = {s: hand_size(n) for s in range(n)}
            out = []
            for seat in p.seat:
                left[seat] -= 1
                if left[seat] == 0:
                    out.append(int(seat))
            assert len(out) == 2  # the deal ends when the second seat goes out (B4)
            for place, seat in enumerate(out):
                points[seat] = lottery_place_score(place, n, 0)  # hsim table
                assert d.lottery_place[seat] == place + 1
            seen["lottery"] += 1
        else:
            trump = TRUMPS.get(str(d.trump.iloc[0]), -1) if d.trump.notna().any() else -1
            leader = int(p.leader.iloc[0])
            for t, trick in p.groupby("trick", sort=True):
                cards = trick.card.to_numpy(np.int64)
                assert list(trick.seat) == [(leader + k) % n for k in range(n)]
                winner = int(trick.seat.iloc[trick_winner(cards, n, trump)])
                assert (trick.winner == winner).all() and (trick.leader == leader).all()
                mask = sum(1 << int(c) for c in cards)
                points[winner] += trick_points(kind, n, mask, int(t), value, 0, 0)
                leader = winner
            seen["tricks"] += 1
        assert list(d.points) == list(points)
    return seen


def test_hearts_plays_rebuild_every_deal(tmp_path):
    options = ("omnibus=true", "moon=new_moon", "first_trick_points=allowed")
    run = _play(tmp_path, "h", options=options, record="plays")
    assert _check_hearts(run, make_rules("classic", options)) > 20


def test_a_python_seat_records_the_same_plays_as_the_compiled_loop(tmp_path):
    # The plain-Python driver runs the same kernels, with the plays columns too.
    python = ("tests.bots.python_bots:PyRandom", *HEARTS_PLAYERS[1:])
    run = _play(tmp_path, "py", players=python, record="plays", games=3)
    assert _check_hearts(run, make_rules("classic")) > 5


def test_duplicate_and_other_scorings_plays_rebuild_every_deal(tmp_path):
    rules = make_rules("classic")
    also = (make_rules("classic", ("end_score=150",)),)
    run = _play(tmp_path, "d", duplicate=True, score_also=also, games=2, chunk_size=1,
                record="plays")  # fmt: skip
    plays, deals = _read(run, "plays"), _read(run, "deals")
    assert deals.after_end.any() and set(plays.rotation) == {0, 1, 2, 3}
    assert (plays.player == (plays.seat + plays.rotation) % 4).all()
    assert (plays.game == 4 * plays.board + plays.rotation).all()
    assert _check_hearts(run, rules) == len(deals) // 4


@pytest.mark.parametrize(
    ("preset", "options", "players"),
    [
        (
            "kierki4",
            ("rebel=true", "allow_no_trump=true"),
            ("kierki", "random", "lowcard", "kierki"),
        ),
        ("kierki3", ("stop_when_no_penalties=true",), ("kierki", "random", "kierki")),
    ],
)
def test_kierki_plays_rebuild_every_deal(tmp_path, preset, options, players):
    rules = make_rules(preset, options)
    run = _play(tmp_path, preset, preset, options, players, games=2, chunk_size=1,
                record="plays")  # fmt: skip
    seen = _check_kierki(run, rules)
    assert seen["lottery"] == 2 and seen["tricks"] > 10


def test_the_datasets_do_not_depend_on_the_workers(tmp_path):
    runs = [_play(tmp_path, f"w{w}", games=8, chunk_size=2, workers=w, record="plays")
            for w in (1, 2)]  # fmt: skip
    for dataset in ("deals", "games", "plays"):
        one, two = (_read(r, dataset) for r in runs)
        assert len(one) > 0
        pd.testing.assert_frame_equal(one, two)
        names = [sorted(p.name for p in (r / dataset).glob("*.parquet")) for r in runs]
        assert names[0] == names[1]


def test_each_mode_writes_its_datasets_and_the_same_games(tmp_path):
    runs = {m: _play(tmp_path, m, record=m) for m in ("games", "deals", "plays")}
    # --overwrite takes a plays run folder as a run folder
    _play(tmp_path, "plays", record="plays", overwrite=True)
    for mode, run in runs.items():
        manifest = json.loads((run / "run.json").read_text())
        assert manifest["record"] == mode
        written = sorted(p.name for p in run.iterdir() if p.is_dir())
        assert written == sorted(runner.RECORD_DATASETS[mode])
        assert verify_run(run).ok
        assert all(set(e) >= set(written) for e in manifest["parts"])
        pd.testing.assert_frame_equal(_read(run, "games"), _read(runs["deals"], "games"))
    pd.testing.assert_frame_equal(_read(runs["plays"], "deals"), _read(runs["deals"], "deals"))


def test_a_games_run_is_refused_by_the_commands_that_read_deals(tmp_path):
    run = _play(tmp_path, "g", record="games")
    with pytest.raises(RunCheckError, match="--record games"):
        require_complete(run)
    assert require_complete(run, deals=False) == []
    for argv in (["report", str(run)], ["replay", str(run), "--game", "0"]):
        result = CliRunner().invoke(main, argv)
        assert result.exit_code == 1, result.output
        assert "--record games" in result.output and "no deals" in result.output
        assert "Traceback" not in result.output
    from hsim.analysis import load_run

    with pytest.raises(Exception, match="--record games"):
        load_run(run)


@pytest.mark.parametrize("mode", ["games", "plays"])
def test_resume_completes_a_run_of_each_mode(tmp_path, mode):
    whole = _play(tmp_path, "whole", record=mode)
    run = _play(tmp_path, "cut", record=mode)
    manifest = json.loads((run / "run.json").read_text())
    dropped = manifest["parts"].pop()  # as if killed before the last chunk was recorded
    manifest["status"] = "interrupted"
    (run / "run.json").write_text(json.dumps(manifest))
    for dataset in runner.RECORD_DATASETS[mode]:
        (run / dropped[dataset]["file"]).unlink()
    result = resume_run(run, workers=1, progress=False)
    assert result.status == "complete" and result.games_played == 3
    assert verify_run(run).ok and not (run / JOURNAL).exists()
    for dataset in runner.RECORD_DATASETS[mode]:
        pd.testing.assert_frame_equal(_read(run, dataset), _read(whole, dataset))


@pytest.mark.parametrize("version", [4, 5])
def test_resume_of_an_older_schema_run_writes_parts_of_that_schema(tmp_path, monkeypatch, version):
    monkeypatch.setattr(runner, "SCHEMA_VERSION", version)  # what an older hsim wrote
    run = _play(tmp_path, "old")
    monkeypatch.undo()
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["schema_version"] == version
    dropped = manifest["parts"].pop()
    manifest["status"] = "interrupted"
    (run / "run.json").write_text(json.dumps(manifest))
    for dataset in ("deals", "games"):
        (run / dropped[dataset]["file"]).unlink()
    resume_run(run, workers=1, progress=False)
    assert json.loads((run / "run.json").read_text())["schema_version"] == version
    for dataset in ("deals", "games"):
        schemas = {pq.read_schema(p).remove_metadata() for p in (run / dataset).glob("*.parquet")}
        assert len(schemas) == 1
        (schema,) = schemas
        assert schema == written_schema(SCHEMAS[dataset], version)
        assert all(f.nullable for f in schema)
        assert ("dictionary" in str(schema)) == (version == 5)
    result = CliRunner().invoke(main, ["report", str(run)])  # still read
    assert result.exit_code == 0, result.output


def test_bad_record_modes_are_refused(tmp_path):
    rules = make_rules("classic")
    with pytest.raises(ConfigError, match="--record must be one of games, deals, plays"):
        validate(RunConfig(rules, ("random",) * 4, games=2, seed=1, record="cards"))
    with pytest.raises(ConfigError, match="--chunk-size"):
        validate(RunConfig(rules, ("random",) * 4, 2, 1, chunk_size=20_000, record="plays"))
    out = tmp_path / "new"
    for argv, words in (
        (["--record", "cards"], "'cards' is not one of"),
        (["--record", "plays", "--chunk-size", "20000"], "1..2500"),
    ):
        result = CliRunner().invoke(
            main,
            [
                "tournament",
                "--players",
                "random,random,random,random",
                "--games",
                "2",
                "--out",
                str(out),
                "--no-progress",
                *argv,
            ],  # fmt: skip
        )
        assert result.exit_code == 2 and words in result.output, result.output
        assert "Traceback" not in result.output and not out.exists()
    run = _play(tmp_path, "r")
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "record": "cards"}))
    check = verify_run(run)
    assert not check.ok and any("'record'" in p for p in check.damaged)
    (run / "run.json").write_text(json.dumps({**manifest, "schema_version": 99}))
    assert any("schema_version" in p for p in verify_run(run).damaged)


@pytest.mark.parametrize("record", [["plays"], {"mode": "plays"}, None, 5])
def test_a_run_json_record_that_is_not_a_string_is_named_by_resume(tmp_path, record):
    run = _play(tmp_path, "r", games=3)
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "record": record, "status": "failed",
                                              "error_kind": "disk"}))  # fmt: skip
    result = CliRunner().invoke(main, ["resume", str(run), "--no-progress"])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert f"record is {record!r}, not one of games, deals, plays" in result.output


@pytest.mark.parametrize("preset", ["classic", "kierki4"])
def test_a_run_with_plain_and_dictionary_string_parts_is_read(tmp_path, monkeypatch, preset):
    """A schema-5 run resumed by an hsim of schema 4 (or whose run.json says 4) holds
    parts of both forms; the readers take them (they refused with ArrowInvalid)."""
    players = HEARTS_PLAYERS if preset == "classic" else ("kierki", "random") * 2
    run = _play(tmp_path, "mixed", preset, players=players, record="plays")
    manifest = json.loads((run / "run.json").read_text())
    dropped = manifest["parts"].pop()
    (run / "run.json").write_text(json.dumps({**manifest, "status": "interrupted",
                                              "schema_version": 4}))  # fmt: skip
    for dataset in ("deals", "games", "plays"):
        (run / dropped[dataset]["file"]).unlink()
    resume_run(run, workers=1, progress=False)
    kinds = {"dictionary" in str(pq.read_schema(p).field("strategy").type)
             for p in (run / "deals").glob("*.parquet")}  # fmt: skip
    assert kinds == {True, False}
    for args in (["report", str(run)], ["report", str(run), "--json"],
                 ["replay", str(run), "--game", "4"]):  # fmt: skip
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output


def test_plays_chunks_stay_small_whatever_the_default():
    """A plays chunk holds a row per card: the local and the cluster default are capped."""
    from hsim.model.rules import Rules
    from hsim.runner.config import CLUSTER_CHUNK, MAX_PLAYS_CHUNK_SIZE, RunConfig

    for record in ("plays", "deals"):
        config = RunConfig(Rules(), ("random",) * 4, 10**9, 1, record=record)
        size = config.size_for(2, CLUSTER_CHUNK)
        assert size == (MAX_PLAYS_CHUNK_SIZE if record == "plays" else CLUSTER_CHUNK)


@pytest.mark.parametrize("status", ["interrupted", "complete"])
def test_resume_refuses_parts_of_a_dataset_the_run_does_not_record(tmp_path, status):
    """run.json's record edited from plays to games: the deals and plays parts are kept
    and nothing is resumed (a resume used to delete them as strays)."""
    run = _play(tmp_path, "edited", record="plays")
    manifest = json.loads((run / "run.json").read_text())
    if status == "interrupted":
        manifest["parts"].pop()
    before = {d: sorted((run / d).glob("part-*")) for d in ("deals", "plays")}
    edited = {**manifest, "status": status, "record": "games"}
    (run / "run.json").write_text(json.dumps(edited))
    result = CliRunner().invoke(main, ["resume", str(run), "--no-progress"])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "deals/, plays/" in result.output and "records only games" in result.output
    assert {d: sorted((run / d).glob("part-*")) for d in ("deals", "plays")} == before
    assert json.loads((run / "run.json").read_text()) == edited  # nothing was changed
    (run / "run.json").write_text(json.dumps(manifest))  # restored: it resumes
    assert resume_run(run, workers=1, progress=False).status == "complete"
    assert verify_run(run).ok


@pytest.mark.parametrize("status", ["interrupted", "complete"])
def test_resume_keeps_any_file_in_the_folder_of_a_dataset_the_run_does_not_record(tmp_path, status):
    """A deals run's folder with plays/ holding a note and a renamed part of another run
    (or only a folder): refused, all kept; an empty plays/ folder is accepted."""
    other = _play(tmp_path, "other", games=3)
    run = _play(tmp_path, "run", games=6)
    manifest = json.loads((run / "run.json").read_text())
    if status == "interrupted":
        manifest["parts"].pop()
    (run / "run.json").write_text(json.dumps({**manifest, "status": status}))
    (run / "plays").mkdir()
    (run / "plays" / "notes.txt").write_text("mine")
    copied = run / "plays" / "from-another-run.parquet"
    copied.write_bytes(next((other / "deals").glob("part-*")).read_bytes())
    result = CliRunner().invoke(main, ["resume", str(run), "--no-progress"])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "holds files in plays/" in result.output
    assert sorted(p.name for p in (run / "plays").iterdir()) == [
        "from-another-run.parquet",
        "notes.txt",
    ]
    for name in ("notes.txt", "from-another-run.parquet"):
        (run / "plays" / name).unlink()
    (run / "plays" / "part-sub").mkdir()
    result = CliRunner().invoke(main, ["resume", str(run), "--no-progress"])
    assert result.exit_code == 1 and (run / "plays" / "part-sub").is_dir(), result.output
    (run / "plays" / "part-sub").rmdir()
    result = CliRunner().invoke(main, ["resume", str(run), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert (run / "plays").is_dir() and verify_run(run).ok
