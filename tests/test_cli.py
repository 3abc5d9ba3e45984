"""The command line: help, listings, clear errors without tracebacks, a real run."""

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.model.rules import RULE_NAMES


def run(*args):
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result


def test_rules_lists_presets_and_every_option():
    r = run("rules")
    assert r.exit_code == 0
    for name in (*RULE_NAMES, "classic", "openspiel", "true|false", "off|no_points|no_tricks"):
        assert name in r.output


def test_rules_shows_one_rules_string():
    r = run("rules", "classic(omnibus=true,end_score=50)")
    assert r.exit_code == 0
    assert r.output.splitlines()[0] == "classic(omnibus=true,end_score=50)"
    assert "end_score = 50" in r.output


def test_strategies_lists_builtins():
    r = run("strategies")
    assert r.exit_code == 0 and "random" in r.output and "lowcard" in r.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rule", "omnibuss=true"], "unknown rule option 'omnibuss'"),
        (["--rule", "end_score=-3"], "positive integer"),
        (["--rules", "modern"], "valid presets: classic, openspiel"),
        (["--players", "random,random,random"], "3 players given, but hearts with these rules"),
        (["--players", "random,randon,random,random"], "unknown strategy 'randon'"),
        (["--players", "random,random,random,random", "--player", "random"], "not both"),
        ([], "no players"),
    ],
)
def test_user_mistakes_are_clear_errors(tmp_path, args, message):
    r = run("tournament", "--games", "2", "--out", str(tmp_path / "x"), *args)
    assert r.exit_code != 0
    assert message in r.output
    assert not (tmp_path / "x").exists()


def test_ineffective_option_warns(tmp_path):
    r = run(
        "tournament",
        "--games",
        "2",
        "--seed",
        "1",
        "--players",
        "random,random,random,random",
        "--rule",
        "jack_in_moon_deal=true",
        "--out",
        str(tmp_path / "x"),
        "--no-progress",
        "--workers",
        "1",
    )
    assert r.exit_code == 0
    assert "warning: jack_in_moon_deal has effect only with omnibus=true" in r.output


def test_tournament_end_to_end(tmp_path):
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "hsim.cli",
        "tournament",
        "--players",
        "random,lowcard,random,lowcard",
        "--games",
        "300",
        "--seed",
        "7",
        "--workers",
        "2",
        "--rules",
        "classic",
        "--rule",
        "omnibus=true",
        "--out",
        str(out),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "game/s" in done.stderr  # the progress bar
    lines = done.stdout.splitlines()
    assert any("points/deal" in line and "win rate" in line and "moons" in line for line in lines)
    assert sum("lowcard" in line for line in lines) == 2
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["rules"]["string"] == "classic(omnibus=true)"
    assert manifest["command"].startswith("hsim tournament --players")
    deals = pd.read_parquet(out / "deals")
    assert deals["jack_diamonds"].any()
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode != 0 and "--overwrite" in again.stderr
    assert "Traceback" not in again.stderr


