"""Decisions per second through the engine protocol (docs/protocol.md), against the same
bot played in process, all in one run.

    python scripts/bench_protocol.py [--games 200] [--in-flight 1,16]

Four seats play the same seeded games (one ``play_range`` call, as a tournament's chunk):
``lowcard`` in the compiled loop (the reference), four ``examples/engine_client.py`` (Python)
engines (asking for the two request fields they read, then for every field), four C
engines (tests/engines/lowcard_client.c, compiled here with cc), and four ``hsim serve
lowcard``; each engine line once per ``--in-flight`` value (games played interleaved,
``hsim.play.games.IN_FLIGHT``; 1: one request at a time). All give the same
records. Printed per line: decisions, wall seconds, CPU-seconds of hsim and of its
engines, decisions per CPU-second of the whole (hsim plus engines) and per wall-second,
and microseconds of CPU per decision in hsim and in the engines. The engines' CPU
includes their start (a Python interpreter and its reaper, some 15 ms each), so
few games understate them.
"""

from __future__ import annotations

import argparse
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hsim.bridges.engine import process as engine_process
from hsim.bridges.engine.strategies import EngineStrategy
from hsim.model.rules import Rules
from hsim.play import games as games_module
from hsim.play.games import play_range
from hsim.strategy.loader import load_players

ROOT = Path(__file__).resolve().parents[1]


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def measure(spec: str, games: int, counted: list[int]) -> tuple[np.ndarray, str]:
    players = load_players([spec] * 4)
    play_range(Rules(), players, 1, games, games + 1)  # start the engines, load the code
    counted[0] = 0
    wall, own, children = (
        time.perf_counter(),
        cpu(resource.RUSAGE_SELF),
        cpu(resource.RUSAGE_CHILDREN),
    )
    rows = play_range(Rules(), players, 1, 0, games)[0]
    wall = time.perf_counter() - wall
    own = cpu(resource.RUSAGE_SELF) - own
    engine_process.stop_all()  # the engines' CPU counts once they are reaped
    children = cpu(resource.RUSAGE_CHILDREN) - children
    n = counted[0] or len(rows) // 4 * 56  # in process: ~56 a deal
    line = (
        f"{n:>7,} decisions  {wall:6.2f} s wall  hsim {own:6.2f} CPU-s  engines "
        f"{children:6.2f} CPU-s  {n / (own + children):>7,.0f} decisions per CPU-s  "
        f"{n / wall:>7,.0f} per wall-s  us/decision: hsim {own / n * 1e6:5.1f} "
        f"engines {children / n * 1e6:5.1f}"
    )
    return rows, line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument(
        "--in-flight", default="1,16", help="games in flight per process, comma-separated"
    )
    args = parser.parse_args()
    in_flight = [int(k) for k in args.in_flight.split(",")]
    counted = [0]
    request_at = EngineStrategy.request_at

    def counting(self, *a):
        counted[0] += 1
        return request_at(self, *a)

    EngineStrategy.request_at = counting
    python = shlex.quote(sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        c_engine = Path(tmp) / "lowcard_client"
        compiler = shutil.which("cc") or shutil.which("gcc")
        subprocess.run(
            [compiler, "-O2", "-o", c_engine, ROOT / "tests/engines/lowcard_client.c"], check=True
        )
        client = shlex.quote(str(ROOT / "examples" / "engine_client.py"))
        engines = {
            "Python engine": f"engine:{python} {client}",
            "Python, all fields": f"engine:{python} {client} --all-fields",
            "C engine": f"engine:{shlex.quote(str(c_engine))}",
            "hsim serve lowcard": f"engine:{python} -m hsim.cli serve lowcard",
        }
        runs = [("lowcard compiled loop", "lowcard", 1)]
        runs += [(f"{label} x{k}", spec, k) for label, spec in engines.items() for k in in_flight]
        reference = None
        for label, spec, k in runs:
            games_module.IN_FLIGHT = k
            rows, line = measure(spec, args.games, counted)
            same = (
                ""
                if reference is None
                else ("  same records" if np.array_equal(rows, reference) else "  RECORDS DIFFER")
            )
            reference = rows if reference is None else reference
            print(f"{label:<22} {line}{same}", flush=True)


if __name__ == "__main__":
    main()
