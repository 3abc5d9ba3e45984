"""Check a run folder against its manifest: ``hsim verify RUN`` and the analysis commands.

``run.json`` lists every part of a run with its row count, size and sha256. A folder is
*complete and intact* when its status is ``complete``, every listed part exists with its
size (and, in a full check, its sha256) and row count, the parts cover every chunk of
the run exactly once, no other file is in the datasets, and each games part holds one
row per seat per scoring per game. :func:`verify_run` lists every problem found;
:func:`require_complete` is what ``hsim report``, ``hsim replay RUN`` and
``hsim compare-rules`` call before they read a run.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from hsim.errors import RunCheckError
from hsim.model.rules import RulesError
from hsim.runner.config import load_manifest
from hsim.runner.lock import is_locked, unsafe_entries
from hsim.runner.manifest import (
    ENTRY_DIGEST,
    MANIFEST,
    ManifestError,
    check_settings,
    read_journal,
    recorded_parts,
)
from hsim.runner.sink import (
    ALL_DATASETS,
    TMP_PREFIX,
    datasets_of,
    file_sha256,
    foreign_datasets,
    is_part_path,
)


@dataclasses.dataclass
class RunCheck:
    """What :func:`verify_run` found.

    problems: one sentence per problem (empty: complete and intact). damaged: the
    problems that make a dataset unreadable or wrong (a truncated, corrupt or extra
    part, a damaged manifest), as opposed to games that are missing (not played yet, or
    their parts deleted), which ``--allow-partial`` accepts. games: games the run is for
    (duplicate: boards x rotations); games_present:
    games whose parts are there and intact. status: the manifest's, or None.
    """

    run_dir: Path
    status: str | None = None
    problems: list[str] = dataclasses.field(default_factory=list)
    damaged: list[str] = dataclasses.field(default_factory=list)
    games: int = 0
    games_present: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def missing_text(self) -> str:
        """Return "N of M games (P%) are missing" for an incomplete run."""
        missing = self.games - self.games_present
        share = 100 * missing / self.games if self.games else 0
        return f"{missing:,} of {self.games:,} games ({share:.1f}%) are missing"


def _damage(check: RunCheck, text: str) -> None:
    check.problems.append(text)
    check.damaged.append(text)


def verify_run(run_dir: Path, full: bool = True) -> RunCheck:
    """Check run folder ``run_dir``; return every problem found (never raises for a
    damaged folder).

    full: also compare each part's sha256 with the manifest's (reads every byte);
    without it, sizes and Parquet footers' row counts are checked.
    """

    run_dir = Path(run_dir)
    check = RunCheck(run_dir)
    for problem in unsafe_entries(run_dir):  # links out of the folder, entries not hsim's
        if " is a link" in problem or "not a folder" in problem or "is a folder" in problem:
            _damage(check, f"{problem}: hsim reads and writes only inside the run folder")
    try:  # every field replay and analysis read, with their messages
        manifest, _ = load_manifest(run_dir)
        journal = read_journal(run_dir)
        check_settings(manifest, run_dir / MANIFEST, journal)  # with the journal's entries
    except (ManifestError, RulesError, OSError) as exc:
        _damage(check, str(exc))
        return check
    check.status = status = manifest.get("status")
    try:
        first, games = int(manifest["first_game"]), int(manifest["games"])
        size = int(manifest["chunk_size"])
        players = int(manifest["rules"]["options"]["players"])
    except (KeyError, TypeError, ValueError) as exc:
        _damage(check, f"{MANIFEST} is damaged: missing or bad {exc}")
        return check
    datasets = datasets_of(manifest)  # checked by load_manifest
    per = players if manifest.get("duplicate") else 1
    scorings = 1 + len(manifest.get("score_also") or ())
    check.games = games * per
    if "parts" not in manifest and status == "complete":
        # Written by an hsim without checksums: only what can be seen is checked.
        check.games_present = check.games
        for dataset in datasets:
            if not (run_dir / dataset).is_dir():
                _damage(check, f"the {dataset} dataset is missing ({run_dir / dataset})")
        return check
    if status == "running" and is_locked(run_dir):
        check.problems.append("the run is still running (its folder is locked by its owner)")
    elif status != "complete":
        check.problems.append(
            f"the run is {status}: `hsim resume {run_dir}` plays the games it has not played"
        )
    damaged: list = []
    parts = recorded_parts(run_dir, manifest, damaged, journal)
    for entry in damaged:
        _damage(
            check,
            f"the record of games {entry.get('start')}..{entry.get('stop')} (exclusive) is "
            f"damaged: it does not match its checksum ({ENTRY_DIGEST}), so its parts are not "
            "trusted",
        )
    listed: set[str] = set()
    covered = 0
    present: dict[int, dict] = {}  # the chunks whose parts are all there and intact
    rows_per_game = per * players * scorings
    for start in sorted(parts):
        entry = parts[start]
        stop = entry.get("stop")
        if not isinstance(stop, int) or (start - first) % size or not first <= start < stop:
            _damage(check, f"{MANIFEST} lists a part with a bad game range {start}..{stop}")
            continue
        good = True
        gone = []
        for dataset in datasets:
            part = entry.get(dataset)
            if not isinstance(part, dict) or "file" not in part:
                text = f"{MANIFEST} lists games {start}..{stop - 1} without a {dataset} part"
                _damage(check, text)
                good = False
                continue
            listed.add(str(part["file"]))
            problem = _check_part(run_dir, part, full)
            if problem and problem.endswith(" is missing"):
                gone.append(problem)
                good = False
            elif problem:
                _damage(check, problem)
                good = False
            elif dataset == "games" and part.get("rows") != (stop - start) * rows_per_game:
                _damage(
                    check,
                    f"{part['file']} holds {part.get('rows')} game rows; games {start}.."
                    f"{stop - 1} need {(stop - start) * rows_per_game}",
                )
                good = False
        if len(gone) == len(datasets):
            check.problems.extend(gone)  # the chunk's games are missing: not damage
        else:  # one dataset without the other would be analysed inconsistently
            for problem in gone:
                _damage(check, f"{problem} (its other dataset's part is there)")
        if good:
            covered += stop - start
            present[start] = entry
    check.games_present = covered * per
    if covered < games:
        missing = _missing_ranges(first, first + games, size, present)
        shown = ", ".join(f"{a}..{b - 1}" for a, b in missing[:5])
        more = f" and {len(missing) - 5} more ranges" if len(missing) > 5 else ""
        what = "boards" if per > 1 else "games"
        text = f"{check.missing_text()} ({what} {shown}{more})"
        check.problems.append(text)
    foreign = foreign_datasets(run_dir, datasets)
    for dataset in ALL_DATASETS:
        folder = run_dir / dataset
        if dataset not in datasets:
            if dataset in foreign:
                _damage(
                    check,
                    f"{dataset}/ holds files, but the run records "
                    f"{manifest.get('record', 'deals')!r} (no {dataset} dataset)",
                )
            continue
        if not folder.is_dir():
            if parts:
                _damage(check, f"the {dataset} dataset is missing ({folder})")
            continue
        for path in sorted(folder.iterdir()):
            rel = f"{dataset}/{path.name}"
            if rel in listed:
                continue
            if path.name.startswith(TMP_PREFIX):
                check.problems.append(f"{rel} is a temporary file left by a stopped run")
            else:
                _damage(check, f"{rel} is not a part of this run ({MANIFEST} does not list it)")
    return check


def _check_part(run_dir: Path, part: dict[str, Any], full: bool) -> str | None:
    rel = str(part["file"])
    if not is_part_path(rel):
        return f"{MANIFEST} lists a part {rel!r} outside its dataset folder (not read)"
    path = run_dir / rel
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return f"{rel} is missing"
    except OSError as exc:
        return f"{rel} cannot be read: {exc.strerror}"
    if size != part.get("bytes"):
        return f"{rel} is {size} bytes, not the {part.get('bytes')} recorded (truncated or changed)"
    if full:
        try:
            if file_sha256(path) != part.get("sha256"):
                return f"{rel} is corrupt: its sha256 differs from the one recorded"
        except OSError as exc:
            return f"{rel} cannot be read: {exc.strerror}"

    try:
        rows = pq.ParquetFile(path).metadata.num_rows
    except Exception as exc:  # noqa: BLE001 - any footer damage
        return f"{rel} is not a readable Parquet file ({type(exc).__name__})"
    if rows != part.get("rows"):
        return f"{rel} holds {rows} rows, not the {part.get('rows')} recorded"
    return None


def _missing_ranges(first: int, stop: int, size: int, parts: dict) -> list[tuple[int, int]]:
    """Return the merged (start, stop) ranges of chunks with no recorded part (at most
    a few dozen are listed, to keep a huge run's check bounded).
    """
    out: list[tuple[int, int]] = []
    position = first
    for start in sorted(parts):
        if start > position:
            out.append((position, start))
        position = max(position, int(parts[start].get("stop") or start))
        if len(out) > 50:
            return out
    if position < stop:
        out.append((position, stop))
    return out


def without_deals(run_dir: Path, manifest: dict[str, Any]) -> str | None:
    """Return why run ``run_dir`` cannot be analysed deal by deal (it was recorded with
    ``--record games``: no deals dataset), or None when it has deals.
    """
    try:
        datasets = datasets_of(manifest)
    except ValueError:
        return None  # load_manifest names the bad field
    if "deals" in datasets:
        return None
    return (
        f"{run_dir} was recorded with --record {manifest.get('record')}: it has no deals "
        "dataset, which hsim report, compare-rules and replay read (its games dataset can "
        "be read with pandas). Play the run again with --record deals (the default) or "
        "--record plays"
    )


def require_complete(
    run_dir: Path, allow_partial: bool = False, deals: bool = True, checksums: bool = False
) -> list[str]:
    """Refuse an incomplete or damaged run folder before it is analysed.

    Returns warnings (empty for a complete, intact run; with ``allow_partial``, how
    much is missing). The check reads footers, not every byte, unless ``checksums``
    (every part's sha256, as ``hsim verify``: a reader of every part, such as ``hsim
    report``, would otherwise take a part damaged inside, its size unchanged, for data).
    deals: the caller reads the deals dataset (a ``--record games`` run is refused).

    :raises RunCheckError: the folder is damaged (always), has no deals dataset while
        ``deals``, or is incomplete without ``allow_partial``; the message names each
        problem and what to do.
    """
    if deals:
        try:
            manifest, _ = load_manifest(Path(run_dir))
        except (ManifestError, RulesError, OSError):
            manifest = None  # verify_run below says what is wrong
        reason = None if manifest is None else without_deals(Path(run_dir), manifest)
        if reason:
            raise RunCheckError(reason)
    check = verify_run(run_dir, full=checksums)
    if check.ok:
        return []
    if not allow_partial and Path(run_dir).is_dir() and is_locked(Path(run_dir)):
        raise RunCheckError(  # a live run: its parts are being written, not damaged
            f"{run_dir} is being written by a running hsim (a tournament or a resume); wait "
            "for it to finish, or pass --allow-partial to analyse the games it holds so far"
        )
    if check.status is None and len(check.damaged) == 1:  # no folder, no or a bad run.json
        raise RunCheckError(check.damaged[0])
    if check.damaged:
        raise RunCheckError(
            f"{run_dir} is damaged: {'; '.join(check.damaged)}. `hsim verify {run_dir}` lists "
            f"every problem; `hsim resume {run_dir}` plays damaged or missing parts again"
        )
    if not allow_partial:
        raise RunCheckError(
            f"{run_dir} is not complete: {'; '.join(check.problems)}. Pass --allow-partial "
            "to analyse the games it holds"
        )
    return [f"the run is {check.status}: {check.missing_text()}; the analysis covers the rest"]
