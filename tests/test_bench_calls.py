"""scripts/bench_calls.py: the figures it prints and the arguments it refuses (no timing
is checked: speed is measured by the script, not by tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_calls.py"


def _run(*args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )


def test_one_figure_per_player_and_size():
    done = _run("--players", "random", "lowcard", "--sizes", "1", "3", "--calls", "3",
                "--repeat", "1", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out.pop("hsim").endswith("__init__.py")
    assert sorted(out) == ["lowcard x1", "lowcard x3", "random x1", "random x3"]
    assert all(us > 0 for us in out.values())


def test_sizes_and_counts_must_be_positive():
    for bad in (["--sizes", "0"], ["--calls", "0"], ["--repeat", "-1"]):
        done = _run(*bad)
        assert done.returncode == 2
        assert "must be positive" in done.stderr
        assert "Traceback" not in done.stderr
