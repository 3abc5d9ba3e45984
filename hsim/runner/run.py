"""Run a tournament: game indices in chunks on a process pool, Parquet parts, a manifest.

A chunk is a pure function of (rules, strategies, run seed, game range), so the datasets
are identical for any number of workers and any chunk size. The compiled code is
compiled (or loaded from the cache) once in the parent before the pool starts; workers
load it from the on-disk cache.

A run owns its folder (:mod:`hsim.runner.lock`) from before its first write; each
finished chunk goes into the journal with its parts' row counts and checksums
(:mod:`hsim.runner.manifest`), so a run stopped at any moment, even by SIGKILL, can be
continued by :func:`hsim.runner.resume.resume_run` into the same datasets as a run that
was never stopped. SIGINT and SIGTERM stop a run within a second or two, blocked
strategy or not, with status ``interrupted``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from hsim import _jit
from hsim.errors import HsimError
from hsim.loader import LoadedStrategy, load_players
from hsim.play import DecisionTimeoutError, play_range
from hsim.rng import SEED_SCHEME
from hsim.rules import Rules, canonical, preset_of
from hsim.runner import hooks
from hsim.runner.columns import ALL_DATASETS, DEFAULT_RECORD, RECORD_DATASETS
from hsim.runner.lock import FolderError, FolderLock, claim_new
from hsim.runner.manifest import (
    JOURNAL,
    SETTINGS_DIGEST,
    append_journal,
    now,
    recorded_parts,
    seal_entry,
    settings_digest,
    versions,
    write_manifest,
)
from hsim.runner.narrow import SUMMARY_COLS, add_chunk_sums
from hsim.runner.pool import (
    DEFAULT_RETRIES,
    WorkerLost,
    fork_is_safe,
    process_pool,
    run_chunks,
    stop_executor,
)
from hsim.runner.signals import EXIT_CODES, StopSignals
from hsim.runner.sink import (
    SCHEMA_VERSION,
    datasets_of,
    deals_table,
    encode_part,
    games_table,
    part_digits,
    plays_table,
    remove_temporary,
    remove_unlisted,
    write_parts,
)
from hsim.runner.validate import (
    MAX_PLAYS_CHUNK_SIZE,
    recorded_players,
    validate,
    without_home,
)
from hsim.seating import rotate
from hsim.stop import StopRequested
from hsim.strategy import StrategyError

if TYPE_CHECKING:
    from hsim.runner.cluster import DaskCluster

GAMES_PER_WORKER = 20_000
#: Largest default chunk (games) on the local pool.
LOCAL_CHUNK = 2_000
#: Largest default chunk (games) on a Dask cluster, where a task costs milliseconds: 10,000
#: random games play ~1 s.
CLUSTER_CHUNK = 10_000
DEFAULT_DECISION_TIMEOUT = 60.0


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
    decision_timeout: seconds a plain-Python strategy may take per decision (None or 0:
    no limit); it does not change results. labels: each seat's name in the datasets'
    ``strategy`` column and the summary (default: ``players``, the specs as the user gave
    them). A run keeps its labels when its specs are rewritten to load the same files from
    elsewhere (a cluster's absolute paths; a resume's paths relative to the run folder), so
    every part of a run names its strategies alike. record: the datasets written
    (``--record``): ``games`` (games only), ``deals`` (deals and games, the default) or
    ``plays`` (deals, games and one row per card played).
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
    decision_timeout: float | None = DEFAULT_DECISION_TIMEOUT
    labels: tuple[str, ...] | None = None
    record: str = DEFAULT_RECORD

    def __post_init__(self) -> None:
        if self.rules_preset is None:
            object.__setattr__(self, "rules_preset", preset_of(self.rules))

    @property
    def names(self) -> tuple[str, ...]:
        """Each seat's label: ``labels``, or the ``players`` specs when it is None."""
        return self.players if self.labels is None else self.labels

    @property
    def rotations(self) -> int:
        """Games played per index: one per rotation of the players (4, or 3 in 3-player
        Kierki) in duplicate play, else 1.
        """
        return self.rules.players if self.duplicate else 1

    def scoring_names(self) -> tuple[str, ...]:
        """Return ``base`` and the canonical rules string of each other scoring."""
        return ("base", *(canonical(r, self.rules_preset) for r in self.score_also))

    @property
    def datasets(self) -> tuple[str, ...]:
        """The datasets this run writes (:data:`hsim.runner.columns.RECORD_DATASETS`)."""
        return RECORD_DATASETS[self.record]

    @property
    def stop(self) -> int:
        """One past the last game (duplicate: board) index."""
        return self.first_game + self.games

    def size_for(self, workers: int, most_games: int = LOCAL_CHUNK) -> int:
        """Return the games (duplicate: boards) per chunk for ``workers`` workers: about
        8 chunks per worker, of at most ``most_games`` games (``chunk_size`` if set).
        """
        if self.record == "plays":  # a row per card held per chunk: keep workers small
            most_games = min(most_games, MAX_PLAYS_CHUNK_SIZE)
        largest = most_games // self.rotations
        return self.chunk_size or max(1, min(largest, math.ceil(self.games / (workers * 8))))

    def ranges(self, size: int, done: set[int] | dict = frozenset()) -> Iterator[tuple[int, int]]:
        """Yield the (start, stop) chunks of ``size`` indices, in order, lazily, skipping
        those whose start is in ``done``. Chunk k is ``first_game + k * size ..``.
        """
        stop = self.stop
        for a in range(self.first_game, stop, size):
            if a not in done:
                yield a, min(a + size, stop)

    def chunks(self, workers: int) -> list[tuple[int, int]]:
        """Return every (start, stop) chunk as a list (small runs only: see :meth:`ranges`)."""
        return list(self.ranges(self.size_for(workers)))


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
    signum: int | None = None  # the signal that interrupted the run
    games_played: int = 0  # games played by this call (a resume: the missing ones)
    removed: tuple[str, ...] = ()  # files a resume deleted from the datasets (not parts)

    @property
    def exit_code(self) -> int:
        """130 after SIGINT, 143 after SIGTERM, 1 when failed, else 0."""
        if self.status == "interrupted":
            return EXIT_CODES.get(self.signum or signal.SIGINT, 130)
        return 1 if self.status == "failed" else 0


