"""Run a tournament: game indices in chunks on a process pool, Parquet parts, a manifest.

A chunk is a pure function of (rules, strategies, run seed, game range), so the datasets
are identical for any number of workers and any chunk size. The compiled code is
compiled (or loaded from the cache) once in the parent before the pool starts; workers
load it from the on-disk cache.
"""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from hsim import _jit
from hsim.engine.layout import (
    D_AFTER_END,
    D_MOON,
    D_POINTS,
    D_SEAT,
    G_PLACE,
    G_SCORING,
    G_SEAT,
    G_WINNER,
)
from hsim.errors import HsimError
from hsim.loader import LoadedStrategy, load_players
from hsim.play import play_range
from hsim.rng import SEED_SCHEME
from hsim.rules import Rules, canonical, preset_of
from hsim.runner.manifest import MANIFEST, now, versions, write_manifest
from hsim.runner.sink import (
    SCHEMA_VERSION,
    deals_table,
    games_table,
    remove_temporary,
    write_parts,
)
from hsim.runner.validate import recorded_players, validate, without_home
from hsim.seating import player_of, rotate
from hsim.strategy import StrategyError

GAMES_PER_WORKER = 20_000
# Per seat: points, deals, wins, moons, games, sum of places.
SUMMARY_COLS = 6


class RunError(HsimError):
    """The run could not start or did not finish; the message says why and what to do."""


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """What to play. games: how many; seed: the run seed; first_game: index of the first.

    players: one spec per seat (``NAME`` or ``NAME(key=value,...)``). duplicate: play each
    game index as a board, once per rotation of the players over the seats (so ``games``
    boards make ``4 * games`` games). score_also: other scorings (full rule sets differing
    from ``rules`` in scoring options only) each game is also followed under.
    rules_preset: the preset the canonical rules string is written against (default: the
    preset the rules differ least from, e.g. ``kierki3`` for 3-player Kierki rules).
    """

    rules: Rules
    players: tuple[str, ...]
    games: int
    seed: int
    first_game: int = 0
    rules_preset: str | None = None
    chunk_size: int | None = None
    duplicate: bool = False
    score_also: tuple[Rules, ...] = ()

    def __post_init__(self) -> None:
        if self.rules_preset is None:
            object.__setattr__(self, "rules_preset", preset_of(self.rules))

    @property
    def rotations(self) -> int:
        """Games played per index: one per rotation of the players (4, or 3 in 3-player
        Kierki) in duplicate play, else 1.
        """
        return self.rules.players if self.duplicate else 1

    def scoring_names(self) -> tuple[str, ...]:
        """Return ``base`` and the canonical rules string of each other scoring."""
        return ("base", *(canonical(r, self.rules_preset) for r in self.score_also))

    def chunks(self, workers: int) -> list[tuple[int, int]]:
        """Return the (start, stop) ranges of game (duplicate: board) indices, in order."""
        largest = 2000 // self.rotations
        size = self.chunk_size or max(1, min(largest, math.ceil(self.games / (workers * 8))))
        stop = self.first_game + self.games
        return [(a, min(a + size, stop)) for a in range(self.first_game, stop, size)]


@dataclasses.dataclass
class RunResult:
    """What a finished (or stopped) run produced."""

    run_dir: Path
    status: str  # complete, failed, interrupted
    games_done: int
    elapsed_s: float
    compile_s: float
    compiled: bool  # True when some compiled code was not in the cache
    summary: list[dict[str, Any]]
    error: str | None = None
    seed: int = 0


_WORKER_PLAYERS: dict[tuple, list[LoadedStrategy]] = {}


