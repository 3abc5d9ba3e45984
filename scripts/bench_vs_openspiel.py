"""hsim's bots against OpenSpiel's ISMCTS: the outside reference no one here tuned to.

Usage::

    python scripts/bench_vs_openspiel.py [--bots heuristic,pimc,random] [--boards N]
                                         [--simulations 100,1000] [--seed S]

Each board is one game of ``--rules openspiel`` cut to 4 deals (``max_deals=4``, so one
deal of each pass direction: left, right, across, hold; ``end_score`` out of reach).
For each hsim bot and each ISMCTS size the board is played four times with the same
deals, the bot in each seat in turn against three ``openspiel:ismcts(simulations=K)``
seats (OpenSpiel's C++ information-set MCTS, random rollouts, c = 2, a new world each
simulation). The figure is points per deal, the bot minus the ISMCTS seats' mean, averaged
over the four seatings of a board, with a 95% t interval over the boards (lower is better
for the bot: negative means it takes fewer points than ISMCTS). Needs the ``openspiel``
extra (``pip install -e '.[openspiel]'``).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time

import numpy as np
from scipy import stats

from hsim.engine.layout import D_GAME, D_POINTS, D_SEAT
from hsim.model.rules import PRESETS
from hsim.play.games import play_range
from hsim.strategy.loader import load_players


def board_margins(bot: str, ismcts: str, boards: int, seed: int) -> np.ndarray:
    """Return per board the bot's points per deal minus the ISMCTS seats' mean."""
    rules = dataclasses.replace(PRESETS["openspiel"], max_deals=4, end_score=10_000)
    out = np.zeros((boards, 4))
    for seat in range(4):
        specs = [ismcts] * 4
        specs[seat] = bot
        rows, _ = play_range(rules, load_players(specs, rules), seed, 0, boards)
        for b in range(boards):
            mine = rows[rows[:, D_GAME] == b]
            pts = mine[:, D_POINTS].reshape(-1, 4)  # deals x seats
            assert (mine[:4, D_SEAT] == np.arange(4)).all()
            others = np.delete(pts, seat, axis=1).mean(axis=1)
            out[b, seat] = (pts[:, seat] - others).mean()
    return out.mean(axis=1)


def interval(x: np.ndarray) -> tuple[float, float, float]:
    """Return (mean, low, high) of a 95% t interval (nan bounds for fewer than 2 boards)."""
    m = float(x.mean())
    if len(x) < 2:
        return m, math.nan, math.nan
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return m, m - half, m + half


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bots", default="heuristic,pimc,random")
    ap.add_argument("--boards", type=int, default=50)
    ap.add_argument("--simulations", default="100,1000")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sims = [int(s) for s in args.simulations.split(",")]
    print(
        f"{args.boards} boards x 4 deals x 4 seatings, --rules openspiel, seed {args.seed}; "
        "points per deal, bot minus ISMCTS mean, 95% intervals"
    )
    print("| bot | " + " | ".join(f"vs ISMCTS-{k}" for k in sims) + " |")
    print("|---|" + "---|" * len(sims))
    for bot in args.bots.split(","):
        cells = []
        for k in sims:
            t0 = time.perf_counter()
            m, lo, hi = interval(
                board_margins(bot, f"openspiel:ismcts(simulations={k})", args.boards, args.seed)
            )
            cells.append(f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}] ({time.perf_counter() - t0:.0f} s)")
        print(f"| {bot} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
