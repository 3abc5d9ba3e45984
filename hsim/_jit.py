"""Compiled-code set-up: the numba cache folder, keyed on hsim's own source.

numba's on-disk cache does not notice when an inlined callee in another file changes
(DESIGN.md), so a cache written by one version of hsim's source must never be read by
another. The cache lives in ``$HSIM_CACHE_DIR`` (default ``~/.cache/hsim``) under a
folder named by a hash of every ``.py`` file of ``hsim`` and the built-in strategies.
A ``NUMBA_CACHE_DIR`` already set by the user is respected.

Import this module before anything that defines ``@njit(cache=True)`` kernels.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import warnings
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def source_hash() -> str:
    """Return a short hash of hsim's Python source (engine, strategies and the rest)."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        h.update(str(path.relative_to(PACKAGE_DIR)).encode())
        h.update(path.read_bytes())
    strategies = PACKAGE_DIR / "strategies"
    if not strategies.exists():  # editable install: the folder maps in from the repo root
        spec = importlib.util.find_spec("hsim.strategies")  # locates without importing
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for path in sorted(Path(folder).rglob("*.py")):
                h.update(path.name.encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _configure() -> str:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    base = Path(os.environ.get("HSIM_CACHE_DIR", Path.home() / ".cache" / "hsim"))
    path = str(base / f"numba-{source_hash()}")
    os.environ["NUMBA_CACHE_DIR"] = path
    import numba

    numba.config.CACHE_DIR = path  # numba may have been imported before us
    return path


CACHE_DIR = _configure()

import numba  # noqa: E402

warnings.filterwarnings("ignore", category=numba.NumbaExperimentalFeatureWarning)

JIT_DISABLED = bool(numba.config.DISABLE_JIT)


def kernel(fn):
    """Compile ``fn`` as an engine kernel: cached, and inlined into its compiled callers.

    Entry points (``play_games``) are compiled without NRT (``_nrt=False``): together
    with inlining, that removes the reference counting numba otherwise does on every
    array passed to a call, which cost ~25 ns per call in the game loop (measured).
    Kernels therefore never allocate arrays; scratch space lives in the state arrays.
    """
    return numba.njit(cache=True, inline="always")(fn)


def compiled_here(*dispatchers) -> bool:
    """Return whether any of ``dispatchers`` was compiled in this process (a cache miss)."""
    return any(bool(getattr(d, "stats", None) and d.stats.cache_misses) for d in dispatchers)
