"""Engine speed: random-play Hearts deals per second on one core, hsim against OpenSpiel.

Usage::

    python scripts/bench_engine.py [--deals N] [--seconds S] [--repeat K] [--chunk G] [--json]

Both engines run in this one process, one after the other (never in parallel), so each
figure is deals per second on one core. The repeats are interleaved (OpenSpiel, hsim,
OpenSpiel, hsim, ...) so that drift in the machine's speed hits both alike, and each
figure is the best of ``--repeat`` repeats. Every repeat plays until it has done at
least ``--deals`` deals *and* run for at least ``--seconds`` seconds.

What each side measures
-----------------------

OpenSpiel (the reference)
    ``pyspiel.load_game("hearts")`` with its default parameters (``pass_cards=true``,
    ``must_break_hearts=true``, ``no_pts_on_first_trick=true``, ``qs_breaks_hearts=true``,
    no J-of-diamonds bonus). One deal is one OpenSpiel game: a fresh
    ``game.new_initial_state()`` played to the end by
    ``pyspiel.evaluate_bots(state, bots, seed)`` with four
    ``pyspiel.make_uniform_random_bot(player, seed)`` bots (C++ bots; the whole deal runs
    in C++, one Python call per deal). ``evaluate_bots`` resolves the chance nodes itself
    from its own ``std::mt19937`` seeded by ``seed``: first the pass direction (No Pass,
    Left, Across, Right, each with probability 1/4), then the 52 dealt cards one by one.
    So one deal in four, at random, has no pass; a passing deal is 12 pass actions (three
    cards a player, one at a time) and 52 plays. The result is only the final utilities.

hsim
    ``hsim.play.games.play_range(Rules(), load_players(["random"] * 4), seed, first, stop)``:
    whole games under the classic rules (end at 100 points), the compiled loop with the
    built-in ``random`` strategy (a uniformly random legal card; a uniformly random
    three-card pass). Passing follows the fixed cycle left, right, across, hold, so one
    deal in four (every fourth deal of a game) has no pass -- the same share as
    OpenSpiel's, by rotation instead of by chance. The time includes everything
    ``play_range`` does: dealing, passing, play, scoring, the moon check, the game-end
    check, and writing one int64 record row per seat per deal (and per game), copied
    into the arrays it returns. Deals = ``len(deal_rows) // 4``. The games are played in
    calls of ``--chunk`` games (default 2000, the tournament runner's largest chunk),
    one call after another over consecutive game indices, as the runner's workers do.
    One small call before timing loads (or compiles) the numba code; it is not timed.

The machine should be otherwise idle: each repeat also reads /proc/stat and says when
other processes used CPU meanwhile (``other_cpu_s`` in ``--json``), since on a small
machine that skews the figures.

The rule sets are close but not identical (OpenSpiel's default lets the queen of spades
break hearts; hsim's classic does not), which changes no deal's length: every deal is
13 tricks on both sides.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

N_SEATS = 4


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit() -> str:
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+modified" if dirty.strip() else "")


def machine_busy_s() -> float | None:
    """CPU seconds all processes on this machine have used since boot (/proc/stat)."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    ticks = [int(x) for x in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class OtherLoad:
    """CPU seconds used by *other* processes while the ``with`` block ran (None: unknown).

    A benchmark on a 2-core machine is only meaningful if nothing else was running;
    this is how the scripts notice that something was.
    """

    def __enter__(self) -> OtherLoad:
        self.busy0, self.own0 = machine_busy_s(), self._own()
        self.other_s: float | None = None
        return self

    @staticmethod
    def _own() -> float:
        import resource

        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + ru.ru_utime + ru.ru_stime

    def __exit__(self, *exc) -> None:
        busy1 = machine_busy_s()
        if self.busy0 is not None and busy1 is not None:
            self.other_s = max(0.0, (busy1 - self.busy0) - (self._own() - self.own0))


