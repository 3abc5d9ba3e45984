"""The strength gate: a sequential test (SPRT) of a candidate bot against a baseline.

Boards are duplicate boards (every rotation of the players over the seats, the same
deals), played in chunks of ``batch`` boards by :func:`hsim.runner.chunk.run_chunk`, on a
process pool when ``workers > 1`` or a Dask cluster (both through
:func:`hsim.runner.pool.run_chunks`, as ``hsim tournament`` plays). Each board gives one
value, the candidate's advantage in points per deal (``deal_score``: after the moon and
bonuses), positive when the candidate did better; the values go to
:class:`hsim.analysis.sequential.SequentialTest` in board order, so the verdict and the board
count at which it falls are the same for any number of workers. Two designs:

- *against the baseline* (default, as ``hsim ladder``): the candidate and copies of the
  baseline at every other seat (three; two in 3-player Kierki); the value is the baseline
  seats' mean score per deal minus the candidate's in Hearts, where lower is better, the
  candidate's minus theirs in Kierki, where higher is better (docs/rules.md B5). It
  measures the candidate against the baseline directly, and most cheaply: one table.
- *paired* (``opponents``): the candidate, then the baseline, plays the same board in the
  same seats against the same opponents; the value is the paired difference of the two
  players' mean score per deal (same sign rule). It measures how each does against a
  field the user chooses, and card luck cancels twice (same deals, same opponents).
- *paired over a panel* (``panel``): the paired design against each opponent of a panel in
  turn (each fills every other seat), every board against every opponent; a board's value
  is the mean of its paired differences over the panel, so the test weighs each opponent
  alike and a gain against one cannot hide a loss against another unnoticed in the mean's
  sign (the per-opponent figures are in ``sprt.json``).

Every way the value has mean 0 when the candidate and the baseline are the same bot.

A run folder holds ``sprt.json`` (the configuration, the result and the LLR trace) and
``trace.parquet`` (boards, llr, lower, upper); the default design's games are an ordinary
duplicate run folder at its top (``run.json``, ``deals/``, ``games/``, readable by
``hsim report``), the paired design's are two, ``candidate/`` and ``baseline/``, and over
a panel two per opponent, ``candidate-I/`` and ``baseline-I/`` (I: the opponent's place in
the panel, from 0). Only the boards the test used are kept.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hsim.analysis.sequential import SequentialTest, check_bounds, llr_bounds
from hsim.analysis.stats import Interval, mean_interval
from hsim.engine.rng import SEED_SCHEME
from hsim.errors import (
    EXIT_SPRT_FAILED,
    SprtError,
    SprtFailed,
    StopRequested,
    install_hint,
)
from hsim.experiments.ladder import board_advantages
from hsim.model.rules import Rules, canonical, preset_of
from hsim.play.games import play_range
from hsim.runner.chunk import ChunkTask
from hsim.runner.cluster import ClusterError
from hsim.runner.config import MAX_GAME_STOP, check_seed, recorded_players, without_home
from hsim.runner.lock import (
    LOCK,
    OWNER,
    RUN_ENTRIES,
    FolderError,
    check_not_inside_held,
    claim,
    overwrite_problem,
)
from hsim.runner.manifest import MANIFEST, now, versions, write_manifest
from hsim.runner.pool import DEFAULT_RETRIES, WorkerLost, play_ranges
from hsim.runner.progress import progress_bar
from hsim.runner.signals import StopSignals
from hsim.runner.sink import SCHEMA_VERSION, part_name, remove_temporary
from hsim.strategy.contract import StrategyError
from hsim.strategy.loader import load_players

SPRT_FILE = "sprt.json"
TRACE_FILE = "trace.parquet"
PLOT_FILE = "sprt_llr.png"
DEFAULT_BATCH = 8
DEFAULT_MAX_BOARDS = 10_000
#: Opponents a panel holds at most (each adds two tables to every board).
MAX_PANEL = 8
#: The table folders of the paired designs (over a panel: with ``-I``).
PAIRED_TABLE = re.compile(r"(candidate|baseline)(-[0-9])?")
#: Exit status of ``hsim sprt`` per verdict (None: ``max_boards`` reached first).
EXIT_CODES = {"H1": 0, "H0": 1, None: 3}
#: Exit status of ``hsim sprt`` when the games failed (1 already means "H0 accepted").
EXIT_FAILED = EXIT_SPRT_FAILED


@dataclasses.dataclass(frozen=True)
class SprtConfig:
    """What to test.

    candidate, baseline: strategy specs. d0, d1: the candidate's advantage over the
    baseline in points per deal under H0 and H1 (``d0 < d1``; e.g. 0,0.3 for a gain,
    -0.3,0 for no regression). alpha, beta: error rates in (0, 0.5). max_boards: stop
    without a verdict after this many boards. batch: boards per chunk, and between two
    looks at the LLR. opponents: None (the candidate against copies of the baseline) or
    one spec per other seat (the paired design). panel: None, or opponent specs, each
    filling every other seat in turn (the paired design over a panel; not with
    ``opponents``). seed: the run seed (deals of board ``b`` depend only on the seed and
    ``b``).
    """

    candidate: str
    baseline: str
    d0: float
    d1: float
    rules: Rules
    alpha: float = 0.05
    beta: float = 0.05
    max_boards: int = DEFAULT_MAX_BOARDS
    batch: int = DEFAULT_BATCH
    opponents: tuple[str, ...] | None = None
    seed: int = 0
    panel: tuple[str, ...] | None = None

    def validate(self) -> None:
        """Check every value before anything is played.

        :raises ValueError: bad bounds, error rates, board counts or number of opponents,
            with what to give instead.
        """

        check_bounds(self.d0, self.d1)
        llr_bounds(self.alpha, self.beta)
        if not (isinstance(self.max_boards, int) and self.max_boards >= 2):
            raise ValueError(f"max boards must be at least 2, got {self.max_boards!r}")
        if self.max_boards * self.rules.players > MAX_GAME_STOP:
            raise ValueError(
                f"max boards {self.max_boards} x {self.rules.players} rotations go past the "
                f"largest game index, 2**63-2 (int64); give at most "
                f"{MAX_GAME_STOP // self.rules.players} boards"
            )
        check_seed(self.seed, "--seed")
        if not (isinstance(self.batch, int) and 1 <= self.batch <= self.max_boards):
            raise ValueError(
                f"batch must be between 1 and max boards ({self.max_boards}), got {self.batch}"
            )
        others = self.rules.players - 1
        if self.opponents is not None and len(self.opponents) != others:
            raise ValueError(
                f"{len(self.opponents)} opponents given, but {self.rules.game} with these "
                f"rules has {others} other seats: give one spec (copied to every other seat) "
                f"or {others}, e.g. --opponents {','.join(['duck'] * others)}"
            )
        if self.panel is not None:
            if self.opponents is not None:
                raise ValueError("give --opponents or --panel, not both")
            twice = sorted({x for x in self.panel if self.panel.count(x) > 1})
            if twice:
                raise ValueError(f"--panel names {', '.join(twice)} more than once")
            if not 1 <= len(self.panel) <= MAX_PANEL:
                raise ValueError(f"a panel holds 1 to {MAX_PANEL} opponents, not {len(self.panel)}")

    @property
    def paired(self) -> bool:
        """True for the paired designs (``opponents`` or ``panel`` given)."""
        return self.opponents is not None or self.panel is not None

    def tables(self) -> dict[str, tuple[str, ...]]:
        """Return the seating of each table, by its folder ("" is the run folder itself)."""
        others = self.rules.players - 1
        if self.panel is not None:
            tables = {}
            for i, opponent in enumerate(self.panel):
                tables[f"candidate-{i}"] = (self.candidate,) + (opponent,) * others
                tables[f"baseline-{i}"] = (self.baseline,) + (opponent,) * others
            return tables
        if self.opponents is None:
            return {"": (self.candidate,) + (self.baseline,) * others}
        return {
            "candidate": (self.candidate, *self.opponents),
            "baseline": (self.baseline, *self.opponents),
        }


@dataclasses.dataclass
class SprtResult:
    """The outcome of a test.

    verdict: "H1", "H0" or None (max boards reached, or interrupted). boards: boards the
    test used; deals: deals they hold (each counted once, not once per seat; both tables
    in the paired design). advantage: the candidate's mean advantage per deal with its 95%
    interval over those boards. trace: (boards, LLR) at every look. status: complete or
    interrupted. by_opponent: over a panel, per opponent (in panel order) its spec and the
    candidate's advantage against it over the same boards, an Interval (None under 2
    boards); else None.
    """

    verdict: str | None
    boards: int
    deals: int
    advantage: Interval | None
    llr: float
    lower: float
    upper: float
    trace: list[tuple[int, float]]
    elapsed_s: float
    run_dir: Path
    status: str = "complete"
    by_opponent: list[tuple[str, Interval | None]] | None = None

    @property
    def exit_code(self) -> int:
        """The ``hsim sprt`` exit status: 0 H1, 1 H0, 3 no verdict."""
        return EXIT_CODES[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict of the result (an infinite LLR is written "inf")."""
        ci = self.advantage
        return {
            "verdict": self.verdict,
            "status": self.status,
            "boards": self.boards,
            "deals": self.deals,
            "advantage": None if ci is None else ci.estimate,
            "advantage_low": None if ci is None else ci.low,
            "advantage_high": None if ci is None else ci.high,
            "llr": _json_float(self.llr),
            "lower": self.lower,
            "upper": self.upper,
            "elapsed_s": round(self.elapsed_s, 3),
            "run_dir": str(self.run_dir),
            "trace": [[n, _json_float(v)] for n, v in self.trace],
            "by_opponent": None
            if self.by_opponent is None
            else [{"opponent": name, **_interval_dict(ci)} for name, ci in self.by_opponent],
        }


