"""Kierki bot benchmark: speed against ``random`` and the margin over it per deal kind.

Usage::

    python scripts/bench_kierki.py [--presets kierki4,kierki3] [--games 20000]
                                   [--repeat 2] [--chunk 2000] [--boards 2000]
                                   [--seed 1] [--bot kierki]

Speed: whole games of the preset with the bot in every seat, through
``hsim.play.games.play_range`` in this one process (one core), after a warm-up call that
compiles or loads the code; the best of ``--repeat`` timed runs of ``--games`` games,
for ``random`` and for the bot, and their ratio. Games are played ``--chunk`` at a time,
as the tournament runner does (at most 2000 games a chunk). Timings on a shared machine
vary by some 10-20% from run to run; compare the ratio, measured in the same run.

Margin: duplicate boards of the preset with the rebel deal added (so that every deal
kind is played): each board (game index) is played once per seat with the bot in that
seat and ``random`` in the others, so every hand is played once by the bot. Per board and
deal kind, the bot's mean deal score minus the mean of the random seats' deal scores
(averaged over the rotations and, for trump deals, over the deals of that kind); the
table gives the mean over boards with a 95% Student-t interval. Positive: the bot scores
more per deal than ``random`` does (Kierki scores are signed, higher is better, B5).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from hsim.analysis.stats import mean_interval
from hsim.engine.layout import D_DEAL_SCORE, D_GAME, D_KIND, KIND_NAMES
from hsim.model.rules import PRESETS, Rules
from hsim.play.games import play_range
from hsim.strategy.loader import load_players


def games_per_second(
    rules: Rules, spec: str, games: int, repeat: int, seed: int, chunk: int
) -> tuple[float, float]:
    """Return the best (games/s, deals/s) of ``repeat`` runs of ``games`` games, ``spec``
    in every seat, played ``chunk`` games per ``play_range`` call."""
    players = load_players([spec] * rules.players, rules)
    play_range(rules, players, seed, 0, 20)  # compile or load first
    best, deals_per_game = 0.0, 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        rows = 0
        for first in range(20, 20 + games, chunk):
            deals, _ = play_range(rules, players, seed, first, min(first + chunk, 20 + games))
            rows += len(deals)
        best = max(best, games / (time.perf_counter() - t0))
        deals_per_game = rows / rules.players / games
    return best, best * deals_per_game


def board_margins(rules: Rules, bot: str, boards: int, seed: int) -> dict[int, np.ndarray]:
    """Return, per deal kind code, the bot's margin over ``random`` on each board."""
    n = rules.players
    out: dict[int, np.ndarray] = {}
    for seat in range(n):
        specs = ["random"] * n
        specs[seat] = bot
        deals, _ = play_range(rules, load_players(specs, rules), seed, 0, boards)
        scores = deals[:, D_DEAL_SCORE].reshape(-1, n).astype(float)  # game, deal, seat
        kinds = deals[:, D_KIND].reshape(-1, n)[:, 0]
        games = deals[:, D_GAME].reshape(-1, n)[:, 0]
        diff = scores[:, seat] - (scores.sum(axis=1) - scores[:, seat]) / (n - 1)
        for k in np.unique(kinds):
            sel = kinds == k
            per_board = np.bincount(games[sel], weights=diff[sel], minlength=boards)
            deals_each = np.bincount(games[sel], minlength=boards)
            out.setdefault(int(k), np.zeros(boards))
            out[int(k)] += per_board / deals_each / n
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--presets", default="kierki4,kierki3")
    parser.add_argument("--bot", default="kierki", help="the strategy spec to measure")
    parser.add_argument("--games", type=int, default=20000, help="games per timed run")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs (the best counts)")
    parser.add_argument(
        "--chunk", type=int, default=2000, help="games per play_range call (the runner's most)"
    )
    parser.add_argument("--boards", type=int, default=2000, help="duplicate boards")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    hearts = PRESETS["classic"]
    _, hearts_deals = games_per_second(
        hearts, "random", args.games // 2, args.repeat, args.seed, args.chunk
    )
    print(f"reference: Hearts (classic, with passing), random: {hearts_deals:,.0f} deals/s\n")
    for preset in args.presets.split(","):
        rules = PRESETS[preset.strip()]
        rates = {
            spec: games_per_second(rules, spec, args.games, args.repeat, args.seed, args.chunk)
            for spec in ("random", args.bot)
        }
        print(
            f"{preset}: one core ({args.games} games in chunks of {args.chunk}, "
            f"best of {args.repeat})"
        )
        base = rates["random"][0]
        for spec, (rate, deals) in rates.items():
            print(
                f"  {spec:<24} {rate:>10,.0f} games/s  {rate / base:>6.3f} x random  "
                f"{deals:>10,.0f} deals/s  {deals / hearts_deals:>6.3f} x Hearts random"
            )
        with_rebel = dataclasses.replace(rules, rebel=True)
        margins = board_margins(with_rebel, args.bot, args.boards, args.seed)
        print(
            f"{preset} with rebel: {args.bot} minus random, mean deal score per deal kind "
            f"({args.boards} boards x {rules.players} seats, 95% t interval)"
        )
        print(f"  {'kind':<18} {'margin':>9} {'95% interval':>22}")
        for k, values in sorted(margins.items()):
            iv = mean_interval(values)
            span = f"[{iv.low:+.1f}, {iv.high:+.1f}]"
            print(f"  {KIND_NAMES[k]:<18} {iv.estimate:>+9.1f} {span:>22}")
        print()


if __name__ == "__main__":
    main()