_WORKER_PLAYERS: dict[tuple, list[LoadedStrategy]] = {}


def worker_players(rules: Rules, specs: tuple[str, ...]) -> list[LoadedStrategy]:
    """Return the players of ``specs``, loaded once per process (pool or Dask worker) and
    kept for every later chunk, so compiled code is loaded or compiled once per process.

    :raises StrategyError: see :func:`hsim.loader.load_players`.
    """
    key = (rules, specs)
    players = _WORKER_PLAYERS.get(key)
    if players is None:
        players = _WORKER_PLAYERS[key] = load_players(list(specs), rules)
    return players


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
    digits: int = 12,
    decision_timeout: float | None = None,
    responsive: bool = False,
    labels: tuple[str, ...] | None = None,
    record: str = DEFAULT_RECORD,
    schema_version: int = SCHEMA_VERSION,
) -> tuple[np.ndarray, dict[str, dict]]:
    """Play games (or, with ``duplicate``, boards) ``start..stop-1``, write their parts,
    return (the per-player summary sums, the parts' row counts and checksums).

    A duplicate board is played once per rotation of the players over the seats; the
    deals depend only on (seed, board), so every rotation gets the same hands.
    labels: each player's name in the parts' ``strategy`` column (default: ``specs``; see
    :class:`RunConfig`). record: the datasets to write (:class:`RunConfig`).
    schema_version: the run's (4 for a run started by an older hsim: its strings stay
    plain). Sums: int64[n seats, SUMMARY_COLS]; parts: see
    :func:`hsim.runner.sink.write_parts`.
    :raises StrategyError: see :func:`hsim.play.play_range`.
    """
    players = worker_players(rules, specs)
    names = list(labels if labels is not None else specs)
    n = rules.players
    datasets = RECORD_DATASETS[record]
    tables: dict[str, list[pa.Table]] = {d: [] for d in datasets}
    out = np.zeros((n, SUMMARY_COLS), np.int64)
    for rotation in range(n if duplicate else 1):
        deals, games = play_range(
            rules,
            rotate(players, rotation),
            seed,
            start,
            stop,
            score_also,
            decision_timeout,
            responsive,
            plays=record == "plays",
            reuse=True,
        )
        # The rows may be views of buffers the next play_range reuses: every table
        # copies what it takes (strided columns), before the next rotation is played.
        played = rotation_tables(deals, games, names, rotation, duplicate, scoring_names, datasets)
        for dataset, table in played.items():
            tables[dataset].append(table)
        add_chunk_sums(deals, games, rotation, out)
    hooks.pause("chunk", start)
    parts = write_parts(
        Path(run_dir),
        start,
        {d: _sorted(tables[d]) for d in datasets},
        digits,
        schema_version,
    )
    return out, parts


