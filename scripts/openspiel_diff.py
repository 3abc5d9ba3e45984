"""Differential run of hsim against OpenSpiel's ``hearts`` (the rules oracle), full grid.

Usage::

    python scripts/openspiel_diff.py [--deals N] [--workers W] [--seed S]
                                     [--directions left,right,across,hold] [--mutate NAME]

Plays ``--deals`` deals for every combination of OpenSpiel's five play options (32) and
every pass direction (128 combinations), in both engines, with the harness of
``scripts/openspiel_oracle.py`` (mapping and encodings: ``docs/openspiel.md``): legal cards
compared at every pass and play, hands after the pass, deal scores at the end, and each
deal rescored under every combination of ``jd_bonus`` x ``avoid_all_tricks_bonus``.
Prints the deals and combinations checked, every disagreement with a reproduction, the
hits of each rule branch against its minimum, and deals/s. ``--mutate`` plays a
deliberately wrong mapping on the hsim side, to see that the harness catches it.

Exit status: 0 when there is no disagreement and every branch reached its minimum,
1 otherwise. Needs OpenSpiel (``pip install -e '.[openspiel]'``); hsim itself does not.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

try:
    import openspiel_oracle as oracle  # beside this script
except ModuleNotFoundError as e:  # OpenSpiel is a test-only tool, not an hsim dependency
    if e.name != "pyspiel":
        raise
    sys.exit("openspiel_diff needs OpenSpiel: pip install -e '.[openspiel]' in hsim's checkout")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="deals per combination")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--directions",
        default=",".join(oracle.DIRECTIONS),
        help="comma-separated pass directions (default: all four)",
    )
    parser.add_argument(
        "--mutate",
        choices=[*oracle.MUTATIONS, *oracle.DIRECTION_MUTATIONS],
        help="apply a deliberately wrong mapping to the hsim side",
    )
    parser.add_argument("--max-repros", type=int, default=5, help="reproductions to print")
    args = parser.parse_args(argv)
    directions = [d.strip() for d in args.directions.split(",") if d.strip()]
    bad = [d for d in directions if d not in oracle.DIRECTIONS]
    if bad or args.deals < 1 or args.workers < 1:
        parser.error(f"directions must be among {oracle.DIRECTIONS}; deals, workers >= 1")

    jobs = oracle.grid(args.deals, args.seed, directions, args.mutate)
    print(
        f"hsim vs OpenSpiel hearts: {len(jobs)} combinations "
        f"({len(oracle.PLAY_PARAMS)} play options x {len(directions)} directions) x "
        f"{args.deals} deals, seed {args.seed}, {args.workers} workers"
        + (f", MUTATION {args.mutate}" if args.mutate else ""),
        flush=True,
    )
    t0 = time.perf_counter()
    done = [0, 0]

    def progress(part: oracle.Summary) -> None:
        done[0] += 1
        done[1] += part.deals
        if done[0] % max(1, len(jobs) // 10) == 0 or done[0] == len(jobs):
            dt = time.perf_counter() - t0
            print(f"  {done[0]}/{len(jobs)} combinations, {done[1]} deals, {dt:.1f} s", flush=True)

    summary = oracle.run_jobs(jobs, args.workers, progress)
    seconds = time.perf_counter() - t0

    print(
        f"\nchecked {summary.deals} deals over {len(summary.combos)} option combinations "
        f"(+{summary.score_checks} rescorings under jd_bonus x avoid_all_tricks_bonus)"
    )
    print("deals by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(summary.kinds.items())))
    print(f"disagreements: {summary.disagreements}")
    for repro in summary.repros[: args.max_repros]:
        print()
        print(repro)
    minimums = oracle.branch_minimums(summary.deals)
    print("\nrule branches (hits, minimum):")
    short = []
    for name, meaning in oracle.BRANCHES.items():
        hits, k = summary.branches[name], minimums[name]
        flag = "" if hits >= k else "   <-- BELOW MINIMUM"
        if hits < k:
            short.append(name)
        print(f"  {name:38s} {hits:8d} {k:6d}  {meaning}{flag}")
    print(
        f"\n{seconds:.1f} s wall, {summary.deals / seconds:.0f} deals/s "
        f"({summary.deals / max(summary.seconds, 1e-9):.0f} deals/s per worker)"
    )
    if len(directions) < len(oracle.DIRECTIONS) and short:
        print("(branch minimums assume the full grid; fewer directions were run)")
    return 1 if summary.disagreements or short else 0


if __name__ == "__main__":
    sys.exit(main())
