"""Runs left alone: SIGKILL at any moment then resume, lost workers, one owner per folder,
hung strategies, signals, lazy planning (hsim.runner.run, .pool, .lock, .resume).

Kill moments are reached through the test hooks of :mod:`hsim.runner.hooks`: the run
pauses there and the test SIGKILLs it. Every process of a run carries an environment tag,
so the tests can check that none survives.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pandas as pd
import pytest

from hsim.model.rules import Rules, make_rules
from hsim.runner.config import RunConfig
from hsim.runner.lock import FolderError, claim, claim_new, is_locked
from hsim.runner.manifest import JOURNAL, read_manifest
from hsim.runner.resume import resume_run
from hsim.runner.run import RunError, run_tournament
from hsim.runner.verify import verify_run
from tests.conftest import PY_BOTS, folder_held

PLAYERS = "random,lowcard,random,lowcard"
GAMES, CHUNK, SEED = 1200, 100, 11


def _read(run_dir):
    return {d: pd.read_parquet(Path(run_dir) / d) for d in ("deals", "games")}


def _assert_same(a, b):
    for dataset in ("deals", "games"):
        pd.testing.assert_frame_equal(_read(a)[dataset], _read(b)[dataset])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run of the settings the kill tests use."""
    out = tmp_path_factory.mktemp("ref") / "run"
    config = RunConfig(Rules(), tuple(PLAYERS.split(",")), GAMES, SEED, chunk_size=CHUNK)
    run_tournament(config, out, workers=1, progress=False)
    return out


def _env(tag, **extra):
    env = dict(os.environ, HSIM_TEST_TAG=tag, **extra)
    env.pop("HSIM_TEST_PAUSE", None)
    env.update(extra)
    return env


def _hsim(*args, env=None, players=PLAYERS, games=GAMES, seed=SEED, wait=True):
    cmd = [sys.executable, "-m", "hsim.cli", *args]
    if args[0] == "tournament":
        cmd += ["--players", players, "--games", str(games), "--seed", str(seed)]
        cmd += ["--chunk-size", str(CHUNK), "--no-progress"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env or os.environ
    )
    if not wait:
        return proc
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def _lines(err):
    """stderr's lines but the notice of a cold compile (it comes before the run)."""
    return [line for line in err.strip().splitlines() if not line.startswith("compiling ")]


