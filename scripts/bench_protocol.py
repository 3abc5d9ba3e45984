"""Decisions per second through the engine protocol (docs/protocol.md), against the same
bot played in process, all in one run.

    python scripts/bench_protocol.py [--games 40]

Four seats play the same seeded games: ``lowcard`` in process (the reference), four
``examples/engine_client.py`` (Python) engines, four C engines (tests/engines/
lowcard_client.c, compiled here with cc), and four ``hsim serve lowcard``. All four give
the same records. Printed per line: decisions, wall seconds, CPU-seconds of hsim and of
its engines, and decisions per CPU-second of the whole (hsim plus engines).
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
from hsim.play.games import PythonDriver
from hsim.strategy.loader import load_players

ROOT = Path(__file__).resolve().parents[1]


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def measure(spec: str, games: int, counted: list[int]) -> tuple[np.ndarray, str]:
    driver = PythonDriver(Rules(), load_players([spec] * 4), seed=1)
    driver.play_game(games)  # start the engines, load the code: not timed
    counted[0] = 0
    wall, own, children = (
        time.perf_counter(),
        cpu(resource.RUSAGE_SELF),
        cpu(resource.RUSAGE_CHILDREN),
    )
    rows = [driver.play_game(g)[0] for g in range(games)]
    wall = time.perf_counter() - wall
    own = cpu(resource.RUSAGE_SELF) - own
    engine_process.stop_all()  # the engines' CPU counts once they are reaped
    children = cpu(resource.RUSAGE_CHILDREN) - children
    n = counted[0] or sum(len(r) for r in rows) // 4 * 56  # in process: ~56 a deal
    line = (
        f"{n:>7,} decisions  {wall:6.2f} s wall  hsim {own:6.2f} CPU-s  engines "
        f"{children:6.2f} CPU-s  {n / (own + children):>9,.0f} decisions per CPU-s  "
        f"{n / wall:>9,.0f} per wall-s"
    )
    return np.concatenate(rows), line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    counted = [0]
    ask = EngineStrategy._ask

    def counting(self, *a):
        counted[0] += 1
        return ask(self, *a)

    EngineStrategy._ask = counting
    python = shlex.quote(sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        c_engine = Path(tmp) / "lowcard_client"
        compiler = shutil.which("cc") or shutil.which("gcc")
        subprocess.run(
            [compiler, "-O2", "-o", c_engine, ROOT / "tests/engines/lowcard_client.c"], check=True
        )
        client = shlex.quote(str(ROOT / "examples" / "engine_client.py"))
        specs = {
            "lowcard in process": "lowcard",
            "Python engine": f"engine:{python} {client}",
            "C engine": f"engine:{shlex.quote(str(c_engine))}",
            "hsim serve lowcard": f"engine:{python} -m hsim.cli serve lowcard",
        }
        reference = None
        for label, spec in specs.items():
            rows, line = measure(spec, args.games, counted)
            same = (
                ""
                if reference is None
                else ("  same records" if np.array_equal(rows, reference) else "  RECORDS DIFFER")
            )
            reference = rows if reference is None else reference
            print(f"{label:<20} {line}{same}", flush=True)


if __name__ == "__main__":
    main()
