"""The run manifest ``run.json``: what was run, with what, and whether it finished."""

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

MANIFEST = "run.json"
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
    """Write ``run.json`` atomically (temporary file, then rename)."""
    tmp = run_dir / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2) + "\n")
    os.replace(tmp, run_dir / MANIFEST)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """Return the manifest of run folder ``run_dir``.

    :raises FileNotFoundError: the folder has no ``run.json``.
    """
    return json.loads((Path(run_dir) / MANIFEST).read_text())
