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
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hsim.engine import _numba
from hsim.engine.rng import SEED_SCHEME
from hsim.errors import EngineError, RunError, StopRequested
from hsim.model.rules import canonical
from hsim.play.games import DecisionTimeoutError, play_range
from hsim.runner import hooks
from hsim.runner.chunk import (
    ChunkTask,
    compiled_here,
    keep_players,
    rotation_tables,
    worker_players,
)
from hsim.runner.cluster import ClusterError, absolute_specs
from hsim.runner.columns import ALL_DATASETS, RECORD_DATASETS
from hsim.runner.config import (
    CLUSTER_CHUNK,
    RunConfig,
    recorded_players,
    validate,
    without_home,
)
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
from hsim.runner.narrow import SUMMARY_COLS
from hsim.runner.pool import (
    DEFAULT_RETRIES,
    WorkerLost,
    fork_is_safe,
    play_ranges,
    process_pool,
    stop_executor,
)
from hsim.runner.progress import progress_bar
from hsim.runner.signals import EXIT_CODES, StopSignals
from hsim.runner.sink import (
    SCHEMA_VERSION,
    datasets_of,
    encode_part,
    remove_temporary,
    remove_unlisted,
)
from hsim.strategy import notice
from hsim.strategy.contract import StrategyError
from hsim.strategy.loader import LoadedStrategy

if TYPE_CHECKING:
    from hsim.runner.cluster import DaskCluster


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
                "wins": wins,
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
    keep_players(config.rules, config.players, players)
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
    if workers <= 1 or (not fork and notice.compile_plan(config.players)):
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
            with signals.critical():  # a stop waits until `lock` holds what claim_new made
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
            "numba_cache": without_home(_numba.CACHE_DIR),
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
        ``error_kind`` (``strategy``, ``decision_timeout``, ``engine``, ``worker``,
        ``disk``, ``other``).
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
    try:  # from here a stop is recorded (a stop while run.json was written: just below)
        signals.check()
        task = ChunkTask.of(
            config,
            run_dir,
            responsive=workers <= 1 and cluster is None,
            schema_version=int(manifest.get("schema_version") or SCHEMA_VERSION),
        )
        ranges = config.ranges(size, done)
        hooks.pause("manifest")
        bar = progress_bar(config.games * per, progress, done_before)
        fork = forks_workers(players)
        play_ranges(
            task,
            ranges,
            record,
            workers=workers,
            retries=retries,
            cluster=cluster,
            make_pool=lambda: pool.pop() if pool else process_pool(workers, fork=fork),
        )
        hooks.pause("finish")
    except StopRequested:
        status = "interrupted"
    except DecisionTimeoutError as exc:
        status, error, kind = "failed", str(exc), "decision_timeout"
    except EngineError as exc:
        status, error, kind = "failed", str(exc), "engine"
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
        compiled_here(players),
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


def _merge(ranges: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for a, b in sorted(ranges):
        if out and out[-1][1] == a:
            out[-1][1] = b
        else:
            out.append([a, b])
    return out