def _wait_for(predicate, proc=None, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the run ended first: {proc.communicate()}")
        time.sleep(0.02)
    raise AssertionError("timed out waiting")


def _tagged(tag):
    pids = []
    for env in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"HSIM_TEST_TAG={tag}".encode() in env.read_bytes():
                pids.append(int(env.parent.name))
        except OSError:
            pass
    return pids


def _assert_no_survivors(tag, within=5.0):
    deadline = time.monotonic() + within
    while _tagged(tag):
        assert time.monotonic() < deadline, f"processes of the run survive: {_tagged(tag)}"
        time.sleep(0.1)


@pytest.mark.parametrize(
    ("moment", "workers"),
    [
        ("claimed", 1),  # folder locked, no run.json yet
        ("manifest", 1),  # run.json written, no game played
        ("chunk@400", 2),  # in a worker, mid-chunk (played, parts not written)
        ("rename@400", 2),  # deals part renamed into place, games part not
        ("recorded@400", 1),  # both parts renamed, not yet in the journal
        ("finish", 1),  # every chunk recorded, run.json not yet complete
    ],
)
def test_sigkill_of_the_parent_at_any_moment_then_resume(tmp_path, reference, moment, workers):
    out, pause, tag = tmp_path / "run", tmp_path / "pause", uuid.uuid4().hex
    env = _env(tag, HSIM_TEST_PAUSE=moment, HSIM_TEST_PAUSE_FILE=str(pause))
    proc = _hsim("tournament", "--workers", str(workers), "--out", str(out), env=env, wait=False)
    _wait_for(lambda: pause.exists() and pause.read_text().strip(), proc)
    proc.kill()
    proc.communicate()
    _assert_no_survivors(tag)  # workers and the resource tracker too
    if moment == "claimed":
        assert not (out / "run.json").exists()
        code, _, err = _hsim("resume", str(out))
        assert code == 1 and "no run.json" in err and "Traceback" not in err
        code, _, err = _hsim("tournament", "--workers", "1", "--out", str(out))  # no --overwrite
        assert code == 0, err
    else:
        m = read_manifest(out)
        assert m["status"] == "running" and not verify_run(out).ok
        if moment.startswith("rename"):  # through the command line, on two workers
            code, stdout, err = _hsim("resume", str(out), "--workers", "2", "--no-progress")
            assert code == 0 and "resumed: played the" in stdout, err
        else:
            result = resume_run(out, workers=1, progress=False)
            assert result.status == "complete" and result.games_played <= GAMES
            assert (result.games_played == 0) == (moment == "finish")
        assert read_manifest(out)["resumes"][0]["previous_status"] == "running"
    _assert_same(reference, out)
    check = verify_run(out)
    assert check.ok, check.problems
    assert read_manifest(out)["status"] == "complete" and not (out / JOURNAL).exists()


def test_sigkill_of_a_worker_replays_its_chunk(tmp_path, reference):
    out, pause, tag = tmp_path / "run", tmp_path / "pause", uuid.uuid4().hex
    env = _env(tag, HSIM_TEST_PAUSE="chunk@500", HSIM_TEST_PAUSE_FILE=str(pause))
    proc = _hsim("tournament", "--workers", "2", "--out", str(out), env=env, wait=False)
    _wait_for(lambda: pause.exists() and pause.read_text().strip(), proc)
    worker = int(pause.read_text())
    assert worker != proc.pid
    os.kill(worker, signal.SIGKILL)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    _assert_same(reference, out)
    assert verify_run(out).ok and read_manifest(out)["status"] == "complete"
    _assert_no_survivors(tag)


def test_a_chunk_that_always_kills_its_worker_fails_after_the_retries(tmp_path):
    out, pause = tmp_path / "run", tmp_path / "pause"
    env = _env(uuid.uuid4().hex, HSIM_TEST_PAUSE="chunk@500", HSIM_TEST_PAUSE_FILE=str(pause))
    proc = _hsim(
        "tournament", "--workers", "2", "--retries", "0", "--out", str(out), env=env, wait=False
    )
    _wait_for(lambda: pause.exists() and pause.read_text().strip(), proc)
    os.kill(int(pause.read_text()), signal.SIGKILL)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 1 and "Traceback" not in err
    assert re.search(r"games \d+\.\.\d+: the worker playing them was lost 1 times", err), err
    assert "--retries" in err and "hsim resume" in err
    m = read_manifest(out)
    assert m["status"] == "failed" and m["error_kind"] == "worker"
    assert resume_run(out, workers=1, progress=False).status == "complete"


_CLAIM = """
import sys, time
from pathlib import Path
from hsim.runner.lock import FolderError, claim_new
out, start = Path(sys.argv[1]), float(sys.argv[2])
time.sleep(max(0.0, start - time.time() - 0.01))
while time.time() < start:
    pass
try:
    lock = claim_new(out, False)
except FolderError as exc:
    print("REFUSED", exc)
    sys.exit(3)
(out / "run.json").write_text("{}")  # as a run does at once
print("OWNED")
time.sleep(0.2)
lock.release()
"""


@pytest.fixture(params=["flock", "no_flock"])
def lock_mode(request, monkeypatch):
    """Run a test with flock, and as on a file system without it (the O_EXCL owner file)."""
    if request.param == "no_flock":
        monkeypatch.setenv("HSIM_TEST_NO_FLOCK", "1")
    else:
        monkeypatch.delenv("HSIM_TEST_NO_FLOCK", raising=False)
    return request.param


def test_two_claims_started_together_exactly_one_owns_the_folder(tmp_path, lock_mode):
    for i in range(20 if lock_mode == "flock" else 10):
        out = tmp_path / f"run{i}"
        start = time.time() + 0.3
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _CLAIM, str(out), str(start)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        results = [p.communicate(timeout=60) for p in procs]
        codes = sorted(p.returncode for p in procs)
        assert codes == [0, 3], results
        refused = next(out for out, _ in results if out.startswith("REFUSED"))
        assert "in use by hsim process" in refused or "already exists" in refused


def test_two_tournaments_into_one_folder_one_wins_and_the_folder_is_whole(tmp_path, lock_mode):
    out = tmp_path / "run"
    procs = [_hsim("tournament", "--workers", "1", "--out", str(out), wait=False) for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 1], results
    err = next(e for p, (_, e) in zip(procs, results, strict=True) if p.returncode == 1)
    assert ("in use by hsim process" in err or "already exists" in err) and "Traceback" not in err
    assert verify_run(out).ok


def test_lock_names_its_owner_and_a_dead_owner_is_stale(tmp_path, lock_mode):
    out = tmp_path / "run"
    out.mkdir()
    lock = claim(out)
    with pytest.raises(FolderError, match=rf"in use by hsim process {os.getpid()} on host"):
        claim_new(out, True)
    lock.release()
    # A process that held the lock and died (SIGKILL) leaves a stale lock file behind.
    with folder_held(out) as holder:
        with pytest.raises(FolderError, match=str(holder.pid)):
            claim(out)
        assert is_locked(out)
    assert (out / (".hsim.lock" if lock_mode == "flock" else ".hsim.owner")).exists()
    assert not is_locked(out)
    claim(out).release()  # stale: taken at once


def test_a_run_inside_a_folder_another_process_holds_is_refused(tmp_path, lock_mode):
    outer = tmp_path / "ladder"
    (outer / "rung").mkdir(parents=True)
    with folder_held(outer) as holder:
        with pytest.raises(
            FolderError, match=rf"inside {outer}, which is in use by hsim process {holder.pid}"
        ):
            claim_new(outer / "new", False)
        assert not (outer / "new").exists()  # the folder it made is removed again
        with pytest.raises(FolderError, match="inside"):
            claim_new(outer / "a" / "b" / "c", True)
        assert not (outer / "a").exists()  # refused before any folder is made
        with pytest.raises(FolderError, match="inside"):
            claim(outer / "rung")  # an existing folder: hsim resume, --overwrite
        assert [p.name for p in (outer / "rung").iterdir() if p.name != ".hsim.lock"] == []
    claim_new(outer / "new", False).release()  # the holder is gone: its lock is stale


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (["sprt", "--candidate", "lowcard", "--baseline", "duck", "--bounds=-0.3,0"], 2),
        (["atlas", "--variant", "omnibus=true", "--bots", "random", "--games", "20"], 1),
        (["gauntlet", "--candidates", "lowcard", "--panel", "random", "--boards", "2"], 1),
    ],
)
def test_sprt_atlas_and_gauntlet_inside_a_held_folder_are_refused_and_make_nothing(
    tmp_path, command, code
):
    from click.testing import CliRunner

    from hsim.cli import main

    outer = tmp_path / "ladder"
    outer.mkdir()
    with folder_held(outer) as holder:
        result = CliRunner().invoke(
            main, [*command, "--no-progress", "--out", str(outer / "x" / "y")]
        )
        assert result.exit_code == code, result.output
        assert f"inside {outer}, which is in use by hsim process {holder.pid}" in result.output
        assert "Traceback" not in result.output
        assert sorted(p.name for p in outer.iterdir()) == [".hsim.lock"]


