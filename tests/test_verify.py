"""Verified datasets: run.json's parts with row counts and checksums, ``hsim verify``, and
the analysis commands refusing incomplete or damaged runs (hsim.runner.verify)."""

import json
import re
import shutil

import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.model.rules import Rules
from hsim.runner.config import RunConfig
from hsim.runner.manifest import read_manifest
from hsim.runner.run import run_tournament
from hsim.runner.sink import file_sha256
from hsim.runner.verify import RunCheckError, require_complete, verify_run

PLAYERS = ("random", "lowcard", "random", "lowcard")


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    out = tmp_path_factory.mktemp("v") / "run"
    config = RunConfig(Rules(), PLAYERS, 30, 3, chunk_size=10, score_also=(Rules(omnibus=True),))
    run_tournament(config, out, workers=1, progress=False)
    return out


@pytest.fixture
def run(good, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(good, out)
    return out


def test_run_json_lists_every_part_with_rows_and_checksum(good):
    m = read_manifest(good)
    assert [(p["start"], p["stop"]) for p in m["parts"]] == [(0, 10), (10, 20), (20, 30)]
    for entry in m["parts"]:
        for dataset in ("deals", "games"):
            part = entry[dataset]
            path = good / part["file"]
            assert part["sha256"] == file_sha256(path)
            assert part["bytes"] == path.stat().st_size
        assert entry["games"]["rows"] == 10 * 4 * 2  # games x seats x scorings
    check = verify_run(good)
    assert check.ok and check.games == check.games_present == 30
    assert require_complete(good) == []


def _first(run, dataset="deals"):
    return run / read_manifest(run)["parts"][0][dataset]["file"]


def _delete(run):  # both parts of a chunk: its games are missing
    _first(run).unlink()
    _first(run, "games").unlink()


def _delete_one(run):  # one dataset without the other: damage
    _first(run).unlink()


def _truncate(run):
    path = _first(run, "games")
    path.write_bytes(path.read_bytes()[:-7])


def _corrupt(run):  # same size, other bytes
    path = _first(run)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _extra(run):
    shutil.copy(_first(run), run / "deals" / "part-000000099990.parquet")


def _cut_manifest(run):
    path = run / "run.json"
    path.write_text(path.read_text()[:200])


def _edit_rows(run):
    m = read_manifest(run)
    m["parts"][2]["games"]["rows"] += 4
    (run / "run.json").write_text(json.dumps(m))


@pytest.mark.parametrize(
    ("damage", "problem", "quick_sees_it"),
    [
        (_delete, r"deals/part-000000000000\.parquet is missing", True),
        (_delete_one, r"deals/part-000000000000\.parquet is missing \(its other", True),
        (_truncate, r"games/part-000000000000\.parquet is \d+ bytes, not the \d+ recorded", True),
        (_corrupt, r"deals/part-000000000000\.parquet is corrupt: its sha256 differs", False),
        (_extra, r"deals/part-000000099990\.parquet is not a part of this run", True),
        (_cut_manifest, r"run\.json.*not valid JSON", True),
        (_edit_rows, r"record of games 20\.\.30 \(exclusive\) is damaged", True),
    ],
    ids=["missing", "missing-one", "truncated", "corrupt", "extra", "manifest", "rows"],
)
def test_verify_names_each_problem_and_analysis_refuses(run, damage, problem, quick_sees_it):
    damage(run)
    check = verify_run(run)
    assert not check.ok and bool(check.damaged) == (damage is not _delete)
    assert any(re.search(problem, p) for p in check.problems), check.problems
    result = CliRunner().invoke(main, ["verify", str(run)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "failed verification" in result.output
    if damage is _delete:  # games missing: refused, or analysed with --allow-partial
        with pytest.raises(RunCheckError, match=r"not complete.*10 of 30 games"):
            require_complete(run)
        result = CliRunner().invoke(main, ["report", str(run), "--allow-partial"])
        assert result.exit_code == 0 and "10 of 30 games (33.3%) are missing" in result.output
    elif quick_sees_it:
        damaged = "not valid JSON" if damage is _cut_manifest else "is damaged"
        with pytest.raises(RunCheckError, match=damaged):
            require_complete(run, allow_partial=True)
        for args in (["report", str(run)], ["replay", str(run), "--game", "1"]):
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 1, result.output
            assert damaged in result.output
            assert damage is _cut_manifest or "hsim verify" in result.output
            assert result.exception is None or isinstance(result.exception, SystemExit)


def test_an_interrupted_run_is_refused_unless_allow_partial(run):
    m = read_manifest(run)
    gone = m["parts"].pop()
    m["status"] = "interrupted"
    (run / "run.json").write_text(json.dumps(m))
    for dataset in ("deals", "games"):
        (run / gone[dataset]["file"]).unlink()
    check = verify_run(run)
    assert not check.damaged and check.games_present == 20
    assert any("10 of 30 games (33.3%) are missing (games 20..29)" in p for p in check.problems)
    with pytest.raises(RunCheckError, match="not complete.*--allow-partial"):
        require_complete(run)
    (warning,) = require_complete(run, allow_partial=True)
    assert "interrupted" in warning and "10 of 30 games" in warning
    result = CliRunner().invoke(main, ["report", str(run)])
    assert result.exit_code == 1 and "--allow-partial" in result.output
    result = CliRunner().invoke(main, ["report", str(run), "--allow-partial"])
    assert result.exit_code == 0, result.output
    assert "warning: the run is interrupted: 10 of 30 games (33.3%) are missing" in result.output
    result = CliRunner().invoke(main, ["replay", str(run), "--game", "3", "--allow-partial"])
    assert result.exit_code == 0, result.output


def test_verify_of_a_good_run_and_of_no_run(good, tmp_path):
    result = CliRunner().invoke(main, ["verify", str(good)])
    assert result.exit_code == 0 and "complete, 30 games" in result.output
    result = CliRunner().invoke(main, ["verify", str(tmp_path)])
    assert result.exit_code == 1 and "not an hsim run folder" in result.output


@pytest.mark.parametrize("damage", [_truncate, _corrupt, _delete_one], ids=["cut", "bad", "one"])
def test_the_games_of_a_damaged_part_are_named_as_missing(run, damage):
    damage(run)  # chunk 0..9 is recorded in run.json, but its parts are not intact
    check = verify_run(run)
    assert "10 of 30 games (33.3%) are missing (games 0..9)" in check.problems, check.problems


def test_resume_of_a_complete_run_deletes_the_files_verify_names(run):
    _extra(run)  # named as hsim names parts: a part written but never recorded
    (run / "deals" / ".tmp-w1-99-part-000000000000.parquet").write_bytes(b"x")
    assert not verify_run(run).ok
    result = CliRunner().invoke(main, ["resume", str(run), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "deleted 2 files that are not parts of the run" in result.output
    assert verify_run(run).ok and require_complete(run) == []
    entry = read_manifest(run)["resumes"][-1]
    assert entry["parts_removed"] == 2 and entry["previous_status"] == "complete"
    result = CliRunner().invoke(main, ["resume", str(run), "--no-progress"])
    assert "already complete: nothing to resume" in result.output


def test_resume_keeps_a_file_hsim_did_not_write_and_changes_nothing(run):
    (run / "games" / "notes.txt").write_text("mine")
    before = sorted(p.name for p in (run / "games").iterdir())
    result = CliRunner().invoke(main, ["resume", str(run), "--no-progress"])
    assert result.exit_code == 1 and "games/notes.txt is not a part hsim wrote" in result.output
    assert sorted(p.name for p in (run / "games").iterdir()) == before