def _interval_dict(ci: Interval | None) -> dict[str, float | None]:
    keys = ("advantage", "advantage_low", "advantage_high")
    values = (None,) * 3 if ci is None else (ci.estimate, ci.low, ci.high)
    return dict(zip(keys, values, strict=True))


def _json_float(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def board_values(config: SprtConfig, parts: dict[str, pd.DataFrame]) -> np.ndarray:
    """Return the candidate's advantage per board (float64[boards], in board order).

    parts: per table (see :meth:`SprtConfig.tables`), the deals rows of the same boards
    (columns board, player, deal_score; player 0 is the candidate or the baseline).
    """
    kierki = config.rules.is_kierki
    if not config.paired:
        return board_advantages(parts[""], higher_is_better=kierki)
    return np.mean([-d if not kierki else d for d in _paired_differences(config, parts)], 0)


def _paired_differences(config: SprtConfig, parts: dict[str, pd.DataFrame]) -> list[np.ndarray]:
    """Return, per opponent (one without a panel), the candidate's mean deal score minus
    the baseline's on each board (float64[boards], in board order)."""
    suffixes = [""] if config.panel is None else [f"-{i}" for i in range(len(config.panel))]
    out = []
    for suffix in suffixes:
        mean = {}
        for table in ("candidate", "baseline"):
            d = parts[table + suffix]
            mean[table] = d[d["player"] == 0].groupby("board")["deal_score"].mean()
        out.append((mean["candidate"] - mean["baseline"]).to_numpy())
    return out


def _claim(out: Path, overwrite: bool):
    """Check ``out``, lock it (one test per folder, :mod:`hsim.runner.lock`) and empty it;
    return the lock."""

    # what an sprt folder holds: sprt.json, the trace, its plot, the games of the default
    # design (a run folder's entries) or of the paired design (two run folders)
    known = RUN_ENTRIES | {SPRT_FILE, f".{SPRT_FILE}.tmp", TRACE_FILE, PLOT_FILE}
    tables = ()
    if out.is_dir():
        tables = tuple(p.name for p in out.iterdir() if PAIRED_TABLE.fullmatch(p.name))
    known |= set(tables)

    if out.exists():
        if not out.is_dir():
            raise SprtError(f"--out {out} is a file, not a folder")
        if any(p.name not in (LOCK, OWNER) for p in out.iterdir()):
            if not overwrite:
                raise SprtError(
                    f"output folder {out} already exists; choose another --out or pass "
                    "--overwrite to replace it"
                )
            manifests = {SPRT_FILE: "config", MANIFEST: "seed_scheme"}
            problem = overwrite_problem(out, known, manifests, tables)
            if problem:
                raise SprtError(
                    f"--overwrite refused: {out} is not an hsim sprt folder ({problem}), and "
                    "--overwrite deletes nothing else; choose another --out"
                )
    try:
        check_not_inside_held(out)  # before anything is created there
        out.mkdir(parents=True, exist_ok=True)
        lock = claim(out)
    except FolderError as exc:
        raise SprtError(str(exc)) from None
    for entry in out.iterdir():  # only once the folder is ours
        if entry.name not in (LOCK, OWNER):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    return lock


def _table_manifest(config: SprtConfig, players, folder: Path, workers: int, argv):

    preset = preset_of(config.rules)
    return {
        "schema_version": SCHEMA_VERSION,
        "seed_scheme": SEED_SCHEME,
        "status": "running",
        "command": without_home(" ".join(argv)) if argv else None,
        "argv": without_home(argv),
        "rules": {
            "string": canonical(config.rules, preset),
            "preset": preset,
            "options": config.rules.to_dict(),
        },
        "players": recorded_players(players, folder),
        "seed": config.seed,
        "first_game": 0,
        "games": config.max_boards,  # at most; the boards used when it ends
        "duplicate": True,
        "score_also": [],
        "workers": workers,
        "chunk_size": config.batch,
        "versions": versions(),
        "started": now(),
        "sprt": SPRT_FILE,
    }


@dataclasses.dataclass(frozen=True)
class BoardsTask:
    """One chunk of boards at every table of a test, ``task(start, stop)``: a picklable
    callable for any executor (:func:`hsim.runner.pool.run_chunks`). tables: one
    :class:`hsim.runner.chunk.ChunkTask` per table, each writing its table's folder.

    :raises StrategyError: see :func:`hsim.play.games.play_range`.
    """

    tables: tuple[Any, ...]

    def __call__(self, start: int, stop: int) -> None:
        for task in self.tables:
            task(start, stop)


def run_sprt(
    config: SprtConfig,
    out: Path,
    workers: int = 1,
    overwrite: bool = False,
    progress: bool = False,
    argv: list[str] | None = None,
    cluster=None,
    retries: int = DEFAULT_RETRIES,
) -> SprtResult:
    """Play duplicate boards until the SPRT of ``config`` decides or ``max_boards``.

    workers: processes (1 plays in this process). cluster: a
    :class:`hsim.runner.cluster.DaskCluster` to play the chunks on instead (every worker
    is checked first; give strategy files by absolute path). retries: times a chunk is
    played again when its worker was lost (see :func:`hsim.runner.pool.run_chunks`). The
    result (verdict, boards, LLR trace, datasets) is the same for any ``workers``; chunks
    already running when the verdict falls finish, and their boards are removed. Ctrl-C
    or SIGTERM stops the test: the
    result then has status "interrupted" and no verdict, and the boards the test used stay
    in ``out``.

    :raises ValueError: a bad configuration (see :meth:`SprtConfig.validate`).
    :raises StrategyError: a spec is invalid or does not play the rules' game (nothing
        is written).
    :raises SprtError: ``out`` exists (without ``overwrite``), is not an sprt folder, or
        another test is using it.
    :raises SprtFailed: a strategy failed in a game, a chunk's worker was lost more than
        ``retries`` times or the disk failed (``sprt.json`` then says ``failed``; in the
        first game nothing is written), or a cluster worker failed its start check
        (nothing written).
    """

    config.validate()
    t0 = time.perf_counter()
    tables = config.tables()
    loaded = {t: load_players(list(specs), config.rules) for t, specs in tables.items()}
    for players in loaded.values():  # compile (or load from the cache) before the pool starts
        try:
            play_range(config.rules, players, config.seed, 0, 1)
        except StrategyError as exc:
            raise SprtFailed(f"sprt failed in its first game (nothing written): {exc}") from None

    out = Path(out)
    if cluster is not None:
        folder = out.resolve() if out.is_dir() else out.resolve().parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for players in loaded.values():
                cluster.check_workers(folder, players, config.rules, config.seed, 0)
        except (ClusterError, OSError) as exc:
            raise SprtFailed(f"sprt cannot use the cluster (nothing written): {exc}") from None
    lock = _claim(out, overwrite)
    try:
        return _run(config, out, workers, progress, argv, tables, loaded, t0, cluster, retries)
    finally:
        lock.release()


def _run(
    config, out, workers, progress, argv, tables, loaded, t0, cluster=None, retries=DEFAULT_RETRIES
) -> SprtResult:
    """Play and test into the claimed folder ``out`` (see :func:`run_sprt`)."""

    manifests = {}
    for table in tables:
        folder = out / table
        for dataset in ("deals", "games"):
            (folder / dataset).mkdir(parents=True, exist_ok=True)
        manifests[table] = _table_manifest(config, loaded[table], folder, workers, argv)
        write_manifest(folder, manifests[table])

    test = SequentialTest(config.d0, config.d1, config.alpha, config.beta, config.batch)
    deals_seen: dict[int, int] = {}
    per_opponent: dict[int, list[np.ndarray]] = {}  # a panel's differences, by chunk
    sprt_doc = {"config": config_dict(config), "started": now(), "status": "running"}
    _write_json(out / SPRT_FILE, sprt_doc)

    def chunk_values(start: int) -> np.ndarray:

        parts = {
            t: pd.read_parquet(
                out / t / "deals" / part_name(start), columns=["board", "player", "deal_score"]
            )
            for t in tables
        }
        deals_seen[start] = sum(len(d) // config.rules.players for d in parts.values())
        if config.panel is not None:
            per_opponent[start] = _paired_differences(config, parts)
        return board_values(config, parts)

    bar = progress_bar(config.max_boards, progress, unit="board")
    bar.set_postfix_str(f"LLR +0.00 in [{test.lower:+.2f}, {test.upper:+.2f}]")
    done: dict[int, np.ndarray] = {}
    next_start = 0  # the first chunk not yet fed to the test

    def ranges() -> Iterator[tuple[int, int]]:
        # Read lazily by run_chunks: no chunk is started once the test has its verdict.
        for start in range(0, config.max_boards, config.batch):
            if test.verdict is not None:
                return
            yield start, min(start + config.batch, config.max_boards)

    def record(chunk: tuple[int, int], _result: Any) -> None:
        # Chunks end in any order; the test sees them in board order.
        nonlocal next_start
        with signals.critical():
            done[chunk[0]] = chunk_values(chunk[0])
            while test.verdict is None and next_start in done:
                values = done.pop(next_start)
                test.add(values)
                bar.update(len(values))
                bar.set_postfix_str(
                    f"LLR {test.llr:+.2f} in [{test.lower:+.2f}, {test.upper:+.2f}]"
                )
                next_start += config.batch

    task = BoardsTask(
        tuple(
            ChunkTask(
                rules=config.rules,
                specs=specs,
                seed=config.seed,
                run_dir=str(out / table),
                duplicate=True,
                # played in this process: responsive to a stop (see play_range)
                responsive=workers <= 1 and cluster is None,
            )
            for table, specs in tables.items()
        )
    )
    signals = StopSignals().install()
    t_run = time.perf_counter()

    def finish(status: str, error: str | None) -> SprtResult:
        return _record_end(
            config, out, tables, manifests, test, deals_seen, sprt_doc, status, error,
            time.perf_counter() - t_run, t_run - t0, per_opponent,
        )  # fmt: skip

    def hard_stop(signum: int) -> None:
        # The main thread did not stop in time: record the stop; the process then exits.
        finish("interrupted", None)
        sys.stderr.write(f"\ninterrupted without a verdict; the boards used are in {out}\n")

    signals.hard_stop = hard_stop
    status, error = "complete", None
    try:
        play_ranges(task, ranges(), record, workers=workers, retries=retries, cluster=cluster)
    except (StopRequested, KeyboardInterrupt):
        status = "interrupted"
    except (StrategyError, WorkerLost) as exc:
        status, error = "failed", str(exc)
    except Exception as exc:  # the disk is full, ...
        if signals.stopped(exc):  # a stop that surfaced as another exception
            status = "interrupted"
        else:
            status, error = "failed", f"{type(exc).__name__}: {exc}"
    finally:
        signals.quiet()  # from here a signal is only noted: the clean-up must finish
        bar.close()
    try:
        with signals.cleanup_lock:
            if status == "complete" and test.verdict is None:
                test.finish()  # max boards reached: a last look at every board played
            result = finish(status, error)
    finally:
        signals.restore()
    if status == "failed":
        raise SprtFailed(f"sprt failed: {error}\n(the boards played are kept in {out})")
    return result


def _record_end(
    config,
    out,
    tables,
    manifests,
    test,
    deals_seen,
    sprt_doc,
    status,
    error,
    elapsed,
    compile_s,
    per_opponent=None,
) -> SprtResult:
    """Keep exactly the boards the test used (so the folder is the same for any workers),
    write the final ``run.json`` of every table, ``trace.parquet`` and ``sprt.json``.
    """

    used = test.n
    for table in tables:
        remove_temporary(out / table)
        for dataset in ("deals", "games"):
            for path in (out / table / dataset).glob("part-*.parquet"):
                if int(path.stem.removeprefix("part-")) >= used:
                    path.unlink()
        manifest = manifests[table]
        manifest.update(
            {
                "status": status,
                "games": used or config.max_boards,
                "games_done": used * config.rules.players,
                "completed_ranges": [[0, used]] if used else [],
                "finished": now(),
                "elapsed_s": round(elapsed, 3),
            }
        )
        if error:
            manifest["error"] = error
        write_manifest(out / table, manifest)

    deals = sum(v for s, v in deals_seen.items() if s < used)
    advantage = test.interval() if test.n >= 2 else None
    result = SprtResult(
        test.verdict,
        used,
        deals,
        advantage,
        test.llr,
        test.lower,
        test.upper,
        list(test.trace),
        elapsed,
        out,
        status,
        _by_opponent(config, per_opponent or {}, used),
    )
    trace = pd.DataFrame(result.trace, columns=["boards", "llr"])
    trace["lower"], trace["upper"] = test.lower, test.upper
    trace.to_parquet(out / TRACE_FILE, index=False)
    sprt_doc.update(result.to_dict(), status=status, finished=now())
    sprt_doc["compile_s"] = round(compile_s, 3)
    if error:
        sprt_doc["error"] = error
    _write_json(out / SPRT_FILE, sprt_doc)
    return result


def _by_opponent(config: SprtConfig, per_opponent: dict, used: int):
    """Return each panel opponent's Interval of the candidate's advantage over the first
    ``used`` boards (None per opponent under 2 boards), or None without a panel."""
    if config.panel is None:
        return None
    sign = 1 if config.rules.is_kierki else -1
    starts = sorted(s for s in per_opponent if s < used)
    out = []
    for i in range(len(config.panel)):
        values = [sign * v for s in starts for v in per_opponent[s][i]][:used]
        out.append((config.panel[i], mean_interval(values) if len(values) >= 2 else None))
    return out


def config_dict(config: SprtConfig) -> dict[str, Any]:
    """Return the settings of a test as ``sprt.json`` keeps them (the rules canonical)."""
    preset = preset_of(config.rules)
    return {
        "candidate": config.candidate,
        "baseline": config.baseline,
        "opponents": None if config.opponents is None else list(config.opponents),
        "panel": None if config.panel is None else list(config.panel),
        "design": ("paired over a panel" if config.panel is not None else "paired")
        if config.paired
        else "against baseline",
        "bounds": [config.d0, config.d1],
        "alpha": config.alpha,
        "beta": config.beta,
        "max_boards": config.max_boards,
        "batch": config.batch,
        "seed": config.seed,
        "rules": canonical(config.rules, preset),
    }


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    os.replace(tmp, path)


def plot_trace(result: SprtResult, folder: Path) -> Path:
    """Draw the LLR trace with its bounds into ``folder/sprt_llr.png``; return the path.

    :raises SprtError: matplotlib is not installed (the ``plot`` extra).
    """
    try:
        # deferred: matplotlib is the optional [plot] extra
        import matplotlib

        matplotlib.use("Agg")
        # deferred: matplotlib is the optional [plot] extra
        import matplotlib.pyplot as plt
    except ImportError:
        raise SprtError(f"--plot needs matplotlib: {install_hint('plot')}") from None
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    boards = [n for n, _ in result.trace]
    llr = [max(min(v, 2 * result.upper), 2 * result.lower) for _, v in result.trace]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(boards, llr, marker=".", label="LLR")
    ax.axhline(result.upper, color="tab:green", linestyle="--", label="accept H1")
    ax.axhline(result.lower, color="tab:red", linestyle="--", label="accept H0")
    ax.set_xlabel("boards")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_title(f"SPRT: {result.verdict or 'no verdict'} after {result.boards} boards")
    ax.legend(loc="best")
    path = folder / PLOT_FILE
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
