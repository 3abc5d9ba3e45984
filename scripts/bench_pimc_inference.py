"""What pimc's early stop of the surprise count saves: CPU per play decision with it and
with a full count, on the same positions, in the same run.

Usage::

    python scripts/bench_pimc_inference.py [--positions 120] [--rounds 5] [--spec pimc]

With ``play_infer`` (on by default) every try of every sampled world replays the deal so
far and counts the other seats' plays that ``heuristic`` would not have made there.
``pimc.search_totals`` stops that count once the try's fate is settled (kept or not,
likeliest try or not); ``stop_early=False`` counts to the limit. Positions come from
deals played by four ``heuristic`` seats and by four ``random`` seats (a random seat
surprises the model at almost every play), 4 to 44 cards in, the seat to act deciding.
Each round times both ways over every position (CPU seconds of this process, alternating
which goes first); the figure is the median round, in CPU milliseconds a decision, and
the ratio of the two. It also checks that both give every card the same total.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from hsim.model.rules import Rules
from hsim.play.position import Position
from hsim.strategies import heuristic, pimc
from hsim.strategy.loader import load


def positions(n: int, players: str, seed: int) -> list[tuple]:
    """``n`` (public, private, legal) observations of the seat to act, each with a choice of
    card, from deals played by four ``players`` seats (``heuristic`` or ``random``)."""
    gen = np.random.default_rng(seed)
    params = pimc.HEURISTIC_PARAMS.copy()
    rng = np.array([seed], np.uint64)
    out = []
    while len(out) < n:
        deck = [int(c) for c in gen.permutation(52)]
        p = Position.from_hands([deck[13 * s : 13 * s + 13] for s in range(4)], "hold", Rules())
        for _ in range(int(gen.integers(4, 45))):
            legal = int(p.legal())
            st = p.state
            if players == "heuristic":
                card = int(heuristic.play(st.public, st.private[p.to_act], legal, rng, params))
            else:
                card = int(gen.choice([c for c in range(52) if legal >> c & 1]))
            p.play(card)
        legal = int(p.legal())
        if legal & (legal - 1):
            public, private = p.state.public.copy(), p.state.private[p.to_act].copy()
            public.flags.writeable = private.flags.writeable = False  # as the bot sees them
            out.append((public, private, legal))
    return out


def decide_all(sample, params, stop_early: bool) -> tuple[float, list]:
    """CPU seconds to score every position of ``sample``, and each one's totals."""
    totals = []
    t0 = time.process_time()
    for public, private, legal in sample:
        total = np.zeros(52, np.int64)
        rng = np.array([7], np.uint64)
        pimc.search_totals(public, private, legal, rng, params, total, stop_early)
        totals.append(total)
    return time.process_time() - t0, totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--spec", default="pimc", help="a pimc spec (its play_infer on)")
    args = parser.parse_args()
    params = load(args.spec).params
    print(f"{args.spec}: CPU ms a play decision, median of {args.rounds} rounds")
    print(f"{'deals played by':<16} {'early stop':>11} {'full count':>11} {'ratio':>7}  same")
    for players in ("heuristic", "random"):
        sample = positions(args.positions, players, seed=5)
        decide_all(sample[:1], params, True)  # compile or load first
        decide_all(sample[:1], params, False)
        times = {True: [], False: []}
        same = True
        for r in range(args.rounds):
            order = (True, False) if r % 2 == 0 else (False, True)
            got = {}
            for stop_early in order:
                seconds, got[stop_early] = decide_all(sample, params, stop_early)
                times[stop_early].append(seconds)
            same &= all(np.array_equal(a, b) for a, b in zip(got[True], got[False], strict=True))
        early = statistics.median(times[True]) * 1000 / len(sample)
        full = statistics.median(times[False]) * 1000 / len(sample)
        print(f"{players:<16} {early:>11.2f} {full:>11.2f} {full / early:>6.2f}x  {same}")


if __name__ == "__main__":
    main()
