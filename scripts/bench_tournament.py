"""Tournament wall time, Parquet output included, with the OpenSpiel reference in the same run.

Usage::

    python scripts/bench_tournament.py [--games 1000000] [--workers 2] [--repeat 1] [--keep]

It runs, one after the other (never at the same time):

1. the reference: ``scripts/bench_engine.py --json`` in a child process (OpenSpiel
   ``evaluate_bots`` with uniform-random bots and hsim's ``play_range``, each on one core;
   see that script for what a "deal" is on each side);
2. ``hsim tournament --games N --players random,random,random,random --workers W
   --seed 1 --out <temporary folder> --overwrite --no-progress`` -- the ``hsim`` console
   script found on ``PATH`` (activate the virtual environment first, or give ``--hsim``),
   timed from launch to exit: interpreter start, numba cache load, the process pool,
   play, and writing the per-deal and per-game Parquet datasets and ``run.json``.

With ``--repeat N`` the tournament is run N times (one after the other) and the fastest
counts, as the reference's best repeat does: on a machine whose speed drifts ±10% between
runs, a ratio of two single runs is mostly noise. Each repeat writes a new folder (the
temporary folder's last run is deleted before the next is timed; with ``--out`` each
repeat overwrites that folder, its deletion timed).

It then counts the rows written (from the Parquet footers), sizes the run folder, and
prints the wall time, games/s, deals written, deals/s, and these figures as ratios
against the reference measured in this invocation. The run folder is deleted afterwards
unless ``--keep``. A warning is printed when other processes used CPU during the
tournament (read from /proc/stat): the wall time is then not the machine's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

N_SEATS = 4
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_engine import OtherLoad  # noqa: E402


def _parquet_rows(folder: Path) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in sorted(folder.glob("*.parquet")))


def _folder_bytes(folder: Path) -> tuple[int, int]:
    total = files = 0
    for root, _, names in os.walk(folder):
        for name in names:
            total += (Path(root) / name).stat().st_size
            files += 1
    return total, files


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1_000_000, help="default 1000000")
    ap.add_argument("--workers", type=int, default=2, help="default 2")
    ap.add_argument("--seed", type=int, default=1, help="run seed (default 1)")
    ap.add_argument("--hsim", default=None, help="the hsim executable (default: hsim on PATH)")
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="run folder (default: a new temporary folder, deleted afterwards)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the run folder")
    ap.add_argument(
        "--ref-seconds",
        type=float,
        default=2.0,
        help="seconds per repeat of the reference (default 2)",
    )
    ap.add_argument("--ref-repeat", type=int, default=3, help="reference repeats (default 3)")
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="tournament runs (default 1): the fastest is reported, as for the reference",
    )
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    if args.repeat < 1:
        sys.exit("--repeat must be at least 1")

    hsim = args.hsim or shutil.which("hsim")
    if hsim is None:
        sys.exit("no `hsim` on PATH: activate the virtual environment or give --hsim")
    print("command: python scripts/bench_tournament.py " + " ".join(sys.argv[1:]), flush=True)

    # 1. The reference, in a child process of its own.
    ref_cmd = [
        sys.executable,
        str(HERE / "bench_engine.py"),
        "--json",
        "--seconds",
        str(args.ref_seconds),
        "--repeat",
        str(args.ref_repeat),
    ]
    print("reference: " + " ".join(ref_cmd), flush=True)
    ref_proc = subprocess.run(ref_cmd, check=True, capture_output=True, text=True)
    print("  | " + ref_proc.stderr.rstrip().replace("\n", "\n  | "), flush=True)
    ref = json.loads(ref_proc.stdout)
    env = ref["environment"]
    print("versions: " + ", ".join(f"{k} {v}" for k, v in env.items()))
    os_rate = ref["openspiel"]["best_deals_per_s"]
    hs_rate = ref["hsim"]["best_deals_per_s"]

    # 2. The tournament.
    tmp = None
    if args.out is None:
        tmp = Path(tempfile.mkdtemp(prefix="hsim-bench-"))
        run_dir = tmp / "run"
    else:
        run_dir = args.out
    cmd = [
        hsim,
        "tournament",
        "--games",
        str(args.games),
        "--players",
        ",".join(["random"] * N_SEATS),
        "--workers",
        str(args.workers),
        "--seed",
        str(args.seed),
        "--out",
        str(run_dir),
        "--overwrite",
        "--no-progress",
    ]
    print("tournament: " + " ".join(["hsim", *cmd[1:]]) + f"   (hsim = {hsim})", flush=True)
    walls, cpus, other = [], [], []
    for _ in range(args.repeat):  # the fastest counts
        if tmp is not None:  # a new folder, as a first run has: deleting the last repeat's
            shutil.rmtree(run_dir, ignore_errors=True)  # (--overwrite, ~60 ms) is not timed
        cpu0 = _children_cpu()
        with OtherLoad() as load:
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            walls.append(time.perf_counter() - t0)
        cpus.append(_children_cpu() - cpu0)
        other.append(load.other_s)
        print("  | " + proc.stdout.rstrip().replace("\n", "\n  | "))
        if proc.returncode != 0:
            sys.exit(f"hsim tournament exited with status {proc.returncode}")
    best = walls.index(min(walls))
    wall, cpu, other_s = walls[best], cpus[best], other[best]
    if args.repeat > 1:
        print("  wall times: " + ", ".join(f"{w:.2f} s" for w in walls) + " (the fastest counts)")

    try:
        manifest = json.loads((run_dir / "run.json").read_text())
        deal_rows = _parquet_rows(run_dir / "deals")
        game_rows = _parquet_rows(run_dir / "games")
        size, files = _folder_bytes(run_dir)
    finally:
        if tmp is not None and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    deals = deal_rows // N_SEATS
    games = game_rows // N_SEATS
    rate = deals / wall
    per_worker = rate / args.workers
    print(
        f"  status {manifest['status']}, {manifest['games_done']:,} games; run.json: "
        f"compile_s {manifest.get('compile_s')}, elapsed_s {manifest.get('elapsed_s')}, "
        f"chunk_size {manifest.get('chunk_size')}"
    )
    if games != args.games:
        print(f"  WARNING: {games:,} games in the games dataset, {args.games:,} asked for")

    print(f"\nreference, one core each, best of {ref['repeat']} (command: {ref['command']}):")
    print(f"  OpenSpiel evaluate_bots, uniform random: {os_rate:>12,.0f} deals/s")
    print(
        f"  hsim play_range, random x4:              {hs_rate:>12,.0f} deals/s "
        f"({hs_rate / os_rate:.1f}x OpenSpiel)"
    )
    print(
        f"\nhsim tournament, {args.games:,} games, {args.workers} workers "
        f"(the machine has {os.cpu_count()} cpus):"
    )
    print(f"  wall time:         {wall:10.1f} s  (launch to exit, Parquet output included)")
    print(
        f"  cpu time:          {cpu:10.1f} s  (user+sys of hsim and its workers; "
        f"{cpu / wall:.2f} cores busy on average)"
    )
    if other_s is not None and other_s > 0.05 * wall:
        print(
            f"  WARNING: other processes used {other_s:.1f} cpu-s during the run; "
            "the machine was not quiet, so the wall time is too high"
        )
    print(f"  games/s:           {games / wall:10,.0f}")
    print(
        f"  deals written:     {deals:10,}  ({deal_rows:,} deal rows, {game_rows:,} game rows, "
        f"{deals / games:.2f} deals/game)"
    )
    print(f"  deals/s:           {rate:10,.0f}  ({per_worker:,.0f} per worker)")
    print(
        f"  run folder:        {size / 1e6:10,.1f} MB  ({files} files, "
        f"{size / deals:.1f} bytes/deal)"
    )
    os_1core = deals / os_rate
    print("\nratios against the reference measured above:")
    print(
        f"  tournament deals/s per worker / OpenSpiel deals/s per core: {per_worker / os_rate:.1f}x"
    )
    print(
        f"  OpenSpiel at its measured rate would take {os_1core:,.0f} s on one core "
        f"({os_1core / args.workers:,.0f} s on {args.workers}, writing nothing) "
        f"for these {deals:,} deals: {os_1core / args.workers / wall:.1f}x this wall time"
    )
    print(
        f"  tournament deals/s / ({args.workers} x in-process hsim deals/s): "
        f"{rate / (args.workers * hs_rate):.2f} (share of the engine-only speed kept "
        f"with the pool and Parquet output)"
    )

    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "reference": ref,
                    "tournament": {
                        "command": " ".join(["hsim", *cmd[1:]]),
                        "games": games,
                        "deals": deals,
                        "workers": args.workers,
                        "wall_s": wall,
                        "cpu_s": cpu,
                        "games_per_s": games / wall,
                        "deals_per_s": rate,
                        "run_folder_bytes": size,
                        "run_folder_files": files,
                        "manifest_elapsed_s": manifest.get("elapsed_s"),
                        "other_processes_cpu_s": other_s,
                        "wall_s_each": walls,
                        "ratio_per_worker_vs_openspiel": per_worker / os_rate,
                        "share_of_engine_speed": rate / (args.workers * hs_rate),
                    },
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