def _init_worker() -> None:
    # The parent handles Ctrl-C: it lets running chunks finish, then stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_chunk(
    rules: Rules,
    specs: tuple[str, ...],
    seed: int,
    start: int,
    stop: int,
    run_dir: str,
    duplicate: bool = False,
    score_also: tuple[Rules, ...] = (),
    scoring_names: tuple[str, ...] = ("base",),
) -> np.ndarray:
    """Play games (or, with ``duplicate``, boards) ``start..stop-1``, write their parts,
    return the per-player summary sums.

    A duplicate board is played once per rotation of the players over the seats; the
    deals depend only on (seed, board), so every rotation gets the same hands.
    Returns int64[n seats, SUMMARY_COLS]. :raises StrategyError: see
    :func:`hsim.play.play_range`.
    """
    key = (rules, specs)
    players = _WORKER_PLAYERS.get(key)
    if players is None:
        players = _WORKER_PLAYERS[key] = load_players(list(specs), rules)
    names = list(specs)
    n = rules.players
    deal_tables, game_tables = [], []
    out = np.zeros((n, SUMMARY_COLS), np.int64)
    for rotation in range(n if duplicate else 1):
        deals, games = play_range(rules, rotate(players, rotation), seed, start, stop, score_also)
        deal_tables.append(deals_table(deals, names, rotation, duplicate))
        game_tables.append(games_table(games, names, rotation, duplicate, list(scoring_names)))
        deals = deals[deals[:, D_AFTER_END] == 0]  # the summary is the base game's
        games = games[games[:, G_SCORING] == 0]
        d_player = player_of(deals[:, D_SEAT], rotation, n)
        g_player = player_of(games[:, G_SEAT], rotation, n)
        out += np.stack(
            (
                np.bincount(d_player, deals[:, D_POINTS], n),
                np.bincount(d_player, None, n),
                np.bincount(g_player, games[:, G_WINNER], n),
                np.bincount(d_player, deals[:, D_MOON], n),
                np.bincount(g_player, None, n),
                np.bincount(g_player, games[:, G_PLACE], n),
            ),
            axis=1,
        ).astype(np.int64)
    write_parts(
        Path(run_dir),
        start,
        {"deals": _sorted(deal_tables), "games": _sorted(game_tables)},
    )
    return out


def _sorted(tables: list[pa.Table]) -> pa.Table:
    # Each table is sorted and holds whole games, so a stable sort on the game suffices.
    table = pa.concat_tables(tables)
    return table if len(tables) == 1 else table.sort_by([("game", "ascending")])


def _prepare_folder(run_dir: Path, overwrite: bool) -> None:
    if run_dir.exists():
        if not overwrite:
            raise RunError(
                f"output folder {run_dir} already exists; choose another --out or pass "
                "--overwrite to replace it"
            )
        if not run_dir.is_dir():
            raise RunError(f"--out {run_dir} is a file, not a folder")
        if any(run_dir.iterdir()) and not (run_dir / MANIFEST).exists():
            raise RunError(
                f"--overwrite refused: {run_dir} is not empty and holds no {MANIFEST}, so it "
                "is not an hsim run folder; choose another --out"
            )
        shutil.rmtree(run_dir)
    for dataset in ("deals", "games"):
        (run_dir / dataset).mkdir(parents=True, exist_ok=True)


def _summary(sums: np.ndarray, specs: tuple[str, ...]) -> list[dict[str, Any]]:
    rows = []
    for s in range(len(specs)):
        points, deals, wins, moons, games, places = (int(x) for x in sums[s])
        rows.append(
            {
                "seat": s,
                "strategy": specs[s],
                "deals": deals,
                "games": games,
                "mean_points_per_deal": points / deals if deals else float("nan"),
                "win_rate": wins / games if games else float("nan"),
                "mean_place": places / games if games else float("nan"),
                "moons": moons,
            }
        )
    return rows


class _Stop(Exception):
    """SIGTERM, turned into an orderly stop like Ctrl-C."""


def _raise_stop(signum, frame):
    raise _Stop()


