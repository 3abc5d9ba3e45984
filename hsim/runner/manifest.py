"""The run manifest ``run.json``: what was run, with what, and whether it finished."""

from __future__ import annotations

import json
import os
import platform
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

import hsim

MANIFEST = "run.json"
DEPENDENCIES = ("numba", "llvmlite", "numpy", "pandas", "pyarrow", "click", "tqdm")


def versions() -> dict[str, str]:
    """Return the versions of hsim, Python and the core dependencies."""
    out = {"hsim": hsim.__version__, "python": platform.python_version()}
    for name in DEPENDENCIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


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
