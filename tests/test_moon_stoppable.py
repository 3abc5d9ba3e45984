"""scripts/moon_stoppable.py: the oracle's stopping lines stop the moon when replayed, and
bad arguments are refused without a traceback."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "moon_stoppable.py"
PLAIN_BOT = SCRIPT.parent.parent / "examples" / "plain_bot.py"


def _module():
    spec = importlib.util.spec_from_file_location("moon_stoppable", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _run(*args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )


def test_every_stopping_line_stops_the_moon_and_the_real_line_did_not():
    mod = _module()
    oracle = mod.Oracle("heuristic", "shooter", 1, 20_000)
    deals, moons = oracle.run(6)
    assert deals > 30
    stoppable = [m for m in moons if m.stoppable]
    assert stoppable, "seed 1 has stoppable moons in its first 6 games"
    for m in stoppable:
        assert 1 <= m.last_trick <= 13 and m.shooter in (1, 2, 3)
        oracle.restore(m.position)
        assert oracle.replay(m.line)  # the oracle's cards stop it
        # the first card differs from the defender's own (which let the moon through)
        own = oracle.driver.decide(oracle.L.ST_NEED_PLAY)
        oracle.restore(m.position)
        assert m.line[0] != own
    figures = mod.summary(deals, moons)
    assert figures["moons"] == len(moons)
    assert figures["stoppable"] + figures["not_stoppable"] + figures["undecided"] == len(moons)
    assert sum(figures["last_chance_by_trick"]) == figures["stoppable"]


def test_the_figures_print_as_json():
    done = _run("--games", "2", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["deals"] > 0 and 0 <= out["stoppable"] <= out["moons"] <= out["deals"]


def test_bad_arguments_are_refused_without_a_traceback():
    for bad, words in (
        (["--games", "0"], "must be positive"),
        (["--max-nodes", "-3"], "must be positive"),
        (["--seed", "-1"], "0..2**64-1"),
        (["--defender", "nosuchbot"], "nosuchbot"),
        (["--opponent", f"{PLAIN_BOT}:AvoidPoints"], "give a compiled bot"),
    ):
        done = _run(*bad)
        assert done.returncode == 2, (bad, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr, (bad, done.stderr)
