"""Nothing outside a run folder is read, written or deleted, and a refused command changes
nothing inside it: links, look-alike entries, part paths that leave the folder."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.runner.lock import claim, unsafe_entries
from hsim.runner.manifest import ENTRY_DIGEST, SETTINGS_DIGEST, seal_entry, settings_digest
from hsim.runner.sink import is_part_path

PLAYERS = "random,lowcard,random,lowcard"


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    run = tmp_path_factory.mktemp("base") / "run"
    done = _cli("tournament", "--players", PLAYERS, "--games", 40, "--chunk-size", 10,
                "--no-progress", "--out", run)  # fmt: skip
    assert done.exit_code == 0, done.output
    return run


def _tree(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` (links not followed) with its content's digest."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            out[str(path.relative_to(folder))] = f"link:{path.readlink()}"
        elif path.is_file():
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def setup(finished, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(finished, run, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the user's own file\n")
    return run, outside


def _refused(result, *words):
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output and "unexpected" not in result.output
    for word in words:
        assert word in result.output, result.output


def test_a_dataset_folder_linked_outside_is_refused_and_left_alone(setup):
    run, outside = setup
    shutil.copytree(run / "deals", outside / "deals")
    (outside / "deals" / "keep.txt").write_text("mine\n")
    shutil.rmtree(run / "deals")
    (run / "deals").symlink_to(outside / "deals", target_is_directory=True)
    before, inside = _tree(outside), _tree(run)
    _refused(_cli("resume", run, "--no-progress"), "deals is a link")
    _refused(_cli("verify", run), "deals is a link")
    _refused(_cli("report", run), "deals is a link")
    assert _tree(outside) == before and _tree(run) == inside


@pytest.mark.parametrize("name", [".hsim.lock", ".run.json.tmp", ".parts.jsonl.tmp"])
def test_a_linked_lock_or_temporary_file_never_writes_outside(setup, name):
    run, outside = setup
    target = outside / "keep.txt"
    (run / name).unlink(missing_ok=True)
    (run / name).symlink_to(target)
    before = target.read_bytes()
    _cli("tournament", "--players", PLAYERS, "--games", 4, "--no-progress", "--out", run)
    _cli("tournament", "--players", PLAYERS, "--games", 4, "--no-progress", "--out", run,
         "--overwrite")  # fmt: skip
    _cli("resume", run, "--no-progress")
    assert target.read_bytes() == before


@pytest.mark.parametrize("name", [".run.json.tmp", "parts.jsonl", "hsim-error-notes.txt"])
def test_overwrite_keeps_a_user_folder_named_like_an_hsim_file(setup, name):
    run, _ = setup
    folder = run / name
    if folder.exists():
        folder.unlink()
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n")
    result = _cli("tournament", "--players", PLAYERS, "--games", 4, "--no-progress",
                  "--out", run, "--overwrite")  # fmt: skip
    _refused(result, "--overwrite refused")
    assert (folder / "notes.txt").read_text() == "mine\n"


def test_a_dataset_replaced_by_a_file_is_refused_before_anything_is_deleted(setup):
    run, _ = setup
    shutil.rmtree(run / "deals")
    (run / "deals").write_text("not a folder\n")
    games = _tree(run / "games")
    _refused(_cli("resume", run, "--no-progress"), "deals is not a folder", "nothing was changed")
    assert _tree(run / "games") == games and len(games) == 4


def test_a_stray_file_in_a_dataset_folder_is_kept_and_named(setup):
    run, _ = setup
    (run / "deals" / "keep.txt").write_text("mine\n")
    _refused(_cli("resume", run, "--no-progress"), "deals/keep.txt is not a part hsim wrote")
    assert (run / "deals" / "keep.txt").read_text() == "mine\n"


def test_a_part_path_that_leaves_the_folder_is_never_read(setup):
    run, outside = setup
    manifest = json.loads((run / "run.json").read_text())
    entry = manifest["parts"][0]
    entry["deals"]["file"] = "../outside/keep.txt"
    entry.pop(ENTRY_DIGEST)
    manifest["parts"][0] = seal_entry(entry)  # as an edit that recomputes the checksums
    (run / "run.json").write_text(json.dumps(manifest))
    _refused(_cli("verify", run), "outside its dataset folder")
    assert is_part_path("deals/part-000000000010.parquet", "deals")
    for bad in ("../x.parquet", "/tmp/part-1.parquet", "deals/../games/part-1.parquet",
                "games/part-1.parquet", "deals/part-1.parquet.txt", 5):  # fmt: skip
        assert not is_part_path(bad, "deals")


def test_out_empty_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _cli("tournament", "--players", PLAYERS, "--games", 2, "--out", "")
    assert result.exit_code == 2 and "--out" in result.output and "is empty" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_clean_run_folder_has_nothing_unsafe(finished):
    assert unsafe_entries(finished) == []


def test_a_bot_that_writes_its_observation_is_a_strategy_error(tmp_path, py_bot):
    spec = py_bot("WritesObservation")
    run = tmp_path / "cheat"
    result = _cli("tournament", "--players", f"{spec},random,random,random", "--games", 4,
                  "--no-progress", "--out", run)  # fmt: skip
    _refused(result, "wrote to its observation", "seat 0")
    assert (
        not (run / "run.json").exists()
        or json.loads((run / "run.json").read_text())["status"] == "failed"
    )
    honest = _cli("tournament", "--players", f"{py_bot('PyLowcard')},random,random,random",
                  "--games", 4, "--no-progress", "--out", tmp_path / "honest")  # fmt: skip
    assert honest.exit_code == 0, honest.output


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_ladder_is_no_success(tmp_path, signum):
    proc = subprocess.Popen(
        [sys.executable, "-m", "hsim.cli", "ladder", "--bots", "random,lowcard", "--boards",
         "2000000", "--workers", "1", "--out", str(tmp_path / "ladder"), "--check"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        for line in proc.stderr:  # the rung's header comes before its games
            if line.startswith("rung 1 of 1"):
                break
        time.sleep(1.5)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == (143 if signum == signal.SIGTERM else 130), err
    assert "interrupted: the rung lowcard over 3 x random stopped" in err
    assert "yes" not in out and "no " not in out  # no rung row printed as a result


@pytest.mark.parametrize("kind", ["fifo", "device", "unknown"])
def test_a_strategy_that_cannot_be_found_is_refused_before_compiling(tmp_path, kind):
    if kind == "fifo":
        os.mkfifo(tmp_path / "bot.py")
        spec, words = f"{tmp_path / 'bot.py'}:X", "not a regular file"
    elif kind == "device":
        (tmp_path / "bot.py").symlink_to("/dev/zero")
        spec, words = f"{tmp_path / 'bot.py'}:X", "not a regular file"
    else:
        spec, words = "no_such_bot", "unknown strategy 'no_such_bot'; built-in strategies:"
    done = subprocess.run(
        [sys.executable, "-m", "hsim.cli", "tournament", "--players",
         f"{spec},random,random,random", "--games", "2", "--out", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "HSIM_CACHE_DIR": str(tmp_path / "empty-cache")},
    )  # fmt: skip
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "compiling" not in done.stderr and not (tmp_path / "r").exists()


def test_a_strategy_that_ignores_signals_does_not_make_hsim_ignore_them(tmp_path, py_bot):
    proc = subprocess.Popen(
        [sys.executable, "-m", "hsim.cli", "tournament", "--players",
         f"{py_bot('IgnoresSignals')},random,random,random", "--games", "100000",
         "--workers", "1", "--chunk-size", "1", "--out", str(tmp_path / "r")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not list((tmp_path / "r").glob("*/part-*")) and time.monotonic() < deadline:
            time.sleep(0.2)  # the strategy is built and playing once a part is written
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    assert json.loads((tmp_path / "r" / "run.json").read_text())["status"] == "interrupted"


HSIM = Path(sys.executable).parent / "hsim"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the supervisor is Linux's")
@pytest.mark.parametrize("case", ["tournament", "choose", "import", "sprt", "ladder"])
def test_a_strategy_that_ends_the_process_is_no_success(tmp_path, py_bot, case):
    bots = Path(__file__).parent / "bots"
    if case == "tournament":
        args = ["tournament", "--players", f"{py_bot('ExitsProcess')},random,random,random",
                "--games", "4", "--out", str(tmp_path / "r")]  # fmt: skip
        code = 1
    elif case == "choose":
        args = ["choose", "--strategy", py_bot("ExitsProcess"), "--deal",
                "2C3C4C5C6C7C8C9CTCJCQCKCAC/2D3D4D5D6D7D8D9DTDJDQDKDAD/"
                "2S3S4S5S6S7S8S9STSJSQSKSAS/2H3H4H5H6H7H8H9HTHJHQHKHAH"]  # fmt: skip
        code = 1
    elif case == "sprt":
        args = ["sprt", "--candidate", py_bot("ExitsProcess"), "--baseline", "random",
                "--bounds", "-0.5,0.5", "--max-boards", "8", "--out",
                str(tmp_path / "r")]  # fmt: skip
        code = 1
    elif case == "ladder":
        args = ["ladder", "--bots", f"random,{py_bot('ExitsProcess')}", "--boards", "2",
                "--out", str(tmp_path / "r")]  # fmt: skip
        code = 1
    else:
        args = ["tournament", "--players", f"{bots / 'exits_at_import.py'}:X,random,random,random",
                "--games", "4", "--out", str(tmp_path / "r")]  # fmt: skip
        code = 7
    done = subprocess.run([str(HSIM), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == code, (done.stdout, done.stderr)
    assert "hsim ended before finishing its command" in done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the supervisor is Linux's")
def test_a_working_process_killed_with_sigkill_is_a_message(tmp_path):
    # the out-of-memory killer's signal: the supervisor cannot re-raise it on itself
    proc = subprocess.Popen(
        [str(HSIM), "tournament", "--players", PLAYERS, "--games", "100000", "--no-progress",
         "--out", str(tmp_path / "r")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not list((tmp_path / "r").glob("*/part-*")) and time.monotonic() < deadline:
            time.sleep(0.2)
        worker = int(subprocess.check_output(["pgrep", "-o", "-P", str(proc.pid)]))
        os.kill(worker, signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGKILL, err
    assert "Traceback" not in err
    assert "killed (SIGKILL" in err and "hsim resume" in err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the supervisor is Linux's")
@pytest.mark.parametrize("delay", [0.15, 0.3])
def test_sigterm_while_hsim_starts_says_interrupted(tmp_path, delay):
    # before a command installs its stop handlers SIGTERM's default ends the process
    proc = subprocess.Popen(
        [str(HSIM), "tournament", "--players", PLAYERS, "--games", "100", "--no-progress",
         "--out", str(tmp_path / "r")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(delay)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM), err
    assert "Traceback" not in err
    assert err.startswith("interrupted"), err


def _reseal(run: Path, **fields) -> None:
    manifest = json.loads((run / "run.json").read_text())
    manifest.update(fields)
    manifest[SETTINGS_DIGEST] = settings_digest(manifest)  # an edit that fixes the checksum
    (run / "run.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("command", ["verify", "report", "resume", "replay"])
def test_damaged_records_are_messages_not_tracebacks(setup, command):
    run, _ = setup
    extra = ["--game", "0"] if command == "replay" else []
    _reseal(run, chunk_size=0)
    _refused(_cli(command, run, *extra), "chunk_size")
    (run / "run.json").write_text("[" * 100_000 + "]" * 100_000)
    _refused(_cli(command, run, *extra), "run.json")
    (run / "run.json").unlink()
    os.mkfifo(run / "run.json")
    _refused(_cli(command, run, *extra), "run.json")


def test_a_scheduler_file_that_is_not_one_is_a_message(tmp_path):
    for text in ("{not json", "[1, 2]", '{"address": 5}', "[" * 100_000):
        (tmp_path / "sched.json").write_text(text)
        result = _cli("tournament", "--players", PLAYERS, "--games", 2, "--no-progress",
                      "--out", tmp_path / "r", "--cluster", tmp_path / "sched.json")  # fmt: skip
        _refused(result, "scheduler file")
        assert not (tmp_path / "r").exists()


def test_resume_imports_a_folder_s_strategy_files_only_with_trust(tmp_path, py_bot):
    run = tmp_path / "r"
    spec = py_bot("PyLowcard")
    done = _cli("tournament", "--players", f"{spec},random,random,random", "--games", 4,
                "--no-progress", "--out", run)  # fmt: skip
    assert done.exit_code == 0, done.output
    refused = _cli("resume", run, "--no-progress")
    assert refused.exit_code == 2 and "--trust" in refused.output
    assert "python_bots.py" in refused.output  # what it would import is named
    trusted = _cli("resume", run, "--no-progress", "--trust")
    assert trusted.exit_code == 0 and "already complete" in trusted.output


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("HSIM_START_METHOD", "bogus", "HSIM_START_METHOD='bogus' is not a start method"),
        ("HSIM_CACHE_DIR", "FILE", "is not a folder"),
    ],
)
def test_a_bad_environment_variable_is_named(tmp_path, monkeypatch, name, value, words):
    if value == "FILE":
        value = str(tmp_path / "a-file")
        Path(value).write_text("")
    monkeypatch.setenv(name, value)
    result = _cli("tournament", "--players", PLAYERS, "--games", 2, "--out", tmp_path / "r")
    _refused(result, words)
    assert result.exit_code == 2 and not (tmp_path / "r").exists()


def test_threads_a_strategy_leaves_neither_hang_hsim_nor_pass_silently(tmp_path, py_bot):
    done = subprocess.run(
        [sys.executable, "-m", "hsim.cli", "tournament", "--players",
         f"{py_bot('LeavesThreads')},random,random,random", "--games", "4", "--workers", "1",
         "--no-progress", "--out", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "a thread a strategy started failed (bot-fails: RuntimeError" in done.stderr
    assert "thread(s) running (bot-forever" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_run_being_written_is_called_so_not_damaged(setup):
    run, _ = setup
    manifest = json.loads((run / "run.json").read_text())
    manifest["status"] = "running"
    (run / "run.json").write_text(json.dumps(manifest))
    (run / "games" / sorted(p.name for p in (run / "games").iterdir())[-1]).unlink()
    lock = claim(run)  # as a resume holds it
    try:
        for command in (["report", run], ["replay", run, "--game", 0]):
            result = _cli(*command)
            _refused(result, "being written by a running hsim")
            assert "damaged" not in result.output
    finally:
        lock.release()


def test_a_compiled_bot_that_writes_the_table_does_not_compile(tmp_path):
    cheat = Path(__file__).parent / "bots" / "compiled_cheat.py"
    result = _cli("tournament", "--players", f"{cheat}:STRATEGY,random,random,random",
                  "--games", 4, "--no-progress", "--out", tmp_path / "r")  # fmt: skip
    _refused(result, "writes into its observation", "read-only")
    assert not (tmp_path / "r" / "run.json").exists()
