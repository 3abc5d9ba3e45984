"""The run manifest ``run.json`` (what was run, with what, whether it finished, and every
part with its row count and checksum) and the journal ``parts.jsonl`` of finished parts.

The journal is append-only: one JSON line per finished chunk, written (and fsynced) by
the run's owner after the chunk's parts were renamed into place, so run.json need not be
rewritten per part. run.json's ``parts`` is the journal's content at the end of the run
(complete, failed or interrupted); :func:`recorded_parts` reads both, so a run killed at
any moment has a truthful record of what it finished. A line cut short by a kill is
ignored (its chunk is played again).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import stat
import subprocess
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

import hsim
from hsim.errors import ManifestError
from hsim.runner.files import open_append, open_new

MANIFEST = "run.json"
JOURNAL = "parts.jsonl"
DEPENDENCIES = ("numba", "llvmlite", "numpy", "pandas", "pyarrow", "click", "tqdm")

#: The settings of a run that decide its records and how its parts are planned and read.
#: A run's run.json holds their digest (:data:`SETTINGS_DIGEST`, :func:`settings_digest`),
#: written once with them: a damaged or edited setting (a seed, a game count, a chunk
#: size) then shows as a mismatch, where it would otherwise make a resume play another
#: run's games into this run's folder, or verify and report read the parts as another
#: run's.
SETTINGS = (
    "seed_scheme",
    "rules",
    "players",
    "seed",
    "first_game",
    "games",
    "duplicate",
    "score_also",
    "record",
    "chunk_size",
)
SETTINGS_DIGEST = "settings_sha256"
#: Each journal entry's digest of its own other fields (:func:`seal_entry`): an entry
#: damaged on disk (a row count, a checksum, its summary sums) is then not trusted, and
#: its chunk counts as not played (a resume plays it again), where before its numbers
#: were believed.
ENTRY_DIGEST = "entry_sha256"


def settings_digest(manifest: dict[str, Any]) -> str:
    """Return the sha256 (hex) of the :data:`SETTINGS` of ``manifest``, in canonical JSON."""
    return _json_sha256({name: manifest.get(name) for name in SETTINGS})


def _json_sha256(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def check_settings(manifest: dict[str, Any], where: Path | str = MANIFEST, entries=()) -> None:
    """Check a manifest's settings against the digest recorded with them. A manifest
    without one (written before hsim recorded it, or an sprt test's table, whose game
    count is set when the test ends) is not checked, unless its parts, or the journal
    ``entries`` given, carry their digests (:data:`ENTRY_DIGEST`), which only an hsim
    that writes the settings digest writes: then the digest was removed.

    :raises ManifestError: the settings or the digest were damaged, edited or removed.
    """
    recorded = manifest.get(SETTINGS_DIGEST)
    if recorded is None:
        sealed = [*(manifest.get("parts") or []), *entries]
        if not any(isinstance(e, dict) and ENTRY_DIGEST in e for e in sealed):
            return
    if recorded != settings_digest(manifest):
        raise ManifestError(
            f"{where} is damaged or was edited: its settings ({', '.join(SETTINGS)}) no "
            f"longer match the checksum hsim wrote with them ({SETTINGS_DIGEST}), so its "
            "parts could be read or continued as another run's. Restore it from a copy, or "
            "start the run again in a new folder"
        )


def versions() -> dict[str, Any]:
    """Return the versions of hsim, Python and the core dependencies, and ``hsim_git``:
    the commit of hsim's source (see :func:`source_commit`)."""
    out: dict[str, Any] = {"hsim": hsim.__version__, "python": platform.python_version()}
    for name in DEPENDENCIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    out["hsim_git"] = source_commit()
    return out


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            timeout=5,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},  # a read-only look: no index lock
        )
    except (OSError, subprocess.SubprocessError):  # no git, or it hung
        return None
    return done.stdout if done.returncode == 0 else None


def source_commit(package_dir: Path | None = None) -> dict[str, Any] | None:
    """Return ``{"commit": sha, "dirty": bool}`` for hsim's source when the package is a
    git checkout (an editable install), else None (an installed copy, or no git).

    dirty: tracked files differ from the commit (untracked files do not count). The
    package's own ``__init__.py`` must be tracked, so a copy installed inside some other
    repository (a virtual environment in a checkout) is not mistaken for one.
    """
    folder = Path(package_dir or Path(hsim.__file__).resolve().parent)
    if _git(folder, "ls-files", "--error-unmatch", "__init__.py") is None:
        return None
    commit = _git(folder, "rev-parse", "HEAD")
    status = _git(folder, "status", "--porcelain", "--untracked-files=no")
    if commit is None or status is None:
        return None
    return {"commit": commit.strip(), "dirty": bool(status.strip())}


def now() -> str:
    """Return the current UTC time in ISO 8601."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write ``run.json`` atomically (temporary file, fsync, then rename)."""
    tmp = Path(run_dir) / f".{MANIFEST}.tmp"
    with open_new(tmp) as f:
        f.write(json.dumps(manifest, indent=2) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, Path(run_dir) / MANIFEST)


