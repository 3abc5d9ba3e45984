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
3. ``scripts/bench_tournament.py --games 200000 --workers 1``: whole runs, Parquet
   included, launch to exit, against the OpenSpiel reference each measures first; three,
   the fastest counting (and the best reference rate);
4. the scaling: ``hsim tournament --games 200000`` (the command bench_tournament runs)
   with ``--workers 1`` and ``--workers 2`` back to back, in five pairs, the order
   alternating from pair to pair (1 then 2, 2 then 1, ...); the figure is the median of
   the pairs' ratios (one-worker wall / two-worker wall). On this team's machines the
   speed drifts by ±10% within seconds: the fastest run of each worker count, the
   figure before, took its two walls from different moments (the ratio of two minima
   swung from 1.62 to 1.97 for the same code between sessions); a pair's two runs are
   seconds apart, and the median drops the pairs a burst of other load hit. The table
   also shows the fastest of each (all runs of that count) and the pairs' range;
5. ``hsim tournament --games 1000000 --players heuristic x4 --workers 2``: wall time and
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
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

BOT_RATE = """
import json, statistics, time
from hsim.strategy.loader import load_players
from hsim.play.games import play_range
from hsim.model.rules import Rules

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

#: One-worker 200k runs against the OpenSpiel reference (the fastest counts).
TOURNAMENT_TRIES = 3
#: Back-to-back pairs of 1- and 2-worker 200k runs for the scaling figure (their median
#: ratio counts): on a machine whose speed drifts ±10% from one run to the next, one pair
#: is mostly noise.
SCALING_PAIRS = 5

TARGETS = (
    # key, label, target text, test
    ("engine_x", "engine, random play, one core / OpenSpiel", ">= 20x", lambda v: v >= 20),
    ("heuristic_x", "heuristic / random deals/s, one core", ">= 0.5x", lambda v: v >= 0.5),
    ("run1_x", "tournament 200k games, 1 worker / OpenSpiel", ">= 10x", lambda v: v >= 10),
    (
        "scaling_x",
        "2 workers / 1 worker, 200k games (median of pairs)",
        ">= 1.8x",
        lambda v: v >= 1.8,
    ),
    ("scaling_fastest_x", "  the same, fastest 1-worker / fastest 2-worker run", "", None),
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


def _scaling_pair(hsim: Path, games: int, first: int) -> dict[int, float]:
    """Return the walls (s) of ``hsim tournament --games games`` with 1 and 2 workers,
    run back to back (``first`` worker count first), each launch to exit, into a new
    temporary folder (bench_tournament's command)."""
    walls = {}
    for workers in (first, 3 - first):
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [
                str(hsim), "tournament", "--games", str(games), "--players",
                "random,random,random,random", "--workers", str(workers), "--seed", "1",
                "--out", str(Path(tmp) / "run"), "--overwrite", "--no-progress",
            ]  # fmt: skip
            print("  $ " + " ".join(cmd), flush=True)
            t0 = time.perf_counter()
            done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            walls[workers] = time.perf_counter() - t0
            if done.returncode != 0:
                sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-3000:]}")
    print(f"    pair: {walls[1]:.2f} s / {walls[2]:.2f} s = {walls[1] / walls[2]:.2f}x", flush=True)
    return walls


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

    runs = []
    for _ in range(TOURNAMENT_TRIES):
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "t.json"
            _run(
                [python, "scripts/bench_tournament.py", "--games", str(200_000 // scale),
                 "--workers", "1", "--hsim", str(hsim), "--ref-repeat", "2",
                 "--json", str(target)],
                checkout,
            )  # fmt: skip
            runs.append(json.loads(target.read_text()))
    t1 = min((r["tournament"] for r in runs), key=lambda t: t["wall_s"])
    reference = max(r["reference"]["openspiel"]["best_deals_per_s"] for r in runs)
    out["run1_s"] = t1["wall_s"]
    out["run1_x"] = t1["deals_per_s"] / reference
    out["bytes_per_deal"] = t1["run_folder_bytes"] / t1["deals"]

    pairs = [_scaling_pair(hsim, 200_000 // scale, first=1 + k % 2) for k in range(SCALING_PAIRS)]
    ratios = [p[1] / p[2] for p in pairs]
    out["scaling_pairs"] = [{"walls_s": p, "ratio": r} for p, r in zip(pairs, ratios, strict=True)]
    out["scaling_x"] = statistics.median(ratios)
    walls1 = [t["tournament"]["wall_s"] for t in runs] + [p[1] for p in pairs]
    out["scaling_fastest_x"] = min(walls1) / min(p[2] for p in pairs)
    out["run2_s"] = min(p[2] for p in pairs)

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
            if key == "scaling_x" and r.get("scaling_pairs"):
                pairs = [p["ratio"] for p in r["scaling_pairs"]]
                text += f" ({min(pairs):.2f}-{max(pairs):.2f})"
            if test is not None:
                ok = test(value)
            else:  # no target of its own; bytes per deal: no larger than the first column's
                ok = key != "bytes_per_deal" or value <= results[0][key] * 1.001
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
