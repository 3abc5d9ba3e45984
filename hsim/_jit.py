"""Compiled-code set-up: the numba cache folder, keyed on hsim's own source.

numba's on-disk cache does not notice when an inlined callee in another file changes
(DESIGN.md), so a cache written by one version of hsim's source must never be read by
another. The cache lives in ``$HSIM_CACHE_DIR`` (default ``~/.cache/hsim``) under a
folder named by a hash of every module of ``hsim`` and of the built-in strategies that
holds compiled code (:func:`source_hash`).
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


COMPILED_MARKERS = (b"numba", b"njit", b"@kernel")


def _compiled_sources() -> list[tuple[str, Path]]:
    """Return (name, path) of every hsim and built-in strategy module with compiled code."""
    files = [(str(p.relative_to(PACKAGE_DIR)), p) for p in PACKAGE_DIR.rglob("*.py")]
    if not (PACKAGE_DIR / "strategies").exists():  # editable install: mapped from the repo
        spec = importlib.util.find_spec("hsim.strategies")  # locates without importing
        for folder in (spec.submodule_search_locations or []) if spec else []:
            files += [("strategies/" + p.name, p) for p in Path(folder).rglob("*.py")]
    return sorted(files)


def source_hash() -> str:
    """Return a short hash of the source of every module that holds compiled code.

    Every module of ``hsim.engine`` counts (its constants are compiled in), and any other
    module whose text mentions numba, ``njit`` or ``@kernel``; editing a module without
    compiled code (the CLI, the analysis) keeps the cache.
    """
    h = hashlib.sha256()
    for name, path in _compiled_sources():
        data = path.read_bytes()
        if name.startswith("engine/") or any(marker in data for marker in COMPILED_MARKERS):
            h.update(name.encode())
            h.update(data)
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