def environment() -> dict[str, str]:
    """Versions and machine, for the report."""
    return {
        "hsim": _version("hsim"),
        "hsim_commit": _git_commit(),
        "numba": _version("numba"),
        "numpy": _version("numpy"),
        "open_spiel": _version("open_spiel"),
        "python": platform.python_version(),
        "cpu": _cpu_model(),
        "cpus": str(os.cpu_count()),
    }


class OpenSpielBench:
    """Complete OpenSpiel Hearts deals with uniform-random bots via ``evaluate_bots``."""

    def __init__(self) -> None:
        import pyspiel

        self.pyspiel = pyspiel
        self.game = pyspiel.load_game("hearts")
        self.params = dict(self.game.get_parameters())
        self.next_seed = 0
        self.runs = 0

    def run(self, min_deals: int, min_seconds: float) -> tuple[int, float]:
        """Play deals until both minimums are met; return (deals, seconds)."""
        pyspiel = self.pyspiel
        game = self.game
        base = self.next_seed
        self.runs += 1
        bots = [pyspiel.make_uniform_random_bot(p, 1000 * self.runs + p) for p in range(N_SEATS)]
        evaluate_bots = pyspiel.evaluate_bots
        new_state = game.new_initial_state
        clock = time.perf_counter
        deals = 0
        start = clock()
        while True:
            state = new_state()
            evaluate_bots(state, bots, (base + deals) & 0x7FFFFFFF)
            deals += 1
            if deals >= min_deals and (deals & 63) == 0 and clock() - start >= min_seconds:
                break
        seconds = clock() - start
        if not state.is_terminal():
            raise RuntimeError("evaluate_bots returned before the deal was over")
        self.next_seed = base + deals
        return deals, seconds


class HsimBench:
    """Whole classic games of four ``random`` seats via ``hsim.play.games.play_range``."""

    def __init__(self, chunk: int, seed: int = 1) -> None:
        t0 = time.perf_counter()
        from hsim.model.rules import Rules
        from hsim.play.games import play_range
        from hsim.strategy.loader import load_players

        self.play_range = play_range
        self.rules = Rules()
        self.players = load_players(["random"] * N_SEATS)
        self.seed = seed
        self.chunk = chunk
        play_range(self.rules, self.players, seed, 0, 10)  # load or compile the numba code
        self.warmup_s = time.perf_counter() - t0
        self.next_game = 10

    def run(self, min_deals: int, min_seconds: float) -> tuple[int, float, int]:
        """Play chunks of games until both minimums are met; return (deals, seconds, games)."""
        play_range, rules, players, seed = self.play_range, self.rules, self.players, self.seed
        clock = time.perf_counter
        game = self.next_game
        first = game
        deals = 0
        start = clock()
        while True:
            deal_rows, _ = play_range(rules, players, seed, game, game + self.chunk)
            deals += len(deal_rows) // N_SEATS
            game += self.chunk
            if deals >= min_deals and clock() - start >= min_seconds:
                break
        seconds = clock() - start
        self.next_game = game
        return deals, seconds, game - first


