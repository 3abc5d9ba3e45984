"""How many of the moons a bot concedes could have been stopped at all, and how late.

Usage::

    python scripts/moon_stoppable.py [--defender heuristic] [--opponent shooter]
                                     [--games 200] [--seed 1] [--max-nodes 20000] [--json]

It plays ``--games`` games of ``--rules classic``: the defender in seat 0, three copies of
``--opponent`` (a compiled bot that draws no random numbers, such as ``shooter`` or
``heuristic``) in seats 1 to 3. For every deal in which an opponent shoots the moon it asks
a clairvoyant oracle, at each of seat 0's plays of that deal from the last back: knowing
every hand, and with the opponents' play fixed (their bot answers every position the same
way), is there a sequence of seat 0's cards from here that stops the moon, that is, leaves
points with seat 0 or with two seats? The search is depth first over seat 0's legal cards
and gives up after ``--max-nodes`` of seat 0's decisions per position (undecided).

It prints the deals, the moons conceded, the share of them the oracle could stop (an upper
bound for any defence: the oracle sees every card and knows the opponents' bot), the
undecided ones, and, for the stoppable ones, the trick of seat 0's last play from which a
stop was still possible and how many points had been taken by then. The passes are the
bots' own; the oracle changes only seat 0's plays.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field

MAX_GAMES = 100_000


class Undecided(Exception):
    """The search reached ``--max-nodes`` without finding a stop."""


@dataclass
class Moon:
    """One conceded moon: who shot it, and the oracle's verdict on it."""

    game: int
    shooter: int
    stoppable: bool | None  # None: undecided within the node budget
    last_trick: int = -1  # 1..13: the trick of seat 0's last play from which a stop existed
    points_then: int = -1  # points taken by anyone before that play
    line: list[int] = field(default_factory=list)  # seat 0's cards of one stopping line
    position: tuple = ()  # the engine's state at that last chance (Oracle.snapshot)


class Oracle:
    """Plays the games and searches seat 0's lines (module docstring)."""

    def __init__(self, defender: str, opponent: str, seed: int, max_nodes: int):
        import numpy as np

        from hsim.engine import layout
        from hsim.errors import ConfigError
        from hsim.model.rules import parse_rules
        from hsim.play.games import PythonDriver
        from hsim.strategy.loader import load_players

        self.np = np
        self.L = layout
        rules = parse_rules("classic")
        players = load_players([defender] + [opponent] * 3, rules)
        if players[1].kind != "compiled":
            # a plain-Python bot keeps state the oracle's snapshots do not hold
            raise ConfigError(
                f"--opponent {opponent!r}: give a compiled bot (shooter, heuristic, ...); "
                "the oracle replays its answers from snapshots of the engine's state"
            )
        self.driver = PythonDriver(rules, players, seed)
        self.max_nodes = max_nodes
        self.nodes = 0

    # -- the state -------------------------------------------------------------------------

    def snapshot(self):
        st = self.driver.state
        return st.public.copy(), st.private.copy(), st.hidden.copy(), st.rngs.copy()

    def restore(self, snap) -> None:
        st = self.driver.state
        st.public[...], st.private[...], st.hidden[...], st.rngs[...] = snap

    def points(self):
        return self.driver.state.public[self.L.P_POINTS : self.L.P_POINTS + 4]

    def stopped(self) -> bool:
        """No opponent can take every point any more: seat 0 or two seats hold some."""
        p = self.points()
        return bool(p[0] > 0 or self.np.count_nonzero(p) >= 2)

    def deal_over(self) -> bool:
        return int(self.driver.state.public[self.L.P_TRICK]) == 13

    def legal(self) -> int:
        d = self.driver
        hand = int(d.state.private[0, self.L.V_HAND])
        return int(d._legal(d.state.public, d.rules_array, hand))

    def play(self, card: int) -> str:
        """Play ``card`` for seat 0 and let the opponents answer (:meth:`opponents_play`);
        return 'seat0', 'stopped' or 'over'."""
        self.driver.submit(self.L.ST_NEED_PLAY, card)
        return "stopped" if self.stopped() else self.opponents_play()

    def opponents_play(self) -> str:
        """Let seats 1..3 play until seat 0 is to play ('seat0'), the moon can no longer
        be made ('stopped') or the deal is over ('over')."""
        d = self.driver
        while True:
            if self.deal_over():
                return "over"
            status = d.next_status()
            if status == self.L.ST_NEED_PLAY and int(d.state.hidden[self.L.H_DECIDER]) == 0:
                return "seat0"
            d.submit(status, d.decide(status))
            if self.stopped():
                return "stopped"

    # -- the search ------------------------------------------------------------------------

    def stop_line(self) -> list[int] | None:
        """Return seat 0's cards of a line that stops the moon from here (seat 0 to play),
        or None when none does. The state is left as it was. Raises Undecided."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise Undecided
        here = self.snapshot()
        try:
            legal = self.legal()
            for card in range(52):
                if not legal >> card & 1:
                    continue
                self.restore(here)
                after = self.play(card)
                if after == "stopped":
                    return [card]
                if after == "seat0":
                    rest = self.stop_line()
                    if rest is not None:
                        return [card] + rest
            return None
        finally:
            self.restore(here)

    def replay(self, line: list[int]) -> bool:
        """Play ``line`` for seat 0 from here, the opponents answering; return whether the
        moon was stopped. The state is left as it was."""
        here = self.snapshot()
        try:
            for card in line:
                after = self.play(card)
                if after != "seat0":
                    return after == "stopped"
            return False
        finally:
            self.restore(here)

    def judge(self, game: int, shooter: int, positions) -> Moon:
        """The oracle's verdict on a conceded moon; ``positions`` are the snapshots at
        seat 0's plays of the deal, in order."""
        undecided = False
        for i in range(len(positions) - 1, -1, -1):
            self.restore(positions[i])
            self.nodes = 0
            try:
                line = self.stop_line()
            except Undecided:
                undecided = True
                continue
            if line is not None:
                public = self.driver.state.public
                return Moon(
                    game,
                    shooter,
                    True,
                    last_trick=int(public[self.L.P_TRICK]) + 1,
                    points_then=int(self.points().sum()),
                    line=line,
                    position=positions[i],
                )
        return Moon(game, shooter, None if undecided else False)

    def run(self, games: int) -> tuple[int, list[Moon]]:
        """Play ``games`` games; return the deals played and the moons conceded."""
        d, L = self.driver, self.L
        deals, moons = 0, []
        for game in range(games):
            d.start_game(game)
            positions = []
            while True:
                status = d.next_status()
                if status == L.ST_GAME_OVER:
                    break
                if status == L.ST_NEED_PLAY and int(d.state.hidden[L.H_DECIDER]) == 0:
                    positions.append(self.snapshot())
                d.submit(status, d.decide(status))
                if status == L.ST_NEED_PLAY and self.deal_over():
                    deals += 1
                    p = self.points().copy()
                    if not self.stopped() and p.sum() > 0:
                        after = self.snapshot()
                        moons.append(self.judge(game, int(p.argmax()), positions))
                        self.restore(after)
                    positions = []
        return deals, moons


