"""Bot speed: deals per second on one core for each built-in bot, against ``random``.

Usage::

    python scripts/bench_bots.py [--bots random,lowcard,duck,heuristic] [--seconds S]
                                 [--repeat K] [--pimc 'pimc'] [--decisions N]

Each bot plays whole classic games (with the pass cycle) in all four seats through
``hsim.play.games.play_range``, in this one process; the figure is the best of ``--repeat``
timed runs of at least ``--seconds`` seconds, and is reported as a ratio to ``random``
measured in the same run. ``pimc`` is too slow for whole games at this scale: it is
measured in decisions per second (its ``play`` on positions reached by random play),
with the spec given by ``--pimc``, and in CPU milliseconds per pass and per play decision
(passes on fresh deals passing left; both timed in the same run).
"""

from __future__ import annotations

import argparse
import random
import time

from hsim.model.notation import PositionSpec, format_deal
from hsim.model.rules import Rules
from hsim.play.choose import choose
from hsim.play.games import play_range
from hsim.play.position import Position
from hsim.strategy.loader import load, load_players


def deals_per_second(spec: str, seconds: float, repeat: int) -> float:
    players = load_players([spec] * 4)
    play_range(Rules(), players, 1, 0, 2)  # compile or load first
    best = 0.0
    game = 10
    for _ in range(repeat):
        deals, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            rows, _ = play_range(Rules(), players, 1, game, game + 200)
            deals += len(rows) // 4
            game += 200
        best = max(best, deals / (time.perf_counter() - t0))
    return best


def positions(n: int, seed: int = 1):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        deck = list(range(52))
        rng.shuffle(deck)
        p = PositionSpec.parse(format_deal([deck[13 * s : 13 * s + 13] for s in range(4)]))
        p = Position.from_spec(p)
        for _ in range(rng.randrange(0, 48)):
            legal = [c for c in range(52) if p.legal() >> c & 1]
            p.play(rng.choice(legal))
        out.append(p)
    return out


def pass_positions(n: int, seed: int = 1) -> list[Position]:
    """``n`` fresh deals passing left, before any pass."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        deck = list(range(52))
        rng.shuffle(deck)
        out.append(Position.from_hands([deck[13 * s : 13 * s + 13] for s in range(4)], "left"))
    return out


def cpu_ms_each(strategy, sample) -> float:
    """CPU milliseconds per decision of ``strategy`` over the positions ``sample``."""
    choose(strategy, sample[0])  # compile or load first
    t0 = time.process_time()
    for p in sample:
        choose(strategy, p)
    return (time.process_time() - t0) * 1000 / len(sample)


def decisions_per_second(spec: str, n: int) -> float:
    strategy = load(spec)
    sample = positions(n)
    choose(strategy, sample[0])  # compile or load first
    t0 = time.perf_counter()
    for p in sample:
        choose(strategy, p)
    return n / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", default="random,lowcard,duck,heuristic")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pimc", default="pimc", help="pimc spec ('' to skip)")
    parser.add_argument("--decisions", type=int, default=200)
    args = parser.parse_args()
    bots = [b.strip() for b in args.bots.split(",")]
    if "random" not in bots:
        bots.insert(0, "random")
    rates = {b: deals_per_second(b, args.seconds, args.repeat) for b in bots}
    print(f"{'bot':<12} {'deals/s (one core)':>20} {'x random':>9}")
    for b, r in rates.items():
        print(f"{b:<12} {r:>20,.0f} {r / rates['random']:>9.3f}")
    if args.pimc:
        rate = decisions_per_second(args.pimc, args.decisions)
        print(
            f"{args.pimc}: {rate:,.1f} decisions/s (one core, {args.decisions} positions "
            "from random play)"
        )
        strategy = load(args.pimc)
        n = max(1, args.decisions // 4)
        pass_ms = cpu_ms_each(strategy, pass_positions(n))
        play_ms = cpu_ms_each(strategy, positions(n))
        print(
            f"{args.pimc}: {pass_ms:.2f} CPU-ms a pass ({n} deals), {play_ms:.2f} CPU-ms a "
            f"play decision, {pass_ms / play_ms:.1f}x"
        )


if __name__ == "__main__":
    main()