def test_same_rows_without_jit(tmp_path):
    """NUMBA_DISABLE_JIT=1 runs the engine as plain Python: same rows, the debug story."""
    outs = []
    for name, disable in (("jit", "0"), ("nojit", "1")):
        out = tmp_path / name
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        cmd = [
            sys.executable,
            "-m",
            "hsim.cli",
            "tournament",
            "--players",
            "random,lowcard,random,lowcard",
            "--games",
            "5",
            "--seed",
            "3",
            "--workers",
            "1",
            "--rule",
            "moon=new_moon",
            "--rule",
            "no_trick_bonus=no_points",
            "--out",
            str(out),
            "--no-progress",
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        if disable == "1":  # it compiled nothing, and says so
            assert "ran without compiling (NUMBA_DISABLE_JIT=1" in done.stdout
            assert "compiled" not in done.stdout and "compiling" not in done.stderr
        outs.append(out)
    for dataset in ("deals", "games"):
        a, b = (pd.read_parquet(o / dataset) for o in outs)
        assert len(a) > 0
        pd.testing.assert_frame_equal(a, b)


def test_rules_marks_the_other_games_options():
    r = run("rules", "kierki3")
    assert r.exit_code == 0 and r.output.splitlines()[0] == "kierki3"
    assert "omnibus = False  (no effect in Kierki)" in r.output
    assert "trump_trick_value = 0  (20 per trick for 3 players)" in r.output
    assert "  rebel = False\n" in r.output
    r = run("rules", "classic")
    assert "rebel = False  (no effect in Hearts)" in r.output and "omnibus = False\n" in r.output


def test_compile_notice_before_a_cold_compile_and_none_when_warm(tmp_path):
    """The first run after an install says it is compiling, before it compiles; a run
    with the code in the cache says nothing. The cold run is stopped once the notice is
    out (its compile is not needed), the warm one uses this test process's cache."""
    import hsim.play.hearts_game  # noqa: F401  (warm this process's cache: the engine)
    import hsim.strategies.random_bot  # noqa: F401  (and the default decisions)
    from hsim.engine import _numba

    cmd = [sys.executable, "-m", "hsim.cli", "tournament", "--players", "random,random,random,"
           "random", "--games", "1", "--workers", "1", "--no-progress", "--out"]  # fmt: skip
    cold_env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    cold_env["HSIM_CACHE_DIR"] = str(tmp_path / "empty-cache")
    proc = subprocess.Popen(
        [*cmd, str(tmp_path / "cold")], env=cold_env, stderr=subprocess.PIPE, text=True
    )
    try:
        line = proc.stderr.readline()
        still_compiling = proc.poll() is None
    finally:
        proc.kill()
        proc.wait(timeout=60)
    assert line.startswith("compiling the engine (first run after install or upgrade; about ")
    assert str(tmp_path / "empty-cache") in line
    assert still_compiling  # printed before the compile, not after it
    warm_env = {**os.environ, "NUMBA_CACHE_DIR": _numba.CACHE_DIR}
    done = subprocess.run(
        [*cmd, str(tmp_path / "warm")], env=warm_env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "compiling" not in done.stderr
    assert done.stdout.startswith("loaded compiled code in")  # numba agreed: it was warm


DEAL = "/".join("".join(r + s for r in "23456789TJQKA") for s in "CDSH")


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "--players", "random,random,random,random", "--games", "2"],
        ["ladder", "--bots", "random,lowcard", "--boards", "2"],
        ["compare-rules", "--players", "random,random,random,random", "--games", "2",
         "--variant", "omnibus=true"],
        ["replay", "--seed", "1", "--game", "0", "--players", "random,random,random,random"],
        ["perft", "--deal", DEAL, "--depth", "1"],
        ["choose", "--strategy", "lowcard", "--deal", DEAL],
        ["sprt", "--candidate", "lowcard", "--baseline", "random", "--bounds", "0,0.5",
         "--max-boards", "8"],
    ],
    ids=lambda a: a[0],
)  # fmt: skip
def test_every_compiling_command_gives_the_compile_notice(args, tmp_path, monkeypatch):
    from hsim.strategy import notice

    asked = []

    def fake_plan(specs=(), parts=(), engine=True, loops=True):
        asked.append((list(specs), list(parts)))
        plays.append(loops)
        return [("engine", 1.0)]

    plays = []

    monkeypatch.setattr(notice, "compile_plan", fake_plan)
    monkeypatch.setattr(notice, "compile_notice", lambda plan=None, **_: "compiling NOTICE")
    out = ["--out", str(tmp_path / "o"), "--workers", "1", "--no-progress"]
    extra = out if args[0] in ("tournament", "ladder", "compare-rules", "sprt") else []
    r = CliRunner().invoke(main, [*args, *extra])
    assert r.exit_code in ((0, 1, 3) if args[0] == "sprt" else (0,)), r.output  # sprt: verdict
    assert r.stderr.startswith("compiling NOTICE\n")
    if args[0] in ("tournament", "compare-rules"):
        assert asked == [(["random"] * 4, [])]
    assert asked[0] == {"ladder": (["random", "lowcard"], []),
                        "perft": ([], ["perft", "the position kernels"]),
                        "replay": (["random"] * 4, ["the step-by-step game"]),
                        "choose": (["lowcard"], ["the position kernels"]),
                        "sprt": (["lowcard", "random"], [])}.get(args[0], asked[0])  # fmt: skip
    assert plays == [args[0] != "choose"]  # choose plays no game: no game loop to compile


def test_output_into_a_closed_pipe_stops_quietly():
    """`hsim rules | head -1`: a reader that went away is no error (no message, no
    traceback; exit 141 as a command ended by SIGPIPE)."""
    r, w = os.pipe()
    os.close(r)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "hsim.cli", "rules"],
            stdout=w,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(w)
    assert done.returncode == 141, done.stderr
    assert done.stderr == ""


def test_the_command_line_starts_no_blas_threads_unless_asked():
    code = "import os, hsim.cli; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == "1", done.stderr
    env["OPENBLAS_NUM_THREADS"] = "3"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == "3", done.stderr
    code = "import numpy, os, hsim.cli; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    env.pop("OPENBLAS_NUM_THREADS")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == "None", done.stderr


