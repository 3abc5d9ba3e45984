"""Every speed target in one run: engine, bots, whole tournaments, scaling, memory, bytes.

Usage::

    python scripts/bench_speed.py [--checkout DIR ...] [--quick] [--json FILE]

Each ``--checkout`` is a clone of hsim with its own virtual environment in ``DIR/.venv``
(default: this checkout). For each, one after the other (never at the same time), it
measures, with that checkout's own code and scripts:

1. ``scripts/bench_engine.py --json``: random-play deals per second on one core, hsim's
   ``play_range`` against OpenSpiel's ``pyspiel.evaluate_bots`` with uniform-random bots
   (both in one process, interleaved repeats, best of each);
2. ``heuristic`` deals per second on one core against ``random`` (``play_range``, classic
   rules with the pass cycle): 20 rounds of 0.5 s of each bot, alternating; the ratio is
   the median of the rounds' ratios, each bot's rate the median of its rounds (the best
   of three 3 s runs each, as before, swung by ±0.08 on this host: the machine's speed
   drifts between two bots' runs seconds apart);
3. ``scripts/bench_tournament.py --games 200000 --workers 1`` and ``--workers 2``: whole
   runs, Parquet included, launch to exit; three of each, alternating, the fastest
   counting (and the best OpenSpiel rate of the one-worker runs' references);
4. ``hsim tournament --games 1000000 --players heuristic x4 --workers 2``: wall time and
   the largest resident size of any of its processes (``ru_maxrss`` of the children).

Each checkout's ``hsim`` and ``strategies`` packages are byte-compiled first (``python -m
compileall``), as ``pip install`` does for a regular install: an editable install run
with ``PYTHONDONTWRITEBYTECODE`` set (as on the team's machines) would otherwise compile
hsim's Python source in every process, about 0.07 s of each command's start.

With two checkouts (for example the code before and after a change) the table has one
column each: the figures were then taken in one session, so their ratios are fair even
on a machine whose speed drifts. ``--quick`` divides the game counts by 10 (for trying
the script, not for figures).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

BOT_RATE = """
import json, statistics, time
from hsim.loader import load_players
from hsim.play import play_range
from hsim.rules import Rules

players = {spec: load_players([spec] * 4) for spec in ("heuristic", "random")}
rates = {spec: [] for spec in players}
ratios = []
game = 10
for spec, seats in players.items():
    play_range(Rules(), seats, 1, 0, 2)
for r in range(20):  # short rounds, the bots alternating: a drift hits both alike
    got = {}
    for spec in (("heuristic", "random") if r % 2 else ("random", "heuristic")):
        deals, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 0.5:
            rows, _ = play_range(Rules(), players[spec], 1, game, game + 200)
            deals += len(rows) // 4
            game += 200
        got[spec] = deals / (time.perf_counter() - t0)
        rates[spec].append(got[spec])
    ratios.append(got["heuristic"] / got["random"])
out = {spec: statistics.median(r) for spec, r in rates.items()}
out["ratio"] = statistics.median(ratios)
print(json.dumps(out))
"""

PEAK_RSS = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(done.returncode)
"""

#: Runs of each 200k tournament: on a machine whose speed drifts ±10% from one run to the
#: next, one run of each makes the 2-worker/1-worker ratio mostly noise.
TOURNAMENT_TRIES = 3

TARGETS = (
    # key, label, target text, test
    ("engine_x", "engine, random play, one core / OpenSpiel", ">= 20x", lambda v: v >= 20),
    ("heuristic_x", "heuristic / random deals/s, one core", ">= 0.5x", lambda v: v >= 0.5),
    ("run1_x", "tournament 200k games, 1 worker / OpenSpiel", ">= 10x", lambda v: v >= 10),
    ("scaling_x", "2 workers / 1 worker, 200k games", ">= 1.8x", lambda v: v >= 1.8),
    ("heuristic_1m_s", "1M heuristic games, 2 workers (s)", "<= 45 s", lambda v: v <= 45),
    ("max_rss_mb", "largest process of that run (MB)", "<= 400 MB", lambda v: v <= 400),
    ("bytes_per_deal", "run folder bytes per deal (random x4)", "no larger", None),
)


def _run(cmd: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    print("  $ " + " ".join(str(c) for c in cmd), flush=True)
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(map(str, cmd))}\n{done.stderr[-3000:]}")
    return done