def rotation_tables(
    deals: np.ndarray,
    games: np.ndarray,
    names: list[str],
    rotation: int,
    duplicate: bool,
    scoring_names: tuple[str, ...],
    datasets: tuple[str, ...],
) -> dict[str, pa.Table]:
    """Return the Arrow table of each of ``datasets`` for the rows one
    :func:`hsim.play.play_range` call returned (players rotated by ``rotation``); each
    table copies what it takes from the rows."""
    builders = {
        "deals": lambda: deals_table(deals, names, rotation, duplicate),
        "plays": lambda: plays_table(deals, names, rotation, duplicate),
        "games": lambda: games_table(games, names, rotation, duplicate, list(scoring_names)),
    }
    return {dataset: builders[dataset]() for dataset in datasets}


@dataclasses.dataclass(frozen=True)
class ChunkTask:
    """One run's chunk job, ``task(start, stop)`` -> :func:`run_chunk`'s result: a
    picklable callable for any executor (the fixed settings travel once per chunk).
    """

    rules: Rules
    specs: tuple[str, ...]
    seed: int
    run_dir: str
    duplicate: bool
    score_also: tuple[Rules, ...]
    scoring_names: tuple[str, ...]
    digits: int
    decision_timeout: float | None
    responsive: bool = False  # played in the run's main process: see play_range
    labels: tuple[str, ...] | None = None  # the datasets' strategy names (None: specs)
    record: str = DEFAULT_RECORD  # the datasets written (RunConfig.record)
    schema_version: int = SCHEMA_VERSION  # the run's (4: strings written plain)

    @classmethod
    def of(
        cls,
        config: RunConfig,
        run_dir: Path,
        responsive: bool = False,
        schema_version: int = SCHEMA_VERSION,
    ) -> ChunkTask:
        """Return the task of ``config`` writing into ``run_dir`` (a run of
        ``schema_version``)."""
        return cls(
            config.rules,
            config.players,
            config.seed,
            str(run_dir),
            config.duplicate,
            config.score_also,
            config.scoring_names(),
            part_digits(config.stop * config.rotations - 1),
            config.decision_timeout or None,
            responsive,
            config.names,
            config.record,
            schema_version,
        )

    def __call__(self, start: int, stop: int) -> tuple[np.ndarray, dict[str, dict]]:
        return run_chunk(
            self.rules,
            self.specs,
            self.seed,
            start,
            stop,
            self.run_dir,
            self.duplicate,
            self.score_also,
            self.scoring_names,
            self.digits,
            self.decision_timeout,
            self.responsive,
            self.labels,
            self.record,
            self.schema_version,
        )