def _other(other_s: float | None, seconds: float) -> str:
    if other_s is None or other_s < 0.05 * seconds:
        return ""
    return f"  [other processes used {other_s:.1f} cpu-s meanwhile]"


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--deals",
        type=int,
        default=20_000,
        help="at least this many deals per repeat and engine (default 20000)",
    )
    ap.add_argument(
        "--seconds",
        type=float,
        default=2.0,
        help="at least this many seconds per repeat and engine (default 2)",
    )
    ap.add_argument(
        "--repeat", type=int, default=3, help="repeats per engine; the best is reported (default 3)"
    )
    ap.add_argument(
        "--chunk", type=int, default=2000, help="hsim games per play_range call (default 2000)"
    )
    ap.add_argument(
        "--only",
        choices=("both", "openspiel", "hsim"),
        default="both",
        help="run one side only (no ratio then)",
    )
    ap.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on stdout instead of the text report",
    )
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.deals < 1 or args.chunk < 1 or args.seconds < 0:
        ap.error("--repeat, --deals and --chunk must be at least 1, --seconds at least 0")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr if args.json else sys.stdout, flush=True)

    env = environment()
    command = (
        " ".join(["python", "scripts/bench_engine.py", *sys.argv[1:]])
        if argv is None
        else " ".join(["bench_engine", *argv])
    )
    log(f"command: {command}")
    log("versions: " + ", ".join(f"{k} {v}" for k, v in env.items()))

    os_bench = OpenSpielBench() if args.only in ("both", "openspiel") else None
    hs_bench = HsimBench(args.chunk) if args.only in ("both", "hsim") else None
    if os_bench:
        os_bench.run(200, 0.0)  # first-call effects out of the timing
        log(
            "openspiel hearts parameters: "
            + ", ".join(f"{k}={v}" for k, v in sorted(os_bench.params.items()))
        )
    if hs_bench:
        log(
            f"hsim warm-up (import, numba cache load or compile, 10 games): "
            f"{hs_bench.warmup_s:.2f} s"
        )

    os_runs, hs_runs = [], []
    for k in range(args.repeat):
        if os_bench:
            with OtherLoad() as load:
                deals, secs = os_bench.run(args.deals, args.seconds)
            os_runs.append(
                {
                    "deals": deals,
                    "seconds": secs,
                    "deals_per_s": deals / secs,
                    "other_cpu_s": load.other_s,
                }
            )
            log(
                f"  repeat {k + 1}: openspiel {deals:>9,} deals in {secs:6.2f} s = "
                f"{deals / secs:>12,.0f} deals/s{_other(load.other_s, secs)}"
            )
        if hs_bench:
            with OtherLoad() as load:
                deals, secs, games = hs_bench.run(args.deals, args.seconds)
            hs_runs.append(
                {
                    "deals": deals,
                    "games": games,
                    "seconds": secs,
                    "deals_per_s": deals / secs,
                    "games_per_s": games / secs,
                    "other_cpu_s": load.other_s,
                }
            )
            log(
                f"  repeat {k + 1}: hsim      {deals:>9,} deals in {secs:6.2f} s = "
                f"{deals / secs:>12,.0f} deals/s ({games:,} games, {games / secs:,.0f} games/s)"
                f"{_other(load.other_s, secs)}"
            )

    result: dict = {
        "command": command,
        "environment": env,
        "repeat": args.repeat,
        "min_deals": args.deals,
        "min_seconds": args.seconds,
        "hsim_chunk_games": args.chunk,
    }
    best_os = max(os_runs, key=lambda r: r["deals_per_s"]) if os_runs else None
    best_hs = max(hs_runs, key=lambda r: r["deals_per_s"]) if hs_runs else None
    if best_os:
        result["openspiel"] = {
            "best_deals_per_s": best_os["deals_per_s"],
            "runs": os_runs,
            "parameters": {k: str(v) for k, v in os_bench.params.items()},
        }
    if best_hs:
        result["hsim"] = {
            "best_deals_per_s": best_hs["deals_per_s"],
            "best_games_per_s": best_hs["games_per_s"],
            "deals_per_game": best_hs["deals"] / best_hs["games"],
            "warmup_s": hs_bench.warmup_s,
            "runs": hs_runs,
        }
    log(f"best of {args.repeat} (one core each, same process, interleaved):")
    if best_os:
        log(f"  OpenSpiel evaluate_bots, uniform random: {best_os['deals_per_s']:>12,.0f} deals/s")
    if best_hs:
        log(
            f"  hsim play_range, random x4:              {best_hs['deals_per_s']:>12,.0f} deals/s"
            f"  ({best_hs['games_per_s']:,.0f} games/s, "
            f"{best_hs['deals'] / best_hs['games']:.2f} deals/game)"
        )
    if best_os and best_hs:
        ratio = best_hs["deals_per_s"] / best_os["deals_per_s"]
        result["ratio_hsim_over_openspiel"] = ratio
        log(f"  ratio hsim / OpenSpiel: {ratio:.1f}x (target >= 10x)")
    if args.json:
        print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
