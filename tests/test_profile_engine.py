"""scripts/profile_engine.py: numba's names and the perf map it writes (perf itself is not
needed: the map is checked against numba's own addresses)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "profile_engine.py"


def _script():
    spec = importlib.util.spec_from_file_location("profile_engine", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_demangle_names_numba_symbols():
    demangle = _script().demangle
    assert demangle("_ZN4hsim4play11hearts_game10play_gamesB3v84B40c8tJTIeFIjxB2IKSgI4E") == (
        "hsim.play.hearts_game.play_games"
    )
    assert demangle("_ZN7cpython4hsim6engine3rng12stream_stateB2v1E") == (
        "cpython hsim.engine.rng.stream_state"
    )
    assert demangle("cfunc._ZN4hsim6engine3rng12stream_stateB2v1E") == (
        "cfunc hsim.engine.rng.stream_state"
    )
    assert demangle("_ZN5numba7cpython8builtins6ol_min12_3clocals_3e4implB3v89E") == (
        "numba.cpython.builtins.ol_min.<locals>.impl"
    )
    assert demangle("memcpy") == "memcpy"


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm (binutils)")
def test_map_names_every_function_at_numbas_own_address():
    subprocess.run([sys.executable, "-c", "import hsim.play.games"], check=True)  # a warm cache
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--map-only", "--players", "random"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    entries = json.loads(done.stdout)
    names = {e["name"] for e in entries}
    assert "hsim.play.hearts_game.play_games" in names
    assert "hsim.strategies.random_bot.play" in names
    looked_up = [e for e in entries if e["global"]]
    assert looked_up
    for e in looked_up:  # each global function where numba says it is
        assert e["numba_address"] == e["start"], e["name"]
    for a, b in zip(entries[:-1], entries[1:], strict=True):  # sorted, sized, apart
        assert a["size"] > 0
        assert a["start"] + a["size"] <= b["start"], (a["name"], b["name"])


def test_bad_arguments_are_refused():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--seconds", "0"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "must be positive" in done.stderr