def _sorted(tables: list[pa.Table]) -> pa.Table:
    # Each table is sorted and holds whole games, so a stable sort on the game suffices.
    table = pa.concat_tables(tables)
    return table if len(tables) == 1 else table.sort_by([("game", "ascending")])


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


def check_config(
    config: RunConfig, workers: int = 1, pool: list | None = None
) -> list[LoadedStrategy]:
    """Check ``config`` before any folder is touched; return the loaded players.

    Every setting (:func:`hsim.runner.validate.validate`), then the first game is played
    (compiling or loading the code once, in this process) and its rows are encoded as
    parts in memory, so that a bad spec or a strategy failing at once writes nothing.
    pool: a list to append the run's process pool to, started (:func:`start_pool`): a
    spawned pool after the settings are checked and before the first game, so that its
    workers start while this process plays it; a forked one after the first game, so
    that its workers inherit the code it loaded.

    :raises ConfigError: a setting out of its range. :raises RulesError: bad rules.
    :raises StrategyError: a player spec is invalid, or the first game fails.
    """
    players = validate(config, workers)  # every setting, before the disk is touched
    fork = forks_workers(players)
    if pool is not None and not fork:  # spawned workers start while this plays a game
        started = start_pool(config, workers)
        if started is not None:
            pool.append(started)
    try:
        deals, games = play_range(
            config.rules,
            players,
            config.seed,
            config.first_game,
            config.first_game + 1,
            config.score_also,
            decision_timeout=config.decision_timeout or None,
            plays=config.record == "plays",
        )
        # Its rows encoded as parts, in memory: the output path checked too, and the
        # Parquet writer's first use (~30 ms) paid once here, not by each forked worker.
        datasets = RECORD_DATASETS[config.record]
        tables = rotation_tables(
            deals, games, list(config.names), 0, config.duplicate, config.scoring_names(), datasets
        )
        for dataset, table in tables.items():
            encode_part(dataset, table)
    except BaseException:
        for executor in pool or ():
            stop_executor(executor, kill=True)
        raise
    _WORKER_PLAYERS[(config.rules, config.players)] = players
    if pool is not None and fork and workers > 1:  # forked now: with the code just loaded
        pool.append(start_pool(config, workers, fork=True))
    return players


def forks_workers(players: list[LoadedStrategy]) -> bool:
    """Return whether the run's local workers are forked from this process (every player
    compiled, and :func:`hsim.runner.pool.fork_is_safe`), not spawned."""
    return all(p.kind != "python" for p in players) and fork_is_safe()


def start_pool(config: RunConfig, workers: int, fork: bool = False):
    """Return a process pool of ``workers`` workers already starting (each loads the
    players of ``config``), or None: one worker (the run plays in this process), or
    compiled code not yet in the cache (this process compiles it first, then the workers
    load it instead of each compiling it again). fork: fork them (:func:`forks_workers`),
    which needs no cache.
    """
    if workers <= 1 or (not fork and _jit.compile_plan(config.players)):
        return None
    warm = (worker_players, (config.rules, config.players))
    return process_pool(workers, warm=warm, fork=fork)


