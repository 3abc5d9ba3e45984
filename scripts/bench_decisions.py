"""What one play decision of a compiled bot costs, by kind: a lead, a follow, a discard,
a lone legal card; timed over decisions recorded from real games.

Usage::

    python scripts/bench_decisions.py [--games 300] [--rules classic] [--rounds 7]
                                      [--players heuristic OTHER.py:STRATEGY ...] [--json]

It plays ``--games`` games of four ``heuristic`` seats (run seed 5) step by step and
records every play decision: the public position, the deciding seat's private row and its
legal cards. Then, for each of ``--players`` (compiled strategies with a native play
entry: ``heuristic``, ``kierki`` or a strategy file, ``path.py:STRATEGY``), a compiled
loop calls its native entry on every decision of one kind, in the order played, each
position first copied into one small buffer (the game loop's position is always in the
CPU's cache; 160,000 recorded positions are not), and the same loop with a bot that
plays its lowest legal card gives the copy's own time, which is subtracted. The figure is
the median over ``--rounds`` alternating rounds, in nanoseconds a decision. With more
than one player it also says whether every player chose the same cards (a rewrite for
speed should).

To time older code, give its file: ``git show OLD:strategies/heuristic.py > /tmp/h.py``
and ``--players heuristic /tmp/h.py:STRATEGY``. These are costs out of the game loop,
where a decision waits for nothing; in whole games a decision's mispredicted branches
cost more, so confirm a gain with whole games (``scripts/bench_speed.py``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

KINDS = ("lead", "follow", "discard", "single")
MAX_GAMES = 2_000  # --games at most: the recorded positions are held in memory

#: the words of the position the bots read, copied for each decision: the header, the
#: points, scores, voids and cards taken (P_N_SEATS .. P_TAKEN + 3); the current trick's
#: plays (by their index in the deal) and the rules are copied separately
HEAD_WORDS = 36


def record(games: int, rules_text: str):
    """Return the play decisions of ``games`` games of four ``heuristic`` seats, as
    (public int64[n, PUBLIC_LEN], private int64[n, 8], legal int64[n], rules array)."""
    import numpy as np

    from hsim.engine.hearts import legal_plays
    from hsim.engine.layout import H_DECIDER, V_HAND
    from hsim.model.rules import parse_rules
    from hsim.play.games import PythonDriver
    from hsim.play.hearts_game import ST_GAME_OVER, ST_NEED_PLAY
    from hsim.strategy.loader import load_players

    rules = parse_rules(rules_text)
    driver = PythonDriver(rules, load_players(["heuristic"] * 4, rules), 5)
    public, private, legal = [], [], []
    for game in range(games):
        driver.start_game(game)
        while (status := driver.next_status()) != ST_GAME_OVER:
            if status == ST_NEED_PLAY:
                st = driver.state
                seat = int(st.hidden[H_DECIDER])
                hand = st.private[seat, V_HAND]
                public.append(st.public.copy())
                private.append(st.private[seat].copy())
                legal.append(int(legal_plays(st.public, driver.rules_array, hand)))
            driver.submit(status, driver.decide(status))
    return np.array(public), np.array(private), np.array(legal, np.int64), rules


def kind_of(public, legal):
    """Return each decision's kind (an index into :data:`KINDS`), int64[n]."""
    import numpy as np

    from hsim.engine.layout import P_LED_SUIT, P_TRICK_LEN
    from hsim.model.cards import SUIT_MASK

    single = (legal & (legal - 1)) == 0
    n = public[:, P_TRICK_LEN]
    led = np.where(n > 0, np.int64(SUIT_MASK) << (13 * np.maximum(public[:, P_LED_SUIT], 0)), 0)
    follows = (legal & led) != 0
    kinds = np.where(n == 0, 0, np.where(follows, 1, 2))
    return np.where(single, 3, kinds)


def _timing_loop(play_at):
    """Return a compiled loop calling ``play_at`` on each recorded decision; it returns a
    hash of the cards played."""
    from numba import njit

    from hsim.engine.layout import P_N_PLAYS, P_PLAY_CARD, P_PLAY_SEAT, P_TRICK_LEN
    from hsim.engine.native import data_ptr

    @njit
    def run(dense, private, legal, scratch, row, rng, params):
        acc = 0
        for i in range(legal.shape[0]):
            d = dense[i]
            scratch[:HEAD_WORDS] = d[:HEAD_WORDS]
            n = d[P_N_PLAYS]
            for k in range(d[P_TRICK_LEN]):  # the current trick's plays, latest first
                scratch[P_PLAY_CARD + n - 1 - k] = d[HEAD_WORDS + k]
                scratch[P_PLAY_SEAT + n - 1 - k] = d[HEAD_WORDS + 3 + k]
            row[:] = private[i]
            ptrs = data_ptr(scratch), data_ptr(row)
            acc = acc * 31 + play_at(*ptrs, legal[i], data_ptr(rng), data_ptr(params))
        return acc

    return run


