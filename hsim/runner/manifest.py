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

import json
import os
import platform
import subprocess
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

import hsim
from hsim.errors import ManifestError

MANIFEST = "run.json"
JOURNAL = "parts.jsonl"
DEPENDENCIES = ("numba", "llvmlite", "numpy", "pandas", "pyarrow", "click", "tqdm")


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
    with open(tmp, "w") as f:
        f.write(json.dumps(manifest, indent=2) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, Path(run_dir) / MANIFEST)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """Return the manifest of run folder ``run_dir``.

    :raises FileNotFoundError: the folder has no ``run.json``.
    :raises ManifestError: ``run.json`` is not valid JSON (cut short, edited) or not an
        object.
    """
    path = Path(run_dir) / MANIFEST
    text = path.read_text(errors="replace")
    try:
        manifest = json.loads(text)
    except ValueError as exc:
        raise ManifestError(
            f"{path} is damaged (not valid JSON: {exc}); it was cut short or edited. "
            "`hsim verify` checks the folder"
        ) from None
    if not isinstance(manifest, dict):
        raise ManifestError(
            f"{path} is damaged: it holds a {type(manifest).__name__}, not an object"
        )
    return manifest


def append_journal(run_dir: Path, entry: dict[str, Any]) -> None:
    """Append one finished chunk to the journal (one write of one line, then fsync)."""
    line = (json.dumps(entry, separators=(",", ":")) + "\n").encode()
    fd = os.open(Path(run_dir) / JOURNAL, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_journal(run_dir: Path) -> list[dict[str, Any]]:
    """Return the journal's entries; a line cut short (a kill mid-write) is skipped."""
    try:
        data = (Path(run_dir) / JOURNAL).read_bytes()
    except FileNotFoundError:
        return []
    entries = []
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("start"), int):
            entries.append(entry)
    return entries


def recorded_parts(run_dir: Path, manifest: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Return the finished chunks by start index: run.json's ``parts`` and the journal's."""
    out: dict[int, dict[str, Any]] = {}
    for entry in [*(manifest.get("parts") or []), *read_journal(run_dir)]:
        if isinstance(entry, dict) and isinstance(entry.get("start"), int):
            out[entry["start"]] = entry
    return out