def run_tournament(
    config: RunConfig,
    run_dir: Path,
    workers: int = 1,
    overwrite: bool = False,
    progress: bool = True,
    argv: list[str] | None = None,
    started: float | None = None,
    retries: int = DEFAULT_RETRIES,
    cluster: DaskCluster | None = None,
) -> RunResult:
    """Play ``config`` into ``run_dir`` and return what was done.

    workers: processes (1 plays in this process). started: ``time.perf_counter()`` taken
    before hsim's compiled code was imported, to report the compile/load time. retries:
    times a chunk is played again when its worker dies (see
    :func:`hsim.runner.pool.run_chunks`). cluster: play the chunks as tasks on this Dask
    cluster instead (see :mod:`hsim.runner.cluster`); every worker is checked before the
    folder is touched, and ``workers`` only sizes nothing (the cluster's threads do).

    The folder is claimed (locked) before anything is written, and written in this
    order: ``run.json`` (status ``running``), then parts, each recorded in the journal
    once renamed into place, then ``run.json`` again with every part, its row count and
    checksum. SIGINT or SIGTERM stop the run (workers killed, status ``interrupted``,
    :attr:`RunResult.exit_code` 130 or 143); ``hsim resume`` continues it.

    :raises RunError: the folder cannot be used (exists without ``overwrite``, is owned
        by another run, lies inside a run folder…; nothing is changed), or the run
        failed (a strategy, a lost worker, the disk; ``run.json`` then says ``failed``).
        Parts already written stay readable either way.
    :raises StrategyError: a player spec is invalid (nothing is written).
    :raises StopRequested: SIGINT or SIGTERM before the run's manifest was written
        (nothing but an empty folder was written).
    :raises RunError: a cluster worker failed its start check (nothing is written).
    """
    t0 = started if started is not None else time.perf_counter()
    signals = StopSignals().install()
    lock: FolderLock | None = None
    if cluster is not None:
        from hsim.runner.cluster import absolute_specs

        config = dataclasses.replace(
            config, players=absolute_specs(config.players), labels=config.names
        )
    pool: list = []  # the process pool, started while this process plays the first game
    try:
        players = check_config(config, workers, None if cluster else pool)
        compile_s = time.perf_counter() - t0
        run_dir = Path(run_dir)
        cluster_info = None
        if cluster is not None:
            cluster_info = check_cluster(cluster, run_dir, players, config)
            workers = cluster_info["threads"]  # sizes the chunks
            if config.chunk_size is None:  # a Dask task costs ~10 ms: chunks of ~1 s of play
                size = config.size_for(workers, CLUSTER_CHUNK)
                config = dataclasses.replace(config, chunk_size=size)
        try:
            lock = claim_new(run_dir, overwrite)
        except FolderError as exc:
            raise RunError(str(exc)) from None
        hooks.pause("claimed")
        size = config.size_for(workers)
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
            "players": recorded_players(players, run_dir, config.names),
            "seed": config.seed,
            "first_game": config.first_game,
            "games": config.games,
            "duplicate": config.duplicate,
            "score_also": list(config.scoring_names()[1:]),
            "record": config.record,
            "workers": workers,
            "chunk_size": size,
            "decision_timeout": config.decision_timeout or None,
            "versions": versions(),
            "compile_s": round(compile_s, 3),
            "numba_cache": without_home(_jit.CACHE_DIR),
            "started": now(),
        }
        if cluster_info is not None:
            manifest["cluster"] = cluster_info
        manifest[SETTINGS_DIGEST] = settings_digest(manifest)  # once: never recomputed
        with signals.critical(raise_at_exit=False):  # play_chunks records a stop from here
            write_manifest(run_dir, manifest)
            for dataset in config.datasets:
                (run_dir / dataset).mkdir(exist_ok=True)
        return play_chunks(
            config,
            run_dir,
            manifest,
            players,
            {},
            workers,
            retries,
            progress,
            signals,
            compile_s,
            cluster,
            pool,
        )
    finally:
        for executor in pool:  # not handed to play_chunks: the run stopped before it
            stop_executor(executor, kill=True)
        if lock is not None:
            lock.release()
        signals.restore()


def check_cluster(cluster, run_dir: Path, players, config: RunConfig) -> dict[str, Any]:
    """Check every worker of ``cluster`` (:meth:`~hsim.runner.cluster.DaskCluster.
    check_workers`) before the folder is touched; return what ``run.json`` records of the
    cluster (``cluster``).

    The shared-folder probe goes where the run folder is (or its parent, made if missing,
    for a new run), so a failed check leaves nothing behind.

    :raises RunError: a worker failed a check (the message names it and the fix).
    """
    from hsim.runner.cluster import ClusterError

    run_dir = Path(run_dir).resolve()
    folder = run_dir if (run_dir / "run.json").is_file() else run_dir.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        checked = cluster.check_workers(
            folder, players, config.rules, config.seed, config.first_game
        )
        return {**cluster.describe(), "checked": checked}
    except ClusterError as exc:
        raise RunError(str(exc)) from None
    except OSError as exc:
        raise RunError(f"cannot create the folder {folder} for the run: {exc}") from None


