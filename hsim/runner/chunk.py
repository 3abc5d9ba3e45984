"""The worker side of a run: one chunk of games played and written as parts.

A chunk is a pure function of its :class:`ChunkTask` (rules, players, run seed, what is
recorded) and its game range, so the datasets are the same whatever the number of
workers or the chunking. A task is built once per run, by keyword or from a
:class:`~hsim.runner.config.RunConfig` (:meth:`ChunkTask.of`), pickled to each worker
with every chunk, and called as ``task(start, stop)``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pyarrow as pa

from hsim.engine import _numba
from hsim.model.rules import Rules
from hsim.model.seating import rotate
from hsim.play.games import play_range
from hsim.play.hearts_game import loops_with_bots, play_games
from hsim.runner import hooks
from hsim.runner.columns import DEFAULT_RECORD, RECORD_DATASETS
from hsim.runner.config import RunConfig
from hsim.runner.narrow import SUMMARY_COLS, add_chunk_sums
from hsim.runner.sink import (
    SCHEMA_VERSION,
    deals_table,
    games_table,
    part_digits,
    plays_table,
    write_parts,
)
from hsim.strategy.contract import LoadedStrategy
from hsim.strategy.loader import load_players


@dataclasses.dataclass(frozen=True)
class ChunkTask:
    """One run's chunk job, ``task(start, stop)`` -> :func:`run_chunk`'s result: a
    picklable callable for any executor (the fixed settings travel once per chunk).
    Build it by keyword, or from a run's config with :meth:`of`.

    rules, specs (one player spec per seat), seed: what is played; run_dir: the folder
    the parts are written into; duplicate: each index is a board, played once per
    rotation of the players over the seats; score_also and scoring_names: the other
    scorings followed (:class:`~hsim.runner.config.RunConfig`) and the names of every
    scoring, ``base`` first; digits: of the part names; decision_timeout: seconds per
    plain-Python decision (None: no limit); responsive: played in the run's main process
    (see :func:`hsim.play.games.play_range`); labels: the datasets' strategy names (None:
    the specs); record: the datasets written; schema_version: the run's (4: strings
    written plain).
    """

    rules: Rules
    specs: tuple[str, ...]
    seed: int
    run_dir: str
    duplicate: bool = False
    score_also: tuple[Rules, ...] = ()
    scoring_names: tuple[str, ...] = ("base",)
    digits: int = 12
    decision_timeout: float | None = None
    responsive: bool = False
    labels: tuple[str, ...] | None = None
    record: str = DEFAULT_RECORD
    schema_version: int = SCHEMA_VERSION

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
            rules=config.rules,
            specs=config.players,
            seed=config.seed,
            run_dir=str(run_dir),
            duplicate=config.duplicate,
            score_also=config.score_also,
            scoring_names=config.scoring_names(),
            digits=part_digits(config.stop * config.rotations - 1),
            decision_timeout=config.decision_timeout or None,
            responsive=responsive,
            labels=config.names,
            record=config.record,
            schema_version=schema_version,
        )

    def __call__(self, start: int, stop: int) -> tuple[np.ndarray, dict[str, dict]]:
        return run_chunk(self, start, stop)


_WORKER_PLAYERS: dict[tuple, list[LoadedStrategy]] = {}


def worker_players(rules: Rules, specs: tuple[str, ...]) -> list[LoadedStrategy]:
    """Return the players of ``specs``, loaded once per process (pool or Dask worker) and
    kept for every later chunk, so compiled code is loaded or compiled once per process.

    :raises StrategyError: see :func:`hsim.strategy.loader.load_players`.
    """
    key = (rules, specs)
    players = _WORKER_PLAYERS.get(key)
    if players is None:
        players = _WORKER_PLAYERS[key] = load_players(list(specs), rules)
    return players


def keep_players(rules: Rules, specs: tuple[str, ...], players: list[LoadedStrategy]) -> None:
    """Keep ``players`` (loaded from ``specs``) as this process's, for :func:`worker_players`:
    the run's own process loads them to check the configuration, and the chunks it plays
    itself, or its forked workers, then use them as they are."""
    _WORKER_PLAYERS[(rules, specs)] = players


def run_chunk(task: ChunkTask, start: int, stop: int) -> tuple[np.ndarray, dict[str, dict]]:
    """Play games (or, with ``task.duplicate``, boards) ``start..stop-1``, write their
    parts, return (the per-player summary sums, the parts' row counts and checksums).

    A duplicate board is played once per rotation of the players over the seats; the
    deals depend only on (seed, board), so every rotation gets the same hands.
    Sums: int64[n seats, SUMMARY_COLS]; parts: see :func:`hsim.runner.sink.write_parts`.

    :raises StrategyError: see :func:`hsim.play.games.play_range`.
    """
    players = worker_players(task.rules, task.specs)
    names = list(task.labels if task.labels is not None else task.specs)
    datasets = RECORD_DATASETS[task.record]
    tables: dict[str, list[pa.Table]] = {d: [] for d in datasets}
    out = np.zeros((task.rules.players, SUMMARY_COLS), np.int64)
    for rotation in range(task.rules.players if task.duplicate else 1):
        deals, games = play_range(
            task.rules,
            rotate(players, rotation),
            task.seed,
            start,
            stop,
            task.score_also,
            task.decision_timeout,
            task.responsive,
            plays=task.record == "plays",
            reuse=True,
        )
        # The rows may be views of buffers the next play_range reuses: every table
        # copies what it takes (strided columns), before the next rotation is played.
        played = rotation_tables(
            deals, games, names, rotation, task.duplicate, task.scoring_names, datasets
        )
        for dataset, table in played.items():
            tables[dataset].append(table)
        add_chunk_sums(deals, games, rotation, out)
    hooks.pause("chunk", start)
    parts = write_parts(
        Path(task.run_dir),
        start,
        {d: _sorted(tables[d]) for d in datasets},
        task.digits,
        task.schema_version,
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
    :func:`hsim.play.games.play_range` call returned (players rotated by ``rotation``); each
    table copies what it takes from the rows."""
    builders = {
        "deals": lambda: deals_table(deals, names, rotation, duplicate),
        "plays": lambda: plays_table(deals, names, rotation, duplicate),
        "games": lambda: games_table(games, names, rotation, duplicate, list(scoring_names)),
    }
    return {dataset: builders[dataset]() for dataset in datasets}


def _sorted(tables: list[pa.Table]) -> pa.Table:
    # Each table is sorted and holds whole games, so a stable sort on the game suffices.
    table = pa.concat_tables(tables)
    return table if len(tables) == 1 else table.sort_by([("game", "ascending")])


def compiled_here(players: list[LoadedStrategy]) -> bool:
    """Return whether this process compiled (rather than loaded from the cache) the game
    loops or the decisions of ``players``."""

    bundles = [p.compiled for p in players if p.compiled is not None]
    fns = [f for b in bundles for f in (b.pass_cards, b.play, b.moon_choice)]
    return _numba.compiled_here(play_games, *loops_with_bots(), *fns)