def _lowest_legal():
    from numba import njit

    from hsim.engine.bits import lowest_card

    @njit
    def play_at(public, private, legal, rng, params):
        return lowest_card(legal)

    return play_at


def dense_positions(public):
    """Return the words each decision copies: :data:`HEAD_WORDS` of the header, then the
    current trick's cards and seats (at most 3 each, latest first), int64[n, HEAD + 6]."""
    import numpy as np

    from hsim.engine.layout import P_N_PLAYS, P_PLAY_CARD, P_PLAY_SEAT, P_TRICK_LEN

    dense = np.zeros((len(public), HEAD_WORDS + 6), np.int64)
    dense[:, :HEAD_WORDS] = public[:, :HEAD_WORDS]
    for i, row in enumerate(public):
        n = row[P_N_PLAYS]
        for k in range(row[P_TRICK_LEN]):
            dense[i, HEAD_WORDS + k] = row[P_PLAY_CARD + n - 1 - k]
            dense[i, HEAD_WORDS + 3 + k] = row[P_PLAY_SEAT + n - 1 - k]
    return dense


def measure(specs: list[str], games: int, rules_text: str, rounds: int) -> dict:
    """Return {"decisions": {kind: count}, "same_cards": bool | None, "ns": {spec: {kind:
    ns a decision}}}.

    :raises ValueError: a spec that is not a compiled strategy with a native play entry.
    :raises HsimError: rules or a spec hsim refuses (RulesError, StrategyError).
    """
    import numpy as np

    from hsim.model.rules import parse_rules
    from hsim.strategy.loader import load_players

    bots = []
    for spec in specs:
        player = load_players([spec] * 4, parse_rules(rules_text))[0]
        native = player.compiled.native_play if player.compiled is not None else None
        if native is None:
            raise ValueError(f"{spec} has no native play entry to time (a compiled bot's)")
        bots.append((spec, native, player.params))
    public, private, legal, _ = record(games, rules_text)
    kinds = kind_of(public, legal)
    dense = dense_positions(public)
    baseline = _timing_loop(_lowest_legal())
    loops = [(spec, _timing_loop(native), params) for spec, native, params in bots]
    scratch = public[0].copy()  # the rules stay as recorded
    row = private[0].copy()
    rng = np.zeros(4, np.uint64)
    out: dict = {"decisions": {}, "same_cards": None, "ns": {spec: {} for spec in specs}}
    hashes = set()
    for k, kind in enumerate(KINDS):
        pick = kinds == k
        args = (dense[pick], private[pick], legal[pick], scratch, row, rng)
        out["decisions"][kind] = int(pick.sum())
        if not pick.any():
            continue
        baseline(*args, bots[0][2])  # compiled (or run) once before any timing
        hashes.add(tuple(loop(*args, params) for _, loop, params in loops))
        repeat = max(1, 300_000 // int(pick.sum()))
        times: dict[str, list[float]] = {spec: [] for spec in ["", *specs]}
        order = [("", baseline, bots[0][2]), *loops]
        for r in range(rounds):
            for spec, loop, params in order if r % 2 else order[::-1]:
                t0 = time.thread_time()
                for _ in range(repeat):
                    loop(*args, params)
                times[spec].append((time.thread_time() - t0) / repeat / pick.sum() * 1e9)
        copy = statistics.median(times[""])
        for spec in specs:
            out["ns"][spec][kind] = round(statistics.median(times[spec]) - copy, 2)
    if len(specs) > 1:
        out["same_cards"] = all(len(set(h)) == 1 for h in hashes)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=300, help="games to record (heuristic x4)")
    parser.add_argument("--rules", default="classic", help="rules of the recorded games")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds, the median")
    parser.add_argument("--players", nargs="+", default=["heuristic"], help="bots to time")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.games <= 0 or args.rounds <= 0:
        parser.error("--games and --rounds must be positive")
    if args.games > MAX_GAMES:  # every position is held in memory, ~2 MB a game
        parser.error(
            f"--games {args.games:,} is too many: at most {MAX_GAMES:,} (each recorded game "
            "holds ~2 MB of positions in memory; 300 already give ~160,000 decisions)"
        )
    from hsim.errors import HsimError

    try:
        out = measure(args.players, args.games, args.rules, args.rounds)
    except (HsimError, ValueError) as exc:
        parser.error(str(exc))
    except KeyboardInterrupt:
        sys.stderr.write("interrupted: nothing was measured\n")
        raise SystemExit(130) from None
    if args.json:
        print(json.dumps(out))
        return
    counts = ", ".join(f"{n:,} {kind}s" for kind, n in out["decisions"].items())
    print(f"{sum(out['decisions'].values()):,} decisions recorded ({counts})")
    for spec, by_kind in out["ns"].items():
        cells = ", ".join(f"{kind} {ns:.1f}" for kind, ns in by_kind.items())
        print(f"  {spec}: {cells} ns a decision")
    if out["same_cards"] is not None:
        print("same cards played by every bot" if out["same_cards"] else "the bots' cards differ")


if __name__ == "__main__":
    main()
