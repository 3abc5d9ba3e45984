"""The command line: help, listings, clear errors without tracebacks, a real run."""

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.rules import RULE_NAMES


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