def summary(deals: int, moons: list[Moon]) -> dict:
    """The figures printed (module docstring), as a dict."""
    stoppable = [m for m in moons if m.stoppable]
    by_trick = [0] * 13
    for m in stoppable:
        by_trick[m.last_trick - 1] += 1
    return {
        "deals": deals,
        "moons": len(moons),
        "stoppable": len(stoppable),
        "not_stoppable": sum(m.stoppable is False for m in moons),
        "undecided": sum(m.stoppable is None for m in moons),
        "last_chance_by_trick": by_trick,
        "last_chance_before_any_point": sum(m.points_then == 0 for m in stoppable),
    }


def _share(k: int, n: int) -> str:
    return f"{100 * k / n:.1f}%" if n else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--defender", default="heuristic", help="the bot in seat 0")
    parser.add_argument("--opponent", default="shooter", help="the bot in seats 1 to 3")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-nodes", type=int, default=20_000)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if not 0 < args.games <= MAX_GAMES:
        parser.error(f"--games {args.games}: must be positive and at most {MAX_GAMES:,}")
    if args.max_nodes <= 0:
        parser.error(f"--max-nodes {args.max_nodes}: must be positive")
    if not 0 <= args.seed < 2**64:
        parser.error(f"--seed {args.seed}: give a seed 0..2**64-1")
    from hsim.errors import HsimError

    try:
        oracle = Oracle(args.defender, args.opponent, args.seed, args.max_nodes)
        deals, moons = oracle.run(args.games)
    except HsimError as exc:
        print(f"moon_stoppable.py: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("moon_stoppable.py: interrupted; nothing was written", file=sys.stderr)
        return 130
    out = summary(deals, moons)
    if args.json:
        print(json.dumps(out))
        return 0
    n = out["moons"]
    print(
        f"{args.defender} in seat 0 against 3 x {args.opponent}, "
        f"{args.games} games, seed {args.seed}"
    )
    print(f"deals {deals}, moons conceded {n} ({_share(n, deals)} of the deals)")
    print(
        f"stoppable by the oracle {out['stoppable']} ({_share(out['stoppable'], n)}), "
        f"not stoppable {out['not_stoppable']}, undecided {out['undecided']}"
    )
    print(
        "last chance before any point was taken: "
        f"{out['last_chance_before_any_point']} of the stoppable"
    )
    print(
        "trick of the last chance: "
        + " ".join(f"{t + 1}:{k}" for t, k in enumerate(out["last_chance_by_trick"]) if k)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