def _run_cli(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_the_console_script_exits_as_sys_exit_would():
    # hsim.cli.run skips the interpreter's teardown (os._exit) after the exit handlers.
    start = "import atexit, sys, threading, time\nimport hsim.cli as cli\n"
    done = _run_cli(
        start + "atexit.register(lambda: print('exit handler ran'))\n"
        "sys.argv = ['hsim', '--version']\ncli.run()\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["hsim, version 0.1.0", "exit handler ran"]
    done = _run_cli(start + "sys.argv = ['hsim', 'tournament', '--bogus']\ncli.run()\n")
    assert done.returncode == 2 and "--bogus" in done.stderr
    done = _run_cli(start + "cli.main = lambda: sys.exit('boom')\ncli.run()\n")
    assert done.returncode == 1 and done.stderr.strip() == "boom"
    done = _run_cli(start + "cli.main = lambda: sys.exit(7)\ncli.run()\n")
    assert done.returncode == 7
    done = _run_cli(  # a thread still running: the normal exit, which waits for it
        start + "worker = threading.Thread(target=lambda: (time.sleep(0.5), print('waited')))\n"
        "worker.start()\ncli.main = lambda: None\ncli.run()\n"
    )
    assert done.returncode == 0 and done.stdout.strip() == "waited", done.stderr


@pytest.mark.parametrize(
    "args, part",
    [
        (["choose", "--strategy", "lowcard", "--deal", DEAL], "the position kernels"),
        (["replay", "--seed", "1", "--game", "0", "--players", "random,random,random,random"],
         "the step-by-step game"),
        (["perft", "--deal", DEAL, "--depth", "1"], "perft"),
    ],
    ids=lambda a: a[0] if isinstance(a, list) else None,
)  # fmt: skip
def test_a_part_is_warm_once_its_command_has_run(args, part):
    """A part of the compile plan names the kernels its command compiles: once the command
    has run, the part is no longer cold (else its notice would come back every run)."""
    from hsim.strategy import notice

    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert notice.compile_plan(parts=[part], engine=False) == []


# --- Kierki deal files (docs/rules.md B6) ----------------------------------------------

KIERKI_DEAL = (
    "1W\n2H7C7H3S10D4D5CJCJD6SQSKSAS\n2D2S4C5D5S6H8S9S10CQCQDQHAH\n"
    "3C4S4H5H6C6D7D7S10SJSJHKCKD\n2C3D3H8C8D8H9C9D9H10HKHACAD\n"
)


def test_perft_and_choose_take_a_kierki_deal_file(tmp_path):
    f = tmp_path / "deal.txt"
    f.write_text(KIERKI_DEAL)
    # W (seat 3) leads any of its 13 cards in the no-tricks deal: no ban
    r = run("perft", "--rules", "kierki4", "--deal-file", str(f), "--depth", "1")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == "13"
    r = run("choose", "--strategy", "lowcard", "--rules", "kierki4_servers", "--deal-file", str(f))
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == "2C"  # seat 3's lowest card


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--rules", "classic"], "4-player Kierki"),
        (["--rules", "kierki3"], "4-player Kierki"),
        (["--rules", "kierki4", "--deal", "x"], "not both"),
        (["--rules", "kierki4", "--pass-direction", "left"], "no passing"),
        (["--rules", "kierki4", "--plays", "AS"], "cannot play AS"),
    ],
)
def test_deal_file_misuse_exits_2_with_a_message(tmp_path, args, says):
    f = tmp_path / "deal.txt"
    f.write_text(KIERKI_DEAL)
    r = run("perft", "--deal-file", str(f), "--depth", "1", *args)
    assert r.exit_code == 2 and says in r.output, r.output


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("1W\n2C\n", "5 lines a deal"),
        (KIERKI_DEAL.replace("1W", "9W"), "deal type 1..7"),
        (KIERKI_DEAL + KIERKI_DEAL, "holds 2 deals"),
        (b"\xff\xfe", "cannot read the deal file"),
    ],
)
def test_bad_deal_files_exit_2_with_a_message(tmp_path, text, says):
    f = tmp_path / "deal.txt"
    f.write_bytes(text if isinstance(text, bytes) else text.encode())
    r = run("choose", "--strategy", "random", "--rules", "kierki4", "--deal-file", str(f))
    assert r.exit_code == 2 and says in r.output, r.output
    r = run("perft", "--rules", "kierki4", "--deal-file", str(tmp_path / "missing.txt"))
    assert r.exit_code == 2 and "does not exist" in r.output, r.output


def test_a_kierki_rules_deal_without_a_file_says_where_to_give_it():
    r = run("perft", "--rules", "kierki4", "--deal", "x", "--depth", "1")
    assert r.exit_code == 2 and "--deal-file" in r.output


def test_replay_and_view_play_a_kierki_deal_file_out(tmp_path):
    f = tmp_path / "deal.txt"
    f.write_text(KIERKI_DEAL)
    r = run(
        "replay", "--rules", "kierki4_servers", "--deal-file", str(f), "--players",
        "kierki,random,lowcard,random",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "deal 0  tricks" in r.output and "2H7C7H3STD4D5C" in r.output  # the deal string
    page = tmp_path / "deal.html"
    r = run("view", "--rules", "kierki4", "--deal-file", str(f), "--out", str(page))
    assert r.exit_code == 0, r.output
    assert page.exists()
    r = run("replay", "--deal-file", str(f))  # Hearts rules
    assert r.exit_code == 2 and "4-player Kierki" in r.output