def play_chunks(
    config: RunConfig,
    run_dir: Path,
    manifest: dict[str, Any],
    players: list[LoadedStrategy],
    done: dict[int, dict[str, Any]],
    workers: int,
    retries: int,
    progress: bool,
    signals: StopSignals,
    compile_s: float,
    cluster: DaskCluster | None = None,
    pool: list | None = None,
) -> RunResult:
    """Play every chunk of ``config`` whose start is not in ``done`` into the (claimed)
    folder ``run_dir``, then write its final ``run.json``; return what was done.

    done: journal entries of chunks already finished, by start (a resume's). Used by
    :func:`run_tournament` and :func:`hsim.runner.resume.resume_run`. cluster: play the
    chunks as Dask tasks (:func:`hsim.runner.pool.run_chunks` on its executor; a chunk
    whose workers Dask lost too often counts as a lost worker, played again up to
    ``retries`` times), with the workers connected on the progress bar. pool: a list
    holding a process pool already started for the run (:func:`start_pool`), which this
    call takes (empties) and uses first.

    :raises RunError: the run failed; ``run.json`` says ``failed`` with ``error`` and
        ``error_kind`` (``strategy``, ``decision_timeout``, ``worker``, ``disk``,
        ``other``).
    """
    size = int(manifest["chunk_size"])
    per = config.rotations
    sums = np.zeros((config.rules.players, SUMMARY_COLS), np.int64)
    for entry in done.values():
        sums += np.asarray(entry.get("sums") or 0, np.int64)
    done_before = sum(e["stop"] - e["start"] for e in done.values()) * per
    status, error, kind = "complete", None, None
    bar = None
    t_run = time.perf_counter()

    def record(chunk: tuple[int, int], result: tuple[np.ndarray, dict]) -> None:
        nonlocal sums
        part_sums, parts = result
        hooks.pause("recorded", chunk[0])
        entry = seal_entry(
            {"start": chunk[0], "stop": chunk[1], **parts, "sums": part_sums.tolist()}
        )
        with signals.critical():
            append_journal(run_dir, entry)
            done[chunk[0]] = entry
            sums = sums + part_sums
        bar.update((chunk[1] - chunk[0]) * per)
        if cluster is not None:
            bar.set_postfix_str(f"{cluster.workers_connected()} workers", refresh=False)

    def hard_stop(signum: int) -> None:
        # The main thread did not stop in time (inside a long compiled chunk): record the
        # stop from what is recorded; the process then exits (see StopSignals).
        recorded = recorded_parts(run_dir, manifest)
        games = _record_end(
            run_dir, manifest, recorded, per, "interrupted", time.perf_counter() - t_run
        )
        sys.stderr.write(
            f"\ninterrupted: {games:,} games are written; `hsim resume {run_dir}` plays the "
            "rest (run.json says interrupted)\n"
        )

    signals.hard_stop = hard_stop
    task = ChunkTask.of(
        config,
        run_dir,
        responsive=workers <= 1 and cluster is None,
        schema_version=int(manifest.get("schema_version") or SCHEMA_VERSION),
    )
    ranges = config.ranges(size, done)
    try:
        signals.check()  # a stop while run.json was written
        hooks.pause("manifest")
        bar = _progress_bar(config.games * per, progress, done_before)
        if cluster is not None:
            run_chunks(
                cluster.executor,
                task,
                ranges,
                record,
                window=cluster.window(),
                retries=retries,
                lost=cluster.lost_errors(),
            )
        elif workers <= 1:
            for a, b in ranges:
                record((a, b), task(a, b))
        else:
            fork = forks_workers(players)

            def executor():
                return pool.pop() if pool else process_pool(workers, fork=fork)

            run_chunks(
                executor,
                task,
                ranges,
                record,
                window=2 * workers,
                retries=retries,
            )
        hooks.pause("finish")
    except StopRequested:
        status = "interrupted"
    except DecisionTimeoutError as exc:
        status, error, kind = "failed", str(exc), "decision_timeout"
    except StrategyError as exc:
        status, error, kind = "failed", str(exc), "strategy"
    except WorkerLost as exc:
        status, error, kind = "failed", str(exc), "worker"
    except OSError as exc:
        status, error, kind = "failed", f"{type(exc).__name__}: {exc}", "disk"
    except Exception as exc:  # anything else: recorded, and the folder stays resumable
        if signals.stopped(exc):  # a stop that surfaced as another exception
            status = "interrupted"
        else:
            status, error, kind = "failed", f"{type(exc).__name__}: {exc}", "other"
    finally:
        signals.quiet()  # from here a signal is only noted: the clean-up must finish
        if bar is not None:
            bar.close()
        elapsed = time.perf_counter() - t_run
        with signals.cleanup_lock:
            games_done = _record_end(run_dir, manifest, done, per, status, elapsed, error, kind)
    result = RunResult(
        run_dir,
        status,
        games_done,
        elapsed,
        compile_s,
        _compiled(players),
        _summary(sums, config.names),
        error,
        config.seed,
        signals.signum if status == "interrupted" else None,
        games_done - done_before,
    )
    if status == "failed":
        hint = "" if kind == "strategy" else f"; `hsim resume {run_dir}` continues it"
        raise RunError(f"run failed: {error}\n(parts written so far are kept in {run_dir}{hint})")
    return result


