"""What ``hsim analyse`` and ``hsim view`` cost for one game, in CPU-seconds.

Usage::

    python scripts/bench_analyse.py [--games 3] [--seed 7] [--with 'pimc(worlds=200)']
                                    [--players heuristic,random,pimc,duck]

For each game (games 0..N-1 of run ``--seed``) it replays the game collecting every play
of the four seats, then times: the replay, the analysis of every play with the analyser,
and as the reference in the same run, ``pimc``'s own decision (its defaults) on the same
positions; and building the viewer page of the game with and without the analysis. It
prints CPU-seconds per game, milliseconds per play and the analysis's cost over pimc's own
decision. Compile first (``hsim warm``): the first call of each part would be timed.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--with", dest="analyser", default=None)
    parser.add_argument("--players", default="heuristic,random,pimc,duck")
    args = parser.parse_args()

    import numpy as np

    from hsim.analysis import analyse as an
    from hsim.analysis.replay import replay_game
    from hsim.analysis.viewer import render_page
    from hsim.model.rules import parse_rules
    from hsim.strategies import pimc
    from hsim.strategy.loader import load, load_players

    rules = parse_rules("classic")
    players = load_players(args.players.split(","), rules)
    analyser = an.load_analyser(args.analyser or an.DEFAULT_ANALYSER)
    own = load("pimc")
    totals = {"replay": 0.0, "analysis": 0.0, "pimc": 0.0, "page": 0.0, "page+analysis": 0.0}
    plays = 0
    for game in range(args.games):
        watcher = an.Watcher()
        t = time.process_time()
        records, _ = replay_game(rules, players, args.seed, game, watcher)
        totals["replay"] += time.process_time() - t
        t = time.process_time()
        analyses = watcher.analyse(records, analyser)
        totals["analysis"] += time.process_time() - t
        t = time.process_time()
        for snap in watcher.snapshots:
            rng = np.array([snap.run_seed ^ snap.play], np.uint64)
            pimc.play(snap.public.copy(), snap.private.copy(), snap.legal, rng, own.params.copy())
        totals["pimc"] += time.process_time() - t
        names = [p.spec for p in players]
        t = time.process_time()
        render_page(records, rules="classic", players=names, title=f"game {game}")
        totals["page"] += time.process_time() - t
        data = [a.as_dict() for a in analyses]
        t = time.process_time()
        render_page(
            records, rules="classic", players=names, title=f"game {game}", analysis=data,
            analyser=analyser.spec,
        )  # fmt: skip
        totals["page+analysis"] += time.process_time() - t
        plays += len(watcher.snapshots)
    n = args.games
    print(f"{n} games of {args.players}, seed {args.seed}: {plays} plays, {plays / n:.0f} a game")
    for what, cpu in totals.items():
        print(f"  {what:14s} {cpu / n:8.3f} CPU-s a game   {1000 * cpu / plays:8.3f} ms a play")
    ratio = totals["analysis"] / totals["pimc"]
    print(f"analysis with {analyser.spec} / pimc's own decision: {ratio:.2f}x")


if __name__ == "__main__":
    main()
