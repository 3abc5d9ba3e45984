"""Boards and wall time to an SPRT verdict, against a fixed-size ladder rung.

Usage::

    python scripts/bench_sprt.py [--pairs heuristic/duck,pimc/heuristic] [--seeds 20]
                                 [--bounds 0,0.5] [--fixed-boards 2000] [--workers 1]
                                 [--fixed-pimc-boards 100] [--batch 8]

For each CANDIDATE/BASELINE pair, ``hsim.experiments.sprt.run_sprt`` runs once per seed 0..seeds-1
(the default design: the candidate against copies of the baseline, classic rules); the
script prints the verdicts, the boards to the verdict (mean, min, max) and the wall time
per test (mean, total). It then times the fixed rung ``hsim ladder`` would play
(``hsim.experiments.ladder.run_rung``, ``--fixed-boards`` boards) on the same pair. A pair whose
candidate names ``pimc`` plays only ``--fixed-pimc-boards`` fixed boards and the time for
``--fixed-boards`` is extrapolated linearly (and printed as such): pimc's time per board
does not depend on the board count.

The compiled code is loaded (or compiled) by a warm-up run before anything is timed. Wall
and CPU time (of this process; with ``--workers 1`` that is all the work) are both printed:
on a shared machine the CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from hsim.experiments.ladder import run_rung
from hsim.experiments.sprt import SprtConfig, run_sprt
from hsim.model.rules import Rules


def bench_pair(candidate, baseline, d0, d1, seeds, workers, max_boards, batch, tmp: Path):
    rules = Rules()
    warm = SprtConfig(candidate, baseline, d0, d1, rules, max_boards=8, batch=8, seed=10**6)
    run_sprt(warm, tmp / "warm", workers=1, overwrite=True)
    boards, times, cpus, verdicts = [], [], [], []
    for seed in range(seeds):
        config = SprtConfig(
            candidate, baseline, d0, d1, rules, max_boards=max_boards, batch=batch, seed=seed
        )
        t0, c0 = time.perf_counter(), time.process_time()
        result = run_sprt(config, tmp / "sprt", workers=workers, overwrite=True)
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        boards.append(result.boards)
        verdicts.append(result.verdict or "none")
        print(
            f"  seed {seed:>2}: {result.verdict or 'none':<4} after {result.boards:>5} boards, "
            f"advantage {result.advantage}, {times[-1]:.1f} s wall, {cpus[-1]:.1f} s CPU",
            flush=True,
        )
    return np.array(boards), np.array(times), np.array(cpus), verdicts


def bench_fixed(candidate, baseline, boards, workers, tmp: Path) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    rung = run_rung(candidate, baseline, boards, 1, workers, tmp / "rung", Rules())
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"  fixed rung: {boards} boards, advantage {rung.advantage}, {elapsed:.1f} s wall, "
        f"{cpu:.1f} s CPU"
    )
    return elapsed, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", default="heuristic/duck,pimc/heuristic")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--bounds", default="0,0.5")
    ap.add_argument("--fixed-boards", type=int, default=2000)
    ap.add_argument("--fixed-pimc-boards", type=int, default=100)
    ap.add_argument("--max-boards", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--batch", type=int, default=8, help="boards between looks at the LLR")
    args = ap.parse_args()
    d0, d1 = (float(x) for x in args.bounds.split(","))
    summary = []
    with tempfile.TemporaryDirectory() as tmp_text:
        tmp = Path(tmp_text)
        for pair in args.pairs.split(","):
            candidate, _, baseline = pair.partition("/")
            print(f"{candidate} vs {baseline}, bounds {d0:g},{d1:g}, {args.seeds} seeds:")
            boards, times, cpus, verdicts = bench_pair(
                candidate,
                baseline,
                d0,
                d1,
                args.seeds,
                args.workers,
                args.max_boards,
                args.batch,
                tmp,
            )
            fixed_n = args.fixed_pimc_boards if "pimc" in candidate else args.fixed_boards
            fixed_s, fixed_cpu = bench_fixed(candidate, baseline, fixed_n, args.workers, tmp)
            note = ""
            if fixed_n != args.fixed_boards:
                fixed_s *= args.fixed_boards / fixed_n
                fixed_cpu *= args.fixed_boards / fixed_n
                note = f" (extrapolated from {fixed_n} boards)"
            counts = {v: verdicts.count(v) for v in sorted(set(verdicts))}
            summary.append(
                f"{candidate} vs {baseline}: verdicts {counts}; boards to verdict mean "
                f"{boards.mean():.1f} (min {boards.min()}, max {boards.max()}); wall per test "
                f"mean {times.mean():.2f} s (total {times.sum():.1f} s), CPU per test mean "
                f"{cpus.mean():.2f} s | fixed {args.fixed_boards} boards: {fixed_s:.1f} s "
                f"wall, {fixed_cpu:.1f} s CPU{note}"
            )
    print("\n".join(["", f"summary (workers={args.workers}, batch={args.batch}):", *summary]))


if __name__ == "__main__":
    main()
