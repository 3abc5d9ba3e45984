"""scripts/bench_decisions.py: the figures it prints and the arguments it refuses (no
timing is checked: speed is measured by the script, not by tests)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_decisions.py"


def _run(*args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )


def test_every_decision_of_the_games_is_timed_by_kind():
    done = _run("--games", "2", "--rounds", "1", "--players", "heuristic", "heuristic", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    counts = out["decisions"]
    assert sorted(counts) == ["discard", "follow", "lead", "single"]
    assert sum(counts.values()) % 52 == 0 and sum(counts.values()) >= 4 * 52  # whole deals
    assert counts["lead"] > 0 and counts["single"] > 0
    assert sorted(out["ns"]["heuristic"]) == sorted(k for k, n in counts.items() if n)
    assert out["same_cards"] is True  # the same bot twice
    # no compile inside a timing (tens of thousands of ns a decision, either sign)
    assert all(-1_000 < ns < 100_000 for ns in out["ns"]["heuristic"].values())


def test_bad_arguments_are_refused_without_a_traceback():
    for bad, words in (
        (["--games", "0"], "must be positive"),
        (["--games", "10000000"], "at most 2,000"),
        (["--rounds", "-1"], "must be positive"),
        (["--players", "random"], "no native play entry"),
        (["--rules", "classic(omnibus=maybe)"], "omnibus"),
    ):
        done = _run(*bad)
        assert done.returncode == 2, (bad, done.stderr)
        assert words in done.stderr, (bad, done.stderr)
        assert "Traceback" not in done.stderr


def _default_sigint() -> None:
    # as from a terminal: a test run started in the background (`pytest &`) ignores
    # SIGINT, and a child would inherit that
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_recording_exits_130_without_a_traceback():
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--games", "2000", "--rounds", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    time.sleep(1.5)  # importing, or recording the 2,000 games (a minute or more): both caught
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