def test_a_process_may_claim_inside_a_folder_it_holds_itself(tmp_path, lock_mode):
    outer = tmp_path / "sprt"
    outer.mkdir()
    lock = claim(outer)
    inner = claim_new(outer / "candidate", False)  # as sprt, atlas and ladder do
    inner.release()
    lock.release()


def _owner_file(out, **owner):
    out.mkdir(exist_ok=True)
    (out / ".hsim.owner").write_text(json.dumps(owner) + "\n")


def test_without_flock_an_owner_on_another_host_is_refused_with_the_file_to_delete(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("HSIM_TEST_NO_FLOCK", "1")
    out = tmp_path / "run"
    _owner_file(out, pid=os.getpid(), host="elsewhere.example", started="2026-12-01T00:00:00Z")
    with pytest.raises(FolderError, match=r"on host elsewhere.example.*delete .*\.hsim\.owner"):
        claim(out)
    assert is_locked(out)  # cannot be checked from here: counted as held


def test_without_flock_a_reused_pid_or_a_half_written_owner_file_is_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("HSIM_TEST_NO_FLOCK", "1")
    out = tmp_path / "run"
    # Our own pid, but a process started at another time: the pid was reused.
    _owner_file(out, pid=os.getpid(), host=socket.gethostname(), process_start="1")
    lock = claim(out)
    assert json.loads((out / ".hsim.owner").read_text())["pid"] == os.getpid()
    lock.release()
    assert not (out / ".hsim.owner").exists()
    # Killed between creating the file and writing it: empty, and older than 5 s.
    (out / ".hsim.owner").write_text("")
    old = time.time() - 60
    os.utime(out / ".hsim.owner", (old, old))
    claim(out).release()


def test_out_inside_a_run_and_overwrite_of_the_cwd_are_refused(tmp_path, reference, monkeypatch):
    before = sorted(p.name for p in (reference / "deals").iterdir())
    with pytest.raises(FolderError, match="inside the run folder"):
        claim_new(reference / "deals" / "sub", False)
    assert not (reference / "deals" / "sub").exists()
    monkeypatch.chdir(reference / "deals")
    with pytest.raises(FolderError, match="current directory"):
        claim_new(reference, True)
    assert sorted(p.name for p in (reference / "deals").iterdir()) == before
    assert verify_run(reference).ok


def test_a_decision_timeout_stops_the_run_with_the_strategy_error(tmp_path, py_bot):
    sleeper = py_bot("Sleeper")
    config = RunConfig(
        Rules(), ("random", sleeper, "random", "random"), 60, 1, chunk_size=4,
        decision_timeout=1.0,
    )  # fmt: skip
    t0 = time.monotonic()
    with pytest.raises(RunError, match=r"\(seat 1\) took longer than 1 s to decide") as err:
        run_tournament(config, tmp_path / "run", workers=2, progress=False)
    assert time.monotonic() - t0 < 60
    assert "of run seed 1" in str(err.value) and "Sleeper" in str(err.value)
    m = read_manifest(tmp_path / "run")
    assert m["status"] == "failed" and m["error_kind"] == "decision_timeout"


@pytest.mark.parametrize(("sig", "workers"), [(signal.SIGTERM, 1), (signal.SIGTERM, 2)])
def test_a_blocked_strategy_is_stopped_by_sigterm_within_5_s(tmp_path, py_bot, sig, workers):
    out, tag, marker = tmp_path / "run", uuid.uuid4().hex, tmp_path / "asleep"
    players = f"random,{py_bot('Sleeper')},random,random"
    proc = _hsim(
        "tournament", "--workers", str(workers), "--decision-timeout", "0", "--out", str(out),
        env=_env(tag, HSIM_TEST_SLEEP_MARKER=str(marker)), players=players, games=400, seed=1,
        wait=False,
    )  # fmt: skip
    _wait_for(marker.exists, proc)  # the sleeper is blocked (in game 30)
    proc.send_signal(sig)
    t0 = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - t0 < 5
    assert proc.returncode == 143, err
    assert "Traceback" not in err and len(_lines(err)) == 1 and "interrupted" in err
    m = read_manifest(out)
    assert m["status"] == "interrupted" and "error" not in m
    assert not verify_run(out).damaged
    _assert_no_survivors(tag)


def test_sigterm_stops_a_long_compiled_chunk_in_this_process_within_5_s(tmp_path):
    # pimc in the parent (--workers 1): Python cannot run a signal handler until the
    # compiled chunk returns, so the watcher thread records the stop and exits.
    out, tag = tmp_path / "run", uuid.uuid4().hex
    proc = _hsim(
        "tournament", "--workers", "1", "--out", str(out), env=_env(tag),
        players="pimc,random,random,random", games=200, wait=False,
    )  # fmt: skip
    _wait_for(lambda: (out / "run.json").exists(), proc)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    t0 = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - t0 < 5
    assert proc.returncode == 143 and "Traceback" not in err, err
    assert len(_lines(err)) == 1 and "interrupted" in err
    assert read_manifest(out)["status"] == "interrupted" and not verify_run(out).damaged


def test_sigint_while_workers_start_is_one_line(tmp_path):
    out, tag = tmp_path / "run", uuid.uuid4().hex
    proc = _hsim("tournament", "--workers", "2", "--out", str(out), env=_env(tag), wait=False)
    _wait_for(lambda: (out / "run.json").exists(), proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(_lines(err)) == 1
    assert read_manifest(out)["status"] == "interrupted"
    _assert_no_survivors(tag)


def test_any_game_count_up_to_2_63_starts_at_once(tmp_path):
    config = RunConfig(Rules(), tuple(PLAYERS.split(",")), 2**63 - 1, 1)
    ranges = config.ranges(config.size_for(2))
    assert next(ranges) == (0, 2000) and next(ranges) == (2000, 4000)
    out = tmp_path / "run"
    proc = _hsim("tournament", "--workers", "1", "--out", str(out), games=2**63 - 1, wait=False)
    # A chunk recorded in the journal, not only renamed into place: a stop between the
    # rename and the journal entry rightly leaves the part to be played again.
    journal = out / JOURNAL
    _wait_for(lambda: journal.is_file() and journal.read_text().strip() != "", proc, timeout=60)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    m = read_manifest(out)
    assert m["games"] == 2**63 - 1 and m["status"] == "interrupted"
    assert m["parts"][0]["games"]["file"] == f"games/part-{0:019d}.parquet"


def _interrupt_by_hand(run_dir, keep):
    """Make a finished run look SIGKILLed after ``keep`` chunks: run.json ``running``
    without parts, the journal with ``keep`` entries and a line cut short, an unrecorded
    part left in place, a temporary file."""
    m = read_manifest(run_dir)
    parts = m.pop("parts")
    m["status"] = "running"
    (run_dir / "run.json").write_text(json.dumps(m))
    lines = [json.dumps(e) for e in parts[:keep]]
    (run_dir / JOURNAL).write_text("\n".join(lines) + "\n" + json.dumps(parts[keep])[:40])
    for entry in parts[keep + 1 :]:
        for dataset in ("deals", "games"):
            (run_dir / entry[dataset]["file"]).unlink()
    (run_dir / "games" / ".tmp-1-part-x.parquet").write_bytes(b"half")


@pytest.mark.parametrize(
    "kw",
    [
        {"duplicate": True, "score_also": (Rules(omnibus=True),)},
        {"rules": make_rules("kierki3"), "players": ("random", "lowcard", "random")},
        {"rules": make_rules("kierki4"), "duplicate": True},
    ],
    ids=["hearts-duplicate-score-also", "kierki3", "kierki4-duplicate"],
)
def test_resume_of_duplicate_score_also_and_kierki_runs(tmp_path, kw):
    kw = dict(kw)
    config = RunConfig(
        kw.pop("rules", Rules()), kw.pop("players", tuple(PLAYERS.split(","))), 24, 5,
        chunk_size=5, **kw,
    )  # fmt: skip
    run_tournament(config, tmp_path / "ref", workers=1, progress=False)
    run_tournament(config, tmp_path / "cut", workers=1, progress=False)
    _interrupt_by_hand(tmp_path / "cut", keep=2)
    result = resume_run(tmp_path / "cut", workers=1, progress=False)
    assert result.games_played == (24 - 10) * config.rotations
    _assert_same(tmp_path / "ref", tmp_path / "cut")
    assert verify_run(tmp_path / "cut").ok
    ref = read_manifest(tmp_path / "ref")
    assert all(len(p[d]["sha256"]) == 64 for p in ref["parts"] for d in ("deals", "games"))
    assert result.summary == run_summary(ref, config)


def run_summary(manifest, config):
    from hsim.runner.resume import _nothing_to_do

    done = {e["start"]: e for e in manifest["parts"]}
    return _nothing_to_do(Path("."), manifest, config, done).summary


def test_resume_refuses_a_strategy_failure_and_a_complete_run_is_left_alone(tmp_path, py_bot):
    crash = py_bot("Crashes", "holding=AS KS QS")
    config = RunConfig(Rules(), ("random", crash, "random", "random"), 40, 1, chunk_size=4)
    with pytest.raises(RunError, match="raised RuntimeError: boom"):
        run_tournament(config, tmp_path / "f", workers=1, progress=False)
    with pytest.raises(RunError, match="would fail the same way"):
        resume_run(tmp_path / "f", workers=1, progress=False)
    config = RunConfig(Rules(), tuple(PLAYERS.split(",")), 10, 1, chunk_size=4)
    run_tournament(config, tmp_path / "c", workers=1, progress=False)
    before = (tmp_path / "c" / "run.json").read_text()
    assert resume_run(tmp_path / "c", workers=1, progress=False).games_played == 0
    assert (tmp_path / "c" / "run.json").read_text() == before
    # A damaged part of a complete run is played again.
    part = tmp_path / "c" / read_manifest(tmp_path / "c")["parts"][1]["deals"]["file"]
    part.write_bytes(part.read_bytes()[:100])
    assert resume_run(tmp_path / "c", workers=1, progress=False).games_played == 4
    assert verify_run(tmp_path / "c").ok


def test_resume_from_another_cwd_keeps_a_strategy_files_label(tmp_path, monkeypatch):
    """A strategy file given by a relative path: the parts a resume (started from another
    folder) writes carry the label the user gave, exactly as an uninterrupted run's do,
    and replay --trust still finds the file."""
    from hsim.analysis.replay import replay_run

    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    (work / "bots").mkdir(parents=True)
    elsewhere.mkdir()
    (work / "bots" / "mybot.py").write_text(PY_BOTS.read_text())
    players = ("random", "bots/mybot.py:PyLowcard", "lowcard", "random")
    config = RunConfig(Rules(), players, 12, 3, chunk_size=3)
    monkeypatch.chdir(work)
    run_tournament(config, Path("../runs/ref"), workers=1, progress=False)
    run_tournament(config, Path("../runs/cut"), workers=1, progress=False)
    cut = tmp_path / "runs" / "cut"
    recorded = read_manifest(cut)["players"][1]
    assert recorded["spec"] == "../../work/bots/mybot.py:PyLowcard"  # relative to the run
    assert str(Path.home()) not in (cut / "run.json").read_text()
    _interrupt_by_hand(cut, keep=1)
    monkeypatch.chdir(elsewhere)
    result = resume_run(cut, workers=1, progress=False)
    assert result.status == "complete" and result.games_played == 9
    assert [row["strategy"] for row in result.summary] == list(players)
    _assert_same(tmp_path / "runs" / "ref", cut)
    for dataset in ("deals", "games"):
        assert set(_read(cut)[dataset]["strategy"]) == set(players)
    assert verify_run(cut).ok
    # replay from a third folder still finds the file, relative to the run folder
    monkeypatch.chdir(tmp_path)
    manifest, _, records, _, recorded_rows = replay_run(cut, 7, trust=True)
    assert records and recorded_rows is not None


def test_a_label_naming_the_home_directory_is_recorded_without_it(tmp_path, monkeypatch):
    """run.json names no home directory, yet a resume restores the label exactly."""
    from hsim.runner.config import recorded_players
    from hsim.runner.resume import recorded_label
    from hsim.strategy.loader import load

    home = tmp_path / "home"
    (home / "bots").mkdir(parents=True)
    (home / "bots" / "b.py").write_text(PY_BOTS.read_text())
    monkeypatch.setenv("HOME", str(home))
    spec = f"{home}/bots/b.py:PyLowcard"
    players = [load(s) for s in ("random", spec, "~/bots/b.py:PyRandom")]
    entries = recorded_players(players, tmp_path / "runs" / "r")
    assert str(home) not in json.dumps(entries)
    assert entries[0] == {**players[0].describe()}  # a built-in: no label
    assert entries[1]["spec"] == "../../home/bots/b.py:PyLowcard"
    assert entries[1]["label"] == "~/bots/b.py:PyLowcard" and entries[1]["label_home"]
    assert entries[2]["label"] == "~/bots/b.py:PyRandom" and "label_home" not in entries[2]
    assert [recorded_label(e) for e in entries] == ["random", spec, "~/bots/b.py:PyRandom"]
    assert recorded_label({"spec": "../x.py:A"}) == "../x.py:A"  # a run.json before labels


def test_a_stop_that_surfaces_as_c_codes_system_error_is_an_interruption(tmp_path, monkeypatch):
    # A signal's StopRequested raised in Python code that C code called (numba unpickling
    # a constant while boxing a compiled result) comes out as a SystemError caused by the
    # stop. It must end the run as interrupted (resumable, exit 128 + signal), not failed.
    import hsim.runner.sink as sink
    from hsim.errors import StopRequested

    real, calls = sink.deal_columns, []

    def columns_then_stop(*args):
        calls.append(1)
        if len(calls) == 2:
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)  # the handler raises here
            except StopRequested as stop:
                raise SystemError("<function> returned a result with an exception set") from stop
        return real(*args)

    monkeypatch.setattr(sink, "deal_columns", columns_then_stop)
    out = tmp_path / "run"
    config = RunConfig(Rules(), ("random",) * 4, games=6, seed=4, chunk_size=2)
    result = run_tournament(config, out, workers=1, progress=False)
    assert len(calls) == 2 and result.status == "interrupted"
    assert read_manifest(out)["status"] == "interrupted" and result.error is None
    monkeypatch.setattr(sink, "deal_columns", real)
    assert resume_run(out, workers=1, progress=False).status == "complete"
    assert verify_run(out).ok


def test_stop_in_finds_a_stop_anywhere_in_a_chain():
    from hsim.errors import StopRequested, stop_in

    stop = StopRequested(signal.SIGINT)
    inner = SystemError("inner")
    inner.__cause__ = stop
    outer = SystemError("outer")
    outer.__context__ = inner
    assert stop_in(outer) is stop and stop_in(stop) is stop
    loop = ValueError("a")
    loop.__context__ = ValueError("b")
    loop.__context__.__context__ = loop  # a cycle ends the walk
    assert stop_in(loop) is None and stop_in(None) is None and stop_in(ValueError()) is None


def test_a_run_after_a_stopped_one_still_reports_a_strategys_failure(tmp_path, py_bot):
    # One Python session, two runs: the first one's stop must not make the second one's
    # crashing strategy look like a stop (its failure is the strategy's, with its seat).
    from hsim import errors

    errors.note_signal(signal.SIGINT)  # as a stopped run leaves it
    crash = py_bot("Crashes", "holding=AS KS QS")
    config = RunConfig(Rules(), ("random", crash, "random", "random"), 200, 1, chunk_size=4)
    with pytest.raises(RunError, match=r"seat 1\).*in game \d+ of run seed 1"):
        run_tournament(config, tmp_path / "f", workers=1, progress=False)
    assert errors.noted_signal() is None


def _folder_bytes(run_dir):
    return {p: p.read_bytes() for p in sorted(Path(run_dir).rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "change", ["strategy file", "hsim version", "no hsim version", "compiled source"]
)
def test_resume_refuses_a_run_played_by_other_code_and_changes_nothing(tmp_path, change):
    """The missing games of a run are played by the code that played its parts, or not at
    all: a strategy file edited since, another hsim, or other built-in compiled code is
    named and the folder left as it was; with the file put back the resume completes to
    the records of a run never stopped."""
    bot = tmp_path / "mybot.py"
    bot.write_text(PY_BOTS.read_text())
    players = ("random", f"{bot}:PyLowcard", "lowcard", "random")
    config = RunConfig(Rules(), players, 12, 3, chunk_size=3)
    run_tournament(config, tmp_path / "ref", workers=1, progress=False)
    cut = tmp_path / "cut"
    run_tournament(config, cut, workers=1, progress=False)
    _interrupt_by_hand(cut, keep=1)
    manifest = read_manifest(cut)
    if change == "strategy file":
        bot.write_text(PY_BOTS.read_text() + "\n# edited\n")
        named = f"another strategy file {bot}"
    elif change == "hsim version":
        manifest["versions"]["hsim"] = "0.0.1"
        named = "hsim 0.0.1, not"
    elif change == "no hsim version":  # damaged: versions is not a table
        manifest["versions"] = ["0.0.1"]
        named = "hsim (no version recorded), not"
    else:
        manifest["numba_cache"] = manifest["numba_cache"][:-16] + "0123456789abcdef"
        named = "compiled code of source 0123456789abcdef, not"
    (cut / "run.json").write_text(json.dumps(manifest))
    before = _folder_bytes(cut)
    with pytest.raises(RunError, match=re.escape(named)) as refused:
        resume_run(cut, workers=1, progress=False)
    assert "not be the same run" in str(refused.value)
    assert _folder_bytes(cut) == before
    if change != "strategy file":
        return
    bot.write_text(PY_BOTS.read_text())
    assert resume_run(cut, workers=1, progress=False).status == "complete"
    _assert_same(tmp_path / "ref", cut)


@pytest.mark.parametrize("command", ["tournament", "resume"])
def test_a_stop_while_the_lock_is_taken_leaves_no_lock_file(tmp_path, monkeypatch, command):
    """SIGINT arriving inside the lock's creation (after the file exists, before the lock
    is handed back) stops the command and leaves no .hsim.lock behind."""
    from hsim.errors import StopRequested, clear_signal
    from hsim.runner import lock as lock_module

    config = RunConfig(Rules(), tuple(PLAYERS.split(",")), 12, 3, chunk_size=3)
    out = tmp_path / "run"
    if command == "resume":
        run_tournament(config, out, workers=1, progress=False)
        _interrupt_by_hand(out, keep=1)
    record = lock_module._owner_record

    def record_then_stop():
        os.kill(os.getpid(), signal.SIGINT)  # the handler runs at the next Python line
        return record()

    monkeypatch.setattr(lock_module, "_owner_record", record_then_stop)
    try:
        with pytest.raises(StopRequested):
            if command == "resume":
                resume_run(out, workers=1, progress=False)
            else:
                run_tournament(config, out, workers=1, progress=False)
    finally:  # the stop stays noted in this process (its end, in a command): forget it
        clear_signal()
    assert not (out / ".hsim.lock").exists()
