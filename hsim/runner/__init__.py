"""The batch runner: schedule games in chunks over worker processes, write Parquet.

- :mod:`hsim.runner.config` — :class:`RunConfig` and :func:`validate`, the whole
  configuration checked before anything is written; a manifest checked before it is read;
- :mod:`hsim.runner.chunk` — the worker side: :class:`ChunkTask`, one chunk played and
  written;
- :mod:`hsim.runner.pool` — the one orchestration of chunks (:func:`play_ranges`: this
  process, a process pool or a Dask cluster), with lost workers replayed;
- :mod:`hsim.runner.run` — a tournament: claim the folder, play, journal, finish;
  :mod:`hsim.runner.resume` and :mod:`hsim.runner.verify` — continue and check a run;
- :mod:`hsim.runner.sink`, :mod:`hsim.runner.columns`, :mod:`hsim.runner.narrow` — the
  Parquet parts; :mod:`hsim.runner.manifest`, :mod:`hsim.runner.lock` — ``run.json``,
  the journal, the folder's owner; :mod:`hsim.runner.cluster` — Dask.

The names below are imported on first use: importing ``hsim.runner.run`` compiles the
engine (or loads it from the cache), which reading a manifest (``hsim.runner.manifest``)
or a run's summary must not wait for.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "RunConfig": "hsim.runner.config",
    "RunError": "hsim.runner.run",
    "RunResult": "hsim.runner.run",
    "run_tournament": "hsim.runner.run",
}
__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'hsim.runner' has no attribute {name!r}")
