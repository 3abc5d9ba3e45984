"""What one call of the compiled game loop costs besides its games: ``play_range`` time per
call, for ranges of a few sizes.

Usage::

    python scripts/bench_calls.py [--players random heuristic] [--sizes 1 200]
                                  [--calls N] [--repeat K] [--json]

For each player spec (one spec for all four seats) and each range size (games per call),
it times ``--calls`` calls of ``hsim.play.games.play_range`` over consecutive ranges of run
seed 1, classic rules, after one call that loads (or compiles) everything; the figure
is the best of ``--repeat`` such timings, in microseconds per call. A one-game call is
almost all fixed cost (a game is ~10 deals, 15-30 us); the runner pays that cost once a
chunk (2,000 games), a responsive run once every call of about 0.2 s.

To measure another checkout's code with this script (for example one made before it
existed), run it with that checkout's Python and ``PYTHONPATH=CHECKOUT``; alternate the
checkouts a few times, as the machine's speed drifts.
"""

from __future__ import annotations

import argparse
import json
import time


def per_call_us(players, size: int, calls: int, repeat: int) -> float:
    """Return the best over ``repeat`` timings of the mean microseconds of one
    ``play_range`` call of ``size`` games, over ``calls`` consecutive ranges."""
    from hsim.model.rules import Rules
    from hsim.play.games import play_range

    rules = Rules()
    play_range(rules, players, 1, 0, 1)  # load (or compile) everything first
    best = float("inf")
    first = 10
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            play_range(rules, players, 1, first, first + size)
            first += size
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--players", nargs="+", default=["random", "heuristic"], help="specs, one for all 4 seats"
    )
    parser.add_argument("--sizes", nargs="+", type=int, default=[1, 200], help="games a call")
    parser.add_argument("--calls", type=int, default=200, help="calls per timing (a size of 1)")
    parser.add_argument("--repeat", type=int, default=3, help="timings, the best counting")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.calls <= 0 or args.repeat <= 0 or any(s <= 0 for s in args.sizes):
        parser.error("--calls, --repeat and every --sizes value must be positive")

    import hsim
    from hsim.strategy.loader import load_players

    out: dict = {"hsim": str(hsim.__file__)}
    for spec in args.players:
        players = load_players([spec] * 4)
        for size in args.sizes:
            calls = max(1, args.calls // size)  # about the same games for every size
            out[f"{spec} x{size}"] = round(per_call_us(players, size, calls, args.repeat), 1)
    if args.json:
        print(json.dumps(out))
        return
    print(f"hsim from {out.pop('hsim')}")
    for key, us in out.items():
        spec, size = key.rsplit(" x", 1)
        print(f"  {spec:>12}, {size:>5} game(s) a call: {us:>10,.1f} us a call")


if __name__ == "__main__":
    main()