def measure(checkout: Path, scale: int) -> dict:
    """Return the figures of the checkout at ``checkout`` (its ``.venv``)."""
    python = checkout / ".venv" / "bin" / "python"
    hsim = checkout / ".venv" / "bin" / "hsim"
    out: dict = {"checkout": str(checkout)}
    commit = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    out["commit"] = commit.stdout.strip()
    print(f"{checkout} ({out['commit']}):", flush=True)
    packages = [p for p in ("hsim", "strategies") if (checkout / p).is_dir()]
    _run([python, "-m", "compileall", "-q", *packages], checkout)

    engine = json.loads(
        _run(
            [python, "scripts/bench_engine.py", "--json", "--repeat", "3", "--seconds", "3"],
            checkout,
        ).stdout
    )
    out["openspiel_deals_s"] = engine["openspiel"]["best_deals_per_s"]
    out["engine_deals_s"] = engine["hsim"]["best_deals_per_s"]
    out["engine_x"] = out["engine_deals_s"] / out["openspiel_deals_s"]

    bots = json.loads(_run([python, "-c", BOT_RATE], checkout).stdout)
    out["heuristic_deals_s"] = bots["heuristic"]
    out["heuristic_x"] = bots["ratio"]

    runs: dict[int, list[dict]] = {1: [], 2: []}
    for _ in range(TOURNAMENT_TRIES):  # the workers alternate: a drift hits both alike
        for workers in (1, 2):
            with tempfile.TemporaryDirectory() as tmp:
                target = Path(tmp) / "t.json"
                _run(
                    [python, "scripts/bench_tournament.py", "--games", str(200_000 // scale),
                     "--workers", str(workers), "--hsim", str(hsim), "--ref-repeat", "2",
                     "--json", str(target)],
                    checkout,
                )  # fmt: skip
                runs[workers].append(json.loads(target.read_text()))
    t1, t2 = (min((r["tournament"] for r in runs[w]), key=lambda t: t["wall_s"]) for w in (1, 2))
    reference = max(r["reference"]["openspiel"]["best_deals_per_s"] for r in runs[1])
    out["run1_s"], out["run2_s"] = t1["wall_s"], t2["wall_s"]
    out["run_walls_s"] = {w: [r["tournament"]["wall_s"] for r in runs[w]] for w in (1, 2)}
    out["run1_x"] = t1["deals_per_s"] / reference
    out["scaling_x"] = t1["wall_s"] / t2["wall_s"]
    out["bytes_per_deal"] = t1["run_folder_bytes"] / t1["deals"]

    with tempfile.TemporaryDirectory() as tmp:
        # A wrapper process of its own, so that ru_maxrss of its children (the largest of
        # hsim and the workers hsim reaped) is this run's alone.
        t0 = time.perf_counter()
        done = _run(
            [python, "-c", PEAK_RSS, hsim, "tournament", "--games", str(1_000_000 // scale),
             "--players", "heuristic,heuristic,heuristic,heuristic", "--workers", "2",
             "--seed", "1", "--out", str(Path(tmp) / "run"), "--no-progress"],
            checkout,
        )  # fmt: skip
        out["heuristic_1m_s"] = (time.perf_counter() - t0) * scale
        out["max_rss_mb"] = int(done.stdout.strip().splitlines()[-1]) / 1024
    out["load_average"] = os.getloadavg()[0]
    return out


def table(results: list[dict]) -> str:
    """Return the markdown table of ``results`` (one column per checkout)."""
    head = "| target | goal | " + " | ".join(f"`{r['commit']}`" for r in results) + " |"
    lines = [head, "|---|---|" + "---|" * len(results)]
    for key, label, goal, test in TARGETS:
        cells = []
        for r in results:
            value = r.get(key)
            text = f"{value:,.1f}" if isinstance(value, float) else str(value)
            if key.endswith("_x"):
                text = f"{value:.2f}x"
            ok = test(value) if test else value <= results[0][key] * 1.001
            cells.append(text + ("" if ok else " (missed)"))
        lines.append(f"| {label} | {goal} | " + " | ".join(cells) + " |")
    lines.append(
        "| (reference: OpenSpiel deals/s; load average) | | "
        + " | ".join(f"{r['openspiel_deals_s']:,.0f}; {r['load_average']:.1f}" for r in results)
        + " |"
    )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkout", type=Path, action="append", help="default: this checkout")
    ap.add_argument("--quick", action="store_true", help="a tenth of the games (a try only)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    checkouts = args.checkout or [HERE.parent]
    print("command: python scripts/bench_speed.py " + " ".join(sys.argv[1:]), flush=True)
    results = [measure(c.resolve(), 10 if args.quick else 1) for c in checkouts]
    print()
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