#: The largest run.json or journal hsim reads (bytes): far above any run's (a
#: 10,000,000-game run's is a few MB), far below what would exhaust memory.
MAX_RECORD_BYTES = 512 * 2**20


def read_record(path: Path) -> bytes:
    """Return the bytes of a run folder's record (``run.json``, the journal), read only
    when it is a regular file of at most :data:`MAX_RECORD_BYTES`.

    :raises FileNotFoundError: it is not there.
    :raises ManifestError: a link, a pipe, a device, or too large.
    """
    try:  # no link followed, and a pipe opened without waiting for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ManifestError(
            f"{path} cannot be read as hsim's ({exc.strerror or exc}; a link is never "
            "followed in a run folder)"
        ) from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ManifestError(
                f"{path} is not a regular file (a folder, a pipe…); hsim reads only its "
                "own files in a run folder"
            )
        if info.st_size > MAX_RECORD_BYTES:
            raise ManifestError(
                f"{path} is {info.st_size:,} bytes, more than any run's record; it is not "
                "one hsim wrote"
            )
        return f.read()


def parse_record(data: bytes | str, path: Path) -> Any:
    """Return JSON ``data`` read from ``path``, or raise ManifestError saying why not
    (not JSON, or nested too deeply to be hsim's).

    :raises ManifestError: naming the file and that ``hsim verify`` checks the folder.
    """
    try:
        return json.loads(data)
    except RecursionError:
        raise ManifestError(
            f"{path} is damaged: it is nested too deeply to be one hsim wrote"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ManifestError(
            f"{path} is damaged (not valid JSON: {exc}); it was cut short or edited. "
            "`hsim verify` checks the folder"
        ) from None


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """Return the manifest of run folder ``run_dir``.

    :raises FileNotFoundError: the folder has no ``run.json``.
    :raises ManifestError: ``run.json`` is not valid JSON (cut short, edited) or not an
        object.
    """
    path = Path(run_dir) / MANIFEST
    text = read_record(path).decode("utf-8", errors="replace")
    manifest = parse_record(text, path)
    if not isinstance(manifest, dict):
        raise ManifestError(
            f"{path} is damaged: it holds a {type(manifest).__name__}, not an object"
        )
    return manifest


def _entry_digest(entry: dict[str, Any]) -> str:
    return _json_sha256({k: v for k, v in entry.items() if k != ENTRY_DIGEST})


def seal_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """Return journal ``entry`` (a chunk's start, stop, parts and sums) with its digest."""
    return {**entry, ENTRY_DIGEST: _entry_digest(entry)}


def entry_intact(entry: dict[str, Any], sealed: bool = False) -> bool:
    """Return whether a journal entry matches its digest. An entry without one, written
    before hsim sealed them, is taken as it is, unless ``sealed``: its run's manifest has
    a settings digest (:data:`SETTINGS_DIGEST`), so hsim sealed every entry of it."""
    recorded = entry.get(ENTRY_DIGEST)
    if recorded is None:
        return not sealed
    return recorded == _entry_digest(entry)


def append_journal(run_dir: Path, entry: dict[str, Any]) -> None:
    """Append one finished chunk to the journal (one write of one line, then fsync)."""
    line = (json.dumps(entry, separators=(",", ":")) + "\n").encode()
    fd = open_append(Path(run_dir) / JOURNAL)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_journal(run_dir: Path) -> list[dict[str, Any]]:
    """Return the journal's entries; a line cut short (a kill mid-write) is skipped."""
    try:
        data = read_record(Path(run_dir) / JOURNAL)
    except FileNotFoundError:
        return []
    entries = []
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # cut short, damaged: the chunk is played again
            continue
        if isinstance(entry, dict) and isinstance(entry.get("start"), int):
            entries.append(entry)
    return entries


def recorded_parts(
    run_dir: Path,
    manifest: dict[str, Any],
    damaged: list | None = None,
    journal: list[dict[str, Any]] | None = None,
) -> dict[int, dict[str, Any]]:
    """Return the finished chunks by start index: run.json's ``parts`` and the journal's
    (``journal``: its entries, when the caller has read them already). An entry that does
    not match its digest (:func:`entry_intact`) is left out, so its chunk counts as not
    played, and appended to ``damaged`` unless an intact entry for the same chunk is
    recorded.
    """
    out: dict[int, dict[str, Any]] = {}
    bad = []
    sealed = SETTINGS_DIGEST in manifest
    if journal is None:
        journal = read_journal(run_dir)
    for entry in [*(manifest.get("parts") or []), *journal]:
        if isinstance(entry, dict) and isinstance(entry.get("start"), int):
            if entry_intact(entry, sealed):
                out[entry["start"]] = entry
            else:
                bad.append(entry)
    if damaged is not None:
        damaged.extend(e for e in bad if e["start"] not in out)
    return out