def run_tournament(
    config: RunConfig,
    run_dir: Path,
    workers: int = 1,
    overwrite: bool = False,
    progress: bool = True,
    argv: list[str] | None = None,
    started: float | None = None,
) -> RunResult:
    """Play ``config`` into ``run_dir`` and return what was done.

    workers: processes (1 plays in this process). started: ``time.perf_counter()`` taken
    before hsim's compiled code was imported, to report the compile/load time.

    :raises RunError: the folder exists (without ``overwrite``), or a strategy failed;
        the manifest then says ``failed``. An interrupted run (Ctrl-C, SIGTERM) returns
        with status ``interrupted``. Parts already written stay readable either way.
    :raises StrategyError: a player spec is invalid (nothing is written).
    """
    t0 = started if started is not None else time.perf_counter()
    players = validate(config, workers)  # every setting, before the disk is touched
    play_range(config.rules, players, config.seed, config.first_game, config.first_game + 1)
    compile_s = time.perf_counter() - t0
    _WORKER_PLAYERS[(config.rules, config.players)] = players

    run_dir = Path(run_dir)
    _prepare_folder(run_dir, overwrite)
    chunks = config.chunks(workers)
    manifest: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "seed_scheme": SEED_SCHEME,
        "status": "running",
        "command": without_home(" ".join(argv)) if argv else None,
        "argv": without_home(argv),
        "rules": {
            "string": canonical(config.rules, config.rules_preset),
            "preset": config.rules_preset,
            "options": config.rules.to_dict(),
        },
        "players": recorded_players(players, run_dir),
        "seed": config.seed,
        "first_game": config.first_game,
        "games": config.games,
        "duplicate": config.duplicate,
        "score_also": list(config.scoring_names()[1:]),
        "workers": workers,
        "chunk_size": chunks[0][1] - chunks[0][0] if chunks else 0,
        "versions": versions(),
        "compile_s": round(compile_s, 3),
        "numba_cache": without_home(_jit.CACHE_DIR),
        "started": now(),
    }
    write_manifest(run_dir, manifest)

    sums = np.zeros((config.rules.players, SUMMARY_COLS), np.int64)
    done_ranges: list[tuple[int, int]] = []
    status, error = "complete", None
    per = config.rotations
    bar = _progress_bar(config.games * per, progress)
    t_run = time.perf_counter()
    old_term = signal.signal(signal.SIGTERM, _raise_stop)
    executor = None
    try:
        args = (config.rules, config.players, config.seed)
        extra = (config.score_also, config.scoring_names())
        if workers <= 1:
            for start, stop in chunks:
                sums += run_chunk(*args, start, stop, str(run_dir), config.duplicate, *extra)
                done_ranges.append((start, stop))
                bar.update((stop - start) * per)
        else:
            executor = ProcessPoolExecutor(
                workers, mp_context=get_context("spawn"), initializer=_init_worker
            )
            pending = {
                executor.submit(run_chunk, *args, a, b, str(run_dir), config.duplicate, *extra): (
                    a,
                    b,
                )
                for a, b in chunks
            }
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    a, b = pending.pop(fut)
                    sums += fut.result()
                    done_ranges.append((a, b))
                    bar.update((b - a) * per)
    except (KeyboardInterrupt, _Stop):
        status = "interrupted"
    except StrategyError as exc:
        status, error = "failed", str(exc)
    except Exception as exc:  # a worker died, the disk is full, ...
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    finally:
        if executor is not None:
            if status != "complete":
                _drain(executor, pending, sums, done_ranges)
            executor.shutdown(wait=True, cancel_futures=True)
        signal.signal(signal.SIGTERM, old_term)
        bar.close()
        remove_temporary(run_dir)
        elapsed = time.perf_counter() - t_run
        games_done = sum(b - a for a, b in done_ranges) * per
        manifest.update(
            {
                "status": status,
                "finished": now(),
                "elapsed_s": round(elapsed, 3),
                "games_done": games_done,
                "completed_ranges": _merge(done_ranges),
            }
        )
        if error:
            manifest["error"] = error
        write_manifest(run_dir, manifest)
    result = RunResult(
        run_dir,
        status,
        games_done,
        elapsed,
        compile_s,
        _compiled(players),
        _summary(sums, config.players),
        error,
        config.seed,
    )
    if status == "failed":
        raise RunError(f"run failed: {error}\n(parts written so far are kept in {run_dir})")
    return result


def _compiled(players: list[LoadedStrategy]) -> bool:
    from hsim.engine.game import play_games

    bundles = [p.compiled for p in players if p.compiled is not None]
    fns = [f for b in bundles for f in (b.pass_cards, b.play, b.moon_choice)]
    return _jit.compiled_here(play_games, *fns)


def _drain(executor, pending, sums, done_ranges) -> None:
    """Cancel chunks not started; wait for running ones and keep what they wrote."""
    for fut in pending:
        fut.cancel()
    for fut, (a, b) in pending.items():
        if fut.cancelled():
            continue
        try:
            sums += fut.result()
            done_ranges.append((a, b))
        except BaseException:  # noqa: BLE001 - the run is already stopping
            pass


def _merge(ranges: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for a, b in sorted(ranges):
        if out and out[-1][1] == a:
            out[-1][1] = b
        else:
            out.append([a, b])
    return out


def _progress_bar(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit="game",
        unit_scale=True,
        disable=not enabled,
        file=sys.stderr,
        dynamic_ncols=True,
        smoothing=0.05,
    )


def default_workers(games: int | None = None) -> int:
    """Return the default worker count: the CPUs this process may use, but no more than
    one per ``GAMES_PER_WORKER`` games (a worker takes ~1.5 s to start and load the code).
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    if games is None:
        return cpus
    return max(1, min(cpus, games // GAMES_PER_WORKER))