def _record_end(
    run_dir: Path,
    manifest: dict[str, Any],
    done: dict[int, dict[str, Any]],
    per: int,
    status: str,
    elapsed: float,
    error: str | None = None,
    kind: str | None = None,
) -> int:
    """Clean the datasets of what ``done`` does not list and write the final run.json
    (status, timings, every part); return the games written.
    """
    parts = [done[a] for a in sorted(done)]
    listed = {e[d]["file"] for e in parts for d in ALL_DATASETS if d in e}
    remove_temporary(run_dir)
    # renamed but never recorded: played again later (only the run's own datasets)
    remove_unlisted(run_dir, listed, datasets_of(manifest))
    games_done = sum(e["stop"] - e["start"] for e in parts) * per
    manifest.update(
        {
            "status": status,
            "finished": now(),
            "elapsed_s": round(elapsed + float(manifest.get("elapsed_s") or 0), 3),
            "games_done": games_done,
            "completed_ranges": _merge([(e["start"], e["stop"]) for e in parts]),
            "parts": parts,
        }
    )
    manifest.pop("error", None)
    manifest.pop("error_kind", None)
    if error:
        manifest["error"] = error
        manifest["error_kind"] = kind
    write_manifest(run_dir, manifest)
    if status == "complete":
        (run_dir / JOURNAL).unlink(missing_ok=True)
    return games_done


def _compiled(players: list[LoadedStrategy]) -> bool:
    from hsim.engine.game import loops_with_bots, play_games

    bundles = [p.compiled for p in players if p.compiled is not None]
    fns = [f for b in bundles for f in (b.pass_cards, b.play, b.moon_choice)]
    return _jit.compiled_here(play_games, *loops_with_bots(), *fns)


def _merge(ranges: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for a, b in sorted(ranges):
        if out and out[-1][1] == a:
            out[-1][1] = b
        else:
            out.append([a, b])
    return out


class _NoProgress:
    """The progress bar of a run without one (``--no-progress``): the calls the run makes
    of a tqdm bar, doing nothing, so that tqdm is not imported (~5 ms of a start)."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, enabled: bool, initial: int = 0):
    if not enabled:
        return _NoProgress()
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        unit="game",
        unit_scale=True,
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
