"""Continue a stopped run: ``hsim resume RUN_DIR`` plays exactly the missing chunks.

A run folder can be continued when it is ``interrupted``, ``failed`` for a reason other
than a strategy error (a lost worker, a full disk, a decision timeout) or ``running``
with no live owner (its process was killed). The settings come from its ``run.json``;
the chunk boundaries (``first_game + k * chunk_size``) are the original run's, so every
part is the one an uninterrupted run writes. What counts as done is what the journal and
``run.json`` record with a part that still matches its recorded size and sha256; anything
else in the datasets (a part renamed into place just before a SIGKILL, before it was
recorded; a damaged part; a temporary file) is deleted and played again.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from hsim.errors import EXIT_USAGE
from hsim.model.rules import Rules, RulesError, parse_rules
from hsim.runner import run as runner
from hsim.runner.cluster import absolute_specs
from hsim.runner.columns import DEFAULT_RECORD, SCHEMA_VERSION
from hsim.runner.config import (
    DEFAULT_DECISION_TIMEOUT,
    RunConfig,
    code_changed,
    default_workers,
)
from hsim.runner.files import open_new
from hsim.runner.lock import FolderError, FolderLock, claim, refuse_unsafe
from hsim.runner.manifest import (
    JOURNAL,
    MANIFEST,
    ManifestError,
    check_settings,
    now,
    read_journal,
    read_manifest,
    recorded_parts,
    write_manifest,
)
from hsim.runner.narrow import SUMMARY_COLS
from hsim.runner.pool import DEFAULT_RETRIES, stop_executor
from hsim.runner.run import RunError, RunResult
from hsim.runner.signals import StopSignals
from hsim.runner.sink import (
    DATASETS,
    datasets_of,
    file_sha256,
    foreign_datasets,
    is_part_path,
    remove_temporary,
    remove_unlisted,
)
from hsim.strategy.loader import untrusted_code
from hsim.strategy.specs import spec_from_run

RESUMABLE = ("interrupted", "failed", "running", "complete")


def config_from_manifest(manifest: dict[str, Any], run_dir: Path) -> RunConfig:
    """Return the :class:`RunConfig` a run's ``run.json`` describes.

    :raises RunError: a setting is missing or not what hsim writes (a damaged or edited
        ``run.json``).
    """
    try:
        options = manifest["rules"]["options"]
        known = {f.name for f in dataclasses.fields(Rules)}
        rules = dataclasses.replace(Rules(), **{k: v for k, v in options.items() if k in known})
        score_also = tuple(parse_rules(text) for text in manifest.get("score_also") or ())
        specs = tuple(_spec_from_run(p["spec"], manifest, run_dir) for p in manifest["players"])
        labels = tuple(recorded_label(p) for p in manifest["players"])
        config = RunConfig(
            rules=rules,
            players=specs,
            labels=labels,
            games=_int(manifest, "games"),
            seed=_int(manifest, "seed"),
            first_game=_int(manifest, "first_game"),
            rules_preset=manifest["rules"].get("preset"),
            chunk_size=_int(manifest, "chunk_size"),
            duplicate=bool(manifest.get("duplicate")),
            score_also=score_also,
            decision_timeout=manifest.get("decision_timeout", DEFAULT_DECISION_TIMEOUT),
            record=datasets_record(manifest),
        )
    except (KeyError, TypeError, AttributeError, RulesError, ValueError) as exc:
        what = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
        raise RunError(
            f"run.json cannot be resumed: it is damaged or was edited ({what})"
        ) from None
    if config.chunk_size is None or config.chunk_size < 1 or config.games < 1:
        raise RunError("run.json cannot be resumed: its chunk_size or games is not positive")
    return config


def datasets_record(manifest: dict[str, Any]) -> str:
    """Return the ``--record`` mode of a run's manifest (``deals`` when it has none: a run
    written before the option existed).

    :raises ValueError: an unknown mode.
    """
    datasets_of(manifest)  # checks the mode
    return manifest.get("record", DEFAULT_RECORD)


def _int(manifest: dict[str, Any], key: str) -> int:
    value = manifest[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key} is {value!r}, not an integer")
    return value


def recorded_label(player: dict[str, Any]) -> str:
    """Return the label (the spec as the user gave it) a run.json ``players`` entry
    records for its seat, as the run's parts name it in their ``strategy`` column.

    ``label`` is written with the home directory as ``~`` (``label_home``: it was); a
    run.json written before labels were recorded gives its ``spec``.

    :raises TypeError: the label is not a string (a damaged ``run.json``).
    """
    label = player.get("label", player["spec"])
    if not isinstance(label, str):
        raise TypeError(f"a player's label is {label!r}, not a string")
    if player.get("label_home") is True:
        label = label.replace("~", str(Path.home()))
    return label


def _spec_from_run(spec: str, manifest: dict[str, Any], run_dir: Path) -> str:
    # A relative path.py:attr is relative to the run folder (or, in a run.json written
    # before that, to the ``cwd`` it recorded).

    cwd = manifest.get("cwd")
    return spec_from_run(spec, Path(cwd) if isinstance(cwd, str) else Path(run_dir))


def intact(run_dir: Path, entry: dict[str, Any], datasets: tuple[str, ...] = DATASETS) -> bool:
    """Return True when every part (one per dataset of ``datasets``, the run's) of
    journal ``entry`` exists with its recorded size and sha256.
    """
    for dataset in datasets:
        part = entry.get(dataset)
        if not isinstance(part, dict):
            return False
        if not is_part_path(part.get("file"), dataset):
            return False  # a path outside its folder is never read: the chunk is played again
        path = Path(run_dir) / str(part.get("file"))
        try:
            if path.stat().st_size != part.get("bytes"):
                return False
        except OSError:
            return False
        if file_sha256(path) != part.get("sha256"):
            return False
    return True


def done_chunks(run_dir: Path, manifest: dict[str, Any], config: RunConfig) -> dict[int, dict]:
    """Return the recorded chunks (by start) whose parts are intact and whose range is a
    chunk of the run's plan.
    """
    size = config.chunk_size
    out = {}
    for start, entry in recorded_parts(run_dir, manifest).items():
        aligned = (start - config.first_game) % size == 0
        stop = min(start + size, config.stop)
        if (
            aligned
            and config.first_game <= start < config.stop
            and entry.get("stop") == stop
            and intact(run_dir, entry, config.datasets)
        ):
            out[start] = entry
    return out


#: What a resume stopped before it played a game says (its run is as it was).
RESUME_UNSTARTED = "interrupted before the resume played any game; the run is as it was"


def resume_run(
    run_dir: Path,
    workers: int | None = None,
    progress: bool = True,
    retries: int = DEFAULT_RETRIES,
    decision_timeout: float | None = -1.0,
    argv: list[str] | None = None,
    started: float | None = None,
    cluster=None,
    trust: bool = True,
) -> RunResult:
    """Continue the run in ``run_dir`` until it is ``complete``; return what was done.

    trust: load strategies ``run.json`` names that are not built-in (files, modules, entry
    points); False refuses them (``hsim resume`` without ``--trust``), naming them, before
    anything is imported (:class:`RunError`, exit 2).

    workers: processes (None: as many as the missing games warrant). cluster: a
    :class:`hsim.runner.cluster.DaskCluster` to play the missing chunks on instead (any
    run can be resumed on a cluster or locally: the datasets are the same). decision_timeout:
    a new limit for plain-Python decisions (-1: the run's own). A ``complete`` run whose
    parts are all intact is not played again (``games_played`` 0): only the files of its
    datasets that are not its parts are deleted (``removed``); one with a missing or
    damaged part has that part played again.

    :raises RunError: no or a damaged ``run.json``, a live owner (named), a run that
        failed by a strategy error (it would fail again the same way), or the resumed
        run failed.
    :raises StopRequested: SIGINT or SIGTERM before the folder was claimed.
    """
    t0 = started if started is not None else time.perf_counter()
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunError(f"{run_dir} is not a folder; give the run folder to resume")
    if not (run_dir / MANIFEST).is_file():
        raise RunError(
            f"{run_dir} has no {MANIFEST}: it is not an hsim run folder, or its run was "
            "stopped before it wrote anything; start it again with `hsim tournament --out "
            f"{run_dir}`"
        )
    signals = StopSignals(RESUME_UNSTARTED).install()
    lock: FolderLock | None = None
    pool: list = []  # the process pool, started while this process plays the first game
    try:
        try:
            with signals.critical():  # a stop waits until `lock` holds what claim made
                lock = claim(run_dir)
            refuse_unsafe(run_dir, "cannot resume", strays=False)  # links: before any read
        except FolderError as exc:
            raise RunError(
                f"cannot resume: {exc}" if "cannot resume" not in str(exc) else str(exc)
            ) from None
        try:
            manifest = read_manifest(run_dir)
        except (ManifestError, OSError) as exc:
            raise RunError(f"cannot resume: {exc}") from None
        version = manifest.get("schema_version")
        if isinstance(version, int) and version > SCHEMA_VERSION:
            raise RunError(
                f"cannot resume {run_dir}: its parts have schema version {version}, written by "
                f"a newer hsim (this one writes {SCHEMA_VERSION}); resume it with that hsim"
            )
        status = manifest.get("status")
        if status not in RESUMABLE:
            raise RunError(f"cannot resume {run_dir}: its run.json has status {status!r}")
        if status == "failed" and manifest.get("error_kind") in ("strategy", None):
            raise RunError(
                f"cannot resume {run_dir}: its run failed because of a strategy "
                f"({manifest.get('error', 'no error recorded')}); playing it again would fail "
                "the same way. Fix the strategy and start a new run"
            )
        if status == "complete" and "parts" not in manifest:
            raise RunError(
                f"{run_dir} is complete (written by an hsim that recorded no part checksums); "
                "there is nothing to resume"
            )
        config = config_from_manifest(manifest, run_dir)
        code = [] if trust else untrusted_code(config.players)
        if code:
            raise RunError(
                f"{run_dir} names strategies that are not built-in; resuming it would import "
                f"and run: {'; '.join(code)}. Resume it with --trust if you trust that code "
                "(a run folder from elsewhere can name any file or module)",
                exit_code=EXIT_USAGE,
            )
        _refuse_foreign_datasets(run_dir, config.datasets)  # the more telling message first
        try:
            refuse_unsafe(run_dir, "cannot resume")  # a file of yours among the parts
        except FolderError as exc:
            raise RunError(str(exc)) from None
        try:
            check_settings(manifest, run_dir / MANIFEST, read_journal(run_dir))
        except ManifestError as exc:
            raise RunError(f"cannot resume: {exc}") from None
        if decision_timeout is None or decision_timeout >= 0:
            config = dataclasses.replace(config, decision_timeout=decision_timeout or None)
            manifest["decision_timeout"] = config.decision_timeout
        done = done_chunks(run_dir, manifest, config)
        missing = config.games - sum(e["stop"] - e["start"] for e in done.values())
        if status == "complete" and missing == 0:
            removed = _remove_strays(run_dir, manifest, config, done, argv)
            return _nothing_to_do(run_dir, manifest, config, done, removed)
        changed = code_changed(manifest, config.players)  # games to play: by the same code?
        if changed:
            raise RunError(
                f"cannot resume {run_dir}: its games were played with {changed}, so the "
                "rest would not be the same run. Resume it with what played it, or start "
                "the run again in a new folder"
            )
        if workers is None and cluster is None:
            workers = default_workers(missing * config.rotations)
        players = runner.check_config(config, workers or 1, None if cluster else pool)
        compile_s = time.perf_counter() - t0
        cluster_info = None
        if cluster is not None:
            config = dataclasses.replace(
                config, players=absolute_specs(config.players), labels=config.names
            )
            cluster_info = runner.check_cluster(cluster, run_dir, players, config)
            workers = cluster_info["threads"]
        if workers is None:
            workers = default_workers(missing * config.rotations)
        with signals.critical(raise_at_exit=False):  # play_chunks records a stop from here
            listed = {e[d]["file"] for e in done.values() for d in config.datasets}
            remove_temporary(run_dir)
            removed = remove_unlisted(run_dir, listed, config.datasets)
            for dataset in config.datasets:  # a dataset folder lost (or never made) is made
                (run_dir / dataset).mkdir(exist_ok=True)
            _rewrite_journal(run_dir, done)
            manifest.setdefault("resumes", []).append(
                {
                    "started": now(),
                    "argv": argv,
                    "workers": workers,
                    "games_missing": missing * config.rotations,
                    "parts_removed": len(removed),
                    "previous_status": status,
                    **({"cluster": cluster_info} if cluster_info else {}),
                }
            )
            manifest["status"] = "running"
            manifest["parts"] = [done[a] for a in sorted(done)]
            write_manifest(run_dir, manifest)
        return runner.play_chunks(
            config,
            run_dir,
            manifest,
            players,
            done,
            workers,
            retries,
            progress,
            signals,
            compile_s,
            cluster,
            pool,
        )
    finally:
        for executor in pool:  # not handed to play_chunks: the resume stopped before it
            stop_executor(executor, kill=True)
        if lock is not None:
            lock.release()
        signals.restore()


def _refuse_foreign_datasets(run_dir: Path, datasets: tuple[str, ...]) -> None:
    """Refuse a run folder with anything in the folder of a dataset its run does not
    record (:func:`hsim.runner.sink.foreign_datasets`).

    A resume deletes the files of the run's datasets that are not its recorded parts
    (:func:`hsim.runner.sink.remove_unlisted`); what lies in such a folder is not that.
    It is kept, and nothing is resumed. An empty folder is accepted.

    :raises RunError: naming the folders, the record and what to do.
    """
    foreign = foreign_datasets(run_dir, datasets)
    if foreign:
        folders = ", ".join(f"{d}/" for d in foreign)
        raise RunError(
            f"cannot resume {run_dir}: it holds files in {folders}, but its run.json records "
            f"only {', '.join(datasets)}; its record was edited, or the folder mixes two runs. "
            f"Nothing was changed: restore run.json's record, or move {folders} out of "
            "the folder, then resume"
        )


def _rewrite_journal(run_dir: Path, done: dict[int, dict]) -> None:
    """Replace the journal by the intact entries only (atomically)."""
    tmp = run_dir / f".{JOURNAL}.tmp"
    with open_new(tmp) as f:
        for start in sorted(done):
            f.write(json.dumps(done[start], separators=(",", ":")) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, run_dir / JOURNAL)


def _remove_strays(run_dir, manifest, config, done, argv) -> tuple[str, ...]:
    """Delete the files of a complete run's datasets that are not its parts (a copy, a
    stray file, a temporary file: verify reports them and readers refuse the run), as a
    resume of an incomplete run does; record it in ``resumes``; return what was deleted.
    Called under the folder's lock.
    """
    listed = {e[d]["file"] for e in done.values() for d in config.datasets}
    removed = tuple(remove_unlisted(run_dir, listed, config.datasets))
    if removed:
        manifest.setdefault("resumes", []).append(
            {
                "started": now(),
                "argv": argv,
                "workers": 0,
                "games_missing": 0,
                "parts_removed": len(removed),
                "previous_status": "complete",
            }
        )
        write_manifest(run_dir, manifest)
    return removed


def _nothing_to_do(run_dir, manifest, config, done, removed=()) -> RunResult:

    sums = np.zeros((config.rules.players, SUMMARY_COLS), np.int64)
    for entry in done.values():
        sums += np.asarray(entry.get("sums") or 0, np.int64)
    return RunResult(
        run_dir,
        "complete",
        int(manifest.get("games_done") or config.games * config.rotations),
        0.0,
        0.0,
        False,
        runner._summary(sums, config.names),
        None,
        config.seed,
        removed=removed,
    )
